"""`lemmata import erdosproblems`: the database's statuses, dates and tags become the
prior-art artifact of the matching target (D-6 item 1, D-10); `open` is never proof."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from network.errors import LemmataError
from network.importers import write_files
from network.importers.erdosproblems import (
    DB_PARAGRAPH_MARK,
    is_solved,
    load_entries,
    plan_erdosproblems_import,
)
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record.read.loader import load_graph
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
    relabelled = [a for a in plan.attention if a.code == "registry-says-solved"]
    assert [a.target for a in relabelled] == ["erdos-9004"]  # 9003 was calibration already
    assert "2025-12-02" in relabelled[0].detail  # the database's "2025-12-2", padded
    # 9004 is `research open` in Formal Conjectures and solved in the database: flagged
    dis = [a for a in plan.attention if a.code == "registries-disagree"]
    assert [a.target for a in dis] == ["erdos-9004"]
    assert "`research open`" in dis[0].detail and "2025-12-02" in dis[0].detail
    assert [d["target"] for d in plan.report["disagreements"]] == ["erdos-9004"]


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


def test_wrong_shape_entries_are_report_lines(tmp_path: Path) -> None:
    plan = plan_erdosproblems_import(FIXTURES / "malformed/wrong_shape.yaml", None)
    assert plan.report["rejected"] == [
        {"entry": 2, "number": None, "code": "import-malformed-registry",
         "detail": "entry 2: a str, not a mapping"}]
    assert plan.report["no_formal_statement"][0]["number"] == "1"  # entry 1 still reads
    with pytest.raises(LemmataError) as exc:  # the strict reader refuses the whole file
        load_entries((FIXTURES / "malformed/wrong_shape.yaml").read_bytes(), "x.yaml")
    assert exc.value.code == "import-malformed-registry"
    assert "entry 2: a str, not a mapping" in exc.value.detail


_GOOD = ('- number: "9001"\n  status:\n    state: "open"\n    last_update: "2025-08-31"\n'
         '  tags: ["primes"]\n')


@pytest.mark.parametrize("entry, why", [
    ('- number: [1, 2]\n', "number is not a plain number"),
    ('- number: true\n', "number is not a plain number"),
    ('- number: "12345678"\n', "number is not a plain number"),
    ('- number: "9002"\n  status: {state: 7}\n', "status state is not a few words"),
    ('- number: "9002"\n  status: {state: [open]}\n', "status state is not a few words"),
    ('- number: "9002"\n  status: {state: "open; status: proved"}\n',
     "status state is not a few words"),
    ('- number: "9002"\n  status: {state: open, last_update: "yesterday"}\n',
     "status last_update is not a date"),
    ('- number: "9002"\n  status: {state: open, last_update: "2025-02-30"}\n',
     "status last_update is not a date"),
    ('- number: "9002"\n  formalized: 3\n', "formalized state is not a few words"),
    ('- number: "9002"\n  tags: "primes"\n', "tags is a str, not a list"),
    ('- number: "9002"\n  tags: [{a: 1}]\n', "an item of tags is a dict, not a string"),
    ('- number: "9002"\n  oeis: [' + ", ".join(['"A1"'] * 101) + ']\n',
     "oeis has 101 items; at most 100"),
    ('- number: "9002"\n  comments: "' + "x" * 3_000_000 + '"\n',
     "comments is 3000000 characters; at most 2000"),
    ('- number: "9002"\n  tags: ["' + "y" * 101 + '"]\n',
     "an item of tags is 101 characters; at most 100"),
    ('- number: "9002"\n  prize: "\\u202e$500"\n',
     "prize holds a control or bidirectional-override character"),
    ('- number: "9002"\n  comments: "a\\0b"\n',
     "comments holds a control or bidirectional-override character"),
    ('- 42\n', "a int, not a mapping"),
    ('- null\n', "a NoneType, not a mapping"),
])
def test_hostile_entry_is_a_report_line_not_a_crash(tmp_path: Path, graph: Path, entry: str,
                                                    why: str) -> None:
    db = tmp_path / "db.yaml"
    db.write_text(_GOOD + entry, encoding="utf-8")
    plan = plan_erdosproblems_import(db, graph)
    assert [r["code"] for r in plan.report["rejected"]] == ["import-malformed-registry"]
    detail = plan.report["rejected"][0]["detail"]
    assert detail.startswith("entry 2: " + why)
    assert len(detail) < 300  # the value itself is never echoed
    assert [a["target"] for a in plan.report["attached"]] == ["erdos-9001"]  # the rest imports
    assert list(plan.files) == ["targets/erdos-9001/target.yaml"]
    if "9002" in entry:  # the target whose entry was rejected is named for the curator
        assert [(a.code, a.target) for a in plan.attention
                if a.code == "registry-entry-rejected"] == [
                    ("registry-entry-rejected", "erdos-9002")]


def test_a_number_twice_rejects_both_entries(tmp_path: Path, graph: Path) -> None:
    db = tmp_path / "db.yaml"
    db.write_text(_GOOD + _GOOD.replace("open", "proved") + '- number: 9003\n',
                  encoding="utf-8")
    plan = plan_erdosproblems_import(db, graph)
    assert plan.report["rejected"] == [
        {"entry": i, "number": "9001", "code": "import-malformed-registry",
         "detail": f"entry {i}: number 9001 appears 2 times (entries 1, 2); none of them is "
                   "imported"} for i in (1, 2)]
    assert [a["target"] for a in plan.report["attached"]] == ["erdos-9003"]  # an int number
    assert "targets/erdos-9001/target.yaml" not in plan.files


def test_rejected_entry_of_a_target_that_does_not_exist_is_only_a_line(tmp_path: Path) -> None:
    db = tmp_path / "db.yaml"
    db.write_text(_GOOD + '- number: "77777"\n  status: {state: 1}\n', encoding="utf-8")
    plan = plan_erdosproblems_import(db, None)
    assert [r["number"] for r in plan.report["rejected"]] == ["77777"]
    assert plan.attention == []


@pytest.mark.parametrize("text, why", [
    ("- &a {number: '1'}\n- *a\n", "line 1: a YAML anchor or alias"),
    ("- number: '1'\n  tags: " + "[" * 10 + "]" * 10 + "\n", "nested deeper than 6"),
    ("number: '1'\n", "the top level is not a list"),
    ("- [\n", "line 2"),
])
def test_file_unreadable_as_a_whole_is_refused(tmp_path: Path, text: str, why: str) -> None:
    db = tmp_path / "db.yaml"
    db.write_text(text, encoding="utf-8")
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(db, None)
    assert exc.value.code == "import-malformed-registry" and why in exc.value.detail


def test_not_utf8_and_bad_commit(tmp_path: Path) -> None:
    db = tmp_path / "db.yaml"
    db.write_bytes(b"- number: '\xff'\n")
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(db, None)
    assert exc.value.code == "not-utf8"
    with pytest.raises(LemmataError) as exc:
        plan_erdosproblems_import(_db(tmp_path), None, commit="HEAD; rm -rf /")
    assert exc.value.code == "import-source-invalid"


def test_a_stated_commit_pins_an_uncommitted_copy(tmp_path: Path, graph: Path) -> None:
    sha = "402130d5c3180f67976827cf1c7fac1edc9ad751"
    plan = plan_erdosproblems_import(_db(tmp_path), graph, problems=["9001"], commit=sha)
    assert plan.report["commit"] == sha
    text = plan.files["targets/erdos-9001/target.yaml"].decode()
    assert f"https://github.com/teorth/erdosproblems/blob/{sha}/data/problems.yaml" in text


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
    res = CliRunner().invoke(main, ["import", "erdosproblems",
                                    str(FIXTURES / "malformed/wrong_shape.yaml")])
    assert res.exit_code == 0, res.output  # a malformed entry is a line, not the run's end
    assert json.loads(res.output)["rejected"][0]["code"] == "import-malformed-registry"
