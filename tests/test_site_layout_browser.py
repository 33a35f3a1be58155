"""The site at desktop and phone widths in headless Chromium (issue 15, D-36): at 1280 px and
390 px (and 360 px, the narrowest the issue names) no main page of graph/ or of the rich
fixture is wider than its viewport; anything wide (tables, Lean, the drawing, display
maths) scrolls inside its own box. Screenshots land under screenshots/layout/.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import os
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
                "  const r = e.getBoundingClientRect(); return r.right > window.innerWidth + 1"
                "  && getComputedStyle(e).position !== 'absolute'"
                "  && !e.closest('.table-scroll, .highlight, .svgwrap, .katex-display,"
                " .math.display, pre, .code-scroll, .visually-hidden, .skip')"
                " }).slice(0, 3).map(e => e.tagName + '.' + e.className)];")
            scroll, inner, culprits = wide
            if scroll > inner:
                bad.append(f"{tag} {path} at {width}px: {scroll} > {inner} ({culprits})")
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
