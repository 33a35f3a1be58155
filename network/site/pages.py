"""Page contexts: what each page shows, assembled from network/record's derivations (D-36).

Nothing here derives a fact of the record: statuses, flags, labels, routes, sufficient
sets, the selector, proofs, the frontier, the ledger views and the recent events all come
from :mod:`network.record.derive`. This module only selects, orders for display and links
them, and attaches the drawing's layout and the typeset notation.
"""

from __future__ import annotations

import re
from typing import Any

from network.record import derive
from network.record.read.loader import Graph, Node
from network.site import gate_log
from network.site.layout import Layout

STATUS_WORDS = {
    "open": "open", "blocked": "blocked (waits for a witness)", "proved": "proved",
    "refuted": "refuted", "defective": "defective (vacuous)", "superseded": "superseded",
}
"""Every node status (Foundation ruling 1) with the words the drawing's key uses."""
LITERATURE_WORDS = {
    "known-true": "known true in the literature", "known-false": "known false in the literature",
    "open": "open in the literature", "partial-results": "partial results in the literature",
    "unknown": "literature status unknown",
}
"""Every literature status (D-25 v3.35/v3.45) with the words the drawing's key uses."""
BANNER_WORDS = {
    "proved": "Proved", "disproved": "Disproved", "vacuous": "Vacuous (defective)",
    "superseded": "Superseded", "question": "Question (an answer is asked for)",
    "known-literature": "Known in the literature", "solved-upstream": "Solved upstream",
    "open": "Open",
}
"""Every banner kind (:data:`network.record.derive.BANNER_KINDS`) with its heading words
(issue 29: status first, on every target and node page)."""
BANNER_GLYPHS = {"proved": "✔", "disproved": "✘", "vacuous": "⚠", "superseded": "↷",
                 "question": "?", "known-literature": "≡", "solved-upstream": "≡",
                 "open": "○"}
"""A glyph for each banner kind, beside its colour and words."""
LABEL_CHARS = 26
"""Characters of one line of a statement's label in the drawing (a 168 px box at 12 px)."""
LABEL_LINES = 2
"""Lines of a statement's label in the drawing; a longer label is cut at a word boundary
with an ellipsis (issue 35 item 10), the whole label in the box's tooltip."""
LABEL_LINE_PX = 13.0
"""Pixels between the baselines of a label's two lines in the drawing: with the first
2.5 px below the box's centre they sit under the glyph and literature-mark row and above
the box's foot."""
DRAW_LIMIT = 150
"""Past this many statements a target page draws the root's neighbourhood only
(:func:`drawn_view`) and links the rest, so no page grows without bound (issue 15)."""
NEIGHBOURHOOD_DEPTH = 2
"""Route levels below the root the neighbourhood drawing keeps."""
NOT_DRAWN_LISTED = 300
"""How many undrawn statements the drawing's words link by name (the rest are counted and
reached from their parents' pages)."""
SETS_ON_PAGE = 100
"""Rows of the sufficient-sets table on the target page; the rest are on pages of
:data:`SETS_PER_PAGE` rows (issue 15: 4.5 MB of one page was this table)."""
SETS_PER_PAGE = 500
SET_MEMBERS_SHOWN = 12
"""Members of one sufficient set a table row names; a larger set is summarised (its count,
the rest in the products' graph.json), so a 1,000-statement target's table stays small."""


def node_href(tid: str, nid: str) -> str:
    """Output-relative URL of a node page."""
    return f"targets/{tid}/nodes/{nid}.html"


def artifact_href(graph: Graph, path: str) -> str | None:
    """Output-relative URL showing a graph file: its node page (anchored at a Lean file
    when it is one) or its target page; None for a file the site shows nowhere."""
    parts = path.split("/")
    if len(parts) >= 2 and parts[0] == "targets" and parts[1] in graph.targets:
        t = graph.targets[parts[1]]
        if len(parts) >= 4 and parts[2] == "nodes" and parts[3] in t.nodes:
            href = node_href(parts[1], parts[3])
            if len(parts) == 5 and parts[4].endswith(".lean"):
                return f"{href}#file-{parts[4][:-5]}"
            return href
        return f"targets/{parts[1]}/index.html"
    return None


