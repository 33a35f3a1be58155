"""Products that travel light (issue 17): gzip, strong ETags and 304 on the product routes
(network/api/transport.py), and the frontier's pages and field selection
(network/api/frontier/frontier_page.py)."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.api import transport
from network.api.frontier import frontier_page
from network.errors import CATALOG
from tests.api_support import Api, auth, make_api

GZ = {"Accept-Encoding": "gzip"}
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a graph with 30 extra nodes (a frontier of some kilobytes)."""
    yield from make_api(tmp_path, extra_nodes=30)


def _raw(api: Api, path: str, headers: dict[str, str]) -> Any:
    """GET ``path`` without httpx decoding the body: (response, raw bytes)."""
    with api.client.stream("GET", path, headers=headers) as r:
        raw = b"".join(r.iter_raw())
    return r, raw


# --- gzip ----------------------------------------------------------------------------------


def test_gzip_only_when_asked_and_the_bytes_are_the_same(api: Api) -> None:
    plain, body = _raw(api, "/frontier.json", PLAIN)
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]
    zipped, raw = _raw(api, "/frontier.json", GZ)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert int(zipped.headers["Content-Length"]) == len(raw) < len(body)
    assert gzip.decompress(raw) == body
    assert "Accept-Encoding" in zipped.headers["Vary"]
    # a different representation: a different strong ETag
    assert zipped.headers["ETag"] == plain.headers["ETag"][:-1] + '-gz"'
    for refused in ("gzip;q=0", "gzip;q=0, *", "br", "identity, gzip;q=0.0"):
        r, _ = _raw(api, "/frontier.json", {"Accept-Encoding": refused})
        assert "content-encoding" not in r.headers, refused
    r, _ = _raw(api, "/frontier.json", {"Accept-Encoding": "br;q=1, *;q=0.5"})
    assert r.headers["Content-Encoding"] == "gzip"


def test_every_product_route_is_compressed_and_keeps_security_headers(api: Api) -> None:
    for path in ("/", "/errors.json", "/frontier.json", "/targets/demo",
                 "/targets/demo/nodes/proved", "/openapi.json"):
        r, raw = _raw(api, path, GZ)
        assert r.status_code == 200, path
        assert r.headers.get("Content-Encoding") == "gzip", path
        json.loads(gzip.decompress(raw))
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        assert "default-src 'none'" in r.headers["Content-Security-Policy"], path


def test_secret_bearing_routes_are_never_compressed(api: Api) -> None:
    """BREACH: token, session and claim answers hold secrets beside chosen input."""
    assert not transport.is_product_path("/tokens")
    for path in ("/session", "/claims/mine", "/me", "/submissions/mine", "/auth/github/start",
                 "/tokens/renew", "/mcp", "/targets/demo/nodes/x/y", "/frontier.jsonx"):
        assert not transport.is_product_path(path), path
    r = api.client.post("/tokens", headers=GZ, json={
        "pseudonym": "alice" * 1, "dco": "1.1",
        "proof": {"kind": "github", "token": "gh-alice" + "a" * 2000}})
    assert r.status_code == 201 and "content-encoding" not in r.headers
    tok = r.json()["token"]
    r = api.client.get("/claims/mine", headers={**GZ, **auth(tok)})
    assert "content-encoding" not in r.headers
    r = api.client.get("/session", headers=GZ)
    assert "content-encoding" not in r.headers
    # a product answer that sets a cookie or says no-store is left alone
    assert transport.accepts_gzip("gzip")


