"""The site at desktop and phone widths in headless Chromium (issue 15, D-36): at 1280 px and
390 px (and 360 px, the narrowest the issue names) no main page of graph/ or of the rich
fixture is wider than its viewport; anything wide (tables, Lean, the drawing, display
maths) scrolls inside its own box. Screenshots land under screenshots/layout/.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.site_support import REPO, build, chromium, require_dot, serve
from tests.sitegraph import build_rich_graph

pytestmark = [pytest.mark.browser, pytest.mark.allow_outside_writes]
SHOTS = Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots"))) / "layout"
WIDTHS = (1280, 390, 360)
COMMON = ["index.html", "problems/index.html", "frontier/index.html",
          "contributors/index.html", "docs/index.html", "docs/agents.html", "docs/people.html"]
RICH = COMMON + ["targets/demo/index.html", "targets/demo/shelved.html",
                 "targets/demo/nodes/root.html", "targets/demo/nodes/root--h1.html",
                 "targets/demo/nodes/root--h2.html", "targets/calib/proofs/1.html"]
"""The rich fixture's main pages."""


def _graph_pages(out: Path) -> list[str]:
    """graph/'s main pages: the common ones, every target page, and each target's root."""
    pages = list(COMMON)
    for t in sorted((out / "targets").iterdir()):
        pages.append(f"targets/{t.name}/index.html")
        if (t / "nodes" / "root.html").is_file():
            pages.append(f"targets/{t.name}/nodes/root.html")
    return pages


@pytest.fixture()
def driver() -> Iterator[object]:
    with chromium() as drv:
        yield drv


def _overflows(d: object, base: str, pages: list[str], tag: str) -> list[str]:
    bad: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # type: ignore[attr-defined]
                          {"width": width, "height": 900, "deviceScaleFactor": 1,
                           "mobile": width < 800})
        for path in pages:
            d.get(base + path)  # type: ignore[attr-defined]
            wide = d.execute_script(  # type: ignore[attr-defined]
                "return [document.documentElement.scrollWidth, window.innerWidth,"
                " Array.from(document.querySelectorAll('body *')).filter(e => {"
                "  const r = e.getBoundingClientRect(); return r.right > arguments[0] + 1"
                "  && getComputedStyle(e).position !== 'absolute'"
                "  && !e.closest('.table-scroll, .highlight, .svgwrap, .katex-display,"
                " .math.display, pre, .code-scroll, .visually-hidden, .skip')"
                " }).slice(0, 3).map(e => e.tagName + '.' + e.className)];", width)
            scroll, inner, culprits = wide
            # Against the emulated width: a mobile viewport widens its layout viewport
            # (innerWidth) to the content, so ``scroll > inner`` never fires there.
            if scroll > width:
                bad.append(f"{tag} {path} at {width}px: {scroll} > {width} "
                           f"(innerWidth {inner}; {culprits})")
            if path in ("index.html", "problems/index.html") or "demo/index" in path:
                name = path.replace("/", "_").removesuffix(".html")
                d.save_screenshot(str(SHOTS / f"{tag}-{name}-{width}.png"))  # type: ignore[attr-defined]
    return bad


def test_no_page_is_wider_than_the_viewport(tmp_path: Path, driver: object) -> None:
    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    rich_out, real_out = tmp_path / "rich", tmp_path / "real"
    build(graph, rich_out)
    build(REPO / "graph", real_out)
    bad: list[str] = []
    with serve(rich_out) as base:
        bad += _overflows(driver, base, RICH, "rich")
    with serve(real_out) as base:
        bad += _overflows(driver, base, _graph_pages(real_out), "graph")
    assert bad == [], "\n".join(bad)


def test_drawing_zooms_and_opens_with_the_root_in_view(tmp_path: Path) -> None:
    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    out = tmp_path / "site"
    build(graph, out)
    with chromium(log=True) as d, serve(out) as base:
        for width in (1280, 390):
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # type: ignore[attr-defined]
                              {"width": width, "height": 900, "deviceScaleFactor": 1,
                               "mobile": width < 800})
            d.get(base + "targets/demo/index.html")  # type: ignore[attr-defined]
            state = d.execute_script(  # type: ignore[attr-defined]
                "const w = document.querySelector('.svgwrap').getBoundingClientRect();"
                "const r = document.querySelector('svg.dag .node[data-node=\"root\"] rect')"
                ".getBoundingClientRect();"
                "const vp = () => document.querySelector('svg.dag .svg-pan-zoom_viewport')"
                ".getAttribute('transform') || getComputedStyle(document.querySelector("
                "'svg.dag .svg-pan-zoom_viewport')).transform;"
                "window.lemmataVp = vp; const before = vp();"
                "document.querySelector('.zoom-bar button').click();"
                "return {zoom: !!window.lemmataDrawing, buttons: document.querySelectorAll("
                "'.zoom-bar button').length, inView: r.left >= w.left - 1 && r.right <= w.right + 1"
                " && r.top >= w.top - 1 && r.bottom <= w.bottom + 1, before: before};")
            assert state["zoom"] and state["buttons"] == 4, state
            assert state["inView"], (width, state)
            time.sleep(0.4)  # svg-pan-zoom moves the viewport on the next animation frame
            after = d.execute_script("return window.lemmataVp();")  # type: ignore[attr-defined]
            assert state["before"] != after, (state, after)  # zoom in moved the viewport
        refused = [e for e in d.get_log("browser")  # type: ignore[attr-defined]
                   if "Content Security Policy" in e["message"] or "Refused" in e["message"]]
        assert refused == []
