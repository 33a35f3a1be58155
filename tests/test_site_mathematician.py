"""Issue 29: a site a research mathematician reads at a glance. The sample graph (a copy of
graph/: 31 targets imported from Formal Conjectures and erdosproblems) is built once and
read by content: the status banner first on every target and node page, the definitions
rendered and linked, the theorem before its imports, the problems in numeric order."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from network.record import derive
from network.record.read.loader import load_graph
from tests.site_support import REPO, build, require_dot
from tests.sitegraph import build_rich_graph


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of a copy of the real graph/."""
    require_dot()
    root = tmp_path_factory.mktemp("mathematician")
    shutil.copytree(REPO / "graph", root / "graph")
    build(root / "graph", root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the rich fixture graph, whose calibration target is proved."""
    require_dot()
    root = tmp_path_factory.mktemp("mathematician-rich")
    build_rich_graph(root / "graph", commit=False)
    build(root / "graph", root / "site")
    return root / "site"


def _page(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


def _banner(page: str) -> tuple[str, str]:
    """The banner's kind and its text (tags stripped, spaces folded)."""
    m = re.search(r'<div class="banner banner-([a-z-]+)" id="status-banner" '
                  r'data-banner="\1">(.*?)</div>', page, flags=re.DOTALL)
    assert m, "no status banner on the page"
    return m.group(1), " ".join(re.sub(r"<[^>]+>", " ", m.group(2)).split())


# --- 1. status first ------------------------------------------------------------------------


def test_every_target_and_node_page_opens_with_its_banner(sample: Path) -> None:
    pages = [p for p in (sample / "targets").rglob("*.html")
             if p.parent.name == "nodes" or p.name == "index.html"]
    assert len(pages) > 60
    for p in pages:
        page = p.read_text(encoding="utf-8")
        assert page.count('id="status-banner"') == 1, p
        # at the top: straight after the page's heading, before any section
        h1 = page.index("</h1>")
        assert h1 < page.index('id="status-banner"') < page.index("<h2"), p


def test_solved_upstream_is_not_shown_as_open(sample: Path) -> None:
    kind, text = _banner(_page(sample, "targets/erdos-4/index.html"))
    assert kind == "solved-upstream"
    assert "Solved upstream" in text and "“research solved”" in text
    assert "is open" not in text and "No proof has merged on this network yet" in text
    # a variant recorded as a published theorem reads so on its own page
    kind, text = _banner(_page(sample, "targets/erdos-4/nodes/variant-rankin.html"))
    assert kind == "solved-upstream"
    kind, text = _banner(_page(sample, "targets/erdos-340/nodes/variant-third.html"))
    assert kind == "known-literature" and "“textbook”" in text
    kind, _ = _banner(_page(sample, "targets/infinite-primes/index.html"))
    assert kind == "known-literature"


def test_open_problem_reads_open(sample: Path) -> None:
    kind, text = _banner(_page(sample, "targets/erdos-1094/index.html"))
    assert kind == "open" and text.startswith("○ Open") and "“research open”" in text


def test_question_root_is_never_called_provable(sample: Path) -> None:
    for path in ("targets/erdos-7/index.html", "targets/erdos-7/nodes/root.html",
                 "targets/erdos-340/nodes/variant-istheta.html"):
        kind, text = _banner(_page(sample, path))
        assert kind == "question", path
        assert "not provable as written" in text
        assert "answer(sorry)" in text
        assert "is open" not in text and "is proved" not in text


def test_proved_banner_links_the_merged_proof(rich: Path) -> None:
    page = _page(rich, "targets/calib/index.html")
    kind, text = _banner(page)
    assert kind == "proved" and "proved on this network" in text
    assert "merged in merge 6" in text and "by alice" in text
    banner = page.split('id="status-banner"', 1)[1].split("</div>", 1)[0]
    assert 'href="../../targets/calib/proofs/1.html"' in banner
    assert 'href="../../targets/calib/nodes/root.html#file-Proof"' in banner
    kind, text = _banner(_page(rich, "targets/demo/nodes/root--h1.html"))
    assert kind == "proved" and "targets/demo/nodes/root--h1/Proof.lean" in text
    kind, _ = _banner(_page(rich, "targets/demo/index.html"))
    assert kind == "open"


def test_banner_is_derived_from_the_record(tmp_path: Path) -> None:
    """The category the importer recorded decides the banner: change it and the banner
    follows, whatever any page says."""
    shutil.copytree(REPO / "graph", tmp_path / "graph")
    g = load_graph(tmp_path / "graph")
    assert derive.target_banner(g, "erdos-4")["kind"] == "solved-upstream"
    assert derive.node_banner(g, "erdos-7", "root")["kind"] == "question"
    meta = tmp_path / "graph/targets/erdos-4/nodes/root/META.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace(
        "category: research solved", "category: research open"), encoding="utf-8")
    target = tmp_path / "graph/targets/erdos-4/target.yaml"
    target.write_text(target.read_text(encoding="utf-8").replace(
        "    category: research solved", "    category: research open"), encoding="utf-8")
    g = load_graph(tmp_path / "graph")
    assert derive.target_banner(g, "erdos-4")["kind"] == "open"
    assert derive.category_kind("Research  Solved") == "solved-upstream"
    assert derive.category_kind("textbook") == "known-literature"
    assert derive.category_kind("research open") is None
    assert derive.category_kind(None) is None


