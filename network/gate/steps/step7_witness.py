"""Step 7: the non-vacuity witness, and every witness a route carries for its holes
(D-29 v3.24); a vacuity certificate passes with ``witness-not-applicable`` (D-12 #3).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from network import ids
from network.errors import define
from network.gate.artifacts import Kind
from network.gate.lean.toolchain import (
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.workspace import (
    Source,
    Workspace,
)
from network.gate.steps.context import _ROUTES, _Ctx, _fail, _Run, _slug
from network.gate.steps.decls import hole_decl, hole_statement_text, witness_decl
from network.gate.steps.plan import WorkPlan, ws_defs
from network.gate.steps.step3_build import build_two_domains
from network.record import models as m

define("witness-not-applicable", 7, 200,
       "A vacuity certificate claims the statement's hypotheses are unsatisfiable, so no "
       "non-vacuity witness is asked of it (informational, D-12 #3).",
       "Nothing.")


define("carried-witness-unknown-hole", 7, 422,
       "A carried witness names a hole number the partial or reduction does not have "
       "(D-29 v3.24).",
       "Name the file after its route and the route's k-th hole: "
       "…-partial.h<k>.witness.lean, …-reduction.h<k>.witness.lean.")


def _step7(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, spec: m.GateSpec) -> StepResult:
    art = run.art
    if art.kind is Kind.VACUITY:  # it proves no witness can exist (D-12 #3)
        return StepResult.passed(7, Diagnostic(
            "witness-not-applicable", "a vacuity certificate asks no witness", art.main))
    if plan.witness_module is None:
        return _fail(7, "witness-failed", "the node has no Witness.lean (D-29: a hole waits "
                     "for its witness before it can be proved)",
                     f"targets/{art.target}/nodes/{art.node}/Witness.lean")
    if run.witness is None:
        run.witness = tc.check_witness(ws, plan.statement_module, plan.decl,
                                       plan.witness_module, witness_decl(plan.decl),
                                       list(spec.axioms), ctx.sandbox, caps)
    if not run.witness.ok:
        return _fail(7, run.witness.code or "witness-failed",
                     run.witness.detail or "the witness does not check", art.main)
    if art.kind in _ROUTES and run.holes:
        return _carried_witnesses(ctx, run, tc, plan, caps, spec)
    return StepResult.passed(7)


def _carried_witnesses(ctx: _Ctx, run: _Run, tc: Toolchain, plan: WorkPlan, caps: m.Caps,
                       spec: m.GateSpec) -> StepResult:
    """D-29 v3.24: each witness a partial or reduction carries
    (``<route path without .lean>.h<k>.witness.lean``) against the statement its hole node
    will have."""
    art = run.art
    assert art.node is not None
    prefix = art.main[: -len(".lean")] + ".h"
    carried = {int(p[len(prefix):-len(".witness.lean")]): p for p in art.paths
               if p.startswith(prefix) and p.endswith(".witness.lean")}
    if not carried:
        return StepResult.passed(7)
    by_index = {h.index: h for h in run.holes}
    unknown = [Diagnostic("carried-witness-unknown-hole", f"no hole {k}", p)
               for k, p in sorted(carried.items()) if k not in by_index]
    if unknown:
        return StepResult.refused(7, unknown)
    parent_stmt = ctx.base.text(ctx.base.node(art.target, art.node).files["Statement"].path)
    sources = ws_defs(plan)
    checks: list[tuple[int, str, str]] = []
    for k, path in sorted(carried.items()):
        h = by_index[k]
        hid = f"{art.node}-carried-h{k}"  # a scratch folder, never a graph id
        decl = hole_decl(plan.decl, k)
        stmt = hole_statement_text(parent_stmt, decl, h, art.main, art.node)
        folder = PurePosixPath("Lemmata") / "Carried" / hid
        s_src = Source(f"Lemmata.Carried.{ids.lean_component(hid)}.Statement",
                       folder / "Statement.lean", stmt)
        w_src = Source(f"Lemmata.Carried.{ids.lean_component(hid)}.Witness",
                       folder / "Witness.lean",
                       ctx.diff.new_bytes(next(c for c in ctx.diff.changes if c.path == path)))
        sources += [s_src, w_src]
        checks.append((k, s_src.module, w_src.module))
    built, setup, ws2 = build_two_domains(tc, ctx.sandbox, ctx.work_dir,
                                          f"{_slug(art)}-carried", spec, sources,
                                          [w for _k, _s, w in checks], caps)
    if not built.ok:
        return _fail(7, built.code or "lean-build-failed", built.log[-500:], art.main)
    if ws2 is None:
        assert setup is not None
        return StepResult.refused(7, [Diagnostic(d.code, d.message, art.main)
                                      for d in setup.diagnostics])
    findings: list[Diagnostic] = []
    for k, smod, wmod in checks:
        decl = hole_decl(plan.decl, k)
        res = tc.check_witness(ws2, smod, decl, wmod, witness_decl(decl), list(spec.axioms),
                               ctx.sandbox, caps)
        if not res.ok:
            findings.append(Diagnostic(res.code or "witness-failed",
                                       f"hole {k}: {res.detail or 'the witness does not check'}",
                                       carried[k]))
    return StepResult.from_findings(7, findings)
