"""``lemmata site build``: the static, read-only website of a graph (D-36).

The build runs as named stages (STYLE.md rule 10, mkdocs ``commands/build.py``):

``load``
    read the graph at one commit or its work tree (:func:`network.record.read.loader.load_graph`);
``derive``
    every fact the pages show, from :mod:`network.record.derive` only;
``layout``
    each target's drawing with Graphviz ``dot`` (:mod:`network.site.layout`);
``render``
    typeset claims with KaTeX and render every page with jinja2 (autoescape,
    ``StrictUndefined``);
``assets``
    the stylesheet, the small script, the person controls' script (``session.js``, loaded
    only when the site names its service), the docs page's screenshots and the vendored
    KaTeX;
``check``
    every internal link of the output resolves (:mod:`network.site.linkcheck`).

Warnings are collected, counted and printed; ``strict`` turns any warning into a failure.
Every page names the commit it was rendered from, or says it was rendered from a work
tree. Nothing here serves, stores or accepts anything.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from network.errors import LemmataError, define
from network.gate.lean.kernels import pin_soundness
from network.importers.erdosproblems import target_provenance
from network.record import derive, outlines, panel, pertinence
from network.record import words as record_words
from network.record.read.loader import Graph, load_graph
from network.record.unverified import unverified
from network.site import definitions, gate_log, informal, pages, review_page
from network.site.config import SiteConfig
from network.site.csp import meta_policy, service_origin
from network.site.layout import DOT_BATCH, Layout, dot_program, layout_targets
from network.site.lean import highlight_lean, pygments_css, split_preamble
from network.site.linkcheck import check_links
from network.site.mathtex import KATEX_DIR, Typeset, typeset

define("site-warnings", None, 422, "The site build met warnings and ran with --strict.",
       "Read each printed warning, fix what it names (a broken link, a claim KaTeX cannot "
       "typeset, a featured target that does not exist) and build again.")

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
ASSETS = HERE / "assets"
PROSE = HERE / "prose"
PANZOOM = ASSETS / "svg-pan-zoom"
"""svg-pan-zoom 3.6.2, vendored from npm with its licence (the drawing's zoom and pan)."""
SCREENS = ASSETS / "screens"
"""Screenshots of the person controls the docs page shows (tests/test_site_session_browser.py
takes them)."""
DCO_TEXT = HERE.parent / "api" / "identity" / "dco.txt"
STAGES = ("load", "derive", "layout", "render", "assets", "check")
"""The build's named stages, in order."""


@dataclass
class BuildReport:
    """What a build did.

    Attributes:
        pages: output-relative paths of the HTML pages written, in write order.
        warnings: every warning, in the order met.
        timings: stage name → seconds it took.
        commit: the commit rendered, or None for a work tree.
        math_server_side: whether claims were typeset at build time (else in the browser).
    """

    pages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    commit: str | None = None
    math_server_side: bool = False


@dataclass
class _Derived:
    views: dict[str, dict[str, Any]]
    summaries: dict[str, dict[str, Any]]
    frontier: list[dict[str, Any]]
    ledger: dict[str, list[dict[str, Any]]]
    events: list[dict[str, Any]]
    featured: str | None
    node_views: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    unverified: list[str] = field(default_factory=list)
    """unverified(graph), sorted: graph-wide, so derived once, not per target page
    (issue 15: once per target it was 64 of the Erdős site's 143 profiled render seconds)."""
    attestations: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    """pages.attestation_index(graph): each node page's attestations without a scan."""
    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per target, statement id → label, built once (not once per node page)."""
    defs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per target, its definition modules (:func:`definitions.target_definitions`, issue
    29), read once."""
    reviews: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per target with a review, its evidence page (:func:`review_page.review_context`)."""


def build_site(config: SiteConfig, log: Callable[[str], None] | None = None) -> BuildReport:
    """Build the whole site of ``config.graph`` into ``config.out`` (D-36).

    Args:
        config: the build's :class:`SiteConfig`.
        log: called with one line per stage (name and seconds); None is silent.

    Returns:
        The :class:`BuildReport`.

    Raises:
        ValidationFailed: the graph does not load (every problem listed).
        LemmataError: ``site-tool-missing`` (no Graphviz), ``site-layout-failed``, or
            ``site-warnings`` when ``config.strict`` and any warning was met.
    """
    report = BuildReport()
    say = log or (lambda _line: None)
    out = Path(config.out)

    def stage(name: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        val = fn()
        report.timings[name] = time.perf_counter() - t0
        say(f"stage {name}: {report.timings[name]:.2f} s")
        return val

    dot = dot_program()  # fail before any work when Graphviz is missing
    graph: Graph = stage("load", lambda: load_graph(config.graph, config.commit))
    report.commit = graph.commit
    derived: _Derived = stage("derive", lambda: _derive(graph, config, report))
    layouts: dict[str, Layout] = stage("layout", lambda: _layout(derived, dot))
    stage("render", lambda: _render(graph, config, derived, layouts, out, report))
    stage("assets", lambda: _assets(out))
    stage("check", lambda: report.warnings.extend(f"broken link: {b}"
                                                 for b in check_links(out)))
    for w in report.warnings:
        say(f"warning: {w}")
    if config.strict and report.warnings:
        raise LemmataError("site-warnings", f"{len(report.warnings)} warning(s) with --strict")
    return report


# --- derive --------------------------------------------------------------------------------


def _derive(graph: Graph, config: SiteConfig, report: BuildReport) -> _Derived:
    # D-30 v3.12: each related variant's row carries its pertinence signature, as in
    # graph.json
    views = {tid: pertinence.annotate_view(graph, tid, derive.graph_view(graph, tid))
             for tid in graph.targets}
    summaries = {tid: derive.target_summary(graph, tid) for tid in graph.targets}
    featured = config.featured_target
    if featured is not None and featured not in graph.targets:
        report.warnings.append(f"featured target {featured!r} is not a target of the graph")
        featured = None
    if featured is None:
        open_problems = [tid for tid, s in summaries.items() if s["class"] == "open-problem"]
        rooted = [tid for tid, s in summaries.items() if s["root"]]
        candidates: list[str] = open_problems or rooted or list(graph.targets)
        featured = candidates[0] if candidates else None
    defs = {tid: definitions.target_definitions(graph, tid) for tid in graph.targets}
    return _Derived(views, summaries, derive.frontier(graph), derive.ledger_views(graph),
                    derive.record_events(graph), featured,
                    {tid: {n["id"]: n for n in v["nodes"]} for tid, v in views.items()},
                    sorted(unverified(graph)), pages.attestation_index(graph),
                    {tid: {x["id"]: x["label"] for x in v["nodes"]}
                     for tid, v in views.items()}, defs,
                    {tid: review_page.review_context(graph, tid, v["review"], _flat(defs[tid]))
                     for tid, v in views.items() if v["review"] is not None})


def _layout(derived: _Derived, dot: str) -> dict[str, Layout]:
    workers = max(1, min(4, os.cpu_count() or 1))
    tids = list(derived.views)
    per = max(1, min(DOT_BATCH, -(-len(tids) // workers)))
    batches = [tids[i:i + per] for i in range(0, len(tids), per)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = pool.map(lambda batch: _layout_batch([derived.views[t] for t in batch], dot),
                        batches)
        return {tid: lay for batch, lays in zip(batches, done)
                for tid, lay in zip(batch, lays)}


def _layout_batch(views: list[dict[str, Any]], dot: str) -> list[Layout]:
    """The drawings of several targets, one ``dot`` run: each whole, or past
    :data:`pages.DRAW_LIMIT` statements the root's neighbourhood (issue 15)."""
    cuts = [pages.drawn_view(v) for v in views]
    lays = layout_targets([cut for cut, _ in cuts], dot)
    for lay, (_, centre) in zip(lays, cuts):
        lay.neighbourhood = centre
    return lays


# --- render --------------------------------------------------------------------------------


FRAGMENT_CACHE = 4096
"""Rendered informal texts and highlighted Lean files one build keeps, each rendered once
however many pages show it."""


def _environment(math: Typeset, config: SiteConfig, graph: Graph) -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)

    def claim(tex: str | None) -> Markup:
        if not tex:
            return Markup("")
        html = math.html.get(tex)
        if html is not None:
            return (Markup('<span class="claim">') + Markup(informal.focusable_display(html))
                    + Markup("</span>"))
        return Markup('<span class="claim tex">') + escape(f"\\[{tex}\\]") + Markup("</span>")

    # one fragment, one rendering (issue 15): the same statement, gloss or Lean file is
    # shown on several pages (the problems filters, the target, node and proof pages)
    @functools.lru_cache(maxsize=FRAGMENT_CACHE)
    def prose(text: str | None, inline: bool = False) -> Markup:
        return informal.render(text, math, inline=inline)

    lean = functools.lru_cache(maxsize=FRAGMENT_CACHE)(highlight_lean)
    env.filters["claim"] = claim
    env.filters["prose"] = prose
    env.filters["prose_inline"] = lambda text: prose(text, True)
    env.filters["maths_title"] = lambda text: informal.render_title(text, math)
    env.filters["code_spans"] = informal.render_code_spans
    env.filters["lean"] = lean
    def lean_first(src: str) -> Markup:
        """A Lean file with its declaration first and the imports, reference comments
        and namespace lines before it folded in a ``<details>`` after it (issue 29)."""
        pre, rest = split_preamble(src)
        if not pre.strip():
            return lean(src)
        return (lean(rest) + Markup('<details class="lean-preamble"><summary>Imports, '
                                    "references and namespace lines ({} lines, above the "
                                    "declaration in the file)</summary>").format(
                                        pre.rstrip().count("\n") + 1)
                + lean(pre.rstrip() + "\n") + Markup("</details>"))

    env.filters["lean_first"] = lean_first
    env.filters["lean_holes"] = lambda src: Markup(pages.mark_holes(str(lean(src))))
    env.filters["short"] = pages.short
    env.filters["day"] = lambda d: (d or "")[:10]
    env.globals["artifact_href"] = lambda p: pages.artifact_href(graph, p)
    sentences = pages.catalog_sentences(graph)

    def code_words(code: str | None) -> Markup:
        """A catalog code with its sentence from errors.json (issue 15)."""
        if not code:
            return Markup("")
        meaning = sentences.get(code)
        tail = (Markup(": ") + escape(meaning)) if meaning else Markup("")
        return (Markup('<span class="catalog-code"><code>') + escape(code) + Markup("</code>")
                + tail + Markup("</span>"))

    env.filters["code_words"] = code_words
    env.globals["node_href"] = pages.node_href
    env.globals["STATUS_WORDS"] = pages.STATUS_WORDS
    env.globals["STATUS_GLYPHS"] = pages.STATUS_GLYPHS
    env.globals["set_href"] = pages.set_href
    env.globals["set_pages"] = pages.set_pages
    env.globals["SETS_ON_PAGE"] = pages.SETS_ON_PAGE
    env.globals["SET_MEMBERS_SHOWN"] = pages.SET_MEMBERS_SHOWN
    env.globals["route_pages"] = pages.route_pages
    env.globals["ROUTES_ON_PAGE"] = pages.ROUTES_ON_PAGE
    env.globals["LITERATURE_WORDS"] = pages.LITERATURE_WORDS
    env.globals["BANNER_WORDS"] = pages.BANNER_WORDS
    env.globals["BANNER_GLYPHS"] = pages.BANNER_GLYPHS
    env.globals.update(review_page.TEMPLATE_GLOBALS)
    env.filters["review_anchor"] = review_page.review_anchor
    return env