_BREAK = re.compile(r"[^\s\-‐–—/]*(?:[\-‐–—/]+|\s+|$)")
"""One word of a label with what ends it: spaces, or a hyphen, dash or slash after which
the label may break (``variant-granville-`` | ``soundararajan``)."""
_TRAILING = " \t-‐–—/,;:(["
"""What a cut label sheds before its ellipsis."""


def label_lines(text: str, width: int = LABEL_CHARS, lines: int = LABEL_LINES) -> list[str]:
    """``text`` wrapped into at most ``lines`` lines of at most ``width`` characters,
    breaking only after a space, hyphen, dash or slash (issue 35 item 10: no drawn label
    ends mid-word).

    A text that does not fit ends its last line with ``…`` at a word boundary. Only a single
    word longer than ``width`` is broken inside itself (there is no boundary to cut at); it
    is cut to ``width - 1`` characters and ``…``.

    Returns:
        One string per line, none empty, each at most ``width`` characters; ``[]`` for a
        blank text.
    """
    words = [w for w in _BREAK.findall(" ".join(text.split())) if w]
    out: list[str] = []
    line = ""
    for word in words:
        if len((line + word).rstrip()) <= width:
            line += word
            continue
        if line:
            out.append(line.rstrip())
            line = ""
        if len(out) == lines:
            return _ellipsis(out, width)
        if len(word.rstrip()) > width:  # no boundary inside: the one mid-word cut
            return [*out, word[: width - 1] + "…"]
        line = word
    return [*out, line.rstrip()] if line.strip() else out


def _ellipsis(out: list[str], width: int) -> list[str]:
    """``out`` with ``…`` after its last line's last whole word that leaves room for it."""
    last = out[-1]
    if last.endswith("…"):
        return out
    while len(last.rstrip(_TRAILING)) + 1 > width:
        cut = max(last.rstrip(_TRAILING).rfind(c) for c in " -‐–—/")
        if cut <= 0:
            last = last[: width - 1]
            break
        last = last[:cut + 1]
    return [*out[:-1], last.rstrip(_TRAILING) + "…"]


def short(text: str, n: int = LABEL_CHARS) -> str:
    """``text`` on one line of at most ``n`` characters, cut at a word boundary with an
    ellipsis (:func:`label_lines`)."""
    return (label_lines(text, n, 1) or [""])[0]


