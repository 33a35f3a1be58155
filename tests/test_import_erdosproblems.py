"""`lemmata import erdosproblems`: the database's statuses, dates and tags become the
prior-art artifact of the matching target (D-6 item 1, D-10); `open` is never proof."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from network.errors import LemmataError
from network.importers import write_files
from network.importers.erdosproblems import (
    DB_PARAGRAPH_MARK,
    is_solved,
    plan_erdosproblems_import,
)
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record.loader import load_graph
from tests.importfixtures import FIXTURES, commit_all, fc_checkout, graph_copy


@pytest.fixture()
def graph(tmp_path: Path) -> Path:
    """The starting graph with the Formal Conjectures fixture imported."""
    co, _ = fc_checkout(tmp_path)
    g = graph_copy(tmp_path)
    write_files(g, plan_formal_conjectures_import(co, g).files)
    return g


def _db(tmp_path: Path) -> Path:
    p = tmp_path / "problems.yaml"
    shutil.copy(FIXTURES / "problems.yaml", p)
    return p


def test_open_status_is_prior_art_not_proof(tmp_path: Path, graph: Path) -> None:
    plan = plan_erdosproblems_import(_db(tmp_path), graph)
    write_files(graph, plan.files)
    rec = load_graph(graph).targets["erdos-9001"].record
    assert rec.target_class == "open-problem"
    summary = rec.intake.prior_art.summary
    assert summary.startswith(DB_PARAGRAPH_MARK)
    assert "prior-art check required" in summary
    assert "not proof that the problem is open" in summary.replace("\n", " ")
    assert "status `open` (last update 2025-08-31)" in summary.replace("\n", " ")
    assert "formal_status `statement` (last update 2025-09-02)" in summary.replace("\n", " ")
    assert "Prior-art check required (D-6 item 1); none has been made." in summary  # FC kept
    urls = [r.url for r in rec.intake.prior_art.references]
    assert "https://www.erdosproblems.com/9001" in urls
    assert any("/blob/" in (u or "") and u.endswith("9001.lean") for u in urls)  # formal link
    db = [r for r in rec.intake.prior_art.references if r.title.startswith("erdosproblems")]
    assert len(db) == 1 and "status: open (2025-08-31)" in (db[0].note or "")
    assert rec.area == ["number theory", "primes"]


def test_solved_problem_becomes_calibration_never_open(tmp_path: Path, graph: Path) -> None:
    plan = plan_erdosproblems_import(_db(tmp_path), graph)
    write_files(graph, plan.files)
    g = load_graph(graph)
    for tid in ("erdos-9003", "erdos-9004"):
        rec = g.targets[tid].record
        assert rec.target_class == "calibration" and rec.calibration is True
        assert "never labelled an open problem" in rec.intake.prior_art.summary.replace("\n", " ")
    flagged = [(a.code, a.target) for a in plan.attention]
    assert flagged == [("registry-says-solved", "erdos-9004")]  # 9003 was calibration already
    assert "2025-12-02" in plan.attention[0].detail  # the database's "2025-12-2", padded


@pytest.mark.parametrize("state, solved", [
    ("proved", True), ("disproved (Lean)", True), ("solved", True), ("Proved (Lean)", True),
    ("independent", True), ("open", False), ("falsifiable", False), ("verifiable", False),
    ("decidable", False), (None, False),
])
def test_is_solved(state: str | None, solved: bool) -> None:
    assert is_solved(state) is solved


def test_problems_without_a_formal_statement_are_reported(tmp_path: Path, graph: Path) -> None:
    plan = plan_erdosproblems_import(_db(tmp_path), graph)
    assert plan.report["no_formal_statement"] == [{
        "number": "9007", "reference": "https://www.erdosproblems.com/9007",
        "status": "falsifiable", "calibration_candidate": False}]
    assert [e["number"] for e in plan.report["formalized_not_imported"]] == ["9008"]
    assert not any("9007" in p or "9008" in p for p in plan.files)


def test_rerun_changes_nothing_and_fc_rerun_keeps_prior_art(tmp_path: Path,
                                                            graph: Path) -> None:
    db = _db(tmp_path)
    write_files(graph, plan_erdosproblems_import(db, graph).files)
    assert plan_erdosproblems_import(db, graph).files == {}
    co = tmp_path / "fc"  # the checkout the fixture imported from
    assert plan_formal_conjectures_import(co, graph).files == {}


def test_committed_database_is_pinned_by_commit(tmp_path: Path, graph: Path) -> None:
    repo = tmp_path / "erdosproblems"
    (repo / "data").mkdir(parents=True)
    shutil.copy(FIXTURES / "problems.yaml", repo / "data" / "problems.yaml")
    commit = commit_all(repo)
    plan = plan_erdosproblems_import(repo / "data" / "problems.yaml", graph, problems=["9001"])
    assert plan.report["commit"] == commit and plan.report["file"] == "data/problems.yaml"
    text = plan.files["targets/erdos-9001/target.yaml"].decode()
    assert f"https://github.com/teorth/erdosproblems/blob/{commit}/data/problems.yaml" in text


def test_hand_written_prior_art_is_kept(tmp_path: Path) -> None:
    g = graph_copy(tmp_path)
    db = tmp_path / "db.yaml"
    db.write_text('- number: "242"\n  prize: "no"\n  status:\n    state: "falsifiable"\n'
                  '    last_update: "2025-09-28"\n  formalized:\n    state: "yes"\n'
                  '    last_update: "2025-08-31"\n  tags: ["number theory", "unit fractions"]\n')
    plan = plan_erdosproblems_import(db, g)
    write_files(g, plan.files)
    rec = load_graph(g).targets["erdos-242"].record
    assert rec.target_class == "open-problem"
    assert "Plausibly open as of the check date." in rec.intake.prior_art.summary
    assert rec.intake.prior_art.checked_on == "2026-11-29"
    assert rec.area == ["number theory", "unit fractions"]
    assert plan_erdosproblems_import(db, g).files == {}


def test_bad_yaml(tmp_path: Path, graph: Path) -> None:
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(FIXTURES / "malformed/bad_problems.yaml", graph)
    assert exc.value.code == "import-malformed-registry" and "line 3" in exc.value.detail


def test_wrong_shape_lists_every_problem(tmp_path: Path) -> None:
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(FIXTURES / "malformed/wrong_shape.yaml", None)
    assert exc.value.code == "import-malformed-registry"
    assert "entry 2: not a mapping" in exc.value.detail


@pytest.mark.parametrize("pid", ["../1", "1; rm -rf /", "9001\n"])
def test_hostile_problem_id(tmp_path: Path, pid: str) -> None:
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(_db(tmp_path), None, problems=[pid])
    assert exc.value.code == "import-hostile-path"


def test_missing_or_linked_file(tmp_path: Path) -> None:
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(tmp_path / "nope.yaml", None)
    assert exc.value.code == "import-source-invalid"
    (tmp_path / "link.yaml").symlink_to(_db(tmp_path))
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(tmp_path / "link.yaml", None)
    assert exc.value.code == "import-source-invalid"


def test_cli(tmp_path: Path, graph: Path) -> None:
    from network.cli import main

    res = CliRunner().invoke(main, ["import", "erdosproblems", str(_db(tmp_path)),
                                    "--graph", str(graph)])
    assert res.exit_code == 0, res.output
    assert '"registry-says-solved"' in res.output
    assert load_graph(graph).targets["erdos-9004"].record.target_class == "calibration"
    res = CliRunner().invoke(main, ["import", "erdosproblems",
                                    str(FIXTURES / "malformed/bad_problems.yaml")])
    assert res.exit_code == 1 and "import-malformed-registry" in res.output
