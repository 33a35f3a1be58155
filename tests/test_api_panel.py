"""POST /approvals, /motions, /votes and /writeups (D-3 v3.31/v3.33, D-32 v3.34, D-35
v3.34 "the panel (no tool)"): person routes over a LocalForge, each record written from the
session's identity, signed with the approval key, refused before opening when the gate
would refuse it; and one end-to-end run through the merge queue in which a motion opens,
is voted on, its window closes on a later merge and it passes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from network.api.people import web_session
from network.api.service import Caller, authenticate
from network.gate.artifacts import Kind
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from network.record import panel
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

GLOSS = "targets/demo/nodes/root/gloss/20260103T000000Z-carol.yaml"
STEWARDS = ("steve", "sam", "sara")


def _build(root: Path) -> GraphBuilder:
    """demo with stewards steve, sam and sara (each bound to their GitHub login) and a root
    carrying carol's gloss."""
    b = GraphBuilder(root)
    b.base()
    b.target("demo")
    b.steward("demo", "sam")
    b.steward("demo", "sara")
    b.node("demo", "root")
    b.gloss("demo", "root", "20260103T000000Z", "carol", text="$$\\top$$ It is true.")
    for who in STEWARDS:
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


def as_person(env: Env, pseudonym: str) -> None:
    """Sign ``pseudonym`` in (the person dependency overridden, as the session helper's
    cookie will set it)."""
    tok = env.api.token(pseudonym)["token"]
    who = authenticate(env.api.svc, tok)
    env.api.app.dependency_overrides[web_session.person] = lambda: web_session.Person(
        caller=Caller(token=None, address="t", who=who), login=pseudonym)


