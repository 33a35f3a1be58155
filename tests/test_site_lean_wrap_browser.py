"""The reader's first page at a phone's width in headless Chromium (issue 35, item 10): at
390 px (and 360 px) no highlighted Lean box of graph/'s home, target or root pages hides
part of its text behind the box's edge (it wraps; a phone shows no scroll bar until the
box is touched), the home page shows its problem's statement and Lean before the drawing,
and every drawn label fits inside its box. Screenshots land under screenshots/first-page/.

Marked ``browser``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.site_support import REPO, build, chromium, require_dot, serve

pytestmark = [pytest.mark.browser, pytest.mark.allow_outside_writes]
SHOTS = Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots"))) / "first-page"
WIDTHS = (390, 360)

_CUT_LEAN = """
return Array.from(document.querySelectorAll('.highlight pre')).filter(p => {
  const r = p.getBoundingClientRect();
  return r.width > 0 && p.scrollWidth > p.clientWidth + 1;
}).map(p => p.textContent.split('\\n').find(l => l.trim()).slice(0, 60));
"""
"""Every visible Lean box whose text runs past its edge (its first line, to name it)."""

_LABELS_OUT = """
return Array.from(document.querySelectorAll('svg.dag .node')).filter(n => {
  const r = n.querySelector('rect').getBBox(), t = n.querySelector('text').getBBox();
  return t.x < r.x - 1 || t.x + t.width > r.x + r.width + 1
      || t.y < r.y - 1 || t.y + t.height > r.y + r.height + 1;
}).map(n => n.dataset.node);
"""
"""Every drawn statement whose label runs outside its box."""


def test_lean_wraps_and_labels_fit_at_phone_width(tmp_path: Path) -> None:
    require_dot()
    out = tmp_path / "site"
    build(REPO / "graph", out, featured_target="erdos-242")
    pages = ["index.html"]
    for t in sorted((out / "targets").iterdir()):
        pages.append(f"targets/{t.name}/index.html")
        if (t / "nodes" / "root.html").is_file():
            pages.append(f"targets/{t.name}/nodes/root.html")
    SHOTS.mkdir(parents=True, exist_ok=True)
    cut: list[str] = []
    outside: list[str] = []
    with chromium() as d, serve(out) as base:
        for width in WIDTHS:
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # type: ignore[attr-defined]
                              {"width": width, "height": 900, "deviceScaleFactor": 1,
                               "mobile": True})
            for path in pages:
                d.get(base + path)  # type: ignore[attr-defined]
                cut += [f"{path} at {width}px: {line!r}"
                        for line in d.execute_script(_CUT_LEAN)]  # type: ignore[attr-defined]
                if width == WIDTHS[0]:
                    ids = d.execute_script(_LABELS_OUT)  # type: ignore[attr-defined]
                    outside += [f"{path}: {nid}" for nid in ids]
            d.get(base + "index.html")  # type: ignore[attr-defined]
            order = d.execute_script(  # type: ignore[attr-defined]
                "const s = document.querySelector('section[aria-labelledby=featured]');"
                "const y = q => s.querySelector(q).getBoundingClientRect().top;"
                "return [y('.informal'), y('.highlight pre'), y('figure.drawing')];")
            assert order[0] < order[1] < order[2], order  # stated, then Lean, then drawn
            d.save_screenshot(str(SHOTS / f"index-{width}.png"))  # type: ignore[attr-defined]
    assert cut == [], "\n".join(cut)
    assert outside == [], "\n".join(outside)
