"""Private helpers that more than one derivation module reads (issue 17's split).

A node's attempt facts and postmortems (D-13), when it entered the ready set (D-25), its
frontier membership, a route's liveness (D-14 v3.47, D-25 v3.46) and a proof's footprint
(the nodes it rests on through closures and deps, D-12 v3.42); and the rules the index's
closure and dormancy derivations call: whether a root is vouched and a target's status
(D-33), read over an index passed in, so this module imports the index only for its type.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from network.record.derive._common import (
    CATALOG_EVIDENCE_POINTS,
    CLOSED,
    GRADES_VOUCHING,
    IndexView,
    TargetStatus,
    norm_date,
)
from network.record.read.loader import Attempt, Graph, Node


def _footprint(ix: IndexView, tid: str, nid: str) -> list[str]:
    """Nodes the node's proof rests on, itself first, through closures and deps."""
    out: list[str] = []
    stack = [nid]
    while stack:
        x = stack.pop()
        if x in out or not ix.has(tid, x):
            continue
        out.append(x)
        n = ix.node(tid, x)
        if ix.file_merged(n, "Proof") or ix.file_merged(n, "Refutation"):
            stack.extend(reversed([ix.current(tid, d) for d in n.meta.deps]))
            continue
        for path, rec in ix.closures(tid, x):
            if ix.closure_holds(tid, rec):
                stack.extend(reversed([i.node for i in rec.inputs]))
                break
    return out


def _postmortems(ix: IndexView, n: Node) -> list[Attempt]:
    return [a for a in n.attempts if a.kind == "postmortem" and ix.present(a.path)]


def _attempt_facts(ix: IndexView, n: Node) -> dict[str, Any]:
    key = (n.ref.target, n.ref.node)
    if key not in ix._facts:
        pms = _postmortems(ix, n)
        refuted: list[str] = sorted({a.postmortem.route_class for a in pms
                                     if a.postmortem and a.postmortem.outcome == "refuted-route"})
        hist = Counter(a.postmortem.failure_class for a in pms if a.postmortem)
        ix._facts[key] = (len(pms) + len(ix.own_routes(n)), refuted, sorted(hist.items()))
    facts = ix._facts[key]
    return {"attempts": facts[0],
            "refuted_route_classes": list(facts[1]),
            "failure_classes": dict(facts[2])}


def _proved_date(ix: IndexView, tid: str, nid: str) -> str | None:
    n = ix.node(tid, nid)
    if ix.file_merged(n, "Proof"):
        return ix.date_of(n.files["Proof"].path)
    path = ix.valid_closure(tid, nid, "proved")
    if path is not None:
        for p, rec in ix.closures(tid, nid):
            if p == path:
                return ix.date_of(p) or ix.merge_date.get(rec.merge_seq)
    return None


def _ready_since(ix: IndexView, tid: str, nid: str) -> str | None:
    key = (tid, nid)
    if key not in ix._ready:
        ix._ready[key] = _ready_since_uncached(ix, tid, nid)
    return ix._ready[key]


def _ready_since_uncached(ix: IndexView, tid: str, nid: str) -> str | None:
    if ix.status(tid, nid) != "open":
        return None
    n = ix.node(tid, nid)
    d = ix.dir_of(n)
    dates: list[str | None] = [ix.date_of(f"{d}/Statement.lean") or ix.date_of(f"{d}/META.yaml")]
    if dates[0] is None and n.meta.hole is not None:
        dates[0] = ix.date_of(n.meta.hole.route)
    if dates[0] is None and ix.is_root(tid, nid):
        dates[0] = norm_date(ix.g.targets[tid].record.listed)
    if "Witness" in n.files and n.meta.hole is not None:
        dates.append(ix.date_of(n.files["Witness"].path))
    for dep in n.meta.deps:
        if not ix.has(tid, dep):
            return None
        cur = ix.current(tid, dep)
        if ix.status(tid, cur) != "proved":
            return None
        dates.append(_proved_date(ix, tid, cur))
    known = [x for x in dates if x]
    return max(known) if known else None


def _on_frontier(ix: IndexView, tid: str, nid: str) -> bool:
    if ix.status(tid, nid) not in ("open", "blocked"):
        return False
    if ix.shelved(tid, nid) or ix.disputed(tid, nid):
        return False
    for dep in ix.node(tid, nid).meta.deps:
        if not ix.has(tid, dep) or ix.status(tid, ix.current(tid, dep)) != "proved":
            return False
    return True


