"""Step 4: kernel replay and the declaration's type against the statement, in a run that
executes none of the contributor's code (v3.16, v3.27); for a partial or reduction also the
holes, their labels (D-12 v3.44) and the offload rule (D-12, v3.21; ruling 13); for a
counterexample, a vacuity certificate or a labelled variant's Relation.lean, the
declaration against the type built from the statements (D-12 #2/#3, D-30).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.errors import define
from network.gate.artifacts import Kind, partial_label_findings
from network.gate.lean.kernels import (
    known_unsound,
    replay_refusal,
    replayed_kernels,
    unsound_detail,
)
from network.gate.lean.toolchain import (
    CompareResult,
    HolesResult,
    TermRef,
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.workspace import (
    Workspace,
)
from network.gate.steps.context import _NEGATING, _ROUTES, _Ctx, _fail, _Run
from network.gate.steps.decls import relation_decl, witness_decl
from network.gate.steps.plan import WorkPlan
from network.record import models as m

define("artifact-check-unsupported", 4, 422,
       "The gate's checkers cannot compare this artifact's declaration with the statement it "
       "claims on this target (e.g. a Relation.lean, counterexample or vacuity certificate "
       "where the gate-spec selects Comparator, which judges only a challenge module's "
       "text), so it is refused rather than passed unchecked.",
       "Submit it where the gate-spec replays with leanchecker, or as an annex meanwhile.")


define("partial-without-holes", 4, 422,
       "A partial proof or reduction holds no sorry: it is not a decomposition.",
       "Submit a complete proof as Proof.lean, or leave the holes as named sorrys.")
define("offload-restates-goal", 4, 422,
       "A hole of the partial is definitionally equal to the node's own statement "
       "(D-12 offload rule).",
       "Split the goal into genuinely smaller statements; restating it is not progress.")
define("offload-restates-ancestor", 4, 422,
       "A hole of the partial is definitionally equal to the statement of a node that "
       "depends on this one (D-12 v3.21).",
       "Do not reduce a node to one of its ancestors; that decomposition is circular.")


def known_unsound_result(spec: m.GateSpec) -> StepResult | None:
    """Step 4's finding that needs no Lean (issue 37): the refusal
    ``toolchain-known-unsound`` naming the soundness record's bugs that no kernel step 4
    runs for ``spec`` catches (:func:`network.gate.lean.kernels.known_unsound`), or None when
    the pin may pass. It is listed before any build, so the precheck says so before anyone
    spends work."""
    bugs = known_unsound(spec)
    if not bugs:
        return None
    return _fail(4, "toolchain-known-unsound", unsound_detail(bugs, spec))


def _step4(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, meta: m.Meta) -> StepResult:
    art = run.art
    solution = plan.solution_module
    to_replay = [solution] if solution else [s for s in (plan.statement_module,
                                                         plan.witness_module,
                                                         plan.relation_module) if s]
    # what the independent kernels check: the declarations the verdict rests on, and all
    # they use (issue 37)
    decls = [plan.solution_decl] if solution else [
        d for d, mod in ((plan.decl, plan.statement_module),
                         (witness_decl(plan.decl), plan.witness_module),
                         (relation_decl(plan.decl), plan.relation_module)) if mod]
    rep = tc.replay(ws, to_replay, ctx.sandbox, caps, decls)
    run.kernels = rep.kernels
    replay_refused = replay_refusal(replayed_kernels(tc.spec), rep)
    if replay_refused is not None:
        return _fail(4, *replay_refused, art.main)
    labelled = (art.kind is Kind.VARIANT and meta.variant is not None
                and meta.variant.relation != "related")
    if labelled:  # D-30: the label is kernel-checked through Relation.lean
        rel_path = f"targets/{art.target}/nodes/{art.node}/Relation.lean"
        if plan.relation is None or plan.relation_module is None:
            return _fail(4, "missing-file", "a labelled variant carries Relation.lean (D-30)",
                         rel_path)
        kind, left, right = plan.relation
        cmp = tc.check_relation(ws, kind, left, right, plan.relation_module,
                                relation_decl(plan.decl), list(tc.spec.axioms), ctx.sandbox,
                                caps)
        run.compare, run.compare_decl = cmp, relation_decl(plan.decl)
        return _compare_step4(cmp, relation_decl(plan.decl), rel_path)
    if solution is None:
        return StepResult.passed(4)
    if art.kind in _NEGATING:  # D-12 #2/#3: ¬statement, or ¬∃ its hypotheses
        cmp = tc.check_relation(ws, _NEGATING[art.kind], TermRef(plan.statement_module,
                                                                 plan.decl), None,
                                solution, plan.solution_decl, list(tc.spec.axioms),
                                ctx.sandbox, caps)
    else:
        cmp = tc.check_statement(ws, plan.statement_module, solution, [plan.decl],
                                 list(tc.spec.axioms), ctx.sandbox, caps)
    run.compare, run.compare_decl = cmp, plan.solution_decl
    refused = _compare_step4(cmp, plan.solution_decl, art.main)
    if not refused.ok or art.kind not in _ROUTES:
        return refused
    return _route_step4(ctx, run, tc, ws, plan, caps, solution)


def _compare_step4(cmp: CompareResult, decl: str, path: str) -> StepResult:
    """Step 4's reading of a comparison: the declaration exists and states exactly what it
    must (axioms are step 5's); a failure to run keeps its own code."""
    rows = {t.name: t for t in cmp.theorems}
    row = rows.get(decl)
    if cmp.code in ("declaration-missing", "statement-mismatch") or (
            row is not None and (not row.found or not row.type_equal
                                 or row.mismatched_constants)):
        code = "declaration-missing" if row is not None and not row.found else (
            cmp.code if cmp.code in ("declaration-missing", "statement-mismatch")
            else "statement-mismatch")
        msg = cmp.detail or (f"constants differ: {', '.join(row.mismatched_constants)}"
                             if row and row.mismatched_constants else "type differs")
        return _fail(4, code, msg, path)
    if row is None:
        code = cmp.code if cmp.code and not cmp.ok and cmp.code not in (
            "sorry-used", "native-code-used", "axiom-not-permitted") else "checker-failed"
        return _fail(4, code, cmp.detail or f"no report for {decl}", path)
    return StepResult.passed(4)


def _route_step4(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
                 caps: m.Caps, solution: str) -> StepResult:
    """A partial or reduction: holes, labels (D-12 v3.44), offload rule (D-12, v3.21)."""
    art = run.art
    holes = tc.extract_holes(ws, solution, plan.decl, ctx.sandbox, caps)
    if not holes.ok:
        return _fail(4, holes.code or "checker-failed", holes.detail, art.main)
    run.holes = holes.holes
    if not holes.holes:
        return _fail(4, "partial-without-holes", "no sorry in the assembly", art.main)
    findings: list[Diagnostic] = []
    if art.kind is Kind.PARTIAL:
        text = ctx.diff.new_bytes(next(c for c in ctx.diff.changes if c.path == art.main))
        lines = [h.line for h in holes.holes if h.line is not None]
        if len(lines) != len(holes.holes):
            findings.append(Diagnostic("partial-unlabelled", "the toolchain reported no "
                                       "source line for a hole, so its label cannot be read",
                                       art.main))
        findings.extend(partial_label_findings(text.decode("utf-8", "replace"), art.main,
                                               sorted(lines)))
    findings.extend(_offload_findings(ctx, tc, ws, plan, holes, caps))
    return StepResult.from_findings(4, findings)


def _offload_findings(ctx: _Ctx, tc: Toolchain, ws: Workspace, plan: WorkPlan,
                      holes: HolesResult, caps: m.Caps) -> list[Diagnostic]:
    """D-12 offload rule and v3.21: no hole defeq to the node's goal or any ancestor's."""
    assert plan.solution_module is not None
    out: list[Diagnostic] = []
    targets: list[tuple[str, str, str, str]] = [
        ("offload-restates-goal", "the node's own statement", plan.statement_module, plan.decl)]
    for anc, (mod, decl) in sorted(plan.ancestor_statements.items()):
        targets.append(("offload-restates-ancestor", f"ancestor {anc}", mod, decl))
    for h in holes.holes:
        left = TermRef(plan.solution_module, plan.decl, h.index)
        for code, what, mod, decl in targets:
            res = tc.defeq(ws, left, TermRef(mod, decl), ctx.sandbox, caps)
            if not res.ok:
                out.append(Diagnostic(res.code or "checker-failed",
                                      f"hole {h.index}: {res.detail}", None, h.line))
                return out
            if res.defeq:
                out.append(Diagnostic(code, f"hole {h.index} ({h.name}) restates {what}",
                                      None, h.line))
    return out
