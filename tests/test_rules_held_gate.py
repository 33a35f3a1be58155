"""Gate rules held by a test that fails when the rule is removed (issue 41, rules 1 and 2):
D-4's waiver sign-off must come from someone other than the submitter, and D-12's
exception for ``sorryAx`` covers only a route that has holes of its own.

Each test's docstring names the removal it was run against (in a separate work tree) and
saw fail."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from network.gate.artifacts import Artifact, Kind
from network.gate.lean.toolchain import CompareResult, Hole, TheoremComparison
from network.gate.run import GateOutcome, Review, _Run, _step5, run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record.models import GateSpec

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, precheck_raw, scenarios
from standin import RecordedToolchain


def _gate(tmp_path: Path, name: str, review: Review | None) -> GateOutcome:
    sc = scenarios()[name]
    b, base, head = sc.build(tmp_path / name)
    return run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                    precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                    review=review)


def _first_failing(out: GateOutcome) -> tuple[int | None, str | None]:
    ff = out.runs[0].first_failing
    return (ff.step, ff.code) if ff else (None, None)


# --- D-4: a waiver's sign-off is a non-author's ------------------------------------------


def test_the_submitter_cannot_sign_off_their_own_native_decide_waiver(tmp_path: Path) -> None:
    """D-4 (step 5 and Detail, "native_decide: banned, recorded waiver path only"): the
    sign-off that lets a waived ``native_decide`` through is an approving review by an
    identity other than the author. The same proof, waiver file and sign-off line pass
    when rita signs off and fail at step 5 when alice, the submitter, does.

    Removal that makes it fail (applied in a separate work tree, seen failing): dropping
    ``and run.review.reviewer != ctx.submitter`` from ``signed`` in
    ``network/gate/steps/step5_axioms.py``; alice's own sign-off then passes with
    ``waivers == ["native_decide"]``."""
    assert scenarios()["native-waived"].submitter == "alice"
    other = _gate(tmp_path / "rita", "native-waived",
                  Review("rita", signs_off=("native_decide",)))
    assert other.verdict == "pass" and other.attestations[0].waivers == ["native_decide"]
    own = _gate(tmp_path / "alice", "native-waived",
                Review("alice", signs_off=("native_decide",)))
    assert own.verdict == "fail" and _first_failing(own) == (5, "native-code-used")
    [diag] = own.runs[0].first_failing.diagnostics  # type: ignore[union-attr]
    assert "no approving non-author review signs the waiver off" in diag.message
    assert own.attestations[0].waivers == []


# --- D-12: sorryAx only as a route's own holes --------------------------------------------

SPEC = GateSpec.model_validate({"schema": "gate-spec/v1",
                                "lean_toolchain": "leanprover/lean4:v4.34.0"})
SORRY_ROW = TheoremComparison("Demo.mid", True, True, axioms=("sorryAx",), sorry=True)
HOLE = Hole(1, "h₁", "n + 0 = 0 + n", statement="∀ (n : Nat), n + 0 = 0 + n", line=7)


def _step5_of(kind: Kind, holes: tuple[Hole, ...]) -> Any:
    """Step 5 alone over one comparison row that depends on ``sorryAx`` (as the checker
    reports a term with a ``sorry`` in it), for an artifact of ``kind`` whose step 4
    extracted ``holes``."""
    main = f"{ND}/mid/attempts/20260301T000000Z-alice-{kind.value}.lean"
    art = Artifact(kind, "demo", "mid", [main], main)
    ctx = SimpleNamespace(base=SimpleNamespace(files={}), submitter="alice")
    run = _Run(art=art, holes=holes)
    run.compare, run.compare_decl = CompareResult(True, None, (SORRY_ROW,)), "Demo.mid"
    return _step5(ctx, run, SPEC, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", [Kind.PARTIAL, Kind.REDUCTION])
def test_a_route_with_no_hole_of_its_own_may_not_depend_on_sorry(kind: Kind) -> None:
    """D-12 (#4 reduction, #5 "typechecks modulo k named sorrys") and D-4 step 5: a
    partial or a reduction may depend on ``sorryAx`` only through holes of its own; one
    whose term has no hole and still depends on ``sorryAx`` (a ``sorry`` reached some
    other way) is refused ``sorry-used``, as a proof is. The same row passes when step 4
    extracted a hole. (Through the whole gate step 4 refuses a route without holes first,
    ``partial-without-holes``, so step 5's own check is held here, alone.)

    Removal that makes it fail (applied in a separate work tree, seen failing): dropping
    ``and run.holes`` from step 5's condition in ``network/gate/steps/step5_axioms.py``
    (``if sorry and not (art.kind in _ROUTES)``); the hole-less route then passes."""
    refused = _step5_of(kind, ())
    assert (refused.ok, refused.code) == (False, "sorry-used")
    assert _step5_of(kind, (HOLE,)).ok
    proof = _step5_of(Kind.PROOF, (HOLE,))  # holes never excuse a proof
    assert (proof.ok, proof.code) == (False, "sorry-used")
