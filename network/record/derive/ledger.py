"""Ledger views per identity and the credit corrections still to apply (D-18, D-19 v3.27)."""

from __future__ import annotations

from typing import Any

from network.record import models as m
from network.record.derive._index import _ix
from network.record.read.loader import Graph


def ledger_views(graph: Graph) -> dict[str, list[dict[str, Any]]]:
    """Ledger lines per identity (D-19), revoked lines kept and shown as revoked (D-18).

    Returns:
        ``{identity: [{path, merge_seq, k, line, target, node, artifact, revoked,
        revoked_by, corrections: [paths], annotation}]}``, identities sorted, lines in
        (merge_seq, k) order. A revocation or correction naming no line changes nothing;
        a correction the post-merge job applied shows as the old line revoked and the
        corrected line, annotated with both paths (D-19 v3.27).
    """
    ix = _ix(graph)
    revoked: dict[str, str] = {}
    corrections: dict[str, list[str]] = {}
    for rf in graph.ledger:
        rec = rf.record
        if not ix.present(rf.path):
            continue
        if isinstance(rec, m.Revocation):
            revoked.setdefault(rec.revokes, rf.path)
        elif isinstance(rec, m.Correction):
            corrections.setdefault(rec.corrects, []).append(rf.path)
    views: dict[str, list[dict[str, Any]]] = {}
    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        views.setdefault(rec.identity, []).append({
            "path": rf.path, "merge_seq": rec.merge_seq, "k": rec.k, "line": rec.line,
            "target": rec.target, "node": rec.node, "artifact": rec.artifact,
            "revoked": rf.path in revoked, "revoked_by": revoked.get(rf.path),
            "corrections": corrections.get(rf.path, []), "annotation": rec.annotation,
        })
    return dict(sorted(views.items()))


def correction_marker(path: str) -> str:
    """The words a revocation applying the correction at ``path`` opens its ``reason``
    with (D-19 v3.27): how the post-merge job, and every reader, knows the correction has
    been applied, so applying it again changes nothing."""
    return f"correction {path}: "


def pending_corrections(graph: Graph) -> list[tuple[str, m.Correction, str, m.LedgerLine]]:
    """The credit corrections on the record the post-merge job has still to apply
    (D-19 v3.27, D-18 v3.27): ``[(correction path, correction, corrected line's path,
    corrected line)]`` in path order.

    A correction counts only when it names a ledger line on the record (``corrects``), the
    identity it says was credited is the line's (``credited``), the identity that should
    be differs from it (``should_be``, or None for nobody), and a listed curator of the
    line's target signed it as its ``by`` (ruling 14; dated at the record's clock, the
    newest merge). It is applied once: a revocation of that line whose reason opens with
    :func:`correction_marker` of its path means it was, and nothing more is written.
    """
    ix = _ix(graph)
    lines: dict[str, m.LedgerLine] = {rf.path: rf.record for rf in graph.ledger
                                      if isinstance(rf.record, m.LedgerLine)}
    reasons: dict[str, list[str]] = {}
    for rf in graph.ledger:
        if isinstance(rf.record, m.Revocation):
            reasons.setdefault(rf.record.revokes, []).append(rf.record.reason)
    when = ix.now
    out: list[tuple[str, m.Correction, str, m.LedgerLine]] = []
    for rf in sorted(graph.ledger, key=lambda r: r.path):
        corr = rf.record
        if not isinstance(corr, m.Correction) or when is None:
            continue
        line = lines.get(corr.corrects)
        if line is None or corr.credited != line.identity or corr.should_be == line.identity:
            continue
        marker = correction_marker(rf.path)
        if any(r.startswith(marker) for r in reasons.get(corr.corrects, [])):
            continue
        if line.target not in graph.targets or corr.by not in ix.curators_of(line.target):
            continue
        if not ix.role_signed(rf.path, corr, corr.by, when, line.target, stewards=False):
            continue
        out.append((rf.path, corr, corr.corrects, line))
    return out
