"""Sufficient sets and the selector tree over them (D-25 v3.40, v3.44, v3.46, v3.47)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from network.record.derive._common import SET_ENUMERATION_CAP
from network.record.derive._index import _Index, _ix
from network.record.derive._shared import _route_alive
from network.record.derive.labels import node_label, route_approach
from network.record.read.loader import Graph

# A persistent singly linked list: (head, tail) pairs, None for empty. Prepending is O(1),
# so a branch shares everything after its own additions.
_Cons = tuple[str, "_Cons"] | None
_ConsPair = tuple[tuple[str, str], "_ConsPair"] | None


@dataclass
class _Enum:
    ix: _Index
    tid: str
    cap: int
    root: str | None
    results: list[tuple[list[str], list[tuple[str, str]], _ConsPair]] = field(
        default_factory=list)
    truncated: bool = False
    alts: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)

    def alternatives(self, nid: str) -> list[tuple[str, list[str]]]:
        if nid not in self.alts:
            self.alts[nid] = _alternatives(self.ix, self.tid, nid, at_root=(nid == self.root))
        return self.alts[nid]


def _alternatives(ix: _Index, tid: str, nid: str, *, at_root: bool) -> list[tuple[str, list[str]]]:
    """The OR choices of a node: its alive routes, and at the root each resolves variant
    as a one-member link. Empty when the node is proved or has no alive alternative."""
    if ix.status(tid, nid) == "proved":
        return []
    alts = [(r, ix.route_holes(tid, r)) for r in ix.routes(tid, nid)
            if _route_alive(ix, tid, r)]
    alts = [(r, hs) for r, hs in alts if hs]
    if at_root:
        for v in ix.t[tid].variants:
            rel = ix.node(tid, v).meta.variant
            if (rel is not None and rel.relation == "resolves"
                    and ix.file_merged(ix.node(tid, v), "Relation")
                    and ix.status(tid, v) not in ("refuted", "defective", "superseded")):
                alts.append((f"resolves:{v}", [v]))
    return alts


def _unlink(xs: _Cons) -> list[str]:
    out: list[str] = []
    while xs is not None:
        out.append(xs[0])
        xs = xs[1]
    out.reverse()
    return out


def _unlink_pairs(xs: _ConsPair) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    while xs is not None:
        out.append(xs[0])
        xs = xs[1]
    out.reverse()
    return out


def _enumerate(e: _Enum, start: str, first_choice: tuple[str, str] | None) -> None:
    """Depth-first enumeration of consistent choices of routes: one alternative per node,
    a shared node choosing once. Nodes with a single alternative are expanded in place;
    only real forks recurse, and the ``seen`` set is restored by a trail on backtrack, so
    each set costs time proportional to the nodes it reaches."""
    seen: set[str] = set()
    trail: list[str] = []

    def rec(work: _Cons, members: _Cons, order: _ConsPair, links: _ConsPair) -> None:
        while work is not None:
            if len(e.results) >= e.cap:
                e.truncated = True
                return
            x, work = work
            if x in seen:
                continue
            alts = e.alternatives(x)
            seen.add(x)
            trail.append(x)
            if not alts:
                members = (x, members)
                continue
            if len(alts) == 1:
                alt, holes = alts[0]
                links = ((x, alt), links)
                for h in reversed(holes):
                    work = (h, work)
                continue
            mark = len(trail)
            for alt, holes in alts:
                if len(e.results) >= e.cap:
                    e.truncated = True
                    return
                branch = work
                for h in reversed(holes):
                    branch = (h, branch)
                rec(branch, members, ((x, alt), order), ((x, alt), links))
                while len(trail) > mark:
                    seen.discard(trail.pop())
            return
        e.results.append((_unlink(members), _unlink_pairs(order), links))

    first: _ConsPair = (first_choice, None) if first_choice else None
    rec((start, None), None, first, first)


class _MemberFacts:
    """Status and shelving of set members for :func:`sufficient_sets`, asked in the same
    order as one call per member per set would ask them (so memoised values, cycle guards
    included, come out the same), answered for a whole set at once once every member is
    known."""

    def __init__(self, ix: _Index, target: str) -> None:
        self.ix = ix
        self.target = target
        self.statuses: dict[str, str] = {}
        self.known: set[str] = set()
        self.unproved: set[str] = set()
        self.cleared: set[str] = set()
        self.excluded: set[str] = set()

    def status(self, x: str) -> str:
        st = self.statuses.get(x)
        if st is None:
            st = self.statuses[x] = self.ix.status(self.target, x)
            self.known.add(x)
            if st != "proved":
                self.unproved.add(x)
        return st

    def rests_on_shelved(self, members: list[str], member_set: frozenset[str]) -> bool:
        """Whether some member is shelved and not proved (D-14 v3.47)."""
        if member_set <= self.cleared:
            return False
        for x in members:
            if x in self.cleared:
                continue
            if x in self.excluded:
                return True
            if self.ix.shelved(self.target, x) and self.status(x) != "proved":
                self.excluded.add(x)
                return True
            self.cleared.add(x)
        return False

    def count_unproved(self, members: list[str], member_set: frozenset[str]) -> int:
        """How many of ``members`` (a list, duplicates counted) are not proved."""
        if len(member_set) != len(members) or not member_set <= self.known:
            return sum(self.status(x) != "proved" for x in members)
        return len(member_set & self.unproved)


def sufficient_sets(graph: Graph, target: str,
                    cap: int = SET_ENUMERATION_CAP) -> dict[str, Any]:
    """Every sufficient set of the target, both sides (D-25 v3.40, v3.44, v3.46, v3.47).

    A set is the finest cut one choice of routes makes: a node is expanded into an alive
    route wherever it has one (at the root, a resolves variant is a one-member alternative),
    taken directly where none is, and a proved node ends the cut as a member. A choice of
    routes picks one alternative per node, so a hole shared by two branches (a lemma, D-12
    v3.38) chooses once: the enumeration is per choice of routes, deduplicated by members,
    never the unrolled OR tree. The ``refutes`` side enumerates each alive refutes variant's
    routes the same way. Sets resting on a shelved, unproved statement are omitted (v3.47).
    Listed in the record's order, never ranked. At most ``cap`` sets per side are
    enumerated; ``truncated`` says when the cap cut the list short.

    Returns:
        ``{cap, truncated, sets: [{side, members, choices: [{node, route}], count, proved,
        open, assemblies_needed, assemblies: [{node, route}], shared}]}``. ``choices`` are
        the forks: nodes with more than one alive alternative, with the one this set takes
        (a refutes set opens with ``{root, "refutes:<variant>"}``). ``assemblies_needed``
        counts the links through nodes not yet proved (joins still to submit or close);
        ``assemblies`` names them once every member is proved (v3.40), else is empty.
        ``shared`` counts members another set also has. Empty when there is no root.

    Raises:
        KeyError: no such target.
    """
    ix = _ix(graph)
    t = graph.targets[target]
    root = ix.root_of(target)
    out: dict[str, Any] = {"cap": cap, "truncated": False, "sets": []}
    if root is None:
        return out
    raw: list[tuple[str, list[str], list[tuple[str, str]], _ConsPair]] = []
    e = _Enum(ix, target, cap, root)
    _enumerate(e, root, None)
    raw += [("proves", mem, order, links) for mem, order, links in e.results]
    truncated = e.truncated
    for v in ix.t[target].variants:
        rel = t.nodes[v].meta.variant
        if (rel is None or rel.relation != "refutes" or ix.current(target, v) != v
                or not ix.file_merged(t.nodes[v], "Relation")
                or ix.status(target, v) in ("refuted", "defective")):
            continue
        ev = _Enum(ix, target, cap, None)
        _enumerate(ev, v, (root, f"refutes:{v}"))
        raw += [("refutes", mem, order, links) for mem, order, links in ev.results]
        truncated = truncated or ev.truncated
    sets: list[dict[str, Any]] = []
    seen: set[tuple[str, frozenset[str]]] = set()
    facts = _MemberFacts(ix, target)
    for side, members, order, links in raw:
        member_set = frozenset(members)
        key = (side, member_set)
        if key in seen:
            continue
        seen.add(key)
        if facts.rests_on_shelved(members, member_set):
            continue
        n_open = facts.count_unproved(members, member_set)
        needed = [(n, r) for n, r in _unlink_pairs(links)
                  if not r.startswith("refutes:") and facts.status(n) != "proved"]
        sets.append({
            "side": side,
            "members": members,
            "choices": [{"node": n, "route": r} for n, r in order],
            "count": len(members),
            "proved": len(members) - n_open,
            "open": n_open,
            "assemblies_needed": len(needed),
            "assemblies": [{"node": n, "route": r} for n, r in needed] if n_open == 0 else [],
        })
    counts: Counter[str] = Counter()
    for s in sets:
        counts.update(set(s["members"]))
    multi = {x for x, c in counts.items() if c > 1}
    for s in sets:
        mem = s["members"]
        s["shared"] = (len(multi.intersection(mem)) if len(set(mem)) == len(mem)
                       else sum(1 for x in mem if counts[x] > 1))
    out["sets"] = sets
    out["truncated"] = truncated
    return out


def selector(graph: Graph, target: str, sets: dict[str, Any] | None = None) -> dict[str, Any]:
    """The selector tree over the sufficient sets (D-25 v3.44, v3.46), built from the sets
    alone, never from the graph.

    It opens on a fork between the sides when both exist; below, a family of sets is split,
    in record order, on the first route choice on which its sets differ. Each leaf is one
    set (``{"set": index}`` into ``sets``); each interior node ``{"node", "label",
    "branches": [{"route", "approach", "tree"}]}`` or, for the side fork,
    ``{"fork": "side", "branches": [{"side", "tree"}]}``. ``None``-valued branch routes mean
    the sets of that branch make no choice at that node. Nothing is ranked.
    """
    data = sets if sets is not None else sufficient_sets(graph, target)
    items = list(enumerate(data["sets"]))
    if not items:
        return {"empty": True}
    sides = list(dict.fromkeys(s["side"] for _, s in items))
    if len(sides) > 1:
        return {"fork": "side", "branches": [
            {"side": side, "tree": _split(graph, target, [x for x in items if x[1]["side"] == side])}
            for side in sides]}
    return _split(graph, target, items)


def _split(graph: Graph, target: str, items: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    if len(items) == 1:
        return {"set": items[0][0]}
    choice_maps = [{c["node"]: c["route"] for c in s["choices"]} for _, s in items]
    nodes: list[str] = []
    for _, s in items:
        for c in s["choices"]:
            if c["node"] not in nodes:
                nodes.append(c["node"])
    for nid in nodes:
        values = [cm.get(nid) for cm in choice_maps]
        if len(set(values)) > 1:
            groups: dict[str | None, list[tuple[int, dict[str, Any]]]] = {}
            for v, it in zip(values, items):
                groups.setdefault(v, []).append(it)
            branches = []
            for v, group in groups.items():
                approach = None
                if v and not v.startswith(("resolves:", "refutes:")):
                    approach = route_approach(graph, target, v)[0]
                branches.append({"route": v, "approach": approach,
                                 "tree": _split(graph, target, group)})
            return {"node": nid, "label": node_label(graph, target, nid).label,
                    "branches": branches}
    return {"sets": [i for i, _ in items]}  # identical choices: cannot happen after dedupe
