"""A node's place in its tree on the site (issue 15, D-36 node page): the breadcrumb target ›
parent › route › hole, the sentence saying so, parent, sibling, child and variant links,
the partial's Lean with its holes marked, each attestation naming its file and commit, and
every catalog code shown with its sentence from errors.json."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from network.errors import full_catalog
from network.site import pages
from network.site.lean import highlight_lean
from tests.site_support import build, require_dot
from tests.sitegraph import build_rich_graph


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_dot()
    root = tmp_path_factory.mktemp("place")
    build_rich_graph(root / "graph", commit=False)
    build(root / "graph", root / "site")
    return root / "site"


def _page(site: Path, node: str) -> str:
    return (site / f"targets/demo/nodes/{node}.html").read_text(encoding="utf-8")


def _crumbs(page: str) -> list[str]:
    nav = page.split('<nav class="crumbs" aria-label="Place in the tree">', 1)[1]
    nav = nav.split("</nav>", 1)[0]
    return [html.unescape(re.sub(r"<[^>]+>", "", li))
            for li in re.findall(r"<li[^>]*>(.*?)</li>", nav)]


def test_breadcrumb_runs_target_parent_route_hole(site: Path) -> None:
    page = _page(site, "root--h2--h1")
    assert _crumbs(page) == ["Problems", "Demo conjecture", "Main theorem", "split by parity",
                             "hole 2 of 2", "odd case", "reduce to primes", "hole 1 of 1",
                             "prime case"]
    assert "Hole 1 of 1 of the route “reduce to primes” of odd case." in page
    # the route crumb links to the route on its owner's page, and the anchor exists there
    href = re.search(r'<li class="crumb-route"><a href="([^"]+)">reduce to primes', page)
    assert href is not None
    target, frag = href.group(1).rsplit("#", 1)
    owner = (site / "targets/demo/nodes" / Path(target).name).read_text(encoding="utf-8")
    assert f'id="{frag}"' in owner and Path(target).name == "root--h2.html"
    # the page itself is the last crumb, not a link
    assert '<span aria-current="page">prime case</span>' in page
    assert _crumbs(_page(site, "root")) == ["Problems", "Demo conjecture", "Main theorem"]


def test_parent_sibling_child_and_variant_links(site: Path) -> None:
    h1 = _page(site, "root--h1")
    place = h1.split('<h2 id="place">', 1)[1].split("</section>", 1)[0]
    assert 'Parent: <a href="../../../targets/demo/nodes/root.html">Main theorem</a>' in place
    assert '<a href="../../../targets/demo/nodes/root--h2.html">odd case</a>' in place
    root = _page(site, "root")
    place = root.split('<h2 id="place">', 1)[1].split("</section>", 1)[0]
    for child in ("root--h1", "root--h2", "root--h3"):
        assert f'href="../../../targets/demo/nodes/{child}.html"' in place
    assert 'href="../../../targets/demo/nodes/variant-upper.html"' in place
    variant = _page(site, "variant-upper")
    assert re.search(r'variant of <a href="../../../targets/demo/nodes/root.html">Main theorem'
                     r"</a>", variant)
    assert "A resolves variant of Main theorem." in variant
    assert _crumbs(variant)[-3:] == ["Main theorem", "variant (resolves)", "variant-upper"]


def test_partial_lean_shown_with_holes_marked(site: Path) -> None:
    root = _page(site, "root")
    assert 'id="route-20260102T000000Z-alice-partial"' in root
    assert "split by parity" in root.split('id="route-20260102T000000Z-alice-partial"')[1]
    marked = pages.mark_holes(str(highlight_lean(
        "theorem t : P := by\n  have h : Q := sorry\n  exact sorry -- not sorry here\n")))
    assert marked.count('<mark class="hole"') == 2


def test_each_attestation_names_its_file_and_commit(site: Path) -> None:
    page = _page(site, "root--h1")
    m = re.search(r'<p class="attests">Attests <a href="([^"]+)"><code>([^<]+)</code></a> at '
                  r"commit <code>([0-9a-f]{40})</code>", page)
    assert m is not None and m.group(2) == "targets/demo/nodes/root--h1/Proof.lean"
    assert m.group(1).endswith("root--h1.html#file-Proof")


def test_catalog_codes_come_with_their_sentence(site: Path) -> None:
    meaning = full_catalog()
    h2 = _page(site, "root--h2")
    # the failed run's step code and the reason line
    sentence = html.escape(meaning["lean-build-failed"].meaning, quote=False)
    assert f"<code>lean-build-failed</code>: {sentence}" in h2.replace("&#39;", "'")
    blocked = _page(site, "root--h2--h1")
    assert re.search(r'not claimable: <span class="catalog-code"><code>claim-node-blocked'
                     r"</code>: [A-Z]", blocked)
    frontier = (site / "frontier/index.html").read_text(encoding="utf-8")
    for code in set(re.findall(r"no: <span class=\"catalog-code\"><code>([a-z0-9-]+)</code>",
                               frontier)):
        assert code in meaning
    # every code shown anywhere is shown with its sentence
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        for code in re.findall(r'<span class="catalog-code"><code>([a-z0-9-]+)</code>(.?)',
                               text):
            assert code[1] == ":" or code[0] not in meaning, (path, code)


def test_sentences_come_from_the_graphs_errors_json(tmp_path: Path) -> None:
    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    (graph / "errors.json").write_text(json.dumps({"errors": [
        {"code": "claim-node-blocked", "meaning": "Words of this graph's catalog."}]}))
    out = tmp_path / "site"
    build(graph, out)
    page = (out / "targets/demo/nodes/root--h2--h1.html").read_text(encoding="utf-8")
    assert "<code>claim-node-blocked</code>: Words of this graph&#39;s catalog." in page
