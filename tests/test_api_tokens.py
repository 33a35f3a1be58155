"""Identities and tokens through the in-process client (D-19 v3.28/v3.29, D-23, D-35)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from network.api import db
from tests.api_support import Api, auth, make_api


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    """An :class:`Api` over a fresh graph and a fresh SQLite database."""
    yield from make_api(tmp_path)


DAY = 86400


def test_issue_returns_token_and_recovery_code(api: Api) -> None:
    r = api.token("alice")
    assert r["token"].startswith("lmt_") and r["recovery_code"].startswith("lmr_")
    assert r["created"] is True and r["pseudonym"] == "alice" and r["github_login"] == "alice"
    assert "remembers" in r["next"] and "operator" in r["next"]
    mine = api.client.get("/claims/mine", headers=auth(r["token"]))
    assert mine.status_code == 200 and mine.json() == {"pseudonym": "alice", "limit": 20,
                                                         "claims": []}


def test_secrets_are_stored_hashed(api: Api) -> None:
    r = api.token("alice")
    with api.svc.sessions() as s:
        hashes = [t.token_hash for t in s.execute(select(db.TokenRow)).scalars()]
        codes = [c.code_hash for c in s.execute(select(db.RecoveryCodeRow)).scalars()]
    assert r["token"] not in hashes and len(hashes[0]) == 64
    assert r["recovery_code"] not in codes and len(codes[0]) == 64


def test_same_proof_gets_a_new_token_for_the_same_identity(api: Api) -> None:
    first = api.token("alice")
    again = api.token("alice")
    assert again["created"] is False and again["token"] != first["token"]
    assert api.client.get("/claims/mine", headers=auth(first["token"])).status_code == 200


def test_pseudonym_unique_without_regard_to_case(api: Api) -> None:
    api.token("alice")
    r = api.client.post("/tokens", json={"pseudonym": "ALICE", "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-mallory"}})
    assert r.status_code == 409 and r.json()["code"] == "pseudonym-taken"


def test_github_login_bound_to_one_pseudonym(api: Api) -> None:
    api.token("alice")
    r = api.client.post("/tokens", json={"pseudonym": "alice2", "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-alice"}})
    assert r.status_code == 409 and r.json()["code"] == "github-login-bound"


@pytest.mark.parametrize("name", ["gate", "GATE", "Lemmata", "Operator", "ROOT"])
def test_reserved_pseudonyms_refused_case_insensitively(api: Api, name: str) -> None:
    r = api.client.post("/tokens", json={"pseudonym": name, "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-someone"}})
    assert r.status_code == 422 and r.json()["code"] == "pseudonym-reserved"


def test_graph_published_reserved_names_refused(tmp_path: Path) -> None:
    it: Iterator[Api] = make_api(tmp_path, graph_policy={"reserved_pseudonyms": ["Terence"]})
    a = next(it)
    r = a.client.post("/tokens", json={"pseudonym": "terence", "dco": "1.1",
                                       "proof": {"kind": "github", "token": "gh-t"}})
    assert r.status_code == 422 and r.json()["code"] == "pseudonym-reserved"
    assert "terence" in a.client.get("/info.json").json()["service"]["reserved_pseudonyms"]
    it.close()


@pytest.mark.parametrize("name", ["a/b", "../x", "dev/$(exit 99)", "x\ny", "",
                                  "\u0430lice", "-lead", "a" * 40, "al ice"])
def test_hostile_pseudonyms_refused(api: Api, name: str) -> None:
    r = api.client.post("/tokens", json={"pseudonym": name, "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-x"}})
    assert r.status_code == 422 and r.json()["code"] == "pseudonym-invalid"


def test_dco_version_must_be_current(api: Api) -> None:
    r = api.client.post("/tokens", json={"pseudonym": "bob", "dco": "0.9",
                                         "proof": {"kind": "github", "token": "gh-bob"}})
    assert r.status_code == 403 and r.json()["code"] == "dco-not-accepted"
    dco = api.client.get("/dco.json").json()
    assert dco["version"] == "1.1" and "Developer's Certificate of Origin 1.1" in dco["text"]


def test_bad_proofs_refused(api: Api) -> None:
    for proof in ({"kind": "github", "token": "nope"}, {"kind": "github"},
                  {"kind": "email"}, {}, {"kind": "precheck", "job_id": "missing"}):
        r = api.client.post("/tokens", json={"pseudonym": "bob", "dco": "1.1", "proof": proof})
        assert r.status_code == 403 and r.json()["code"] == "proof-invalid", proof


def test_passing_tutorial_precheck_proves_one_identity(api: Api) -> None:
    with db.transaction(api.svc.sessions) as s:
        s.add(db.PrecheckJobRow(id="job-1", target="tutorial", node="tutorial", tutorial=1,
                                bundle_sha256="0" * 64, state="pass", created_at=1))
        s.add(db.PrecheckJobRow(id="job-2", target="demo", node="root", tutorial=0,
                                bundle_sha256="0" * 64, state="pass", created_at=1))
    body = {"pseudonym": "agent7", "dco": "1.1", "proof": {"kind": "precheck", "job_id": "job-1"}}
    r = api.client.post("/tokens", json=body)
    assert r.status_code == 201 and r.json()["created"] and r.json()["github_login"] is None
    again = api.client.post("/tokens", json={**body, "pseudonym": "agent8"})
    assert again.status_code == 403 and again.json()["code"] == "proof-invalid"
    not_tutorial = api.client.post("/tokens", json={
        **body, "pseudonym": "agent9", "proof": {"kind": "precheck", "job_id": "job-2"}})
    assert not_tutorial.json()["code"] == "proof-invalid"


def test_renew_retires_the_presented_token(api: Api) -> None:
    old = api.token("alice")["token"]
    r = api.client.post("/tokens/renew", headers=auth(old))
    assert r.status_code == 200
    new = r.json()["token"]
    assert api.client.get("/claims/mine", headers=auth(new)).status_code == 200
    refused = api.client.get("/claims/mine", headers=auth(old))
    assert refused.status_code == 401 and refused.json()["code"] == "token-invalid"


def test_token_lapses_only_after_unused_stretch(api: Api) -> None:
    tok = api.token("alice")["token"]
    api.clock.advance(170 * DAY)
    assert api.client.get("/claims/mine", headers=auth(tok)).status_code == 200  # used
    api.clock.advance(170 * DAY)  # 340 days after issue, 170 after last use
    assert api.client.get("/claims/mine", headers=auth(tok)).status_code == 200
    api.clock.advance(181 * DAY)
    r = api.client.get("/claims/mine", headers=auth(tok))
    assert r.status_code == 401 and r.json()["code"] == "token-expired"
    renew = api.client.post("/tokens/renew", headers=auth(tok))
    assert renew.status_code == 401 and renew.json()["code"] == "token-expired"
    # the identity is kept: the same proof gets a new token for it (D-19 v3.28)
    again = api.token("alice")
    assert again["created"] is False


def test_recovery_retires_every_token_and_issues_new_code(api: Api) -> None:
    first = api.token("alice")
    second = api.token("alice")  # a second live token; the first code was retired
    stale = api.client.post("/tokens/recover", json={"pseudonym": "alice",
                                                     "recovery_code": first["recovery_code"]})
    assert stale.status_code == 403 and stale.json()["code"] == "recovery-invalid"
    r = api.client.post("/tokens/recover", json={"pseudonym": "ALICE",
                                                 "recovery_code": second["recovery_code"]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["recovery_code"] != second["recovery_code"] and out["created"] is False
    for old in (first["token"], second["token"]):
        assert api.client.get("/claims/mine", headers=auth(old)).json()["code"] == "token-invalid"
    assert api.client.get("/claims/mine", headers=auth(out["token"])).status_code == 200
    reuse = api.client.post("/tokens/recover", json={"pseudonym": "alice",
                                                     "recovery_code": second["recovery_code"]})
    assert reuse.json()["code"] == "recovery-invalid"
    nobody = api.client.post("/tokens/recover", json={"pseudonym": "nobody",
                                                      "recovery_code": out["recovery_code"]})
    assert nobody.json()["code"] == "recovery-invalid"


def test_outdated_dco_refuses_writes_not_reads(api: Api) -> None:
    tok = api.token("alice")["token"]
    with db.transaction(api.svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow)).scalar_one()
        ident.dco_version = "1.0"
    r = api.client.post("/claims", json={"target": "demo", "node": "root"}, headers=auth(tok))
    assert r.status_code == 403 and r.json()["code"] == "dco-not-accepted"
    assert api.client.get("/claims/mine", headers=auth(tok)).status_code == 200
    bad = api.client.post("/dco/accept", json={"version": "0.1"}, headers=auth(tok))
    assert bad.json()["code"] == "dco-not-accepted"
    ok = api.client.post("/dco/accept", json={"version": "1.1"}, headers=auth(tok))
    assert ok.status_code == 200 and ok.json()["dco_version"] == "1.1"
    r = api.client.post("/claims", json={"target": "demo", "node": "root"}, headers=auth(tok))
    assert r.status_code == 201


def test_token_issuance_rate_limited_per_address(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={"rate_token_issues_per_address": 2})
    a = next(it)
    a.token("alice")
    a.token("bob")
    r = a.client.post("/tokens", json={"pseudonym": "carol", "dco": "1.1",
                                       "proof": {"kind": "github", "token": "gh-carol"}})
    assert r.status_code == 429 and r.json()["code"] == "rate-limited"
    assert int(r.headers["Retry-After"]) > 0
    a.clock.advance(3600)
    assert a.token("carol")["created"]
    it.close()


def test_writes_rate_limited_per_identity(tmp_path: Path) -> None:
    it = make_api(tmp_path, settings={"rate_writes_per_identity": 2})
    a = next(it)
    tok = a.token("alice")["token"]
    codes = [a.client.post("/claims", json={"target": "demo", "node": "root"},
                           headers=auth(tok)).json().get("code") for _ in range(3)]
    assert codes == [None, None, "rate-limited"]  # the second claim is alice's own again
    it.close()
