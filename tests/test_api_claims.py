"""The live claim registry: TTL caps, release, renewal, expiry and concurrency (D-25)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from network.api import claims, db
from network.api.service import Caller
from network.errors import LemmataError
from tests.api_support import PG_URL, Api, auth, make_api, pg_schema


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph and a fresh SQLite database."""
    yield from make_api(tmp_path)


CLAIM = {"target": "demo", "node": "root"}


def test_undeclared_ttl_gets_the_minimum(api: Api) -> None:
    tok = api.token("alice")["token"]
    r = api.client.post("/claims", json=CLAIM, headers=auth(tok))
    assert r.status_code == 201 and r.json()["ttl_s"] == 3600
    assert r.json()["claim_id"] in r.json()["next"]


@pytest.mark.parametrize("ttl,ok", [(3600, True), (14 * 86400, True), (59, False),
                                    (3599, False), (14 * 86400 + 1, False), (-5, False)])
def test_ttl_within_published_caps(api: Api, ttl: int, ok: bool) -> None:
    tok = api.token("alice")["token"]
    r = api.client.post("/claims", json={**CLAIM, "ttl_s": ttl}, headers=auth(tok))
    if ok:
        assert r.status_code == 201 and r.json()["ttl_s"] == ttl
    else:
        assert r.status_code == 422 and r.json()["code"] == "claim-ttl-out-of-range"


def test_graph_policy_caps_win(tmp_path: Path) -> None:
    it = make_api(tmp_path, graph_policy={"claim_ttl": {"min_s": 600, "max_s": 7200}})
    a = next(it)
    tok = a.token("alice")["token"]
    assert a.client.post("/claims", json={**CLAIM, "ttl_s": 7201},
                         headers=auth(tok)).json()["code"] == "claim-ttl-out-of-range"
    r = a.client.post("/claims", json=CLAIM, headers=auth(tok))
    assert r.json()["ttl_s"] == 600
    it.close()


def test_one_holder_release_and_reclaim(api: Api) -> None:
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    claim_id = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()["claim_id"]
    held = api.client.post("/claims", json=CLAIM, headers=auth(bob))
    assert held.status_code == 409 and held.json()["code"] == "claim-held"
    assert "alice" in held.json()["detail"]
    mine_again = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()
    assert mine_again["code"] == "claim-held" and claim_id in mine_again["detail"]
    not_yours = api.client.delete(f"/claims/{claim_id}", headers=auth(bob))
    assert not_yours.status_code == 403 and not_yours.json()["code"] == "claim-not-yours"
    r = api.client.delete(f"/claims/{claim_id}", headers=auth(alice))
    assert r.status_code == 200 and r.json()["state"] == "released"
    twice = api.client.delete(f"/claims/{claim_id}", headers=auth(alice))
    assert twice.status_code == 409 and twice.json()["code"] == "claim-not-live"
    assert api.client.delete("/claims/claim-nope", headers=auth(alice)).json()["code"] == \
        "claim-not-found"
    assert api.client.post("/claims", json=CLAIM, headers=auth(bob)).status_code == 201
    history = api.client.get("/targets/demo/nodes/root").json()["claims"]["history"]
    assert [h["state"] for h in history] == ["released", "live"]


def test_renew_before_expiry(api: Api) -> None:
    tok = api.token("alice")["token"]
    c = api.client.post("/claims", json=CLAIM, headers=auth(tok)).json()
    api.clock.advance(3000)
    r = api.client.post(f"/claims/{c['claim_id']}/renew", json={"ttl_s": 7200},
                        headers=auth(tok))
    assert r.status_code == 200 and r.json()["renewals"] == 1
    api.clock.advance(3600)  # past the first expiry, inside the renewed one
    mine = api.client.get("/claims/mine", headers=auth(tok)).json()["claims"]
    assert [m["claim_id"] for m in mine] == [c["claim_id"]]
    too_long = api.client.post(f"/claims/{c['claim_id']}/renew", json={"ttl_s": 10**9},
                               headers=auth(tok))
    assert too_long.json()["code"] == "claim-ttl-out-of-range"
    no_body = api.client.post(f"/claims/{c['claim_id']}/renew", headers=auth(tok))
    assert no_body.status_code == 200 and no_body.json()["ttl_s"] == 3600


