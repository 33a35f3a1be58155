"""The target page shows where the target came from (issue 12): the Formal Conjectures
file at its commit, the erdosproblems.com page, and the erdosproblems database's status with
its date, with the registries' disagreement when they disagree. Built from real problems of
the two snapshots, strict, with no broken internal link."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
import yaml

from network.importers import write_files
from network.importers.erdosproblems import plan_erdosproblems_import
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.site.linkcheck import check_links
from tests.importfixtures import commit_all, graph_copy
from tests.site_support import build, require_dot
from tests.test_import_real_erdosproblems import _FC_TIME, DB_COMMIT, unpack

pytestmark = pytest.mark.usefixtures("_dot")
FC_BLOB = "https://github.com/google-deepmind/formal-conjectures/blob/"


@pytest.fixture()
def _dot() -> None:
    require_dot()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """A graph with real problems 12 (three parts; part i is `research solved` in Formal
    Conjectures and `open` in the database) and 1000 (solved in both) imported from the
    snapshots; returns (graph, FC commit, database file)."""
    base = tmp_path_factory.mktemp("site-provenance")
    fc = unpack("formal-conjectures-488aade-erdos.tar.gz", base / "fc")
    fc_commit = commit_all(fc, "formal-conjectures 488aade", when=_FC_TIME)
    db = unpack("erdosproblems-402130d.tar.gz", base / "db") / "data" / "problems.yaml"
    graph = graph_copy(base)
    write_files(graph, plan_formal_conjectures_import(fc, graph, problems=["12", "130", "1000"]).files)
    write_files(graph, plan_erdosproblems_import(db, graph, problems=["12", "130", "1000"],
                                                 commit=DB_COMMIT).files)
    return graph, fc_commit, db


def _page(out: Path, tid: str) -> str:
    return (out / "targets" / tid / "index.html").read_text(encoding="utf-8")


def test_target_page_shows_the_provenance(imported: tuple[Path, str, Path],
                                          tmp_path: Path) -> None:
    graph, fc_commit, db = imported
    out = tmp_path / "site"
    report = build(graph, out)
    assert report.warnings == []
    entries = {e["number"]: e for e in yaml.safe_load(db.read_text(encoding="utf-8"))}
    for tid, num in (("erdos-12-i", "12"), ("erdos-1000", "1000")):
        page = _page(out, tid)
        assert f'href="{FC_BLOB}{fc_commit}/FormalConjectures/ErdosProblems/{num}.lean"' in page
        assert f'href="https://www.erdosproblems.com/{num}"' in page
        assert (f'href="https://github.com/teorth/erdosproblems/blob/{DB_COMMIT}/'
                'data/problems.yaml"') in page
        status = entries[num]["status"]
        shown = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert f"status “{status['state']}” (last update {status['last_update']})" in shown
    # like with like (issue 28): 12's part is never compared with the whole problem's
    # status; problem 130 as a whole is solved in Formal Conjectures and open in the database
    assert 'id="registries-disagree"' not in _page(out, "erdos-12-i")
    one = _page(out, "erdos-130")
    assert 'id="registries-disagree"' in one
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", one)).split())
    assert ("Formal Conjectures says solved (category “research solved”, commit "
            f"{fc_commit}, 2026-08-22); the erdosproblems database says open (status “open”, "
            "last update 2025-08-31)") in text
    assert 'id="registries-disagree"' not in _page(out, "erdos-1000")  # both say solved
    assert check_links(out) == []


def test_hostile_provenance_is_never_a_link(imported: tuple[Path, str, Path],
                                            tmp_path: Path) -> None:
    src, _, _ = imported
    graph = tmp_path / "graph"
    shutil.copytree(src, graph)
    path = graph / "targets/erdos-1000/target.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("repository: https://github.com/google-deepmind/formal-conjectures",
                        "repository: 'javascript:alert(1)//'")
    text = text.replace("note: 'status: proved (Lean)", "note: 'status: <script>x</script>")
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "site"
    build(graph, out)
    page = _page(out, "erdos-1000")
    assert "javascript:" not in page and "<script>x" not in page
    assert "FormalConjectures/ErdosProblems/1000.lean</code>" in page  # shown, not linked
