"""`lemmata import erdosproblems` over the real snapshots (issue 12): the erdosproblems
database at 402130d (1,217 entries) attached to targets the Formal Conjectures importer made
from the real Erdős collection at 488aade. A second run changes nothing, every solved/open
disagreement between the two registries is flagged with both dates (the set computed here
from the two sources themselves), and the result validates and its products are current."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.importers import ImportPlan, write_files
from network.importers.erdosproblems import plan_erdosproblems_import
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record.read.loader import load_graph
from tests.importfixtures import FIXTURES, commit_all, graph_copy

pytestmark = pytest.mark.slow

DB_COMMIT = "402130d5c3180f67976827cf1c7fac1edc9ad751"
FC_DATE = "2026-08-22"  # the upstream commit date of formal-conjectures 488aade
_FC_TIME = int(dt.datetime(2026, 8, 22, 12, tzinfo=dt.UTC).timestamp())
_SOLVED_WORDS = {"proved", "disproved", "solved", "independent"}
_FC_SOLVED = ("research solved", "research formally solved", "textbook", "undergraduate",
              "graduate", "high_school")


def unpack(archive: str, dest: Path) -> Path:
    """Unpack one of the registry archives (the ``data`` filter: no links out, no devices)."""
    dest.mkdir(parents=True)
    with tarfile.open(FIXTURES / archive) as tar:
        tar.extractall(dest, filter="data")
    return dest


def import_fc_what_imports(fc: Path, graph: Path) -> list[str]:
    """Import the real collection into ``graph``: all of it when the importer takes it in
    one run, else every problem the importer takes alone (issue 12: it stopped at the first
    bad file). Returns the problems imported."""
    from network.importers import GraphView
    from network.importers.formal_conjectures import open_checkout, problem_files

    pids = [sf.number or sf.stem for sf in problem_files(open_checkout(fc), None)]
    try:
        plan = plan_formal_conjectures_import(fc, graph)
        good = pids
    except (LemmataError, AssertionError):
        view = GraphView(graph)
        good = []
        for p in pids:
            try:
                plan_formal_conjectures_import(fc, view, problems=[p])
            except (LemmataError, AssertionError):
                continue
            good.append(p)
        plan = plan_formal_conjectures_import(fc, graph, problems=good)
    write_files(graph, plan.files)
    return good


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` → the sha256 of its bytes."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class Real:
    fc: Path
    db: Path
    graph: Path
    imported: list[str]
    first: ImportPlan
    second: ImportPlan
    after_first: dict[str, str]
    after_second: dict[str, str]


@pytest.fixture(scope="session")
def real(tmp_path_factory: pytest.TempPathFactory) -> Real:
    base = tmp_path_factory.mktemp("real-erdosproblems")
    fc = unpack("formal-conjectures-488aade-erdos.tar.gz", base / "fc")
    commit_all(fc, "formal-conjectures 488aade", when=_FC_TIME)
    db = unpack("erdosproblems-402130d.tar.gz", base / "db") / "data" / "problems.yaml"
    graph = graph_copy(base)
    imported = import_fc_what_imports(fc, graph)
    first = plan_erdosproblems_import(db, graph, commit=DB_COMMIT)
    write_files(graph, first.files)
    after_first = tree_digest(graph)
    second = plan_erdosproblems_import(db, graph, commit=DB_COMMIT)
    write_files(graph, second.files)
    return Real(fc, db, graph, imported, first, second, after_first, tree_digest(graph))


def test_the_real_database_attaches_to_the_real_targets(real: Real) -> None:
    assert len(real.imported) > 500  # most of the 610 files, whatever the FC importer takes
    report = real.first.report
    assert report["commit"] == DB_COMMIT and report["rejected"] == []
    entries = yaml.safe_load(real.db.read_text(encoding="utf-8"))
    assert len(entries) == 1217
    fc_targets = [tid for tid, t in load_graph(real.graph).targets.items()
                  if t.record.intake and t.record.intake.provenance.source == "formal-conjectures"]
    attached = {a["target"] for a in report["attached"]}
    assert set(fc_targets) <= attached
    seen = attached | {e["number"] for k in ("no_formal_statement", "formalized_not_imported")
                       for e in report[k]}
    assert {str(e["number"]) for e in entries} <= {s.split("-")[1] if s.startswith("erdos-")
                                                   else s for s in seen}
    assert len(real.first.files) > 500


def test_a_second_run_changes_nothing(real: Real) -> None:
    assert real.second.files == {}
    assert real.after_second == real.after_first  # byte-identical tree
    res = CliRunner().invoke(main, ["import", "erdosproblems", str(real.db), "--graph",
                                    str(real.graph), "--commit", DB_COMMIT])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["changed_files"] == []
    assert tree_digest(real.graph) == real.after_first


def _fc_category(fc: Path, file: str, declaration: str) -> str | None:
    """The category of ``declaration`` read from the Lean source itself: the attribute
    block right before ``theorem <name>``, for the longest suffix of the dotted name that
    the file declares (namespaces strip its head)."""
    text = (fc / file).read_text(encoding="utf-8")
    parts = declaration.split(".")
    for k in range(len(parts)):
        name = re.escape(".".join(parts[k:]))
        mt = re.search(r"@\[([^\]]*)\](?:[ \t]*--[^\n]*)?\s*(?:theorem|lemma)\s+" + name
                       + r"(?=[\s:({\[])", text)
        if mt:
            cat = re.search(r"category\s+([A-Za-z_ ]+?)\s*(?:,|$)", mt.group(1))
            return " ".join(cat.group(1).split()) if cat else None
    return None


def _expected_disagreements(real: Real) -> dict[str, tuple[str, str, str | None]]:
    """target → (FC category, database status, its date), from the Lean files and the YAML
    read here, for every Formal Conjectures target the two registries judge differently."""
    db = {str(e["number"]): e for e in yaml.safe_load(real.db.read_text(encoding="utf-8"))}
    out: dict[str, tuple[str, str, str | None]] = {}
    checked = 0
    for tid, t in load_graph(real.graph).targets.items():
        rec = t.record
        if rec.intake is None or rec.intake.provenance.source != "formal-conjectures":
            continue
        prov = rec.intake.provenance
        assert prov.file and prov.declaration
        cat = _fc_category(real.fc, prov.file, prov.declaration)
        assert cat is not None, (tid, prov.declaration)
        checked += 1
        num = tid.split("-")[1]
        if tid != f"erdos-{num}":
            continue  # issue 28: a part or side result is never compared with the whole's status
        status = db[num]["status"]
        state = status["state"]
        fc_solved = True if cat.startswith(_FC_SOLVED) else \
            False if cat == "research open" else None
        db_solved = state.split(" (")[0].lower() in _SOLVED_WORDS
        if fc_solved is not None and fc_solved != db_solved:
            out[tid] = (cat, state, status.get("last_update"))
    assert checked > 500
    return out


def test_every_disagreement_is_flagged_with_both_dates(real: Real) -> None:
    expected = _expected_disagreements(real)
    # issue 12: FC calls these solved and the database open; they passed unflagged
    fc_solved_db_open = {tid for tid, (cat, _, _) in expected.items() if cat != "research open"}
    assert len({t.split("-")[1] for t in fc_solved_db_open}) >= 10
    assert {tid for tid, (cat, _, _) in expected.items() if cat == "research open"}  # and back
    for plan in (real.first, real.second):  # flagged on every run, not only the first
        got: dict[str, Any] = {d["target"]: d for d in plan.report["disagreements"]}
        assert set(got) == set(expected)
        for tid, (cat, state, date) in expected.items():
            d = got[tid]
            assert d["formal_conjectures"]["category"] == cat
            assert d["formal_conjectures"]["date"] == FC_DATE
            assert d["database"] == {"says": "open" if cat != "research open" else "solved",
                                     "status": state, "date": date}
        flagged = {a.target: a.detail for a in plan.attention if a.code == "registries-disagree"}
        assert set(flagged) == set(expected)
        for tid, (_, state, date) in expected.items():
            assert FC_DATE in flagged[tid] and f"`{state}` (last update {date})" in flagged[tid]
    g = load_graph(real.graph)
    for tid in expected:  # the flag lives in the record too: its prior-art summary
        summary = " ".join(g.targets[tid].record.intake.prior_art.summary.split())
        assert "The registries disagree" in summary and FC_DATE in summary
    for tid, t in g.targets.items():
        if tid not in expected and t.record.intake is not None:
            assert "registries disagree" not in t.record.intake.prior_art.summary


def test_the_fc_rerun_keeps_the_prior_art(real: Real) -> None:
    plan = plan_formal_conjectures_import(real.fc, real.graph, problems=real.imported)
    assert plan.files == {}


def test_validate_and_products_check_pass_on_the_result(real: Real) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["validate", str(real.graph)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["products", str(real.graph)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["products", str(real.graph), "--check"])
    assert res.exit_code == 0, res.output