# --- 2. definitions as first-class ------------------------------------------------------------


def test_definition_modules_are_rendered_with_their_docstrings(sample: Path) -> None:
    page = _page(sample, "targets/erdos-1107/index.html")
    assert '<h2 id="defs-heading">Definitions</h2>' in page
    block = page.split('id="def-Erdos1107-SumOfRPowerful"', 1)[1].split(
        '<details>', 1)[0]
    assert "<code>Erdos1107.SumOfRPowerful</code>" in block
    assert "Helper Property:" in block and 'class="katex"' in block  # docstring typeset
    assert 'class="highlight"' in block and "SumOfRPowerful" in block  # its Lean
    assert "defs/Erdos1107.lean" in page
    four = _page(sample, "targets/erdos-4/index.html")
    assert 'id="def-Erdos4-Erdos4For"' in four
    none = _page(sample, "targets/erdos-1094/index.html")
    assert "has no definition module" in none


def test_statements_link_every_definition_they_use(sample: Path) -> None:
    cases = {"targets/erdos-4/nodes/root.html": ["def-Erdos4-Erdos4For"],
             "targets/erdos-4/nodes/variant-rankin.html": ["def-Erdos4-Erdos4For"],
             "targets/erdos-41/nodes/root.html": ["def-Erdos41-NtupleCondition"],
             # `(f n : ℝ)` is an ascription of the definition f, not a binder
             "targets/erdos-236/nodes/root.html": ["def-Erdos236-f"],
             "targets/erdos-139/nodes/root.html": ["def-Erdos139-r"]}
    for path, anchors in cases.items():
        page = _page(sample, path)
        tid = path.split("/")[1]
        aside = page.split('<aside class="defs-used"', 1)[1].split("</aside>", 1)[0]
        head = page.split('<p class="uses-defs">', 1)[1].split("</p>", 1)[0]
        for a in anchors:
            href = f'href="../../../targets/{tid}/index.html#{a}"'
            assert href in aside and href in head, (path, a)
        assert 'class="highlight"' in aside  # the definition's Lean beside the statement
    target = _page(sample, "targets/erdos-4/index.html")
    root_box = target.split("<h2>Root statement (Lean)</h2>", 1)[1].split("</div>\n<div>", 1)[0]
    assert 'href="../../targets/erdos-4/index.html#def-Erdos4-Erdos4For"' in root_box
    # a statement with no definition module uses none
    assert '<aside class="defs-used"' not in _page(sample, "targets/erdos-1094/nodes/root.html")


def test_every_definition_link_resolves(sample: Path) -> None:
    links = 0
    for p in (sample / "targets").rglob("*.html"):
        for href in re.findall(r'href="([^"#]*#def-[^"]+)"', p.read_text(encoding="utf-8")):
            target, anchor = href.split("#", 1)
            dest = (p.parent / target).resolve()
            assert f'id="{anchor}"' in dest.read_text(encoding="utf-8"), (p, href)
            links += 1
    assert links >= 20


