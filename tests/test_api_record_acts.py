"""Literature, shelving, registrations and the person's own page (issue 13; D-25
v3.35/v3.45, D-14 v3.47, D-10 v3.37, D-32 v3.35/v3.47, D-35).

Every route runs over HTTP against a LocalForge seeded with a small graph; person routes
run with the web-session dependency overridden for a real identity (the session cookie
is another module's). Each accepted write opens one pull request that passes the gate's
own steps 1-2; each refusal carries its own catalog code and opens nothing. A confirmed
literature record and a shelving are merged through the LocalForge queue and read back
through derive; hand-opened shelvings the service would refuse are refused at step 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

from network.api import db
from network.api.people import web_session
from network.api.service import Caller, authenticate
from network.gate.artifacts import Kind
from network.gate.diff import diff_commits
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.step2 import run_steps_1_2
from network.record import derive
from network.record import models as m
from network.record.products.products import write_products
from network.record.read.loader import load_graph
from tests.api_support import Api, forge_service
from tests.graphs import (
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
    GraphBuilder,
    git_commit,
)
from tests.test_api_records import Env

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

PART = "targets/demo/nodes/root/attempts/20260101T000000Z-bob-partial.lean"
OTHER_PART = "targets/demo/nodes/other/attempts/20260101T000000Z-bob-partial.lean"
PROPOSAL = "targets/demo/nodes/free/literature/20260105T000000Z-alice.yaml"
ROLE_HOLDERS = ("steve", "cora")


def _build(root: Path) -> GraphBuilder:
    """demo (steward steve, curator cora): root with a merged partial cutting root--h1;
    other, with its own merged partial; lemma, used by the merged proof of user; free, an
    open statement with alice's literature proposal; quest, a question (answer(sorry))."""
    b = GraphBuilder(root)
    b.base()
    b.curators([{"pseudonym": "cora", "targets": ["*"]}])
    b.target("demo")
    b.node("demo", "root")
    part = b.partial("demo", "root", "20260101T000000Z", "bob")
    b.hole("demo", "root", 1, part)
    b.node("demo", "other")
    other = b.partial("demo", "other", "20260101T000000Z", "bob")
    b.hole("demo", "other", 1, other)
    b.node("demo", "lemma")
    b.node("demo", "user", deps=["lemma"])
    proof = b.proof("demo", "user")
    b.node("demo", "free")
    b.node("demo", "quest", provenance={"answer_question": True})
    b.merge([proof, part, other], date="2026-01-02")
    b.literature("demo", "free", "20260105T000000Z", "alice", "open", signed=False,
                 summary="Listed open on erdosproblems.com.")
    for who in ROLE_HOLDERS:  # a role holder's pseudonym is bound to its login (issue 16)
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                               "github": who, "since": "2026-01-01"})
    write_products(load_graph(root), root)
    git_commit(root, "graph")
    return b


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    b = _build(tmp_path / "graph")
    with forge_service(tmp_path / "graph", tmp_path) as (client, app, forge, clock):
        yield Env(Api(client, app, clock, b), forge)


def _as(env: Env, pseudonym: str | None, *, dco: str | None = None) -> str | None:
    """Sign ``pseudonym`` in (the web-session dependency overridden for its real
    identity); None signs out. Returns its bearer token."""
    if pseudonym is None:
        env.api.app.dependency_overrides.pop(web_session.person, None)
        return None
    tok = str(env.api.token(pseudonym)["token"])
    who = authenticate(env.api.svc, tok)
    if dco is not None:
        from dataclasses import replace

        who = replace(who, dco_version=dco)
    person = web_session.Person(caller=Caller(token=None, address="t", who=who),
                                login=pseudonym)
    env.api.app.dependency_overrides[web_session.person] = lambda: person
    return tok


def _refused(r: Any, code: str, status: int | None = None) -> None:
    assert r.json().get("code") == code, r.text
    if status is not None:
        assert r.status_code == status, r.text


