"""Step 6: hazards over the statement, matched against META.yaml's
``acknowledged_hazards`` (D-4 step 6; :func:`hazard_location_key` is the one location
format), and the definitional layer of the anti-echo check of a filled ``answer(…)``
(:mod:`network.gate.lean.answers`, issue 12).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

import itertools

from network.errors import define
from network.gate.lean import answers
from network.gate.lean.toolchain import (
    TermRef,
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.workspace import (
    Workspace,
)
from network.gate.screens import lean_lex
from network.gate.steps.context import _Ctx, _fail
from network.gate.steps.plan import WorkPlan
from network.record import models as m

define("hazard-acknowledged", 6, 200,
       "A hazard finding matched an acknowledgment in META.yaml (informational).",
       "Nothing: the statement's author acknowledged the construct at admission.")
define("hazard-on-hole", 6, 200,
       "A hazard finding on a gate-written hole statement (informational: a hole's "
       "statement is the gap of a merged assembly and has no author to acknowledge it).",
       "Nothing; a steward may revise the hole (D-8) if the construct is unintended.")


def hazard_location_key(checker: str, location: str) -> tuple[str, str]:
    """The one form in which hazard findings and acknowledgments are compared (D-4 step 6).

    A location is ``"<declaration>: <subterm>"`` exactly as ``Hazards.lean`` prints it
    (the subterm pretty-printed by Lean, e.g. ``Erdos242.erdos_242: 4 / ↑n``); an
    acknowledgment in META.yaml names the same string. Runs of whitespace compare equal;
    nothing else is normalised.
    """
    return checker.strip(), " ".join(location.split())


#: Lean's declaration keywords (src/Lean/Parser/Command.lean ``declaration``'s alternatives)
_DECL_KEYWORDS = frozenset({"theorem", "lemma", "def", "abbrev", "instance", "opaque",
                            "axiom", "structure", "inductive", "class", "example"})


def declaration_line(text: str, decl: str) -> int | None:
    """The 1-based line where ``decl`` is declared in ``text``, read from the code tokens
    (comments never match): the first declaration keyword followed by an identifier that
    is ``decl`` or a suffix of it at a ``.`` boundary (a ``namespace`` prefixes the rest).
    None when no such declaration is found.

    Hazards.lean reads a module as data, so Lean's declaration ranges (extension data,
    issue 32) are not in its report; the statement's source is gate-owned base bytes.
    """
    toks = lean_lex.lex(text).code_tokens()
    for kw, name in itertools.pairwise(toks):
        if kw.text in _DECL_KEYWORDS and name.text and (
                decl == name.text or decl.endswith("." + name.text)):
            return kw.line
    return None


def _step6(ctx: _Ctx, tc: Toolchain, ws: Workspace, plan: WorkPlan, caps: m.Caps,
           meta: m.Meta, stmt_path: str) -> StepResult:
    """Step 6 (D-4): hazards, then the definitional anti-echo layer for each answer probe
    of the plan (``answer-defeq-target``; a test that did not run refuses with its code)."""
    res = tc.hazards(ws, plan.statement_module, [plan.decl], list(tc.spec.hazard_checkers),
                     ctx.sandbox, caps)
    if not res.ok:
        return _fail(6, res.code or "checker-failed", res.detail, stmt_path)
    acked = {hazard_location_key(a.checker, a.location) for a in meta.acknowledged_hazards}
    stmt_src = next((s for s in plan.sources if s.module == plan.statement_module), None)
    line = (declaration_line(stmt_src.data.decode("utf-8", "replace"), plan.decl)
            if stmt_src is not None else None)
    refused: list[Diagnostic] = []
    notes: list[Diagnostic] = []
    for f in res.findings:
        msg = f"{f.checker} at {f.location}: {f.message}"
        if hazard_location_key(f.checker, f.location) in acked:
            notes.append(Diagnostic("hazard-acknowledged", msg, stmt_path, f.line or line))
        elif meta.hole is not None:
            notes.append(Diagnostic("hazard-on-hole", msg, stmt_path, f.line or line))
        else:
            refused.append(Diagnostic("hazard-found", msg, stmt_path, f.line or line))
    for probe in plan.answer_probes:  # the definitional anti-echo layer (issue 12)
        found = answers.definitional_echo(
            tc, ws, TermRef(plan.statement_module, plan.decl),
            TermRef(probe.source.module, probe.decl), ctx.sandbox, caps, stmt_path, probe.line)
        if found and found[0].code != "answer-defeq-target":
            return StepResult.refused(6, found)  # the test did not run: fail closed
        refused += found
    return StepResult.refused(6, refused) if refused else StepResult.passed(6, *notes)
