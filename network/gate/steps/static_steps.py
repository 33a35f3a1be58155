"""The steps of a building artifact that need no build, in the order run (issue 9): step 2's
findings, step 6's syntactic anti-echo layer (issue 12), step 0 (authoritative runs) and
step 1, so that one round names everything to fix (STYLE.md rule 4).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.errors import LemmataError
from network.gate.artifacts import Artifact
from network.gate.lean import answers
from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import _Ctx, _resolve_toolchain, _Run
from network.gate.steps.step0_precheck import _step0
from network.gate.steps.step1_toolchain import _step1
from network.gate.steps.step4_kernel import known_unsound_result
from network.record import layout
from network.record import models as m


def _answer_echo_findings(ctx: _Ctx, art: Artifact) -> list[Diagnostic]:
    """Step 6's syntactic anti-echo check over every Statement.lean the artifact adds
    (:func:`network.gate.lean.answers.syntactic_findings`; issue 12, Formal Conjectures #4923)."""
    out: list[Diagnostic] = []
    for ch in ctx.diff.changes:
        if ch.path not in art.paths or not ch.path.endswith("/Statement.lean") \
                or not ch.new_id or ch.mode == 0o120000:
            continue
        row = layout.match(ch.path)
        if row is None or ctx.diff.new_size(ch) > row[0].max_bytes(
                ctx.base.policy.max_file_bytes):
            continue  # step 2 refuses it and its bytes stay unread
        try:
            text = ctx.diff.new_bytes(ch).decode("utf-8", "replace")
        except LemmataError:
            continue  # not a file: step 2's finding
        out += answers.syntactic_findings(text, ch.path)
    return out


def _static_steps(ctx: _Ctx, run: _Run, spec: m.GateSpec, spec_sha: str,
                  step1_diff: list[Diagnostic], step2_findings: list[Diagnostic]) -> bool:
    """Steps 2, 0 and 1 of a building artifact, in that order (issue 9); True when all
    three passed and the build may start (``run.toolchain`` is then set).

    Step 2 needs no toolchain and runs first, so its findings are reported whether or not
    Lean is installed. When it passes, step 0 (authoritative runs) may bounce the artifact
    before any toolchain is looked for (ruling 7). When it fails, the artifact is refused
    whatever follows, and steps 0 and 1 still run so that one round shows everything to
    fix (STYLE.md rule 4): a missing precheck and ``toolchain-missing`` are listed beside
    the step-2 findings. The steps list is in the order run, ``[2, 0, 1]`` (``[2, 1]`` in
    precheck mode), and the verdict is read from the first failing entry: ``fail`` for a
    step-2 refusal, ``bounced`` for step 0 after a passing step 2, never a pass without
    a toolchain (its step 1 refuses). Step 6's syntactic anti-echo finding (issue 12) needs
    no Lean either: it is listed right after step 2 (``[2, 6, 0, 1]``) and refuses the
    artifact before any build; so does step 4's ``toolchain-known-unsound`` (issue 37), a
    pin on which no kernel step 4 runs catches some published soundness bug
    (``[2, 4, 0, 1]``).
    """
    res2 = run.add(StepResult.from_findings(2, step2_findings))
    echoes = _answer_echo_findings(ctx, run.art)
    if echoes:  # step 6's syntactic anti-echo layer needs no Lean (issue 12)
        run.add(StepResult.refused(6, echoes))
    unsound = known_unsound_result(spec)
    if unsound is not None:  # step 4's pin finding needs no Lean (issue 37)
        run.add(unsound)
    if ctx.mode == "authoritative":
        res0, run.consumed = _step0(ctx, run.art, spec, spec_sha)
        if not run.add(res0) and res2:
            return False
    run.toolchain = _resolve_toolchain(ctx.toolchain, spec)
    res1, run.toolchain_hash = _step1(run.toolchain, spec, step1_diff)
    return run.add(res1) and res2 and all(st.ok for st in run.steps)
