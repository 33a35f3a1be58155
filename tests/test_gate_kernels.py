"""Through the whole gate: a known-unsound pin and kernels that disagree (issue 37).

A proof on a target pinned to v4.27.0 is refused with ``toolchain-known-unsound`` before
anything is built, with or without Lean; the same proof on the tests' sound pin, every
kernel agreeing, passes (test_gate_run.py's ``proof-ok``). A replay where nanoda refuses
what Lean's kernel accepts is ``kernel-disagreement``, and no pass is signed.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from network.gate.lean.kernels import KernelVerdict, replayed_kernels
from network.gate.lean.toolchain import MissingToolchain, ReplayResult
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox, SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.record import models as m

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import precheck_raw, scenarios
from standin import RecordedToolchain

from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID


def run(tmp_path: Path, name: str, toolchain: Any = RecordedToolchain, **kw: Any) -> Any:
    sc = scenarios()[name]
    b, base, head = sc.build(tmp_path / name)
    return run_gate(b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                    precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                    review=sc.review, gate_key=BUILDER_GATE_KEY,
                    key_id=BUILDER_GATE_KEY_ID, **kw)


def step(out: Any, n: int) -> Any:
    return next(s for s in out.runs[0].steps if s.step == n)


def test_a_proof_on_a_known_unsound_pin_is_refused_before_any_build(tmp_path: Path) -> None:
    out = run(tmp_path, "known-unsound")
    r = out.runs[0]
    assert r.verdict == "fail"
    assert (r.first_failing.step, r.first_failing.code) == (4, "toolchain-known-unsound")
    detail = step(out, 4).diagnostics[0].message
    assert "leanprover/lean4:v4.27.0" in detail and "lean4#14807" in detail
    assert [s.step for s in r.steps] == [2, 4, 0, 1]  # nothing built, nothing replayed
    att = r.attestation
    assert att is not None and att.verdict == "fail" and att.kernels is None


def test_known_unsound_needs_no_lean(tmp_path: Path) -> None:
    out = run(tmp_path, "known-unsound", toolchain=MissingToolchain)
    codes = [(s.step, d.code) for s in out.runs[0].steps for d in s.diagnostics]
    assert (4, "toolchain-known-unsound") in codes and (1, "toolchain-missing") in codes
    assert out.runs[0].verdict == "fail"


def test_the_precheck_says_so_before_anyone_spends_work(tmp_path: Path) -> None:
    sc = scenarios()["known-unsound"]
    b, base, head = sc.build(tmp_path / "pre")
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   mode="precheck", submitter=sc.submitter)
    pre = out.runs[0].precheck
    assert pre is not None and pre.verdict == "precheck-fail"
    assert any(s.code == "toolchain-known-unsound" for s in pre.steps)


def test_a_sound_pin_with_every_kernel_agreeing_passes_and_records_them(
        tmp_path: Path) -> None:
    out = run(tmp_path, "proof-ok")
    r = out.runs[0]
    assert r.verdict == "pass", r.first_failing
    att = r.attestation
    assert att is not None and att.signature is not None
    spec = m.GateSpec(lean_toolchain=att.toolchain)
    assert [(k.name, k.version, k.verdict) for k in att.kernels or []] == [
        (k.name, k.version, "accept") for k in replayed_kernels(spec)]


class _NanodaRefuses(RecordedToolchain):
    """The recorded toolchain, except that nanoda refuses every replay Lean's kernel accepts:
    a fault injected here (what a kernel bug in either looks like), never a recording."""

    def replay(self, workspace: Workspace, modules: Any, sandbox: SandboxRunner,
               caps: m.Caps, decls: Any = ()) -> ReplayResult:
        rep = super().replay(workspace, modules, sandbox, caps, decls)
        kernels = tuple(KernelVerdict(k.name, k.version, "refuse", "kernel-replay-failed",
                                      "nanoda: declaration type mismatch")
                        if k.name == "nanoda" else k for k in rep.kernels)
        return replace(rep, ok=False, code="kernel-replay-failed", kernels=kernels)


class _NanodaSilent(RecordedToolchain):
    """A toolchain whose replay reports Lean's kernel only (nanoda never ran)."""

    def replay(self, workspace: Workspace, modules: Any, sandbox: SandboxRunner,
               caps: m.Caps, decls: Any = ()) -> ReplayResult:
        rep = super().replay(workspace, modules, sandbox, caps, decls)
        return replace(rep, kernels=tuple(k for k in rep.kernels if k.name != "nanoda"))


def test_kernels_that_disagree_never_pass(tmp_path: Path) -> None:
    out = run(tmp_path, "proof-ok", toolchain=_NanodaRefuses)
    r = out.runs[0]
    assert (r.first_failing.step, r.first_failing.code) == (4, "kernel-disagreement")
    assert "nanoda" in step(out, 4).diagnostics[0].message
    att = r.attestation
    assert att is not None and att.verdict == "fail"
    assert {k.name: k.verdict for k in att.kernels or []} == {"lean": "accept",
                                                             "nanoda": "refuse"}
    assert not [x for x in out.runs if x.verdict == "pass"]


def test_a_kernel_that_did_not_report_never_passes(tmp_path: Path) -> None:
    out = run(tmp_path, "proof-ok", toolchain=_NanodaSilent)
    r = out.runs[0]
    assert (r.first_failing.step, r.first_failing.code) == (4, "kernel-set-incomplete")
