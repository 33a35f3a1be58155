"""The panel and words approvals, derived from small built graphs (D-32 v3.34, D-3
v3.31/v3.33, ruling 11), and gate step 2's panel rules, each refusal with its own code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from network.api.submit.records import dump_yaml, gate_findings
from network.gate.postmerge.postmerge import ledger_lines
from network.record import approvals, panel
from network.record import models as m
from network.record.products import products
from network.record.read.loader import Graph, load_graph
from network.record.unverified import unverified
from network.record.validate import validate_graph
from network.record.words import words_chains
from tests.graphs import GraphBuilder, _ts_date

T = "demo"
MOT = f"targets/{T}/panel/motions"
VOT = f"targets/{T}/panel/votes"
WUP = f"targets/{T}/writeups"


def motion(b: GraphBuilder, ts: str, who: str, kind: str = "invite", *,
           invitee: str | None = "eve", subject: str | None = None, signed: bool = True,
           write: bool = True) -> tuple[str, dict[str, Any]]:
    rec: dict[str, Any] = {"schema": "motion/v1", "target": T, "kind": kind,
                           "text": f"{kind} by {who}", "by": who, "date": _ts_date(ts)}
    if kind == "invite" and invitee:
        rec["invitee"] = invitee
    if subject:
        rec["subject"] = subject
    if signed:
        rec = b.signed(m.Motion, rec, who)
    path = f"{MOT}/{ts}-{who}.yaml"
    if write:
        b.write_yaml(path, rec)
    return path, rec


def vote(b: GraphBuilder, ts: str, who: str, on: str, v: str = "yes", *,
         signed: bool = True, write: bool = True) -> tuple[str, dict[str, Any]]:
    rec: dict[str, Any] = {"schema": "vote/v1", "motion": on, "vote": v, "by": who,
                           "date": _ts_date(ts)}
    if signed:
        rec = b.signed(m.Vote, rec, who)
    path = f"{VOT}/{ts}-{who}.yaml"
    if write:
        b.write_yaml(path, rec)
    return path, rec


def writeup(b: GraphBuilder, ts: str, who: str, event: str, of: str | None = None,
            write: bool = True, **extra: Any) -> tuple[str, dict[str, Any]]:
    rec: dict[str, Any] = {"schema": "writeup/v2", "target": T, "event": event, "by": who,
                           "date": _ts_date(ts), **extra}
    if of:
        rec["writeup"] = of
    rec = b.signed(m.Writeup, rec, who)
    path = f"{WUP}/{ts}-{who}.yaml"
    if write:
        b.write_yaml(path, rec)
    return path, rec


def approval(b: GraphBuilder, ts: str, who: str, words: str, sections: list[int], *,
             sha: str | None = None, signed: bool = True,
             write: bool = True) -> tuple[str, dict[str, Any]]:
    node = words.split("/")[3]
    rec: dict[str, Any] = {"schema": "approval/v1", "words": words,
                           "words_sha256": sha or b.sha(words), "sections": sections,
                           "by": who, "date": _ts_date(ts)}
    if signed:
        rec = b.signed(m.Approval, rec, who)
    path = f"targets/{T}/nodes/{node}/approvals/{ts}-{who}.yaml"
    if write:
        b.write_yaml(path, rec)
    return path, rec


def merged(b: GraphBuilder, path: str, date: str, kind: str) -> None:
    b.merge([path], date=date, target=T, node=path.split("/")[3] if "/nodes/" in path
            else "root", artifact_kind=kind)


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    """demo with stewards steve, sam and sara (since 2026-01-01), curator ``curator``."""
    g = GraphBuilder(tmp_path / "g").base()
    g.target(T)
    g.steward(T, "sam")
    g.steward(T, "sara")
    g.node(T, "root")
    return g


def load(b: GraphBuilder) -> Graph:
    return load_graph(b.root)


# --- motions -----------------------------------------------------------------------------


def test_a_motion_passes_when_its_window_closes_with_a_majority(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    for who, ts in (("steve", "20260202T000000Z"), ("sam", "20260203T000000Z")):
        vp, _ = vote(b, ts, who, mp)
        merged(b, vp, _ts_date(ts), "vote")
    st = panel.motion_state(load(b), T, mp)
    assert st is not None and st["state"] == "open" and st["yes"] == 2
    assert st["closes"] == "2026-02-15T00:00:00Z" and st["voters"] == ["sam", "sara", "steve"]
    assert not panel.motion_passed(load(b), T, mp)
    b.merge_record(["targets/demo/nodes/root/Statement.lean"], "2026-02-15T00:00:00Z")
    g = load(b)
    assert panel.motion_passed(g, T, mp)
    assert panel.passed_invitation(g, T, "eve") == mp
    assert panel.passed_invitation(g, T, "bob") is None
    assert validate_graph(b.root) == []  # the panel's files have their place in the record


def test_a_targets_own_policy_sets_the_window(tmp_path: Path) -> None:
    g = GraphBuilder(tmp_path / "g").base()
    g.target(T, policy={"vote_window_days": 3})
    g.steward(T, "sam")
    g.node(T, "root")
    mp, _ = motion(g, "20260201T000000Z", "steve")
    merged(g, mp, "2026-02-01T00:00:00Z", "motion")
    for who, ts in (("steve", "20260202T000000Z"), ("sam", "20260203T000000Z")):
        vp, _ = vote(g, ts, who, mp)
        merged(g, vp, _ts_date(ts), "vote")
    g.merge_record([mp], "2026-02-04T00:00:00Z")
    st = panel.motion_state(load(g), T, mp)
    assert st is not None and st["closes"] == "2026-02-04T00:00:00Z" and st["state"] == "passed"


def test_three_member_panel_needs_vote_minimum_votes(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    vp, _ = vote(b, "20260202T000000Z", "sam", mp)
    merged(b, vp, "2026-02-02T00:00:00Z", "vote")
    b.merge_record([mp], "2026-03-01T00:00:00Z")
    st = panel.motion_state(load(b), T, mp)
    assert st is not None and st["state"] == "failed" and st["yes"] == 1  # 1 < minimum 2


def test_a_tie_is_not_a_majority_and_votes_after_the_window_do_not_count(
        b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    for who, v, ts in (("steve", "yes", "20260202T000000Z"), ("sam", "no", "20260203T000000Z"),
                       ("sara", "yes", "20260220T000000Z")):
        vp, _ = vote(b, ts, who, mp, v)
        merged(b, vp, _ts_date(ts), "vote")
    st = panel.motion_state(load(b), T, mp)
    assert st is not None and st["state"] == "failed" and (st["yes"], st["no"]) == (1, 1)
    assert [v["counted"] for v in st["votes"]] == [True, True, False]


def test_one_vote_per_member_and_unsigned_votes_do_not_count(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    for who, v, ts, signed in (("sam", "no", "20260202T000000Z", True),
                               ("sam", "yes", "20260203T000000Z", True),
                               ("sara", "yes", "20260204T000000Z", False),
                               ("steve", "yes", "20260205T000000Z", True)):
        vp, _ = vote(b, ts, who, mp, v, signed=signed)
        merged(b, vp, _ts_date(ts), "vote")
    b.merge_record([mp], "2026-03-01T00:00:00Z")
    g = load(b)
    st = panel.motion_state(g, T, mp)
    assert st is not None and (st["yes"], st["no"]) == (1, 1) and st["state"] == "failed"
    assert [v["counted"] for v in st["votes"]] == [True, False, False, True]
    unsigned = st["votes"][2]["path"]
    assert unsigned in unverified(g) and mp not in unverified(g)


def test_the_panel_is_counted_as_it_stood_when_the_motion_opened(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    b.steward(T, "late", since="2026-02-05")
    vp, _ = vote(b, "20260206T000000Z", "late", mp)
    merged(b, vp, "2026-02-06T00:00:00Z", "vote")
    st = panel.motion_state(load(b), T, mp)
    assert st is not None and "late" not in st["voters"]
    assert st["votes"][0]["counted"] is False


def test_a_lone_stewards_motion_passes_on_their_own_act(tmp_path: Path) -> None:
    g = GraphBuilder(tmp_path / "g").base()
    g.target(T)
    g.node(T, "root")
    mp, _ = motion(g, "20260201T000000Z", "steve", invitee="eve")
    merged(g, mp, "2026-02-01T00:00:00Z", "motion")
    graph = load(g)
    st = panel.motion_state(graph, T, mp)
    assert st is not None and st["state"] == "passed" and st["decided"] == st["opened"]
    assert panel.passed_invitation(graph, T, "eve") == mp
    # a curator's motion on the same one-steward target passes on the steward's yes
    cp, _ = motion(g, "20260202T000000Z", "curator", kind="threshold", invitee=None)
    merged(g, cp, "2026-02-02T00:00:00Z", "motion")
    assert panel.motion_state(load(g), T, cp)["state"] == "open"  # type: ignore[index]
    vp, _ = vote(g, "20260203T000000Z", "steve", cp)
    merged(g, vp, "2026-02-03T00:00:00Z", "vote")
    assert panel.motion_passed(load(g), T, cp)


def test_credit_holders_votes_do_not_count_on_significance(b: GraphBuilder) -> None:
    proof = b.proof(T, "root")
    b.merge([proof], date="2026-01-10")
    b.ledger_line(1, 1, "proof", "steve", T, proof, node="root")
    b.ledger_line(1, 2, "proof", "sam", T, proof, node="root")
    mp, _ = motion(b, "20260201T000000Z", "steve", kind="significance", invitee=None)
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    for who, v, ts in (("steve", "yes", "20260202T000000Z"), ("sam", "yes", "20260203T000000Z"),
                       ("sara", "no", "20260204T000000Z")):
        vp, _ = vote(b, ts, who, mp, v)
        merged(b, vp, _ts_date(ts), "vote")
    b.merge_record([mp], "2026-03-01T00:00:00Z")
    st = panel.motion_state(load(b), T, mp)
    assert st is not None and st["voters"] == ["sara"] and st["state"] == "failed"
    # the same votes on an invite count, and pass it
    ip, _ = motion(b, "20260301T000000Z", "steve")
    merged(b, ip, "2026-03-01T00:00:01Z", "motion")
    for who, v, ts in (("steve", "yes", "20260302T000000Z"), ("sam", "yes", "20260303T000000Z"),
                       ("sara", "no", "20260304T000000Z")):
        vp, _ = vote(b, ts, who, ip, v)
        merged(b, vp, _ts_date(ts), "vote")
    b.merge_record([ip], "2026-04-01T00:00:00Z")
    assert panel.motion_passed(load(b), T, ip)


def test_curators_vote_in_the_panels_place_when_no_counted_voter_remains(
        tmp_path: Path) -> None:
    g = GraphBuilder(tmp_path / "g").base()
    g.target(T)
    g.node(T, "root")
    proof = g.proof(T, "root")
    g.merge([proof], date="2026-01-10")
    g.ledger_line(1, 1, "proof", "steve", T, proof, node="root")
    mp, _ = motion(g, "20260201T000000Z", "steve", kind="threshold", invitee=None)
    merged(g, mp, "2026-02-01T00:00:00Z", "motion")
    st = panel.motion_state(load(g), T, mp)
    assert st is not None and st["in_place"] and st["voters"] == ["curator"]
    assert st["state"] == "open"  # the credit-holding lone steward's act passes nothing
    vp, _ = vote(g, "20260202T000000Z", "curator", mp)
    merged(g, vp, "2026-02-02T00:00:00Z", "vote")
    g.merge_record([mp], "2026-02-20T00:00:00Z")
    assert panel.motion_passed(load(g), T, mp)


def test_a_motion_by_a_non_member_is_void_and_open_motions_lists_waiting_voters(
        b: GraphBuilder) -> None:
    bad, _ = motion(b, "20260201T000000Z", "mallory")
    good, _ = motion(b, "20260202T000000Z", "steve")
    merged(b, bad, "2026-02-01T00:00:00Z", "motion")
    merged(b, good, "2026-02-02T00:00:00Z", "motion")
    vp, _ = vote(b, "20260203T000000Z", "sam", good)
    merged(b, vp, "2026-02-03T00:00:00Z", "vote")
    g = load(b)
    assert panel.motion_state(g, T, bad)["state"] == "void"  # type: ignore[index]
    p, r = vote(b, "20260204T000000Z", "sara", bad, write=False)
    assert _codes(g, p, r, "sara") == ["vote-motion-unknown"]
    assert [i["path"] for i in panel.open_motions(g, "sara")] == [good]
    assert panel.open_motions(g, "sam") == [] and panel.open_motions(g, "mallory") == []
    item = panel.open_motions(g, "steve")[0]
    assert item["target"] == T and item["since"] == "2026-02-02T00:00:00Z" and item["what"]


# --- write-ups ---------------------------------------------------------------------------


def test_writeup_stages_run_from_drafted_to_accepted(b: GraphBuilder) -> None:
    wp, _ = writeup(b, "20260201T000000Z", "alice", "drafted", title="On demo")
    g = load(b)
    assert panel.writeup_stage(g, T, wp)["stage"] == "drafted"  # type: ignore[index]
    writeup(b, "20260202T000000Z", "alice", "written", wp)
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "written"  # type: ignore[index]
    writeup(b, "20260202T000001Z", "mallory", "signed", wp)  # not a steward: not counted
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "written"  # type: ignore[index]
    writeup(b, "20260203T000000Z", "steve", "signed", wp)
    st = panel.writeup_stage(load(b), T, wp)
    assert st is not None and st["stage"] == "steward-signed"
    assert st["authors"] == ["alice", "steve"] and st["signers"] == ["steve"]
    mp, _ = motion(b, "20260204T000000Z", "steve", kind="verify-writeup", invitee=None,
                   subject=wp)
    merged(b, mp, "2026-02-04T00:00:00Z", "motion")
    for who, ts in (("steve", "20260205T000000Z"), ("sam", "20260206T000000Z")):
        vp, _ = vote(b, ts, who, mp)
        merged(b, vp, _ts_date(ts), "vote")
    b.merge_record([mp], "2026-03-01T00:00:00Z")
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "panel-verified"  # type: ignore[index]
    writeup(b, "20260302T000000Z", "alice", "released", wp)
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "panel-verified"  # type: ignore[index]
    writeup(b, "20260302T000001Z", "steve", "released", wp)
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "released"  # type: ignore[index]
    writeup(b, "20260303T000000Z", "mallory", "on-arxiv", wp, arxiv="2603.01234")
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "released"  # type: ignore[index]
    writeup(b, "20260303T000001Z", "alice", "on-arxiv", wp, arxiv="2603.01234")
    writeup(b, "20260304T000000Z", "alice", "submitted", wp, journal="Annals")
    writeup(b, "20260305T000000Z", "steve", "rejected", wp)
    assert panel.writeup_stage(load(b), T, wp)["stage"] == "on-arxiv"  # type: ignore[index]
    writeup(b, "20260306T000000Z", "alice", "submitted", wp, journal="Acta")
    writeup(b, "20260307T000000Z", "alice", "accepted", wp, doi="10.1000/xyz")
    g = load(b)
    st = panel.writeup_stage(g, T, wp)
    assert st is not None and st["stage"] == "accepted" and st["journal"] == "Acta"
    row = panel.target_panel(g, T)
    assert row["writeup_shown"] == wp and row["panel"]["members"] == ["sam", "sara", "steve"]
    writeup(b, "20260308T000000Z", "steve", "withdrawn", wp)
    g = load(b)
    assert panel.writeup_stage(g, T, wp)["stage"] == "withdrawn"  # type: ignore[index]
    assert panel.target_panel(g, T)["writeup_shown"] is None


def test_the_target_row_of_index_json_carries_the_panel(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    row = next(r for r in products.index_json(load(b))["targets"] if r["id"] == T)
    assert row["panel"]["policy"] == {"vote_window_days": 14, "vote_threshold": 0.5,
                                      "vote_minimum": 2}
    assert [x["path"] for x in row["motions"]] == [mp] and row["writeups"] == []
    assert row["stewards"]  # the existing summary is kept


# --- approvals and section states ---------------------------------------------------------


def _two_sections(b: GraphBuilder, ts: str, who: str, texts: list[str],
                  supersedes: str | None = None, drafted: bool = False) -> str:
    stmt = f"targets/{T}/nodes/root/Statement.lean"
    rec: dict[str, Any] = {
        "schema": "gloss/v1", "describes": stmt, "describes_sha256": b.sha(stmt),
        "author": who, "date": _ts_date(ts), "licence": "CC-BY-4.0",
        "sections": [{"steps": [], "text": t, "drafted_with": ["m"] if drafted else []}
                     for t in texts]}
    if supersedes:
        rec["supersedes"] = supersedes
    return b.write_yaml(f"targets/{T}/nodes/root/gloss/{ts}-{who}.yaml", rec)


def test_section_states_follow_approvals_and_a_change_over_verified_words_is_pending(
        b: GraphBuilder) -> None:
    v1 = _two_sections(b, "20260201T000000Z", "alice", ["one", "two"], drafted=True)
    node = load(b).targets[T].nodes["root"]
    assert approvals.section_states(load(b), T, node, v1) == ["drafted", "drafted"]
    approval(b, "20260202T000000Z", "mallory", v1, [0])  # no role: not counted
    approval(b, "20260202T000001Z", "sam", v1, [0], sha="0" * 64)  # other bytes
    approval(b, "20260202T000002Z", "sara", v1, [5])  # no such section
    approval(b, "20260202T000003Z", "curator", v1, [1], signed=False)
    g = load(b)
    node = g.targets[T].nodes["root"]
    assert approvals.section_states(g, T, node, v1) == ["drafted", "drafted"]
    approval(b, "20260203T000000Z", "steve", v1, [0])
    g = load(b)
    node = g.targets[T].nodes["root"]
    assert approvals.section_states(g, T, node, v1) == ["verified", "drafted"]
    assert [a["by"] for a in approvals.approvals_of(g, T, node, v1)] == ["steve"]
    v2 = _two_sections(b, "20260204T000000Z", "bob", ["one", "TWO changed"], supersedes=v1)
    v3 = _two_sections(b, "20260205T000000Z", "bob", ["ONE changed", "two"], supersedes=v2)
    g = load(b)
    node = g.targets[T].nodes["root"]
    assert approvals.section_states(g, T, node, v2) == ["verified", "pending"]
    assert approvals.section_states(g, T, node, v3) == ["pending", "pending"]
    assert approvals.reading_version(g, T, node, [v1, v2, v3]) == v1
    [chain] = words_chains(g, T, "root", "gloss")
    assert chain["reads"] == v1 and chain["current"]["path"] == v3
    assert chain["current"]["section_states"] == ["pending", "pending"]
    assert chain["history"][0]["approvals"] == ["steve"]
    approval(b, "20260206T000000Z", "sam", v3, [0, 1])
    g = load(b)
    node = g.targets[T].nodes["root"]
    assert approvals.section_states(g, T, node, v3) == ["verified", "verified"]
    assert approvals.reading_version(g, T, node, [v1, v2, v3]) == v3
    # embedded approvals still read: the whole version
    e = b.gloss(T, "root", "20260207T000000Z", "carol", approved_by=["steve"])
    g = load(b)
    node = g.targets[T].nodes["root"]
    assert approvals.section_states(g, T, node, e) == ["verified"]


def test_an_approval_credits_the_words_author_once_never_the_signer(b: GraphBuilder) -> None:
    v1 = _two_sections(b, "20260201T000000Z", "alice", ["one", "two"])
    b.merge([v1], date="2026-02-01", node="root", artifact_kind="gloss")
    ap1, _ = approval(b, "20260202T000000Z", "steve", v1, [0])
    att = b.merge([ap1], date="2026-02-02", node="root", artifact_kind="approval")
    g = load(b)
    a = next(x.record for x in g.attestations if x.path == att)
    lines = ledger_lines(g, [a], 3, "steve")
    assert [(ln.line, ln.identity, ln.artifact) for ln in lines] == [("writeup", "alice", v1)]
    b.ledger_line(3, 1, "writeup", "alice", T, v1, node="root")
    ap2, _ = approval(b, "20260203T000000Z", "sam", v1, [1])
    att2 = b.merge([ap2], date="2026-02-03", node="root", artifact_kind="approval")
    g = load(b)
    a2 = next(x.record for x in g.attestations if x.path == att2)
    assert ledger_lines(g, [a2], 4, "sam") == []  # earned once
    bad, _ = approval(b, "20260204T000000Z", "mallory", v1, [0])
    att3 = b.merge([bad], date="2026-02-04", node="root", artifact_kind="approval")
    g = load(b)
    a3 = next(x.record for x in g.attestations if x.path == att3)
    assert ledger_lines(g, [a3], 5, "mallory") == []


# --- gate step 2 -------------------------------------------------------------------------


def _codes(g: Graph, path: str, rec: dict[str, Any], submitter: str,
           extra: dict[str, bytes] | None = None) -> list[str]:
    files = {path: dump_yaml(rec), **(extra or {})}
    return [d.code for d in gate_findings(g, files, submitter)]


def test_gate_admits_panel_acts_and_refuses_each_breach_with_its_code(b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    vp, _ = vote(b, "20260202T000000Z", "sam", mp)
    merged(b, vp, "2026-02-02T00:00:00Z", "vote")
    wp, _ = writeup(b, "20260202T000001Z", "alice", "drafted")
    g = load(b)
    # admitted
    p, r = motion(b, "20260203T000000Z", "sara", kind="threshold", invitee=None, write=False)
    assert _codes(g, p, r, "sara") == []
    p, r = vote(b, "20260203T000000Z", "sara", mp, "no", write=False)
    assert _codes(g, p, r, "sara") == []
    # motion-not-member
    p, r = motion(b, "20260203T000000Z", "mallory", write=False)
    assert _codes(g, p, r, "mallory") == ["motion-not-member"]
    # motion-subject-invalid: invite without invitee, verify-writeup of no write-up
    p, r = motion(b, "20260203T000000Z", "sara", invitee=None, write=False)
    assert _codes(g, p, r, "sara") == ["motion-subject-invalid"]
    p, r = motion(b, "20260203T000000Z", "sara", kind="verify-writeup", invitee=None,
                  subject=f"{WUP}/20990101T000000Z-x.yaml", write=False)
    assert _codes(g, p, r, "sara") == ["motion-subject-invalid"]
    p, r = motion(b, "20260203T000000Z", "sara", invitee="sam", write=False)
    assert _codes(g, p, r, "sara") == ["motion-subject-invalid"]  # already on the panel
    # vote-motion-unknown
    p, r = vote(b, "20260203T000000Z", "sara", f"{MOT}/20990101T000000Z-steve.yaml",
                write=False)
    assert _codes(g, p, r, "sara") == ["vote-motion-unknown"]
    # vote-not-member
    p, r = vote(b, "20260203T000000Z", "mallory", mp, write=False)
    assert _codes(g, p, r, "mallory") == ["vote-not-member"]
    # vote-duplicate: at base, and twice in one pull request
    p, r = vote(b, "20260203T000000Z", "sam", mp, "no", write=False)
    assert _codes(g, p, r, "sam") == ["vote-duplicate"]
    p1, r1 = vote(b, "20260203T000000Z", "sara", mp, write=False)
    p2, r2 = vote(b, "20260203T000001Z", "sara", mp, "no", write=False)
    assert _codes(g, p1, r1, "sara", {p2: dump_yaml(r2)}) == ["vote-duplicate"]
    # unsigned, or by another than the submitter
    p, r = vote(b, "20260203T000000Z", "sara", mp, signed=False, write=False)
    assert _codes(g, p, r, "sara") == ["role-act-unsigned"]
    p, r = vote(b, "20260203T000000Z", "sara", mp, write=False)
    assert "actor-not-submitter" in _codes(g, p, r, "steve")
    # write-ups
    p, r = writeup(b, "20260203T000000Z", "mallory", "signed", wp, write=False)
    assert _codes(g, p, r, "mallory") == ["writeup-signer-not-steward"]
    p, r = writeup(b, "20260203T000000Z", "mallory", "on-arxiv", wp, arxiv="2603.01234",
                   write=False)
    assert _codes(g, p, r, "mallory") == ["writeup-not-author"]
    p, r = writeup(b, "20260203T000000Z", "alice", "released", None, write=False)
    assert _codes(g, p, r, "alice") == ["writeup-unknown"]
    p, r = writeup(b, "20260203T000000Z", "steve", "signed", wp, write=False)
    assert _codes(g, p, r, "steve") == []
    # vote-window-closed: a later merge record passes the window
    b.merge_record([mp], "2026-02-20T00:00:00Z")
    g = load(b)
    p, r = vote(b, "20260221T000000Z", "sara", mp, write=False)
    assert _codes(g, p, r, "sara") == ["vote-window-closed"]


def test_gate_refuses_an_approval_of_other_bytes_or_sections_or_by_a_non_steward(
        b: GraphBuilder) -> None:
    v1 = _two_sections(b, "20260201T000000Z", "alice", ["one", "two"])
    b.merge([v1], date="2026-02-01", node="root", artifact_kind="gloss")
    g = load(b)
    p, r = approval(b, "20260202T000000Z", "steve", v1, [0, 1], write=False)
    assert _codes(g, p, r, "steve") == []
    p, r = approval(b, "20260202T000000Z", "steve", v1, [2], write=False)
    assert _codes(g, p, r, "steve") == ["approval-words-invalid"]
    p, r = approval(b, "20260202T000000Z", "steve", v1, [0], sha="1" * 64, write=False)
    assert _codes(g, p, r, "steve") == ["approval-words-invalid"]
    p, r = approval(b, "20260202T000000Z", "steve",
                    f"targets/{T}/nodes/root/gloss/20990101T000000Z-x.yaml", [0],
                    sha="1" * 64, write=False)
    assert _codes(g, p, r, "steve") == ["approval-words-invalid"]
    p, r = approval(b, "20260202T000000Z", "mallory", v1, [0], write=False)
    assert _codes(g, p, r, "mallory")[0] == "role-not-permitted"


def test_gate_counts_the_panel_as_it_stood_and_admits_a_curators_motion(
        b: GraphBuilder) -> None:
    mp, _ = motion(b, "20260201T000000Z", "steve")
    merged(b, mp, "2026-02-01T00:00:00Z", "motion")
    b.steward(T, "late", since="2026-02-05")
    b.merge_record([mp], "2026-02-06T00:00:00Z")
    g = load(b)
    p, r = vote(b, "20260206T000000Z", "late", mp, write=False)
    assert _codes(g, p, r, "late") == ["vote-not-member"]  # joined after it opened
    p, r = vote(b, "20260206T000000Z", "curator", mp, write=False)
    assert _codes(g, p, r, "curator") == []  # counted only in the panel's place
    p, r = motion(b, "20260206T000000Z", "curator", kind="significance", invitee=None,
                  write=False)
    assert _codes(g, p, r, "curator") == []
    p, r = motion(b, "20260206T000000Z", "late", kind="threshold", invitee=None, write=False)
    assert _codes(g, p, r, "late") == []  # a member now may open the next one
