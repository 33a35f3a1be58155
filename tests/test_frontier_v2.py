"""frontier/v2 (issue 18): the schema requires every D-25 field and its amendments'; the
claim history is the claims table's, overlaid at GET /frontier.json like live claims;
list_frontier and the plain route take the same predicate query form."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator

from network.api import reads
from network.api.frontier import claim_history, frontier_body, frontier_cache, frontier_query
from network.errors import LemmataError
from network.record import schemas
from tests.agent_bytes_support import with_mcp
from tests.api_support import Api, auth, make_api

ROOT = Path(__file__).resolve().parents[1]
V2 = Draft202012Validator(schemas.load("frontier/v2"))


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path)


def _call(api: Api, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def body(client: Any, _bodies: list[bytes]) -> list[Any]:
        return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(with_mcp, api.app, body)  # type: ignore[no-any-return]


def _nodes(result: Any) -> list[dict[str, Any]]:
    return json.loads(result.content[0].text)["nodes"]  # type: ignore[no-any-return]


# --- the schema ---------------------------------------------------------------------------


def test_the_committed_frontier_is_v2_and_valid() -> None:
    body = json.loads((ROOT / "graph" / "frontier.json").read_text(encoding="utf-8"))
    assert body["schema"] == "frontier/v2"
    assert body["nodes"]
    assert not list(V2.iter_errors(body))
    # v1 stays published and unedited beside it (D-34)
    assert (ROOT / "schemas" / "frontier" / "v1.json").is_file()


def test_every_d25_field_is_required() -> None:
    """Drop any D-25 field (or an amendment's) from an entry and v2 refuses it; an
    unknown field is refused too (v1 took both)."""
    body = json.loads((ROOT / "graph" / "frontier.json").read_text(encoding="utf-8"))
    entry = body["nodes"][0]
    required = schemas.load("frontier/v2")["$defs"]["entry"]["required"]
    for name in ("relation", "deps", "library_tags", "origin", "attempts",
                 "refuted_route_classes", "failure_classes", "ready_since", "claim_status",
                 "claim_history", "annex", "bounty", "literature", "label", "shelved"):
        assert name in required, name
    for name in required:
        broken = {**body, "nodes": [{k: v for k, v in entry.items() if k != name}]}
        assert list(V2.iter_errors(broken)), name
    v1 = Draft202012Validator(schemas.load("frontier/v1"))
    thin = {"schema": "frontier/v1", "graph_id": "main", "as_of": None,
            "nodes": [{"target": "t", "node": "root"}]}
    assert not list(v1.iter_errors(thin))  # what v1 let through
    extra = {**body, "nodes": [{**entry, "difficulty": 3}]}
    assert list(V2.iter_errors(extra))
    bad_origin = {**body, "nodes": [{**entry, "origin": "oracle"}]}
    assert list(V2.iter_errors(bad_origin))


def test_the_served_frontier_is_valid_v2_with_the_overlay(api: Api) -> None:
    tok = api.token("alice")["token"]
    assert api.client.post("/claims", json={"target": "demo", "node": "root"},
                           headers=auth(tok)).status_code == 201
    body = api.client.get("/frontier.json").json()
    assert not list(V2.iter_errors(body)), list(V2.iter_errors(body))[:1]


# --- claim history ---------------------------------------------------------------------


def test_claim_history_is_overlaid_like_live_claims(api: Api) -> None:
    a, b = api.token("alice")["token"], api.token("bob")["token"]
    r = api.client.post("/claims", json={"target": "demo", "node": "root", "ttl_s": 3600},
                        headers=auth(a))
    assert r.status_code == 201, r.text
    claim = r.json()["claim_id"]
    assert api.client.delete(f"/claims/{claim}", headers=auth(a)).status_code == 200
    assert api.client.post("/claims", json={"target": "demo", "node": "root"},
                           headers=auth(b)).status_code == 201

    def root(body: dict[str, Any]) -> dict[str, Any]:
        return next(e for e in body["nodes"] if (e["target"], e["node"]) == ("demo", "root"))

    entry = root(api.client.get("/frontier.json").json())
    assert [(h["pseudonym"], h["ended"]) for h in entry["claim_history"]] == [
        ("alice", "released"), ("bob", "live")]
    assert entry["claim_history_total"] == 2
    assert entry["claim_history"][0]["ended_at"] is not None
    assert entry["claim_history"][1]["ended_at"] is None
    assert "claim_id" not in json.dumps(entry["claim_history"])  # the holder's alone
    assert [h["pseudonym"] for h in entry["live_claims"]] == ["bob"]
    # the committed product keeps no history: it is service state (D-35)
    committed = root(frontier_body.frontier_product(api.svc))
    assert committed["claim_history"] == []
    # the claim expires: the cached body turns its history item to expired at once
    api.clock.advance(10 ** 6)
    entry = root(api.client.get("/frontier.json").json())
    assert [h["ended"] for h in entry["claim_history"]] == ["released", "expired"]
    assert entry["live_claims"] == []
    # MCP and the cached route answer the same body as the reference read
    (tool,) = _call(api, [("list_frontier", {})])
    assert root({"nodes": _nodes(tool)})["claim_history"] == entry["claim_history"]
    ref = frontier_cache.serialize(reads.frontier(api.svc))
    assert frontier_cache.render(api.svc).body == ref


def test_history_is_capped_newest_kept(api: Api) -> None:
    items = [{"pseudonym": f"p{i}", "claimed_at": None, "expires_at": None, "ended_at": None,
              "ended": "expired"} for i in range(claim_history.HISTORY_CAP + 5)]
    out = claim_history.overlay_entry({"node": "x"}, items)
    assert len(out["claim_history"]) == claim_history.HISTORY_CAP
    assert out["claim_history"][-1]["pseudonym"] == items[-1]["pseudonym"]
    assert out["claim_history_total"] == len(items)


# --- the query form -------------------------------------------------------------------


E1 = {"target": "t", "node": "a", "attempts": 0, "origin": "skeleton-hole",
      "failure_classes": {}, "library_tags": ["nat"], "claimable": True, "relation": None,
      "ready_since": "2026-09-01T00:00:00Z", "literature": None}
E2 = {"target": "t", "node": "b", "attempts": 4, "origin": "authored",
      "failure_classes": {"missing-library": 2, "timeout": 1}, "library_tags": [],
      "claimable": False, "relation": "related", "ready_since": "2026-10-05T00:00:00Z",
      "literature": {"status": "open"}}


def _keep(*texts: str) -> list[str]:
    preds = frontier_query.predicates(None, texts)
    return [e["node"] for e in (E1, E2) if frontier_query.keep(e, preds)]


@pytest.mark.parametrize(("texts", "want"), [
    (("failure_classes.missing-library=0",), ["a"]),  # D-25's own example
    (("failure_classes.missing-library>0",), ["b"]),
    (("failure_classes.timeout>=1",), ["b"]),
    (("attempts<1",), ["a"]),
    (("attempts<=4", "attempts>0"), ["b"]),
    (("origin!=authored",), ["a"]),
    (("origin=skeleton-hole", "attempts=0"), ["a"]),  # "unattempted skeleton holes"
    (("library_tags=nat",), ["a"]),
    (("library_tags!=nat",), ["b"]),
    (("claimable=false",), ["b"]),
    (("relation=null",), ["a"]),
    (("relation!=null",), ["b"]),
    (("ready_since<2026-10-01",), ["a"]),
    (("literature.status=open",), ["b"]),
    (("attempts!=0",), ["b"]),
])
def test_predicates(texts: tuple[str, ...], want: list[str]) -> None:
    assert _keep(*texts) == want


@pytest.mark.parametrize(("text", "code"), [
    ("attempts", "frontier-filter-malformed"),
    ("=3", "frontier-filter-malformed"),
    ("attempts<many", "frontier-filter-malformed"),
    ("attempts<nan", "frontier-filter-malformed"),
    ("library_tags<3", "frontier-filter-malformed"),
    ("failure_classes=0", "frontier-filter-malformed"),
    ("claimable=maybe", "frontier-filter-malformed"),
    ("Attempts=0", "frontier-filter-malformed"),
    ("difficulty<3", "frontier-filter-unknown-field"),
    ("score>0", "frontier-filter-unknown-field"),
])
def test_bad_predicates_are_refused(text: str, code: str) -> None:
    with pytest.raises(LemmataError) as exc:
        preds = frontier_query.predicates(None, [text])
        for e in (E1, E2):
            frontier_query.keep(e, preds)
    assert exc.value.code == code


def test_a_query_is_bounded() -> None:
    many = ["attempts>=0"] * (frontier_query.MAX_PREDICATES + 1)
    for where in (many, ["origin=" + "x" * frontier_query.MAX_TEXT]):
        with pytest.raises(LemmataError) as exc:
            frontier_query.predicates(None, where)
        assert exc.value.code == "frontier-filter-malformed"
    assert len(frontier_query.predicates(None, many[1:])) == frontier_query.MAX_PREDICATES


def test_the_route_and_the_tool_take_the_same_query(api: Api) -> None:
    every = api.client.get("/frontier.json").json()["nodes"]
    assert len(every) >= 2
    http = api.client.get("/frontier.json", params=[
        ("where", "failure_classes.missing-library=0"), ("where", "claimable!=false"),
        ("target", "demo")]).json()["nodes"]
    (tool,) = _call(api, [("list_frontier", {
        "where": ["failure_classes.missing-library=0", "claimable!=false"],
        "filters": {"target": "demo"}})])
    assert http and [e["node"] for e in _nodes(tool)] == [e["node"] for e in http]
    assert all(e["target"] == "demo" and e["claimable"] for e in http)
    none = api.client.get("/frontier.json?where=attempts%3E0").json()["nodes"]
    assert none == []  # no attempts on the fixture: the predicate can exclude
    held = api.client.get("/frontier.json?where=claim_holders=0").json()["nodes"]
    assert len(held) == len(every)  # overlaid fields are askable too
    r = api.client.get("/frontier.json?where=difficulty%3C3")
    assert r.status_code == 422 and r.json()["code"] == "frontier-filter-unknown-field"
    r = api.client.get("/frontier.json?v=1")
    assert r.status_code == 422 and r.json()["code"] == "frontier-filter-unknown-field"
    (bad,) = _call(api, [("list_frontier", {"where": ["attempts<<"]})])
    assert bad.is_error and "frontier-filter-malformed" in bad.content[0].text
