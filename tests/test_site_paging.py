"""No page grows without bound (issue 15): past the sizes of ``network/site/pages.py`` a
target page draws the root's neighbourhood and links the rest, the sufficient sets, the
frontier, its targets, the contributors and each contributor's ledger are paged through
pre-rendered pages, and nothing becomes unreachable.

The synthetic graph is the benchmark's (``benchmarks/products.py``) at a few hundred
statements with every size lowered, so the test runs in seconds and still pages every list.
Nothing here times anything.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path

import pytest

from network.record.read.loader import load_graph
from network.site import pages
from network.site.linkcheck import check_links
from tests.site_support import build, require_dot

N_NODES = 240
LOWERED = {"DRAW_LIMIT": 30, "NOT_DRAWN_LISTED": 10, "SETS_ON_PAGE": 5, "SETS_PER_PAGE": 10,
           "FRONTIER_PER_PAGE": 20, "FRONTIER_TARGET_LINKS": 0, "LIST_PER_PAGE": 20,
           "PROBLEMS_PER_PAGE": 1, "ROUTES_ON_PAGE": 10, "SELECTOR_NODES": 5}
PAGE_BUDGET = 40_000
"""The byte budget every page of the lowered build stays under (the docs pages, fixed
prose the graph does not grow, aside); the same graph built with no paging has pages over
it (the test's own check that the budget means something)."""
_HREF_RE = re.compile(r'\shref="([^"#?]*)(?:#[^"]*)?"')


def _graph(tmp: Path) -> Path:
    from benchmarks.products import generate
    from network.record.products.products import write_products

    root = tmp / "graph"
    generate(root, N_NODES)
    # a ledger line per merge: half to one identity (its ledger pages), half each to an
    # identity of its own (the contributors' pages)
    (root / "ledger").mkdir()
    for merge in sorted((root / "log/merges").glob("*.json")):
        rec = json.loads(merge.read_text(encoding="utf-8"))
        seq, art = rec["seq"], rec["artifacts"][0]
        parts = art.split("/")
        (root / f"ledger/{seq:06d}-1.json").write_text(json.dumps({
            "schema": "ledger-line/v1", "merge_seq": seq, "k": 1, "line": "proof",
            "identity": "alice0" if seq % 2 else f"p{seq:04d}", "target": parts[1],
            "node": parts[3], "artifact": art,
            "artifact_sha256": hashlib.sha256((root / art).read_bytes()).hexdigest()}),
            encoding="utf-8")
    write_products(load_graph(root), root)
    return root


def _sizes(site: Path) -> dict[str, int]:
    return {str(p.relative_to(site)): p.stat().st_size for p in site.rglob("*.html")}


def _reach(site: Path, start: str, inside: str = "") -> set[str]:
    """Output-relative pages reachable from ``start`` by internal links, following only
    links to pages under ``inside``."""
    seen = {start}
    todo = [start]
    while todo:
        page = todo.pop()
        text = (site / page).read_text(encoding="utf-8")
        for href in _HREF_RE.findall(text):
            if not href or "://" in href or href.startswith(("mailto:", "//")):
                continue
            dest = posixpath.normpath(posixpath.join(posixpath.dirname(page), href))
            if (dest.endswith(".html") and dest.startswith(inside) and dest not in seen
                    and (site / dest).is_file()):
                seen.add(dest)
                todo.append(dest)
    return seen


@pytest.fixture(scope="module")
def paged_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    require_dot()
    tmp = tmp_path_factory.mktemp("paging")
    graph = _graph(tmp)
    with pytest.MonkeyPatch.context() as mp:
        for name, value in LOWERED.items():
            mp.setattr(pages, name, value)
        build(graph, tmp / "site")
    return graph, tmp / "site"


def test_every_page_stays_under_the_budget(paged_site: tuple[Path, Path]) -> None:
    _, site = paged_site
    sizes = _sizes(site)
    over = {p: n for p, n in sizes.items() if n >= PAGE_BUDGET and not p.startswith("docs/")}
    assert not over, over
    # every list was in fact paged (so the budget held because of paging, not by luck)
    for page in ("frontier/index.page-2.html", "frontier/status/open.page-2.html",
                 "frontier/targets.html", "targets/bench-0000/sets/1.html",
                 "targets/bench-0000/routes/1.html", "contributors/alice0.page-2.html",
                 "contributors/index.page-2.html"):
        assert page in sizes, page
    target = (site / "targets/bench-0000/index.html").read_text(encoding="utf-8")
    assert "too many to draw at once" in target
    # the selector tree past SELECTOR_NODES forks: collapsed leaves, each lighting only the
    # sets listed on the target page and linking where its first set is listed
    leaves = re.findall(r'<a href="([^"]+)" class="select leaf" data-select="([^"]*)">'
                        r'(\d+) sets from set (\d+)</a>', target)
    assert leaves
    on_page, per = LOWERED["SETS_ON_PAGE"], LOWERED["SETS_PER_PAGE"]
    for href, select, _, first in leaves:
        i = int(first) - 1
        assert href == (f"index.html#set-{i}" if i < on_page
                        else f"sets/{(i - on_page) // per + 1}.html#set-{i}")
        assert all(int(i) < LOWERED["SETS_ON_PAGE"] for i in select.split())
    assert 0 < target.count('<span class="fork">') <= LOWERED["SELECTOR_NODES"]
    assert check_links(site) == []


def test_without_paging_some_page_is_over_the_budget(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The attacker's build: the same graph with every size raised past it must break the
    budget, or the budget test above proves nothing."""
    require_dot()
    graph = _graph(tmp_path)
    for name in LOWERED:
        monkeypatch.setattr(pages, name, 10**6)
    build(graph, tmp_path / "site")
    sizes = _sizes(tmp_path / "site")
    assert max(n for p, n in sizes.items() if not p.startswith("docs/")) >= PAGE_BUDGET


def test_every_statement_stays_reachable(paged_site: tuple[Path, Path]) -> None:
    graph_dir, site = paged_site
    graph = load_graph(graph_dir)
    (tid, t), = graph.targets.items()
    want = {pages.node_href(tid, nid) for nid in t.nodes}
    # from the target page alone, through its drawing, its words, its set pages and the
    # node pages' tree links: every statement
    inside = _reach(site, f"targets/{tid}/index.html", f"targets/{tid}/")
    assert want <= inside, sorted(want - inside)[:5]
    # and the paged lists reach every page they split: every frontier entry's node, every
    # frontier target page, every contributor's ledger page
    everything = _reach(site, "index.html")
    assert set(_sizes(site)) - everything == set()
    frontier = _reach(site, "frontier/index.html", "frontier/")
    assert {p for p in _sizes(site) if p.startswith("frontier/")} <= frontier
    people = _reach(site, "contributors/index.html", "contributors/")
    assert {p for p in _sizes(site) if p.startswith("contributors/")} <= people


def test_paged_names_never_collide() -> None:
    chunks = pages.paged("contributors/bob.html", list(range(5)), 2, pages.ID_PAGE_SEP)
    assert [p for p, _ in chunks] == ["contributors/bob.html", "contributors/bob.page-2.html",
                                      "contributors/bob.page-3.html"]
    assert [c for _, c in chunks] == [[0, 1], [2, 3], [4]]
    assert pages.paged("x.html", [], 3) == [("x.html", [])]
    pg = pages.pager(chunks, 1, 2)
    assert pg == {"links": [p for p, _ in chunks], "page_no": 2, "first": 2, "count": 3}


def test_paged_pages_validate(paged_site: tuple[Path, Path]) -> None:
    """The pages only a large graph makes (the frontier's later pages and its targets
    list, the routes pages, the contributors' later pages) are valid HTML by the Nu Html
    Checker, as tests/test_site_validate.py holds the rich fixture's pages."""
    import shutil
    import subprocess

    from tests.site_support import require_tool, vnu_jar

    jar = vnu_jar()
    require_tool("the Nu Html Checker (vnu.jar)", jar)
    require_tool("java", shutil.which("java"))
    _, site = paged_site
    sample = ["frontier/index.page-2.html", "frontier/targets.html",
              "frontier/status/open.page-2.html", "targets/bench-0000/routes/1.html",
              "targets/bench-0000/index.html", "targets/bench-0000/sets/1.html",
              "contributors/index.page-2.html", "contributors/alice0.page-2.html"]
    res = subprocess.run(["java", "-jar", str(jar), "--errors-only", "--format", "text",
                          *(str(site / p) for p in sample)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