def test_small_cookie_no_store_and_encoded_answers_are_left_alone() -> None:
    """The middleware alone, over a bare Starlette app on a product path."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.testclient import TestClient

    big = b"x" * 5000
    answers = {
        "small": Response(b"tiny", media_type="application/json"),
        "cookie": Response(big, headers={"Set-Cookie": "s=secret"}),
        "nostore": Response(big, headers={"Cache-Control": "no-store"}),
        "encoded": Response(big, headers={"Content-Encoding": "br"}),
        "plain": Response(big, media_type="application/json"),
    }

    def handler(request: Any) -> Response:
        return answers[request.query_params["k"]]

    app = Starlette(routes=[Route("/info.json", handler, methods=["GET", "POST"])])
    transport.install(app)
    c = TestClient(app)
    for k in ("small", "cookie", "nostore", "encoded"):
        r = c.get(f"/info.json?k={k}", headers=GZ)
        assert r.headers.get("content-encoding") in (None, "br"), k
        assert r.headers["ETag"] == transport.body_etag(r.content if k != "encoded" else big)
    r = c.get("/info.json?k=plain", headers=GZ)
    assert r.headers["content-encoding"] == "gzip" and r.content == big
    assert r.headers["Cache-Control"] == "no-cache"  # none set: revalidate every time
    assert "content-encoding" not in c.post("/info.json?k=plain", headers=GZ).headers


def test_compression_happens_once_per_version(api: Api) -> None:
    cache = api.app.state.gzip_cache
    _raw(api, "/targets/demo", GZ)
    n = cache.compressions
    for _ in range(3):
        _raw(api, "/targets/demo", GZ)
    assert cache.compressions == n


# --- ETag and 304 ------------------------------------------------------------------------


def test_etag_is_stable_and_changes_with_the_product(api: Api) -> None:
    a = api.client.get("/frontier.json", headers=PLAIN)
    b = api.client.get("/frontier.json", headers=PLAIN)
    assert a.headers["ETag"] == b.headers["ETag"] and a.headers["ETag"].startswith('"')
    tok = api.token()["token"]
    assert api.client.post("/claims", json={"target": "demo", "node": "n1"},
                           headers=auth(tok)).status_code == 201
    c = api.client.get("/frontier.json", headers=PLAIN)
    assert c.headers["ETag"] != a.headers["ETag"]
    t1 = api.client.get("/targets/demo", headers=PLAIN).headers["ETag"]
    api.graph.node("demo", "late")
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph
    from tests.graphs import git_commit

    write_products(load_graph(api.graph.root), api.graph.root)
    git_commit(api.graph.root, "a new node")
    assert api.client.get("/targets/demo", headers=PLAIN).headers["ETag"] != t1


@pytest.mark.parametrize("headers", [PLAIN, GZ])
def test_if_none_match_is_304_with_no_body(api: Api, headers: dict[str, str]) -> None:
    for path in ("/frontier.json", "/targets/demo", "/errors.json",
                 "/frontier.json?limit=5&fields=status"):
        first = api.client.get(path, headers=headers)
        tag = first.headers["ETag"]
        for inm in (tag, f'"nope", {tag}', f"W/{tag}", "*"):
            r, raw = _raw(api, path, {**headers, "If-None-Match": inm})
            assert r.status_code == 304, (path, inm)
            assert raw == b"" and r.headers["ETag"] == tag, (path, inm)
            assert "Accept-Encoding" in r.headers["Vary"]
            assert r.headers["X-Frame-Options"] == "DENY"  # security headers on a 304
        r = api.client.get(path, headers={**headers, "If-None-Match": '"other"'})
        assert r.status_code == 200 and r.content == first.content


def test_a_gzip_tag_revalidates_a_plain_client_with_the_plain_tag(api: Api) -> None:
    gz_tag = api.client.get("/targets/demo", headers=GZ).headers["ETag"]
    assert gz_tag.endswith('-gz"')
    r = api.client.get("/targets/demo", headers={**PLAIN, "If-None-Match": gz_tag})
    assert r.status_code == 304 and not r.headers["ETag"].endswith('-gz"')


def test_unit_helpers() -> None:
    assert transport.parse_if_none_match('W/"a-gz", "b" , junk') == ['"a"', '"b"']
    assert transport.parse_if_none_match(" * ") is None
    assert transport.base_tag('"x-gz"') == '"x"' and transport.gz_tag('"x"') == '"x-gz"'
    assert transport.accepts_gzip("deflate, gzip;q=0.5")
    assert not transport.accepts_gzip("")
    assert not transport.accepts_gzip("gzip;q=bogus")
    c = transport.GzipCache(max_bytes=10)
    c.put("a", b"12345678")
    c.put("b", b"123456")
    assert c.get("a") is None and c.get("b") == b"123456"
    c.put("big", b"x" * 11)
    assert c.get("big") is None


# --- frontier pages ----------------------------------------------------------------------


def _keys(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["target"], e["node"]) for e in entries]


def _walk(api: Api, query: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        q = f"{query}&limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        r = api.client.get(f"/frontier.json?{q}")
        assert r.status_code == 200, r.text
        body = r.json()
        rows += body["nodes"]
        pages += 1
        cursor = body["page"]["next_cursor"]
        assert body["page"]["total"] >= len(rows)
        if cursor is None:
            return rows, pages


def test_pages_cover_every_entry_once_in_order(api: Api) -> None:
    for query in ("", "where=attempts<3", "target=demo", "fields=status,attempts",
                  "where=node!=n7&fields=status", "where=attempts>99"):
        for limit in (1, 7, 1000):
            _covers(api, query, limit)


def _covers(api: Api, query: str, limit: int) -> None:
    base = query.replace("fields=status,attempts", "").replace("&fields=status", "")
    whole = api.client.get(f"/frontier.json?{base}").json()["nodes"]
    assert len(whole) > 10 or ">99" in query
    rows, pages = _walk(api, query, limit)
    assert _keys(rows) == _keys(whole)
    assert pages == max(1, -(-len(whole) // limit))
    if "fields=" in query:
        want = {"target", "node", "status"} | ({"attempts"} if "attempts" in query else set())
        assert all(set(r) <= want and {"target", "node"} <= set(r) for r in rows)
        assert any(set(r) == want for r in rows)
    else:
        assert rows == whole


def test_mcp_operation_pages_the_same_way(api: Api) -> None:
    from network.api import reads

    first = reads.frontier(api.svc, None, ["attempts<3"], limit=4)
    route = api.client.get("/frontier.json?where=attempts<3&limit=4").json()
    assert _keys(first["nodes"]) == _keys(route["nodes"])
    assert first["page"]["next_cursor"] == route["page"]["next_cursor"]
    second = reads.frontier(api.svc, None, ["attempts<3"], limit=4,
                            cursor=route["page"]["next_cursor"])
    assert second["page"]["offset"] == 4


def _cursor(d: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")


def test_hostile_limits_and_cursors_are_coded_4xx(api: Api) -> None:
    good = api.client.get("/frontier.json?limit=3").json()["page"]["next_cursor"]
    other = api.client.get("/frontier.json?limit=3&where=attempts<3").json()["page"][
        "next_cursor"]
    fields_cursor = api.client.get("/frontier.json?limit=3&fields=status").json()["page"][
        "next_cursor"]
    raw = json.loads(base64.urlsafe_b64decode(good + "=" * (-len(good) % 4)))
    cases = {
        "limit=-1": "frontier-page-invalid", "limit=0": "frontier-page-invalid",
        "limit=1001": "frontier-page-invalid", "limit=99999999999999999999":
            "frontier-page-invalid", "limit=abc": "frontier-page-invalid",
        "limit=1e3": "frontier-page-invalid", "limit=": "frontier-page-invalid",
        "fields=nope": "frontier-page-invalid",
        "cursor=": "frontier-cursor-invalid", "cursor=%00%ff": "frontier-cursor-invalid",
        "cursor=!!!": "frontier-cursor-invalid", "cursor=" + "A" * 5000:
            "frontier-cursor-invalid", "cursor=AAAA": "frontier-cursor-invalid",
        "cursor=" + _cursor([1, 2]): "frontier-cursor-invalid",
        "cursor=" + _cursor({**raw, "o": -5}): "frontier-cursor-invalid",
        "cursor=" + _cursor({**raw, "o": True}): "frontier-cursor-invalid",
        "cursor=" + _cursor({**raw, "o": "3"}): "frontier-cursor-invalid",
        "cursor=" + _cursor({**raw, "v": 2}): "frontier-cursor-invalid",
        "cursor=" + _cursor({**raw, "extra": 1}): "frontier-cursor-invalid",
        "cursor=" + _cursor("[" * 10000): "frontier-cursor-invalid",
        f"cursor={other}": "frontier-cursor-invalid",  # another filter's cursor
        f"cursor={fields_cursor}": "frontier-cursor-invalid",  # another selection's
        "cursor=" + _cursor({**raw, "k": "0" * 16}): "frontier-cursor-stale",
        "cursor=" + _cursor({**raw, "o": 10**30, "k": "0" * 16}): "frontier-cursor-stale",
    }
    for q, code in cases.items():
        r = api.client.get(f"/frontier.json?{q}")
        assert 400 <= r.status_code < 500, (q, r.status_code, r.text[:200])
        assert r.json()["code"] == code, (q, r.json())
        assert r.status_code == CATALOG[code].http_status
    # an offset moved but the entry named still found: resumes after that entry
    moved = _cursor({**raw, "o": 10**30})
    r = api.client.get(f"/frontier.json?limit=3&cursor={moved}")
    assert r.status_code == 200 and r.json()["page"]["offset"] == 3


def test_paging_params_are_not_filters_and_the_product_stays_complete(api: Api) -> None:
    whole = api.client.get("/frontier.json").json()
    assert "page" not in whole
    paged = api.client.get("/frontier.json?limit=2").json()
    assert len(paged["nodes"]) == 2 and paged["page"]["total"] == len(whole["nodes"])
    committed = json.loads((api.graph.root / "frontier.json").read_text())
    entries = committed["nodes"]
    assert len(entries) == len(whole["nodes"])


def test_page_unit_resumes_after_its_entry_when_the_list_moves() -> None:
    body = {"nodes": [{"target": "t", "node": f"n{i}"} for i in range(6)]}
    p1 = frontier_page.page(body, limit=2)
    moved = {"nodes": [{"target": "t", "node": "new"}] + body["nodes"]}
    p2 = frontier_page.page(moved, limit=2, cursor=p1["page"]["next_cursor"])
    assert _keys(p2["nodes"]) == [("t", "n2"), ("t", "n3")]


# --- the node bundle's attempts ----------------------------------------------------------


def test_bundle_attempts_page_and_hoist(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from network.api import bundle_page
    from tests.agent_bytes_support import TARGET, WORKED, build_fixture

    with TestClient(build_fixture(tmp_path)) as client:
        url = f"/targets/{TARGET}/nodes/{WORKED}"
        whole = client.get(url).json()
        common = whole.get("attempts_common", {})
        full = [{**common, **a} for a in whole["attempts"]]
        assert len(full) >= 3 and "attempts_page" not in whole
        for k in common:  # hoisted fields are left out of every row
            assert all(k not in a for a in whole["attempts"])
        # one row per page, cursor to cursor: every attempt once, in order
        got, cursor = [], None
        while True:
            q = "?attempts_limit=1" + (f"&attempts_cursor={cursor}" if cursor else "")
            body = client.get(url + q).json()
            assert "attempts_common" not in body and len(body["attempts"]) == 1
            got += body["attempts"]
            cursor = body["attempts_page"]["next_cursor"]
            assert body["attempts_page"]["total"] == len(full)
            if cursor is None:
                break
        assert got == full
        other = client.get(f"/targets/{TARGET}/nodes/root?attempts_limit=1").json()
        for q, code in (("attempts_limit=0", "bundle-page-invalid"),
                        ("attempts_limit=-3", "bundle-page-invalid"),
                        ("attempts_limit=" + "9" * 19, "bundle-page-invalid"),
                        ("attempts_limit=x", "bundle-page-invalid"),
                        ("attempts_cursor=garbage!", "bundle-cursor-invalid"),
                        ("attempts_cursor=" + _cursor({"v": 1, "n": "x", "o": 1}),
                         "bundle-cursor-invalid"),
                        ("attempts_cursor=" + _cursor("[" * 100), "bundle-cursor-invalid")):
            r = client.get(f"{url}?{q}")
            assert r.status_code == 422 and r.json()["code"] == code, (q, r.text[:200])
        if other.get("attempts_page", {}).get("next_cursor"):  # another node's cursor
            r = client.get(f"{url}?attempts_cursor={other['attempts_page']['next_cursor']}")
            assert r.json()["code"] == "bundle-cursor-invalid"
        own = bundle_page.make_cursor(TARGET, WORKED, 1)
        assert client.get(f"{url}?attempts_cursor={own}").json()["attempts_page"][
            "offset"] == 1


def test_hoist_unit() -> None:
    from network.api import bundle_page

    rows = [{"who": "a", "kind": "pm", "ts": "1"}, {"who": "a", "kind": "partial", "ts": "2"}]
    kept, common = bundle_page.hoist(rows)
    assert common == {"who": "a"} and kept == [{"kind": "pm", "ts": "1"},
                                               {"kind": "partial", "ts": "2"}]
    # a field absent from one row is never hoisted; one row hoists nothing
    kept, common = bundle_page.hoist([{"a": 1, "b": 2}, {"a": 1}])
    assert common == {"a": 1} and kept == [{"b": 2}, {}]
    assert bundle_page.hoist([{"a": 1}]) == ([{"a": 1}], {})
    assert bundle_page.hoist([{"a": {"x": 1}}, {"a": {"x": 2}}])[1] == {}