def drawing(graph: Graph, tid: str, view: dict[str, Any], lay: Layout,
            with_shelved: bool) -> dict[str, Any]:
    """The drawing of one target: boxes with their status classes, lines, the key, and
    the text alternative (every drawn node and line in words, D-36 accessibility).

    ``with_shelved`` draws shelved statements (D-14 v3.47: drawn only on request).
    """
    nodes = {n["id"]: n for n in view["nodes"]}
    routes = {r["route"]: r for r in view["routes"]}
    members: dict[str, list[int]] = {}
    for i, s in enumerate(view["sufficient_sets"]["sets"]):
        for x in s["members"]:
            members.setdefault(x, []).append(i)
    boxes: list[dict[str, Any]] = []
    hidden: set[str] = set()
    for b in lay.boxes:
        if b.kind == "route":
            r = routes[b.key]
            owner = nodes[r["node"]]
            if owner["flags"]["shelved"] and not with_shelved:
                hidden.add("route:" + b.key)
                continue
            label = r["approach"] or f"route {b.key.rsplit('/', 1)[-1][:15]}"
            boxes.append({"kind": "route", "key": b.key, "x": b.x, "y": b.y, "w": b.w,
                          "h": b.h, "label": short(label, 18), "title": f"route: {label}",
                          "alive": r["alive"], "href": None, "band": False,
                          "sets": "", "classes": "route" + ("" if r["alive"] else " dead")})
            continue
        n = nodes[b.key]
        if n["flags"]["shelved"] and not with_shelved:
            hidden.add(b.key)
            continue
        classes = [f"st-{n['status']}"]
        for flag in ("shelved", "speculative", "closable", "disputed", "stale", "question"):
            if n["flags"][flag]:
                classes.append(flag)
        if b.band:
            classes.append("band")
        lit = n["literature"]["status"] if n["literature"] else None
        wrapped = label_lines(n["label"])
        boxes.append({
            "kind": "statement", "key": b.key, "x": b.x, "y": b.y, "w": b.w, "h": b.h,
            # issue 35 item 10: the label wrapped at word boundaries, centred on the box;
            # the whole label in the tooltip
            "label": n["label"], "label_lines": wrapped,
            "label_y": b.y + 5 - 2.5 * (len(wrapped) - 1),
            "title": f"{n['label']} ({n['id']}): {n['status']}",
            "href": node_href(tid, b.key), "band": b.band, "literature": lit,
            # the sets on the target page only (issue 15): what its selector lights
            "sets": " ".join(str(i) for i in members.get(b.key, []) if i < SETS_ON_PAGE),
            "classes": " ".join(classes), "status": n["status"],
        })
    lines = []
    for ln in lay.lines:
        a = ("route:" + ln.source) if ln.kind == "hole" else ln.source
        z = ("route:" + ln.target) if ln.kind == "route" else ln.target
        if a in hidden or z in hidden:
            continue
        cls = [f"ln-{ln.kind}"]
        if ln.relation:
            cls.append(f"rel-{ln.relation}")
        if ln.lit_only:
            cls.append("lit-only")
        lines.append({"d": ln.d, "classes": " ".join(cls), "source": ln.source,
                      "target": ln.target, "kind": ln.kind, "relation": ln.relation})
    drawn = [b for b in boxes if b["kind"] == "statement"]
    statuses = sorted({b["status"] for b in drawn}, key=list(STATUS_WORDS).index)
    band = [b for b in drawn if b["band"]]
    band_rect = None
    if band:
        pad = 8.0
        x0 = min(b["x"] - b["w"] / 2 for b in band) - pad
        y0 = min(b["y"] - b["h"] / 2 for b in band) - pad - 14
        x1 = max(b["x"] + b["w"] / 2 for b in band) + pad
        y1 = max(b["y"] + b["h"] / 2 for b in band) + pad
        band_rect = {"x": round(x0, 1), "y": round(max(y0, 0.0), 1),
                     "w": round(x1 - x0, 1), "h": round(y1 - max(y0, 0.0), 1)}
    shown = {b["key"] for b in drawn} | hidden | set(lay.undrawn)
    rest = [{"id": n["id"], "label": n["label"], "status": n["status"],
             "href": node_href(tid, n["id"])}
            for n in view["nodes"] if n["id"] not in shown]
    return {
        "width": round(lay.width, 1), "height": round(lay.height, 1),
        "band_rect": band_rect, "glyphs": STATUS_GLYPHS, "label_dy": LABEL_LINE_PX,
        "not_drawn": rest[:NOT_DRAWN_LISTED], "not_drawn_count": len(rest),
        "neighbourhood": lay.neighbourhood,
        "boxes": boxes, "lines": lines,
        "key_statuses": [(s, STATUS_WORDS[s]) for s in STATUS_WORDS if s != "superseded"],
        "key_literature": list(LITERATURE_WORDS.items()),
        "present_statuses": statuses,
        "text_nodes": [{"id": b["key"], "label": nodes[b["key"]]["label"],
                        "status": b["status"], "band": b["band"], "href": b["href"],
                        "literature": b["literature"],
                        "claim": nodes[b["key"]]["claim"]} for b in drawn],
        "text_routes": [{"route": r["route"], "node": r["node"], "approach": r["approach"],
                         "holes": r["holes"], "alive": r["alive"]} for r in view["routes"]
                        if "route:" + r["route"] not in hidden
                        and any(b["key"] == r["route"] for b in boxes)],
        "text_lines": [ln for ln in lines if ln["kind"] in ("dep", "lemma", "variant")],
        "undrawn": lay.undrawn,
        "hidden_shelved": sorted(k for k in hidden if not k.startswith("route:")),
    }


