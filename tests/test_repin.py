"""Re-pin, the way out (issue 37): the drift report of network/gate/repin.py, the branch of
network/gate/repin_branch.py and ``lemmata target repin`` (network/cli_target.py).

The drift tests record the toolchain's declared answers with the scenarios' own recorder
(tests/gate_scenarios.py ``RecordingToolchain``, keyed exactly as the stand-in looks them
up) into a temporary folder, then run the report again on the recorded stand-in
(tests/standin.py ``RecordedToolchain``) replaying them. Every answer is what Lean would
answer for these bytes under the new pin, except where a test declares a drift on purpose.
The soundness record is a test record (the shipped one is network/gate/soundness/record.json).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import (
    P_AUX,
    P_BASE,
    R_STRONG,
    S_AUX,
    S_BASE,
    S_ROOT,
    S_STRONG,
    W_DATA,
    W_ROOT,
    RecordingToolchain,
    Scenario,
    identities,
    merge_recordings,
)
from standin import RecordedToolchain

from network.cli import main
from network.errors import LemmataError
from network.gate import repin_branch as rb
from network.gate.artifacts import Kind
from network.gate.lean import kernels as K
from network.gate.lean.kernels import SoundnessRecord
from network.gate.lean.toolchain import MissingToolchain, Toolchain
from network.gate.repin import DriftReport, drift_report, screen_checks
from network.gate.repin_spec import repin_problem
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from tests.graphs import NETWORK_COMMIT, GraphBuilder, git_commit

T = "demo"
ND = f"targets/{T}/nodes"
NEW = "leanprover/lean4:v4.34.0"  # the fix of the test record's bug: a sound pin
UNSOUND = "leanprover/lean4:v4.27.0"  # before it: unsound, as DEFAULT_TOOLCHAIN is
MATHLIB = "a3a10db0e9d66acbebf76c5e6a135066525ac900"
FC = "488aade228ec37880b8fec178c173c07d279bb53"
NEW_REV = "b" * 40

#: one published kernel bug (made up for the tests) that fools every kernel before v4.34.0
RECORD = SoundnessRecord.model_validate({
    "format": "lemmata-soundness-record/v1", "as_of": "2026-12-07", "checkers": {},
    "pins": {"nanoda": {"repo": "https://example.org/nanoda", "commit": "1" * 40},
             "lean4lean": {"repo": "https://example.org/lean4lean", "commit": "2" * 40}},
    "entries": [{"id": "test-kernel-bug", "kind": "kernel", "summary": "a test bug",
                 "sources": ["https://example.org/bug"],
                 "toolchains": {"fixed": ["v4.34.0"]},
                 "checkers": {"lean": "fooled", "nanoda": "fooled", "lean4lean": "fooled"}}]})

#: the layout the graph writes gate-spec.json in (graph/targets/*/gate-spec.json)
SPEC_TEXT = json.dumps({
    "schema": "gate-spec/v1", "lean_toolchain": UNSOUND,
    "mathlib": {"name": "mathlib", "url": "https://github.com/leanprover-community/mathlib4",
                "rev": MATHLIB},
    "packages": [{"name": "formal_conjectures",
                  "url": "https://github.com/google-deepmind/formal-conjectures", "rev": FC}],
    "axioms": ["propext", "Classical.choice", "Quot.sound"],
    "kernel": {"replay": "leanchecker"},
    "caps": {"cpu_s": 1800, "memory_mib": 8192, "wall_s": 600, "threads": 2},
}, indent=2) + "\n"


@pytest.fixture(autouse=True)
def _record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every known_unsound / kernel_set / pin_soundness of these tests reads RECORD."""
    monkeypatch.setattr(K, "soundness_record", lambda: RECORD)


#: the small graph's gate-spec unless a test gives one: no Mathlib, an unsound pin
PLAIN_SPEC = json.dumps({"schema": "gate-spec/v1", "lean_toolchain": UNSOUND}, indent=2) + "\n"


def small_graph(root: Path, *, spec: str = PLAIN_SPEC, witness_root: str = W_ROOT
                ) -> tuple[GraphBuilder, str]:
    """Target ``demo`` pinned by ``spec``: root (open), aux (proved), base-lemma (proved,
    its proof imports aux's) and strong (a resolves variant of root with its
    Relation.lean), committed."""
    b = GraphBuilder(root)
    b.base()
    b.target(T)
    b.write(f"targets/{T}/gate-spec.json", spec)
    b.node(T, "root", statement=S_ROOT, witness=witness_root, declaration="Demo.main")
    b.node(T, "aux", statement=S_AUX, witness=W_DATA.format(decl="Demo.aux"),
           declaration="Demo.aux", proof=P_AUX)
    b.node(T, "base-lemma", statement=S_BASE, witness=W_DATA.format(decl="Demo.base_lemma"),
           declaration="Demo.base_lemma", proof=P_BASE)
    b.node(T, "strong", statement=S_STRONG, witness=W_DATA.format(decl="Demo.strong"),
           declaration="Demo.strong", origin="variant",
           variant={"of": "root", "relation": "resolves"}, relation=R_STRONG)
    b.merge([f"{ND}/aux/Proof.lean"], artifact_kind="proof")
    b.merge([f"{ND}/base-lemma/Proof.lean"], artifact_kind="proof")
    return b, git_commit(b.root, "base")


