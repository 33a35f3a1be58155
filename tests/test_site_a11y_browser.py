"""The site as a reader meets it, in headless Chromium (issue 15 "Done when", D-36): for
graph/, the rich fixture (tests/sitegraph.py) and an import of the real Formal Conjectures
Erdős snapshot, at 1280 px and 390 px, over a representative set of pages (home, problems
index, a target page, node pages, frontier, contributors and a ledger, glossary, decisions, stance, a
postmortem where the graph has one):

- no horizontal overflow: ``document.documentElement.scrollWidth`` at most the emulated
  width (not ``innerWidth``, which a mobile viewport widens to the content);
- mathematics typeset where a ``$`` was: a page showing an informal text that has formulas
  (by :func:`network.site.informal.formulas`, the site's own parser) holds rendered
  ``.katex`` elements, and no page shows raw ``$…$`` TeX in its text outside code;
- the drawing fits: on target pages the zoom is on, the drawing is no wider than its box
  and the root node's box lies inside it; a drawing opened fitted (any zoom but 1) shows
  every box, and one opened at full size (site.js does that when the fit would make labels
  unreadable) at least the root's;
- axe-core 4.14.1 (vendored under tests/vendor/axe-core/, injected into each page) reports
  no violation, with the rules of :data:`AXE_DISABLED` off, each for the reason given.

Screenshots of every page checked are written at test time under
``screenshots/a11y/`` (``$LEMMATA_SCREENSHOTS`` moves it); screenshots/ is git-ignored, as
for the layout tests: they are generated for review, not committed.

The Erdős site is built from a fixed subset of the real snapshot
(``tests/fixtures/registries/formal-conjectures-488aade-erdos.tar.gz``, the copy of
``../shared/registries/``): the problem files sorted by number, every 15th from the first
(:func:`erdos_subset`, 40 files, about 65 targets). The whole collection (610 files, 989
targets) takes minutes to import and build on two shared cores, too slow for the suite;
``benchmarks/site_build.py --erdos`` covers the full build's size and time.

Marked ``browser`` and ``slow``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from network.importers import write_files
from network.importers.formal_conjectures import ERDOS_DIR, plan_formal_conjectures_import
from network.record.loader import load_graph
from network.site.build import build_site
from network.site.config import SiteConfig
from network.site.informal import formulas
from tests.importfixtures import fc_real_checkout, graph_copy
from tests.site_support import REPO, build, chromium, require_dot, serve
from tests.sitegraph import build_rich_graph

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.allow_outside_writes]

AXE_JS = REPO / "tests" / "vendor" / "axe-core" / "axe.min.js"
SHOTS = Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots"))) / "a11y"
WIDTHS = (1280, 390)
ERDOS_STEP = 15
"""Every ERDOS_STEP-th problem file of the snapshot (sorted by number) is imported."""

AXE_DISABLED: dict[str, str] = {}
"""axe-core rules switched off, by name, with the reason each is inapplicable. Empty: every
rule of axe-core's default set runs."""

RAW_TEX_VERBATIM: dict[str, str] = {
    "docs/decisions.html": "the specification's text shown verbatim; it names the delimiters "
                           "(``$$…$$``, ``$<the hole in notation>$``) rather than using them",
}
"""Pages where ``$…$`` in the text is meant literally, each with the reason; the raw-TeX
check skips them (the other three checks do not)."""

_RAW_TEX = r"\$(?![\s\d$])[^$\n]*[^\s\\$]\$"
"""A ``$…$`` left as text: an opening dollar not followed by a blank or a digit (the site's
rule: a dollar before a digit is money), a closing dollar after a non-blank."""

_PAGE_JS = """
const rawTex = new RegExp(arguments[0]);
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const raw = [];
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (n.parentElement.closest('code, pre, script, style, .katex, .tex-error, textarea'))
    continue;
  const m = n.textContent.match(rawTex);
  if (m) raw.push(m[0].slice(0, 60));
}
const out = {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
             katex: document.querySelectorAll('.katex').length, raw: raw.slice(0, 3),
             wide: Array.from(document.querySelectorAll('body *')).filter(e =>
               e.getBoundingClientRect().right > arguments[1] + 1
               && !e.closest('.table-scroll, .highlight, .svgwrap, .katex-display, pre,'
                             + ' .code-scroll, .visually-hidden, .skip'))
               .slice(0, 3).map(e => e.tagName + '.' + e.className)};
const wrap = document.querySelector('.svgwrap');
const root = document.querySelector('svg.dag .node[data-node="root"] rect');
if (wrap) {
  const w = wrap.getBoundingClientRect();
  const s = wrap.querySelector('svg.dag').getBoundingClientRect();
  const inView = e => { const r = e.getBoundingClientRect(); return r.width > 0
    && r.left >= w.left - 1 && r.right <= w.right + 1
    && r.top >= w.top - 1 && r.bottom <= w.bottom + 1; };
  const boxes = Array.from(wrap.querySelectorAll('svg.dag .node rect'));
  out.drawing = {fits: s.width <= w.width + 1, root: root ? inView(root) : null,
                 nodes: boxes.length, shown: boxes.filter(inView).length,
                 zoom: window.lemmataDrawing ? window.lemmataDrawing.getSizes().realZoom : null};
}
return out;
"""