def _post(env: Env, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return env.client.post(path, json=body, headers=headers)


def _merge(env: Env) -> list[Q.QueueItem]:
    return Q.process_queue(env.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _main(env: Env) -> Any:
    return load_graph(env.forge.path, "refs/heads/main")


def _record(env: Env, number: int) -> dict[str, Any]:
    [data] = env.files(number).values()
    return yaml.safe_load(data)  # type: ignore[no-any-return]


def _hand_opened(env: Env, files: dict[str, bytes], author: str) -> list[str]:
    """Open a pull request by hand (not through the service) and judge its steps 1-2."""
    pr = env.forge.open_pull_request(files=files, title="by hand", body="", author=author)
    diff = diff_commits(env.forge.path, pr.base_sha, pr.head_sha)
    res = run_steps_1_2(diff, load_graph(env.forge.path, pr.base_sha), author)
    return [d.code for d in res.step2.diagnostics]


# --- literature (D-25 v3.35/v3.45) ---------------------------------------------------------


LIT = {"target_id": "demo", "node_id": "lemma", "status": "known-true",
       "summary": "Proved by Erdős in 1950.",
       "references": [{"title": "On a lemma", "url": "https://example.org/lemma"}]}


def test_a_proposal_by_token_opens_an_unsigned_record_naming_the_stewards(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = _post(env, "/literature", LIT, tok)
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.LITERATURE)
    rec = _record(env, number)
    assert rec["by"] == "alice" and "signature" not in rec and rec["status"] == "known-true"
    assert "@steve" in env.forge.get(number).body  # the target's stewards are named
    _refused(_post(env, "/literature", LIT, tok), "record-copy", 409)
    assert len(env.prs()) == 1


def test_a_proposal_on_a_web_session_is_the_same_identity(env: Env) -> None:
    _as(env, "alice")
    r = _post(env, "/literature", LIT)
    assert r.status_code == 201, r.text
    assert _record(env, int(r.json()["pull_request"]))["by"] == "alice"


@pytest.mark.parametrize(("change", "code"), [
    ({"node_id": "nope"}, "node-not-found"),
    ({"status": "probably-true"}, "invalid-record"),
    ({"references": [{"title": "x", "url": "ftp://x"}]}, "invalid-record"),
])
def test_proposal_refusals_open_nothing(env: Env, change: dict[str, Any], code: str) -> None:
    tok = env.api.token("alice")["token"]
    _refused(_post(env, "/literature", {**LIT, **change}, tok), code)
    assert env.prs() == []


def test_a_role_holder_proposing_by_token_is_refused_unsigned(env: Env) -> None:
    """A steward's own literature record is a reading and must be signed (step 2); by a
    bearer token the service refuses it before anything opens."""
    tok = env.api.token("steve")["token"]
    _refused(_post(env, "/literature", LIT, tok), "role-act-unsigned", 403)
    assert env.prs() == []
    _as(env, "steve")  # on the site it is signed with the approval key
    r = _post(env, "/literature", LIT)
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.LITERATURE)
    assert _record(env, number)["signature"]["signer"] == "steve"


def test_a_confirmed_proposal_merges_and_the_node_reads_confirmed(env: Env) -> None:
    before = derive.literature_status(_main(env), "demo", "free")
    assert before is not None and before["source"] == "proposed"
    _as(env, "steve")
    r = _post(env, "/literature/confirm", {"literature": PROPOSAL, "action": "confirm"})
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.LITERATURE)
    rec = _record(env, number)
    assert rec["confirms"] == PROPOSAL and rec["status"] == "open"
    assert rec["signature"]["kind"] == "approval" and rec["signature"]["signer"] == "steve"
    [item] = _merge(env)
    assert item.verdict == "pass" and item.merge_sha, item.notes
    after = derive.literature_status(_main(env), "demo", "free")
    assert after is not None
    assert after["source"] == "confirmed" and after["by"] == "steve"
    assert after["status"] == "open" and after["awaiting"] is None
    # the reading is now current: it is corrected, never confirmed again
    path = after["record"]
    _refused(_post(env, "/literature/confirm", {"literature": PROPOSAL, "action": "confirm"}),
             "literature-not-awaiting", 409)
    _refused(_post(env, "/literature/confirm", {"literature": path, "action": "confirm"}),
             "literature-action-invalid", 422)
    r = _post(env, "/literature/confirm", {"literature": path, "action": "correct",
                                           "status": "partial-results"})
    assert r.status_code == 201, r.text
    assert _record(env, int(r.json()["pull_request"]))["supersedes"] == path


def test_a_dispute_names_the_proposal_and_the_signers_reading(env: Env) -> None:
    _as(env, "cora")  # a curator
    body = {"literature": PROPOSAL, "action": "dispute"}
    _refused(_post(env, "/literature/confirm", body), "literature-action-invalid", 422)
    r = _post(env, "/literature/confirm", {**body, "status": "known-true",
                                           "summary": "Solved in 2024."})
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.LITERATURE)
    rec = _record(env, number)
    assert rec["disputes"] == PROPOSAL and "confirms" not in rec and rec["by"] == "cora"


