"""Attempt facts, readiness and the frontier (D-13, D-25 v3.35/v3.44/v3.47, D-33)."""

from __future__ import annotations

from typing import Any

from network.record.derive._index import _check, _Index, _ix
from network.record.derive._shared import _attempt_facts, _on_frontier, _ready_since
from network.record.derive.labels import node_label
from network.record.derive.literature import literature_status
from network.record.derive.status import claimable, node_flags
from network.record.read.loader import Graph


def attempt_facts(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """D-13 facts of one node: ``attempts`` (postmortems plus merged partials and
    reductions), ``refuted_route_classes`` (sorted), ``failure_classes`` (histogram).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _attempt_facts(ix, ix.node(target, node))


def ready_since(graph: Graph, target: str, node: str) -> str | None:
    """When the node entered the ready set, as an ISO-8601 date (never an age; ruling 2).

    The latest of: the merge of its Statement/META (a hole: its route's merge; a root: the
    target's ``listed`` date), the merge of its Witness.lean, and each declared dependency's
    proof. None while blocked, closed, superseded or waiting on a dependency.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _ready_since(ix, target, node)


def frontier_entry(graph: Graph, target: str, node: str) -> dict[str, Any]:
    """One node's frontier entry with every D-25 field (D-25, v3.35, v3.44, v3.47; D-33).

    Keys: target, node, status, relation (variant relation or None), deps (read through
    revisions), library_tags, origin, attempts, refuted_route_classes, failure_classes,
    ready_since, claim_status (None: live claims are the service's overlay, ruling 13),
    claim_history (from the record: none is recorded yet, so []), claimable,
    claimable_reason, annex, bounty, literature, shelved, dormant, speculative, closable,
    question (:func:`is_question`: a held question, never claimable), label, claim,
    label_source.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _frontier_entry(ix, target, node)


def _frontier_entry(ix: _Index, tid: str, nid: str) -> dict[str, Any]:
    g = ix.g
    n = ix.node(tid, nid)
    flags = node_flags(g, tid, nid)
    ok, why = claimable(g, tid, nid)
    lab = node_label(g, tid, nid)
    facts = _attempt_facts(ix, n)
    return {
        "target": tid,
        "node": nid,
        "status": ix.status(tid, nid),
        "relation": n.meta.variant.relation if n.meta.variant else None,
        "deps": [ix.current(tid, d) if ix.has(tid, d) else d for d in n.meta.deps],
        "library_tags": list(n.meta.library_tags),
        "origin": n.meta.origin,
        **facts,
        "ready_since": _ready_since(ix, tid, nid),
        "claim_status": None,
        "claim_history": [],
        "claimable": ok,
        "claimable_reason": why,
        "annex": any(ix.present(rf.path) for rf in n.annexes),
        "bounty": flags.bountied,
        "literature": literature_status(g, tid, nid),
        "shelved": flags.shelved,
        "dormant": flags.dormant,
        "speculative": flags.speculative,
        "closable": flags.closable,
        "question": flags.question,
        "label": lab.label,
        "claim": lab.claim,
        "label_source": lab.source,
    }


def on_frontier(graph: Graph, target: str, node: str) -> bool:
    """Whether the node is published on the frontier (D-25): open or blocked, not shelved
    (v3.47), not disputed (D-18 v3.28), every declared dependency proved. Dormant targets
    stay published (D-33) and say so in each entry.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return _on_frontier(ix, target, node)


def frontier(graph: Graph) -> list[dict[str, Any]]:
    """Every frontier entry of the graph in the record's order (targets, then nodes, by id);
    see :func:`frontier_entry` and :func:`on_frontier` (D-25)."""
    ix = _ix(graph)
    return [_frontier_entry(ix, tid, nid)
            for tid, t in graph.targets.items() for nid in t.nodes
            if _on_frontier(ix, tid, nid)]


def target_frontier(graph: Graph, target: str) -> list[dict[str, Any]]:
    """The frontier entries of one target's nodes, in node id order: the run of
    :func:`frontier`'s list for that target (D-25).

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    return [_frontier_entry(ix, target, nid) for nid in graph.targets[target].nodes
            if _on_frontier(ix, target, nid)]
