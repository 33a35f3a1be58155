"""The target drawing's layout: Graphviz ``dot`` over the target's graph, deterministic.

The layout is a pure function of the *structure* of a target's graph view
(:func:`network.record.derive.graph_view`): node ids, edges and routes, in the record's
order. Statuses, labels and flags never enter it, so a status change recolours a node
without moving anything, and a build with an unchanged graph draws every node where it
was (D-36 "a layout that never moves").

What is drawn where (D-14 v3.26 as amended, D-25 v3.44/v3.46, D-36):

* the *tree*: every statement joined to the root by a line the drawing draws (a route to
  its holes, a declared dependency, a variant's checked relation), laid out by ``dot``
  top to bottom, with one small box per route (labelled by its approach at render) between
  a node and its holes;
* the *band*: every other statement that is not superseded (proposed cruxes, related
  variants, their holes), one per row in a column at the top right; its lines are drawn
  only while lit;
* superseded statements are drawn nowhere.

``dot`` (Graphviz, a Debian package) was chosen over pure-Python Sugiyama implementations
because it is the best-kept layered layout engine, is deterministic for a given input and
version, and lays out a 1,000-node target in well under a second.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from network import proc
from network.errors import LemmataError, define

define("site-tool-missing", None, 500, "A program the site build needs is not installed.",
       "Install Graphviz (the Debian package graphviz) so that `dot` is on PATH.")
define("site-layout-failed", None, 500, "Graphviz could not lay out a target's graph.",
       "Run the build with --debug and report the dot input it names as a bug.")

PX_PER_INCH = 72.0
NODE_W, NODE_H = 168.0, 44.0
ROUTE_W, ROUTE_H = 120.0, 24.0
BAND_GAP = 48.0
BAND_ROW = 56.0
MARGIN = 12.0
DOT_TIMEOUT_S = 120.0
TREE_RELATIONS = frozenset({"resolves", "refutes", "partial"})


@dataclass(frozen=True)
class Box:
    """One drawn box, in pixels, (x, y) its centre, y growing downwards.

    ``kind`` is ``statement`` (a node, ``key`` its id) or ``route`` (``key`` the route's
    path); ``band`` says whether it sits in the band of proposed statements.
    """

    key: str
    kind: str
    x: float
    y: float
    w: float
    h: float
    band: bool = False


@dataclass(frozen=True)
class Line:
    """One drawn line: SVG path data ``d`` in pixels from ``source`` to ``target`` keys.

    ``kind`` is ``route`` (node → route box), ``hole`` (route box → hole), ``dep``,
    ``lemma`` or ``variant`` (with ``relation``); ``lit_only`` lines are drawn only while
    one of their ends is lit (the band's lines, D-14 v3.26).
    """

    source: str
    target: str
    kind: str
    d: str
    relation: str | None = None
    lit_only: bool = False


@dataclass
class Layout:
    """A target's drawing: its size in pixels, boxes, lines, and the ids drawn nowhere."""

    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    undrawn: list[str] = field(default_factory=list)
    neighbourhood: str | None = None
    """Set when only this statement's neighbourhood is laid out (a large target, issue 15:
    :func:`network.site.pages.drawn_view`)."""


def dot_program() -> str:
    """The path of Graphviz's ``dot``.

    Raises:
        LemmataError: ``site-tool-missing`` when it is not on PATH.
    """
    found = shutil.which("dot")
    if found is None:
        raise LemmataError("site-tool-missing", "`dot` (Graphviz) is not on PATH")
    return found


def _root(view: dict[str, Any]) -> str | None:
    nodes = {n["id"]: n for n in view["nodes"]}
    root = "root" if "root" in nodes else None
    seen: set[str] = set()
    while root is not None and nodes[root].get("superseded_by") and root not in seen:
        seen.add(root)
        root = nodes[root]["superseded_by"]
    return root


def split_tree_band(view: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """Which statements sit in the tree, the band, or nowhere (D-14 v3.26 as amended).

    The tree is what the root reaches through drawn lines (hole, dep, and a checked
    variant relation of kind resolves/refutes/partial), both directions; the band is every
    other statement that is not superseded; superseded statements are drawn nowhere. A
    target without a root draws every statement in its tree.

    Returns:
        ``(tree, band, undrawn)``: node ids, each in the record's order.
    """
    nodes = [n for n in view["nodes"]]
    live = [n["id"] for n in nodes if n["status"] != "superseded"]
    undrawn = [n["id"] for n in nodes if n["status"] == "superseded"]
    live_set = set(live)
    root = _root(view)
    if root is None:
        return live, [], undrawn
    checked = {n["id"] for n in nodes if "Relation" in n["merged"]}
    adj: dict[str, list[str]] = {x: [] for x in live}
    for e in view["edges"]:
        a, b = e["from"], e["to"]
        if a not in live_set or b not in live_set:
            continue
        if e["kind"] == "hole" or e["kind"] == "dep" or (
                e["kind"] == "variant" and e.get("relation") in TREE_RELATIONS
                and a in checked):
            adj[a].append(b)
            adj[b].append(a)
    tree: set[str] = set()
    stack = [root] if root in live_set else []
    while stack:
        x = stack.pop()
        if x in tree:
            continue
        tree.add(x)
        stack.extend(adj[x])
    return ([x for x in live if x in tree], [x for x in live if x not in tree], undrawn)


def _tree_edges(view: dict[str, Any], tree: set[str]) -> list[tuple[str, str, str, str | None]]:
    """The tree's lines as ``(source key, target key, kind, relation)``, deduplicated,
    in the record's order. A route is a box of its own: node → route → holes."""
    out: list[tuple[str, str, str, str | None]] = []
    seen: set[tuple[str, str]] = set()

    def add(a: str, b: str, kind: str, rel: str | None = None) -> None:
        if (a, b) not in seen and a != b:
            seen.add((a, b))
            out.append((a, b, kind, rel))

    for r in view["routes"]:
        if r["node"] in tree:
            add(r["node"], "route:" + r["route"], "route")
            for h in r["holes"]:
                if h in tree:
                    add("route:" + r["route"], h, "hole")
    for e in view["edges"]:
        a, b = e["from"], e["to"]
        if a not in tree or b not in tree:
            continue
        if e["kind"] == "hole" and e.get("route"):
            add(a, "route:" + e["route"], "route")
            add("route:" + e["route"], b, "hole")
        elif e["kind"] in ("dep", "lemma"):
            add(a, b, e["kind"])
        elif e["kind"] == "variant":
            add(b, a, "variant", e.get("relation"))  # drawn below what it varies
    return out


def dot_source(view: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The DOT text laying out the tree of ``view`` and the map from DOT names to keys.

    DOT names are ``n<i>`` / ``r<i>`` by first appearance in the record's order, so no id
    ever needs quoting and the text is a pure function of the graph's structure.
    """
    tree, _, _ = split_tree_band(view)
    tset = set(tree)
    edges = _tree_edges(view, tset)
    names: dict[str, str] = {}
    lines = ["digraph G {", "graph [rankdir=TB, nodesep=0.25, ranksep=0.5, ordering=out];",
             (f"node [shape=box, fixedsize=true, width={NODE_W / PX_PER_INCH:.4f}, "
              f"height={NODE_H / PX_PER_INCH:.4f}, label=\"\"];"), "edge [arrowhead=none];"]

    def name(key: str) -> str:
        if key not in names:
            if key.startswith("route:"):
                names[key] = f"r{len(names)}"
                lines.append(f"{names[key]} [width={ROUTE_W / PX_PER_INCH:.4f}, "
                             f"height={ROUTE_H / PX_PER_INCH:.4f}];")
            else:
                names[key] = f"n{len(names)}"
                lines.append(f"{names[key]};")
        return names[key]

    for nid in tree:
        name(nid)
    for a, b, kind, _ in edges:
        na, nb = name(a), name(b)
        attr = " [constraint=false]" if kind == "lemma" else ""
        lines.append(f"{na} -> {nb}{attr};")
    lines.append("}")
    return "\n".join(lines) + "\n", {v: k for k, v in names.items()}


def _path(points: Iterable[tuple[float, float]]) -> str:
    pts = list(points)
    if not pts:
        return ""
    head = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
    rest = []
    for i in range(1, len(pts) - 2, 3):
        (x1, y1), (x2, y2), (x3, y3) = pts[i], pts[i + 1], pts[i + 2]
        rest.append(f"C{x1:.1f},{y1:.1f} {x2:.1f},{y2:.1f} {x3:.1f},{y3:.1f}")
    return head + "".join(rest)


def parse_plain(text: str, keys: dict[str, str]) -> tuple[float, float, dict[str, tuple[float, float, float, float]], dict[tuple[str, str], str]]:
    """Parse ``dot -Tplain`` output into pixels: ``(width, height, boxes, paths)``.

    ``boxes`` maps a key to ``(x, y, w, h)`` (centre, y downwards); ``paths`` maps
    ``(source key, target key)`` to SVG path data.

    Raises:
        LemmataError: ``site-layout-failed`` on output that is not dot's plain format.
    """
    width = height = 0.0
    boxes: dict[str, tuple[float, float, float, float]] = {}
    paths: dict[tuple[str, str], str] = {}
    try:
        for raw in text.splitlines():
            f = raw.split()
            if not f:
                continue
            if f[0] == "graph":
                width, height = float(f[2]) * PX_PER_INCH, float(f[3]) * PX_PER_INCH
            elif f[0] == "node":
                x, y = float(f[2]) * PX_PER_INCH, height - float(f[3]) * PX_PER_INCH
                boxes[keys[f[1]]] = (x, y, float(f[4]) * PX_PER_INCH, float(f[5]) * PX_PER_INCH)
            elif f[0] == "edge":
                n = int(f[3])
                pts = [(float(f[4 + 2 * i]) * PX_PER_INCH,
                        height - float(f[5 + 2 * i]) * PX_PER_INCH) for i in range(n)]
                paths[(keys[f[1]], keys[f[2]])] = _path(pts)
    except (IndexError, ValueError, KeyError) as exc:
        raise LemmataError("site-layout-failed", f"unreadable dot output: {exc}") from exc
    return width, height, boxes, paths


def _straight(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> str:
    return f"M{a[0]:.1f},{a[1]:.1f}L{b[0]:.1f},{b[1]:.1f}"


def layout_target(view: dict[str, Any], dot: str | None = None) -> Layout:
    """Lay out one target's drawing (see the module docstring for what goes where).

    Args:
        view: the target's :func:`~network.record.derive.graph_view`.
        dot: the ``dot`` program; found on PATH when None.

    Returns:
        A :class:`Layout` in pixels; identical for identical graph structure.

    Raises:
        LemmataError: ``site-tool-missing``; ``site-layout-failed`` when dot fails.
    """
    return layout_targets([view], dot)[0]


DOT_BATCH = 64
"""Targets laid out by one ``dot`` process (one graph after another on its input, each
answered by one ``-Tplain`` block ending in ``stop``): 988 targets are 16 processes, not
988 (issue 15: the Erdős site's layout stage)."""


def layout_targets(views: list[dict[str, Any]], dot: str | None = None) -> list[Layout]:
    """Lay out several targets' drawings with one ``dot`` run; the same layouts as
    :func:`layout_target` of each, in order (dot lays out each graph of its input on its
    own).

    Raises:
        LemmataError: ``site-tool-missing``; ``site-layout-failed`` when dot fails or
            answers a different number of graphs than it was given.
    """
    srcs: list[tuple[str, dict[str, str]] | None] = [
        dot_source(v) if split_tree_band(v)[0] else None for v in views]
    texts: list[str | None] = [None] * len(views)
    todo = [i for i, x in enumerate(srcs) if x is not None]
    if todo:
        feed = "".join(srcs[i][0] for i in todo)  # type: ignore[index]
        res = proc.run([dot or dot_program(), "-Tplain"], input_bytes=feed.encode(),
                       timeout_s=DOT_TIMEOUT_S * len(todo))
        if res.rc != 0:
            raise LemmataError("site-layout-failed", f"dot exited {res.rc}: {res.err[:500]}")
        blocks = [b for b in res.out.split("stop\n") if b.strip()]
        if len(blocks) != len(todo):
            raise LemmataError("site-layout-failed",
                               f"dot answered {len(blocks)} graphs for {len(todo)}")
        for i, block in zip(todo, blocks):
            texts[i] = block
    return [_layout_from(v, texts[i], srcs[i][1] if srcs[i] else {})  # type: ignore[index]
            for i, v in enumerate(views)]


def _layout_from(view: dict[str, Any], plain: str | None, keys: dict[str, str]) -> Layout:
    """One target's :class:`Layout` from dot's plain answer for its tree (None: no tree)."""
    tree, band, undrawn = split_tree_band(view)
    out = Layout(0.0, 0.0, undrawn=undrawn)
    tset = set(tree)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    width = height = 0.0
    if tree and plain is not None:
        width, height, boxes, paths = parse_plain(plain, keys)
        for key, (x, y, w, h) in boxes.items():
            kind = "route" if key.startswith("route:") else "statement"
            out.boxes.append(Box(key[6:] if kind == "route" else key, kind,
                                 x + MARGIN, y + MARGIN, w, h))
        for a, b, kind, rel in _tree_edges(view, tset):
            d = paths.get((a, b)) or _straight(boxes[a], boxes[b])
            out.lines.append(Line(a.removeprefix("route:"), b.removeprefix("route:"),
                                  kind, _shift(d), rel))
    # the band: one statement per row at the top right, related ones adjacent
    bx = (width + MARGIN + BAND_GAP + NODE_W / 2) if tree else MARGIN + NODE_W / 2
    band_pos: dict[str, tuple[float, float, float, float]] = {}
    for i, nid in enumerate(_band_order(view, band)):
        y = MARGIN + NODE_H / 2 + i * BAND_ROW
        band_pos[nid] = (bx, y, NODE_W, NODE_H)
        out.boxes.append(Box(nid, "statement", bx, y, NODE_W, NODE_H, band=True))
    every = {**{k: (x + MARGIN, y + MARGIN, w, h) for k, (x, y, w, h) in boxes.items()},
             **band_pos}
    for e in view["edges"]:
        a, b = e["from"], e["to"]
        if (a in band_pos or b in band_pos) and a in every and b in every and a != b:
            out.lines.append(Line(a, b, e["kind"], _straight(every[a], every[b]),
                                  e.get("relation"), lit_only=True))
    out.width = max(width + 2 * MARGIN, (bx + NODE_W / 2 + MARGIN) if band else 0.0, 200.0)
    band_h = MARGIN * 2 + len(band) * BAND_ROW
    out.height = max(height + 2 * MARGIN, band_h, 80.0)
    return out


def _shift(d: str) -> str:
    """Move path data by the drawing's margin (dot's coordinates start at 0)."""
    out: list[str] = []
    for part in d.replace("C", " C ").replace("M", " M ").replace("L", " L ").split():
        if part in ("C", "M", "L"):
            out.append(part)
            continue
        x, y = part.split(",")
        out.append(f"{float(x) + MARGIN:.1f},{float(y) + MARGIN:.1f}")
    text = ""
    for tok in out:
        text += tok if tok in ("C", "M", "L") else (tok + " ")
    return text.strip()


def _band_order(view: dict[str, Any], band: list[str]) -> list[str]:
    """Band rows: each statement followed by the band statements it cut (its holes),
    depth first, so related ones are adjacent; otherwise the record's order."""
    bset = set(band)
    children: dict[str, list[str]] = {}
    has_parent: set[str] = set()
    for e in view["edges"]:
        if e["kind"] == "hole" and e["from"] in bset and e["to"] in bset:
            children.setdefault(e["from"], []).append(e["to"])
            has_parent.add(e["to"])
    order: list[str] = []

    def visit(x: str) -> None:
        if x in order:
            return
        order.append(x)
        for c in children.get(x, []):
            visit(c)

    for nid in band:
        if nid not in has_parent:
            visit(nid)
    for nid in band:
        visit(nid)
    return order
