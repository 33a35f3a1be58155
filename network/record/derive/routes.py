"""A node's routes, a route's holes, liveness and facts (D-12 v3.38, D-14 v3.47,
D-25 v3.40/v3.44/v3.46).
"""

from __future__ import annotations

from typing import Any

from network.record.derive._index import _check, _ix
from network.record.derive._shared import _attempt_facts, _ready_since, _route_alive
from network.record.derive.labels import route_approach
from network.record.read.loader import Graph


def node_routes(graph: Graph, target: str, node: str) -> list[str]:
    """The node's routes: paths of its merged partials and reductions in record order, a
    same-hash revision reading the superseded node's routes first (ruling 4, D-8 v3.46).

    Raises:
        LemmataError: ``unknown-node``.
    """
    ix = _ix(graph)
    _check(ix, target, node)
    return list(ix.routes(target, node))


def route_holes(graph: Graph, target: str, route: str) -> list[str]:
    """The statements a route needs: its holes by k, read through revisions, then the lemma
    edges (D-12 v3.38) the post-merge job recorded with it.

    META.yaml's ``lemmas`` do not name a route; a lemma is attributed to the route merged in
    the same merge record as the META.yaml change, else to the node's newest route.
    """
    return _ix(graph).route_holes(target, route)


def route_alive(graph: Graph, target: str, route: str) -> bool:
    """A route is alive unless retired by a shelving (D-14 v3.47) or one of its holes reads
    refuted or defective (a false member kills its route, D-25 v3.46)."""
    return _route_alive(_ix(graph), target, route)


def route_facts(graph: Graph, target: str, route: str) -> dict[str, Any]:
    """A route's published facts (D-25 v3.40, v3.44).

    Returns:
        ``{route, node, kind, approach, approach_source, alive, retired, holes: [ids],
        count, proved, open, dead, attempts, refuted_route_classes, oldest_ready_since,
        closure}``. ``open`` counts open and blocked holes; ``dead`` refuted and defective
        ones; ``oldest_ready_since`` is the earliest ready_since of its open holes.

    Raises:
        KeyError: the route is not a decomposition of the target.
    """
    ix = _ix(graph)
    owner = ix.t[target].route_owner[route]
    holes = ix.route_holes(target, route)
    sts = [ix.status(target, h) for h in holes]
    refuted: set[str] = set()
    attempts = 0
    ready: list[str] = []
    for h in holes:
        f = _attempt_facts(ix, ix.node(target, h))
        attempts += f["attempts"]
        refuted.update(f["refuted_route_classes"])
        rs = _ready_since(ix, target, h)
        if rs:
            ready.append(rs)
    approach, source = route_approach(graph, target, route)
    closure = None
    for path, rec in ix.closures(target, owner):
        if rec.link == "route" and rec.route == route:
            closure = path
    kind = "reduction" if route.endswith("-reduction.lean") else "partial"
    return {
        "route": route, "node": owner, "kind": kind,
        "approach": approach, "approach_source": source,
        "alive": _route_alive(ix, target, route),
        "retired": ix.route_retired(target, route),
        "holes": holes, "count": len(holes),
        "proved": sum(s == "proved" for s in sts),
        "open": sum(s in ("open", "blocked") for s in sts),
        "dead": sum(s in ("refuted", "defective") for s in sts),
        "attempts": attempts,
        "refuted_route_classes": sorted(refuted),
        "oldest_ready_since": min(ready) if ready else None,
        "closure": closure,
    }


def target_routes(graph: Graph, target: str) -> list[dict[str, Any]]:
    """Every route of the target with its facts, nodes in id order and each node's routes
    in record order (:func:`route_facts`)."""
    ix = _ix(graph)
    out: list[dict[str, Any]] = []
    for n in graph.targets[target].nodes.values():
        for route in ix.own_routes(n):
            out.append(route_facts(graph, target, route))
    return out