def _claims(derived: _Derived) -> list[str]:
    return [n["claim"] for v in derived.views.values() for n in v["nodes"] if n["claim"]]


def _informal_texts(graph: Graph) -> Iterator[str | None]:
    """Every informal text a page may show (issue 15): informal statements (imported
    docstrings among them), every gloss and explainer section, postmortem and approach
    prose and crux notes — so their formulas are typeset in the build's one KaTeX run."""
    for tid, t in graph.targets.items():
        yield t.record.title
        yield t.record.informal_statement
        for a in derive.approach_views(graph, tid):
            yield a.get("cause")
            yield a.get("detail")
        for n in t.nodes.values():
            for words in [*(g.record for g in n.glosses), *(e.record for e in n.explainers)]:
                for sec in words.sections:
                    yield sec.text
            for pf in n.proposed_for:
                yield pf.record.note
            for at in n.attempts:
                if at.postmortem is not None:
                    yield at.postmortem.detail
    yield from review_page.review_texts(graph)  # D-9 v3.39: the evidence pages


def _commit_label(graph: Graph) -> str:
    return f"commit {graph.commit}" if graph.commit else "the work tree (no commit)"


class _Writer:
    """Renders templates into files under ``out``, each with its relative-link prefix."""

    def __init__(self, env: Environment, out: Path, common: dict[str, Any],
                 report: BuildReport) -> None:
        self.env = env
        self.out = out
        self.common = common
        self.report = report
        self.dirs: set[Path] = set()

    def page(self, template: str, path: str, **ctx: Any) -> None:
        depth = path.count("/")
        full = self.out / path
        if full.parent not in self.dirs:
            full.parent.mkdir(parents=True, exist_ok=True)
            self.dirs.add(full.parent)
        html = self.env.get_template(template).render(
            **self.common, **ctx, rel="../" * depth, page_path=path)
        full.write_text(html, encoding="utf-8")
        self.report.pages.append(path)


