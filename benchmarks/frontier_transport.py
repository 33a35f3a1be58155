"""Benchmark: ``GET /frontier.json`` at 10k entries, whole, gzip and one page, beside the
floor of a static file server sending the same bytes (issue 17 "Products and bundles that
travel light").

A small generated graph gets a committed ``frontier.json`` of ``--entries`` entries (its
own entries repeated under distinct node ids, so each is a real frontier/v2 entry of the
usual size), ``lemmata serve`` (uvicorn, one worker) is started on loopback over it, and
``--clients`` closed-loop clients ask, for ``--seconds`` each:

* the whole frontier, identity;
* the whole frontier, ``Accept-Encoding: gzip``;
* one page (``?limit=100``) and one page of three fields (``&fields=target,node,status``);
* a client revalidating with ``If-None-Match`` (``304`` while the body is unchanged: the
  frontier's ``live_claims_as_of`` is the second read, so its ETag moves each second);

and, for each, the floor: Python's ``ThreadingHTTPServer`` sending the same bytes (the
same identity body, gzipped once ahead for a gzip case, ``304`` to any ``If-None-Match``)
from memory, with no JSON, hashing or compression per request. Each line prints bytes on
the wire, requests per second, the floor's, and floor/this. Printed, never asserted.

The entries repeat the generated graph's few entries, so gzip's ratio here (about 75x)
is far better than a real frontier's; the page and field-selection figures do not depend
on that.

Usage::

    .venv/bin/python benchmarks/frontier_transport.py --entries 10000 --seconds 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests", ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from api_load import closed_loop, free_port, wait_serving


def grow_frontier(graph: Path, entries: int) -> int:
    """Rewrite ``graph``'s committed frontier.json to ``entries`` entries and commit;
    returns its size in bytes."""
    from tests.graphs import git_commit

    path = graph / "frontier.json"
    body = json.loads(path.read_text())
    seed = [e for e in body["nodes"] if isinstance(e, dict)]
    out = []
    for i in range(entries):
        e = dict(seed[i % len(seed)])
        e["node"] = f"{e['node']}-x{i}"
        out.append(e)
    body["nodes"] = out
    data = json.dumps(body, sort_keys=True, indent=2) + "\n"
    path.write_text(data)
    git_commit(graph, f"frontier of {entries} entries (benchmark)")
    return len(data.encode())


def floor_server(files: dict[str, tuple[bytes, bytes]]) -> tuple[ThreadingHTTPServer, int]:
    """A static server answering, per path, its identity bytes (or its gzip bytes when
    asked for gzip) from memory, and ``304`` with no body to any ``If-None-Match``."""

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def setup(self) -> None:
            super().setup()
            # headers and body are two writes: without this, keep-alive meets Nagle and
            # delayed ACKs, and every answer waits ~40 ms
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            if self.headers.get("If-None-Match"):
                self.send_response(304)
                self.send_header("ETag", '"floor"')
                self.end_headers()
                return
            zipped = "gzip" in (self.headers.get("Accept-Encoding") or "")
            identity, gz = files[self.path]
            body = gz if zipped else identity
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("ETag", '"floor"')
            self.send_header("Content-Length", str(len(body)))
            if zipped:
                self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            self.wfile.write(body)

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), H)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, port


def measure(base: str, path: str, headers: dict[str, str], clients: int,
            seconds: float, revalidate: bool = False) -> tuple[float, int, dict[int, int]]:
    """(requests/s, bytes on the wire of one answer, statuses) of ``clients`` closed-loop;
    with ``revalidate``, each request sends ``If-None-Match`` with the last ETag seen (a
    client revalidating its copy: ``304`` until the body changes)."""
    import httpx

    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    seen: dict[str, str] = {}
    with httpx.Client(base_url=base, limits=limits, timeout=30) as client:
        with client.stream("GET", path, headers=headers) as r:
            wire = len(b"".join(r.iter_raw()))
            seen["etag"] = r.headers.get("etag", "")

        def call(_i: int) -> int:
            sent = {**headers, "If-None-Match": seen["etag"]} if revalidate else headers
            with client.stream("GET", path, headers=sent) as r:
                for _ in r.iter_raw():
                    pass
                if r.status_code == 200 and revalidate:
                    seen["etag"] = r.headers.get("etag", "")
                return r.status_code

        lat, wall, st = closed_loop(clients, seconds, call)
    return (len(lat) / wall if wall else 0.0), wire, st


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; prints figures, returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--clients", type=int, default=4)
    args = ap.parse_args(argv)
    logging.disable(logging.INFO)
    import httpx

    from tests.api_support import build_graph

    with tempfile.TemporaryDirectory(prefix="lemmata-frontier-transport-") as tmp:
        graph = Path(tmp) / "graph"
        build_graph(graph, extra_nodes=20)
        size = grow_frontier(graph, args.entries)
        data = Path(tmp) / "data"
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "network.cli", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--data", str(data), "--graph", str(graph), "--database-url",
             f"sqlite:///{data / 'service.sqlite3'}"],
            env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        floor = None
        try:
            err = wait_serving(proc, base, 90.0, 0.2)
            if err is not None:
                print(f"the service did not start\n{err}")
                return 0
            ident = {"Accept-Encoding": "identity"}
            gzh = {"Accept-Encoding": "gzip"}
            whole = httpx.get(f"{base}/frontier.json", headers=ident, timeout=60)
            cases = [
                ("whole, identity", "/frontier.json", ident),
                ("whole, gzip", "/frontier.json", gzh),
                ("page limit=100", "/frontier.json?limit=100", ident),
                ("page limit=100, gzip", "/frontier.json?limit=100", gzh),
                ("page 3 fields, limit=1000",
                 "/frontier.json?limit=1000&fields=target,node,status", gzh),
                ("revalidating (If-None-Match)", "/frontier.json", ident),
            ]
            files = {}
            for _name, path, _h in cases:
                body = httpx.get(f"{base}{path}", headers=ident, timeout=60).content
                files[path] = (body, gzip.compress(body, 6, mtime=0))
            floor, fport = floor_server(files)
            fbase = f"http://127.0.0.1:{fport}"
            print(f"frontier_transport: {args.entries} entries, committed product {size} B, "
                  f"served {len(whole.content)} B; {args.clients} closed-loop clients, "
                  f"{args.seconds:.0f} s each; one uvicorn worker; floor: ThreadingHTTPServer "
                  "sending the same bytes from memory (no JSON, no hash, no compression)")
            print(f"  {'case':<30} {'bytes':>10}  {'req/s':>8}  {'floor req/s':>11}  "
                  "floor/this")
            for name, path, headers in cases:
                again = name.startswith("revalidating")
                rps, wire, st = measure(base, path, headers, args.clients, args.seconds,
                                        revalidate=again)
                frps, _fw, _fst = measure(fbase, path, headers, args.clients, args.seconds,
                                          revalidate=again)
                ratio = frps / rps if rps else float("inf")
                print(f"  {name:<30} {wire:>10d}  {rps:8.1f}  {frps:11.1f}  {ratio:8.2f}x"
                      f"  statuses={dict(sorted(st.items()))}")
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            if floor is not None:
                floor.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
