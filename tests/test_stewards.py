"""Stewards and curators (D-32 v3.17/v3.33/v3.34, D-22 v3.33, D-6 v3.17; issue 13).

Step 2 judges every steward act by the panel rule derive counts by, so each refusal here is
fed the record built to pass it and gets its own code: a step-down of another, a sixth
stewardship, a self-join on a target that has a steward, reviewed admission without a
curator, an invitation no motion passed (and one a lone steward opened, which admits its invitee), a forged approval; and a curators.json change by
anyone but the owner. The derivation itself: a step-down ends a stewardship, a steward
lapses after steward_lapse_months with no signed act (dated by the merge log), and a v1
policy reads the defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from network.api.submit.records import dump_yaml, gate_findings
from network.gate.artifacts import Kind
from network.record import derive, panel_roles
from network.record import models as m
from network.record.read.loader import Graph, load_graph
from network.record.unverified import unverified
from tests.graphs import GraphBuilder

T = "demo"
V2 = {"schema": "policy/v2", "owner": "olga"}


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    g = GraphBuilder(tmp_path / "g").base(**V2)
    for tid in (T, "t2", "t3", "t4", "t5", "t6"):
        g.target(tid, steward=None)
        g.node(tid, "root")
    return g


def act(b: GraphBuilder, who: str, action: str = "join", *, target: str = T,
        admitted_by: str | None = "self", signer: str | None = None,
        date: str = "2026-02-01T00:00:00Z", **extra: Any) -> dict[str, Any]:
    """A steward/v4 act signed by the approval key for ``signer`` (the actor by default)."""
    rec: dict[str, Any] = {"schema": "steward/v4", "pseudonym": who, "target": target,
                           "action": action, "date": date, **extra}
    if action == "join":
        rec.update(real_name=f"Real {who}", commitment="Read and write it up.",
                   admitted_by=admitted_by)
    return b.signed(m.StewardAct, rec, signer or who)


def act_path(who: str, ts: str = "20260201T000000Z", target: str = T) -> str:
    return f"targets/{target}/steward-acts/{ts}-{who}.yaml"


def write(b: GraphBuilder, rec: dict[str, Any], path: str) -> str:
    return b.write_yaml(path, rec)


def codes(base: Graph, rec: dict[str, Any], path: str, submitter: str) -> list[str]:
    found = gate_findings(base, {path: dump_yaml(rec)}, submitter, Kind.STEWARD_ACT)
    return [d.code for d in found]


# --- the policy -----------------------------------------------------------------------


def test_policy_v1_reads_the_defaults_and_v2_its_own_numbers(tmp_path: Path) -> None:
    old = GraphBuilder(tmp_path / "v1").base()
    old.target(T, steward=None)
    n = derive.policy_numbers(load_graph(old.root))
    assert (n.owner, n.steward_admission, n.steward_lapse_months, n.steward_cap) == \
        (None, "open", 6, 5)
    assert (n.vote_window_days, n.vote_threshold, n.vote_minimum) == (14, 0.5, 2)
    new = GraphBuilder(tmp_path / "v2").base(**V2, steward_cap=2, vote_minimum=3)
    new.target(T, steward=None, policy={"vote_window_days": 7, "steward_cap": 9})
    g = load_graph(new.root)
    assert isinstance(g.policy, m.PolicyV2)
    assert derive.policy_numbers(g).steward_cap == 2
    tn = derive.policy_numbers(g, T)
    assert (tn.vote_window_days, tn.vote_minimum, tn.steward_cap) == (7, 3, 2)  # cap: graph's


def test_the_repository_graph_is_policy_v2_with_an_owner(repo_root: Path) -> None:
    g = load_graph(repo_root / "graph")
    assert isinstance(g.policy, m.PolicyV2) and g.policy.owner == "operator"
    assert g.policy.steward_admission == "open"


# --- joining ------------------------------------------------------------------------


def test_a_self_admitted_first_steward_makes_the_root_claimable(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    assert derive.claimable(g, T, "root") == (False, "claim-no-steward")
    rec = act(b, "sam")
    assert codes(g, rec, act_path("sam"), "sam") == []
    write(b, rec, act_path("sam"))
    g = load_graph(b.root)
    [s] = derive.panel_of(g, T)
    assert (s.pseudonym, s.admitted_by, s.self_admitted) == ("sam", "self", True)
    assert derive.stewards_of(g, T) == ["sam"]
    assert derive.claimable(g, T, "root") == (True, None)


def test_a_forged_approval_signature_is_refused_and_counts_for_nothing(
        b: GraphBuilder) -> None:
    rec = act(b, "sam")
    forged = {**rec, "signature": {**rec["signature"], "value": "A" * 86 + "=="}}
    assert codes(load_graph(b.root), forged, act_path("sam"), "sam") == \
        ["role-signature-invalid"]
    tampered = {**rec, "real_name": "Someone Else"}  # the signature no longer covers it
    assert codes(load_graph(b.root), tampered, act_path("sam"), "sam") == \
        ["role-signature-invalid"]
    unsigned = {k: v for k, v in rec.items() if k != "signature"}
    assert codes(load_graph(b.root), unsigned, act_path("sam"), "sam") == \
        ["role-act-unsigned"]
    write(b, forged, act_path("sam"))
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == [] and act_path("sam") in unverified(g)
    assert derive.claimable(g, T, "root") == (False, "claim-no-steward")


def test_a_join_filed_or_signed_for_someone_else_is_not_their_own(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    # mallory files sam's join, signed for sam: a replayed or planted act
    assert codes(g, act(b, "sam"), act_path("mallory"), "mallory") == ["steward-act-not-own"]
    # mallory files a join naming sam, signed for mallory
    assert codes(g, act(b, "sam", signer="mallory"), act_path("mallory"), "mallory") == \
        ["steward-act-not-own"]


def test_a_second_self_join_needs_an_invitation(b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    g = load_graph(b.root)
    assert codes(g, act(b, "tess"), act_path("tess"), "tess") == ["steward-invitation-required"]
    assert codes(g, act(b, "sam"), act_path("sam", "20260301T000000Z"), "sam") == \
        ["steward-already-in-force"]
    # written anyway (a hand-pushed commit): derive does not count it
    write(b, act(b, "tess"), act_path("tess"))
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == ["sam"] and act_path("tess") in unverified(g)


def test_a_join_by_an_invitation_that_is_no_motion_is_refused(
        b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    g = load_graph(b.root)
    motion = f"targets/{T}/motions/20260110T000000Z-sam.yaml"
    rec = act(b, "tess", admitted_by="panel", invitation=motion)
    assert codes(g, rec, act_path("tess"), "tess") == ["steward-invitation-unknown"]
    # the judge is the panel's motion derivation: one that says "passed" admits her
    state = derive.panel_state(g).state
    parsed = m.StewardAct.model_validate(rec)
    cur = set(derive.curators_of(g, T))
    assert panel_roles.act_finding(state, g, cur, parsed, "2026-02-01",
                                   lambda *_: True) is None
    assert panel_roles.act_finding(state, g, cur, parsed, "2026-02-01")[0] == \
        "steward-invitation-unknown"


def _invite(b: GraphBuilder, by: str, invitee: str, ts: str = "20260110T000000Z") -> str:
    """A signed invite motion of ``by`` naming ``invitee``; its graph path."""
    path = f"targets/{T}/panel/motions/{ts}-{by}.yaml"
    write(b, b.signed(m.Motion, {"schema": "motion/v1", "target": T, "kind": "invite",
                                 "text": f"Invite {invitee}.", "invitee": invitee, "by": by,
                                 "date": "2026-01-10T00:00:00Z"}, by), path)
    return path


def test_a_lone_stewards_invitation_admits_the_invitee_on_acceptance(
        b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    motion = _invite(b, "sam", "tess")
    g = load_graph(b.root)
    rec = act(b, "tess", admitted_by="panel", invitation=motion)
    assert codes(g, rec, act_path("tess"), "tess") == []
    # another invitee may not ride on tess's invitation
    assert codes(g, act(b, "ursa", admitted_by="panel", invitation=motion),
                 act_path("ursa"), "ursa") == ["steward-invitation-unknown"]
    write(b, rec, act_path("tess"))
    assert derive.stewards_of(load_graph(b.root), T) == ["sam", "tess"]


def test_an_invitation_opened_by_a_non_member_admits_no_one(b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    motion = _invite(b, "tess", "tess")  # tess invites herself: no panel member opened it
    g = load_graph(b.root)
    assert codes(g, act(b, "tess", admitted_by="panel", invitation=motion),
                 act_path("tess"), "tess") == ["steward-invitation-unknown"]


def test_a_curator_adds_a_steward_directly(b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    g = load_graph(b.root)
    rec = act(b, "tess", admitted_by="curator", signer="curator",
              date="2026-02-02T00:00:00Z")
    path = act_path("curator", "20260202T000000Z")
    assert codes(g, rec, path, "curator") == []
    # admitted_by names someone who curates nothing
    fake = act(b, "tess", admitted_by="mallory", signer="mallory")
    assert codes(g, fake, act_path("mallory"), "mallory") == ["steward-admitted-by-not-curator"]
    write(b, rec, path)
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == ["sam", "tess"]
    assert [s.self_admitted for s in derive.panel_of(g, T)] == [True, False]


def test_reviewed_admission_needs_a_curator(tmp_path: Path) -> None:
    b = GraphBuilder(tmp_path / "g").base(**V2, steward_admission="reviewed")
    b.target(T, steward=None)
    b.node(T, "root")
    g = load_graph(b.root)
    assert codes(g, act(b, "sam"), act_path("sam"), "sam") == ["steward-admission-reviewed"]
    rec = act(b, "sam", admitted_by="curator", signer="curator")
    assert codes(g, rec, act_path("curator"), "curator") == []
    write(b, act(b, "sam"), act_path("sam"))  # the self-admission, pushed by hand
    assert derive.stewards_of(load_graph(b.root), T) == []
    write(b, rec, act_path("curator"))
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == ["sam"] and not derive.panel_of(g, T)[0].self_admitted
    # a target.yaml may set it for one target too (ruling 13)
    b.target("t2", steward=None, policy={"steward_admission": "reviewed"})
    b.target("t3", steward=None)
    g2 = load_graph(b.root)
    assert codes(g2, act(b, "sam", target="t2"), act_path("sam", target="t2"), "sam") == \
        ["steward-admission-reviewed"]
    b.policy(**V2)  # the graph open again, t2 still reviewed
    g2 = load_graph(b.root)
    assert codes(g2, act(b, "sam", target="t2"), act_path("sam", target="t2"), "sam") == \
        ["steward-admission-reviewed"]
    assert codes(g2, act(b, "sam", target="t3"), act_path("sam", target="t3"), "sam") == []


def test_two_steward_acts_go_in_two_pull_requests(b: GraphBuilder) -> None:
    for i, tid in enumerate((T, "t2", "t3", "t4")):
        write(b, act(b, "sam", target=tid), act_path("sam", f"2026010{i + 1}T000000Z", tid))
    g = load_graph(b.root)
    # two joins at once would reach six stewardships though each alone sees four
    files = {act_path("sam", target=tid): dump_yaml(act(b, "sam", target=tid))
             for tid in ("t5", "t6")}
    found = [d.code for d in gate_findings(g, files, "sam")]
    assert found == ["steward-acts-batched"]
    # two first stewards of one target in one merge
    files = {act_path(who, target="t5"): dump_yaml(act(b, who, target="t5"))
             for who in ("tess", "ugo")}
    assert [d.code for d in gate_findings(g, files, "tess")][-1] == "steward-acts-batched"


def test_a_sixth_stewardship_is_refused(b: GraphBuilder) -> None:
    for i, tid in enumerate((T, "t2", "t3", "t4", "t5")):
        write(b, act(b, "sam", target=tid, date=f"2026-02-0{i + 1}T00:00:00Z"),
              act_path("sam", f"2026020{i + 1}T000000Z", tid))
    g = load_graph(b.root)
    assert all(derive.stewards_of(g, t) == ["sam"] for t in (T, "t2", "t3", "t4", "t5"))
    sixth = act(b, "sam", target="t6", date="2026-02-07T00:00:00Z")
    path = act_path("sam", "20260207T000000Z", "t6")
    assert codes(g, sixth, path, "sam") == ["steward-cap-reached"]
    write(b, sixth, path)
    assert derive.stewards_of(load_graph(b.root), "t6") == []
    # stepping down from one frees a place
    down = act(b, "sam", "step-down", date="2026-02-08T00:00:00Z")
    write(b, down, act_path("sam", "20260208T000000Z"))
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == []
    assert codes(g, act(b, "sam", target="t6", date="2026-02-09T00:00:00Z"),
                 act_path("sam", "20260209T000000Z", "t6"), "sam") == []
    assert derive.steward_targets(g, "sam") == ["t2", "t3", "t4", "t5"]


# --- stepping down and lapsing -------------------------------------------------------


def test_a_step_down_is_the_stewards_own_act(b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    g = load_graph(b.root)
    down = act(b, "sam", "step-down", date="2026-03-01T00:00:00Z")
    path = act_path("sam", "20260301T000000Z")
    # mallory (no steward) files sam's step-down, signed for herself
    other = act(b, "sam", "step-down", signer="mallory", date="2026-03-01T00:00:00Z")
    assert codes(g, other, act_path("mallory", "20260301T000000Z"), "mallory") == \
        ["steward-act-not-own"]
    # a step-down of a stewardship that is not in force
    assert codes(g, act(b, "mallory", "step-down"), act_path("mallory"), "mallory") == \
        ["steward-not-in-force"]
    assert codes(g, down, path, "sam") == []
    write(b, down, path)
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == []
    assert derive.claimable(g, T, "root") == (False, "claim-no-steward")
    # and rejoins by the same route (the target has no steward again)
    write(b, act(b, "sam", date="2026-04-01T00:00:00Z"), act_path("sam", "20260401T000000Z"))
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]


def test_a_step_down_ends_a_v3_record_too(b: GraphBuilder) -> None:
    b.steward(T, "steve", since="2026-01-01")  # steward/v3, signed for steve
    assert derive.stewards_of(load_graph(b.root), T) == ["steve"]
    write(b, act(b, "steve", "step-down"), act_path("steve"))
    assert derive.stewards_of(load_graph(b.root), T) == []


def test_removal_needs_two_curators_and_a_strangers_withdrawal_counts_for_nothing(
        b: GraphBuilder) -> None:
    # D-22: "removal requires two role-holders and published reasoning"
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": [T]}])
    join = write(b, act(b, "sam"), act_path("sam"))
    b.withdrawal(T, None, "20260301T000000Z", "mallory", join)
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]
    b.withdrawal(T, None, "20260302T000000Z", "curator", join)
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]  # one role-holder: stands
    b.withdrawal(T, None, "20260303T000000Z", "curator", join)  # the same one again
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]
    b.withdrawal(T, None, "20260304T000000Z", "cora", join)
    assert derive.stewards_of(load_graph(b.root), T) == []


def test_a_steward_lapses_after_the_policys_months_without_a_signed_act(
        b: GraphBuilder) -> None:
    path = write(b, act(b, "sam"), act_path("sam"))
    b.merge([path], date="2026-02-01T00:00:00Z")
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]
    other = b.proof("t2", "root")
    b.merge([other], date="2026-07-31T00:00:00Z")  # the clock moves by the merge log
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]
    later = b.proof("t3", "root")
    b.merge([later], date="2026-08-01T00:00:00Z")  # six months after the join merged
    g = load_graph(b.root)
    assert derive.stewards_of(g, T) == []
    assert derive.claimable(g, T, "root") == (False, "claim-no-steward")
    assert not derive.holds_role(g, T, "sam", "2026-08-02", curators=False)
    assert derive.holds_role(g, T, "sam", "2026-03-01", curators=False)
    # a lapsed steward may rejoin by the same route
    assert codes(g, act(b, "sam", date="2026-08-02T00:00:00Z"),
                 act_path("sam", "20260802T000000Z"), "sam") == []
    # a join the merge log does not date (a seed's record) starts no lapse clock
    write(b, act(b, "tess", target="t4"), act_path("tess", target="t4"))
    assert derive.stewards_of(load_graph(b.root), "t4") == ["tess"]


def test_a_signed_act_on_the_target_keeps_a_steward_on_the_panel(b: GraphBuilder) -> None:
    path = write(b, act(b, "sam"), act_path("sam"))
    b.merge([path], date="2026-02-01T00:00:00Z")
    shelf = b.shelving(T, "root", "20260601T000000Z", "sam")
    b.merge([shelf], date="2026-06-01T00:00:00Z")
    later = b.proof("t3", "root")
    b.merge([later], date="2026-08-01T00:00:00Z")
    assert derive.stewards_of(load_graph(b.root), T) == ["sam"]


def test_add_months_keeps_to_the_calendar() -> None:
    assert panel_roles.add_months("2026-08-31", 6) == "2027-02-28T00:00:00Z"
    assert panel_roles.add_months("2026-02-01T10:00:00Z", 6) == "2026-08-01T10:00:00Z"
    assert panel_roles.add_months("2026-12-15", 1) == "2027-01-15T00:00:00Z"


# --- curators.json: the owner's alone (D-22 v3.33) ------------------------------------


def curators_codes(base: Graph, rec: dict[str, Any], submitter: str) -> list[str]:
    import json

    data = (json.dumps(rec, indent=2) + "\n").encode()
    return [d.code for d in gate_findings(base, {"curators.json": data}, submitter,
                                          Kind.CURATORS)]


def curators_rec(b: GraphBuilder, names: list[str], signer: str) -> dict[str, Any]:
    rec = {"schema": "curators/v2", "date": "2026-02-01T00:00:00Z",
           "curators": [{"pseudonym": n, "targets": ["*"]} for n in names]}
    return b.signed(m.CuratorsV2, rec, signer)


def test_a_steward_adding_themselves_as_curator_is_refused(b: GraphBuilder) -> None:
    write(b, act(b, "sam"), act_path("sam"))
    g = load_graph(b.root)
    mine = curators_rec(b, ["curator", "sam"], "sam")
    assert curators_codes(g, mine, "sam") == ["curators-not-owner-signed"]
    # the owner's signature carried by someone else's pull request
    owners = curators_rec(b, ["curator", "sam"], "olga")
    assert curators_codes(g, owners, "sam") == ["curators-not-owner-signed"]
    # a curators/v1 file carries no signature at all
    v1 = {"schema": "curators/v1", "curators": [{"pseudonym": "sam", "targets": ["*"]}]}
    assert curators_codes(g, v1, "olga") == ["curators-not-owner-signed"]
    forged = {**owners, "signature": {**owners["signature"], "value": "A" * 86 + "=="}}
    assert curators_codes(g, forged, "olga")[0] == "role-signature-invalid"
    assert curators_codes(g, owners, "olga") == []  # the owner's own change


def test_without_an_owner_no_curators_change_passes(tmp_path: Path) -> None:
    b = GraphBuilder(tmp_path / "g").base()  # policy/v1: no owner bound
    b.target(T, steward=None)
    rec = curators_rec(b, ["curator", "x"], "curator")
    assert curators_codes(load_graph(b.root), rec, "curator") == ["curators-not-owner-signed"]


def test_the_steward_act_file_is_plain_yaml(b: GraphBuilder) -> None:
    path = write(b, act(b, "sam"), act_path("sam"))
    doc = yaml.safe_load((b.root / path).read_text("utf-8"))
    assert doc["schema"] == "steward/v4" and doc["signature"]["kind"] == "approval"


# --- the site (D-32 v3.33: under open admission it says so on each self-admitted steward) --


@pytest.mark.skipif(__import__("shutil").which("dot") is None,
                    reason="the site draws with Graphviz")
def test_the_site_marks_self_admitted_stewards(b: GraphBuilder, tmp_path: Path) -> None:
    from tests.site_support import build

    write(b, act(b, "sam"), act_path("sam"))
    write(b, act(b, "tess", target="t2", admitted_by="curator", signer="curator"),
          act_path("curator", target="t2"))
    build(b.root, tmp_path / "site")
    page = (tmp_path / "site" / "targets" / T / "index.html").read_text("utf-8")
    assert "Real sam (sam) since 2026-02-01" in page and "self-admitted" in page
    other = (tmp_path / "site" / "targets" / "t2" / "index.html").read_text("utf-8")
    assert "Real tess (tess)" in other and "self-admitted" not in other
    problems = (tmp_path / "site" / "problems" / "index.html").read_text("utf-8")
    assert problems.count("self-admitted</span>") == 1


# --- through the merge queue (LocalForge) --------------------------------------------


def _forge(b: GraphBuilder, tmp: Path) -> Any:
    from sqlalchemy.orm import sessionmaker

    from network.api.db import Base, make_engine
    from network.forge.local import LocalForge
    from tests.graphs import git_commit

    git_commit(b.root, "graph")
    LocalForge.seed(tmp / "forge.git", b.root, when=1_790_000_000)
    engine = make_engine(f"sqlite:///{tmp / 'state.db'}")
    Base.metadata.create_all(engine)
    return LocalForge(tmp / "forge.git", sessionmaker(engine), clock=lambda: 1_790_000_000)


def _queue(forge: Any) -> list[Any]:
    from network.gate.queue.queue import process_queue
    from network.gate.sandbox.sandbox import Sandbox
    from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID
    from tests.standin import RecordedToolchain

    return process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                         gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _open(forge: Any, files: dict[str, bytes], author: str) -> int:
    head = forge.commit_files(forge.main_sha(), files, "a role record",
                              author=(author, f"{author}@x.invalid"))
    return int(forge.open_from_commit(head, title="role record", body="By hand.",
                                      author=author).number)


def _codes(item: Any) -> set[str]:
    return {d.code for run in item.outcome.runs for st in run.steps for d in st.diagnostics}


def test_the_queue_merges_the_owners_curators_change_and_refuses_a_stewards(
        b: GraphBuilder, tmp_path: Path) -> None:
    import json

    forge = _forge(b, tmp_path)
    data = {n: (json.dumps(rec, indent=2) + "\n").encode() for n, rec in (
        ("sam", curators_rec(b, ["curator", "sam"], "sam")),
        ("olga", curators_rec(b, ["curator", "quinn"], "olga")))}
    mine = _open(forge, {"curators.json": data["sam"]}, "sam")
    [item] = _queue(forge)
    assert item.verdict == "fail" and forge.get(mine).state == "closed", item.notes
    g = load_graph(forge.path, forge.main_sha())
    assert "sam" not in derive.curators_of(g, T)
    assert "curators-not-owner-signed" in _codes(item)
    owners = _open(forge, {"curators.json": data["olga"]}, "olga")
    [item] = _queue(forge)
    assert item.verdict == "pass" and forge.get(owners).state == "merged", item.notes
    g = load_graph(forge.path, forge.main_sha())
    assert isinstance(g.curators, m.CuratorsV2) and "quinn" in derive.curators_of(g, T)


def test_the_queue_merges_a_self_admission_and_refuses_a_second_one(
        b: GraphBuilder, tmp_path: Path) -> None:
    forge = _forge(b, tmp_path)
    first = _open(forge, {act_path("sam"): dump_yaml(act(b, "sam"))}, "sam")
    [item] = _queue(forge)
    assert item.verdict == "pass" and forge.get(first).state == "merged", item.notes
    g = load_graph(forge.path, forge.main_sha())
    assert derive.stewards_of(g, T) == ["sam"] and derive.claimable(g, T, "root") == (True, None)
    second = _open(forge, {act_path("tess"): dump_yaml(act(b, "tess"))}, "tess")
    [item] = _queue(forge)
    assert item.verdict == "fail" and forge.get(second).state == "closed", item.notes
    assert "steward-invitation-required" in _codes(item)
    assert derive.stewards_of(load_graph(forge.path, forge.main_sha()), T) == ["sam"]