def _render(graph: Graph, config: SiteConfig, d: _Derived, layouts: dict[str, Layout],
            out: Path, report: BuildReport) -> None:
    trainer = None  # trainer.html (issue 14), read and checked before any page is written
    if config.trainer_history is not None:
        from network.trainer.trainer_page import trainer_view

        trainer = trainer_view(config.trainer_history)
    claims = _claims(d)
    docs = (x["doc"] for mods in d.defs.values() for mod in mods for x in mod["definitions"])
    display, inline = informal.formulas(itertools.chain(_informal_texts(graph), docs))
    math = typeset(claims + display, inline=inline)
    report.math_server_side = math.server_side
    for tex, err in sorted(math.errors.items()):
        what = "a claim" if tex in claims else "a formula of the prose"
        report.warnings.append(f"KaTeX cannot typeset {what} ({err}): {tex[:80]}")
    for tex, err in sorted(math.inline_errors.items()):
        report.warnings.append(f"KaTeX cannot typeset a formula of the prose ({err}): "
                               f"{tex[:80]}")
    env = _environment(math, config, graph)
    common = {"commit_label": _commit_label(graph), "commit": graph.commit,
              "toolchain_note": config.toolchain_note, "as_of": derive.now(graph),
              "math_client": not math.server_side, "graph_id": graph.policy.graph_id,
              "csp": meta_policy(config.service_url),
              "service_url": service_origin(config.service_url) if config.service_url else None,
              "sign_in": config.sign_in}
    w = _Writer(env, out, common, report)
    drawings = {tid: pages.drawing(graph, tid, d.views[tid], layouts[tid], False)
                for tid in graph.targets}
    _render_home(graph, config, d, drawings, w)
    _render_problems(graph, d, w)
    for tid in graph.targets:
        _render_target(graph, config, d, tid, layouts[tid], drawings[tid], w)
    _render_nodes(graph, config, d, w)
    _render_frontier(graph, d, w)
    _render_contributors(graph, config, d, w)
    _render_gate_log(graph, w)
    _render_docs(graph, config, w)
    if trainer is not None:
        w.page("trainer.html", "trainer.html", **trainer)
    if config.service_url:
        w.page("me.html", "me.html")


