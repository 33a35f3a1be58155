"""Step 8: declared dependencies (D-3 v3.25, D-4 v3.25, D-12 v3.25): the nodes the
kernel term uses against deps, lemmas and use lines; no unused use, no circular use.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.errors import define
from network.gate.lean.toolchain import (
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.workspace import (
    Workspace,
)
from network.gate.steps.context import _Ctx, _fail, _Run, _unquote
from network.gate.steps.plan import WorkPlan, ancestors_of
from network.record import models as m

define("undeclared-dependency", 8, 422,
       "The proof term uses a node it did not declare (deps, lemmas or use lines).",
       "Add an import line (a use, D-3 v3.25) for the merged proof you draw on.")
define("unused-use", 8, 422,
       "A use line imports a node's proof that the proof term never touches (D-4 v3.25).",
       "Remove the import line.")
define("circular-use", 8, 422,
       "The proof uses a node that rests on the node being proved (D-12 v3.25).",
       "A node is never proved from the node it was cut from, nor from anything above it.")


def _step8(ctx: _Ctx, run: _Run, tc: Toolchain, ws: Workspace, plan: WorkPlan,
           caps: m.Caps, meta: m.Meta) -> StepResult:
    art = run.art
    module = plan.solution_module or plan.statement_module
    decl = plan.solution_decl if plan.solution_module else plan.decl
    res = tc.used_constants(ws, module, [decl], ctx.sandbox, caps)
    if not res.ok:
        return _fail(8, res.code or "checker-failed", res.detail, art.main)
    used: set[str] = set()
    for mod in res.modules:
        nid = plan.node_of_module.get(_unquote(mod))
        if nid is not None and nid != art.node:
            used.add(nid)
    declared = set(meta.deps) | set(meta.lemmas) | set(plan.use_nodes)
    findings = [Diagnostic("undeclared-dependency", f"uses {n} without declaring it", art.main)
                for n in sorted(used - declared)]
    findings += [Diagnostic("unused-use", f"imports the proof of {n} but never uses it",
                            art.main) for n in sorted(set(plan.use_nodes) - used)]
    if art.node is not None and art.node in ctx.base.targets[art.target].nodes:
        ancestors = set(ancestors_of(ctx.base, art.target, art.node))
        findings += [Diagnostic("circular-use", f"{n} rests on {art.node}", art.main)
                     for n in sorted(used & ancestors)]
    return StepResult.from_findings(8, findings)