_AXE_RUN = """
const done = arguments[arguments.length - 1];
const rules = {};
for (const id of arguments[0]) rules[id] = {enabled: false};
axe.run(document, {resultTypes: ['violations'], rules: rules})
  .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': '
      + (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 160))}))))
  .catch(e => done('axe failed: ' + e));
"""


@dataclass
class Site:
    """One built site: its name, output folder, the pages to check, and which of those
    must show typeset mathematics; ``targets`` are the pages where the drawing is checked."""

    name: str
    out: Path
    pages: list[str]
    maths: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)


def erdos_subset(checkout: Path) -> list[str]:
    """The fixed subset of the real snapshot this test imports: the problem files' stems
    sorted by number, every :data:`ERDOS_STEP`-th from the first (40 of 610)."""
    stems = sorted((p.stem for p in (checkout / ERDOS_DIR).glob("*.lean") if p.stem.isdigit()),
                   key=int)
    return stems[::ERDOS_STEP]


def _has_maths(text: str | None) -> bool:
    display, inline = formulas([text])
    return bool(display or inline)


def _pick(out: Path, graph: Path, name: str, extra: list[str]) -> Site:
    """The representative pages of a built site: the common ones, the first target whose
    informal statement has formulas (its page and its root's page; else the first target),
    a node page with a postmortem if any, plus ``extra``."""
    g = load_graph(graph)
    common = ["index.html", "problems/index.html", "frontier/index.html",
              "contributors/index.html", "docs/glossary.html", "docs/decisions.html",
              "docs/stance.html"]
    site = Site(name, out, [p for p in common if (out / p).is_file()])
    assert len(site.pages) == len(common), (name, sorted(set(common) - set(site.pages)))
    if any(_has_maths(t.record.informal_statement) for t in g.targets.values()):
        site.maths.add("problems/index.html")
    with_maths = [t for t in sorted(g.targets) if _has_maths(g.targets[t].record.informal_statement)]
    tids = with_maths[:2] or sorted(g.targets)[:1]
    for tid in tids:
        page = f"targets/{tid}/index.html"
        site.pages.append(page)
        site.targets.add(page)
        if tid in with_maths:
            site.maths.add(page)
        if (out / "targets" / tid / "nodes" / "root.html").is_file():
            site.pages.append(f"targets/{tid}/nodes/root.html")
    post = sorted(p for p in out.glob("targets/*/nodes/*.html")
                  if 'class="postmortem"' in p.read_text(encoding="utf-8"))
    ledger = sorted(p for p in out.glob("contributors/*.html")
                    if 'class="ledger"' in p.read_text(encoding="utf-8"))
    for found in (post, ledger):
        if found:
            site.pages.append(str(found[0].relative_to(out)))
    site.pages += [p for p in extra if p not in site.pages]
    for p in site.pages:
        assert (out / p).is_file(), (name, p)
    return site


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Site]:
    """The three sites, built once for the module."""
    require_dot()
    base = tmp_path_factory.mktemp("a11y")
    built: dict[str, Site] = {}
    build(REPO / "graph", base / "graph-site")
    built["graph"] = _pick(base / "graph-site", REPO / "graph", "graph", [])
    rich = base / "rich"
    build_rich_graph(rich, commit=False)
    build(rich, base / "rich-site")
    built["rich"] = _pick(base / "rich-site", rich, "rich", [
        "targets/demo/nodes/root--h1.html", "targets/demo/nodes/variant-upper.html",
        "targets/demo/shelved.html", "targets/calib/proofs/1.html"])
    co, _ = fc_real_checkout(base / "fc")
    erdos = graph_copy(base, "erdos")
    subset = erdos_subset(co)
    assert len(subset) >= 40
    write_files(erdos, plan_formal_conjectures_import(co, erdos, problems=subset).files)
    # Not strict: the real snapshot has formulas KaTeX refuses (shown as marked source,
    # each a build warning); the warnings are reported by the build, not by this test.
    build_site(SiteConfig(graph=erdos, out=base / "erdos-site"))
    built["erdos"] = _pick(base / "erdos-site", erdos, "erdos", [])
    return built


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    with chromium() as drv:
        # axe is injected by script; the site's Content-Security-Policy would refuse it.
        drv.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})  # type: ignore[attr-defined]
        drv.set_script_timeout(120)  # type: ignore[attr-defined]
        yield drv