def _render_home(graph: Graph, config: SiteConfig, d: _Derived,
                 drawings: dict[str, dict[str, Any]], w: _Writer) -> None:
    rows = d.events[: config.recent_rows]
    tid = d.featured
    # issue 35 item 10: the problem drawn is stated, informally and in Lean, before its
    # drawing
    w.page("home.html", "index.html", events=rows, more_events=len(d.events) > len(rows),
           featured=tid, featured_summary=d.summaries[tid] if tid else None,
           featured_view=d.views[tid] if tid else None,
           featured_target=graph.targets[tid].record if tid else None,
           featured_root_source=_root_source(graph, tid, d)[1] if tid else None,
           drawing=drawings[tid] if tid else None,
           titles={t: x.record.title for t, x in graph.targets.items()},
           steward_rule=True)


def _root_source(graph: Graph, tid: str, d: _Derived) -> tuple[str | None, str | None]:
    root = d.summaries[tid]["root"]
    t = graph.targets[tid]
    nid = root if root else (next(iter(t.nodes)) if t.nodes else None)
    if nid is None or "Statement" not in t.nodes[nid].files:
        return nid, None
    return nid, graph.text(t.nodes[nid].files["Statement"].path)


def _render_problems(graph: Graph, d: _Derived, w: _Writer) -> None:
    rows: list[dict[str, Any]] = []
    for tid, t in graph.targets.items():
        nid, src = _root_source(graph, tid, d)
        spec = t.gate_spec
        rows.append({"summary": d.summaries[tid], "record": t.record, "root_node": nid,
                     "root_source": src, "mathlib": spec.mathlib.rev if spec.mathlib else None,
                     "toolchain": spec.lean_toolchain,
                     "stewards": derive.panel_of(graph, tid),  # D-32 v3.33/v3.34
                     "glyph": pages.target_glyph(d.summaries[tid]["status"]),
                     "statement": pages.first_paragraph(t.record.informal_statement),
                     "root_literature": (d.node_views[tid][nid]["literature"]
                                         if nid and nid in d.node_views[tid] else None),
                     "literature_marks": sum(1 for n in d.views[tid]["nodes"]
                                             if n["literature"])})
    rows.sort(key=lambda r: pages.problem_order(r["summary"]["id"]))  # issue 29
    filters = pages.problem_filters(rows)
    links = [(path, name, len(sub)) for path, name, sub in filters]
    for path, name, sub in filters:
        chunks = pages.paged(path, sub)
        for k, (page_path, chunk) in enumerate(chunks):
            w.page("problems.html", page_path, rows=chunk, filter_name=name, filters=links,
                   total=len(rows), shown=len(sub), current=path, page_no=k + 1,
                   page_links=[p for p, _ in chunks], first=k * pages.PROBLEMS_PER_PAGE)


