"""Benchmark: a mixed soak of the protocol service on loopback, watching memory (issue 16).

Serves the app with uvicorn (one worker, in a thread of this process:
``network.up.serve_in_thread``, the start-up the test networks use too) on 127.0.0.1 over
a generated graph and sends a fixed mix of requests open-loop at ``--rate`` per second for
``--seconds``: frontier reads (plain and filtered), node bundles, the info and error
catalogs, claim + release by distinct identities, bad-token writes from a rotating set of
addresses' worth of tokens, and unknown routes. Then it stays idle for ``--idle``
seconds.

The requests come from a separate process (:func:`drive`, one ``spawn``-ed worker), so
the load generator's threads neither hold the service's interpreter lock nor count in
its memory. It prints, per route, p50/p99 latency and status counts, and the service
process's resident memory (RSS, from
``/proc/self/status``) at four moments: the *floor* (app built, every route called once),
the start of the soak (after ``--warm`` seconds of the same mix), its end, and after the
idle period (after a ``gc.collect``). During the soak it samples RSS every ``--sample``
seconds and prints the least-squares slope after warm-up in MB/min beside the goal of
issue 39 (0.2 MB/min or less), and the service's caches (``GzipCache.stats()``, the
frontier templates) at the end. With ``--trace`` (the default; ``--no-trace`` for the
bare figures) it also prints the ten allocation sites of ``network/``, ``fastapi``,
``starlette``, ``sqlalchemy`` and ``pydantic`` that grew most between the start and the
end (tracemalloc; slows everything down and adds its own bookkeeping to RSS).

Usage::

    .venv/bin/python benchmarks/soak.py                   # 60 s at 100 req/s
    .venv/bin/python benchmarks/soak.py --seconds 300     # the issue's five minutes
    .venv/bin/python benchmarks/soak.py --seconds 60 --no-trace
    .venv/bin/python benchmarks/soak.py --rate 40 --seconds 1200   # issue 39: 20 minutes
    .venv/bin/python benchmarks/soak.py --rate 40 --requests 50000 --seconds 1e9
    .venv/bin/python benchmarks/soak.py --database-url postgresql://postgres@127.0.0.1:5432/test

With ``--database-url`` a PostgreSQL database holds the service state, in a fresh schema
``lemmata_soak_<12 hex>`` made for the run and dropped after it (``postgresql://`` URLs
use the psycopg driver); without it, SQLite in a temporary folder.

Goals (issue 16): RSS flat within 10% after warm-up; frontier p99 < 20 ms, node bundle
p99 < 50 ms, claim p99 < 100 ms (the last on PostgreSQL). Issue 39: an RSS slope after
warm-up of 0.2 MB/min or less over 20 minutes on 2 cores. Figures are printed, never
asserted. The loop is bounded by ``--seconds`` (and ``--requests`` when given) and sends
only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests", ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from api_load import free_port, percentile

_KEEP = ("network/", "fastapi", "starlette", "sqlalchemy", "pydantic")
#: Issue 39's goal: RSS slope after warm-up, MB (10**6 bytes) per minute, at most.
SLOPE_GOAL_MB_PER_MIN = 0.2


def rss_mb() -> float:
    """This process's resident set size in MiB (Linux ``/proc/self/status``; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def sqlite_mb() -> float:
    """SQLite's own heap in this process, in MiB (``sqlite3_memory_used`` of the shared
    ``libsqlite3`` the ``sqlite3`` module links; page caches included); -1 where that
    library cannot be loaded (a statically linked Python)."""
    import ctypes
    import ctypes.util

    try:
        lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        lib.sqlite3_memory_used.restype = ctypes.c_int64
        return float(lib.sqlite3_memory_used()) / 1024 / 1024
    except (OSError, AttributeError):
        return -1.0