def check_site(d: object, site: Site) -> list[str]:
    """Every finding of the four checks on ``site``'s pages at both widths."""
    axe = AXE_JS.read_text(encoding="utf-8")
    SHOTS.mkdir(parents=True, exist_ok=True)
    bad: list[str] = []
    with serve(site.out) as base:
        for width in WIDTHS:
            d.execute_cdp_cmd(  # type: ignore[attr-defined]
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 800})
            for path in site.pages:
                where = f"{site.name} {path} at {width}px"
                d.get(base + path)  # type: ignore[attr-defined]
                got = d.execute_script(_PAGE_JS, _RAW_TEX, width)  # type: ignore[attr-defined]
                # Against the emulated width, not innerWidth: a mobile viewport widens
                # its layout viewport to the content, so innerWidth grows with the overflow.
                if got["scroll"] > width:
                    bad.append(f"{where}: {got['scroll']} px wide > {width} "
                               f"(innerWidth {got['inner']}; {got['wide']})")
                if path in site.maths and got["katex"] == 0:
                    bad.append(f"{where}: formulas in the informal text, no .katex")
                if got["raw"] and path not in RAW_TEX_VERBATIM:
                    bad.append(f"{where}: raw TeX shown as text {got['raw']}")
                if path in site.targets:
                    drawing = got.get("drawing")
                    if (not drawing or not drawing["fits"] or drawing["root"] is not True
                            or drawing["zoom"] is None
                            or (abs(drawing["zoom"] - 1) > 1e-3
                                and drawing["shown"] < drawing["nodes"])):
                        bad.append(f"{where}: drawing not fitted with the root in view "
                                   f"({drawing})")
                d.execute_script(axe)  # type: ignore[attr-defined]
                found = d.execute_async_script(  # type: ignore[attr-defined]
                    _AXE_RUN, sorted(AXE_DISABLED))
                if found:
                    bad.append(f"{where}: axe {json.dumps(found)}")
                name = re.sub(r"[^A-Za-z0-9.-]+", "_", path).removesuffix(".html")
                d.save_screenshot(  # type: ignore[attr-defined]
                    str(SHOTS / f"{site.name}-{name}-{width}.png"))
    return bad


@pytest.mark.parametrize("name", ["graph", "rich", "erdos"])
def test_pages_fit_typeset_draw_and_pass_axe(name: str, sites: dict[str, Site],
                                             driver: object) -> None:
    site = sites[name]
    if name != "graph":
        assert site.maths, f"{name}: no informal text with formulas; the KaTeX check is idle"
        assert site.targets
    bad = check_site(driver, site)
    assert bad == [], "\n".join(bad)


def test_the_checks_catch_what_they_look_for(tmp_path: Path, driver: object) -> None:
    """Each check fails on a page built to break it: wider than the phone, raw TeX, a
    drawing whose root is off screen, an image without alt text and grey-on-white text."""
    (tmp_path / "bad.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title>'
        '<meta name="viewport" content="width=device-width"></head><body><main>'
        '<p style="width:900px">For $C > 0$ wide</p><img src="x.png">'
        '<p style="color:#bbb">faint</p><div class="svgwrap" style="width:200px;'
        'overflow:hidden"><svg class="dag" width="2000" height="50"><a class="node" '
        'data-node="root" href="#"><rect x="1500" y="0" width="50" height="20"/></a></svg>'
        '</div></main></body></html>', encoding="utf-8")
    site = Site("selftest", tmp_path, ["bad.html"], {"bad.html"}, {"bad.html"})
    bad = check_site(driver, site)
    text = "\n".join(bad)
    for width in WIDTHS:
        assert f"bad.html at {width}px: drawing not fitted" in text
        assert f"bad.html at {width}px: formulas in the informal text, no .katex" in text
        assert f"bad.html at {width}px: raw TeX shown as text ['$C > 0$']" in text
    assert "bad.html at 390px: 9" in text  # overflow at the phone width
    assert '"image-alt"' in text and '"color-contrast"' in text
