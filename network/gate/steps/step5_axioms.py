"""Step 5: axioms (D-4, v3.27; issue 10): exactly the gate-spec's allowlist, each the
pinned one; ``sorryAx`` only as a route's holes; compiler-trusting axioms only under
``waivers/native_decide.yaml`` plus a reviewer's sign-off.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.gate.lean.axioms import identity_problems, is_native_axiom
from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import _ROUTES, _Ctx, _fail, _Run
from network.record import models as m


def _step5(ctx: _Ctx, run: _Run, spec: m.GateSpec, meta: m.Meta | None = None) -> StepResult:
    """Step 5 (D-4, v3.27; issue 10): the axioms of the declaration under check, read from
    its own result row (never another row of the report). ``sorryAx`` only where a route
    has holes; compiler-trusting axioms only under a signed waiver; every other axiom must
    be allowed by the gate-spec and, being allowed by name, be the pinned one: declared in
    the pinned module with the pinned type (:func:`network.gate.lean.axioms.identity_problems`,
    ``axiom-identity-mismatch``). A missing row refuses (fail closed)."""
    art = run.art
    allowed = set(spec.axioms)
    if run.compare is not None:
        row = next((t for t in run.compare.theorems if t.name == run.compare_decl), None)
        if row is None:
            return _fail(5, "checker-failed",
                         "the checker's report has no row for "
                         f"{run.compare_decl or 'the declaration under check'}", art.main)
        axioms = list(row.axioms)
        identities = row.axiom_identities
        native = set(row.native) | {a for a in axioms if is_native_axiom(a)}
        sorry = row.sorry or "sorryAx" in axioms
    elif run.witness is not None:
        axioms = list(run.witness.axioms)
        identities = run.witness.axiom_identities
        native = {a for a in axioms if is_native_axiom(a)}
        sorry = "sorryAx" in axioms
    else:
        return StepResult.passed(5)
    findings: list[Diagnostic] = []
    if sorry and not (art.kind in _ROUTES and run.holes):
        findings.append(Diagnostic("sorry-used", "the proof depends on sorryAx", art.main))
    if native:
        waiver_path = f"targets/{art.target}/nodes/{art.node}/waivers/native_decide.yaml"
        has_waiver = waiver_path in art.paths or waiver_path in ctx.base.files
        signed = (run.review is not None and run.review.approved
                  and "native_decide" in run.review.signs_off
                  and run.review.reviewer != ctx.submitter)
        if has_waiver and signed:
            run.waivers = ["native_decide"]
        else:
            why = "no waivers/native_decide.yaml" if not has_waiver else \
                "no approving non-author review signs the waiver off"
            findings.append(Diagnostic("native-code-used",
                                       f"{', '.join(sorted(native))}: {why}", art.main))
    extra = [a for a in axioms if a not in allowed and a != "sorryAx" and a not in native]
    if extra:
        findings.append(Diagnostic("axiom-not-permitted", ", ".join(sorted(extra)), art.main))
    for problem in identity_problems(axioms, identities, sorted(allowed), spec.lean_toolchain):
        findings.append(Diagnostic("axiom-identity-mismatch", problem, art.main))
    return StepResult.from_findings(5, findings)
