"""What a shelving may reach, and which shelving stands (D-14 v3.47; the service and step 2
share it).
"""

from __future__ import annotations

from dataclasses import dataclass

from network.record.derive._index import _check, _ix
from network.record.read.loader import Graph


@dataclass(frozen=True)
class ShelvingReach:
    """What a shelving filed under one node may name (D-14 v3.47, D-35 "shelving").

    Attributes:
        root: the node is its target's root (or a revision of it): never shelved.
        used_by_merged_proof: a merged Proof.lean of the target names the node in its
            deps: the statement may not be shelved at all.
        decompositions: the node's merged decompositions (its routes, record order, with
            those a same-hash revision inherits): the only paths it may retire.
    """

    root: bool
    used_by_merged_proof: bool
    decompositions: tuple[str, ...]


def shelving_reach(graph: Graph, target: str, node: str) -> ShelvingReach:
    """What a shelving under ``target``/``node`` may name (:class:`ShelvingReach`), from
    the same index :func:`node_flags` reads ``shelved`` from.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return ShelvingReach(ix.is_root(target, node), ix.used_by_merged_proof(target, node),
                         tuple(ix.routes(target, node)))


def standing_shelving(graph: Graph, target: str, subject: str) -> str | None:
    """The path of the shelving that stands for ``subject`` (a node id or a decomposition's
    path) — its latest counting record, when that record shelves rather than lifts — or
    None (D-14 v3.47: a later unshelved record lifts it).

    Raises:
        KeyError: no such target.
    """
    graph.targets[target]  # a KeyError for an unknown target
    return _ix(graph).shelving_record(target, subject)
