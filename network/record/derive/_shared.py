"""Private helpers that more than one derivation module reads (issue 17's split).

A node's attempt facts and postmortems (D-13), when it entered the ready set (D-25), its
frontier membership, a route's liveness (D-14 v3.47, D-25 v3.46) and a proof's footprint
(the nodes it rests on through closures and deps, D-12 v3.42).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from network.record.derive._common import norm_date
from network.record.derive._index import _Index
from network.record.loader import Attempt, Node


def _footprint(ix: _Index, tid: str, nid: str) -> list[str]:
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


def _postmortems(ix: _Index, n: Node) -> list[Attempt]:
    return [a for a in n.attempts if a.kind == "postmortem" and ix.present(a.path)]


def _attempt_facts(ix: _Index, n: Node) -> dict[str, Any]:
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


def _proved_date(ix: _Index, tid: str, nid: str) -> str | None:
    n = ix.node(tid, nid)
    if ix.file_merged(n, "Proof"):
        return ix.date_of(n.files["Proof"].path)
    path = ix.valid_closure(tid, nid, "proved")
    if path is not None:
        for p, rec in ix.closures(tid, nid):
            if p == path:
                return ix.date_of(p) or ix.merge_date.get(rec.merge_seq)
    return None


def _ready_since(ix: _Index, tid: str, nid: str) -> str | None:
    key = (tid, nid)
    if key not in ix._ready:
        ix._ready[key] = _ready_since_uncached(ix, tid, nid)
    return ix._ready[key]


def _ready_since_uncached(ix: _Index, tid: str, nid: str) -> str | None:
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


def _on_frontier(ix: _Index, tid: str, nid: str) -> bool:
    if ix.status(tid, nid) not in ("open", "blocked"):
        return False
    if ix.shelved(tid, nid) or ix.disputed(tid, nid):
        return False
    for dep in ix.node(tid, nid).meta.deps:
        if not ix.has(tid, dep) or ix.status(tid, ix.current(tid, dep)) != "proved":
            return False
    return True


def _route_alive(ix: _Index, tid: str, route: str) -> bool:
    if ix.route_retired(tid, route):
        return False
    return not any(ix.status(tid, h) in ("refuted", "defective")
                   for h in ix.route_holes(tid, route))
