"""Views the site needs: a path's merge, a node's route classes, the record's events
(D-13, D-36 v3.48).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from network.record import models as m
from network.record.derive._common import norm_date
from network.record.derive._index import _check, _ix
from network.record.derive._shared import _postmortems
from network.record.read.loader import Graph


def merge_of(graph: Graph, path: str) -> dict[str, Any] | None:
    """The first merge record naming ``path`` among its artifacts (ruling 2), or None.

    Returns:
        ``{seq, merge_commit, date, pull_request}``; ``date`` a full ISO-8601 UTC timestamp.
        The site links a proof "at the merged commit" with it (D-36).
    """
    ix = _ix(graph)
    seq = ix.merge_seq_of.get(path)
    if seq is None:
        return None
    for mr in graph.merges:
        if mr.record.seq == seq:
            rec = mr.record
            return {"seq": rec.seq, "merge_commit": rec.merge_commit,
                    "date": norm_date(rec.date), "pull_request": rec.pull_request}
    return None


def route_class_histogram(graph: Graph, target: str, node: str) -> dict[str, int]:
    """How many standing postmortems (D-13) of the node name each ``route_class``, keys
    sorted. Withdrawn postmortems are absent (D-18 v3.27).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    hist = Counter(a.postmortem.route_class for a in _postmortems(ix, ix.node(target, node))
                   if a.postmortem)
    return dict(sorted(hist.items()))


EVENT_KINDS = {
    "statement": "statements proposed",
    "proof": "proofs merged",
    "partial": "partial proofs merged",
    "attempts": "postmortems filed",
    "writeup": "write-ups recorded",
    "review": "reviews recorded",
    "upstream": "results upstreamed",
    "words": "words written",
    "signatures": "signatures given",
}
"""The kinds of home-page event (D-36 v3.48) and the phrase each row reads under."""
_EVENT_ORDER = {k: i for i, k in enumerate(EVENT_KINDS)}


def record_events(graph: Graph) -> list[dict[str, Any]]:
    """What happened lately on the record, newest first (D-36 v3.48).

    Events come from the ledger's active lines (a revoked line is credit withdrawn, not
    news, D-18), each dated by its merge record; and from every standing gloss and
    explainer version (``words``), with its approvals (``signatures``), each dated by the
    version's own ``date``. A ``proof`` line whose artifact is a partial or reduction is a
    ``partial`` event. One day's events of one kind on one target make one row.

    Returns:
        ``[{day: "YYYY-MM-DD", kind, phrase, target, count, items: [{path, identity,
        node}]}]``: days newest first; within a day, kinds in :data:`EVENT_KINDS` order and
        targets by id; items in record order. Never the build's clock (ruling 2).
    """
    ix = _ix(graph)
    revoked = {rf.record.revokes for rf in graph.ledger
               if isinstance(rf.record, m.Revocation) and ix.present(rf.path)}
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def add(day: str, kind: str, target: str, item: dict[str, Any]) -> None:
        rows.setdefault((day, kind, target), []).append(item)

    lines = sorted((rf for rf in graph.ledger if isinstance(rf.record, m.LedgerLine)),
                   key=lambda rf: (rf.record.merge_seq, rf.record.k, rf.path))
    for rf in lines:
        rec = rf.record
        assert isinstance(rec, m.LedgerLine)
        if rf.path in revoked or not ix.present(rf.path):
            continue
        date = ix.merge_date.get(rec.merge_seq)
        if date is None:
            continue
        kind: str = rec.line
        if kind == "proof" and rec.artifact.endswith(("-partial.lean", "-reduction.lean")):
            kind = "partial"
        add(date[:10], kind, rec.target,
            {"path": rec.artifact, "identity": rec.identity, "node": rec.node})
    for tid, t in graph.targets.items():
        for nid, n in t.nodes.items():
            words: list[Any] = sorted([*n.glosses, *n.explainers],
                           key=lambda rf: (norm_date(rf.record.date), rf.path))
            for w in words:
                if not ix.present(w.path):
                    continue
                day = norm_date(w.record.date)[:10]
                add(day, "words", tid, {"path": w.path, "identity": w.record.author,
                                        "node": nid})
                for sig in ix.approved(tid, w.record):
                    add(day, "signatures", tid, {"path": w.path, "identity": sig.signer,
                                                 "node": nid})
    out: list[dict[str, Any]] = [{"day": day, "kind": kind, "phrase": EVENT_KINDS.get(kind, kind), "target": tid,
            "count": len(items), "items": items}
           for (day, kind, tid), items in rows.items()]
    out.sort(key=lambda r: (r["target"]))
    out.sort(key=lambda r: _EVENT_ORDER.get(r["kind"], len(_EVENT_ORDER)))
    out.sort(key=lambda r: r["day"], reverse=True)
    return out