def test_uses_are_read_from_the_lean_tokens() -> None:
    from network.site.definitions import definitions_used, module_definitions

    src = ("import X\n\nnamespace N\n\n/-- The count $f(n)$. -/\ndef f (n : ℕ) : ℕ := n\n\n"
           "/-- Good sets. -/\nnoncomputable abbrev Good (A : Set ℕ) : Prop := A.Nonempty\n"
           "\nend N\n")
    defs = [d.as_dict() for d in module_definitions(src, "M")]
    assert [(d["full"], d["doc"]) for d in defs] == [("N.f", "The count $f(n)$."),
                                                    ("N.Good", "Good sets.")]
    assert defs[1]["source"].startswith("noncomputable abbrev Good")

    def used(text: str) -> list[str]:
        return [d["full"] for d in definitions_used(text, defs)]

    assert used("theorem t : Good {1} ∧ f 2 = 2 := sorry") == ["N.Good", "N.f"]
    assert used("theorem t : N.f 2 = 2 := sorry") == ["N.f"]
    assert used("theorem t (f : ℕ → ℕ) : f 2 = 2 := sorry") == []  # bound, not a use
    assert used("theorem t : ∀ f : ℕ → ℕ, f 2 = 2 := sorry") == []
    assert used("-- Good and f\n/-- f -/\ntheorem t : \"f\" = \"f\" := sorry") == []
    assert used("import Lemmata.Defs.Good\ntheorem t : True := sorry") == []


# --- 3. the theorem first -------------------------------------------------------------------


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_statement_shows_the_declaration_before_its_imports(sample: Path) -> None:
    page = _page(sample, "targets/erdos-4/nodes/root.html")
    box = page.split('id="file-Statement"', 1)[1].split('<aside class="gloss"', 1)[0]
    shown, folded = box.split('<details class="lean-preamble">', 1)
    assert "theorem erdos_4 : answer(True)" in " ".join(_text(shown).split())
    assert "import" not in _text(shown) and "*Reference:*" not in _text(shown)
    folded = _text(folded.split("</details>", 1)[0])
    assert "Imports, references and namespace lines" in folded
    assert "import FormalConjecturesUtil" in folded and "*Reference:*" in folded
    assert "theorem" not in folded
    # the target page's root statement reads the same way
    target = _page(sample, "targets/erdos-4/index.html")
    root_box = target.split("<h2>Root statement (Lean)</h2>", 1)[1]
    assert root_box.index("erdos_4") < root_box.index('<details class="lean-preamble">') \
        < root_box.index("FormalConjecturesUtil")


def test_split_preamble_keeps_docstring_and_attributes_with_the_declaration() -> None:
    from network.site.lean import split_preamble

    src = ("import A\n-- theorem in a comment\n/-! module doc -/\nnamespace N\n\n"
           "/-- the claim -/\n@[simp]\nprivate theorem t : True := trivial\n\nend N\n")
    pre, rest = split_preamble(src)
    assert pre + rest == src
    assert rest.startswith("/-- the claim -/\n@[simp]\nprivate theorem t")
    assert pre.endswith("namespace N\n\n")
    assert split_preamble("import A\n-- no declaration\n") == ("", "import A\n-- no declaration\n")


# --- 4. problems in numeric order -------------------------------------------------------------


def test_problems_index_is_in_numeric_order(sample: Path) -> None:
    page = _page(sample, "problems/index.html")
    ids = re.findall(r'<tr id="t-([a-z0-9-]+)">', page)
    assert len(ids) == 31
    numbered = [t for t in ids if re.search(r"[0-9]", t)]
    assert ids[:len(numbered)] == numbered  # the ids without a number come after
    assert ids[len(numbered):] == sorted(ids[len(numbered):]) == ["infinite-primes", "tutorial"]
    nums = [int(re.search(r"[0-9]+", t).group()) for t in numbered]  # type: ignore[union-attr]
    assert nums == sorted(nums)
    assert ids.index("erdos-3") < ids.index("erdos-11") < ids.index("erdos-109") \
        < ids.index("erdos-1094")
    # a filter page keeps the order
    sub = _page(sample, "problems/class/open-problem.html")
    sub_ids = re.findall(r'<tr id="t-([a-z0-9-]+)">', sub)
    assert sub_ids == [t for t in ids if t in sub_ids]
    assert sub_ids.index("erdos-7") < sub_ids.index("erdos-11")


def test_problem_order_key() -> None:
    from network.site.pages import problem_order

    ids = ["erdos-100", "tutorial", "erdos-10", "erdos-2", "abc", "erdos-218-le",
           "erdos-218-ge", "erdos-2-b"]
    assert sorted(ids, key=problem_order) == ["erdos-2", "erdos-2-b", "erdos-10",
                                              "erdos-100", "erdos-218-ge", "erdos-218-le",
                                              "abc", "tutorial"]