@pytest.mark.parametrize(("body", "code", "status"), [
    ({"literature": PROPOSAL, "action": "confirm", "status": "known-false"},
     "literature-action-invalid", 422),
    ({"literature": PROPOSAL, "action": "correct"}, "literature-action-invalid", 422),
    ({"literature": "targets/demo/nodes/free/literature/20260101T000000Z-zed.yaml",
      "action": "confirm"}, "literature-not-found", 404),
    ({"literature": "targets/demo/nodes/free/Statement.lean", "action": "confirm"},
     "literature-not-found", 404),
])
def test_confirm_refusals_open_nothing(env: Env, body: dict[str, Any], code: str,
                                       status: int) -> None:
    _as(env, "steve")
    _refused(_post(env, "/literature/confirm", body), code, status)
    assert env.prs() == []


def test_only_a_steward_or_curator_confirms_and_only_on_the_site(env: Env) -> None:
    body = {"literature": PROPOSAL, "action": "confirm"}
    _refused(_post(env, "/literature/confirm", body), "session-missing", 401)
    _as(env, "alice")
    _refused(_post(env, "/literature/confirm", body), "role-not-permitted", 403)
    assert env.prs() == []


def test_the_mcp_tools_of_person_acts_answer_role_act_needs_session(env: Env) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    tok = env.api.token("steve")["token"]

    async def run() -> list[Any]:
        transport = httpx2.ASGITransport(app=env.api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            listed = {t.name: t for t in (await c.list_tools()).tools}
            assert "token" not in json.dumps(listed["confirm_literature"].input_schema)
            return [await c.call_tool("confirm_literature",
                                      {"literature": PROPOSAL, "action": "confirm"}),
                    await c.call_tool("register_target", {
                        "target_id": "demo", "registry_id": "PALOMAR-2026-09-01-000001 v1",
                        "wrapper_commit": "a" * 40, "graph_commit": "b" * 40}),
                    await c.call_tool("propose_literature", {**{k: v for k, v in LIT.items()
                                                                if k != "references"},
                                                             "token": tok})]

    confirm, register, propose = anyio.run(run)
    for res in (confirm, register):
        assert res.is_error
        assert json.loads(res.content[0].text)["code"] == "role-act-needs-session"
    # a steward's own proposal by token is a reading, refused unsigned (see above)
    assert json.loads(propose.content[0].text)["code"] == "role-act-unsigned"
    assert env.prs() == []


# --- shelving (D-14 v3.47) -------------------------------------------------------------


SHELVE = {"target_id": "demo", "node_id": "free", "action": "shelved", "scope": "statement",
          "cause": "Does not serve the root."}


def test_a_shelving_merges_and_the_node_reads_shelved(env: Env) -> None:
    assert not derive.node_flags(_main(env), "demo", "free").shelved
    _as(env, "steve")
    r = _post(env, "/shelvings", SHELVE)
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.SHELVING)
    rec = _record(env, number)
    assert rec["subject"] == "free" and rec["by"] == "steve" and "lifts" not in rec
    assert rec["signature"]["kind"] == "approval"
    _refused(_post(env, "/shelvings", SHELVE), "record-copy", 409)
    [item] = _merge(env)
    assert item.verdict == "pass" and item.merge_sha, item.notes
    graph = _main(env)
    assert derive.node_flags(graph, "demo", "free").shelved
    standing = derive.standing_shelving(graph, "demo", "free")
    assert standing is not None
    # the lift names the shelving that stands, and merges back to unshelved
    _refused(_post(env, "/shelvings", {**SHELVE, "action": "unshelved", "lifts": PART}),
             "shelving-not-standing", 409)
    r = _post(env, "/shelvings", {**SHELVE, "action": "unshelved"})
    assert r.status_code == 201, r.text
    assert _record(env, int(r.json()["pull_request"]))["lifts"] == standing
    [item] = _merge(env)
    assert item.verdict == "pass", item.notes
    assert not derive.node_flags(_main(env), "demo", "free").shelved


def test_retiring_the_nodes_own_decomposition_shelves_its_holes(env: Env) -> None:
    _as(env, "cora")
    r = _post(env, "/shelvings", {**SHELVE, "node_id": "other", "scope": OTHER_PART})
    assert r.status_code == 201, r.text
    env.step2_ok(int(r.json()["pull_request"]), Kind.SHELVING)
    [item] = _merge(env)
    assert item.verdict == "pass", item.notes
    graph = _main(env)
    assert derive.node_flags(graph, "demo", "other--h1").shelved
    assert not derive.node_flags(graph, "demo", "other").shelved


