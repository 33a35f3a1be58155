"""Benchmark: the protocol service under load on loopback (issue 4; D-25, D-35).

Starts ``lemmata serve`` (uvicorn, one worker) in a subprocess on 127.0.0.1 over a
generated graph, and drives it from this process with httpx:

* ``GET /frontier.json`` open-loop at a fixed rate (default 200 requests/s), then
  closed-loop with a few concurrent clients for the most it serves;
* ``POST /claims`` then ``DELETE /claims/<id>`` by distinct identities on distinct nodes,
  open-loop at a fixed rate (claims are writes: one transaction each).

It does this for SQLite (the default, in the data folder) and for PostgreSQL at
``postgresql+psycopg://postgres@127.0.0.1:5432/test`` in a throwaway schema that is dropped
afterwards; PostgreSQL is skipped with a message when it cannot be reached. Tokens are
issued before the server starts, in this process, over the same database (GitHub proofs
with a stub verifier), so the load is only the routes measured.

Usage::

    .venv/bin/python benchmarks/api_load.py
    .venv/bin/python benchmarks/api_load.py --rate 200 --seconds 5 --nodes 200

Goal: frontier p99 under 20 ms at 200 requests/s on one worker. Figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile (0-100) of ``xs`` by nearest rank; 0 for an empty list."""
    if not xs:
        return 0.0
    s = sorted(xs)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def report(name: str, lat_s: list[float], wall_s: float, errors: dict[int, int]) -> None:
    """One line: requests, achieved rate, p50/p99/max in milliseconds, statuses."""
    ms = [x * 1000 for x in lat_s]
    rate = len(ms) / wall_s if wall_s else 0.0
    print(f"  {name:<34} n={len(ms):5d}  {rate:7.1f} req/s  p50={percentile(ms, 50):6.2f} ms"
          f"  p99={percentile(ms, 99):6.2f} ms  max={max(ms or [0]):7.2f} ms"
          f"  statuses={dict(sorted(errors.items()))}")


def open_loop(rate: float, seconds: float, call: Callable[[int], int],
              workers: int = 32) -> tuple[list[float], float, dict[int, int]]:
    """Send ``rate`` requests per second for ``seconds``, each at its scheduled time
    (open loop); returns (latencies in seconds, wall seconds, status counts)."""
    n = int(rate * seconds)
    lat: list[float] = []
    statuses: dict[int, int] = {}

    def one(i: int, due: float) -> None:
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        t0 = time.perf_counter()
        code = call(i)
        lat.append(time.perf_counter() - t0)
        statuses[code] = statuses.get(code, 0) + 1

    start = time.perf_counter() + 0.05
    with ThreadPoolExecutor(workers) as ex:
        for i in range(n):
            ex.submit(one, i, start + i / rate)
    return lat, time.perf_counter() - start, statuses


def closed_loop(clients: int, seconds: float, call: Callable[[int], int]
                ) -> tuple[list[float], float, dict[int, int]]:
    """``clients`` threads calling back to back for ``seconds``."""
    lat: list[float] = []
    statuses: dict[int, int] = {}
    end = time.perf_counter() + seconds

    def loop(c: int) -> None:
        i = 0
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            code = call(c * 1_000_000 + i)
            lat.append(time.perf_counter() - t0)
            statuses[code] = statuses.get(code, 0) + 1
            i += 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as ex:
        for c in range(clients):
            ex.submit(loop, c)
    return lat, time.perf_counter() - t0, statuses


def issue_tokens(data: Path, graph: Path, database_url: str, count: int,
                 connect_args: dict[str, Any] | None) -> list[str]:
    """Create ``count`` identities with tokens in the service's database (in process)."""
    from network.api.app import create_app
    from network.api.identity import identity
    from network.api.service import Caller
    from network.api.settings import ServiceSettings

    settings = ServiceSettings(data_dir=data, graph=graph, database_url=database_url,
                               rate_token_issues_per_address=10**9)
    app = create_app(settings, github_verifier=lambda tok: tok[3:],
                     engine_connect_args=connect_args)
    svc = app.state.svc
    out = []
    for i in range(count):
        r = identity.issue_token(svc, Caller(token=None, address="bench"),
                                 pseudonym=f"agent{i}", dco=settings.dco_version,
                                 proof={"kind": "github", "token": f"gh-agent{i}"})
        out.append(r["token"])
    svc.engine.dispose()
    return out


