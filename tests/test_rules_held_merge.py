"""Merge-side rules held by a test that fails when the rule is removed (issue 41, rules 3,
4 and 5): D-13's anti-farming rule on the attempts line, the merge journal's re-judging
of a verdict whose main moved before it was published, and the forge's refusal to plan
the merge of a pull request that is no longer open.

Each test's docstring names the removal it was run against (in a separate work tree) and
saw fail."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from sqlalchemy.orm import sessionmaker

from network.api.db import Base, make_engine
from network.errors import LemmataError
from network.forge.local import LocalForge
from network.gate.lean.toolchain import MissingToolchain
from network.gate.postmerge.postmerge import PostMerge, postmerge_files
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from network.record.read.loader import load_graph
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, GraphBuilder, git_commit

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_MID, T, open_prechecked, seeded_forge
from standin import RecordedToolchain

WHEN = 1_790_000_000


# --- D-13: one attempts line per route class and node -------------------------------------

T1 = "t1"


def _job(b: GraphBuilder, message: str, atts: list[str], submitter: str | None) -> PostMerge:
    head = git_commit(b.root, message)
    recs = [m.attestation_from_json(b.read(p)) for p in atts]
    return postmerge_files(b.root, head, recs, pull_request="local/1", submitter=submitter,
                           toolchain=MissingToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _merge_postmortem(b: GraphBuilder, ts: str, who: str, route_class: str
                      ) -> list[tuple[str, str, str | None]]:
    """Merge ``who``'s postmortem of t1/root (its attestation, then the post-merge job,
    whose files are applied and committed); the ledger lines the merge earned, as
    ``(line, identity, annotation)``."""
    path = b.postmortem(T1, "root", ts, who, route_class=route_class)
    att = b.attest([path], artifact_kind="postmortem")
    pm = _job(b, f"{who}'s postmortem", [att], who)
    for p, data in pm.files.items():
        b.write(p, data)
    git_commit(b.root, f"post-merge of {who}'s postmortem")
    return [(ln.line, ln.identity, ln.annotation) for ln in
            (m.LedgerLine.model_validate(json.loads(v)) for p, v in sorted(pm.files.items())
             if p.startswith("ledger/"))]


def test_only_the_first_postmortem_of_a_route_class_earns_an_attempts_line(
        tmp_path: Path) -> None:
    """D-13 anti-farming rule (v3.18: the same whatever the outcome) and D-19's attempts
    line: the first merged postmortem of a route class on a node earns its author the
    attempts line; a later one of the same class on the same node, by anyone, earns
    nothing; one of another class earns its own line.

    Removal that makes it fail (applied in a separate work tree, seen failing): in
    ``network/gate/postmerge/postmerge_ledger.py`` ``ledger_lines``, adding the attempts line
    whatever ``earlier`` holds (``if not earlier:`` dropped); bob's second induction
    postmortem then earns a line."""
    b = GraphBuilder(tmp_path / "g").base()
    git_commit(b.root, "seed")
    b.target(T1)
    b.node(T1, "root")
    _job(b, "intake t1", [], "curator")
    assert _merge_postmortem(b, "20260301T000000Z", "alice", "induction") == [
        ("attempts", "alice", "induction")]
    assert _merge_postmortem(b, "20260302T000000Z", "bob", "induction") == []
    assert _merge_postmortem(b, "20260303T000000Z", "alice", "induction") == []
    assert _merge_postmortem(b, "20260304T000000Z", "bob", "case-split") == [
        ("attempts", "bob", "case-split")]


# --- the merge journal: main moved before publishing ------------------------------------


class Crash(BaseException):
    """Stands in for kill -9 at a step boundary (no ``except Exception`` catches it)."""


def _reopen(root: Path) -> LocalForge:
    """A fresh LocalForge object over ``root``'s repository and database: what a
    restarted queue process gets."""
    engine = make_engine(f"sqlite:///{root / 'state.db'}")
    Base.metadata.create_all(engine)
    return LocalForge(root / "forge.git", sessionmaker(engine), clock=lambda: WHEN)


def _pass(forge: LocalForge, hook: Q.StepHook | None = None) -> list[Q.QueueItem]:
    return Q.process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID,
                           step_hook=hook)


def test_a_journaled_verdict_is_judged_again_when_main_moved_before_publishing(
        tmp_path: Path) -> None:
    """Issue 16 (merging is a journal; D-4, D-5): a verdict is journaled with the main it
    was judged against. If the queue dies after journaling and main moves before the
    verdict is published, the restarted queue drops the journaled verdict and judges the
    pull request again against the new main: the attestation that reaches main names the
    main it was judged on, never the stale one.

    Removal that makes it fail (applied in a separate work tree, seen failing): in
    ``network/gate/queue/queue.py`` ``_resume``, dropping the ``if forge.main_sha() !=
    intent.base`` block (publish the journaled files on whatever main is now); the stale
    attestation, ``base_commit`` the old main, is then published and merged."""
    forge = seeded_forge(tmp_path, WHEN)
    number = open_prechecked(forge, {f"{ND}/mid/Proof.lean": PROOF_MID.encode()})

    def crash_after_journaling(step: str) -> None:
        if step == "journaled":
            raise Crash(step)

    judged_on = forge.main_sha()
    with pytest.raises(Crash):
        _pass(forge, crash_after_journaling)
    [intent] = Q.read_intents(forge)
    assert (intent.number, intent.base, intent.new_main) == (number, judged_on, None)
    postmortem = (f"schema: d13/v1\nnode: {T}/root\ncontributor: carol\nroute: a route\n"
                  "route_class: induction\noutcome: refuted-route\nterminal_goal_state: x\n"
                  "failure_class: route-dead-ends\n")
    moved = forge.commit_to_main(
        {f"{ND}/root/attempts/20260105T000000Z-carol-postmortem.yaml": postmortem.encode()},
        "another merge lands while the queue is down")

    forge = _reopen(tmp_path)
    items = _pass(forge)
    assert "main moved before publishing: judged again" in items[0].notes, items[0].notes
    recovered, rejudged = items
    assert recovered.number == number and recovered.merge_sha is None
    assert rejudged.number == number and rejudged.verdict == "pass" and rejudged.merge_sha
    assert forge.get(number).state == "merged" and Q.read_intents(forge) == []
    g = load_graph(forge.path, commit=forge.main_sha())
    mine = [a.record for a in g.attestations if a.record.node == "mid"]
    assert [(a.verdict, a.base_commit) for a in mine] == [("pass", moved)]


# --- the forge: merge_target refuses a pull request that is not open ---------------------


def test_merge_target_refuses_a_closed_or_merged_pull_request(tmp_path: Path) -> None:
    """D-35 (LocalForge) and issue 16: ``merge_target`` plans main's next commit only for
    an open pull request; for one closed unmerged or already merged it raises
    ``pull-request-closed``, so a withdrawn pull request never reaches main (``merge``
    refuses before main moves) and a merged one is never merged twice.

    Removal that makes it fail (applied in a separate work tree, seen failing): dropping
    the ``if pr.state != "open"`` check at the top of ``LocalForge.merge_target`` in
    ``network/forge/local.py``; it then returns a commit for both, and ``merge`` of the
    closed one moves main to its head before the row refuses."""
    forge = seeded_forge(tmp_path, WHEN)
    withdrawn = forge.open_pull_request(files={f"{ND}/mid/Proof.lean": PROOF_MID.encode()},
                                        title="withdrawn", body="", author="alice")
    forge.close(withdrawn.number)
    main = forge.main_sha()
    with pytest.raises(LemmataError) as exc:
        forge.merge_target(withdrawn.number)
    assert exc.value.code == "pull-request-closed" and "closed" in exc.value.detail
    with pytest.raises(LemmataError) as exc:
        forge.merge(withdrawn.number)
    assert exc.value.code == "pull-request-closed"
    assert forge.main_sha() == main and not forge.contains(main, withdrawn.head_sha)

    done = forge.open_pull_request(files={f"{ND}/mid/notes.txt": b"x\n"}, title="merged",
                                   body="", author="bob")
    forge.merge(done.number)
    merged_main = forge.main_sha()
    with pytest.raises(LemmataError) as exc:
        forge.merge_target(done.number)
    assert exc.value.code == "pull-request-closed" and "merged" in exc.value.detail
    assert forge.main_sha() == merged_main