@pytest.mark.parametrize(("change", "code", "status"), [
    ({"node_id": "root"}, "shelving-root", 422),
    ({"node_id": "lemma"}, "shelving-statement-used", 409),
    ({"node_id": "other", "scope": PART}, "shelving-subject-foreign", 422),
    ({"node_id": "other", "scope": "targets/demo/nodes/other/Statement.lean"},
     "shelving-subject-foreign", 422),
    ({"scope": "lemma"}, "shelving-subject-foreign", 422),  # another node's statement
    ({"action": "unshelved"}, "shelving-not-standing", 409),
    ({"lifts": PART}, "bad-request", 422),
    ({"node_id": "nope"}, "node-not-found", 404),
])
def test_shelving_refusals_open_nothing(env: Env, change: dict[str, Any], code: str,
                                        status: int) -> None:
    _as(env, "steve")
    _refused(_post(env, "/shelvings", {**SHELVE, **change}), code, status)
    assert env.prs() == []


def test_a_non_steward_cannot_shelve(env: Env) -> None:
    _refused(_post(env, "/shelvings", SHELVE), "session-missing", 401)
    _as(env, "alice")
    _refused(_post(env, "/shelvings", SHELVE), "role-not-permitted", 403)
    assert env.prs() == []


def _signed_shelving(env: Env, node: str, subject: str) -> dict[str, bytes]:
    rec = env.api.graph.signed(m.Shelving, {"schema": "shelving/v1", "subject": subject,
                                            "cause": "by hand", "by": "steve",
                                            "date": "2026-09-21T14:13:20Z"}, "steve")
    path = f"targets/demo/nodes/{node}/shelving/20260921T141320Z-steve.yaml"
    return {path: yaml.safe_dump(rec).encode()}


@pytest.mark.parametrize(("node", "subject", "code"), [
    ("root", "root", "shelving-root"),
    ("lemma", "lemma", "shelving-statement-used"),
    ("other", PART, "shelving-subject-foreign"),
    ("free", "lemma", "shelving-subject-foreign"),
])
def test_step2_refuses_a_hand_opened_shelving_the_service_refuses(
        env: Env, node: str, subject: str, code: str) -> None:
    """Signed by the approval key for a real steward, so only the reach rule refuses it;
    through the queue it is closed unmerged."""
    assert code in _hand_opened(env, _signed_shelving(env, node, subject), "steve")
    [item] = _merge(env)
    assert item.verdict == "fail" and item.merge_sha is None


def test_step2_admits_a_hand_opened_shelving_in_reach(env: Env) -> None:
    assert _hand_opened(env, _signed_shelving(env, "free", "free"), "steve") == []


# --- registrations (D-10 v3.37) ----------------------------------------------------------


REG = {"target_id": "demo", "registry_id": "PALOMAR-2026-09-01-000001 v1",
       "wrapper_commit": "c" * 40, "graph_commit": "d" * 40}


def test_a_registration_is_a_signed_record_list_registrations_reads(env: Env) -> None:
    _as(env, "cora")
    r = _post(env, "/registrations", REG)
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.REGISTRATION)
    [path] = r.json()["paths"]
    assert path == "targets/demo/registrations/2026-09-21-1.yaml"
    rec = _record(env, number)
    assert (rec["registry"], rec["commit"], rec["graph_commit"]) == (
        "palomar", "c" * 40, "d" * 40)
    assert rec["by"] == "cora" and rec["signature"]["signer"] == "cora"
    _refused(_post(env, "/registrations", REG), "record-copy", 409)
    [item] = _merge(env)
    assert item.verdict == "pass", item.notes
    [row] = derive.registrations(_main(env), "demo")
    assert row["registry_id"] == REG["registry_id"] and row["by"] == "cora"


@pytest.mark.parametrize(("who", "change", "code", "status"), [
    ("alice", {}, "role-not-permitted", 403),
    ("steve", {"wrapper_commit": "xyz"}, "invalid-record", 422),
    ("steve", {"target_id": "nope"}, "target-not-found", 404),
])
def test_registration_refusals_open_nothing(env: Env, who: str, change: dict[str, Any],
                                            code: str, status: int) -> None:
    _as(env, who)
    _refused(_post(env, "/registrations", {**REG, **change}), code, status)
    assert env.prs() == []


