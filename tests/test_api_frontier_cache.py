"""GET /frontier.json's cache (network/api/frontier/frontier_cache.py): the served bytes and ETag
equal the uncached ``reads.frontier`` answer serialized, across a claim, a renewal, a
release, an expiry and claim writes by another process; a claim past its expiry leaves
the overlay at once (D-25, ruling 13). Timing is measured by benchmarks/api_load.py,
never asserted here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from network.api import db, reads
from network.api.app import create_app
from network.api.frontier import claims, frontier_body, frontier_cache
from network.api.graphs import committed_product
from network.api.service import Caller
from network.api.settings import ServiceSettings
from tests.api_support import Api, auth, github_verifier, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph (three extra nodes) and a fresh SQLite database."""
    yield from make_api(tmp_path, extra_nodes=3)


def _uncached(api: Api, filters: dict[str, str] | None = None) -> bytes:
    return frontier_cache.serialize(reads.frontier(api.svc, filters))


def _served(api: Api, query: str = "") -> tuple[bytes, str]:
    # the identity representation: a gzip one's ETag ends -gz (network/api/transport.py)
    r = api.client.get("/frontier.json" + query, headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200, r.text
    return r.content, r.headers["etag"]


def _same(api: Api, query: str = "", filters: dict[str, str] | None = None) -> dict[str, Any]:
    """Served (twice: the second from the cache) == uncached == served after the cache is
    dropped; the ETag is the one every read answers. Returns the parsed body."""
    first, etag = _served(api, query)
    again, etag2 = _served(api, query)
    want = _uncached(api, filters)
    assert first == again == want
    assert etag == etag2 == frontier_cache.etag_of(api.svc.graphs.snapshot().etag, want)
    api.svc.extra.pop("frontier_cache", None)
    api.svc.extra.pop("frontier_product", None)
    assert _served(api, query) == (want, etag)
    import json

    body: dict[str, Any] = json.loads(want)
    return body


def _status(body: dict[str, Any], node: str) -> tuple[str, list[dict[str, Any]]]:
    entry = next(e for e in body["nodes"] if e["target"] == "demo" and e["node"] == node)
    return entry["claim_status"], entry["live_claims"]


def test_cached_bytes_match_across_claim_renew_release_and_expiry(api: Api) -> None:
    tok = api.token("alice")["token"]
    assert _status(_same(api), "n1") == ("unclaimed", [])

    r = api.client.post("/claims", json={"target": "demo", "node": "n1", "ttl_s": 3600},
                        headers=auth(tok))
    assert r.status_code == 201
    claim_id, expires = r.json()["claim_id"], r.json()["expires_at"]
    status, live = _status(_same(api), "n1")
    assert status == "claimed" and live == [{"pseudonym": "alice", "expires_at": expires,
                                             "claimed_at": r.json()["claimed_at"]}]
    filtered = _same(api, "?claim_status=claimed", {"claim_status": "claimed"})
    assert [e["node"] for e in filtered["nodes"]] == ["n1"]

    api.clock.advance(100)
    renewed = api.client.post(f"/claims/{claim_id}/renew", json={"ttl_s": 3600},
                              headers=auth(tok)).json()
    assert _status(_same(api), "n1")[1][0]["expires_at"] == renewed["expires_at"] != expires
    # a second holder (advisory claims, ruling 14), then alice extending hers by claiming
    # the node again: each changes the served bytes exactly as the uncached body
    bob = api.token("bob")["token"]
    assert api.client.post("/claims", json={"target": "demo", "node": "n1"},
                           headers=auth(bob)).status_code == 201
    assert [h["pseudonym"] for h in _status(_same(api), "n1")[1]] == ["alice", "bob"]
    again = api.client.post("/claims", json={"target": "demo", "node": "n1", "ttl_s": 7200},
                            headers=auth(tok)).json()
    assert again["claim_id"] == claim_id and again["expires_at"] != renewed["expires_at"]
    assert _status(_same(api), "n1")[1][0]["expires_at"] == again["expires_at"]
    bob_id = api.client.get("/claims/mine", headers=auth(bob)).json()["claims"][0]["claim_id"]
    assert api.client.delete(f"/claims/{bob_id}", headers=auth(bob)).status_code == 200

    assert api.client.delete(f"/claims/{claim_id}", headers=auth(tok)).status_code == 200
    assert _status(_same(api), "n1") == ("unclaimed", [])

    # an expiry: live one second before expires_at, gone at expires_at, no write between
    r = api.client.post("/claims", json={"target": "demo", "node": "n2", "ttl_s": 3600},
                        headers=auth(tok))
    assert _status(_same(api), "n2")[0] == "claimed"
    api.clock.advance(3599)
    assert _status(_same(api), "n2")[0] == "claimed"
    api.clock.advance(1)
    assert _status(_same(api), "n2") == ("unclaimed", [])
    api.clock.advance(3600)
    assert _status(_same(api), "n2") == ("unclaimed", [])


def test_two_claims_expire_one_after_the_other(api: Api) -> None:
    a, b = api.token("alice")["token"], api.token("bob")["token"]
    api.client.post("/claims", json={"target": "demo", "node": "n1", "ttl_s": 3600},
                    headers=auth(a))
    api.client.post("/claims", json={"target": "demo", "node": "n2", "ttl_s": 7200},
                    headers=auth(b))
    body = _same(api)
    assert (_status(body, "n1")[0], _status(body, "n2")[0]) == ("claimed", "claimed")
    api.clock.advance(3600)
    body = _same(api)
    assert (_status(body, "n1")[0], _status(body, "n2")[0]) == ("unclaimed", "claimed")
    api.clock.advance(3600)
    body = _same(api)
    assert (_status(body, "n1")[0], _status(body, "n2")[0]) == ("unclaimed", "unclaimed")


def test_claim_writes_by_another_process_are_seen(api: Api, tmp_path: Path) -> None:
    """A second service over the same database (another worker, ``lemmata mcp``) claims,
    and a submission-style extension moves expires_at without a renewal: both show."""
    tok = api.token("alice")["token"]
    _same(api)
    other = create_app(ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "graph"),
                       github_verifier=github_verifier, clock=api.clock)
    try:
        receipt = claims.claim_node(other.state.svc, Caller(token=tok, address="worker-2"),
                                    target="demo", node="n3", ttl_s=3600)
        api.client.post("/claims", json={"target": "demo", "node": "n1", "ttl_s": 3600},
                        headers=auth(tok))  # expires with n3: the earliest expiry stays put
        assert _status(_same(api), "n3")[1][0]["expires_at"] == receipt["expires_at"]
        with db.transaction(other.state.svc.sessions) as s:
            s.execute(text("UPDATE claims SET expires_at = expires_at + 600 "
                           "WHERE public_id = :id"), {"id": receipt["claim_id"]})
        assert _status(_same(api), "n3")[1][0]["expires_at"] != receipt["expires_at"]
        api.clock.advance(3600)  # past the first expiry, before the extended one
        assert _status(_same(api), "n3")[0] == "claimed"
        assert _status(_same(api), "n1")[0] == "unclaimed"
        api.clock.advance(600)
        assert _status(_same(api), "n3")[0] == "unclaimed"
    finally:
        other.state.svc.engine.dispose()


def test_if_none_match_gets_304_and_a_claim_changes_the_etag(api: Api) -> None:
    body, etag = _served(api)
    r = api.client.get("/frontier.json", headers={"If-None-Match": etag})
    assert r.status_code == 304 and r.headers["etag"] == etag and not r.content
    tok = api.token("alice")["token"]
    api.client.post("/claims", json={"target": "demo", "node": "n1"}, headers=auth(tok))
    r = api.client.get("/frontier.json", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["etag"] != etag and r.content != body


def test_the_cached_product_is_never_mutated(api: Api) -> None:
    tok = api.token("alice")["token"]
    api.client.post("/claims", json={"target": "demo", "node": "n1"}, headers=auth(tok))
    _same(api)
    product = frontier_body.frontier_product(api.svc)
    assert product == committed_product(api.svc.graphs.snapshot().graph, "frontier.json")