def selector_view(tree: dict[str, Any], sets: list[dict[str, Any]],
                  limit: int | None = None) -> dict[str, Any]:
    """The selector tree (:func:`derive.selector`) in one uniform shape for the template,
    with, at every node, the set indices beneath it (so a click can light them and filter
    the table, D-25 v3.44).

    Past ``limit`` (default :data:`SELECTOR_NODES`) forks, counted in pre-order, a
    deeper fork is shown as one leaf naming how many sets lie beneath it (``collapsed``)
    and linking where the first is listed, so the target page stays bounded (issue 15).
    ``select`` is the part of ``sets`` listed on the target page (index below
    :data:`SETS_ON_PAGE`): what a click filters the page's table to and lights.

    Returns:
        ``{empty, leaf, set, sets, select, collapsed, fork, node, label, branches: [{side,
        route, approach, tree}]}``, every key present; ``collapsed`` is 0 for a real leaf.
    """
    budget = [SELECTOR_NODES if limit is None else limit]
    return _selector(tree, budget)


SELECTOR_NODES = 120
"""Forks of the selector tree drawn on a target page; deeper ones collapse to a leaf."""


def _selector(tree: dict[str, Any], budget: list[int]) -> dict[str, Any]:
    node: dict[str, Any] = {"empty": False, "leaf": False, "set": None, "sets": [],
                            "select": [], "collapsed": 0, "fork": None, "node": None,
                            "label": None, "branches": []}
    if tree.get("empty"):
        return {**node, "empty": True}
    if "set" in tree or ("sets" in tree and "branches" not in tree):
        idx = tree["set"] if "set" in tree else tree["sets"][0]
        got = [idx] if "set" in tree else list(tree["sets"])
        return {**node, "leaf": True, "set": idx, "sets": got,
                "select": [i for i in got if i < SETS_ON_PAGE]}
    if budget[0] <= 0:
        got = sorted(_leaves(tree))
        return {**node, "leaf": True, "set": got[0] if got else 0, "sets": got,
                "select": [i for i in got if i < SETS_ON_PAGE], "collapsed": len(got)}
    budget[0] -= 1
    branches = []
    below: list[int] = []
    for br in tree["branches"]:
        sub = _selector(br["tree"], budget)
        below.extend(sub["sets"])
        branches.append({"side": br.get("side"), "route": br.get("route"),
                         "approach": br.get("approach"), "tree": sub})
    return {**node, "fork": tree.get("fork"), "node": tree.get("node"),
            "label": tree.get("label"), "branches": branches, "sets": below,
            "select": [i for i in below if i < SETS_ON_PAGE]}


def _leaves(tree: dict[str, Any]) -> list[int]:
    """Every set index beneath a selector tree (:func:`derive.selector`)."""
    if tree.get("empty"):
        return []
    if "set" in tree:
        return [int(tree["set"])]
    if "sets" in tree and "branches" not in tree:
        return [int(i) for i in tree["sets"]]
    return [i for br in tree["branches"] for i in _leaves(br["tree"])]


def deps_first(view: dict[str, Any], start: str, members: list[str]) -> list[str]:
    """``members`` and ``start`` ordered dependencies first (a post-order over the drawn
    edges restricted to them), ties in the record's order (D-25 v3.26, v3.30 proof page)."""
    keep = set(members) | {start}
    below: dict[str, list[str]] = {}
    for e in view["edges"]:
        a, b = e["from"], e["to"]
        if e["kind"] == "variant":
            a, b = b, a
        if a in keep and b in keep:
            below.setdefault(a, []).append(b)
    out: list[str] = []
    seen: set[str] = set()

    def visit(x: str) -> None:
        if x in seen:
            return
        seen.add(x)
        for y in below.get(x, []):
            visit(y)
        out.append(x)

    visit(start)
    for x in members:
        visit(x)
    return out


