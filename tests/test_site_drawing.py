"""The drawing at scale (issue 15, D-36): fitted to the width with a full-size view on
request (no script), arrowheads, a glyph for each status beside its colour, the band of
proposed statements shaded, the root's neighbourhood past a size with the rest linked, and
the sufficient-sets table paged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from network.site import pages
from network.site.linkcheck import check_links
from tests.site_support import build, require_dot
from tests.sitegraph import NODES, build_rich_graph


def _site(tmp: Path) -> Path:
    require_dot()
    build_rich_graph(tmp / "graph", commit=False)
    build(tmp / "graph", tmp / "site")
    return tmp / "site"


def test_arrowheads_glyphs_band_and_fit(tmp_path: Path) -> None:
    site = _site(tmp_path)
    page = (site / "targets/demo/index.html").read_text(encoding="utf-8")
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert '<marker id="arrow"' in svg
    paths = re.findall(r'<path class="[^"]*" d="[^"]*"[^>]*>', svg)
    assert paths and all('marker-end="url(#arrow)"' in p for p in paths)
    # every drawn statement carries its status glyph, distinct per status
    boxes = re.findall(r'data-node="([^"]+)" data-sets="[^"]*"><title>[^<]*: ([a-z]+)</title>',
                       svg)
    assert len(boxes) == len(NODES["demo"]) - 1  # all but the shelved one
    for node, status in boxes:
        box = svg.split(f'data-node="{node}"', 1)[1].split("</a>", 1)[0]
        assert '<text class="st-glyph"' in box and pages.STATUS_GLYPHS[status] in box
    assert '<g class="band-area">' in svg and "proposed statements" in svg
    band = re.search(r'<g class="band-area"><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
    crux = re.search(r'data-node="crux-gap".*?<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"',
                     svg)
    assert band and crux
    assert float(band.group(1)) <= float(crux.group(1))
    assert float(band.group(1)) + float(band.group(2)) >= float(crux.group(1)) + float(
        crux.group(2))
    assert 'href="#drawing-full">Show it at full size</a>' in page
    assert '<span id="drawing-full" class="visually-hidden"></span>' in page
    css = (site / "assets/site.css").read_text(encoding="utf-8")
    assert "svg.dag { max-width: 100%; height: auto; }" in css
    assert "#drawing-full:target + svg.dag { max-width: none; }" in css
    # the status words on node pages carry the glyph too
    node = (site / "targets/demo/nodes/root--h1.html").read_text(encoding="utf-8")
    assert '<span class="status st-proved"><span class="glyph" aria-hidden="true">✔</span> ' \
           "proved</span>" in node


def test_neighbourhood_past_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "DRAW_LIMIT", 4)
    monkeypatch.setattr(pages, "NEIGHBOURHOOD_DEPTH", 1)
    site = _site(tmp_path)
    page = (site / "targets/demo/index.html").read_text(encoding="utf-8")
    drawn = set(re.findall(r'data-node="([^"]+)" data-sets', page))
    # the root, its variants and the holes of its own routes; not the hole's hole
    assert drawn == {"root", "variant-upper", "variant-counter", "root--h1", "root--h2"}
    assert "too many to draw at once" in page
    rest = page.split("<h3>Not drawn here</h3>", 1)[1].split("</ul>", 1)[0]
    linked = set(re.findall(r'nodes/([^"/]+)\.html', rest))
    assert linked == set(NODES["demo"]) - drawn - {"root--h3"}  # root--h3 is shelved
    assert check_links(site) == []
    # a target under the limit is drawn whole
    calib = (site / "targets/calib/index.html").read_text(encoding="utf-8")
    assert "too many to draw" not in calib


def test_drawn_view_is_whole_under_the_limit() -> None:
    view = {"nodes": [{"id": "root", "variant": None}], "edges": [], "routes": []}
    assert pages.drawn_view(view) == (view, None)


def test_sufficient_sets_are_paged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "SETS_ON_PAGE", 1)
    monkeypatch.setattr(pages, "SETS_PER_PAGE", 1)
    site = _site(tmp_path)
    page = (site / "targets/demo/index.html").read_text(encoding="utf-8")
    table = page.split('id="sets-table"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<tr id="set-(\d+)"', table) == ["0"]
    more = sorted((site / "targets/demo/sets").glob("*.html"))
    assert more, "the other sets get pages of their own"
    for k, p in enumerate(sorted(more, key=lambda p: int(p.stem)), start=1):
        text = p.read_text(encoding="utf-8")
        assert re.findall(r'<tr id="set-(\d+)"', text) == [str(k)]
        assert f'href="sets/{k}.html"' in page
    # the selector's leaves point where each set is listed, and every link resolves
    assert 'href="sets/1.html#set-1"' in page
    assert check_links(site) == []


def test_set_pages_and_hrefs() -> None:
    assert pages.set_pages(pages.SETS_ON_PAGE) == []
    n = pages.SETS_ON_PAGE + pages.SETS_PER_PAGE + 1
    assert pages.set_pages(n) == [(pages.SETS_ON_PAGE, pages.SETS_ON_PAGE + pages.SETS_PER_PAGE),
                                  (pages.SETS_ON_PAGE + pages.SETS_PER_PAGE, n)]
    assert pages.set_href(0) == "index.html#set-0"
    assert pages.set_href(pages.SETS_ON_PAGE) == f"sets/1.html#set-{pages.SETS_ON_PAGE}"


def test_a_large_set_is_summarised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "SET_MEMBERS_SHOWN", 1)
    site = _site(tmp_path)
    page = (site / "targets/demo/index.html").read_text(encoding="utf-8")
    row = page.split('<tr id="set-0"', 1)[1].split("</tr>", 1)[0]
    assert len(re.findall(r"<a href=", row)) == 1
    assert "and 1 more (2 members; the graph's <code>targets/demo/graph.json</code>" \
           in row.replace("&#39;", "'")
