"""Attacks on the scoped cold run (network/record/read/scoped.py, issue 17) through records that
reach across targets: each pull request (or base) below names another target's nodes,
attestations or paths, or changes two targets, and the cold run must give exactly what
the whole graph gives (outcome, diagnostics, attestation bytes), in both modes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.outcome import attestation_files
from network.record import models as m
from network.record.read.loader import load_graph

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, T, base_repo, precheck_raw, scenarios
from standin import RecordedToolchain

from tests.graphs import BUILDER_GATE_KEY, GraphBuilder, git_commit

OTHER = "other"
OND = f"targets/{OTHER}/nodes"
Edit = Callable[[GraphBuilder], None]


def _other(b: GraphBuilder) -> None:
    b.target(OTHER)
    b.steward(OTHER, "steve")
    b.node(OTHER, "root", statement="theorem Other.main : True := by\n  sorry\n",
           declaration="Other.main")
    b.node(OTHER, "lemma", statement="theorem Other.lemma : True := by\n  sorry\n",
           declaration="Other.lemma", proof="theorem Other.lemma : True := trivial\n")
    b.merge([f"{OND}/lemma/Proof.lean"], date="2026-03-01", artifact_kind="proof",
            name="other-lemma")


def _proof(b: GraphBuilder) -> None:
    for path, data in scenarios()["proof-ok"].files.items():
        assert data is not None
        b.write(path, data)


def _withdraw_other(b: GraphBuilder) -> None:
    b.withdrawal(T, None, "20260310T000000Z", "curator", f"{OND}/lemma/Proof.lean")


def _withdraw_other_in_node(b: GraphBuilder) -> None:
    b.withdrawal(T, "mid", "20260310T000000Z", "curator", f"{OND}/lemma/Proof.lean")


def _gloss_of_other(b: GraphBuilder) -> None:
    b.gloss(T, "mid", "20260310T000000Z", "alice", describes=f"{OND}/lemma/Statement.lean")


def _review_of_other(b: GraphBuilder) -> None:
    rec = {"schema": "proof-review/v1", "target": T, "node": "mid",
           "attestation": "attestations/other-lemma.json", "by": "alice",
           "decision": "approve", "date": "2026-03-10",
           "artifacts": [{"path": f"{OND}/lemma/Proof.lean",
                          "sha256": b.sha(f"{OND}/lemma/Proof.lean")}]}
    b.write_yaml(f"{ND}/mid/reviews/20260310T000000Z-alice.yaml",
                 b.signed(m.ProofReview, rec, "alice"))


def _dep_on_other(b: GraphBuilder) -> None:
    meta = b.read(f"{ND}/mid/META.yaml").replace(b"- base-lemma", b"- lemma")
    b.write(f"{ND}/mid/META.yaml", meta)


def _two_targets(b: GraphBuilder) -> None:
    _proof(b)
    b.write(f"{OND}/root/Proof.lean", "theorem Other.main : True := trivial\n")


def _case_variant_target(b: GraphBuilder) -> None:
    b.write("targets/Demo/nodes/mid/Proof.lean", scenarios()["proof-ok"].files[
        f"{ND}/mid/Proof.lean"] or b"")


def _proof_importing_other(b: GraphBuilder) -> None:
    data = scenarios()["proof-ok"].files[f"{ND}/mid/Proof.lean"] or b""
    b.write(f"{ND}/mid/Proof.lean", b"import Lemmata.other.lemma.Proof\n" + data)


def _drop_target_yaml(b: GraphBuilder) -> None:
    _proof(b)
    b.remove(f"targets/{T}/target.yaml")


def _new_target(b: GraphBuilder) -> None:
    b.target("newt")


def _other_merge_newest(b: GraphBuilder) -> None:
    # the base's clock is another target's merge naming nothing of demo
    b.merge_record([f"{OND}/root/Statement.lean"], "2026-06-01")


def _alice_stewards_other(b: GraphBuilder) -> None:
    b.steward(OTHER, "alice")
    b.merge_record([f"targets/{OTHER}/stewards/alice.yaml"], "2026-03-02")


def _alice_joins_demo(b: GraphBuilder) -> None:
    b.steward(T, "alice", since="2026-03-10")


def _alice_acts_in_other_nodes(b: GraphBuilder) -> None:
    b.steward(OTHER, "alice")
    b.merge_record([f"targets/{OTHER}/stewards/alice.yaml"], "2026-01-02")
    b.shelving(OTHER, "lemma", "20260201T000000Z", "alice")
    b.merge_record([f"{OND}/root/Statement.lean"], "2026-09-01")  # the clock: lapse due


PRS: dict[str, tuple[Edit | None, Edit]] = {
    "steward-of-two-targets": (_alice_stewards_other, _alice_joins_demo),
    "steward-activity-in-other-nodes": (_alice_acts_in_other_nodes, _alice_joins_demo),
    "two-targets": (None, _two_targets),
    "case-variant-target": (None, _case_variant_target),
    "proof-importing-other": (None, _proof_importing_other),
    "withdraw-other-target-level": (None, _withdraw_other),
    "withdraw-other-in-node": (None, _withdraw_other_in_node),
    "gloss-of-other": (None, _gloss_of_other),
    "review-of-other": (None, _review_of_other),
    "dep-on-other": (None, _dep_on_other),
    "drop-target-yaml": (None, _drop_target_yaml),
    "new-target": (None, _new_target),
    "base-withdraws-other": (_withdraw_other, _proof),
    "base-clock-other": (_other_merge_newest, _proof),
}


def _outcomes(root: Path, name: str, mode: str) -> tuple[Any, Any]:
    base_edit, pr_edit = PRS[name]
    b, _ = base_repo(root)
    _other(b)
    if base_edit is not None:
        base_edit(b)
    base = git_commit(b.root, "base")
    pr_edit(b)
    head = git_commit(b.root, f"pull request: {name}")
    kw: dict[str, Any] = {"toolchain": RecordedToolchain, "submitter": "alice",
                          "precheck_raw": precheck_raw(b.root, base, head),
                          "gate_key": BUILDER_GATE_KEY, "mode": mode}
    full = run_gate(b.root, base, head, sandbox=Sandbox(),
                    base_graph=load_graph(b.root, commit=base), **kw)
    cold = run_gate(b.root, base, head, sandbox=Sandbox(), **kw)
    return full, cold


@pytest.mark.parametrize("mode", ["authoritative", "precheck"])
@pytest.mark.parametrize("name", sorted(PRS))
def test_a_cross_target_pull_request_is_judged_as_on_the_whole_graph(
        tmp_path: Path, name: str, mode: str) -> None:
    full, cold = _outcomes(tmp_path / "g", name, mode)
    assert cold == full
    assert attestation_files(cold) == attestation_files(full)
