"""Attack 3 on the checks (D-4 v3.27): compiled files that name native reduction.

The kernel evaluates ``Lean.reduceBool c`` by running ``c``'s compiled code
(``reduce_native`` → ``ir::run_boxed_kernel``, src/kernel/type_checker.cpp), and Meta's
``whnf`` does the same (``reduceNative?`` → ``evalConstCheck``). In a check process the
code of ``c`` is there whenever an imported module holds it, e.g. a merged proof of another
node with ``def c : Bool := match (IO.Process.exit 0 : IO Unit).run () with …`` (no
``unsafe`` needed: ``IO.RealWorld`` is ``Unit``, and the screen cannot tell IO from
arithmetic). Source cannot spell ``Lean.reduceBool``/``Lean.ofReduceBool`` (the
import-time screen refuses them), but the carried compiled files are the build's, and
the build ran the contributor's code (``native_decide`` runs it at elaboration; on GitHub
the unprivileged job that uploads them is the contributor's). Before this fix nothing
read them before step 4's replay: a file holding ``Lean.ofReduceBool c true rfl`` beside a
forged theorem could make leanchecker exit 0 before it met the theorem, and step 5's
axiom check (which would have seen ``Lean.ofReduceBool`` only on the theorem's own term)
comes after. Now such a file is refused with ``native-code-used`` before any check runs.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from network.gate.lean.toolchain import BuildResult
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import OleanArtifact
from network.gate.steps.step3_build import native_reduction_findings

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import precheck_raw, scenarios
from standin import RecordedToolchain

CHECKS = ("replay", "check_statement", "check_relation", "check_witness", "defeq",
          "extract_holes", "used_constants", "hazards", "outline")


class ForgingBuild(RecordedToolchain):
    """The recorded stand-in, but the scratch build's compiled files come back with a
    reference to ``Lean.ofReduceBool`` appended (as a build whose contributor code
    rewrote its own olean would leave them); every check it is asked for is recorded."""

    asked: list[str]

    def build(self, *a: Any, **kw: Any) -> BuildResult:
        built = super().build(*a, **kw)
        forged = tuple(OleanArtifact(x.module, x.source_path, tuple(
            (ext, data + b"\0Lean\0ofReduceBool\0Lemmata\0evil\0") for ext, data in x.files))
            for x in built.artifacts)
        return replace(built, artifacts=forged)

    def __getattribute__(self, name: str) -> Any:
        if name in CHECKS:
            object.__getattribute__(self, "asked").append(name)
        return object.__getattribute__(self, name)


def test_a_compiled_file_naming_native_reduction_is_refused_before_any_check(
        tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "g")
    asked: list[str] = []

    def toolchain(spec: Any) -> ForgingBuild:
        tc = ForgingBuild(spec)
        tc.asked = asked
        return tc

    out = run_gate(b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                   review=sc.review)
    assert out.verdict == "fail"
    ff = out.runs[0].first_failing
    assert ff is not None and (ff.step, ff.code) == (4, "native-code-used")
    assert asked == []  # no replay, no checker imported the forged file


def test_the_unforged_build_still_passes(tmp_path: Path) -> None:
    sc = scenarios()["proof-ok"]
    b, base, head = sc.build(tmp_path / "g")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                   review=sc.review)
    assert out.verdict == "pass"


@pytest.mark.parametrize(("data", "hit"), [
    (b"...Lean\0reduceBool\0c...", True), (b"...ofReduceNat...", True),
    (b"...Lean\0reduceNat\0...", True), (b"...Nat\0decEq\0Decidable\0decide...", False),
    (b"...native_decide...", False),
])
def test_the_scan(data: bytes, hit: bool) -> None:
    art = OleanArtifact("Lemmata.Demo.Mid.Proof", Path("Lemmata/Demo/Mid/Proof.lean"),  # type: ignore[arg-type]
                        (("olean", data),))
    assert bool(native_reduction_findings([art])) is hit
