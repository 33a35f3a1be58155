"""The live claim registry: advisory claims with several holders, TTL caps, release,
renewal, expiry, the per-identity limit and concurrency (D-25, ruling 14)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from network.api import db
from network.api.frontier import claims
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


def _entry(api: Api, node: str = "root") -> dict[str, Any]:
    front = api.client.get("/frontier.json").json()["nodes"]
    return next(e for e in front if e["target"] == "demo" and e["node"] == node)  # type: ignore[no-any-return]


def test_several_holders_each_with_its_own_ttl(api: Api) -> None:
    """Claims are advisory (D-25, ruling 14): bob's claim on alice's node is taken, each
    keeps its own TTL, each sees the other in list_my_claims (D-28), and the frontier
    says how many hold the node and since when."""
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    a = api.client.post("/claims", json={**CLAIM, "ttl_s": 3600}, headers=auth(alice)).json()
    assert a["other_holders"] == [] and a["already_held"] is False
    api.clock.advance(60)
    r = api.client.post("/claims", json={**CLAIM, "ttl_s": 7200}, headers=auth(bob))
    assert r.status_code == 201, r.text
    b = r.json()
    assert b["claim_id"] != a["claim_id"] and b["ttl_s"] == 7200
    assert b["other_holders"] == [{"pseudonym": "alice", "claimed_at": a["claimed_at"],
                                   "expires_at": a["expires_at"]}]
    assert "1 other identity holds this node" in b["next"]
    [mine] = api.client.get("/claims/mine", headers=auth(alice)).json()["claims"]
    assert mine["claim_id"] == a["claim_id"]
    assert mine["other_holders"] == [{"pseudonym": "bob", "claimed_at": b["claimed_at"],
                                      "expires_at": b["expires_at"]}]
    e = _entry(api)
    assert e["claim_status"] == "claimed" and e["claim_holders"] == 2
    assert e["claimed_since"] == a["claimed_at"]
    assert [h["pseudonym"] for h in e["live_claims"]] == ["alice", "bob"]
    assert all("claim_id" not in h for h in e["live_claims"])  # receipts stay private
    bundle = api.client.get("/targets/demo/nodes/root").json()["claims"]
    assert [h["pseudonym"] for h in bundle["live"]] == ["alice", "bob"]
    # alice's hour ends, bob's two hours do not: one holder left, held since bob's claim
    api.clock.advance(3600 - 60)
    e = _entry(api)
    assert e["claim_holders"] == 1 and e["claimed_since"] == b["claimed_at"]
    assert api.client.get("/claims/mine", headers=auth(bob)).json()["claims"][0][
        "other_holders"] == []
    api.clock.advance(3660)
    assert _entry(api)["claim_holders"] == 0 and _entry(api)["claimed_since"] is None


def test_release_is_the_holders_own_and_leaves_the_others(api: Api) -> None:
    alice = api.token("alice")["token"]
    bob = api.token("bob")["token"]
    claim_id = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()["claim_id"]
    assert api.client.post("/claims", json=CLAIM, headers=auth(bob)).status_code == 201
    not_yours = api.client.delete(f"/claims/{claim_id}", headers=auth(bob))
    assert not_yours.status_code == 403 and not_yours.json()["code"] == "claim-not-yours"
    r = api.client.delete(f"/claims/{claim_id}", headers=auth(alice))
    assert r.status_code == 200 and r.json()["state"] == "released"
    twice = api.client.delete(f"/claims/{claim_id}", headers=auth(alice))
    assert twice.status_code == 409 and twice.json()["code"] == "claim-not-live"
    assert api.client.delete("/claims/claim-nope", headers=auth(alice)).json()["code"] == \
        "claim-not-found"
    assert [h["pseudonym"] for h in _entry(api)["live_claims"]] == ["bob"]
    again = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()
    assert again["claim_id"] != claim_id and again["already_held"] is False
    history = api.client.get("/targets/demo/nodes/root").json()["claims"]["history"]
    assert [(h["pseudonym"], h["state"]) for h in history] == [
        ("alice", "released"), ("bob", "live"), ("alice", "live")]


def test_claiming_a_node_you_hold_keeps_your_one_claim(api: Api) -> None:
    """The same identity claiming the same node again gets the same claim back: extended
    to now + ttl when that is later, never shortened, and never a second row."""
    alice = api.token("alice")["token"]
    first = api.client.post("/claims", json={**CLAIM, "ttl_s": 7200}, headers=auth(alice)).json()
    api.clock.advance(600)
    shorter = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()  # min: 1 h
    assert shorter["claim_id"] == first["claim_id"] and shorter["already_held"] is True
    assert shorter["expires_at"] == first["expires_at"] and shorter["renewals"] == 0
    longer = api.client.post("/claims", json={**CLAIM, "ttl_s": 86400},
                             headers=auth(alice)).json()
    assert longer["claim_id"] == first["claim_id"] and longer["renewals"] == 1
    assert longer["ttl_s"] == 86400 and longer["expires_at"] > first["expires_at"]
    assert api.client.post("/claims", json={**CLAIM, "ttl_s": 59},
                           headers=auth(alice)).json()["code"] == "claim-ttl-out-of-range"
    with api.svc.sessions() as s:
        assert len(s.execute(select(db.ClaimRow)).scalars().all()) == 1
    assert _entry(api)["claim_holders"] == 1
    # once it has expired, claiming again makes a new claim; the old one stays as history
    api.clock.advance(86400)
    renewed = api.client.post("/claims", json=CLAIM, headers=auth(alice)).json()
    assert renewed["claim_id"] != first["claim_id"] and renewed["already_held"] is False


def test_per_identity_limit_on_nodes_held(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={"claims_per_identity": 2}, extra_nodes=3)
    a = next(it)
    alice = a.token("alice")["token"]
    bob = a.token("bob")["token"]
    assert a.client.get("/info.json").json()["service"]["claims"] == {
        "advisory": True, "per_identity": 2}
    ids = [a.client.post("/claims", json={"target": "demo", "node": n},
                         headers=auth(alice)).json()["claim_id"] for n in ("n1", "n2")]
    over = a.client.post("/claims", json={"target": "demo", "node": "n3"}, headers=auth(alice))
    assert over.status_code == 409 and over.json()["code"] == "claim-limit-reached"
    assert "(2)" in over.json()["detail"]
    # claiming a node one holds is no new claim; another identity is not limited by alice
    assert a.client.post("/claims", json={"target": "demo", "node": "n1"},
                         headers=auth(alice)).json()["already_held"] is True
    assert a.client.post("/claims", json={"target": "demo", "node": "n3"},
                         headers=auth(bob)).status_code == 201
    mine = a.client.get("/claims/mine", headers=auth(alice)).json()
    assert mine["limit"] == 2 and len(mine["claims"]) == 2
    a.client.delete(f"/claims/{ids[0]}", headers=auth(alice))
    assert a.client.post("/claims", json={"target": "demo", "node": "n3"},
                         headers=auth(alice)).status_code == 201
    a.clock.advance(3601)  # every claim expired: the slots are free again
    for n in ("n1", "n2"):
        assert a.client.post("/claims", json={"target": "demo", "node": n},
                             headers=auth(alice)).status_code == 201
    it.close()


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


def _rows(a: Api) -> list[db.ClaimRow]:
    with a.svc.sessions() as s:
        return list(s.execute(select(db.ClaimRow)).scalars().all())


def _check_all_hold(a: Api, n: int) -> None:
    """n distinct agents claim one node at once: all n hold it, one row each."""
    callers = _agents(a, n)
    results = _race(a, callers, ["root"] * n)
    assert all(isinstance(r, dict) and r["already_held"] is False for r in results), results
    rows = _rows(a)
    assert len(rows) == n and len({r.identity_id for r in rows}) == n
    assert sorted(r.public_id for r in rows) == sorted(r["claim_id"] for r in results)
    assert len({r.live_key for r in rows}) == n
    assert claims.live_for_node(a.svc, "demo", "root").__len__() == n


def _check_one_agent_one_claim(a: Api, n: int) -> None:
    """One agent claims one node n times at once: one claim, every answer naming it."""
    [caller] = _agents(a, 1)
    results = _race(a, [caller] * n, ["root"] * n)
    assert all(isinstance(r, dict) for r in results), results
    rows = _rows(a)
    assert len(rows) == 1, [(r.public_id, r.live_key) for r in rows]
    assert {r["claim_id"] for r in results} == {rows[0].public_id}
    assert sum(1 for r in results if not r["already_held"]) == 1
    assert rows[0].live_key == claims.live_key(rows[0].identity_id, "demo", "root")


def _check_limit_holds(a: Api, n: int, limit: int) -> None:
    """One agent claims n nodes at once with a limit of ``limit``: exactly that many."""
    [caller] = _agents(a, 1)
    results = _race(a, [caller] * n, [f"n{i + 1}" for i in range(n)])
    wins = [r for r in results if isinstance(r, dict)]
    assert len(wins) == limit, results
    assert sorted(r for r in results if not isinstance(r, dict)) == \
        ["claim-limit-reached"] * (n - limit)
    assert sorted(r.public_id for r in _rows(a)) == sorted(w["claim_id"] for w in wins)


def _check_no_lost_writes(a: Api, n: int) -> None:
    callers = _agents(a, n)
    results = _race(a, callers, [f"n{i + 1}" for i in range(n)])
    assert all(isinstance(r, dict) for r in results), results
    rows = _rows(a)
    assert sorted(r.node for r in rows) == sorted(f"n{i + 1}" for i in range(n))
    assert len({r.public_id for r in rows}) == n


RACE = {"rate_token_issues_per_address": 1000, "rate_writes_per_identity": 1000}


def test_fifty_agents_one_node_all_hold_it_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings=RACE)
    _check_all_hold(next(it), 50)
    it.close()


def test_one_agent_racing_itself_gets_one_claim_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings=RACE)
    _check_one_agent_one_claim(next(it), 50)
    it.close()


def test_per_identity_limit_holds_under_a_race_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={**RACE, "claims_per_identity": 5}, extra_nodes=50)
    _check_limit_holds(next(it), 50, 5)
    it.close()


def test_fifty_agents_fifty_nodes_no_lost_writes_sqlite(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings=RACE, extra_nodes=50)
    _check_no_lost_writes(next(it), 50)
    it.close()


@pytest.fixture()
def pg_api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` on PostgreSQL in a schema of its own, dropped afterwards; one
    identity may hold five live claims."""
    with pg_schema() as schema:
        yield from make_api(tmp_path, settings={"database_url": PG_URL, **RACE,
                                                "claims_per_identity": 5},
                            extra_nodes=50,
                            engine_connect_args={"options": f"-csearch_path={schema}"})