def test_step2_refuses_an_unsigned_registration(env: Env) -> None:
    rec = {"schema": "registration/v1", "registry": "palomar", "registry_id": "X",
           "graph_commit": "d" * 40, "state": "submitted", "by": "steve",
           "date": "2026-09-21"}
    codes = _hand_opened(env, {"targets/demo/registrations/2026-09-21-1.yaml":
                               yaml.safe_dump(rec).encode()}, "steve")
    assert "role-act-unsigned" in codes


# --- /me ---------------------------------------------------------------------------------


def test_me_lists_roles_and_what_waits(env: Env) -> None:
    _refused(env.client.get("/me"), "session-missing", 401)
    _as(env, "steve")
    body = env.client.get("/me").json()
    assert body["pseudonym"] == "steve" and body["login"] == "steve"
    assert body["roles"] == {"curator": [], "steward": ["demo"]}
    [lit] = body["waiting"]["literature"]
    assert (lit["target"], lit["node"], lit["path"]) == ("demo", "free", PROPOSAL)
    assert lit["since"] == "2026-01-05T00:00:00Z"
    assert [q["node"] for q in body["waiting"]["review_questions"]] == ["quest"]
    assert body["waiting"]["held_proofs"] == []
    _as(env, "alice")  # no role: nothing waits
    body = env.client.get("/me").json()
    assert body["roles"] == {"curator": [], "steward": []}
    assert all(v == [] for v in body["waiting"].values())


def test_me_lists_a_held_proof_to_every_role_holder_but_its_author(env: Env) -> None:
    """A held pull request (its latest attestation on main says held) waits for a
    steward or curator who is not its author (D-4 step 9)."""
    main = env.forge.main_sha()
    pr = env.forge.open_pull_request(
        files={"targets/demo/nodes/free/Proof.lean": b"-- a proof\n"}, title="proof",
        body="", author="bob")
    att = env.api.graph.signed(m.Attestation, _held_attestation(pr.head_sha, main),
                               "gate", kind="gate")
    env.forge.commit_to_main({"attestations/held-1.json": json.dumps(att).encode()},
                             "gate: held")
    with db.transaction(env.api.svc.sessions) as s:
        s.add(db.SubmissionRow(id="s_held", target="demo", node="free", kind="proof",
                               normalized_sha256="0" * 64, pull_request=str(pr.number),
                               pseudonym="bob", state="open", opened_at=1,
                               head_sha=pr.head_sha))
    _as(env, "cora")
    [held] = env.client.get("/me").json()["waiting"]["held_proofs"]
    assert held["submission_id"] == "s_held" and held["pull_request"] == str(pr.number)
    with db.transaction(env.api.svc.sessions) as s:
        row = s.get(db.SubmissionRow, "s_held")
        assert row is not None
        row.pseudonym = "cora"  # the author does not review their own
    assert env.client.get("/me").json()["waiting"]["held_proofs"] == []


def _held_attestation(head: str, base: str) -> dict[str, Any]:
    return {"schema": "attestation/v1", "graph_id": "test-graph", "target": "demo",
            "node": "free", "artifact_kind": "proof", "artifacts": [],
            "toolchain": "leanprover/lean4:v4.22.0", "gate_spec_sha256": "0" * 64,
            "base_commit": base, "head_commit": head, "graph_commit": base,
            "verdict": "held", "steps": [], "timestamp": "2026-09-21T14:13:20Z"}


# --- DCO (D-23 v3.37) ------------------------------------------------------------------


def test_an_out_of_date_dco_refuses_every_write_here_and_no_read(env: Env) -> None:
    tok = _as(env, "steve", dco="1.0")
    assert tok is not None
    with db.transaction(env.api.svc.sessions) as s:  # the bearer identity too
        for row in s.query(db.IdentityRow).all():
            row.dco_version = "1.0"
    writes = [("/literature", LIT, None), ("/literature", LIT, tok),
              ("/literature/confirm", {"literature": PROPOSAL, "action": "confirm"}, None),
              ("/shelvings", SHELVE, None), ("/registrations", REG, None)]
    for path, body, token in writes:
        _refused(_post(env, path, body, token), "dco-not-accepted", 403)
    assert env.prs() == []
    assert env.client.get("/me").status_code == 200
    assert env.client.get("/targets/demo/nodes/free").status_code == 200
