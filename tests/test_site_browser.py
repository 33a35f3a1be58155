"""The built site in Debian's headless Chromium (D-36), driven by selenium against a local
http.server: the main pages load, every node of the fixture graph is drawn, a frontier
filter narrows the table, and PNG screenshots land under screenshots/ (git-ignored).

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.site_support import REPO, build, chromium, require_dot, serve
from tests.sitegraph import NODES, build_rich_graph

pytestmark = [pytest.mark.browser, pytest.mark.allow_outside_writes]
SHOTS = Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots")))


@pytest.fixture()
def driver() -> Iterator[object]:
    with chromium() as drv:
        yield drv


def test_site_in_chromium(tmp_path: Path, driver: object) -> None:
    from selenium.webdriver.common.by import By

    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    out = tmp_path / "site"
    build(graph, out)
    SHOTS.mkdir(parents=True, exist_ok=True)
    d = driver
    with serve(out) as base:
        for name, path in [("home", "index.html"), ("problems", "problems/index.html"),
                           ("target", "targets/demo/index.html"),
                           ("node", "targets/demo/nodes/root--h1.html"),
                           ("proof", "targets/calib/proofs/1.html"),
                           ("frontier", "frontier/index.html"),
                           ("contributors", "contributors/index.html")]:
            d.get(base + path)  # type: ignore[attr-defined]
            assert "Lemmata" in d.title, path  # type: ignore[attr-defined]
            assert d.find_elements(By.TAG_NAME, "main")  # type: ignore[attr-defined]
            d.save_screenshot(str(SHOTS / f"{name}.png"))  # type: ignore[attr-defined]
        # every node of the fixture graph is drawn (shelved ones on the shelved view)
        d.get(base + "targets/demo/shelved.html")  # type: ignore[attr-defined]
        drawn = {e.get_attribute("data-node") for e in  # type: ignore[attr-defined]
                 d.find_elements(By.CSS_SELECTOR, "svg.dag a.node")}
        assert drawn == set(NODES["demo"])
        for e in d.find_elements(By.CSS_SELECTOR, "svg.dag a.node rect"):  # type: ignore[attr-defined]
            assert e.is_displayed() and e.size["width"] > 0
        d.save_screenshot(str(SHOTS / "target-shelved.png"))  # type: ignore[attr-defined]
        d.get(base + "targets/calib/index.html")  # type: ignore[attr-defined]
        assert {e.get_attribute("data-node") for e in  # type: ignore[attr-defined]
                d.find_elements(By.CSS_SELECTOR, "svg.dag a.node")} == set(NODES["calib"])
        # selecting a sufficient set filters the sets table and lights its members
        d.get(base + "targets/demo/index.html")  # type: ignore[attr-defined]
        rows = lambda: [r for r in d.find_elements(  # type: ignore[attr-defined]
            By.CSS_SELECTOR, "#sets-table tbody tr") if r.is_displayed()]
        before = len(rows())
        d.find_element(By.CSS_SELECTOR, "a.select.leaf").click()  # type: ignore[attr-defined]
        assert len(rows()) == 1 < before
        assert d.find_elements(By.CSS_SELECTOR, "svg.dag .node.lit")  # type: ignore[attr-defined]
        d.save_screenshot(str(SHOTS / "target-selected.png"))  # type: ignore[attr-defined]
        # a frontier filter narrows the table, with JavaScript and without
        d.get(base + "frontier/index.html")  # type: ignore[attr-defined]
        visible = lambda: [r for r in d.find_elements(  # type: ignore[attr-defined]
            By.CSS_SELECTOR, "#frontier-table tbody tr") if r.is_displayed()]
        every = len(visible())
        d.find_element(By.CSS_SELECTOR, 'a[data-filter="status-blocked"]').click()  # type: ignore[attr-defined]
        assert 0 < len(visible()) < every
        d.save_screenshot(str(SHOTS / "frontier-filtered.png"))  # type: ignore[attr-defined]
        d.get(base + "frontier/status/blocked.html")  # type: ignore[attr-defined]
        assert 0 < len(visible()) < every
    assert sorted(p.name for p in SHOTS.glob("*.png"))