def _render_target(graph: Graph, config: SiteConfig, d: _Derived, tid: str, lay: Layout,
                   drawing: dict[str, Any], w: _Writer) -> None:
    t = graph.targets[tid]
    view = d.views[tid]
    nodes = {n["id"]: n for n in view["nodes"]}
    sets = view["sufficient_sets"]
    selector = pages.selector_view(view["selector"], sets["sets"])
    nid, src = _root_source(graph, tid, d)
    spec = t.gate_spec
    base = {
        "tid": tid, "target": t.record, "summary": d.summaries[tid], "view": view,
        "nodes": nodes, "sets": sets, "selector": selector, "root_node": nid,
        "root_source": src, "mathlib": spec.mathlib.rev if spec.mathlib else None,
        "toolchain": spec.lean_toolchain,
        "soundness": pin_soundness(spec),  # issue 37: the pin against the public record
        "stewards": derive.panel_of(graph, tid),  # in force; self-admitted marked (v3.33)
        "panel_view": panel.target_panel(graph, tid),  # index.json's panel/motions/writeups
        "approaches": derive.approach_views(graph, tid),  # both versions, D-14 stale flag
        "literature": [(n["id"], n["label"], n["literature"]) for n in view["nodes"]
                       if n["literature"]],
        "shelved": [n for n in view["nodes"] if n["flags"]["shelved"]],
        # where the target came from: the registry file at its commit, the
        # erdosproblems.com page, the database's status with its date (issue 12)
        "provenance": target_provenance(t.record),
        "banner": derive.target_banner(graph, tid),  # issue 29: status first
        # issue 29: the definition modules, and those the root statement uses
        "defs": d.defs[tid],
        "defs_used": definitions.definitions_used(src, _flat(d.defs[tid])) if src else [],
        # records that claim a role or a verdict and do not verify (ruling 14): shown,
        # never counted
        "unverified": [p for p in d.unverified
                       if p.startswith((f"targets/{tid}/", f"attestations/{tid}--"))],
    }
    w.page("target.html", f"targets/{tid}/index.html", drawing=drawing,
           with_shelved=False, **base)
    if base["shelved"]:
        w.page("target.html", f"targets/{tid}/shelved.html", with_shelved=True,
               drawing=pages.drawing(graph, tid, view, lay, True), **base)
    if tid in d.reviews:  # D-9 v3.39: the review's evidence page
        w.page("review.html", f"targets/{tid}/review.html", tid=tid, target=t.record,
               root=d.summaries[tid]["root"], **d.reviews[tid])
    for k, (a, z) in enumerate(pages.set_pages(len(sets["sets"])), start=1):
        w.page("sets.html", f"targets/{tid}/sets/{k}.html", tid=tid, target=t.record,
               sets=sets, nodes=nodes, first=a, rows=list(enumerate(sets["sets"][a:z], a)),
               k=k, pages_of_sets=pages.set_pages(len(sets["sets"])))
    more = pages.route_pages(len(view["routes"]))
    for k, (a, z) in enumerate(more, start=1):
        w.page("routes.html", f"targets/{tid}/routes/{k}.html", tid=tid, target=t.record,
               nodes=nodes, first=a, rows=view["routes"][a:z], total=len(view["routes"]),
               k=k, more=more)
    for k, proof in enumerate(view["proofs"], start=1):
        _render_proof(graph, config, d, tid, k, proof, w)


def _words(graph: Graph, tid: str, nid: str) -> tuple[dict[str, dict[str, Any]],
                                                     list[dict[str, Any]]]:
    glosses = {c["describes"]: c for c in record_words.words_chains(graph, tid, nid, "gloss")}
    return glosses, record_words.words_chains(graph, tid, nid, "explainer")


