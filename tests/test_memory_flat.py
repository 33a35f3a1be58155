"""Flat memory under load (issue 39 part 2): the caches that grow with the requests the
service answers stay within their published bounds, whatever the request stream.

What held memory before: the gzip cache of network/api/transport.py kept every compressed
body by its ETag, and the frontier's ETag changes every second (``live_claims_as_of``) and
a node bundle's at every claim, so each superseded version stayed until the 32 MiB bound.
Now one entry per request target is kept, at most ``CACHE_ENTRIES`` of them. The tests
assert on the sizes of the structures (never on RSS or time); ``benchmarks/soak.py``
measures the process.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.api import transport
from network.api.frontier import frontier_cache
from tests.api_support import Api, auth, make_api

GZ = {"Accept-Encoding": "gzip"}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a graph with 30 extra nodes (a frontier of some kilobytes),
    its write limits out of the way of a hundred claims."""
    yield from make_api(tmp_path, extra_nodes=30, settings={
        "rate_writes_per_identity": 10**6, "rate_writes_per_address": 10**6})


def _entries(cache: Any) -> int:
    """How many compressed bodies the gzip cache holds (its one structure)."""
    return len(cache._items)


@pytest.mark.slow
def test_superseded_versions_are_released(api: Api) -> None:
    """200 seconds of a frontier whose ETag changes each second, and node bundles whose
    ETag changes at each claim: the cache holds one body per target, not one per version."""
    cache = api.app.state.gzip_cache
    tok = api.token()["token"]
    paths = ("/frontier.json", "/targets/demo/nodes/n1", "/errors.json")
    for path in paths:  # warm-up
        assert api.client.get(path, headers=GZ).headers["content-encoding"] == "gzip"
    held, made = _entries(cache), cache.compressions
    for i in range(200):
        api.clock.advance(1)  # a new second: a new frontier body and ETag
        if i % 4 == 0:  # a claim and its release: a new node bundle
            r = api.client.post("/claims", json={"target": "demo", "node": "n1"},
                                headers=auth(tok))
            assert r.status_code == 201, r.text
            assert api.client.delete(f"/claims/{r.json()['claim_id']}",
                                     headers=auth(tok)).status_code == 200
        for path in paths:
            assert api.client.get(path, headers=GZ).status_code == 200
    assert cache.compressions - made >= 200  # the versions did change
    assert _entries(cache) == held == len(paths)
    assert cache.stats()["entries"] == held


