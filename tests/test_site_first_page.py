"""The reader's first page (issue 35, item 10): the home page states the problem it draws
(its informal statement typeset and its root Lean statement), Lean wraps inside its box,
no sample target's informal statement carries an internal decision number, the footer
shows no raw backtick, and the drawing's labels end at word boundaries with the whole
label in the box's tooltip."""

from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from network.record import derive
from network.record.read.loader import load_graph
from network.site.informal import render_code_spans
from network.site.pages import LABEL_CHARS, LABEL_LINES, label_lines, short
from network.up import toolchain_line
from tests.site_support import REPO, build, require_dot

DECISION_REF = re.compile(r"\bD-\d+")
"""An internal decision number (``D-6``, ``D-4 v3.20``): the specification's, not a
reader's."""


def _missing(_spec: Any) -> Any:
    """A toolchain source that finds no pin: the footer ``make run`` writes on a machine
    without Lean."""
    return SimpleNamespace(describe=lambda: SimpleNamespace(ok=False))


NOTE = toolchain_line({"a": object(), "b": object()}, _missing)
"""The footer sentence ``lemmata up`` passes where no pinned toolchain is found: it names
catalog codes and commands in backticks."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_dot()
    out = tmp_path_factory.mktemp("first-page") / "site"
    build(REPO / "graph", out, featured_target="erdos-242", toolchain_note=NOTE)
    return out


def _read(out: Path, path: str) -> str:
    return (out / path).read_text(encoding="utf-8")


def _featured(page: str) -> str:
    m = re.search(r'<section aria-labelledby="featured">(.*?)</section>', page, re.DOTALL)
    assert m, "the home page draws one problem"
    return m.group(1)


# --- 1. the problem of the day is stated -----------------------------------------------


def test_the_home_page_states_its_problem_informally_and_in_lean(site: Path) -> None:
    featured = _featured(_read(site, "index.html"))
    head, _, drawing = featured.partition('<figure class="drawing"')
    assert drawing, "the drawing follows the statement"
    informal = re.search(r'<div class="informal prose">(.*?)</div>', head, re.DOTALL)
    assert informal, "the informal statement is shown, as on the target page"
    text = html.unescape(re.sub(r"<[^>]+>", "", informal.group(1)))
    assert "three distinct" in text and "Erdős–Straus conjecture" in text
    assert "<p>" in informal.group(1)  # typeset as CommonMark paragraphs
    lean = re.search(r'<div class="highlight"><pre tabindex="0">(.*?)</pre>', head, re.DOTALL)
    assert lean, "the root Lean statement is shown, highlighted"
    code = html.unescape(re.sub(r"<[^>]+>", "", lean.group(1)))
    assert "theorem erdos_242 (n : ℕ) (hn : 2 < n) :" in code
    # the declaration first, as on the target page (issue 29): imports folded after it
    assert not code.lstrip().startswith("import")


def test_the_home_page_typesets_the_statements_formulas(tmp_path: Path) -> None:
    from tests.sitegraph import build_rich_graph

    require_dot()
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    g = load_graph(graph)
    tid = next(t for t, x in g.targets.items() if "$" in (x.record.informal_statement or ""))
    out = tmp_path / "out"
    report = build(graph, out, featured_target=tid)
    featured = _featured(_read(out, "index.html"))
    target = _read(out, f"targets/{tid}/index.html")
    mine = re.search(r'<div class="informal prose">(.*?)</div>', featured, re.DOTALL)
    theirs = re.search(r'<div class="informal prose">(.*?)</div>', target, re.DOTALL)
    assert mine and theirs and mine.group(1) == theirs.group(1)
    if report.math_server_side:
        assert 'class="katex"' in mine.group(1)


# --- 2. Lean wraps inside its box --------------------------------------------------------


def _top_level_rules(css: str) -> list[tuple[str, str]]:
    """``(selectors, declarations)`` of every rule outside an at-rule."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    rules: list[tuple[str, str]] = []
    depth, start, head = 0, 0, ""
    for i, ch in enumerate(css):
        if ch == "{":
            if depth == 0:
                head, start = css[start:i].strip(), i + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if not head.startswith("@"):
                    rules.append((head, css[start:i]))
                start = i + 1
    return rules


def test_lean_boxes_wrap_at_every_width(site: Path) -> None:
    """The rule that keeps a theorem from being cut at a phone's width (the browser test
    tests/test_site_lean_wrap_browser.py checks it at 390 px): every highlighted Lean
    ``pre`` wraps, at every width (not only inside a media query), and the home page's
    Lean is in such a box."""
    css = (REPO / "network/site/assets/site.css").read_text(encoding="utf-8")
    wraps = [decl for sel, decl in _top_level_rules(css)
             if ".highlight pre" in [s.strip() for s in sel.split(",")]
             and re.search(r"white-space:\s*pre-wrap", decl)]
    assert wraps, "site.css wraps .highlight pre at every width"
    assert any(re.search(r"overflow-wrap:\s*anywhere", d) for d in wraps)
    built = _read(site, "assets/site.css")
    assert built == css
    pygments = _read(site, "assets/pygments.css")
    assert "white-space" not in pygments  # loaded after site.css: it must not undo it
    assert '<div class="highlight"><pre tabindex="0">' in _featured(_read(site, "index.html"))


# --- 3. no internal decision numbers in what a reader reads --------------------------------