def _node_context(graph: Graph, config: SiteConfig, d: _Derived, tid: str,
                  nid: str) -> dict[str, Any]:
    t = graph.targets[tid]
    n = t.nodes[nid]
    view = d.views[tid]
    nv = d.node_views[tid][nid]
    glosses, explainers = _words(graph, tid, nid)
    files = []
    for name, path in pages.lean_files(n):
        merge = derive.merge_of(graph, path)
        url = None
        if merge and config.repository_url:
            url = f"{config.repository_url.rstrip('/')}/blob/{merge['merge_commit']}/{path}"
        files.append({"name": name, "path": path, "source": graph.text(path),
                      "merged": name in nv["merged"], "merge": merge, "url": url,
                      "gloss": glosses.get(path),
                      # D-3 v3.30: the outline of these very bytes, never an older one
                      "outline": outlines.for_file(n, graph, path)})
    proof_file = next((f for f in files if f["name"] == "Proof"), None)
    return {
        "tid": tid, "nid": nid, "node": nv, "meta": n.meta, "target": t.record,
        "files": files, "proof_file": proof_file,
        "attestations": pages.attestations_of(graph, tid, nid, d.attestations),
        "route_classes": derive.route_class_histogram(graph, tid, nid),
        "postmortems": [(a.path, a.postmortem) for a in n.attempts if a.postmortem],
        "explainers": explainers,
        "routes": [r for r in view["routes"] if r["node"] == nid],
        "labels": d.labels[tid],
        "proposed_for": [rf.record for rf in n.proposed_for],
        "shelvings": [rf.record for rf in n.shelvings],
        "is_root": d.summaries[tid]["root"] == nid,
        "banner": derive.node_banner(graph, tid, nid),  # issue 29: status first
        "defs_used": (definitions.definitions_used(graph.text(n.files["Statement"].path),
                                                   _flat(d.defs[tid]))
                      if "Statement" in n.files else []),
        "place": pages.place(view, tid, nid),
        "partials": {r["route"]: graph.text(r["route"]) for r in view["routes"]
                     if r["node"] == nid and r["route"] in graph.files},
    }