def attestation_index(graph: Graph) -> dict[tuple[str, str], list[Any]]:
    """The graph's attestation records grouped by ``(target, node)``, in the record's
    order: one pass, so each node page does not scan every attestation (issue 15: that
    scan was 85 of 207 profiled render seconds at 10,000 nodes)."""
    out: dict[tuple[str, str], list[Any]] = {}
    for rf in graph.attestations:
        out.setdefault((rf.record.target, rf.record.node), []).append(rf)
    return out


def attestations_of(graph: Graph, tid: str, nid: str,
                    index: dict[tuple[str, str], list[Any]] | None = None
                    ) -> list[dict[str, Any]]:
    """The node's attestations (D-5), newest first: verdict, toolchain, Mathlib, steps,
    reviewer or the first failing step's code as the reason, ``section`` ("proof" or
    "log") and ``words`` (:mod:`network.site.gate_log`). An unplaced run holding no file
    of this node is left out (issue 35). ``index`` is :func:`attestation_index` of
    ``graph`` (built here when None)."""
    out = []
    refs = (index if index is not None else attestation_index(graph)).get((tid, nid), [])
    for rf in refs:
        a = rf.record
        failing = next((s for s in a.steps if not s.ok), None)
        row = {
            "path": rf.path, "verdict": a.verdict, "timestamp": a.timestamp,
            "artifact_kind": a.artifact_kind, "artifacts": [x.path for x in a.artifacts],
            "toolchain": a.toolchain, "toolchain_hash": a.toolchain_hash,
            "mathlib_rev": a.mathlib_rev, "steps": [s.model_dump() for s in a.steps],
            "reviewer": a.step9.reviewer if a.step9 else None,
            "basis": a.step9.basis if a.step9 else None,
            "reason": (failing.code if failing and failing.code else
                       (f"step {a.first_failing_step}" if a.first_failing_step is not None
                        else None)),
            "submitter": a.submitter, "disclosure": a.disclosure.model_dump(),
            "merge_commit": a.merge_commit, "head_commit": a.head_commit,
        }
        if not gate_log.touches_node(row, tid, nid):
            continue  # a refusal that touched no file of this node (issue 35)
        row["section"], row["words"] = gate_log.section(row), gate_log.words(row)
        row["code"] = gate_log.refusal_code(row)
        out.append(row)
    out.sort(key=lambda x: (derive.norm_date(str(x["timestamp"])), str(x["path"])), reverse=True)
    return out


def lean_files(node: Node) -> list[tuple[str, str]]:
    """``(name, path)`` of the node's Lean files in layout order (docs/record.md)."""
    from network.record.read.loader import NODE_LEAN_FILES

    return [(name, node.files[name].path) for name in NODE_LEAN_FILES if name in node.files]