def _queue(env: Env) -> list[Q.QueueItem]:
    return Q.process_queue(env.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _refused(r: Any, code: str, status: int) -> None:
    assert r.status_code == status and r.json()["code"] == code, r.text


def test_person_routes_need_a_session(env: Env) -> None:
    for path, body in (("/approvals", {"words": GLOSS, "sections": [0]}),
                       ("/motions", {"target_id": "demo", "kind": "threshold", "text": "t"}),
                       ("/votes", {"motion": "targets/demo/panel/motions/x.yaml",
                                   "vote": "yes"}),
                       ("/writeups", {"target_id": "demo", "stage": "drafted"})):
        _refused(env.client.post(path, json=body), "session-missing", 401)
    assert env.prs() == []


def test_an_approval_is_signed_from_the_session_and_the_gate_accepts_it(env: Env) -> None:
    as_person(env, "steve")
    r = env.client.post("/approvals", json={"words": GLOSS, "sections": [0]})
    assert r.status_code == 201, r.text
    body = r.json()
    [path] = body["paths"]
    assert path.startswith("targets/demo/nodes/root/approvals/") and path.endswith("-steve.yaml")
    env.step2_ok(int(body["pull_request"]), Kind.APPROVAL)
    rec = yaml.safe_load(env.files(int(body["pull_request"]))[path])
    assert rec["by"] == "steve" and rec["signature"]["signer"] == "steve"
    assert rec["sections"] == [0] and rec["schema"] == "approval/v1"
    _refused(env.client.post("/approvals", json={"words": GLOSS, "sections": [0]}),
             "record-copy", 409)
    _refused(env.client.post("/approvals", json={"words": GLOSS, "sections": [3]}),
             "approval-words-invalid", 422)
    _refused(env.client.post("/approvals", json={"words": "targets/demo/nodes/root/x",
                                                 "sections": [0]}),
             "approval-words-invalid", 422)
    as_person(env, "mallory")
    _refused(env.client.post("/approvals", json={"words": GLOSS, "sections": [0]}),
             "role-not-permitted", 403)
    assert len(env.prs()) == 1


def test_a_body_field_never_names_the_actor(env: Env) -> None:
    as_person(env, "steve")
    r = env.client.post("/motions", json={"target_id": "demo", "kind": "threshold",
                                          "text": "t", "by": "sam"})
    assert r.status_code == 422, r.text
    assert env.prs() == []


def test_motion_and_vote_refusals_before_anything_opens(env: Env) -> None:
    as_person(env, "mallory")
    _refused(env.client.post("/motions", json={"target_id": "demo", "kind": "invite",
                                               "invitee": "eve", "text": "Invite eve"}),
             "motion-not-member", 403)
    as_person(env, "steve")
    _refused(env.client.post("/motions", json={"target_id": "demo", "kind": "invite",
                                               "text": "Invite nobody"}),
             "motion-subject-invalid", 422)
    _refused(env.client.post("/votes", json={
        "motion": "targets/demo/panel/motions/20260101T000000Z-steve.yaml", "vote": "yes"}),
        "vote-motion-unknown", 422)
    _refused(env.client.post("/votes", json={"motion": "elsewhere", "vote": "yes"}),
             "vote-motion-unknown", 422)
    assert env.prs() == []


def test_a_motion_opens_is_voted_on_and_passes_when_its_window_closes(env: Env) -> None:
    """The LocalForge end to end: every act a pull request the gate merges; the window
    closes on a later merge record's date (ruling 2), not on any clock."""
    as_person(env, "steve")
    r = env.client.post("/motions", json={"target_id": "demo", "kind": "invite",
                                          "invitee": "eve", "text": "Invite eve, an expert."})
    assert r.status_code == 201, r.text
    [motion] = r.json()["paths"]
    [item] = _queue(env)
    assert item.verdict == "pass", item
    for who, vote in (("steve", "yes"), ("sam", "yes")):
        env.api.clock.advance(3600)
        as_person(env, who)
        r = env.client.post("/votes", json={"motion": motion, "vote": vote})
        assert r.status_code == 201, r.text
        if who == "sam":  # a second vote while the first is open
            _refused(env.client.post("/votes", json={"motion": motion, "vote": "no"}),
                     "vote-duplicate", 409)
        [item] = _queue(env)
        assert item.verdict == "pass", item
    _refused(env.client.post("/votes", json={"motion": motion, "vote": "no"}),
             "vote-duplicate", 409)  # and once it merged, the gate's own rule
    main = load_graph(env.forge.path, "refs/heads/main")
    st = panel.motion_state(main, "demo", motion)
    assert st is not None and st["state"] == "open" and st["yes"] == 2
    assert [i["path"] for i in panel.open_motions(main, "sara")] == [motion]
    # fifteen days later another act merges: the window has closed on the merge log
    env.api.clock.advance(15 * 86400)
    as_person(env, "alice")
    r = env.client.post("/writeups", json={"target_id": "demo", "stage": "drafted",
                                           "title": "On demo"})
    assert r.status_code == 201, r.text
    [item] = _queue(env)
    assert item.verdict == "pass", item
    main = load_graph(env.forge.path, "refs/heads/main")
    assert panel.motion_passed(main, "demo", motion)
    assert panel.passed_invitation(main, "demo", "eve") == motion
    assert panel.open_motions(main, "sara") == []
    index = json.loads(main.source.read("targets/index.json"))
    row = next(t for t in index["targets"] if t["id"] == "demo")
    assert [(x["path"], x["state"]) for x in row["motions"]] == [(motion, "passed")]
    assert [w["stage"] for w in row["writeups"]] == ["drafted"]
    as_person(env, "sara")
    _refused(env.client.post("/votes", json={"motion": motion, "vote": "yes"}),
             "vote-window-closed", 409)


def test_a_merged_approval_verifies_the_section_and_credits_the_author(env: Env) -> None:
    as_person(env, "steve")
    r = env.client.post("/approvals", json={"words": GLOSS, "sections": [0]})
    assert r.status_code == 201, r.text
    [item] = _queue(env)
    assert item.verdict == "pass", item
    main = load_graph(env.forge.path, "refs/heads/main")
    lines = [ln.record for ln in main.ledger if isinstance(ln.record, m.LedgerLine)]
    assert [(ln.line, ln.identity, ln.artifact) for ln in lines
            if ln.line == "writeup"] == [("writeup", "carol", GLOSS)]  # never the signer
    node = env.client.get("/targets/demo/nodes/root?include=gloss").json()
    [gloss] = node["gloss"]
    assert gloss["section_states"] == ["verified"]
    assert [a["by"] for a in gloss["section_approvals"]] == ["steve"]