def _flat(modules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every definition of a target's definition modules, in module then source order."""
    return [x for mod in modules for x in mod["definitions"]]


def _render_node(graph: Graph, config: SiteConfig, d: _Derived, tid: str, nid: str,
                 w: _Writer) -> None:
    c = _node_context(graph, config, d, tid, nid)
    w.page("node.html", pages.node_href(tid, nid), ctx=c, **c)


_FORKED: dict[str, Any] = {}
"""The state forked render workers inherit (set only while a pool runs)."""
PARALLEL_MIN_PAGES = 400


def _node_chunk(chunk: list[tuple[str, str]]) -> list[str]:
    graph, config, d, w = (_FORKED[k] for k in ("graph", "config", "d", "w"))
    w.report = BuildReport()
    for tid, nid in chunk:
        _render_node(graph, config, d, tid, nid, w)
    return list(w.report.pages)


def _render_nodes(graph: Graph, config: SiteConfig, d: _Derived, w: _Writer) -> None:
    """Every node page; in forked worker processes when there are many (POSIX only)."""
    import multiprocessing

    todo = [(tid, nid) for tid, t in graph.targets.items() for nid in t.nodes]
    workers = config.workers or min(4, os.cpu_count() or 1)
    if (workers < 2 or len(todo) < PARALLEL_MIN_PAGES
            or "fork" not in multiprocessing.get_all_start_methods()):
        for tid, nid in todo:
            _render_node(graph, config, d, tid, nid, w)
        return
    size = max(50, len(todo) // (workers * 4) + 1)
    chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    _FORKED.update(graph=graph, config=config, d=d, w=w)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for done in pool.map(_node_chunk, chunks):
                w.report.pages.extend(done)
    finally:
        _FORKED.clear()


def _render_proof(graph: Graph, config: SiteConfig, d: _Derived, tid: str, k: int,
                  proof: dict[str, Any], w: _Writer) -> None:
    view = d.views[tid]
    order = pages.deps_first(view, proof["node"], proof["rests_on"])
    steps = [_node_context(graph, config, d, tid, nid) for nid in order]
    t = graph.targets[tid]
    w.page("proof.html", f"targets/{tid}/proofs/{k}.html", tid=tid, k=k, proof=proof,
           steps=steps, target=t.record, summary=d.summaries[tid],
           labels={x["id"]: x["label"] for x in view["nodes"]})


_FRONTIER_FILTERS = ("open", "blocked")


def _render_frontier(graph: Graph, d: _Derived, w: _Writer) -> None:
    entries = d.frontier
    targets = list(dict.fromkeys(e["target"] for e in entries))
    # past FRONTIER_TARGET_LINKS targets the bar links one list of them (issue 15)
    many = len(targets) > pages.FRONTIER_TARGET_LINKS
    filters = {"targets": [] if many else targets, "statuses": list(_FRONTIER_FILTERS),
               "targets_page": many, "target_count": len(targets)}
    variants: list[tuple[str, str, list[dict[str, Any]]]] = [
        ("frontier/index.html", "every entry", entries),
        ("frontier/claimable.html", "claimable now", [e for e in entries if e["claimable"]]),
    ]
    variants += [(f"frontier/status/{s}.html", f"status {s}",
                  [e for e in entries if e["status"] == s]) for s in _FRONTIER_FILTERS]
    variants += [(f"frontier/target/{tid}.html", f"target {tid}",
                  [e for e in entries if e["target"] == tid]) for tid in targets]
    per = pages.FRONTIER_PER_PAGE
    for path, name, rows in variants:
        chunks = pages.paged(path, rows, per, pages.ID_PAGE_SEP)
        for k, (page_path, chunk) in enumerate(chunks):
            w.page("frontier.html", page_path, rows=chunk, filter_name=name, filters=filters,
                   total=len(entries), shown=len(rows), current=path,
                   pg=pages.pager(chunks, k, per))
    if many:
        counts = {t: [0, 0] for t in targets}
        for e in entries:
            counts[e["target"]][0] += 1
            counts[e["target"]][1] += bool(e["claimable"])
        listed = [(t, n, c) for t, (n, c) in counts.items()]
        chunks = pages.paged("frontier/targets.html", listed, pages.LIST_PER_PAGE)
        for k, (page_path, chunk) in enumerate(chunks):
            w.page("frontier_targets.html", page_path, rows=chunk, total=len(targets),
                   pg=pages.pager(chunks, k, pages.LIST_PER_PAGE))


def _render_contributors(graph: Graph, config: SiteConfig, d: _Derived, w: _Writer) -> None:
    vouched = {k.casefold(): v for k, v in config.vouched.items()}
    people = [{"identity": who, "lines": lines,
               "active": sum(not x["revoked"] for x in lines),
               "revoked": sum(x["revoked"] for x in lines),
               "name": graph.names[who].name if who in graph.names else None,
               "vouched": vouched.get(who.casefold())}
              for who, lines in d.ledger.items()]
    per = pages.LIST_PER_PAGE  # no ledger page grows without bound (issue 15)
    chunks = pages.paged("contributors/index.html", people, per, pages.ID_PAGE_SEP)
    for k, (page_path, chunk) in enumerate(chunks):
        w.page("contributors.html", page_path, people=chunk, total=len(people),
               pg=pages.pager(chunks, k, per))
    for p in people:
        lines = pages.paged(f"contributors/{p['identity']}.html", p["lines"], per,
                            pages.ID_PAGE_SEP)
        for k, (page_path, chunk) in enumerate(lines):
            w.page("contributor.html", page_path, person=p, lines=chunk,
                   pg=pages.pager(lines, k, per))


def _render_gate_log(graph: Graph, w: _Writer) -> None:
    """``gate-log.html`` (and its pages): every gate run, newest first, the refusals that
    touched no node included (issue 35, item 2; :mod:`network.site.gate_log`)."""
    rows = gate_log.gate_log_rows(graph)
    per = pages.LIST_PER_PAGE
    chunks = pages.paged("gate-log.html", rows, per)
    for k, (page_path, chunk) in enumerate(chunks):
        w.page("gate_log.html", page_path, rows=chunk, total=len(rows),
               pg=pages.pager(chunks, k, per))


def _markdown(text: str, config: SiteConfig) -> Markup:
    """CommonMark with tables, raw HTML escaped; links into the repository are dropped
    (the site is not the repository) unless ``repository_url`` makes them absolute."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for tok in tokens:
        stack: list[bool] = []
        for child in tok.children or []:
            if child.type == "link_open":
                href = str(child.attrGet("href") or "")
                internal = not (href.startswith(("http://", "https://", "mailto:")))
                if internal and config.repository_url and not href.startswith("#"):
                    child.attrSet("href", f"{config.repository_url.rstrip('/')}/blob/HEAD/"
                                          f"{href.lstrip('./')}")
                    internal = False
                stack.append(internal)
                if internal:
                    child.type, child.tag, child.nesting = "text", "", 0
                    child.content = ""
            elif child.type == "link_close" and stack and stack.pop():
                child.type, child.tag, child.nesting = "text", "", 0
                child.content = ""
    return Markup(md.renderer.render(tokens, md.options, {}))


_HEADING_RE = re.compile(r"^(?:(?P<d>D-\d+) — )?(?P<title>[^\n]{1,200})§$")


def decision_document(text: str) -> Markup:
    """The decision document (D-36: the Docs page shows "this document") as HTML: each
    line ending in ``§`` a heading, a decision's heading anchored at its number
    (``#D-36``) and listed in a contents list first, every other line a paragraph; all
    text escaped. ``text`` is ``network/site/prose/decisions.txt``, the specification as
    the network's builders hold it."""
    body: list[Markup] = []
    contents: list[Markup] = []
    for n, line in enumerate(text.splitlines()):
        line = line.strip()
        if not line:
            continue
        m = _HEADING_RE.match(line)
        if m:
            anchor = m.group("d") or f"part-{n}"
            title = (f"{m.group('d')} — " if m.group("d") else "") + m.group("title")
            body.append(Markup('<h2 id="{}">{}</h2>').format(anchor, title))
            contents.append(Markup('<li><a href="#{}">{}</a></li>').format(anchor, title))
        else:
            body.append(Markup("<p>{}</p>").format(line))
    return (Markup('<nav aria-label="Decisions"><ol class="decisions-toc">')
            + Markup("").join(contents) + Markup("</ol></nav>") + Markup("\n").join(body))


def _render_docs(graph: Graph, config: SiteConfig, w: _Writer) -> None:
    agents = graph.text("AGENTS.md") if "AGENTS.md" in graph.files else None
    docs = [
        ("agents.html", "AGENTS.md: the prover funnel",
         _markdown(agents, config) if agents else Markup(
             "<p>This graph carries no AGENTS.md.</p>")),
        ("stewards.html", "Stewards: what a steward commits to and receives",
         _markdown((PROSE / "stewards.md").read_text(encoding="utf-8"), config)),
        ("licence.html", "Licences and the Developer Certificate of Origin",
         _markdown((PROSE / "licence.md").read_text(encoding="utf-8").format(
             data=graph.policy.data_license, code=graph.policy.code_license), config)
         + Markup("<pre class=\"dco\">") + escape(DCO_TEXT.read_text(encoding="utf-8"))
         + Markup("</pre>")),
        ("about.html", "What this site is",
         _markdown((PROSE / "about.md").read_text(encoding="utf-8"), config)),
        ("people.html", "Acting on the site: sign in, stewards, approvals, reviews, motions",
         _markdown((PROSE / "people.md").read_text(encoding="utf-8"), config)),
        ("glossary.html", "Glossary of the site's terms",
         _markdown((PROSE / "glossary.md").read_text(encoding="utf-8"), config)),
        ("decisions.html", "The decision document (the network's binding specification)",
         decision_document((PROSE / "decisions.txt").read_text(encoding="utf-8"))),
        ("stance.html", "How the network stands against the Leiden Declaration",
         _markdown((PROSE / "stance.md").read_text(encoding="utf-8"), config)),
    ]
    w.page("docs_index.html", "docs/index.html", docs=[(p, t) for p, t, _ in docs])
    for path, title, body in docs:
        w.page("doc.html", f"docs/{path}", title=title, body=body)


# --- assets --------------------------------------------------------------------------------


def _assets(out: Path) -> None:
    dest = out / "assets"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("site.css", "site.js", "session.js"):
        _copy_if_changed(ASSETS / name, dest / name)
    for src in _walk(SCREENS):
        _copy_if_changed(src, dest / "screens" / src.relative_to(SCREENS))
    (dest / "pygments.css").write_text(pygments_css(), encoding="utf-8")
    for src in _walk(PANZOOM):
        _copy_if_changed(src, dest / "svg-pan-zoom" / src.relative_to(PANZOOM))
    for src in _walk(KATEX_DIR):
        _copy_if_changed(src, dest / "katex" / src.relative_to(KATEX_DIR))


def _walk(root: Path) -> Iterator[Path]:
    return (p for p in sorted(root.rglob("*")) if p.is_file())


def _copy_if_changed(src: Path, dst: Path) -> None:
    data = src.read_bytes()
    if dst.is_file() and dst.read_bytes() == data:
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
