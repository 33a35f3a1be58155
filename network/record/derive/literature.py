"""A node's literature status and the proposals awaiting a reading (D-25 v3.35/v3.45)."""

from __future__ import annotations

from typing import Any

from network.record.derive._common import norm_date
from network.record.derive._index import _check, _ix
from network.record.read.loader import Graph


def literature_status(graph: Graph, target: str, node: str) -> dict[str, Any] | None:
    """The node's literature status (D-25 v3.35, v3.45), or None when it has no record.

    A standing record by a steward of the target or a curator is a *signed reading*; the
    latest one not superseded by a later signed record decides (``source: confirmed``),
    with the proposal it disputes beside it (``disputes``: status, record, contributor).
    A contributor's record no signed record confirms or disputes is *awaiting*; with no
    signed reading the latest awaiting proposal is shown (``source: proposed``).

    Returns:
        ``{status, source, record, by, disputes, awaiting}`` or None.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    n = ix.node(target, node)
    roles = ix.roles_of(target)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in n.literature
                   if ix.present(rf.path)), key=lambda x: (x[0], x[1]))
    if not recs:
        return None
    signed = [x for x in recs if x[2].by in roles
              and ix.role_signed(x[1], x[2], x[2].by, x[2].date, target)]
    signed_paths = {x[1] for x in signed}
    covered = {p for _, _, r in signed for p in (r.confirms, r.disputes) if p}
    superseded = {r.supersedes for _, _, r in signed if r.supersedes}
    by_path = {p: r for _, p, r in recs}
    proposals = [x for x in recs if x[1] not in signed_paths and x[1] not in covered]
    awaiting = None
    if proposals:
        _, p, r = proposals[-1]
        awaiting = {"status": r.status, "record": p, "contributor": r.by}
    readings = [x for x in signed if x[1] not in superseded]
    if readings:
        _, p, r = readings[-1]
        disputes = None
        if r.disputes and r.disputes in by_path:
            d = by_path[r.disputes]
            disputes = {"status": d.status, "record": r.disputes, "contributor": d.by}
        return {"status": r.status, "source": "confirmed", "record": p, "by": r.by,
                "disputes": disputes, "awaiting": awaiting}
    if awaiting is None:
        return None
    return {"status": awaiting["status"], "source": "proposed", "record": awaiting["record"],
            "by": awaiting["contributor"], "disputes": None, "awaiting": awaiting}


def literature_awaiting(graph: Graph, target: str, node: str) -> list[dict[str, Any]]:
    """The node's literature proposals awaiting a reading, in the record's order (D-25
    v3.35/v3.45): records that are no signed reading of a steward or curator and that no
    signed reading confirms or disputes (a covered proposal is never again awaiting),
    withdrawn ones read as absent — the same reading :func:`literature_status` makes.

    Returns:
        ``[{record, status, contributor, date}]``.

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    roles = ix.roles_of(target)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record)
                   for rf in ix.node(target, node).literature if ix.present(rf.path)),
                  key=lambda x: (x[0], x[1]))
    signed = {x[1]: x[2] for x in recs if x[2].by in roles
              and ix.role_signed(x[1], x[2], x[2].by, x[2].date, target)}
    covered = {p for r in signed.values() for p in (r.confirms, r.disputes) if p}
    return [{"record": p, "status": r.status, "contributor": r.by, "date": d}
            for d, p, r in recs if p not in signed and p not in covered]
