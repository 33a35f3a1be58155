"""The site build (D-36): strict builds of the real graph and of a rich fixture graph, the
pages it writes, what they show, determinism, and the named stages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from network.errors import LemmataError
from network.site.build import STAGES
from network.site.layout import dot_source, layout_target
from network.site.linkcheck import check_links
from tests.site_support import REPO, build, require_dot
from tests.sitegraph import NODES, build_rich_graph

pytestmark = pytest.mark.usefixtures("_dot")


@pytest.fixture()
def _dot() -> None:
    require_dot()


@pytest.fixture()
def rich(tmp_path: Path) -> tuple[Path, Path, str]:
    graph = tmp_path / "graph"
    _, sha = build_rich_graph(graph)
    assert sha is not None
    out = tmp_path / "site"
    build(graph, out, commit=sha)
    return graph, out, sha


def _read(out: Path, path: str) -> str:
    return (out / path).read_text(encoding="utf-8")


def test_cli_builds_the_real_graph_strict(tmp_path: Path) -> None:
    out = tmp_path / "site-out"
    res = subprocess.run([sys.executable, "-m", "network.cli", "site", "build",
                          str(REPO / "graph"), str(out), "--strict"],
                         capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["warnings"] == 0 and summary["pages"] > 10
    for stage in STAGES:
        assert f"stage {stage}:" in res.stderr
    home = _read(out, "index.html")
    assert "Rendered from the work tree" in home
    assert "This site was built from the record; it checks nothing." in home
    for tid in ("erdos-242", "infinite-primes", "tutorial"):
        assert (out / "targets" / tid / "index.html").is_file()
    problems = _read(out, "problems/index.html")
    assert "Erdős–Straus" in problems and "refuses claims" in problems
    assert check_links(out) == []


def test_rich_graph_pages_and_commit(rich: tuple[Path, Path, str]) -> None:
    _, out, sha = rich
    for path in ["index.html", "problems/index.html", "targets/demo/index.html",
                 "targets/demo/shelved.html", "targets/calib/proofs/1.html",
                 "frontier/index.html", "frontier/claimable.html", "frontier/status/open.html",
                 "frontier/target/demo.html", "contributors/index.html",
                 "contributors/bob.html", "docs/agents.html", "docs/licence.html",
                 "docs/stewards.html"]:
        page = _read(out, path)
        assert f"Rendered from commit {sha}" in page, path
    for tid, nids in NODES.items():
        for nid in nids:
            assert (out / "targets" / tid / "nodes" / f"{nid}.html").is_file()
    assert check_links(out) == []


def test_target_page_draws_every_drawn_node_with_key(rich: tuple[Path, Path, str]) -> None:
    _, out, _ = rich
    page = _read(out, "targets/demo/index.html")
    drawn = set(re.findall(r'data-node="([^"]+)" data-sets', page))
    assert drawn == set(NODES["demo"]) - {"root--h3"}  # shelved: hidden unless asked
    shelved = _read(out, "targets/demo/shelved.html")
    assert set(re.findall(r'data-node="([^"]+)" data-sets', shelved)) == set(NODES["demo"])
    for words in ("open", "blocked (waits for a witness)", "proved", "refuted",
                  "defective (vacuous)", "refutes relation", "known true in the literature"):
        assert words in page
    assert 'class="ln-variant rel-refutes"' in page
    assert "split by parity" in page and "induction on n" in page  # routes by approach
    assert "Main theorem" in page and "Even numbers have P" in page  # statements by label
    assert "Sufficient sets" in page and 'id="set-0"' in page and "refutes" in page
    assert "Split by parity" in page and "abandoned" in page  # approach records
    assert "partial results in the literature" in page
    # the crux is in the band, apart from the tree
    assert re.search(r'class="node st-open speculative band" data-node="crux-gap"', page)
    assert "The drawing in words" in page


def test_node_page(rich: tuple[Path, Path, str]) -> None:
    _, out, _ = rich
    page = _read(out, "targets/demo/nodes/root--h1.html")
    head = page.index("<h1>Even numbers have P</h1>")
    assert head < page.index('class="katex') < page.index("demo/root--h1")
    assert "Verdict: pass" in page and "leanprover/lean4:v4.34.0" in page
    assert "Unverified prose about a kernel-checked proof" in page
    assert "By carol" in page and "signed by steve" in page and "drafting model" in page
    assert page.index('id="verdict"') < page.index('id="explainer"')
    assert 'class="highlight"' in page and "theorem" in page
    assert page.index('class="outline"') < page.index('id="file-Proof"') + 2000
    assert "Gloss (unverified)" in page
    h2 = _read(out, "targets/demo/nodes/root--h2.html")
    # issue 35: a refused proof and a merged postmortem are gate-log lines in their own
    # words, never a "Verdict" under "Proof and attestation"
    proof_part = h2[h2.index('id="verdict"'):h2.index('id="gatelog"')]
    assert "Verdict: fail" not in proof_part and "postmortem" not in proof_part
    log_part = h2[h2.index('id="gatelog"'):h2.index('id="explainer"')]
    assert re.search(r"refused at step 3</strong>: <span class=\"catalog-code\"><code>lean-build-failed", log_part), log_part
    assert "postmortem recorded" in log_part
    assert "No one has written an explainer" in h2
    assert "case-split" in h2 and "induction" in h2 and "3 attempts" in h2


def test_a_refusal_that_touched_no_node_is_on_no_node_page(rich: tuple[Path, Path, str]
                                                            ) -> None:
    """Issue 35, item 2: a pull request that only edited frontier.json was refused and
    published on the first target's root; its page showed "Verdict: fail". It is now on the
    gate log only, as touching no node."""
    _, out, _ = rich
    root = _read(out, "targets/demo/nodes/root.html")
    assert "gate-only-path" not in root and "Verdict: fail" not in root
    log = _read(out, "gate-log.html")
    row = next(r for r in log.split("<tr") if "unplaced-1.json" in r)
    assert "refused at step 2</strong>: " in row and "<code>gate-only-path</code>" in row
    assert "no target or node" in row
    assert "postmortem recorded" in log and 'href="gate-log.html"' in log


def test_contributors_show_revoked(rich: tuple[Path, Path, str]) -> None:
    _, out, _ = rich
    bob = _read(out, "contributors/bob.html")
    assert "revoked" in bob and "ledger/000005-3.json" in bob
    assert "targets/demo/nodes/root.html" in bob
    home = _read(out, "index.html")
    assert "postmortems filed" in home
    assert "by bob" not in home  # a revoked line is not news (D-36 v3.48)


def test_frontier_filters_without_javascript(rich: tuple[Path, Path, str]) -> None:
    _, out, _ = rich
    rows = lambda p: len(re.findall(r"<tr class=\"target-", _read(out, p)))
    every = rows("frontier/index.html")
    assert every >= 3
    assert rows("frontier/status/blocked.html") < every
    assert rows("frontier/claimable.html") <= every


def test_build_is_deterministic(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    a, b = tmp_path / "a", tmp_path / "b"
    build(graph, a)
    build(graph, b)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_layout_is_a_pure_function_of_structure(tmp_path: Path) -> None:
    from network.record import derive
    from network.record.read.loader import load_graph

    graph = tmp_path / "graph"
    b, _ = build_rich_graph(graph, commit=False)
    view = derive.graph_view(load_graph(graph), "demo")
    before = layout_target(view)
    b.proof("demo", "root--h2", "theorem odd : True := trivial\n")
    b.merge(["targets/demo/nodes/root--h2/Proof.lean"], date="2026-02-01", node="root--h2")
    view2 = derive.graph_view(load_graph(graph), "demo")
    assert dot_source(view) == dot_source(view2)
    assert layout_target(view2).boxes == before.boxes  # a status change moves nothing


def test_strict_fails_on_warning(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    with pytest.raises(LemmataError) as exc:
        build(graph, tmp_path / "out", featured_target="no-such-target")
    assert exc.value.code == "site-warnings"


def test_toolchain_note_slot(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    build_rich_graph(graph, commit=False)
    build(graph, tmp_path / "out", toolchain_note="Proofs can be checked here.")
    assert "Proofs can be checked here." in _read(tmp_path / "out", "index.html")


def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    b, _ = build_rich_graph(graph, commit=False)
    b.gloss("demo", "root--h2", "20260110T000000Z", "mallory",
            label="<script>alert(1)</script>", text="<img src=x onerror=alert(1)> words")
    build(graph, tmp_path / "out")
    page = _read(tmp_path / "out", "targets/demo/nodes/root--h2.html")
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
