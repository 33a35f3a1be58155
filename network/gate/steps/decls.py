"""The graph's declaration-name conventions and the hole statement the gate writes
(graph/AGENTS.md §8; D-12 #2/#3, D-29 v3.22/v3.25, D-30): ``<decl>.witness``,
``.refutation``, ``.vacuity``, ``.relation``, ``.h<k>``, and what a D-30 label asks of a
Relation.lean. Shared by steps 4 and 7 and the post-merge job.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.gate.artifacts import import_lines
from network.gate.lean.toolchain import (
    Hole,
    RelationKind,
    TermRef,
)


def witness_decl(decl: str) -> str:
    """The graph's witness convention: ``<declaration>.witness`` (graph/AGENTS.md §8)."""
    return f"{decl}.witness"


def refutation_decl(decl: str) -> str:
    """The graph's counterexample convention: Refutation.lean declares
    ``<declaration>.refutation : ¬ <statement>`` (D-12 #2)."""
    return f"{decl}.refutation"


def vacuity_decl(decl: str) -> str:
    """The graph's vacuity convention: Vacuity.lean declares ``<declaration>.vacuity :
    ¬ ∃ <data binders>, <hypotheses>`` (D-12 #3; the witness's existential negated)."""
    return f"{decl}.vacuity"


def relation_decl(decl: str) -> str:
    """The graph's relation convention: a variant's Relation.lean declares
    ``<variant declaration>.relation`` stating its D-30 label: resolves ``V → R``, partial
    ``R → V``, refutes ``V → ¬R`` (V, R the variant's and the root's statements)."""
    return f"{decl}.relation"


def relation_terms(relation: str, variant: TermRef, root: TermRef
                   ) -> tuple[RelationKind, TermRef, TermRef] | None:
    """What a D-30 label asks of Relation.lean, as :meth:`~network.gate.lean.toolchain.
    Toolchain.check_relation`'s (kind, left, right); None for ``related`` (nothing
    proved)."""
    if relation == "resolves":
        return "implies", variant, root
    if relation == "partial":
        return "implies", root, variant
    if relation == "refutes":
        return "implies-not", variant, root
    return None


def hole_decl(parent_decl: str, k: int) -> str:
    """The declaration of hole node number ``k`` cut from a node declaring ``parent_decl``:
    ``<parent_decl>.h<k>`` (Foundation ruling 3 numbering)."""
    return f"{parent_decl}.h{k}"


def hole_statement_text(parent_statement: str, decl: str, hole: Hole, route: str,
                        parent: str) -> bytes:
    """The Statement.lean the gate writes for a hole (D-29 v3.22, v3.25): the parent
    statement's imports and top-level ``open`` lines, then the hole closed over its
    binders as Lean printed it, body ``sorry``. Only gate-written text is added; the
    contributor's text appears only through the toolchain's pretty-printer."""
    header = [f"import {mod}" for mod in import_lines(parent_statement)]
    opens = [ln for ln in parent_statement.splitlines()
             if ln.startswith("open ") and "--" not in ln]
    lines = [*header, "", *opens, "" if opens else None,
             (f"/-- Hole {hole.index} (`{hole.name}`) of the route `{route}`, cut from "
              f"`{parent}` (written by the gate, D-12 #5). -/"),
             f"theorem {decl} : {hole.statement} := by", "  sorry", ""]
    return "\n".join(x for x in lines if x is not None).encode("utf-8")
