"""`lemmata import formal-conjectures`: statements become listed targets (D-6, D-10, D-30;
ruling 13), as a file set that is written to a work tree or opened as one pull request."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from sqlalchemy.orm import sessionmaker

from network.errors import LemmataError
from network.importers import forge_source, import_as_pull_request, write_files
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.importers.lean_text import is_question, unhedged_answer
from network.record.read.loader import load_graph, sha256_hex
from tests.importfixtures import FIXTURES, commit_all, fc_checkout, graph_copy

REPO = Path(__file__).resolve().parents[1]


def _yaml(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture()
def imported(tmp_path: Path) -> tuple[Path, Path, str, object]:
    """The fixture checkout imported into a copy of the starting graph."""
    co, commit = fc_checkout(tmp_path)
    g = graph_copy(tmp_path)
    plan = plan_formal_conjectures_import(co, g)
    write_files(g, plan.files)
    return co, g, commit, plan


def test_every_written_file_loads_and_hashes(imported) -> None:
    _, g, commit, _plan = imported
    graph = load_graph(g)
    assert {"erdos-9001", "erdos-9002", "erdos-9003", "erdos-9004", "erdos-9005"} <= set(
        graph.targets)
    assert "erdos-9006" not in graph.targets  # category test, not asked for
    for tid in ("erdos-9001", "erdos-9002"):
        for node in graph.targets[tid].nodes.values():
            stmt = (g / node.ref.dir / "Statement.lean").read_bytes()
            assert node.meta.statement_hash == sha256_hex(stmt)
            assert b"@[category" not in stmt and b"AMS" not in stmt.split(b"-/", 2)[-1]
    t = graph.targets["erdos-9001"]
    prov = t.record.intake.provenance
    assert prov.commit == commit and prov.source == "formal-conjectures"
    assert prov.file == "FormalConjectures/ErdosProblems/9001.lean"
    assert prov.declaration == "Erdos9001.erdos_9001" and prov.category == "research open"
    assert prov.ams == ["11"] and prov.authors[0].startswith("The Test Registry Authors")
    assert t.record.intake.curator == "operator"
    assert "Prior-art check required" in t.record.intake.prior_art.summary
    assert not (g / "targets/erdos-9001/stewards").exists()  # ruling 13: none invented


def test_pins_come_from_the_checkout(imported) -> None:
    _, g, commit, plan = imported
    spec = load_graph(g).targets["erdos-9001"].gate_spec
    assert spec.lean_toolchain == "leanprover/lean4:v4.22.0"
    assert spec.mathlib is not None and spec.mathlib.rev == "1" * 40
    assert [(p.name, p.rev) for p in spec.packages] == [("formal_conjectures", commit)]
    assert plan.report["pins"]["source"] == "checkout"
    # issue 32: the gate refuses an unpinned network; the import pins the graph's commit
    assert spec.network_commit == Counter(
        t.gate_spec.network_commit for t in load_graph(REPO / "graph").targets.values()
    ).most_common(1)[0][0]


def test_pins_network_commit_falls_back_to_this_checkout(tmp_path: Path) -> None:
    from network.importers import running_network_commit

    co, _ = fc_checkout(tmp_path)
    plan = plan_formal_conjectures_import(co, None, problems=["9005"], curator="someone")
    spec = json.loads(next(v for k, v in plan.files.items() if k.endswith("gate-spec.json")))
    assert spec.get("network_commit") == running_network_commit()


def test_pins_fall_back_to_the_graph_then_defaults(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    (co / "lean-toolchain").unlink()
    (co / "lake-manifest.json").unlink()
    repo_commit = commit_all(co, "drop pins")
    gcopy = graph_copy(tmp_path)
    from collections import Counter

    most = Counter(t.gate_spec.lean_toolchain for t in load_graph(gcopy).targets.values())
    plan = plan_formal_conjectures_import(co, gcopy, problems=["9005"])
    assert plan.report["pins"]["source"] == "graph"
    assert plan.report["pins"]["lean_toolchain"] == most.most_common(1)[0][0]
    assert plan.report["pins"]["formal_conjectures"] == repo_commit
    plan = plan_formal_conjectures_import(co, None, problems=["9005"], curator="someone")
    assert plan.report["pins"]["source"] == "default"
    assert "importer's defaults" in plan.report["pins"]["explanation"]


def test_classes_open_and_calibration(imported) -> None:
    _, g, _, _ = imported
    graph = load_graph(g)
    assert graph.targets["erdos-9001"].record.target_class == "open-problem"
    assert graph.targets["erdos-9001"].record.calibration is False
    for tid in ("erdos-9003", "erdos-9005"):  # research solved, textbook: never open
        rec = graph.targets[tid].record
        assert rec.target_class == "calibration" and rec.calibration is True
        assert "is never labelled open" in rec.intake.prior_art.summary


def test_answer_sorry_is_a_held_question(imported) -> None:
    _, g, _, plan = imported
    graph = load_graph(g)
    t = graph.targets["erdos-9002"]
    assert t.record.answer_question is True
    assert "question, held and not provable" in t.record.informal_statement
    root = t.nodes["root"]
    assert "answer(sorry)" in (g / root.ref.dir / "Statement.lean").read_text()
    assert root.meta.provenance["answer_question"] is True
    assert any(a.code == "answer-question" and a.target == "erdos-9002" for a in plan.attention)
    variant = t.nodes["variant-c-three"]  # the way to progress: a value fixed
    assert variant.meta.origin == "variant" and variant.meta.variant.relation == "related"
    assert graph.targets["erdos-9001"].record.answer_question is False


def test_variants_definitions_and_proofs(imported) -> None:
    _, g, _, plan = imported
    t = load_graph(g).targets["erdos-9001"]
    assert set(t.nodes) == {"root", "variant-k-one", "variant-exists-one"}
    for nid in ("variant-k-one", "variant-exists-one"):
        meta = t.nodes[nid].meta
        assert meta.variant.of == "root" and meta.variant.relation == "related"
        assert meta.declaration.startswith("Erdos9001.erdos_9001.variants.")
    stmt = (g / "targets/erdos-9001/nodes/variant-exists-one/Statement.lean").read_text()
    assert "obtain" not in stmt and stmt.rstrip().endswith("sorry\n\nend Erdos9001".rstrip())
    assert t.nodes["variant-exists-one"].meta.provenance["upstream_proof"] is True
    assert "Erdos9001" in t.defs
    defs = (g / "targets/erdos-9001/defs/Erdos9001.lean").read_text()
    assert "def IsSparse" in defs and "noncomputable def sparseCount" in defs
    root = (g / "targets/erdos-9001/nodes/root/Statement.lean").read_text()
    assert "import Lemmata.«erdos-9001».Defs.Erdos9001" in root
    assert "import FormalConjectures.Util.ProblemImports" in root
    assert "namespace Erdos9001" in root and "open Finset" in root
    witness = (g / "targets/erdos-9001/nodes/root/Witness.lean").read_text()
    assert "theorem erdos_9001.witness : ∃ (k : ℕ) (hk : 1 ≤ k), True" in witness
    assert any(a.code == "witness-proof-required" and a.node == "root"
               and a.target == "erdos-9001" for a in plan.attention)
    k_one = (g / "targets/erdos-9001/nodes/variant-k-one/Witness.lean").read_text()
    assert "True :=\n  trivial" in k_one and "sorry" not in k_one
    skipped = {s["declaration"] for s in plan.report["skipped"]}
    assert {"Erdos9001.erdos_9001.variants.sparse_five", "Erdos9001.sparse_zero",
            "Erdos9006.erdos_9006"} <= skipped


def test_include_test(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    g = graph_copy(tmp_path)
    plan = plan_formal_conjectures_import(co, g, include_test=True)
    write_files(g, plan.files)
    graph = load_graph(g)
    assert "variant-sparse-five" in graph.targets["erdos-9001"].nodes
    assert graph.targets["erdos-9006"].record.target_class == "calibration"


def test_unhedged_answer_copy_is_flagged(imported) -> None:
    _, g, _, plan = imported
    flagged = [a for a in plan.attention if a.code == "answer-copies-target"]
    assert [(a.target, a.node) for a in flagged] == [("erdos-9004", "root")]
    meta = _yaml(g / "targets/erdos-9004/nodes/root/META.yaml")
    assert meta["provenance"]["curator_attention"][0]["code"] == "answer-copies-target"


@pytest.mark.parametrize("conclusion, copied", [
    ("answer(f n) = f n", "f n"),
    ("f n = answer(f n)", "f n"),
    ("∀ n, (answer( f  n )) = (f n)", "f  n"),
    ("sInf {n | P n} = answer(sInf {n | P n})", "sInf {n | P n}"),
    ("answer(S) ↔ S", "S"),
    ("sSup A ≤ answer(sSup A)", "sSup A"),
    ("answer(sorry) ↔ P", None),          # a question, not a copy
    ("answer(2) = f 3", None),            # a real answer
    ("f n = answer(f (n + 1))", None),    # different term
    ("g (answer(f n)) = f n", None),      # nested deeper: outside the definition
    ("f n ≠ answer(f n)", None),          # not a relation rfl closes
])
def test_unhedged_answer_definition(conclusion: str, copied: str | None) -> None:
    assert unhedged_answer(conclusion) == copied


def test_is_question() -> None:
    assert is_question("answer(sorry) ↔ ∀ n, P n")
    assert is_question("sInf S = answer( sorry )")
    assert not is_question("answer(True) ↔ P")


def test_rerun_changes_nothing(imported) -> None:
    co, g, _, _ = imported
    again = plan_formal_conjectures_import(co, g)
    assert again.files == {}
    assert [t["existing"] for t in again.report["targets"]] == [True] * 5


def test_import_is_one_pull_request_and_rerun_opens_none(tmp_path: Path) -> None:
    from network.api.db import Base, make_engine
    from network.forge.local import LocalForge

    co, _ = fc_checkout(tmp_path)
    LocalForge.seed(tmp_path / "forge.git", graph_copy(tmp_path), when=1_790_000_000)
    engine = make_engine(f"sqlite:///{tmp_path / 'state.db'}")
    Base.metadata.create_all(engine)
    forge = LocalForge(tmp_path / "forge.git", sessionmaker(engine), clock=lambda: 1_790_000_100)
    plan = plan_formal_conjectures_import(co, forge_source(forge))
    pr = import_as_pull_request(forge, plan.files, "operator", title="Import FC")
    assert pr is not None and pr.author == "operator"
    assert len(forge.list_open()) == 1
    forge.merge(pr.number)
    again = plan_formal_conjectures_import(co, forge_source(forge))
    assert again.files == {}
    assert import_as_pull_request(forge, again.files, "operator") is None
    assert forge.list_open() == []


def test_reads_head_not_the_work_tree(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    p = co / "FormalConjectures/ErdosProblems/9005.lean"
    p.write_text(p.read_text().replace("Infinite", "Finite"))  # uncommitted edit
    plan = plan_formal_conjectures_import(co, None, problems=["9005"], curator="c")
    stmt = plan.files["targets/erdos-9005/nodes/root/Statement.lean"].decode()
    assert "}.Infinite" in stmt


def test_changed_statement_upstream_is_never_overwritten(imported) -> None:
    co, g, _, _ = imported
    p = co / "FormalConjectures/ErdosProblems/9003.lean"
    p.write_text(p.read_text().replace("p * p ≤ n", "p ^ 2 ≤ n"))
    commit_all(co, "upstream edit")
    plan = plan_formal_conjectures_import(co, g, problems=["9003"])
    assert plan.files == {}
    assert [(a.code, a.node) for a in plan.attention] == [("statement-changed-upstream", "root")]


def test_existing_hand_written_target_is_left_alone(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    g = graph_copy(tmp_path)
    before = (g / "targets/erdos-242/target.yaml").read_bytes()
    plan = plan_formal_conjectures_import(co, g)
    assert not any(p.startswith("targets/erdos-242/") for p in plan.files)
    assert (g / "targets/erdos-242/target.yaml").read_bytes() == before


# --- malformed and hostile input -------------------------------------------------------


def _add_file(co: Path, name: str, data: bytes) -> None:
    (co / "FormalConjectures/ErdosProblems" / name).write_bytes(data)
    commit_all(co, f"add {name}")


def _line(plan, path: str) -> dict:
    return next(f for f in plan.report["files"] if f["path"] == path)


def _others_untouched(plan) -> None:
    """The good fixture files still import beside a bad one (per-file isolation)."""
    assert {"erdos-9001", "erdos-9002", "erdos-9005"} <= {t["id"] for t in plan.report["targets"]}
    c = plan.report["counts"]
    assert c["declarations"] == c["imported"] + c["skipped"]


def test_lean_file_without_theorem_is_its_line(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    _add_file(co, "9100.lean", (FIXTURES / "malformed/no_theorem.lean").read_bytes())
    plan = plan_formal_conjectures_import(co, None, curator="c")
    line = _line(plan, "FormalConjectures/ErdosProblems/9100.lean")
    assert line["status"] == "nothing-imported" and line["code"] == "import-no-theorem"
    assert line["declarations"] == line["skipped"]
    assert not any(p.startswith("targets/erdos-9100") for p in plan.files)
    _others_untouched(plan)


def test_unterminated_comment_is_its_line(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    _add_file(co, "9101.lean", (FIXTURES / "malformed/unterminated.lean").read_bytes())
    plan = plan_formal_conjectures_import(co, None, curator="c")
    line = _line(plan, "FormalConjectures/ErdosProblems/9101.lean")
    assert line["status"] == "refused" and line["code"] == "import-malformed-lean"
    assert "unterminated" in line["detail"]
    assert not any(p.startswith("targets/erdos-9101") for p in plan.files)
    _others_untouched(plan)


@pytest.mark.parametrize("name", ["7$(exit 99).lean", "8 .lean", "-rf.lean", "ﬁ9.lean",
                                  "Erdos7.lean"])
def test_hostile_file_name_is_refused_unread(tmp_path: Path, name: str) -> None:
    co, _ = fc_checkout(tmp_path)
    _add_file(co, name, b"@[category research open]\ntheorem erdos_7 : True := by\n  sorry\n")
    plan = plan_formal_conjectures_import(co, None, curator="c")
    bad = [f for f in plan.report["files"] if f["status"] == "refused"]
    assert len(bad) == 1 and bad[0]["code"] in ("import-hostile-path", "import-problem-not-found")
    assert bad[0]["declarations"] == 0
    assert not any(p.startswith("targets/erdos-7") for p in plan.files)
    _others_untouched(plan)


def test_symlinked_problem_file_is_refused_unread(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    os.symlink("/etc/passwd", co / "FormalConjectures/ErdosProblems/9200.lean")
    commit_all(co, "link")
    plan = plan_formal_conjectures_import(co, None, curator="c")
    line = _line(plan, "FormalConjectures/ErdosProblems/9200.lean")
    assert line["status"] == "refused" and line["code"] == "import-hostile-path"
    assert not any("9200" in p for p in plan.files)
    _others_untouched(plan)


@pytest.mark.parametrize("coll", ["../etc", "FormalConjectures/../..", "/etc",
                                  "FormalConjectures/Wiki pedia", "FormalConjectures//x", ""])
def test_hostile_collection(tmp_path: Path, coll: str) -> None:
    co, _ = fc_checkout(tmp_path)
    with pytest.raises(LemmataError) as exc:
        plan_formal_conjectures_import(co, None, curator="c", collection=coll)
    assert exc.value.code == "import-hostile-path"


@pytest.mark.parametrize("pid", ["../../etc/passwd", "9001/../9002", "9001\n", "$(exit 99)"])
def test_hostile_problem_id(tmp_path: Path, pid: str) -> None:
    co, _ = fc_checkout(tmp_path)
    with pytest.raises(LemmataError) as exc:
        plan_formal_conjectures_import(co, None, problems=[pid], curator="c")
    assert exc.value.code == "import-hostile-path"


def test_missing_problem_and_not_a_checkout(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    with pytest.raises(LemmataError) as exc:
        plan_formal_conjectures_import(co, None, problems=["77"], curator="c")
    assert exc.value.code == "import-problem-not-found"
    plain = tmp_path / "plain"
    shutil.copytree(FIXTURES / "formal_conjectures", plain)
    with pytest.raises(LemmataError) as exc:
        plan_formal_conjectures_import(plain, None, curator="c")
    assert exc.value.code == "import-source-invalid"


def test_cli_writes_and_reports(tmp_path: Path) -> None:
    from network.cli import main

    co, _ = fc_checkout(tmp_path)
    g = graph_copy(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["import", "formal-conjectures", str(co), "--problem", "9002",
                               "--graph", str(g)])
    assert res.exit_code == 0, res.output
    assert (g / "targets/erdos-9002/nodes/root/Statement.lean").is_file()
    assert '"answer-question"' in res.output
    res = runner.invoke(main, ["import", "formal-conjectures", str(co), "--problem", "../x"])
    assert res.exit_code == 1 and "import-hostile-path" in res.output


def test_cli_collection_option(tmp_path: Path) -> None:
    from network.cli import main

    co, _ = fc_checkout(tmp_path)
    other = co / "FormalConjectures/Wikipedia"
    other.mkdir(parents=True)
    shutil.copy(co / "FormalConjectures/ErdosProblems/9005.lean", other / "Infinite_Primes.lean")
    commit_all(co, "a second collection")
    g = graph_copy(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["import", "formal-conjectures", str(co), "--graph", str(g),
                               "--collection", "FormalConjectures/Wikipedia"])
    assert res.exit_code == 0, res.output
    assert (g / "targets/wikipedia-infinite-primes/target.yaml").is_file()
    assert not (g / "targets/erdos-9005").exists()
    res = runner.invoke(main, ["import", "formal-conjectures", str(co), "--collection", "../.."])
    assert res.exit_code == 1 and "import-hostile-path" in res.output
    res = runner.invoke(main, ["import", "formal-conjectures", str(co), "--collection", "Nope"])
    assert res.exit_code == 1 and "import-source-invalid" in res.output


def test_unit_naming_rules() -> None:
    """Roots, parts, lettered statements, variants and collisions, on one small file."""
    from network.importers.formal_conjectures import classify, parse_problem_file

    src = """namespace Erdos7
