"""A node's one status, its flags, whether it is a question, and whether it is claimable
(Foundation ruling 1; D-8, D-10, D-12, D-18, D-25, D-29, D-33).
"""

from __future__ import annotations

from network.record.derive._common import CLOSED, NodeFlags, NodeState
from network.record.derive._index import _check, _Index, _ix
from network.record.derive.literature import literature_status
from network.record.read.loader import Graph


def node_status(graph: Graph, target: str, node: str) -> str:
    """The node's one proof status (ruling 1, D-12, D-8, D-29).

    Exactly one of ``open``, ``blocked`` (a hole without its Witness.lean, D-29 v3.24),
    ``proved`` (merged Proof.lean, or a closure record whose inputs all read proved, the
    root only when :func:`root_vouched`, D-12 v3.42), ``refuted`` (merged Refutation.lean or
    a holding refutes closure), ``defective`` (merged Vacuity.lean) or ``superseded``
    (another node's META.supersedes names it). Precedence in that reverse order.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ix.status(target, node)


def node_flags(graph: Graph, target: str, node: str) -> NodeFlags:
    """The flags beside the status (ruling 1): see :class:`NodeFlags` for each rule.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    flags = ix._flags.get((target, node))
    if flags is not None:
        return flags
    st = ix.status(target, node)
    t = graph.targets[target]
    dormant = ix.dormant(target)
    flags = ix._flags[(target, node)] = NodeFlags(
        closable=ix.closable(target, node),
        proved_by_closure=ix.proved_by_closure(target, node),
        stale=ix.stale(target, node),
        disputed=ix.disputed(target, node),
        shelved=ix.shelved(target, node),
        speculative=bool(ix.node(target, node).meta.speculative) and st in ("open", "blocked"),
        bountied=node in t.record.bountied_nodes and not dormant,
        dormant=dormant,
        question=ix.question(target, node),
    )
    return flags


def is_question(graph: Graph, target: str, node: str) -> bool:
    """Whether the node's statement asks for a value rather than states a proposition
    (D-10; DESIGN.md "Importing from public registries"; issue 12).

    A Formal Conjectures statement written with ``answer(sorry)`` is a question: Lean
    elaborates ``answer(sorry)`` of type ``Prop`` to ``True`` and of any other type to
    ``sorryAx``, so its root reads as a proposition it is not. The importer records it as
    ``answer_question: true`` in target.yaml (the target's root) and in the node's META
    provenance. True when the META provenance says ``answer_question: true``, or the node
    is the target's root (or a revision of it) in a target whose ``answer_question`` is
    true and whose META does not say ``answer_question: false``.

    Such a node is held: its status stays as derived (``open`` while unsettled), it is
    published on the frontier with ``question: true`` so an agent sees where to work, and
    :func:`claimable` refuses it with ``claim-node-question``; progress comes through
    variants that fix an answer, judged by a person at step 9 (the gate's step 6 refuses
    one whose answer restates the other side, :mod:`network.gate.lean.answers`).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ix.question(target, node)


def node_state(graph: Graph, target: str, node: str) -> NodeState:
    """Status, flags and literature status of one node together.

    Raises:
        LemmataError: ``unknown-node``.
    """
    return NodeState(target, node, node_status(graph, target, node),
                     node_flags(graph, target, node), literature_status(graph, target, node))


def claimable(graph: Graph, target: str, node: str) -> tuple[bool, str | None]:
    """Whether a new claim on the node is accepted, and the catalog code when not.

    The one function the frontier, the service and the site use (ruling 1). Refusals, in
    this order: ``claim-node-superseded`` (D-8), ``claim-node-closed`` (proved, refuted or
    defective; D-33 v3.20), ``claim-node-question`` (the statement asks for a value,
    :func:`is_question`; D-10), ``claim-node-disputed`` (D-18 v3.28), ``claim-node-shelved``
    (D-14 v3.47), ``claim-target-dormant`` (ruling 13), ``claim-no-steward`` (open-problem
    target without a standing steward record, D-6 v3.17), ``claim-node-blocked`` (D-29),
    ``claim-dependency-disputed`` (D-18), ``claim-not-ready`` (a declared dependency not
    proved, D-25). Live claims held by others are the service's overlay, not checked here.

    Returns:
        ``(True, None)`` or ``(False, code)``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    key = (target, node)
    if key not in ix._claimable:
        ix._claimable[key] = _claimable(ix, target, node)
    return ix._claimable[key]


def _claimable(ix: _Index, target: str, node: str) -> tuple[bool, str | None]:
    graph = ix.g
    st = ix.status(target, node)
    if st == "superseded":
        return False, "claim-node-superseded"
    if st in CLOSED:
        return False, "claim-node-closed"
    if ix.question(target, node):
        return False, "claim-node-question"
    if ix.disputed(target, node):
        return False, "claim-node-disputed"
    if ix.shelved(target, node):
        return False, "claim-node-shelved"
    if ix.dormant(target):
        return False, "claim-target-dormant"
    t = graph.targets[target]
    if t.record.target_class == "open-problem" and not ix.stewards_of(target):
        return False, "claim-no-steward"
    if st == "blocked":
        return False, "claim-node-blocked"
    deps = [ix.current(target, d) for d in ix.node(target, node).meta.deps
            if ix.has(target, d)]
    if any(ix.disputed(target, d) for d in deps):
        return False, "claim-dependency-disputed"
    if any(ix.status(target, d) != "proved" for d in deps):
        return False, "claim-not-ready"
    return True, None
