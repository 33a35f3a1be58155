"""The problems index and the reference pages (issue 15, D-36): one compact row per problem
(no Lean blocks), status as a glyph beside its colour and word, progress, stewards and the
literature mark; filters as pre-rendered pages; the glossary, the decision document and
the stance page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from network.site import pages
from network.site.build import decision_document
from network.site.linkcheck import check_links
from tests.site_support import REPO, build, require_dot
from tests.sitegraph import build_rich_graph


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_dot()
    root = tmp_path_factory.mktemp("problems")
    build_rich_graph(root / "graph", commit=False)
    build(root / "graph", root / "site")
    return root / "site"


def _rows(page: str) -> dict[str, str]:
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return dict(re.findall(r'<tr id="t-([a-z0-9-]+)">(.*?)</tr>', body, flags=re.DOTALL))


def test_one_compact_row_per_problem(site: Path) -> None:
    page = (site / "problems/index.html").read_text(encoding="utf-8")
    rows = _rows(page)
    assert set(rows) == {"demo", "calib"}
    assert 'class="highlight"' not in page  # no Lean blocks on the index
    demo = rows["demo"]
    assert 'href="../targets/demo/index.html">Demo conjecture</a>' in demo
    assert '<span class="math">' in demo  # the statement's first paragraph, typeset
    assert '<span class="math display">' not in demo  # the rest is on the target page
    assert re.search(r'<span class="tstatus ts-[a-z-]+"><span class="glyph" aria-hidden="true">'
                     r"[○◔●☾≡✔✘⚠]</span> [a-z-]+</span>", demo)
    assert "1 of 8 proved" in demo and "Real steve (steve)" in demo
    assert "no mark on the root" in demo and "1 statement marked" in demo
    calib = rows["calib"]
    assert "✔" in calib and "resolved" in calib and "1 of 1 proved" in calib


def test_filters_are_pre_rendered_pages(site: Path) -> None:
    page = (site / "problems/index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a href="\.\./(problems/[a-z/-]+\.html)"', page)
    assert "problems/class/calibration.html" in links and "problems/stewarded.html" in links
    for link in set(links):
        sub = (site / link).read_text(encoding="utf-8")
        assert f'href="../{"../" if link.count("/") > 1 else ""}{link}" aria-current="page"' \
            in sub.replace('href="../../problems/', 'href="../../problems/')
    calib = _rows((site / "problems/class/calibration.html").read_text(encoding="utf-8"))
    assert set(calib) == {"calib"}
    stewarded = _rows((site / "problems/stewarded.html").read_text(encoding="utf-8"))
    unstewarded = _rows((site / "problems/unstewarded.html").read_text(encoding="utf-8"))
    assert set(stewarded) == {"demo"} and set(unstewarded) == {"calib"}
    assert check_links(site) == []


def test_target_glyphs_cover_every_status() -> None:
    for st in ("listed", "active", "resolved", "dormant", "known-result"):
        assert pages.target_glyph({"status": st, "resolution": None}) in "○◔●☾≡"
    assert pages.target_glyph({"status": "resolved", "resolution": "refuted"}) == "✘"
    assert set(pages.STATUS_GLYPHS) == set(pages.STATUS_WORDS)
    assert len(set(pages.STATUS_GLYPHS.values())) == len(pages.STATUS_GLYPHS)


def test_glossary_decisions_and_stance(site: Path) -> None:
    index = (site / "docs/index.html").read_text(encoding="utf-8")
    for path in ("glossary.html", "decisions.html", "stance.html"):
        assert f'href="{path}"' in index
    glossary = (site / "docs/glossary.html").read_text(encoding="utf-8")
    for term in ("Sufficient set", "Hole", "Route", "Literature mark", "blocked", "Steward"):
        assert term in glossary
    decisions = (site / "docs/decisions.html").read_text(encoding="utf-8")
    assert '<h2 id="D-36">D-36 — The website is a view of the graph' in decisions
    assert '<a href="#D-36">' in decisions
    stance = (site / "docs/stance.html").read_text(encoding="utf-8")
    assert "Leiden Declaration" in stance and "D-19" in stance and "D-32" in stance


def test_decision_document_escapes_its_text() -> None:
    html = decision_document("D-99 — <b>bold</b>§\n\na <script>x</script> line\n")
    assert '<h2 id="D-99">D-99 — &lt;b&gt;bold&lt;/b&gt;</h2>' in html
    assert "<p>a &lt;script&gt;x&lt;/script&gt; line</p>" in html


def test_real_graph_problems_index(tmp_path: Path) -> None:
    require_dot()
    out = tmp_path / "site"
    build(REPO / "graph", out)
    page = (out / "problems/index.html").read_text(encoding="utf-8")
    assert 'class="highlight"' not in page
    assert len(_rows(page)) == len([p for p in (REPO / "graph/targets").iterdir() if p.is_dir()])
    assert "$" not in re.sub(r"<annotation.*?</annotation>", "",
                             page.split("<tbody>", 1)[1], flags=re.DOTALL)