def test_expiry_auto_releases_at_read_time(api: Api) -> None:
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    c = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()
    api.clock.advance(3601)
    assert api.client.get("/claims/mine", headers=auth(alice)).json()["claims"] == []
    bundle = api.client.get("/targets/demo/nodes/root").json()["claims"]
    assert bundle["live"] == [] and bundle["history"][0]["state"] == "expired"
    front = api.client.get("/frontier.json").json()["nodes"]
    assert next(e for e in front if e["node"] == "root" and e["target"] == "demo")[
        "claim_status"] == "unclaimed"
    late = api.client.post(f"/claims/{c['claim_id']}/renew", headers=auth(alice))
    assert late.status_code == 409 and late.json()["code"] == "claim-not-live"
    assert api.client.post("/claims", json=CLAIM, headers=auth(bob)).status_code == 201
    with api.svc.sessions() as s:
        rows = s.execute(select(db.ClaimRow).order_by(db.ClaimRow.id)).scalars().all()
        assert [r.release_reason for r in rows] == ["expired", None]


@pytest.mark.parametrize("target,node,code", [
    ("demo", "proved", "claim-node-closed"),
    ("lonely", "root", "claim-no-steward"),
    ("demo", "nope", "node-not-found"),
    ("nope", "root", "target-not-found"),
    ("demo", "../etc", "bad-node-id"),
])
def test_claimable_refusals_have_named_codes(api: Api, target: str, node: str,
                                              code: str) -> None:
    tok = api.token("alice")["token"]
    r = api.client.post("/claims", json={"target": target, "node": node}, headers=auth(tok))
    assert r.json()["code"] == code


# --- concurrency -----------------------------------------------------------------------


def _agents(a: Api, n: int) -> list[Caller]:
    out = []
    for i in range(n):
        tok = a.token(f"agent{i}")["token"]
        out.append(Caller(token=tok, address=f"10.0.0.{i}"))
    return out


def _race(a: Api, callers: list[Caller], nodes: list[str]) -> list[Any]:
    """Every caller claims its node at the same moment from its own thread."""
    barrier = threading.Barrier(len(callers))
    results: list[Any] = [None] * len(callers)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = claims.claim_node(a.svc, callers[i], target="demo", node=nodes[i])
        except LemmataError as exc:
            results[i] = exc.code
        except Exception as exc:  # noqa: BLE001 - a lost write shows up here
            results[i] = repr(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(callers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def _check_one_holder(a: Api, n: int) -> None:
    callers = _agents(a, n)
    results = _race(a, callers, ["root"] * n)
    wins = [r for r in results if isinstance(r, dict)]
    assert len(wins) == 1, results
    assert sorted(r for r in results if not isinstance(r, dict)) == ["claim-held"] * (n - 1)
    with a.svc.sessions() as s:
        rows = s.execute(select(db.ClaimRow)).scalars().all()
        assert len(rows) == 1 and rows[0].public_id == wins[0]["claim_id"]
        assert rows[0].live_key == "demo/root"


def _check_no_lost_writes(a: Api, n: int) -> None:
    callers = _agents(a, n)
    results = _race(a, callers, [f"n{i + 1}" for i in range(n)])
    assert all(isinstance(r, dict) for r in results), results
    with a.svc.sessions() as s:
        rows = s.execute(select(db.ClaimRow)).scalars().all()
        assert sorted(r.node for r in rows) == sorted(f"n{i + 1}" for i in range(n))
        assert len({r.public_id for r in rows}) == n


def test_fifty_agents_one_node_exactly_one_holder_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={"rate_token_issues_per_address": 1000})
    a = next(it)
    _check_one_holder(a, 50)
    it.close()


def test_fifty_agents_fifty_nodes_no_lost_writes_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={"rate_token_issues_per_address": 1000}, extra_nodes=50)
    a = next(it)
    _check_no_lost_writes(a, 50)
    it.close()


@pytest.fixture()
def pg_api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` on PostgreSQL in a schema of its own, dropped afterwards."""
    with pg_schema() as schema:
        yield from make_api(tmp_path, settings={"database_url": PG_URL,
                                                "rate_token_issues_per_address": 1000},
                            extra_nodes=50,
                            engine_connect_args={"options": f"-csearch_path={schema}"})


@pytest.mark.postgres
def test_fifty_agents_one_node_exactly_one_holder_postgres(pg_api: Api) -> None:
    _check_one_holder(pg_api, 50)


@pytest.mark.postgres
def test_fifty_agents_fifty_nodes_no_lost_writes_postgres(pg_api: Api) -> None:
    _check_no_lost_writes(pg_api, 50)