def place(view: dict[str, Any], tid: str, nid: str) -> dict[str, Any]:
    """Where a statement stands in its target's tree (issue 15, D-36 node page): the
    breadcrumb from the target down through each ancestor, route and hole; a sentence
    saying so; the route's other holes; the node's own routes with their holes; the
    variant it is of and the variants of it. Read from the graph view's ``hole``,
    ``variant`` and routes only (Foundation ruling 4).

    Returns:
        ``{crumbs: [{label, href|None, kind}], sentence: str|None, parent, route (its
        route view with ``href``, the route on its owner's page),
        siblings: [node view], routes: [{route, approach, holes: [node view], alive}],
        variant_of: node view|None, variants: [node view]}``; hrefs output-relative.
    """
    nodes = {n["id"]: n for n in view["nodes"]}
    routes = {r["route"]: r for r in view["routes"]}

    def approach(route: str) -> str:
        r = routes.get(route)
        return (r["approach"] if r and r["approach"] else
                f"route {route.rsplit('/', 1)[-1]}")

    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    x: str | None = nid
    while x is not None and x in nodes and x not in seen:
        seen.add(x)
        n = nodes[x]
        chain.append({"label": n["label"], "href": node_href(tid, x), "kind": "statement"})
        hole = n["hole"]
        if hole:
            r = routes.get(hole["route"])
            count = r["count"] if r else None
            chain.append({"label": f"hole {hole['k']}" + (f" of {count}" if count else ""),
                          "href": None, "kind": "hole"})
            chain.append({"label": approach(hole["route"]),
                          "href": node_href(tid, hole["parent"]) + "#route-"
                          + route_anchor(hole["route"]), "kind": "route"})
            x = hole["parent"]
        elif n["variant"]:
            chain.append({"label": f"variant ({n['variant']['relation']})", "href": None,
                          "kind": "variant"})
            x = n["variant"]["of"]
        else:
            x = None
    chain.reverse()
    # the node itself is the page: no link to it
    if chain:
        chain[-1] = {**chain[-1], "href": None}
    me = nodes[nid]
    sentence = None
    parent = route = None
    siblings: list[dict[str, Any]] = []
    if me["hole"]:
        h = me["hole"]
        parent = nodes.get(h["parent"])
        r = routes.get(h["route"])
        route = ({**r, "href": node_href(tid, h["parent"]) + "#route-" + route_anchor(h["route"])}
                 if r else None)
        of = f" of {r['count']}" if r else ""
        sentence = (f"Hole {h['k']}{of} of the route “{approach(h['route'])}” of "
                    f"{parent['label'] if parent else h['parent']}.")
        if r:
            siblings = [nodes[s] for s in r["holes"] if s != nid and s in nodes]
    elif me["variant"]:
        of_node = nodes.get(me["variant"]["of"])
        sentence = (f"A {me['variant']['relation']} variant of "
                    f"{of_node['label'] if of_node else me['variant']['of']}.")
    own = [{"route": r["route"], "approach": approach(r["route"]), "alive": r["alive"],
            "anchor": route_anchor(r["route"]), "kind": r["kind"],
            "holes": [nodes[h] for h in r["holes"] if h in nodes]}
           for r in view["routes"] if r["node"] == nid]
    v = me["variant"]
    return {
        "crumbs": chain, "sentence": sentence, "parent": parent, "route": route,
        "siblings": siblings, "routes": own,
        "variant_of": nodes.get(v["of"]) if v else None,
        "variants": [n for n in view["nodes"]
                     if n["variant"] and n["variant"]["of"] == nid],
    }


def route_anchor(route: str) -> str:
    """The fragment naming a route on its owner's node page: the partial's file name
    without ``.lean`` (unique per node, ruling 4)."""
    name = route.rsplit("/", 1)[-1]
    return name.removesuffix(".lean")


def mark_holes(html: str) -> str:
    """Highlighted Lean (:func:`network.site.lean.highlight_lean`) with each ``sorry``
    token marked as a hole (``<mark class="hole">``), so a partial's holes stand out."""
    import re

    return re.sub(r'(<span class="[a-z0-9 ]+">sorry</span>)',
                  lambda m: f'<mark class="hole" title="a hole of this route">{m.group(1)}</mark>',
                  html)


def catalog_sentences(graph: Graph) -> dict[str, str]:
    """Catalog code → its meaning, from the graph's ``errors.json`` (the catalog of the
    record rendered), else this network's catalog; every code a page shows a reader is
    shown with its sentence (issue 15). The file is read by the record's one reader
    (:func:`network.record.products.products.catalog_meanings`)."""
    from network.errors import full_catalog
    from network.record.products.products import catalog_meanings

    return catalog_meanings(graph) or {c: e.meaning for c, e in full_catalog().items()}


STATUS_GLYPHS = {"open": "○", "blocked": "⊘", "proved": "✔", "refuted": "✘",
                 "defective": "⚠", "superseded": "↷"}
"""A glyph for each node status, shown beside its colour so status is never colour alone
(issue 15)."""
TARGET_GLYPHS = {"listed": "○", "active": "◔", "resolved": "●", "dormant": "☾",
                 "known-result": "≡"}
"""A glyph for each target status (D-33), beside its colour and word (issue 15)."""
RESOLUTION_GLYPHS = {"proved": "✔", "refuted": "✘", "defective": "⚠"}
"""The glyph of a resolved target, by its resolution."""