@[category research open]
theorem erdos_7a : True := by sorry
@[category research open]
theorem erdos_7b : True := by sorry
@[category research solved]
theorem erdos_7a.variants.weak : True := by sorry
@[category research solved]
theorem erdos_7a.variants.Weak : True := by sorry
@[category research solved]
theorem erdos_7a.variants.weak' : True := by sorry
@[category research open]
theorem erdos_7.parts.i : True := by sorry
@[category research solved]
theorem erdos_7.variants.orphan : True := by sorry
@[category API]
lemma helper : True := by sorry
instance : Inhabited Nat := ⟨0⟩
end Erdos7
""".encode()
    pf = parse_problem_file("7", "FormalConjectures/ErdosProblems/7.lean", src)
    groups = classify(pf, include_test=False)
    got = {g[0].target: [s.node for s in g] for g in groups}
    assert set(got) == {"erdos-7-a", "erdos-7-b", "erdos-7-i", "erdos-7-orphan"}
    nodes = got["erdos-7-a"]
    assert nodes[:2] == ["root", "variant-weak"] and nodes[3] == "variant-weak-prime"
    assert nodes[2].startswith("variant-weak-") and len(set(nodes)) == 4  # case collision
    again = classify(parse_problem_file("7", "FormalConjectures/ErdosProblems/7.lean", src),
                     include_test=False)
    assert [[s.node for s in g] for g in again] == [[s.node for s in g] for g in groups]
    assert pf.decl_count == 9 and pf.defs[0].full_name == "<anonymous instance, line 18>"


def test_source_commit_of_a_snapshot(tmp_path: Path) -> None:
    """A snapshot committed into a scratch repository records the upstream commit."""
    co, head = fc_checkout(tmp_path)
    up = "488aade228ec37880b8fec178c173c07d279bb53"
    plan = plan_formal_conjectures_import(co, None, problems=["9001"], curator="c",
                                          source_commit=up, source_date="2026-08-22")
    assert plan.report["commit"] == up and plan.report["read_at"] == head
    target = yaml.safe_load(plan.files["targets/erdos-9001/target.yaml"])
    assert target["intake"]["provenance"]["commit"] == up and target["listed"] == "2026-08-22"
    assert f"/blob/{up}/" in plan.files["targets/erdos-9001/target.yaml"].decode()
    assert up.encode() in plan.files["targets/erdos-9001/gate-spec.json"]
    for bad in ({"source_commit": "HEAD"}, {"source_commit": up.upper()},
                {"source_date": "2026-13-01"}, {"source_date": "yesterday"}):
        with pytest.raises(LemmataError) as exc:
            plan_formal_conjectures_import(co, None, curator="c", **bad)
        assert exc.value.code == "import-source-invalid"


def test_hostile_names_inside_another_collection(tmp_path: Path) -> None:
    co, _ = fc_checkout(tmp_path)
    other = co / "FormalConjectures/Books"
    (other / "bad dir").mkdir(parents=True)
    body = (co / "FormalConjectures/ErdosProblems/9005.lean").read_bytes()
    (other / "bad dir/X.lean").write_bytes(body)
    (other / "$(x).lean").write_bytes(body)
    (other / "Good.lean").write_bytes(body)
    os.symlink("/etc/passwd", other / "Link.lean")
    commit_all(co, "books")
    plan = plan_formal_conjectures_import(co, None, curator="c", collection="FormalConjectures/Books")
    status = sorted((f["status"], f.get("code")) for f in plan.report["files"])
    assert status == [("imported", None)] + [("refused", "import-hostile-path")] * 3
    assert {p.split("/")[1] for p in plan.files} == {"books-good"}
