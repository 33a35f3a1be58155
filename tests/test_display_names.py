"""Display names (D-3 v3.37, D-35 "names and registrations"; issue 13): POST /me/name and
set_display_name open one approval-signed ``names/<pseudonym>.yaml`` for the caller alone;
the gate admits a name only for its own pseudonym and signed for it; a changed name
(a modified file) is judged the same way; the queue merges it and the loader reads it."""

from __future__ import annotations

from typing import Any

from network.api.identity import role_acts
from network.api.submit.records import dump_yaml, gate_findings
from network.gate.artifacts import Kind
from network.record import models as m
from tests.test_proof_reviews import Env, env  # noqa: F401 - the LocalForge service fixture


def _token(e: Env, pseudonym: str) -> str:
    r = e.client.post("/tokens", json={"pseudonym": pseudonym, "dco": "1.1",
                                       "proof": {"kind": "github", "token": f"gh-{pseudonym}"}})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def _signed(e: Env, rec: dict[str, Any], signer: str) -> dict[str, Any]:
    return role_acts.sign_role_act(e.svc, m.DisplayName, rec, e.who(signer))


def test_a_name_is_filed_for_the_caller_merged_and_read(env: Env) -> None:  # noqa: F811
    tok = _token(env, "nadia")
    r = env.client.post("/me/name", json={"name": "Nadia N.", "link": "https://orcid.org/x"},
                        headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 201, r.text
    assert r.json()["paths"] == ["names/nadia.yaml"]
    assert [i.verdict for i in env.run_queue()] == ["pass"]
    assert env.main().names["nadia"].name == "Nadia N."
    # a changed name modifies the file, and merges the same way
    r = env.client.post("/me/name", json={"name": "Nadia Nour"},
                        headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 201, r.text
    assert [i.verdict for i in env.run_queue()] == ["pass"]
    assert env.main().names["nadia"].name == "Nadia Nour"


def test_the_tool_and_the_route_refuse_a_foreign_or_malformed_name(env: Env) -> None:  # noqa: F811
    tok = _token(env, "nadia")
    h = {"Authorization": f"Bearer {tok}"}
    bad = env.client.post("/me/name", json={"name": "x", "link": "javascript:alert(1)"},
                          headers=h)
    assert bad.status_code == 422 and bad.json()["code"] == "invalid-record", bad.text
    extra = env.client.post("/me/name", json={"name": "x", "pseudonym": "steve"}, headers=h)
    assert extra.status_code == 422, extra.text  # the body names no pseudonym
    assert env.client.post("/me/name", json={"name": "x"}).json()["code"] == "token-missing"


def test_the_gate_refuses_a_name_for_another_or_unsigned(env: Env) -> None:  # noqa: F811
    base = env.main()
    own = {"schema": "display-name/v1", "pseudonym": "nadia", "name": "N",
           "date": "2026-06-01T00:00:00Z"}
    cases = [
        ("names/steve.yaml", _signed(env, {**own, "pseudonym": "steve"}, "steve"), "nadia",
         "actor-not-submitter"),  # nadia files steve's name
        ("names/steve.yaml", _signed(env, own, "nadia"), "nadia", "actor-not-submitter"),
        ("names/nadia.yaml", own, "nadia", "role-act-unsigned"),
        ("names/nadia.yaml", {**_signed(env, own, "nadia"), "name": "Changed"}, "nadia",
         "role-signature-invalid"),
    ]
    for path, rec, submitter, code in cases:
        found = gate_findings(base, {path: dump_yaml(rec)}, submitter, Kind.DISPLAY_NAME)
        assert code in {d.code for d in found}, (path, rec, found)


def test_deleting_a_name_is_refused(env: Env) -> None:  # noqa: F811
    tok = _token(env, "nadia")
    env.client.post("/me/name", json={"name": "N"}, headers={"Authorization": f"Bearer {tok}"})
    env.run_queue()
    found = gate_findings(env.main(), {"names/nadia.yaml": None}, "nadia", Kind.DISPLAY_NAME)
    assert "record-deleted" in {d.code for d in found}, found