@pytest.mark.postgres
def test_fifty_agents_one_node_all_hold_it_postgres(pg_api: Api) -> None:
    _check_all_hold(pg_api, 50)


@pytest.mark.postgres
def test_one_agent_racing_itself_gets_one_claim_postgres(pg_api: Api) -> None:
    _check_one_agent_one_claim(pg_api, 50)


@pytest.mark.postgres
def test_per_identity_limit_holds_under_a_race_postgres(pg_api: Api) -> None:
    _check_limit_holds(pg_api, 50, 5)


@pytest.mark.postgres
def test_fifty_agents_fifty_nodes_no_lost_writes_postgres(pg_api: Api) -> None:
    _check_no_lost_writes(pg_api, 50)


# --- migration 0006 ----------------------------------------------------------------------


def _alembic(engine: Any, fn: str, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(db.MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        getattr(command, fn)(cfg, revision)


def test_migration_0006_keeps_live_claims_and_downgrades_to_one_holder(tmp_path: Path) -> None:
    """A claim live under 0005's ``<target>/<node>`` key is still live, with its holder,
    after 0006; going back keeps each node's oldest live claim and releases the rest."""
    from sqlalchemy import insert

    engine = db.make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    _alembic(engine, "upgrade", "0005")
    row = {"target": "demo", "node": "root", "ttl_s": 3600, "created_at": 1,
           "expires_at": 10**10, "renewals": 0}
    with engine.begin() as conn:
        for i in (1, 2):
            conn.execute(insert(db.IdentityRow.__table__).values(
                id=i, pseudonym=f"p{i}", pseudonym_key=f"p{i}", proof_kind="github",
                created_at=1))
        conn.execute(insert(db.ClaimRow.__table__).values(
            public_id="claim-old", identity_id=1, live_key="demo/root", **row))
        conn.execute(insert(db.ClaimRow.__table__).values(
            public_id="claim-gone", identity_id=2, live_key=None, released_at=5,
            release_reason="released", **row))
    _alembic(engine, "upgrade", "0006")
    with engine.begin() as conn:
        conn.execute(insert(db.ClaimRow.__table__).values(
            public_id="claim-new", identity_id=2, live_key="2:demo/root", **row))
        keys = dict(conn.execute(select(db.ClaimRow.public_id, db.ClaimRow.live_key)).all())
    assert keys == {"claim-old": "1:demo/root", "claim-gone": None, "claim-new": "2:demo/root"}
    _alembic(engine, "downgrade", "0005")
    with engine.begin() as conn:
        after = {r.public_id: (r.live_key, r.release_reason) for r in conn.execute(
            select(db.ClaimRow.public_id, db.ClaimRow.live_key, db.ClaimRow.release_reason))}
    assert after == {"claim-old": ("demo/root", None), "claim-gone": (None, "released"),
                     "claim-new": (None, "downgraded")}