def _theorems(args: dict[str, Any], **over: Any) -> dict[str, Any]:
    """A clean comparison: the declaration found, its type the statement's, propext only
    (simp and omega close these goals through propext)."""
    name = args["theorems"][0] if "theorems" in args else args["theorem"]
    row = {"name": name, "found": True, "type_equal": True, "axioms": ["propext"],
           "axiom_identities": identities(["propext"])}
    row.update(over)
    return {"ok": True, "code": None, "theorems": [row]}


WITNESS_TYPES = {"Demo.main": "∃ n, 2 < n", "Demo.aux": "∃ n, True",
                 "Demo.base_lemma": "∃ n, True", "Demo.strong": "∃ n, True"}


def clean_answers(**over: Any) -> dict[str, Any]:
    """What the new pin's Lean answers for the small graph: everything checks."""
    ans: dict[str, Any] = {
        "describe": {"ok": True, "code": None, "lean_version": "4.34.0"},
        "check_statement": _theorems,
        "check_relation": _theorems,
        "check_witness": lambda a: {"ok": True, "code": None,
                                    "expected_type": WITNESS_TYPES[a["decl"]],
                                    "witness_type": WITNESS_TYPES[a["decl"]], "axioms": [],
                                    "axiom_identities": []},
    }
    ans.update(over)
    return ans


def new_spec(b: GraphBuilder, **pins: Any) -> m.GateSpec:
    doc = json.loads(b.read(f"targets/{T}/gate-spec.json"))
    return m.GateSpec.model_validate({**doc, "lean_toolchain": NEW, **pins})


def recorded(tmp_path: Path, b: GraphBuilder, sha: str, spec: m.GateSpec,
             answers: dict[str, Any]) -> Callable[[m.GateSpec], Toolchain]:
    """Record ``answers`` by running the report once with the recorder, write them where
    the stand-in reads, and return the stand-in replaying them."""
    store: dict[str, dict[str, Any]] = {}
    scenario = Scenario("repin", {}, answers)
    drift_report(b.root, sha, T, spec, lambda s: RecordingToolchain(s, scenario, store),
                 Sandbox(), work_dir=tmp_path / "record-wd", record=RECORD)
    merge_recordings(store, tmp_path / "recordings")
    return lambda s: RecordedToolchain(s, fixtures=tmp_path / "recordings")


def statuses(report: DriftReport) -> dict[str, str]:
    """``"<node>/<file>"`` → the file's status."""
    return {f"{n.node}/{Path(f.path).name}": f.status for n in report.nodes for f in n.files}


# --- the drift report -----------------------------------------------------------------