def wait_serving(proc: subprocess.Popen[bytes], base: str, timeout_s: float,
                 poll_s: float) -> str | None:
    """Wait until the service at ``base`` answers ``GET /info.json`` with 200, polling every
    ``poll_s`` seconds for at most ``timeout_s``; None once it does, else the last 2,000
    characters of its stderr (it exited, or the time ran out)."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{base}/info.json", timeout=1).status_code == 200:
                return None
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return (proc.stderr.read().decode() if proc.stderr else "")[-2000:]
        time.sleep(poll_s)


def run_backend(label: str, data: Path, graph: Path, database_url: str,
                connect_args: dict[str, Any] | None, args: argparse.Namespace) -> None:
    """Start the server over one database and drive both routes."""
    import httpx

    tokens = issue_tokens(data, graph, database_url, args.nodes, connect_args)
    port = free_port()
    env = dict(os.environ)
    env.update({
        "LEMMATA_RATE_WRITES_PER_IDENTITY": str(10**9),
        "LEMMATA_RATE_WRITES_PER_ADDRESS": str(10**9),
        "PYTHONPATH": str(ROOT),
    })
    cmd = [sys.executable, "-m", "network.cli", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--data", str(data), "--graph", str(graph),
           "--database-url", database_url]
    proc = subprocess.Popen(cmd, env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        err = wait_serving(proc, base, 60.0, 0.1)
        if err is not None:
            print(f"  {label}: the service did not start\n{err}")
            return
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        with httpx.Client(base_url=base, limits=limits, timeout=10) as client:
            for _ in range(20):  # warm the graph cache and the connection pool
                client.get("/frontier.json")

            def frontier(_i: int) -> int:
                return client.get("/frontier.json").status_code

            lat, wall, st = open_loop(args.rate, args.seconds, frontier)
            report(f"GET /frontier.json @{args.rate:.0f}/s", lat, wall, st)
            lat, wall, st = closed_loop(args.clients, args.seconds, frontier)
            report(f"GET /frontier.json max ({args.clients} clients)", lat, wall, st)

            def claim(i: int) -> int:
                k = i % len(tokens)
                headers = {"Authorization": f"Bearer {tokens[k]}"}
                r = client.post("/claims", json={"target": "demo", "node": f"n{k + 1}",
                                                 "ttl_s": 3600}, headers=headers)
                if r.status_code == 201:
                    client.delete(f"/claims/{r.json()['claim_id']}", headers=headers)
                return r.status_code

            claim_rate = min(args.rate, 100.0)
            lat, wall, st = open_loop(claim_rate, args.seconds, claim, workers=16)
            report(f"POST /claims (+DELETE) @{claim_rate:.0f}/s", lat, wall, st)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def postgres_schema() -> tuple[str, Callable[[], None]] | None:
    """A throwaway schema on the local PostgreSQL: (its name, a function dropping it);
    None when the server cannot be reached."""
    try:
        import psycopg

        conn = psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test",
                               connect_timeout=3, autocommit=True)
    except Exception as exc:  # noqa: BLE001 - any failure means "not available here"
        print(f"PostgreSQL: skipped, {PG_URL} unreachable ({type(exc).__name__}: {exc})")
        return None
    name = f"bench_{secrets.token_hex(4)}"
    conn.execute(f'CREATE SCHEMA "{name}"')

    def drop() -> None:
        conn.execute(f'DROP SCHEMA "{name}" CASCADE')
        conn.close()

    return name, drop


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; prints figures, returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=float, default=200.0, help="open-loop requests per second")
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per phase")
    ap.add_argument("--clients", type=int, default=8, help="closed-loop clients")
    ap.add_argument("--nodes", type=int, default=100, help="claimable nodes (and agents)")
    args = ap.parse_args(argv)
    import logging

    logging.disable(logging.INFO)  # httpx and alembic log every request/migration at INFO
    from tests.api_support import build_graph

    with tempfile.TemporaryDirectory(prefix="lemmata-api-load-") as tmp:
        graph = Path(tmp) / "graph"
        build_graph(graph, extra_nodes=args.nodes)
        print(f"api_load: one uvicorn worker on loopback; graph with {args.nodes + 2} nodes "
              "in target demo; goal: frontier p99 < 20 ms at 200 req/s")
        print("SQLite:")
        sqlite_dir = Path(tmp) / "sqlite"
        run_backend("SQLite", sqlite_dir, graph,
                    f"sqlite:///{sqlite_dir / 'service.sqlite3'}", None, args)
        pg = postgres_schema()
        if pg is not None:
            name, drop = pg
            print(f"PostgreSQL (schema {name}):")
            try:
                url = f"{PG_URL}?options=-csearch_path%3D{name}"
                run_backend("PostgreSQL", Path(tmp) / "pg", graph, url,
                            {"options": f"-csearch_path={name}"}, args)
            finally:
                drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