@pytest.mark.slow
def test_query_strings_a_caller_varies_stay_bounded(api: Api,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 requests whose query strings all differ: the gzip cache and the frontier
    cache never hold more than their bounds (lowered here so the bound is reached)."""
    cache = api.app.state.gzip_cache
    cache.max_entries = 40
    monkeypatch.setattr(frontier_cache, "MAX_ENTRIES", 30)
    templates = api.svc.extra
    for i in range(2000):
        if i % 2:
            r = api.client.get(f"/errors.json?v={i}", headers=GZ)
            assert r.headers["content-encoding"] == "gzip"
        else:
            r = api.client.get(f"/frontier.json?where=attempts%3C{i}", headers=GZ)
        assert r.status_code == 200, r.text
        assert _entries(cache) <= 40
        assert len(templates["frontier_cache"].templates) <= 30
    stats = cache.stats()
    assert stats["entries"] == 40 and 0 < stats["bytes"] <= stats["max_bytes"]


def test_gzip_cache_bounds_entries_and_bytes() -> None:
    c = transport.GzipCache(max_bytes=100, max_entries=2)
    c.put('"v1"', b"a" * 10, slot="/x")
    c.put('"v2"', b"b" * 10, slot="/x")  # a new version replaces the old
    assert c.get('"v1"', "/x") is None and c.get('"v2"', "/x") == b"b" * 10
    c.put('"w"', b"c" * 10, slot="/y")
    c.put('"z"', b"d" * 10, slot="/z")  # a third target: the least recent goes
    assert c.get('"v2"', "/x") is None
    assert c.stats() == {"entries": 2, "bytes": 20, "max_entries": 2, "max_bytes": 100}
    c.put('"big"', b"e" * 95, slot="/y")
    assert c.stats()["entries"] == 1 and c.stats()["bytes"] == 95
    assert transport.request_slot({"path": "/a", "query_string": b"x" * 10_000}) \
        != transport.request_slot({"path": "/a", "query_string": b""})
    assert len(transport.request_slot({"path": "/a", "query_string": b"x" * 10_000})) == 32


def test_info_publishes_the_cache_bounds(api: Api) -> None:
    caches = api.client.get("/info.json").json()["service"]["caches"]
    assert caches == {
        "gzip": {"max_entries": transport.CACHE_ENTRIES, "max_bytes": transport.CACHE_BYTES},
        "frontier": {"max_entries": frontier_cache.MAX_ENTRIES,
                     "max_bytes": frontier_cache.MAX_BYTES},
        "sqlite": {"max_entries": 8, "max_bytes": 8 * 512 * 1024}}


def test_each_sqlite_connection_keeps_a_bounded_page_cache(api: Api) -> None:
    """Issue 39: a pooled SQLite connection's page cache is capped at SQLITE_CACHE_KIB
    (SQLite's default of about 2 MiB each let memory follow the database's growth)."""
    from sqlalchemy import text

    from network.api import db

    with api.svc.engine.connect() as conn:
        size = conn.execute(text("PRAGMA cache_size")).scalar_one()
    assert size == -db.SQLITE_CACHE_KIB == -512


def _buckets(api: Api) -> list[tuple[str, int]]:
    from sqlalchemy import select

    from network.api import db

    with api.svc.sessions() as s:
        return [(r.key, r.window_start) for r in s.execute(select(db.RateBucketRow)).scalars()]


def test_rate_buckets_of_past_windows_do_not_pile_up(api: Api) -> None:
    """Each bad token counts in a bucket of its own hashed prefix (issue 39 part 3). Those
    keys are seen once, so without a sweep their rows of past windows stayed in the
    database for ever: a stream of distinct bad tokens grew the table (and the database's
    page cache) with every request. The first hit of a new window deletes every bucket of
    the windows before it, whatever its key."""
    window = api.svc.settings.rate_window_s
    for i in range(12):
        r = api.client.post("/claims", json={"target": "demo", "node": "n1"},
                            headers=auth(f"lmt_{i:08d}badxyz"))
        assert r.status_code == 401, r.text
    first = _buckets(api)
    assert len({k for k, _ in first if k.startswith("token-prefix:")}) == 12, first
    api.clock.advance(window)  # a new window: every bucket above is history
    r = api.client.post("/claims", json={"target": "demo", "node": "n1"},
                        headers=auth("lmt_99999999badxyz"))
    assert r.status_code == 401, r.text
    now = _buckets(api)
    assert {w for _, w in now} == {max(w for _, w in first) + window}, now
    assert len(now) <= 3, now  # this window's address and token-prefix buckets only


def test_the_allocator_cap_is_set_and_refuses_nonsense() -> None:
    """The service caps glibc's malloc arenas (issue 39: many request threads, each with
    an arena, made RSS creep up with no object held); 0 leaves the default alone."""
    import platform

    from network.api import allocator
    from network.api.settings import ServiceSettings

    assert ServiceSettings.model_fields["malloc_arena_max"].default == 2
    assert allocator.cap_arenas(0) is False
    with pytest.raises(ValueError):
        allocator.cap_arenas(-1)
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert allocator.cap_arenas(2) is True


def test_the_service_hands_free_memory_back_on_schedule(tmp_path, monkeypatch) -> None:
    """Issue 39: freed chunks stay resident inside glibc's arenas until malloc_trim hands
    them back; the service's lifespan trims every ``malloc_trim_s`` seconds, and 0 never
    does. Removing the lifespan's task fails the first half."""
    import time

    from fastapi.testclient import TestClient

    from network.api import allocator
    from network.api.app import create_app
    from network.api.settings import ServiceSettings
    from tests.api_support import build_graph

    calls: list[float] = []
    monkeypatch.setattr(allocator, "trim", lambda: calls.append(time.monotonic()) or True)
    graph = tmp_path / "graph"
    build_graph(graph)
    for every, want_calls in ((0.05, True), (0.0, False)):
        calls.clear()
        settings = ServiceSettings(data_dir=tmp_path / f"data-{every}", graph=graph,
                                   malloc_trim_s=every)
        with TestClient(create_app(settings)) as client:
            assert client.get("/info.json").status_code == 200
            time.sleep(0.4)
        assert bool(calls) is want_calls, (every, calls)
    assert ServiceSettings.model_fields["malloc_trim_s"].default == 60.0
