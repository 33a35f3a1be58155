"""The prompt contract (issue 14): what a proposer policy is shown, versioned and owned by
the repository.

A prompt is rendered from the node bundle the service serves (``GET
/targets/{target}/nodes/{node}``, :func:`network.api.reads.node_bundle`; get_node in D-28),
or from the same fields read off a graph (:func:`bundle_from_graph`), and from nothing
else. Only what is known before the action is read (seed 000, "Raw trace focus can leak
the action"): :func:`prompt_input` copies the target and node ids, META's declaration and
deps, and Statement.lean's text into a :class:`PromptInput`, and :func:`render` reads that
alone. A proof, an attestation, a closure, the node's status, its attempts and its claims
are written after (or because of) the action and never reach a prompt; a test mutates each
of them and finds the prompt unchanged.

Tasks (:data:`TASKS`):

* ``proof``: the whole Proof.lean of the node;
* ``partial``: a partial proof with labelled holes, in the D-12 v3.44 grammar the gate
  reads (:func:`network.gate.artifacts.partial_label_findings`): ``-- approach:`` before
  the first hole, ``-- licence:``, and ``-- label:`` (at most 60 characters) and
  ``-- claim: $…$`` in the comment block directly above each hole's ``have … := sorry``;
* ``repair``: the contributor's own failed attempt with the gate's structured diagnostics
  (step, code, line: :func:`diagnostics_of`), never the gate's messages, which can quote
  Lean the contributor did not write (Kimina-Prover: attempts plus fixes beat fresh
  samples at equal budget).

A change to any rendered byte is a new :data:`PROMPT_CONTRACT` version; the dataset
manifest binds the version its rows were rendered under.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from network.errors import LemmataError, define
from network.record.read.loader import Graph

define("trainer-bundle-incomplete", None, 422,
       "The node bundle lacks what the prompt contract renders: the target and node ids, "
       "META's declaration, or Statement.lean's text.",
       "Render from the node bundle GET /targets/{target}/nodes/{node} answers (get_node), "
       "or from network.trainer.prompts.bundle_from_graph.")
define("trainer-task-unknown", None, 422,
       "The prompt task is not one the prompt contract defines (proof, partial, repair), "
       "or a repair prompt lacks the failed attempt it repairs.",
       "Use one of network.trainer.prompts.TASKS; a repair needs the attempt's own text.")

PROMPT_CONTRACT = "prompt/v1"
"""The version every rendered byte belongs to."""

TASKS: tuple[str, ...] = ("proof", "partial", "repair")

#: the bundle fields a prompt reads, as (key, sub-key) paths: everything else in a bundle
#: is unread (the leakage test holds the renderer to this list)
READS: tuple[tuple[str, ...], ...] = (
    ("target",), ("node",), ("meta", "declaration"), ("meta", "deps"),
    ("files", "Statement", "text"),
)

_PARTIAL_GRAMMAR = (
    "Write a partial proof: the theorem with its proof split into holes, each hole a\n"
    "`have hₖ : <statement> := sorry` the rest of the proof uses. In its own comments\n"
    "(D-12 v3.44), first on their lines:\n"
    "  -- approach: <one line naming the attack> (before the first hole)\n"
    "  -- licence: <the licence of these words>\n"
    "and in the comment block directly above each hole's `have`:\n"
    "  -- label: <a short name, at most 60 characters>\n"
    "  -- claim: $<the hole in mathematical notation>$\n"
    "No hole may restate the statement itself."
)


@dataclass(frozen=True)
class PromptInput:
    """What a prompt may show, all known before the action (seed 000).

    Attributes:
        target, node: the ids.
        declaration: META's declaration (the theorem to prove).
        deps: META's declared dependencies (node ids), in META's order.
        statement: Statement.lean's text.
    """

    target: str
    node: str
    declaration: str
    deps: tuple[str, ...]
    statement: str


@dataclass(frozen=True)
class StepDiagnostic:
    """One structured gate finding a repair prompt shows: step, code and source line."""

    step: int
    code: str
    line: int | None = None


def _get(bundle: Mapping[str, Any], *path: str) -> Any:
    cur: Any = bundle
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return None
        cur = cur[key]
    return cur


def prompt_input(bundle: Mapping[str, Any]) -> PromptInput:
    """The pre-action fields of a node bundle (:data:`READS`), and nothing else.

    Args:
        bundle: the node bundle as the service serves it (``target``, ``node``,
            ``meta``, ``files`` with ``Statement.text``, and whatever else it carries).

    Raises:
        LemmataError: ``trainer-bundle-incomplete`` when a read field is missing or not
            text.
    """
    target, node = _get(bundle, "target"), _get(bundle, "node")
    decl = _get(bundle, "meta", "declaration")
    deps = _get(bundle, "meta", "deps") or []
    stmt = _get(bundle, "files", "Statement", "text")
    if not all(isinstance(v, str) and v for v in (target, node, decl, stmt)) or \
            not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise LemmataError("trainer-bundle-incomplete",
                           "a bundle needs target, node, meta.declaration and "
                           "files.Statement.text")
    return PromptInput(str(target), str(node), str(decl), tuple(deps), str(stmt))


def bundle_from_graph(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """The node bundle's record fields read off a graph, in get_node's shape: ``target``,
    ``node``, ``graph_commit``, ``meta`` (META as the service dumps it) and ``files``
    (``{name: {path, sha256, text}}``). The compiler renders from it where no service
    runs; a test holds its prompts equal to those of the served bundle.

    Raises:
        LemmataError: ``dangling-reference`` for an unknown node; ``missing-file`` or
            ``not-utf8`` from reading a file.
    """
    n = graph.node(target, node)
    return {
        "target": target, "node": node, "graph_commit": graph.commit,
        "meta": n.meta.model_dump(mode="json", by_alias=True, exclude_none=True),
        "files": {name: {"path": lf.path, "sha256": lf.sha256, "text": graph.text(lf.path)}
                  for name, lf in sorted(n.files.items())},
    }


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def diagnostics_of(steps: Iterable[Any]) -> tuple[StepDiagnostic, ...]:
    """The structured findings of a gate run's steps, for a repair prompt: each failing
    step's code and each diagnostic's code and line, in step order; messages and details
    are dropped (they can quote Lean the contributor did not write).

    Args:
        steps: the gate's :class:`~network.gate.result.StepResult` objects, the record's
            :class:`~network.record.models.StepRecord` objects, or their dicts (``{step,
            ok, code, diagnostics: [{code, line, ...}]}``), as runs, attestations and
            precheck jobs carry them.
    """
    out: list[StepDiagnostic] = []
    for st in steps:
        if _field(st, "ok") is not False:
            continue
        step = int(_field(st, "step"))
        seen = False
        for diag in _field(st, "diagnostics") or ():
            code, line = _field(diag, "code"), _field(diag, "line")
            if isinstance(code, str) and code:
                out.append(StepDiagnostic(step, code, line if isinstance(line, int) else None))
                seen = True
        code = _field(st, "code")
        if not seen and isinstance(code, str) and code:
            out.append(StepDiagnostic(step, code))
    return tuple(out)


def _header(inp: PromptInput, task: str) -> str:
    deps = ", ".join(inp.deps) if inp.deps else "none"
    return (f"[lemmata {PROMPT_CONTRACT} task={task}]\n"
            f"Target: {inp.target}\nNode: {inp.node}\n"
            f"Declaration: {inp.declaration}\nDeclared dependencies: {deps}\n"
            f"--- Statement.lean ---\n{inp.statement.rstrip()}\n--- end Statement.lean ---\n")


def render(bundle: Mapping[str, Any], task: str, *, attempt: str | None = None,
           diagnostics: Iterable[StepDiagnostic] = ()) -> str:
    """The prompt of one task on one node under :data:`PROMPT_CONTRACT`.

    Args:
        bundle: the node bundle (read through :func:`prompt_input` only).
        task: one of :data:`TASKS`.
        attempt: for ``repair``, the contributor's own failed Lean text.
        diagnostics: for ``repair``, the gate's findings (:func:`diagnostics_of`).

    Returns:
        The prompt text; the model answers with the artifact's whole Lean file.

    Raises:
        LemmataError: ``trainer-bundle-incomplete``; ``trainer-task-unknown`` for an
            unknown task or a repair without its attempt.
    """
    inp = prompt_input(bundle)
    head = _header(inp, task)
    if task == "proof":
        return head + (f"Write Proof.lean: the statement's header, then `{inp.declaration}` "
                       "with a complete proof. No `sorry`, no new axioms.\n")
    if task == "partial":
        return head + _PARTIAL_GRAMMAR + "\n"
    if task == "repair":
        if not attempt:
            raise LemmataError("trainer-task-unknown", "a repair prompt needs the attempt")
        found = "\n".join(f"  step {d.step}: {d.code}" + (f" (line {d.line})" if d.line
                                                            else "")
                          for d in diagnostics) or "  (no structured finding)"
        return head + (f"--- your attempt ---\n{attempt.rstrip()}\n--- end attempt ---\n"
                       f"The gate refused it:\n{found}\n"
                       f"Write Proof.lean again, fixed. No `sorry`, no new axioms.\n")
    raise LemmataError("trainer-task-unknown", f"{task!r} is not one of {', '.join(TASKS)}")
