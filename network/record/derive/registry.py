"""Registrations of targets in public registries (D-3, D-10 v3.37, D-28
``list_registrations``).
"""

from __future__ import annotations

from typing import Any

from network.record import models as m
from network.record.derive._common import norm_date
from network.record.derive._index import _ix
from network.record.read.loader import Graph


def registrations(graph: Graph, target: str | None = None) -> list[dict[str, Any]]:
    """Every registration of a target in a public registry, as the record holds it (D-3,
    D-10 v3.37, D-28 ``list_registrations``).

    A registration record counts when a curator of its target or a listed steward signed
    it while holding the role (ruling 14); one a withdrawal record (v3.27) names is set
    aside. Per (target, registry, registry id) the latest counting record (by date, then
    path) is the one read. Answered in the record's order (target, date, path), ranking
    nothing.

    Args:
        target: a target id, or None for every target.

    Returns:
        ``[{target, registry, registry_id, version, state, repository, commit,
        graph_commit, proof, attestation, by, date, path, superseded: [paths]}]``;
        ``superseded`` lists the earlier counting records of the same registry id.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    tids = sorted(graph.targets) if target is None else [graph.targets[target].id]
    out: list[dict[str, Any]] = []
    for tid in tids:
        by_id: dict[tuple[str, str], list[tuple[str, str, m.Registration]]] = {}
        for rf in graph.targets[tid].registrations:
            rec = rf.record
            if rf.path in ix.withdrawn or not ix.role_signed(rf.path, rec, rec.by, rec.date,
                                                             tid):
                continue
            by_id.setdefault((rec.registry, rec.registry_id), []).append(
                (norm_date(rec.date), rf.path, rec))
        rows = []
        for recs in by_id.values():
            recs.sort(key=lambda x: (x[0], x[1]))
            date, path, rec = recs[-1]
            rows.append((date, path, {
                "target": tid, "registry": rec.registry, "registry_id": rec.registry_id,
                "version": rec.version, "state": rec.state, "repository": rec.repository,
                "commit": rec.commit, "graph_commit": rec.graph_commit, "proof": rec.proof,
                "attestation": rec.attestation, "by": rec.by, "date": rec.date, "path": path,
                "superseded": [p for _d, p, _r in recs[:-1]]}))
        out.extend(row for _d, _p, row in sorted(rows, key=lambda x: (x[0], x[1])))
    return out
