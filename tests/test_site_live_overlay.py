"""The build output the live-claims overlay and the drawing's click panel read (issue 15):
"Who is working on what" and "Clicking a node shows its claim, status and link".

The static pages carry what the script needs and nothing it could be tricked by: every
drawn statement has its entry in the drawing in words with its status (code and words) and,
where it has one, its typeset claim, which the click panel copies; the frontier's Holders
cells and a node page's "Held by" line are keyed ``<target>/<node>`` and say the live state
is unavailable until a service answers. A hostile label is escaped in every place it lands,
and no page gains an inline script (the site's policy allows only its own files).
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from network.site.pages import STATUS_WORDS
from tests.site_support import build, require_dot
from tests.sitegraph import build_rich_graph

HOSTILE = '<img src=x onerror="alert(1)">&amp;"\'</li>'
"""A label built to end the list item and run script if any template forgot to escape it."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_dot()
    root = tmp_path_factory.mktemp("overlay")
    b, _ = build_rich_graph(root / "graph", commit=False)
    b.gloss("demo", "variant-upper", "20260110T000000Z", "alice", label=HOSTILE,
            text="$$n < 2^n$$ A bound.")
    out = root / "out"
    build(root / "graph", out)
    return out


def _read(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def _words(page: str) -> dict[str, str]:
    """Each entry of the drawing in words: node id → the ``<li>`` element's HTML."""
    return {m.group(1): m.group(0) for m in
            re.finditer(r'<li data-node="([^"]+)"[^>]*>.*?</li>\n', page, re.DOTALL)}


def test_every_drawn_statement_has_its_words_with_status_and_claim(site: Path) -> None:
    page = _read(site, "targets/demo/index.html")
    drawn = re.findall(r'<a href="[^"]+" class="node [^"]*" data-node="([^"]+)"', page)
    assert len(drawn) >= 5 and "root" in drawn
    words = _words(page)
    assert set(drawn) <= set(words), "a drawn statement the click panel could not describe"
    for key in drawn:
        li = words[key]
        status = re.search(r'data-status="([^"]+)" data-status-words="([^"]+)"', li)
        assert status, li
        assert status.group(1) in STATUS_WORDS
        assert html.unescape(status.group(2)) == STATUS_WORDS[status.group(1)]
    # root's claim is typeset in its entry (the panel copies it; no fetch is needed)
    root = words["root"]
    claim = re.search(r'<div class="words-claim"><span class="claim( tex)?">', root)
    assert claim, root
    if claim.group(1) is None:
        assert "katex" in root
    assert words["variant-upper"].count('class="words-claim"') == 1
    # a statement without a claim has no claim block (the panel then says so)
    without = [k for k in drawn if 'class="words-claim"' not in words[k]]
    assert without, "the fixture should keep a statement with no claim"


def test_a_hostile_label_is_text_everywhere_it_lands(site: Path) -> None:
    for rel in ("targets/demo/index.html", "targets/demo/nodes/variant-upper.html",
                "targets/demo/nodes/root.html", "frontier/index.html"):
        page = _read(site, rel)
        assert "<img" not in page, rel
        assert 'onerror="alert' not in page, rel
    page = _read(site, "targets/demo/index.html")
    li = _words(page)["variant-upper"]
    assert "&lt;img src=x onerror=" in li and "&lt;/li&gt;" in li
    assert li.count("</li>") == 1


def test_the_live_slots_say_the_live_state_is_unavailable_without_a_service(site: Path) -> None:
    frontier = _read(site, "frontier/index.html")
    assert re.search(r'<span id="claims-as-of" class="live-state">live state unavailable', frontier)
    cells = re.findall(r'<td class="holders" data-node="([^"]+)">—</td>', frontier)
    assert "demo/root" in cells and len(cells) == len(set(cells))
    for nid in ("root", "root--h1", "variant-upper"):
        node = _read(site, f"targets/demo/nodes/{nid}.html")
        slot = re.search(r'<div class="live-claims" id="live-claims" data-node="([^"]+)">'
                         r'<p>Held by: <span class="live-state">live state unavailable', node)
        assert slot and slot.group(1) == f"demo/{nid}", nid
        assert node.count('id="live-claims"') == 1


class _Tags(HTMLParser):
    """Every start tag of a page with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def test_no_page_gains_an_inline_script_or_handler(site: Path) -> None:
    """The policy allows script only from the site's own files: every script element has a
    ``src`` and no element carries an ``on…`` handler, the hostile label's included."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        text = page.read_text(encoding="utf-8")
        parser = _Tags()
        parser.feed(text)
        for tag, attrs in parser.tags:
            names = {k for k, _ in attrs}
            assert not any(k.startswith("on") for k in names), (page, tag, attrs)
            if tag == "script":
                assert "src" in names, (page, attrs)
        meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
        assert meta and "script-src 'self';" in html.unescape(meta.group(1)), page