def test_a_clean_repin_leaves_every_file_unchanged(tmp_path: Path) -> None:
    b, sha = small_graph(tmp_path / "g")
    spec = new_spec(b)
    stand_in = recorded(tmp_path, b, sha, spec, clean_answers())
    report = drift_report(b.root, sha, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    assert report.toolchain.status == "pass"
    assert statuses(report) == {
        "aux/Statement.lean": "unchanged", "aux/Witness.lean": "unchanged",
        "aux/Proof.lean": "unchanged", "base-lemma/Statement.lean": "unchanged",
        "base-lemma/Witness.lean": "unchanged", "base-lemma/Proof.lean": "unchanged",
        "root/Statement.lean": "unchanged", "root/Witness.lean": "unchanged",
        "strong/Statement.lean": "unchanged", "strong/Witness.lean": "unchanged",
        "strong/Relation.lean": "unchanged"}
    proof = next(f for n in report.nodes if n.node == "aux" for f in n.files
                 if f.path.endswith("Proof.lean"))
    assert [c.name for c in proof.checks] == ["screen", "build", "kernel-replay", "statement",
                                              "axioms"]
    relation = next(f for n in report.nodes if n.node == "strong" for f in n.files
                    if f.path.endswith("Relation.lean"))
    assert "relation" in [c.name for c in relation.checks]
    assert report.counts() == {"unchanged": 11, "drift": 0, "not-checked": 0}
    assert report.to_dict()["new"]["lean_toolchain"] == NEW
    assert report.to_dict()["old"]["lean_toolchain"] == UNSOUND
    assert json.loads(report.to_json())["counts"]["unchanged"] == 11
    assert "11 unchanged, 0 drift, 0 not checked" in report.to_markdown()


def test_a_statement_mismatch_under_the_new_pin_drifts_that_node_only(tmp_path: Path
                                                                       ) -> None:
    b, sha = small_graph(tmp_path / "g")
    spec = new_spec(b)

    def check_statement(args: dict[str, Any]) -> dict[str, Any]:
        if args["theorems"] == ["Demo.aux"]:  # a lemma aux's proof used changed meaning
            out = _theorems(args, type_equal=False)
            return {**out, "ok": False, "code": "statement-mismatch",
                    "detail": "Demo.aux's type differs from the statement's"}
        return _theorems(args)

    stand_in = recorded(tmp_path, b, sha, spec, clean_answers(check_statement=check_statement))
    report = drift_report(b.root, sha, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    assert {n.node: n.status for n in report.nodes} == {
        "aux": "drift", "base-lemma": "unchanged", "root": "unchanged",
        "strong": "unchanged"}
    got = statuses(report)
    assert got["aux/Proof.lean"] == "drift"
    assert got["aux/Statement.lean"] == got["aux/Witness.lean"] == "unchanged"
    proof = next(f for n in report.nodes if n.node == "aux" for f in n.files
                 if f.path.endswith("Proof.lean"))
    assert proof.first is not None and proof.first.code == "statement-mismatch"
    assert proof.to_dict()["code"] == "statement-mismatch"
    md = report.to_markdown()
    assert "| `aux` | `Proof.lean` | drift | `statement-mismatch` |" in md
    assert report.counts() == {"unchanged": 10, "drift": 1, "not-checked": 0}


def test_a_kernel_that_refuses_under_the_new_pin_is_drift(tmp_path: Path) -> None:
    """A replay where one of step 4's kernels refuses is ``kernel-disagreement``, as at
    the gate, never unchanged."""
    b, sha = small_graph(tmp_path / "g")
    spec = new_spec(b)

    def replay(args: dict[str, Any]) -> dict[str, Any]:
        refuse = args["modules"] == ["Lemmata.demo.aux.Proof"]
        kernels = [{"name": k.name, "version": k.version,
                    "verdict": "refuse" if refuse and k.name == "nanoda" else "accept",
                    "code": "kernel-replay-failed" if refuse and k.name == "nanoda" else None,
                    "detail": ""} for k in K.kernel_set(spec, RECORD)]
        return {"ok": not refuse, "code": "kernel-replay-failed" if refuse else None,
                "fresh": True, "kernels": kernels}

    stand_in = recorded(tmp_path, b, sha, spec, clean_answers(replay=replay))
    report = drift_report(b.root, sha, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    proof = next(f for n in report.nodes if n.node == "aux" for f in n.files
                 if f.path.endswith("Proof.lean"))
    assert proof.status == "drift"
    assert proof.first is not None and proof.first.code == "kernel-disagreement"
    assert statuses(report)["base-lemma/Proof.lean"] == "unchanged"


S_QUOT = "theorem Demo.quot (n m : Nat) : n / m ≤ n := by\n  sorry\n"
S_PRED = "theorem Demo.pred (n : Nat) : n - 1 ≤ n := by\n  sorry\n"


def test_a_new_hazard_drifts_the_statement_and_its_acknowledged_one_does_not(
        tmp_path: Path) -> None:
    """``quot`` divides by a variable and acknowledges nothing; ``pred`` subtracts in ℕ and
    acknowledged that at admission (D-4 step 6)."""
    b, _ = small_graph(tmp_path / "g")
    b.node(T, "quot", statement=S_QUOT,
           witness="theorem Demo.quot.witness : ∃ n m : Nat, True := ⟨0, 0, trivial⟩\n",
           declaration="Demo.quot")
    b.node(T, "pred", statement=S_PRED, witness=W_DATA.format(decl="Demo.pred"),
           declaration="Demo.pred",
           acknowledged_hazards=[{"checker": "nat-subtraction", "location": "Demo.pred: n - 1",
                                  "justification": "the truncation is intended"}])
    sha = git_commit(b.root, "two more statements")
    spec = new_spec(b)
    findings = {
        "Demo.quot": {"checker": "division-by-zero", "decl": "Demo.quot",
                      "location": "Demo.quot: n / m", "subterm": "n / m",
                      "proposition": "n / m ≤ n", "message": "m may be zero"},
        "Demo.pred": {"checker": "nat-subtraction", "decl": "Demo.pred",
                      "location": "Demo.pred:  n - 1", "subterm": "n - 1",
                      "proposition": "n - 1 ≤ n", "message": "ℕ subtraction truncates"}}

    def hazards(args: dict[str, Any]) -> dict[str, Any]:
        hit = findings.get(args["decls"][0])
        return {"ok": True, "code": None, "findings": [hit] if hit else []}

    witness_types = {**WITNESS_TYPES, "Demo.quot": "∃ n m, True", "Demo.pred": "∃ n, True"}
    stand_in = recorded(tmp_path, b, sha, spec, clean_answers(
        hazards=hazards,
        check_witness=lambda a: {"ok": True, "code": None,
                                 "expected_type": witness_types[a["decl"]],
                                 "witness_type": witness_types[a["decl"]], "axioms": [],
                                 "axiom_identities": []}))
    report = drift_report(b.root, sha, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    got = statuses(report)
    assert got["quot/Statement.lean"] == "drift"
    assert got["pred/Statement.lean"] == "unchanged"  # acknowledged at admission
    stmt = next(f for n in report.nodes if n.node == "quot" for f in n.files
                if f.path.endswith("Statement.lean"))
    assert stmt.first is not None and stmt.first.code == "hazard-found"
    assert got["root/Statement.lean"] == "unchanged"


def test_a_new_mathlib_without_prebuilt_packages_is_not_checked(tmp_path: Path) -> None:
    """The check workspace of a Mathlib pin needs its prebuilt packages; where the gate
    has none for the new revision, nothing is checked (``toolchain-mismatch``), never
    unchanged."""
    b, sha = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    spec = new_spec(b)
    stand_in = recorded(tmp_path, b, sha, spec, clean_answers())
    report = drift_report(b.root, sha, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    assert report.toolchain.status == "pass"
    assert set(statuses(report).values()) == {"not-checked"}
    assert {f.first.code for f in report.files if f.first} == {"toolchain-mismatch"}


def test_without_a_toolchain_nothing_is_unchanged_and_the_screens_still_run(
        tmp_path: Path) -> None:
    b, sha = small_graph(tmp_path / "g")
    report = drift_report(b.root, sha, T, new_spec(b), MissingToolchain, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    assert report.toolchain.code == "toolchain-missing"
    assert set(statuses(report).values()) == {"not-checked"}
    for f in report.files:
        assert f.first is not None and f.first.code == "toolchain-missing", f.path
        assert [c.name for c in f.checks] == ["screen", "toolchain"]
        assert f.checks[0].status == "pass"  # the static screen ran without Lean
    assert report.counts() == {"unchanged": 0, "drift": 0, "not-checked": 11}
    assert "**not checked** (`toolchain-missing`)" in report.to_markdown()


def test_a_static_finding_is_drift_even_without_a_toolchain(tmp_path: Path) -> None:
    b, sha = small_graph(tmp_path / "g",
                         witness_root=W_ROOT + "set_option debug.skipKernelTC true\n")
    report = drift_report(b.root, sha, T, new_spec(b), MissingToolchain, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    witness = next(f for n in report.nodes if n.node == "root" for f in n.files
                   if f.path.endswith("Witness.lean"))
    assert witness.status == "drift"
    assert witness.first is not None and witness.first.code == "forbidden-option"
    assert witness.checks[-1].code == "toolchain-missing"  # its Lean checks did not run
    assert statuses(report)["root/Statement.lean"] == "not-checked"


@pytest.mark.parametrize(("stem", "text", "code"), [
    ("Statement", "#eval IO.println 1\ntheorem x : True := trivial\n",
     "statement-command-refused"),
    ("Proof", "set_option debug.skipKernelTC true\ntheorem x : True := trivial\n",
     "forbidden-option"),
    ("Statement", "theorem x : answer(2) = 2 := by\n  sorry\n", "answer-restates-target"),
])
def test_the_static_screens_answer_without_lean(stem: str, text: str, code: str) -> None:
    checks = screen_checks(stem, text, f"{ND}/x/{stem}.lean")
    assert code in [c.code for c in checks if c.status == "drift"]
    assert screen_checks(stem, "theorem x : True := trivial\n", "p")[0].status == "pass"


def test_an_unknown_target_is_refused_by_the_report(tmp_path: Path) -> None:
    b, sha = small_graph(tmp_path / "g")
    with pytest.raises(LemmataError) as exc:
        drift_report(b.root, sha, "nope", new_spec(b), MissingToolchain, Sandbox(),
                     record=RECORD)
    assert exc.value.code == "repin-target-unknown"


def test_markdown_cells_cannot_break_the_table() -> None:
    from network.gate.repin import _cell

    assert _cell("a|b\n<script>`x`") == "a\\|b &lt;script&gt;'x'"


# --- the new gate-spec ----------------------------------------------------------------


def test_only_the_pins_change_and_the_layout_is_kept() -> None:
    path = f"targets/{T}/gate-spec.json"
    old_spec, spec, new = rb.repinned_bytes(path, SPEC_TEXT.encode(), NEW, NEW_REV,
                                            {"formal_conjectures": "c" * 40})
    assert old_spec.lean_toolchain == UNSOUND and spec.lean_toolchain == NEW
    assert spec.mathlib is not None and spec.mathlib.rev == NEW_REV
    expected = (SPEC_TEXT.replace(UNSOUND, NEW).replace(MATHLIB, NEW_REV)
                .replace(FC, "c" * 40))
    assert new.decode() == expected
    # a file without its final newline, and one with ASCII escapes, keep theirs
    bare = SPEC_TEXT.rstrip("\n").encode()
    assert rb.repinned_bytes(path, bare, NEW)[2] == bare.replace(UNSOUND.encode(),
                                                                 NEW.encode())


@pytest.mark.parametrize(("toolchain", "mathlib", "packages", "code"), [
    ("leanprover/lean4:v4.34.0\n", None, {}, "repin-pin-invalid"),
    ("leanprover/lean4:v4.34.0\nrev: x", None, {}, "repin-pin-invalid"),
    (" leanprover/lean4:v4.34.0", None, {}, "repin-pin-invalid"),
    ("leanprover/lean4:4.34.0", None, {}, "repin-pin-invalid"),
    ("evil/lean4:v4.34.0", None, {}, "repin-pin-invalid"),
    (NEW, "abc", {}, "repin-pin-invalid"),
    (NEW, "A" * 40, {}, "repin-pin-invalid"),
    (NEW, "a" * 41, {}, "repin-pin-invalid"),
    (NEW, "a" * 39 + "\n", {}, "repin-pin-invalid"),
    (NEW, None, {"formal_conjectures": "xyz"}, "repin-pin-invalid"),
    (NEW, None, {"no_such_package": "c" * 40}, "repin-pin-invalid"),
    (NEW, None, {"../x": "c" * 40}, "repin-pin-invalid"),
    (UNSOUND, None, {}, "repin-no-op"),
    (UNSOUND, MATHLIB, {"formal_conjectures": FC}, "repin-no-op"),
])
def test_a_bad_or_empty_pin_is_refused(toolchain: str, mathlib: str | None,
                                       packages: dict[str, str], code: str) -> None:
    with pytest.raises(LemmataError) as exc:
        rb.repinned_bytes(f"targets/{T}/gate-spec.json", SPEC_TEXT.encode(), toolchain,
                          mathlib, packages)
    assert exc.value.code == code


def test_mathlib_for_a_target_without_mathlib_is_refused() -> None:
    plain = b'{\n  "schema": "gate-spec/v1",\n  "lean_toolchain": "leanprover/lean4:v4.27.0"\n}\n'
    with pytest.raises(LemmataError) as exc:
        rb.repinned_bytes(f"targets/{T}/gate-spec.json", plain, NEW, NEW_REV)
    assert exc.value.code == "repin-pin-invalid"


@pytest.mark.parametrize("items", [["formal_conjectures"], ["a=" + "c" * 40, "a=" + "d" * 40],
                                   ["x=" + "c" * 40 + "\n"]])
def test_malformed_package_arguments_are_refused(items: list[str]) -> None:
    with pytest.raises(LemmataError) as exc:
        rb.parse_packages(items)
    assert exc.value.code == "repin-pin-invalid"


# --- the command ----------------------------------------------------------------------


def _refs(repo: pygit2.Repository) -> dict[str, str]:
    return {r: str(repo.references[r].target) for r in repo.references
            if r.startswith("refs/")}


def _snapshot(root: Path, *, git: bool = True) -> dict[str, bytes]:
    """Every file under ``root`` (``.git/`` too unless ``git`` is False)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and (git or ".git" not in p.relative_to(root).parts)}


def _repin(*args: str, toolchain: Callable[[m.GateSpec], Toolchain] | None = None,
           monkeypatch: pytest.MonkeyPatch) -> Any:
    """``lemmata target repin …`` with no Lean found (or ``toolchain``), its result."""
    from network.gate.lean import detect as tc_mod

    monkeypatch.setattr(tc_mod, "detect_toolchain", toolchain or MissingToolchain)
    return CliRunner().invoke(main, ["target", "repin", *args])


def test_the_command_writes_one_commit_on_a_new_branch_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b, sha = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    repo = pygit2.Repository(str(b.root))
    refs, files, head = _refs(repo), _snapshot(b.root, git=False), repo.head.name
    index = (b.root / ".git" / "index").read_bytes()
    res = _repin(T, "--toolchain", NEW, "--mathlib", NEW_REV, "--graph", str(b.root),
                 monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    branch = f"refs/heads/repin/{T}-v4.34.0"
    after = _refs(repo)
    assert {r: t for r, t in after.items() if r != branch} == refs  # main untouched
    assert repo.head.name == head and str(repo.head.target) == sha
    assert _snapshot(b.root, git=False) == files and repo.status() == {}  # work tree
    assert (b.root / ".git" / "index").read_bytes() == index  # and index untouched
    commit = repo[after[branch]].peel(pygit2.Commit)
    assert [str(p) for p in commit.parent_ids] == [sha]
    diff = repo.diff(repo[sha].peel(pygit2.Commit).tree, commit.tree)
    assert [d.delta.new_file.path for d in diff] == [f"targets/{T}/gate-spec.json"]
    new = bytes(repo[commit.tree[f"targets/{T}/gate-spec.json"].id].data).decode()
    assert new == SPEC_TEXT.replace(UNSOUND, NEW).replace(MATHLIB, NEW_REV)
    assert "Drift report: `demo`" in res.output and "toolchain-missing" in res.output
    assert f"repin/{T}-v4.34.0" in res.output
    assert "No published kernel bug fools every kernel" in res.output


def test_a_graph_folder_inside_a_work_tree_gets_its_own_path_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    b, _ = small_graph(project / "graph", spec=SPEC_TEXT)
    (b.root / ".git").rename(tmp_path / "unused.git")  # the graph is a folder of project
    (project / "README.md").write_text("the project\n")
    sha = git_commit(project, "project")
    res = _repin(T, "--toolchain", NEW, "--graph", str(project / "graph"), "--json",
                 monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    repo = pygit2.Repository(str(project))
    commit = repo[out["commit"]].peel(pygit2.Commit)
    diff = repo.diff(repo[sha].peel(pygit2.Commit).tree, commit.tree)
    assert [d.delta.new_file.path for d in diff] == [f"graph/targets/{T}/gate-spec.json"]
    assert out["branch"] == f"repin/{T}-v4.34.0" and out["pull_request"] is None
    assert out["drift"]["counts"]["not-checked"] == 11


def test_with_a_forge_the_pull_request_is_opened_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.orm import sessionmaker

    from network.api import db
    from network.forge.local import LocalForge

    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    data = tmp_path / "data"
    main_sha = LocalForge.seed(data / "forge.git", b.root, when=1_790_000_000)
    res = _repin(T, "--toolchain", NEW, "--data", str(data), monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    engine = db.make_engine(f"sqlite:///{data / 'state.db'}")
    forge = LocalForge(data / "forge.git", sessionmaker(engine))
    [pr] = forge.list_open()
    assert forge.main_sha() == main_sha and pr.base_sha == main_sha
    assert pr.title == f"Re-pin {T} to {NEW}"
    assert "Drift report: `demo`" in pr.body and "## The new pin's soundness" in pr.body
    branch = forge.repo.references[f"refs/heads/repin/{T}-v4.34.0"]
    assert str(branch.target) == pr.head_sha
    assert f"pull request #{pr.number}" in res.output


def test_the_dry_run_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    repo = pygit2.Repository(str(b.root))
    refs = _refs(repo)
    res = _repin(T, "--toolchain", NEW, "--graph", str(b.root), "--dry-run",
                 monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    assert _refs(repo) == refs and "dry run" in res.output


def test_the_dry_run_on_a_forge_writes_nothing_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.forge.local import LocalForge

    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    data = tmp_path / "data"
    LocalForge.seed(data / "forge.git", b.root, when=1_790_000_000)
    files = _snapshot(data)
    res = _repin(T, "--toolchain", NEW, "--data", str(data), "--dry-run", "--json",
                 monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["written"] is False
    assert _snapshot(data) == files  # no ref, no object, no database


def test_the_command_drift_report_uses_the_new_pins_toolchain(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b, sha = small_graph(tmp_path / "g")
    spec = new_spec(b)
    stand_in = recorded(tmp_path, b, sha, spec, clean_answers())
    res = _repin(T, "--toolchain", NEW, "--graph", str(b.root), "--json",
                 toolchain=stand_in, monkeypatch=monkeypatch)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["drift"]["counts"] == {"unchanged": 11, "drift": 0,
                                                         "not-checked": 0}


@pytest.mark.parametrize(("args", "code"), [
    (["nope", "--toolchain", NEW], "repin-target-unknown"),
    ([T, "--toolchain", "leanprover/lean4:v4.34"], "repin-pin-invalid"),
    ([T, "--toolchain", "leanprover/lean4:v4.34.0\n"], "repin-pin-invalid"),
    ([T, "--toolchain", NEW, "--mathlib", "0123"], "repin-pin-invalid"),
    ([T, "--toolchain", NEW, "--mathlib", MATHLIB.upper()], "repin-pin-invalid"),
    ([T, "--toolchain", NEW, "--package", "formal_conjectures=" + FC + ";rm"],
     "repin-pin-invalid"),
    ([T, "--toolchain", UNSOUND], "repin-no-op"),
    ([T, "--toolchain", "leanprover/lean4:v4.33.9"], "repin-known-unsound"),
    (["../x", "--toolchain", NEW], "bad-target-id"),
    (["a/b", "--toolchain", NEW], "bad-target-id"),
    (["$(exit 99)", "--toolchain", NEW], "bad-target-id"),
    (["demo\n", "--toolchain", NEW], "bad-target-id"),
])
def test_refusals_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                args: list[str], code: str) -> None:
    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    repo = pygit2.Repository(str(b.root))
    refs, files = _refs(repo), _snapshot(b.root)
    res = _repin(*args, "--graph", str(b.root), monkeypatch=monkeypatch)
    assert res.exit_code == 1, res.output
    assert f"error: {code}: " in res.output
    assert _refs(repo) == refs and _snapshot(b.root) == files


def test_the_known_unsound_refusal_names_the_bugs(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    res = _repin(T, "--toolchain", "leanprover/lean4:v4.30.0", "--graph", str(b.root),
                 monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert "repin-known-unsound" in res.output and "test-kernel-bug" in res.output


def test_a_second_repin_to_the_same_pin_finds_its_branch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    first = _repin(T, "--toolchain", NEW, "--graph", str(b.root), monkeypatch=monkeypatch)
    assert first.exit_code == 0, first.output
    again = _repin(T, "--toolchain", NEW, "--graph", str(b.root), monkeypatch=monkeypatch)
    assert again.exit_code == 1 and "repin-branch-exists" in again.output


def test_write_branch_refuses_a_branch_that_appeared_meanwhile(tmp_path: Path) -> None:
    b, sha = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    graph = rb.open_graph_repo(b.root)
    plan = rb.plan_repin(graph, sha, T, NEW, record=RECORD)
    graph.repo.references.create(plan.branch, pygit2.Oid(hex=sha))
    with pytest.raises(LemmataError) as exc:
        rb.write_branch(graph, plan)
    assert exc.value.code == "repin-branch-exists"
    assert str(graph.repo.references[plan.branch].target) == sha  # not moved


def test_a_forge_that_refuses_the_pull_request_leaves_no_branch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.forge.local import LocalForge

    b, _ = small_graph(tmp_path / "g", spec=SPEC_TEXT)
    data = tmp_path / "data"
    LocalForge.seed(data / "forge.git", b.root, when=1_790_000_000)

    def refuse(self: LocalForge, *a: Any, **k: Any) -> Any:
        raise LemmataError("git-error", "the forge is down")

    monkeypatch.setattr(LocalForge, "open_from_commit", refuse)
    res = _repin(T, "--toolchain", NEW, "--data", str(data), monkeypatch=monkeypatch)
    assert res.exit_code == 1 and "git-error" in res.output
    repo = pygit2.Repository(str(data / "forge.git"))
    assert [r for r in repo.references if r.startswith("refs/heads/repin/")] == []


def test_a_data_directory_without_a_forge_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = _repin(T, "--toolchain", NEW, "--data", str(tmp_path / "empty"),
                 monkeypatch=monkeypatch)
    assert res.exit_code == 1 and "network-state-missing" in res.output
    assert not (tmp_path / "empty").exists()


# --- the gate judging a re-pin pull request (issue 37) ----------------------------------

#: the small graph's gate-spec as the gate judges it: the network commit pinned
GATED_SPEC = json.dumps({"schema": "gate-spec/v1", "lean_toolchain": UNSOUND,
                         "network_commit": NETWORK_COMMIT}, indent=2) + "\n"
SPEC_PATH = f"targets/{T}/gate-spec.json"


def repin_pr(tmp_path: Path, toolchain: str = NEW, *, edit: Callable[[dict[str, Any]], None]
             | None = None, extra: dict[str, str] | None = None
             ) -> tuple[GraphBuilder, str, str, m.GateSpec]:
    """The small graph (network commit pinned) at ``base``, and a head commit re-pinning
    ``demo`` to ``toolchain`` as ``lemmata target repin`` writes it (``edit`` changes the
    new document further; ``extra`` adds files beside it)."""
    b, base = small_graph(tmp_path / "g", spec=GATED_SPEC)
    old = GATED_SPEC.encode()
    if edit is None:
        _old, new_spec, new = rb.repinned_bytes(SPEC_PATH, old, toolchain)
    else:
        doc = json.loads(old)
        doc["lean_toolchain"] = toolchain
        edit(doc)
        new = (json.dumps(doc, indent=2) + "\n").encode()
        new_spec = m.GateSpec.model_validate(doc)
    b.write(SPEC_PATH, new)
    for path, text in (extra or {}).items():
        b.write(path, text)
    head = git_commit(b.root, "re-pin")
    return b, base, head, new_spec


def gate(tmp_path: Path, b: GraphBuilder, base: str, head: str, toolchain: Any,
         submitter: str = "curator") -> Any:
    return run_gate(b.root, base, head, toolchain=toolchain, sandbox=Sandbox(),
                    submitter=submitter, work_dir=tmp_path / "gate-wd")


def refusals(outcome: Any) -> dict[int, set[str]]:
    """step → the catalog codes it refused with, over every run."""
    out: dict[int, set[str]] = {}
    for run in outcome.runs:
        for st in run.steps:
            if not st.ok:
                out.setdefault(st.step, set()).update(d.code for d in st.diagnostics)
    return out


def test_a_curators_clean_repin_passes_the_gate(tmp_path: Path) -> None:
    """Issue 37: a re-pin pull request is an artifact the gate judges. A curator's re-pin
    to a sound pin, under which every merged file of the target answers as it did (the
    recorded stand-in replays the new pin's answers), passes: steps 2, 1 and 4, one
    attestation of kind ``repin``."""
    b, base, head, spec = repin_pr(tmp_path)
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "pass", refusals(out)
    (run,) = out.runs
    assert run.artifact.kind is Kind.REPIN and run.artifact.main == SPEC_PATH
    assert [st.step for st in run.steps] == [2, 1, 4]
    assert run.attestation is not None and run.attestation.artifact_kind == "repin"


def test_a_repin_under_which_a_merged_file_drifts_is_refused_naming_it(tmp_path: Path
                                                                     ) -> None:
    """Removing the drift check (judging only the pin) would pass this: aux's merged proof
    no longer proves its statement under the new pin, so step 4 refuses with
    ``repin-drift`` naming aux/Proof.lean (D-9 Detail: checks re-run when the pin moves)."""
    b, base, head, spec = repin_pr(tmp_path)

    def check_statement(args: dict[str, Any]) -> dict[str, Any]:
        if args["theorems"] == ["Demo.aux"]:
            out = _theorems(args, type_equal=False)
            return {**out, "ok": False, "code": "statement-mismatch",
                    "detail": "Demo.aux's type differs from the statement's"}
        return _theorems(args)

    stand_in = recorded(tmp_path, b, base, spec, clean_answers(check_statement=check_statement))
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "fail"
    step4 = out.runs[0].first_failing
    assert step4 is not None and step4.step == 4
    (diag,) = step4.diagnostics
    assert diag.code == "repin-drift" and diag.path == f"{ND}/aux/Proof.lean"
    assert "statement-mismatch" in diag.message


def test_a_repin_without_a_toolchain_never_passes(tmp_path: Path) -> None:
    b, base, head, _spec = repin_pr(tmp_path)
    out = gate(tmp_path, b, base, head, MissingToolchain)
    assert out.verdict == "fail"
    assert refusals(out) == {1: {"toolchain-missing"}}


def test_a_repin_to_a_known_unsound_pin_is_refused(tmp_path: Path) -> None:
    """The new pin is judged by the soundness record as any pin is: v4.30.0 is before the
    test record's fix."""
    b, base, head, _spec = repin_pr(tmp_path, "leanprover/lean4:v4.30.0")
    out = gate(tmp_path, b, base, head, MissingToolchain)
    assert out.verdict == "fail"
    assert "toolchain-known-unsound" in refusals(out)[4]


def test_only_a_curator_may_repin(tmp_path: Path) -> None:
    b, base, head, spec = repin_pr(tmp_path)
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in, submitter="steve")  # the steward
    assert out.verdict == "fail"
    assert refusals(out)[2] == {"role-not-permitted"}


def test_a_gate_spec_change_beyond_the_pins_is_not_a_repin(tmp_path: Path) -> None:
    """Widening the axiom list rides on no re-pin: the change is ``path-not-permitted``
    naming the field, and no repin artifact is judged."""
    b, base, head, _spec = repin_pr(
        tmp_path, edit=lambda d: d.update(axioms=["propext", "Classical.choice",
                                                 "Quot.sound", "sorryAx"]))
    out = gate(tmp_path, b, base, head, MissingToolchain)
    assert out.verdict == "fail"
    assert all(r.artifact.kind is not Kind.REPIN for r in out.runs)
    diags = [d for r in out.runs for st in r.steps for d in st.diagnostics]
    assert any(d.code == "path-not-permitted" and "axioms" in d.message for d in diags)


def test_a_repin_carrying_another_file_is_refused(tmp_path: Path) -> None:
    b, base, head, spec = repin_pr(
        tmp_path, extra={f"{ND}/root/literature/2026-01-02T00-00-00Z-curator.yaml": "x: 1\n"})
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "fail"
    assert "repin-not-alone" in refusals(out)[2]


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda d: None, None),
    (lambda d: d.update(lean_toolchain=UNSOUND), "changes no pin"),
    (lambda d: d.update(network_commit="c" * 40), "network_commit"),
    (lambda d: d["mathlib"].update(url="https://example.org/mathlib"), "name or URL"),
    (lambda d: d["packages"][0].update(name="other"), "name or URL"),
    (lambda d: d.update(packages=[]), "name or URL"),
    (lambda d: d["mathlib"].update(rev="c" * 40), None),
    (lambda d: d["packages"][0].update(rev="d" * 40), None),
    (lambda d: d.update(caps={"cpu_s": 1, "memory_mib": 1, "wall_s": 1, "threads": 1}),
     "caps"),
])
def test_what_counts_as_a_repin(edit: Callable[[dict[str, Any]], None],
                                problem: str | None) -> None:
    """Only the toolchain, Mathlib's revision and the packages' revisions may move (issue
    37); the same packages in the same order, and a change of at least one pin."""
    old = SPEC_TEXT.encode()
    doc = json.loads(old)
    doc["lean_toolchain"] = NEW
    edit(doc)
    got = repin_problem(SPEC_PATH, old, (json.dumps(doc, indent=2) + "\n").encode())
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got, got


def test_an_invalid_new_gate_spec_is_not_a_repin() -> None:
    got = repin_problem(SPEC_PATH, SPEC_TEXT.encode(), b'{"schema": "gate-spec/v1"}')
    assert got is not None and "not a valid gate-spec/v1" in got