def test_no_sample_target_statement_carries_a_decision_number() -> None:
    g = load_graph(REPO / "graph")
    bad = {tid: DECISION_REF.findall(t.record.informal_statement or "")
           for tid, t in g.targets.items()}
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_informal_statement_on_the_site_carries_a_decision_number(site: Path) -> None:
    pages = ["index.html", *(str(p.relative_to(site)) for p in site.glob("problems/**/*.html")),
             *(f"targets/{t.name}/index.html" for t in (site / "targets").iterdir())]
    found = []
    for rel in pages:
        for block in re.findall(r'<div class="informal prose">(.*?)</div>', _read(site, rel),
                                re.DOTALL):
            text = html.unescape(re.sub(r"<[^>]+>", "", block))
            found += [(rel, m) for m in DECISION_REF.findall(text)]
    assert found == []
    assert len(pages) > 30


# --- 4. the footer shows no raw backtick -------------------------------------------------


def test_no_footer_holds_a_backtick(site: Path) -> None:
    assert "`" in NOTE  # the sentence the footer is given holds Markdown code
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    for p in pages:
        footer = re.search(r'<footer class="site">(.*?)</footer>', p.read_text("utf-8"), re.DOTALL)
        assert footer, p
        assert "`" not in footer.group(1), p
        assert "<code>toolchain-missing</code>" in footer.group(1), p
        assert "<code>lemmata toolchain install</code>" in footer.group(1), p


def test_the_footer_sentence_is_escaped_text_with_code_spans() -> None:
    assert render_code_spans("run `<b>x</b>` & `y`") == \
        "run <code>&lt;b&gt;x&lt;/b&gt;</code> &amp; <code>y</code>"
    assert render_code_spans("an odd ` backtick") == "an odd  backtick"
    assert render_code_spans("") == "" and render_code_spans(None) == ""


# --- 5. drawing labels end at word boundaries --------------------------------------------


_BOX = re.compile(r'<a href="[^"]*" class="node [^"]*" data-node="[^"]*" data-sets="[^"]*">'
                  r"<title>(?P<title>[^<]*)</title><rect[^>]*/><text[^>]*>"
                  r"(?P<text>.*?)</text>", re.DOTALL)


def _ends_at_a_boundary(line: str, label: str) -> bool:
    """Whether ``line`` (an ellipsis dropped) is a run of ``label`` that ends where a
    word of it ends."""
    core = line.removesuffix("…").rstrip()
    for m in re.finditer(re.escape(core), label):
        end = m.end()
        if end == len(label) or not label[end].isalnum() or not core[-1].isalnum():
            return True
    return False


def test_drawn_labels_end_at_word_boundaries_and_keep_the_whole_label(site: Path) -> None:
    g = load_graph(REPO / "graph")
    labels = {tid: {n["id"]: n["label"] for n in derive.graph_view(g, tid)["nodes"]}
              for tid in g.targets}
    seen = cut = 0
    for t in sorted((site / "targets").iterdir()):
        for m in _BOX.finditer(_read(site, f"targets/{t.name}/index.html")):
            title = html.unescape(m.group("title"))
            label = next(x for x in labels[t.name].values() if title.startswith(f"{x} ("))
            lines = [html.unescape(x) for x in
                     re.findall(r"<tspan[^>]*>(.*?)</tspan>", m.group("text"))
                     or [m.group("text")]]
            seen += 1
            assert 1 <= len(lines) <= LABEL_LINES, title
            for line in lines:
                assert len(line) <= LABEL_CHARS, (title, line)
                assert _ends_at_a_boundary(line, label), (title, line)
            if lines[-1].endswith("…"):
                cut += 1
            elif len(lines) == 1:
                assert lines[0] == label
    assert seen > 30
    # graph/ has long labels: some wrap onto a second line, none is cut mid-word
    assert "<tspan" in _read(site, "targets/erdos-242/index.html")


WORD = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")),
               min_size=1, max_size=LABEL_CHARS - 2)
SEP = st.sampled_from([" ", "-", " – ", "/", ", ", ": "])


@given(st.lists(st.tuples(WORD, SEP), min_size=1, max_size=12))
def test_a_wrapped_label_never_ends_mid_word(parts: list[tuple[str, str]]) -> None:
    text = "".join(w + s for w, s in parts).strip()
    lines = label_lines(text)
    assert 1 <= len(lines) <= LABEL_LINES
    words = re.findall(r"[^\W_]+", text)
    shown = re.findall(r"[^\W_]+", " ".join(lines).replace("…", " "))
    # what is shown is whole words of the label, in order, from its start
    assert shown == words[: len(shown)]
    assert all(len(x) <= LABEL_CHARS for x in lines)
    if shown != words:
        assert lines[-1].endswith("…")
    one = short(text, 18)  # a route's label: one line of 18
    assert len(one) <= 18
    if max(map(len, words)) <= 16:  # a longer word is the one mid-word cut (below)
        one_words = re.findall(r"[^\W_]+", one.replace("…", " "))
        assert one_words == words[: len(one_words)]


def test_a_word_longer_than_a_line_is_the_only_mid_word_cut() -> None:
    assert label_lines("x" * 40) == ["x" * (LABEL_CHARS - 1) + "…"]
    assert label_lines("variant-granville-soundararajan") == ["variant-granville-",
                                                              "soundararajan"]
    assert short("Erdős Problem 242: the Erdős–Straus conjecture", 18) == "Erdős Problem 242…"
    assert label_lines("") == [] and short("") == ""