def _route_alive(ix: IndexView, tid: str, route: str) -> bool:
    if ix.route_retired(tid, route):
        return False
    return not any(ix.status(tid, h) in ("refuted", "defective")
                   for h in ix.route_holes(tid, route))


def completed_review_vouches(graph: Graph, target: str) -> bool:
    """Whether a completed, non-background formalization review vouches for the root
    (D-9 v3.39). The review record is not modelled yet, so this is always False."""
    return False


def root_vouched_ix(ix: IndexView, tid: str) -> bool:
    """:func:`root_vouched` over an index (private helper shared by closure)."""
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None and ix.disputed(tid, root):
        return False
    rec = t.record
    if rec.calibration or rec.target_class == "calibration":
        return True
    if rec.fidelity.grade in GRADES_VOUCHING:
        return True
    if rec.fidelity.catalog_evidence_points >= CATALOG_EVIDENCE_POINTS:
        return True
    return completed_review_vouches(ix.g, tid)


def target_status_ix(ix: IndexView, tid: str) -> TargetStatus:
    """:func:`target_status` over an index (private helper)."""
    if tid in ix._target_status:
        return ix._target_status[tid]
    ix._target_status[tid] = TargetStatus("listed")  # recursion guard
    val = _target_status_uncached(ix, tid)
    ix._target_status[tid] = val
    return val


def _target_status_uncached(ix: IndexView, tid: str) -> TargetStatus:
    t = ix.g.targets[tid]
    root = ix.root_of(tid)
    if root is not None:
        st = ix.status(tid, root)
        if st in CLOSED:
            return TargetStatus("resolved", _digestion(ix, tid, root), st)
    cur = ix.curators_of(tid)
    recs = sorted(((norm_date(rf.record.date), rf.path, rf.record) for rf in t.status_records
                   if ix.present(rf.path) and rf.record.curator in cur
                   and ix.role_signed(rf.path, rf.record, rf.record.curator, rf.record.date,
                                      tid, stewards=False)),
                  key=lambda x: (x[0], x[1]))
    if not recs:
        return TargetStatus("listed")
    date, path, rec = recs[-1]
    if rec.declaration == "dormant":
        progress = _progress_since(ix, tid, date, ix.merge_seq_of.get(path))
        if progress is not None:
            return TargetStatus("active", declaration=path, reactivated_by=progress)
    return TargetStatus(rec.declaration, declaration=path)


def _is_progress_path(ix: IndexView, tid: str, path: str) -> bool:
    parts = path.split("/")
    if len(parts) < 5 or parts[0] != "targets" or parts[1] != tid or parts[2] != "nodes":
        return False
    nid, rest = parts[3], "/".join(parts[4:])
    if rest in ("Proof.lean", "Refutation.lean", "Vacuity.lean"):
        return True
    if rest.startswith("attempts/") and (rest.endswith(("-partial.lean", "-reduction.lean"))):
        return True
    if rest in ("Statement.lean", "META.yaml") and ix.has(tid, nid):
        return ix.node(tid, nid).meta.variant is not None
    if rest.endswith("-postmortem.yaml") and ix.has(tid, nid):
        for a in ix.node(tid, nid).attempts:
            if a.path == path and a.postmortem is not None:
                return a.postmortem.outcome == "refuted-route"
    return False


def _progress_since(ix: IndexView, tid: str, date: str, seq: int | None) -> str | None:
    for mr in ix.g.merges:
        rec = mr.record
        later = rec.seq > seq if seq is not None else norm_date(rec.date) > date
        if not later:
            continue
        for p in rec.artifacts:
            if _is_progress_path(ix, tid, p):
                return p
    return None


def _digestion(ix: IndexView, tid: str, root: str) -> str:
    footprint = _footprint(ix, tid, root)
    for nid in footprint:
        n = ix.node(tid, nid)
        proof = n.files.get("Proof")
        if proof is None:
            if ix.proved_by_closure(tid, nid):
                continue  # the join earns nothing and needs no explainer of its own
            return "undigested"
        ok = any(rf.record.describes == proof.path and ix.present(rf.path)
                 and ix.approved(tid, rf.record) for rf in n.explainers)
        if not ok:
            return "undigested"
    return "explained"