def target_glyph(status: dict[str, Any]) -> str:
    """The glyph of a target status (``TargetStatus.to_dict()``): a resolved target's
    resolution glyph, else its status glyph."""
    if status["status"] == "resolved" and status.get("resolution") in RESOLUTION_GLYPHS:
        return RESOLUTION_GLYPHS[str(status["resolution"])]
    return TARGET_GLYPHS.get(str(status["status"]), "·")


def first_paragraph(text: str | None) -> str:
    """The informal statement's first paragraph (up to the first blank line), cut after a
    sentence when longer than :data:`EXCERPT_CHARS` (never inside a formula): what the
    problems index typesets in its compact row; the target page shows the whole."""
    if not text:
        return ""
    para = text.strip().split("\n\n", 1)[0]
    if len(para) <= EXCERPT_CHARS:
        return para
    # cut after a sentence, never inside a formula (an even count of `$` before the cut)
    for m in re.finditer(r"[.;:](?=\s)", para):
        cut = m.end()
        if cut >= EXCERPT_CHARS // 3 and para[:cut].replace("\\$", "").count("$") % 2 == 0:
            return para[:cut] + " …" if cut < len(para) else para
        if cut > EXCERPT_CHARS:
            break
    return para


EXCERPT_CHARS = 360
PROBLEMS_PER_PAGE = 100
"""Rows of one problems page; a longer list continues on ``<page>-2.html`` and so on."""


def paged(path: str, rows: list[Any], per: int = PROBLEMS_PER_PAGE,
          sep: str = "-") -> list[tuple[str, list[Any]]]:
    """``rows`` split into pages of ``per``: ``[(path, rows), (path<sep>2.html, rows), …]``
    (at least one page, empty when ``rows`` is). A page named after an id that may hold a
    hyphen (a target, a GitHub login) takes ``sep=".page-"`` (:data:`ID_PAGE_SEP`), which
    no such id can hold, so ``bob.html``'s second page never is ``bob-2.html``'s first."""
    stem = path.removesuffix(".html")
    chunks = [rows[i:i + per] for i in range(0, len(rows), per)] or [[]]
    return [(path if k == 0 else f"{stem}{sep}{k + 1}.html", c) for k, c in enumerate(chunks)]


ID_PAGE_SEP = ".page-"
"""The page-number separator of pages named after a target id or an identity (neither
holds a dot)."""


def problem_order(tid: str) -> tuple[int, list[str | int]]:
    """The problems index's sort key of a target id (issue 29): ids holding a number in
    numeric order (``erdos-2`` before ``erdos-10`` before ``erdos-100``, ``erdos-218-ge``
    beside ``erdos-218-le``), then the ids without a number, alphabetically."""
    parts: list[str | int] = [int(p) if p.isdigit() else p
                              for p in re.split(r"([0-9]+)", tid)]
    return (0 if len(parts) > 1 else 1, parts)


