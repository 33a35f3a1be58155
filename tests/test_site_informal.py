"""Informal text on the site (issue 15, D-36): markdown with server-side KaTeX, references as
links, a formula KaTeX refuses shown as its source and marked, and the rich fixture's
pages typeset wherever a ``$`` was."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from network.site import informal
from network.site.lean import highlight_lean
from network.site.mathtex import Typeset, typeset
from tests.site_support import build, require_dot
from tests.sitegraph import build_rich_graph

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js not on PATH")


def _typeset_all(*texts: str) -> Typeset:
    display, inline = informal.formulas(texts)
    return typeset(display, inline=inline)


def test_formulas_found_outside_code_and_money_only() -> None:
    display, inline = informal.formulas([
        "Let $a_1 < a_2 < ⋯ $ and $$\\sum a_i$$; `code $x$` and \\(y\\), \\[z\\].",
        "It costs $5 and $6.", "A \\$ sign, $ spaced $.", None,
    ])
    assert display == ["\\sum a_i", "z"]
    assert inline == ["a_1 < a_2 < ⋯", "y"]


@needs_node
def test_inline_and_display_typeset_server_side() -> None:
    text = "For $n \\ge 1$:\n\n$$\\frac{n}{2}$$"
    math = _typeset_all(text)
    html = informal.render(text, math)
    assert html.count('class="katex"') == 2 and html.count('class="katex-display"') == 1
    assert '<span class="math">' in html and '<span class="math display">' in html
    assert "$" not in re.sub(r"<annotation.*?</annotation>", "", html)


@needs_node
def test_a_formula_katex_refuses_shows_its_source_marked() -> None:
    text = "Broken $\\frac{1}{$ here and fine $x$."
    math = _typeset_all(text)
    assert "\\frac{1}{" in math.inline_errors
    html = informal.render(text, math)
    m = re.search(r'<code class="tex-error" title="KaTeX cannot typeset this: [^"]+">'
                  r'<span class="visually-hidden">[^<]+</span>([^<]+)</code>', html)
    assert m is not None and m.group(1) == "$\\frac{1}{$"
    assert 'class="katex"' in html  # the good formula beside it still typeset


def test_without_node_the_browser_typesets() -> None:
    html = informal.render("Let $x<y$ and $$z$$.", Typeset(server_side=False))
    assert '<span class="math tex">\\(x&lt;y\\)</span>' in html
    assert '<span class="math tex">\\[z\\]</span>' in html


def test_references_become_links_and_unsafe_links_text() -> None:
    html = informal.render(
        "See erdosproblems.com/1094, www.erdosproblems.com/7, arXiv:2101.00001v2 and "
        "https://example.org/a_(b). [bad](javascript:alert(1)) [rel](../x.md) "
        "<script>alert(1)</script> [ok](https://ok.example/)", None)
    assert '<a href="https://www.erdosproblems.com/1094">erdosproblems.com/1094</a>' in html
    assert '<a href="https://www.erdosproblems.com/7">www.erdosproblems.com/7</a>' in html
    assert '<a href="https://arxiv.org/abs/2101.00001v2">arXiv:2101.00001v2</a>' in html
    assert '<a href="https://example.org/a_">' in html
    assert "javascript:" not in html.replace("[bad](javascript:alert(1))", "")
    assert 'href="../x.md"' not in html and "<script>" not in html
    assert '<a href="https://ok.example/">ok</a>' in html
    # a reference inside a link or code is left alone
    inner = informal.render("[erdosproblems.com/3](https://a.example/) `erdosproblems.com/4`",
                            None)
    assert inner.count("<a ") == 1 and "<code>erdosproblems.com/4</code>" in inner


def test_inline_rendering_has_no_paragraph() -> None:
    assert str(informal.render("a *b* $c", None, inline=True)) == "a <em>b</em> $c"
    assert informal.render(None, None) == ""


@needs_node
def test_rich_site_typesets_every_informal_text(tmp_path: Path) -> None:
    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    out = tmp_path / "site"
    report = build(graph, out)
    assert report.warnings == [] and report.math_server_side
    target = (out / "targets/demo/index.html").read_text(encoding="utf-8")
    informal_div = target.split('<div class="informal prose">', 1)[1].split("</div>\n", 1)[0]
    assert informal_div.count('<span class="math">') == 2
    assert informal_div.count('<span class="math display">') == 1
    assert '<a href="https://www.erdosproblems.com/1094">' in informal_div
    assert '<a href="https://arxiv.org/abs/2101.00001">' in informal_div
    assert "<code>lean $x$</code>" in informal_div and "costs $5 and $6" in informal_div
    # a gloss's display maths, on the node page, is typeset (not raw $$)
    node = (out / "targets/demo/nodes/root.html").read_text(encoding="utf-8")
    gloss = node.split('class="words"', 1)[1].split("</aside>", 1)[0]
    assert '<span class="math display">' in gloss and "$$" not in gloss
    # the problems index typesets the same statement's first paragraph
    problems = (out / "problems/index.html").read_text(encoding="utf-8")
    assert problems.count('<span class="math">') >= 2 and "\\(" not in problems


@needs_node
def test_hostile_formulas_and_links_stay_text() -> None:
    text = ("$</span><script>alert(1)</script>$ and $\\href{javascript:alert(1)}{x}$ and "
            "[x](javascript:alert(1)) and <img src=x onerror=alert(1)>")
    html = informal.render(text, _typeset_all(text))
    assert "<script>" not in html and "<img" not in html
    assert 'href="javascript:' not in html
    offline = informal.render(text, Typeset(server_side=False))
    assert "<script>" not in offline and "&lt;/span&gt;&lt;script&gt;" in offline


@needs_node
def test_a_title_typesets_its_maths_and_nothing_else() -> None:
    title = ("Erdős Problem 424: Sequence generated by $a_i a_j - 1$, *not* `code`, "
             "<b>bold</b>, erdosproblems.com/424, $5")
    html = str(informal.render_title(title, _typeset_all(title)))
    assert html.count('class="katex"') == 1  # the formula; "$5" is money
    assert "<a " not in html and "<em>" not in html and "<code" not in html  # inside a link
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "*not* `code`" in html and "$5" in html
    assert "$a_i" not in re.sub(r"<annotation.*?</annotation>", "", html)


@needs_node
def test_display_maths_and_lean_scroll_boxes_take_focus() -> None:
    text = "$$\\sum_{k=1}^{n} k$$"
    html = str(informal.render(text, _typeset_all(text)))
    assert '<span class="katex-display" tabindex="0">' in html
    lean = str(highlight_lean("theorem x : True := trivial"))
    assert '<div class="highlight"><pre tabindex="0">' in lean
