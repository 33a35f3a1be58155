"""The nodes of each target that hold records read across targets (issue 17).

Three derivations read every target's nodes whatever target they judge: the steward lapse
counts a steward's role-signed acts on any target (shelvings, literature readings,
withdrawals, words approvals, D-32 v3.34), withdrawals are judged graph-wide (D-18
v3.27), and an incremental update asks which targets hold a closure naming a merge
(:mod:`network.record.products.incremental`, D-12 v3.42). Most nodes hold none of those records, so
one pass per target lists the few that do (:class:`TargetScan`), and the three read the
lists instead of 100,000 nodes.

An index built from another (``network.record.derive._index.carry_index``, after a
merge) takes the old scan of every target whose object the new graph shares
(:func:`network.record.read.reload.reload_graph` shares each target none of whose files
changed: a Graph is an immutable snapshot), and scans the others again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from network.record.read.scoped import scanned_nodes

if TYPE_CHECKING:
    from network.record.read.loader import Graph, Node, Target


@dataclass(frozen=True)
class TargetScan:
    """One target's nodes holding records read across targets.

    Attributes:
        target: the target object scanned (a scan is carried only to a graph holding this
            very object).
        acted: nodes holding a shelving, a literature reading or a withdrawal, in node order.
        worded: nodes holding a gloss or an explainer (their approvals are role-signed
            acts), in node order.
        closure_seqs: the ``merge_seq`` of every closure record of the target's nodes.
    """

    target: Target
    acted: tuple[Node, ...]
    worded: tuple[Node, ...]
    closure_seqs: frozenset[int]


def scan_target(t: Target) -> TargetScan:
    """Scan ``t``'s nodes (none for a target a scoped load left unread,
    :func:`network.record.read.scoped.scanned_nodes`). O(nodes)."""
    acted: list[Node] = []
    worded: list[Node] = []
    seqs: set[int] = set()
    for n in scanned_nodes(t):
        if n.shelvings or n.literature or n.withdrawals:
            acted.append(n)
        if n.glosses or n.explainers:
            worded.append(n)
        if n.closures:
            seqs.update(rf.record.merge_seq for rf in n.closures)
    return TargetScan(t, tuple(acted), tuple(worded), frozenset(seqs))


def scan_targets(g: Graph, carried: Mapping[str, TargetScan] | None = None
                 ) -> dict[str, TargetScan]:
    """Target id → its :class:`TargetScan` for every target of ``g``, taking from
    ``carried`` (an older graph's scans) each one whose target object ``g`` still holds."""
    out: dict[str, TargetScan] = {}
    for tid, t in g.targets.items():
        old = carried.get(tid) if carried is not None else None
        out[tid] = old if old is not None and old.target is t else scan_target(t)
    return out