def slope_mb_per_min(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of ``(seconds, RSS MiB)`` samples in MB (10**6 bytes) per
    minute; 0.0 for fewer than two samples."""
    if len(samples) < 2:
        return 0.0
    n = len(samples)
    mt = sum(t for t, _ in samples) / n
    mr = sum(r for _, r in samples) / n
    var = sum((t - mt) ** 2 for t, _ in samples)
    if not var:
        return 0.0
    per_s = sum((t - mt) * (r - mr) for t, r in samples) / var
    return per_s * 60 * 1024 * 1024 / 1e6


class RssSampler:
    """RSS of this process every ``every`` seconds, in a thread, while the block runs:
    ``samples`` is a list of (seconds since start, MiB) and ``sqlite`` the same for SQLite's
    own heap (:func:`sqlite_mb`). With ``live`` each sample is
    printed (flushed) as it is taken, with the slope so far in MB/min, so a run cut off
    by a timeout still leaves its figures."""

    def __init__(self, every: float, live: bool = False) -> None:
        self.every = every
        self.live = live
        self.sqlite: list[tuple[float, float]] = []
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        t0 = time.perf_counter()
        while True:
            self.samples.append((time.perf_counter() - t0, rss_mb()))
            self.sqlite.append((self.samples[-1][0], sqlite_mb()))
            if self.live:
                t, r = self.samples[-1]
                print(f"  sample t={t:7.1f} s  RSS {r:7.1f} MiB  slope so far "
                      f"{slope_mb_per_min(self.samples):+.3f} MB/min  (SQLite heap "
                      f"{self.sqlite[-1][1]:6.2f} MiB)", flush=True)
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append((self.samples[-1][0] + self.every if self.samples else 0.0,
                             rss_mb()))


def cache_sizes(app: Any) -> str:
    """The service's growing caches now (issue 39): the gzip cache's stats and the
    frontier templates held."""
    gz = app.state.gzip_cache
    stats = gz.stats() if hasattr(gz, "stats") else {"entries": len(gz._items)}
    kept = app.state.svc.extra.get("frontier_cache")
    frontier = len(kept.templates) if kept is not None else 0
    return f"gzip {stats}; frontier templates {frontier}"


@contextmanager
def database(url: str | None) -> Iterator[tuple[str | None, dict[str, Any] | None, str]]:
    """(SQLAlchemy URL, engine connect args, label) of the service state: SQLite (None)
    without ``url``, else a fresh schema on the PostgreSQL server ``url`` names, dropped
    with everything in it when the block ends."""
    if not url:
        yield None, None, "SQLite"
        return
    import psycopg
    from sqlalchemy.engine import make_url

    u = make_url(url)
    if u.get_backend_name() != "postgresql":
        raise SystemExit(f"soak: --database-url must be PostgreSQL, not {u.get_backend_name()}")
    u = u.set(drivername="postgresql+psycopg")
    conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
    schema = f"lemmata_soak_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield (u.render_as_string(hide_password=False),
                   {"options": f"-csearch_path={schema}"},
                   f"PostgreSQL {u.host}:{u.port or 5432}/{u.database} (schema {schema})")
        finally:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def build(tmp: Path, nodes: int, database_url: str | None = None,
          connect_args: dict[str, Any] | None = None) -> tuple[Any, list[str]]:
    """The app over a generated graph (its state at ``database_url``, default SQLite in
    ``tmp``), and one token per claimable node."""
    from network.api.app import create_app
    from network.api.identity import identity
    from network.api.service import Caller
    from network.api.settings import ServiceSettings
    from tests.api_support import build_graph

    graph = tmp / "graph"
    build_graph(graph, extra_nodes=nodes)
    settings = ServiceSettings(data_dir=tmp / "data", graph=graph,
                               rate_token_issues_per_address=10**9,
                               rate_writes_per_identity=10**9,
                               rate_writes_per_address=10**9,
                               rate_auth_failures_per_address=10**9,
                               database_url=database_url)
    app = create_app(settings, github_verifier=lambda tok: tok[3:],
                     engine_connect_args=connect_args)
    svc = app.state.svc
    tokens = [identity.issue_token(svc, Caller(token=None, address="bench"),
                                   pseudonym=f"agent{i}", dco=settings.dco_version,
                                   proof={"kind": "github", "token": f"gh-agent{i}"})["token"]
              for i in range(nodes)]
    return app, tokens


def mix(client: Any, tokens: list[str]) -> list[tuple[str, Callable[[int], int]]]:
    """The request mix: (route label, call) pairs, cycled in order."""
    n = len(tokens)

    def claim(i: int) -> int:
        k = i % n
        headers = {"Authorization": f"Bearer {tokens[k]}"}
        r = client.post("/claims", json={"target": "demo", "node": f"n{k + 1}",
                                         "ttl_s": 3600}, headers=headers)
        if r.status_code == 201:
            client.delete(f"/claims/{r.json()['claim_id']}", headers=headers)
        return int(r.status_code)

    def get(path: str) -> Callable[[int], int]:
        return lambda _i: int(client.get(path).status_code)

    return [
        ("GET /frontier.json", get("/frontier.json")),
        ("GET /targets/demo/nodes/{id}", lambda i: int(client.get(
            f"/targets/demo/nodes/n{i % n + 1}").status_code)),
        ("GET /frontier.json?target=demo", get("/frontier.json?target=demo")),
        ("POST /claims + DELETE", claim),
        ("GET /frontier.json", get("/frontier.json")),
        ("GET /info.json", get("/info.json")),
        ("POST /claims bad token", lambda i: int(client.post(
            "/claims", json={"target": "demo", "node": "root"},
            headers={"Authorization": f"Bearer lmt_bad{i}"}).status_code)),
        ("GET /targets/demo/nodes/{id}", lambda i: int(client.get(
            f"/targets/demo/nodes/n{i % n + 1}").status_code)),
        ("GET /errors.json", get("/errors.json")),
        ("GET /no/such/route", get("/no/such/route")),
    ]


def run(rate: float, seconds: float, routes: list[tuple[str, Callable[[int], int]]],
        codes: dict[str, dict[int, int]] | None = None) -> dict[str, list[float]]:
    """Open-loop ``rate`` req/s for ``seconds`` over the cycled mix; latencies per route
    (seconds), and each route's status counts added to ``codes`` when given."""
    per: dict[str, list[float]] = {}
    lock = threading.Lock()

    def call(i: int) -> int:
        name, fn = routes[i % len(routes)]
        t0 = time.perf_counter()
        code = fn(i)
        with lock:
            per.setdefault(name, []).append(time.perf_counter() - t0)
            if codes is not None:
                route = codes.setdefault(name, {})
                route[code] = route.get(code, 0) + 1
        return code

    paced_loop(rate, seconds, call, workers=16)
    return per


def paced_loop(rate: float, seconds: float, call: Callable[[int], int],
               workers: int = 16) -> None:
    """Open loop: request ``i`` is handed to one of ``workers`` threads at
    ``start + i / rate``, whether or not earlier ones have finished. Unlike
    ``api_load.open_loop`` (which queues every request up front), only the requests due
    so far exist at any moment, so a long soak's own bookkeeping (tens of thousands of
    queued work items) never shows up as the service's memory growth."""
    from concurrent.futures import ThreadPoolExecutor

    start = time.perf_counter() + 0.05
    with ThreadPoolExecutor(workers) as ex:
        for i in range(int(rate * seconds)):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            ex.submit(call, i)


def drive(url: str, tokens: list[str], rate: float, seconds: float
          ) -> tuple[dict[str, list[float]], dict[str, dict[int, int]], int]:
    """The load generator, run in its own process (so its threads share no interpreter
    lock and no memory with the service it measures): with ``rate`` 0, every route of
    the mix once; else :func:`run`. Returns (latencies per route in seconds, status counts
    per route, the number of routes in the mix)."""
    import httpx

    logging.disable(logging.INFO)
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    codes: dict[str, dict[int, int]] = {}
    with httpx.Client(base_url=url, limits=limits, timeout=30) as client:
        routes = mix(client, tokens)
        if not rate:
            for i, (_name, fn) in enumerate(routes):
                fn(i)
            return {}, {}, len(routes)
        return run(rate, seconds, routes, codes), codes, len(routes)


def main(argv: list[str] | None = None) -> int:
    """Run the soak; prints figures, returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=float, default=100.0, help="open-loop requests per second")
    ap.add_argument("--seconds", type=float, default=60.0, help="soak length in seconds")
    ap.add_argument("--warm", type=float, default=10.0, help="warm-up seconds before start")
    ap.add_argument("--idle", type=float, default=10.0, help="idle seconds after the soak")
    ap.add_argument("--nodes", type=int, default=50, help="claimable nodes (and agents)")
    ap.add_argument("--requests", type=int, default=0,
                    help="stop after this many requests (0: --seconds alone decides)")
    ap.add_argument("--sample", type=float, default=5.0,
                    help="seconds between RSS samples (the slope's points)")
    ap.add_argument("--trace", action=argparse.BooleanOptionalAction, default=True,
                    help="tracemalloc the growth (default on)")
    ap.add_argument("--live", action=argparse.BooleanOptionalAction, default=True,
                    help="print each RSS sample as it is taken (default on)")
    ap.add_argument("--database-url", default=None,
                    help="PostgreSQL URL of the service state, e.g. "
                    "postgresql://postgres@127.0.0.1:5432/test (a fresh schema, dropped "
                    "after); default SQLite")
    args = ap.parse_args(argv)
    if args.requests:
        args.seconds = min(args.seconds, args.requests / args.rate)
    logging.disable(logging.INFO)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from network.up import serve_in_thread

    with tempfile.TemporaryDirectory(prefix="lemmata-soak-") as tmp, \
            database(args.database_url) as (db_url, connect_args, db_label), \
            ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as load:
        app, tokens = build(Path(tmp), args.nodes, db_url, connect_args)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with serve_in_thread(app, "127.0.0.1", port):
            routes = load.submit(drive, url, tokens, 0, 0).result()[2]
            if args.live:
                print(f"soak: serving on {url}; warm-up {args.warm:.0f} s, then "
                      f"{args.seconds:.0f} s at {args.rate:.0f} req/s", flush=True)
            gc.collect()
            floor = rss_mb()
            load.submit(drive, url, tokens, args.rate, args.warm).result()
            gc.collect()
            if args.trace:
                tracemalloc.start(12)
                before = tracemalloc.take_snapshot()
            start = rss_mb()
            wall = time.perf_counter()
            with RssSampler(args.sample, live=args.live) as sampler:
                per, codes, _n = load.submit(drive, url, tokens, args.rate,
                                             args.seconds).result()
            wall = time.perf_counter() - wall
            end = rss_mb()
            caches = cache_sizes(app)
            if args.trace:
                after = tracemalloc.take_snapshot()
            time.sleep(args.idle)
            gc.collect()
            idle = rss_mb()
    print(f"soak: one uvicorn worker on 127.0.0.1, {args.rate:.0f} req/s for {args.seconds:.0f} s "
          f"(mix of {routes}), {args.nodes} claimable nodes, {db_label}; the load comes "
          "from a separate process, RSS is the service's")
    for name, lat in sorted(per.items()):
        ms = [x * 1000 for x in lat]
        seen = " ".join(f"{c}×{k}" for c, k in sorted(codes.get(name, {}).items()))
        print(f"  {name:<32} n={len(ms):6d}  p50={percentile(ms, 50):7.2f} ms  "
              f"p99={percentile(ms, 99):7.2f} ms  [{seen}]")
    sent = sum(len(v) for v in per.values())
    print(f"  sent {sent} in {wall:.1f} s ({sent / wall:.1f} req/s achieved)")
    growth = (end - start) / start * 100 if start else 0.0
    print(f"  RSS MiB: floor {floor:.1f} (app built, each route once) | start {start:.1f} "
          f"(after {args.warm:.0f} s warm-up) | end {end:.1f} ({growth:+.1f}% over the soak)"
          f" | after {args.idle:.0f} s idle {idle:.1f}")
    slope = slope_mb_per_min(sampler.samples)
    verdict = "meets" if slope <= SLOPE_GOAL_MB_PER_MIN else "misses"
    print(f"  RSS slope after warm-up: {slope:+.3f} MB/min over {len(sampler.samples)} samples "
          f"({wall / 60:.1f} min); goal <= {SLOPE_GOAL_MB_PER_MIN} MB/min over 20 min on 2 "
          f"cores (issue 39): {verdict}")
    if sampler.sqlite and sampler.sqlite[-1][1] >= 0:
        print(f"  SQLite heap (page caches included): {sampler.sqlite[0][1]:.2f} -> "
              f"{sampler.sqlite[-1][1]:.2f} MiB, slope {slope_mb_per_min(sampler.sqlite):+.3f} "
              "MB/min of the RSS slope above")
    print(f"  caches at the end: {caches}")
    print("  goals: RSS flat within 10% after warm-up; frontier p99 < 20 ms; node bundle "
          "p99 < 50 ms; claim p99 < 100 ms (PostgreSQL)")
    if args.trace:
        stats = [s for s in after.compare_to(before, "traceback")
                 if any(k in str(fr.filename) for fr in s.traceback for k in _KEEP)]
        total = sum(s.size_diff for s in after.compare_to(before, "filename")) / 1024 / 1024
        print(f"  Python heap growth over the soak (tracemalloc, all frames): {total:+.2f} MiB;"
              " the rest of the RSS growth is outside Python objects (database driver buffers,"
              " allocator arenas of the worker threads)")
        print("  top growth (tracemalloc, service frames):")
        for s in stats[:10]:
            fr = next((f for f in s.traceback if "network/" in f.filename), s.traceback[0])
            print(f"    {s.size_diff / 1024:+9.1f} KiB {s.count_diff:+7d} blocks  "
                  f"{fr.filename}:{fr.lineno}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