def problem_filters(rows: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """The problems index's pre-rendered filters (issue 15: filters without JavaScript):
    ``(path, name, rows)`` for every problem, each target status present, each class
    present, and the problems with a steward / without one."""
    out: list[tuple[str, str, list[dict[str, Any]]]] = [("problems/index.html", "every problem",
                                                         rows)]
    statuses = sorted({r["summary"]["status"]["status"] for r in rows})
    classes = sorted({r["summary"]["class"] for r in rows})
    out += [(f"problems/status/{s}.html", f"status {s}",
             [r for r in rows if r["summary"]["status"]["status"] == s]) for s in statuses]
    out += [(f"problems/class/{c}.html", f"class {c}",
             [r for r in rows if r["summary"]["class"] == c]) for c in classes]
    out.append(("problems/stewarded.html", "with a steward", [r for r in rows if r["stewards"]]))
    out.append(("problems/unstewarded.html", "without a steward",
                [r for r in rows if not r["stewards"]]))
    return out


def drawn_view(view: dict[str, Any], limit: int | None = None,
               depth: int | None = None) -> tuple[dict[str, Any], str | None]:
    """The part of a target's graph view its page draws (issue 15).

    A view with at most ``limit`` (default :data:`DRAW_LIMIT`) statements is drawn whole. A larger one is cut to the
    root's neighbourhood: the root, its variants, and the holes of every route of a kept
    statement down to ``depth`` (default :data:`NEIGHBOURHOOD_DEPTH`) route levels; the
    other statements are linked in words.

    Returns:
        ``(view, centre)``: the view to lay out (a shallow copy with ``nodes``, ``edges``
        and ``routes`` restricted) and the centre's id, or ``(view, None)`` when whole.
    """
    limit = DRAW_LIMIT if limit is None else limit
    depth = NEIGHBOURHOOD_DEPTH if depth is None else depth
    if len(view["nodes"]) <= limit:
        return view, None
    ids = [n["id"] for n in view["nodes"]]
    centre = "root" if "root" in ids else ids[0]
    keep = {centre}
    keep |= {n["id"] for n in view["nodes"]
             if n["variant"] and n["variant"]["of"] == centre}
    level = set(keep)
    for _ in range(depth):
        nxt: set[str] = set()
        for r in view["routes"]:
            if r["node"] in level:
                nxt |= set(r["holes"])
        nxt -= keep
        keep |= nxt
        level = nxt
        if len(keep) > limit:
            break
    routes = [r for r in view["routes"] if r["node"] in keep
              and all(h in keep for h in r["holes"])]
    cut = {**view, "nodes": [n for n in view["nodes"] if n["id"] in keep],
           "edges": [e for e in view["edges"] if e["from"] in keep and e["to"] in keep],
           "routes": routes}
    return cut, centre


def set_pages(count: int) -> list[tuple[int, int]]:
    """The sufficient-sets pages beyond the target page: ``(start, end)`` set indices
    (0-based, end exclusive) of each, in order."""
    return [(a, min(a + SETS_PER_PAGE, count))
            for a in range(SETS_ON_PAGE, count, SETS_PER_PAGE)]


def set_href(i: int) -> str:
    """Where set ``i`` (0-based) is listed, relative to the target page's folder."""
    if i < SETS_ON_PAGE:
        return f"index.html#set-{i}"
    k = (i - SETS_ON_PAGE) // SETS_PER_PAGE + 1
    return f"sets/{k}.html#set-{i}"


FRONTIER_PER_PAGE = 250
"""Rows of one frontier page (issue 15: the Erdős import's frontier is 1,742 rows, 1 MB on
one page; 10,000 synthetic nodes make 4.4 MB); a longer list continues on
``<page>-2.html`` and so on, every page pre-rendered."""
FRONTIER_TARGET_LINKS = 40
"""Past this many targets the frontier's filter bar links one page listing the targets
(``frontier/targets.html``, :data:`LIST_PER_PAGE` a page) instead of naming every target
on every frontier page (988 links were 116 KB on each of 988 pages)."""
LIST_PER_PAGE = 500
"""Rows of one page of a plain list: the frontier's targets, the contributors, one
contributor's ledger lines."""


def pager(chunks: list[tuple[str, list[Any]]], k: int, per: int) -> dict[str, Any]:
    """What a paged list's template shows of page ``k`` (0-based) of ``chunks``
    (:func:`paged`): ``{links: [output-relative path of each page], page_no (1-based),
    first (0-based index of the page's first row), count (pages)}``."""
    return {"links": [p for p, _ in chunks], "page_no": k + 1, "first": k * per,
            "count": len(chunks)}


ROUTES_ON_PAGE = 100
"""Rows of the routes table on a target page; the rest on ``targets/<id>/routes/<k>.html``,
:data:`LIST_PER_PAGE` a page (issue 15)."""


def route_pages(count: int) -> list[tuple[int, int]]:
    """The routes pages beyond the target page: ``(start, end)`` route indices (0-based,
    end exclusive) of each, in order."""
    return [(a, min(a + LIST_PER_PAGE, count))
            for a in range(ROUTES_ON_PAGE, count, LIST_PER_PAGE)]
