"""The toolchain adapter without Lean: MissingToolchain fails closed, detection, the
recorded stand-in, the pure builders (lakefile, lean-toolchain, manifest, Comparator
config) and the parsers of the checker programs' output (DESIGN.md "Lean", D-4)."""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from network.errors import CATALOG, LemmataError
from network.gate.lean import lean_toolchain as lt
from network.gate.lean import toolchain as tc
from network.gate.lean.detect import detect_toolchain
from network.gate.lean.toolchain import (
    MissingToolchain,
    TermRef,
    Toolchain,
    parse_checker_output,
    parse_lean_messages,
)
from network.gate.sandbox.sandbox import SandboxLayout, SandboxResult
from network.gate.sandbox.workspace import (
    comparator_config,
    lakefile_text,
    lean_toolchain_text,
    manifest_for,
    name_components,
    node_source,
    write_workspace,
)
from network.record.models import Caps, GateSpec

sys.path.insert(0, str(Path(__file__).parent))
from checker_channel import deliver
from standin import RecordedToolchain

REPO = Path(__file__).resolve().parents[1]
SOURCES = REPO / "tests" / "fixtures" / "toolchain" / "sources"
MATHLIB_REV = "5ed2965256430c3649e86755f9576b54eca72435"
AXIOMS = ["propext", "Classical.choice", "Quot.sound"]
S = "Lemmata.tutorial.tutorial.Statement"
P = "Lemmata.tutorial.tutorial.Proof"
W = "Lemmata.tutorial.tutorial.Witness"


def core_spec() -> GateSpec:
    return GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": "leanprover/lean4:v4.34.0"})


def mathlib_spec(**kw: Any) -> GateSpec:
    return GateSpec.model_validate({
        "schema": "gate-spec/v1", "lean_toolchain": "leanprover/lean4:v4.34.0",
        "mathlib": {"name": "mathlib", "url": "https://github.com/leanprover-community/mathlib4",
                    "rev": MATHLIB_REV}, **kw})


def tutorial_workspace(tmp_path: Path, proof: bytes | None = None) -> Any:
    data = {s: (SOURCES / f"{s}.lean").read_bytes() for s in ("Statement", "Proof", "Witness")}
    if proof is not None:
        data["Proof"] = proof
    return write_workspace(tmp_path / "ws", core_spec(),
                           [node_source("tutorial", "tutorial", s, b) for s, b in data.items()])


@dataclass
class FakeSandbox:
    """Returns canned stdout for each run and records the argv (no Lean, no bwrap)."""

    stdout: str
    rc: int = 0
    killed_by: Any = None
    calls: list[list[str]] = field(default_factory=list)

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *, cwd: Any = None,
            env: Any = None, stdin: bytes | None = None) -> SandboxResult:
        self.calls.append(list(argv))
        return SandboxResult(self.rc, deliver(argv, stdin, self.stdout), "", self.killed_by,
                             0.1, tuple(argv))


def all_methods(t: Any, ws: Any, sb: Any) -> list[Any]:
    caps = Caps()
    return [
        t.describe(),
        t.build(ws, [S], sb, caps),
        t.replay(ws, [P], sb, caps),
        t.check_statement(ws, S, P, ["Tutorial.double_lt"], AXIOMS, sb, caps),
        t.check_witness(ws, S, "Tutorial.double_lt", W, "Tutorial.double_lt.witness", AXIOMS,
                        sb, caps),
        t.used_constants(ws, P, ["Tutorial.double_lt"], sb, caps),
        t.extract_holes(ws, P, "Tutorial.double_lt", sb, caps),
        t.hazards(ws, S, ["Tutorial.double_lt"], ["nat-subtraction"], sb, caps),
        t.defeq(ws, TermRef(P, "Tutorial.double_lt", 1), TermRef(S, "Tutorial.double_lt"), sb,
                caps),
        t.check_relation(ws, "negation", TermRef(S, "Tutorial.double_lt"), None, P,
                         "Tutorial.double_lt.refutation", AXIOMS, sb, caps),
        t.join_relation(ws, "implies", TermRef(P, "Tutorial.double_lt"),
                        TermRef(P, "Tutorial.double_lt.relation"),
                        TermRef(S, "Tutorial.double_lt"), AXIOMS, sb, caps),
    ]


# --- catalog, interface ------------------------------------------------------------------


def test_codes_are_defined() -> None:
    for code in ("toolchain-missing", "toolchain-mismatch", "lean-build-failed",
                 "resource-cap-exceeded", "kernel-replay-failed", "statement-mismatch",
                 "axiom-not-permitted", "sorry-used", "native-code-used", "witness-failed",
                 "checker-output-malformed", "declaration-missing", "sandbox-unavailable"):
        assert code in CATALOG


def test_every_implementation_satisfies_the_protocol(tmp_path: Path) -> None:
    assert isinstance(MissingToolchain(core_spec()), Toolchain)
    assert isinstance(RecordedToolchain(core_spec()), Toolchain)
    assert isinstance(lt.LeanToolchain(core_spec(), tmp_path, tmp_path), Toolchain)
    proto = {n for n, _ in inspect.getmembers(Toolchain, inspect.isfunction)
             if not n.startswith("_")}
    assert len(proto) == 13  # outline: D-3 v3.30; olean_entries: issue 32
    for impl in (MissingToolchain, RecordedToolchain, lt.LeanToolchain):
        for name in proto:
            assert (inspect.signature(getattr(Toolchain, name)).parameters.keys()
                    == inspect.signature(getattr(impl, name)).parameters.keys()), (impl, name)


def test_result_invariant_ok_means_no_code() -> None:
    for cls in (tc.BuildResult, tc.ReplayResult, tc.CompareResult, tc.WitnessResult,
                tc.UsedConstantsResult, tc.HolesResult, tc.HazardsResult, tc.DefEqResult):
        assert "ok" in cls.__dataclass_fields__ and "code" in cls.__dataclass_fields__


# --- MissingToolchain ----------------------------------------------------------------------


def test_missing_toolchain_never_passes(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    results = all_methods(MissingToolchain(core_spec(), ("nowhere",)), ws, FakeSandbox(""))
    assert len(results) == 11
    for r in results:
        assert r.ok is False
        assert r.code == "toolchain-missing"


def test_missing_toolchain_never_touches_the_sandbox(tmp_path: Path) -> None:
    sb = FakeSandbox('{"checker": "x"}')
    all_methods(MissingToolchain(core_spec()), tutorial_workspace(tmp_path), sb)
    assert sb.calls == []


# --- detection -------------------------------------------------------------------------


def test_detection_with_empty_path_finds_nothing(tmp_path: Path) -> None:
    found = detect_toolchain(core_spec(), search_path="", elan_home=tmp_path / "elan")
    assert isinstance(found, MissingToolchain)
    assert found.describe().code == "toolchain-missing"


def _exe(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)


def test_detection_finds_an_elan_toolchain_for_the_pin(tmp_path: Path) -> None:
    bindir = tmp_path / "elan" / "toolchains" / "leanprover--lean4---v4.34.0" / "bin"
    _exe(bindir / "lean")
    _exe(bindir / "lake")
    found = detect_toolchain(core_spec(), search_path="", elan_home=tmp_path / "elan")
    assert isinstance(found, lt.LeanToolchain) and found.bindir == bindir


def test_detection_ignores_other_elan_toolchains(tmp_path: Path) -> None:
    bindir = tmp_path / "elan" / "toolchains" / "leanprover--lean4---v4.20.0" / "bin"
    _exe(bindir / "lean")
    _exe(bindir / "lake")
    assert isinstance(detect_toolchain(core_spec(), search_path="",
                                       elan_home=tmp_path / "elan"), MissingToolchain)


def test_detection_finds_lean_on_path(tmp_path: Path) -> None:
    _exe(tmp_path / "bin" / "lean")
    _exe(tmp_path / "bin" / "lake")
    found = detect_toolchain(core_spec(), search_path=str(tmp_path / "bin"),
                             elan_home=tmp_path / "none")
    assert isinstance(found, lt.LeanToolchain)


def test_describe_reports_a_version_mismatch(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    lean = tmp_path / "bin" / "lean"
    lean.write_text("#!/bin/sh\necho 'Lean (version 4.20.0, x86_64-unknown-linux-gnu, "
                    "commit 0123456789abcdef0123456789abcdef01234567, Release)'\n")
    lean.chmod(0o755)
    info = lt.LeanToolchain(core_spec(), tmp_path / "bin", tmp_path).describe()
    assert not info.ok and info.code == "toolchain-mismatch" and info.lean_version == "4.20.0"
    lean.write_text(lean.read_text().replace("4.20.0", "4.34.0"))
    info = lt.LeanToolchain(core_spec(), tmp_path / "bin", tmp_path).describe()
    assert info.ok and info.githash == "0123456789abcdef0123456789abcdef01234567"


def test_no_product_code_can_select_the_stand_in() -> None:
    for path in (REPO / "network").rglob("*.py"):
        text = path.read_text("utf-8")
        assert not re.search(r"(from|import)\s+(tests\b|standin)", text), path
        assert "RecordedToolchain" not in text, path
    for name in ("lean/toolchain.py", "lean/toolchain_results.py", "lean/lean_toolchain.py",
                 "lean/checker_reports.py", "sandbox/workspace.py"):
        text = (REPO / "network" / "gate" / name).read_text("utf-8")
        assert not re.search(r"os\.environ|getenv", text), name
    params = set(inspect.signature(detect_toolchain).parameters)
    assert params == {"spec", "search_path", "elan_home", "pins_root"}


# --- the recorded stand-in -----------------------------------------------------------------


def test_stand_in_replays_by_bytes(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    t = RecordedToolchain(core_spec())
    sb, caps = FakeSandbox(""), Caps()
    assert t.describe().ok
    build = t.build(ws, [S, P, W], sb, caps)
    assert build.ok and build.messages[0].severity == "warning"
    cmp = t.check_statement(ws, S, P, ["Tutorial.double_lt"], AXIOMS, sb, caps)
    assert cmp.ok and cmp.theorems[0].axioms == ("propext",)
    assert t.check_witness(ws, S, "Tutorial.double_lt", W, "Tutorial.double_lt.witness",
                           AXIOMS, sb, caps).ok
    assert sb.calls == []


def test_stand_in_refuses_unknown_bytes(tmp_path: Path) -> None:
    proof = (SOURCES / "Proof.lean").read_bytes().replace(b"omega", b"sorry")
    ws = tutorial_workspace(tmp_path, proof)
    results = all_methods(RecordedToolchain(core_spec()), ws, FakeSandbox(""))
    for r in results[1:]:
        assert not r.ok and r.code == "toolchain-missing"
        assert "no recording" in (getattr(r, "detail", "") or getattr(r, "log", ""))


def test_stand_in_refuses_a_byte_changed_on_disk(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    (ws.root / ws.source(P).path).write_bytes(b" " + ws.source(P).data)
    r = RecordedToolchain(core_spec()).check_statement(ws, S, P, ["Tutorial.double_lt"], AXIOMS,
                                                       FakeSandbox(""), Caps())
    assert not r.ok


def test_stand_in_refuses_unrecorded_arguments(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    r = RecordedToolchain(core_spec()).check_statement(
        ws, S, P, ["Tutorial.double_lt"], AXIOMS + ["sorryAx"], FakeSandbox(""), Caps())
    assert not r.ok and "no recording" in r.detail
    other = GateSpec.model_validate({"schema": "gate-spec/v1",
                                     "lean_toolchain": "leanprover/lean4:v4.35.0"})
    assert RecordedToolchain(other).describe().code == "toolchain-missing"


# --- pure builders ---------------------------------------------------------------------


def test_lean_toolchain_and_lakefile_for_a_mathlib_spec() -> None:
    spec = mathlib_spec()
    assert lean_toolchain_text(spec) == "leanprover/lean4:v4.34.0\n"
    text = lakefile_text(spec)
    assert 'name = "lemmata_gate"' in text
    assert ('[[require]]\nname = "mathlib"\n'
            'git = "https://github.com/leanprover-community/mathlib4"\n'
            f'rev = "{MATHLIB_REV}"') in text
    assert '[[lean_lib]]\nname = "Lemmata"\nglobs = ["Lemmata.+"]' in text
    assert "leanOptions" not in text and "moreLeanArgs" not in text
    assert "require" not in lakefile_text(core_spec())


def test_manifest_must_match_the_pins() -> None:
    spec = mathlib_spec()
    good = {"version": "1.1.0", "packages": [
        {"name": "mathlib", "rev": MATHLIB_REV, "type": "git",
         "url": "https://github.com/leanprover-community/mathlib4", "inputRev": "master"},
        {"name": "batteries", "rev": "a" * 40, "type": "git", "url": "https://x"}]}
    m = manifest_for(spec, good)
    assert m["packagesDir"] == ".lake/packages" and len(m["packages"]) == 2
    assert m["name"] == "lemmata_gate"
    bad = json.loads(json.dumps(good))
    bad["packages"][0]["rev"] = "b" * 40
    templates: list[dict[str, Any] | None] = [bad, None, {"packages": []}]
    for template in templates:
        with pytest.raises(LemmataError) as exc:
            manifest_for(spec, template)
        assert exc.value.code == "toolchain-mismatch"


def test_write_workspace_layout(tmp_path: Path) -> None:
    pins = tmp_path / "pins" / MATHLIB_REV
    (pins / ".lake" / "packages" / "mathlib").mkdir(parents=True)
    (pins / "lake-manifest.json").write_text(json.dumps({"packages": [
        {"name": "mathlib", "rev": MATHLIB_REV}]}))
    src = node_source("erdos-242", "root", "Statement", b"import Mathlib\n")
    ws = write_workspace(tmp_path / "ws", mathlib_spec(), [src], pins_root=tmp_path / "pins")
    assert src.module == "Lemmata.«erdos-242».root.Statement"
    assert (ws.root / "Lemmata/erdos-242/root/Statement.lean").read_bytes() == b"import Mathlib\n"
    assert (ws.root / ".lake/packages").resolve() == (pins / ".lake/packages").resolve()
    assert ws.pins_dir == pins
    assert json.loads((ws.root / "lake-manifest.json").read_text())["packages"][0]["rev"] \
        == MATHLIB_REV
    assert set(ws.input_files()) == {"lean-toolchain", "lakefile.toml",
                                     "Lemmata/erdos-242/root/Statement.lean"}


def test_write_workspace_refuses_hostile_paths(tmp_path: Path) -> None:
    from pathlib import PurePosixPath

    from network.gate.sandbox.workspace import Source
    with pytest.raises(LemmataError) as exc:
        write_workspace(tmp_path / "ws", core_spec(),
                        [Source("X", PurePosixPath("../evil.lean"), b"")])
    assert exc.value.code == "hostile-path"


def test_comparator_config() -> None:
    cfg = comparator_config(S, P, ["Tutorial.double_lt"], AXIOMS)
    assert cfg == {"challenge_module": S, "solution_module": P,
                   "theorem_names": ["Tutorial.double_lt"],
                   "permitted_axioms": ["propext", "Classical.choice", "Quot.sound"],
                   "enable_nanoda": False}
    assert comparator_config(S, P, ["t"], AXIOMS, "nanoda")["enable_nanoda"] is True


def test_name_components() -> None:
    assert name_components("Lemmata.«erdos-242».root.Statement") == [
        "Lemmata", "erdos-242", "root", "Statement"]
    assert name_components("Lean.ofReduceBool") == ["Lean", "ofReduceBool"]
    assert name_components("«a.b».c") == ["a.b", "c"]
    for bad in ("", "a..b", "a.", "«a", "a«b»"):
        with pytest.raises(ValueError):
            name_components(bad)


def test_native_axioms() -> None:
    assert lt.is_native_axiom("Lean.ofReduceBool")
    assert lt.is_native_axiom("Lean.trustCompiler")
    assert lt.is_native_axiom("Foo.bar._native.native_decide.ax_1_2")
    assert not lt.is_native_axiom("propext")
    assert not lt.is_native_axiom("Classical.choice")


# --- parsers ---------------------------------------------------------------------------


def test_parse_lean_messages() -> None:
    out = "\n".join([
        "✔ [3/4] Built Foo",
        json.dumps({"fileName": "A.lean", "pos": {"line": 3, "column": 8},
                    "endPos": {"line": 3, "column": 13}, "severity": "warning",
                    "data": "declaration uses 'sorry'", "caption": "", "kind": "hasSorry"}),
        json.dumps({"fileName": "A.lean", "pos": {"line": 5, "column": 0}, "endPos": None,
                    "severity": "bogus", "data": "x"}),
        "{not json",
    ])
    msgs = parse_lean_messages(out)
    assert len(msgs) == 2
    assert msgs[0].line == 3 and msgs[0].end_column == 13 and msgs[0].kind == "hasSorry"
    assert msgs[1].severity == "error" and msgs[1].end_line is None


def report(**kw: Any) -> str:
    return json.dumps({"checker": "CheckStatement", "version": 1, **kw})


def test_parse_checker_output_good_and_malformed() -> None:
    good = report(theorems=[])
    assert parse_checker_output(good + "\n", "CheckStatement")["theorems"] == []
    assert parse_checker_output("warning: something\n" + good, "CheckStatement")
    for bad in ("", "   \n", "not json", good + "\ntrailing", good + "\n" + good,
                "[1, 2]", json.dumps({"checker": "Hazards", "version": 1}),
                json.dumps({"checker": "CheckStatement", "version": 2}), good[:-1]):
        with pytest.raises(tc.CheckerOutputError):
            parse_checker_output(bad, "CheckStatement")


#: what CheckStatement reports for Lean's own propext (issue 10: module and identity key)
PROPEXT_INFO = [{"name": "propext", "module": "Init.Core",
                 "type_key": "|(P (S 0) (P (S 0) (P (A (A (C Iff []) #1) #0) "
                             "(A (A (A (C Eq [(s 0)]) (S 0)) #2) #1))))"}]


def row(**kw: Any) -> dict[str, Any]:
    base = {"name": "T.t", "found": True, "type_equal": True, "mismatched_constants": [],
            "axioms": ["propext"], "axiom_info": PROPEXT_INFO}
    return {**base, **kw}


@pytest.mark.parametrize("rows,code", [
    ([row()], None),
    ([row(found=False)], "declaration-missing"),
    ([row(type_equal=False)], "statement-mismatch"),
    ([row(mismatched_constants=["Lemmata.«t».Defs.f"])], "statement-mismatch"),
    ([row(axioms=["propext", "sorryAx"])], "sorry-used"),
    ([row(axioms=["Lean.ofReduceBool"])], "native-code-used"),
    ([row(axioms=["T._native.native_decide.ax_1"])], "native-code-used"),
    ([row(axioms=["my_axiom"])], "axiom-not-permitted"),
    ([row(), row(name="T.u", axioms=["sorryAx"])], "sorry-used"),
])
def test_compare_result_from_report(rows: list[dict[str, Any]], code: str | None) -> None:
    r = lt.compare_result_from_report({"theorems": rows}, AXIOMS)
    assert r.code == code and r.ok is (code is None)


def test_compare_result_rejects_malformed_reports() -> None:
    bads: list[dict[str, Any]] = [{}, {"theorems": []}, {"theorems": [{"name": "x"}]},
                                  {"theorems": [row(axioms="propext")]},
                                  {"theorems": [row(found="true")]}]
    for bad in bads:
        r = lt.compare_result_from_report(bad, AXIOMS)
        assert not r.ok and r.code in ("checker-output-malformed", "declaration-missing")


def test_other_report_converters() -> None:
    w = lt.witness_result_from_report({"found": True, "type_matches": True, "axioms": [],
                                       "expected_type": "∃ n, 2 < n"}, "w", AXIOMS)
    assert w.ok
    w = lt.witness_result_from_report({"found": True, "type_matches": True,
                                       "axioms": ["sorryAx"]}, "w", AXIOMS)
    assert not w.ok and w.code == "witness-failed"
    assert lt.witness_result_from_report({}, "w", AXIOMS).code == "checker-output-malformed"
    u = lt.used_constants_from_report({"constants": ["Lemmata.«t».root.Proof.x"],
                                       "modules": ["Lemmata.«t».root.Proof"]}, ["d"])
    assert u.ok and u.modules == ("Lemmata.«t».root.Proof",)
    assert lt.used_constants_from_report({"constants": [], "modules": [], "missing": ["d"]},
                                         ["d"]).code == "declaration-missing"
    h = lt.holes_from_report({"found": True, "holes": [{"index": 1, "name": "h1", "goal": "P",
                                                         "binders": [{"name": "n",
                                                                      "type": "ℕ"}],
                                                         "statement": "∀ n, P", "line": 4,
                                                         "column": 2}]}, "d")
    assert h.ok and h.holes[0].binders[0].name == "n" and h.holes[0].line == 4
    assert lt.holes_from_report({"found": False}, "d").code == "declaration-missing"
    z = lt.hazards_from_report({"findings": [
        {"checker": "nat-subtraction", "decl": "d", "location": "d: n - 1", "subterm": "n - 1",
         "message": "m"},
        {"checker": "junk-values", "decl": "d", "location": "d: Real.log x", "subterm": "x",
         "message": "m"}]}, ["nat-subtraction"])
    assert z.ok and z.code is None and [f.checker for f in z.findings] == ["nat-subtraction"]
    assert lt.defeq_from_report({"comparable": True, "defeq": True}).defeq is True
    assert lt.defeq_from_report({"comparable": False, "defeq": None}).comparable is False
    assert lt.defeq_from_report({"comparable": True}).code == "checker-output-malformed"


# --- the real adapter's plumbing, with a fake sandbox ------------------------------------


def test_real_adapter_runs_checkers_in_the_sandbox(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    bindir = tmp_path / "tc" / "bin"
    bindir.mkdir(parents=True)
    out = report(theorems=[row(name="Tutorial.double_lt")])
    sb = FakeSandbox("warning: linter\n" + out + "\n")
    r = lt.LeanToolchain(core_spec(), bindir, tmp_path).check_statement(
        ws, S, P, ["Tutorial.double_lt"], AXIOMS, sb, Caps())
    assert r.ok, r
    argv = sb.calls[0]
    assert argv[:3] == [str(bindir / "lake"), "env", "lean"] and "--run" in argv
    request = json.loads(Path(argv[-2]).read_text())
    assert request["statement_module"] == ["Lemmata", "tutorial", "tutorial", "Statement"]
    checker = Path(argv[-3]).read_text()
    assert checker.startswith("/-") and "namespace LemmataGate" in checker
    assert "def main" in checker and '"CheckStatement"' in checker


@pytest.mark.parametrize("stdout,rc,killed,code", [
    ("", 1, None, "checker-failed"),  # exited non-zero, no report: a gate fault
    (report(error="unknown constant"), 1, None, "checker-failed"),
    (report(theorems=[row()]), 0, "memory", "resource-cap-exceeded"),
    (report(theorems=[row()]) + "\n" + report(theorems=[row()]), 0, None,
     "checker-output-malformed"),
])
def test_real_adapter_fails_closed(tmp_path: Path, stdout: str, rc: int, killed: Any,
                                   code: str) -> None:
    ws = tutorial_workspace(tmp_path)
    sb = FakeSandbox(stdout, rc, killed)
    r = lt.LeanToolchain(core_spec(), tmp_path, tmp_path).check_statement(
        ws, S, P, ["Tutorial.double_lt"], AXIOMS, sb, Caps())
    assert not r.ok and r.code == code


def test_real_adapter_build_and_replay_commands(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    sb = FakeSandbox("", 1)
    t = lt.LeanToolchain(core_spec(), tmp_path / "bin", tmp_path)
    b = t.build(ws, [S, P], sb, Caps())
    assert not b.ok and b.code == "lean-build-failed"
    assert sb.calls[0][1:] == ["build", "Lemmata"]
    # no root module (issue 17): the library's glob `Lemmata.+` builds every source, and a
    # file importing `Lemmata` finds no such module (closed)
    assert not (ws.root / "Lemmata.lean").exists()
    assert 'globs = ["Lemmata.+"]' in (ws.root / "lakefile.toml").read_text()
    assert sb.calls[1][1:4] == ["env", "lean", "--json"]
    sb2 = FakeSandbox("", 0)
    rp = t.replay(ws, [P], sb2, Caps())
    assert sb2.calls[0][1:] == ["env", "leanchecker", "--fresh", P]
    # Lean's kernel accepted, but nanoda and lean4lean are not installed: never a pass
    assert not rp.ok and rp.code == "toolchain-missing" and rp.fresh
    assert [(k.name, k.verdict) for k in rp.kernels] == [("lean", "accept"), ("nanoda", "not-run")]
    tm = lt.LeanToolchain(mathlib_spec(), tmp_path / "bin", tmp_path)
    sb3 = FakeSandbox("", 1)
    rp = tm.replay(ws, [P], sb3, Caps())
    assert not rp.ok and "--fresh" not in sb3.calls[0]
    assert rp.kernels[0].verdict == "refuse"


@dataclass
class ExportingSandbox(FakeSandbox):
    """A fake sandbox that writes what lean4export's redirect would (the ``/bin/sh -c``
    run's output file) and refuses in the kernels named by ``refuse``."""

    refuse: tuple[str, ...] = ()

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: Caps, *, cwd: Any = None,
            env: Any = None, stdin: bytes | None = None) -> SandboxResult:
        self.calls.append(list(argv))
        if argv[0] == "/bin/sh":
            Path(argv[4]).write_text('{"meta": {}}\n')
            return SandboxResult(0, "", "", None, 0.1, tuple(argv))
        who = ("nanoda" if argv[0].endswith("nanoda_bin") else
               "lean4lean" if any(a.endswith("/lean4lean") for a in argv) else "lean")
        return SandboxResult(1 if who in self.refuse else 0, "", f"{who} said so", None, 0.1,
                             tuple(argv))


def installed_kernels(root: Path) -> None:
    from network.gate.lean.kernels import soundness_record
    tools = root / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    for name, binary in (("nanoda", "nanoda_bin"), ("lean4lean", "lean4lean"),
                         ("lean4export", "lean4export")):
        (tools / binary).write_text("#!/bin/sh\n")
        pin = soundness_record().pins.get(name)
        if pin is not None and pin.commit:
            (tools / f"{binary}.commit").write_text(pin.commit + "\n")


def test_real_adapter_runs_every_kernel_of_the_set(tmp_path: Path, monkeypatch: Any) -> None:
    """issue 37: leanchecker, then lean4export into the run's output folder and nanoda on
    it, then lean4lean; each verdict at the pinned commit; one refusal is not a pass."""
    from network.gate.lean import kernels as K
    from network.gate.lean.kernels import judge_kernels, kernel_set
    ws = tutorial_workspace(tmp_path)
    pins = tmp_path / "pins"
    installed_kernels(pins)
    (pins / "tools" / "lean4lean.commit").write_text("e" * 40 + "\n")
    spec = core_spec()
    t = lt.LeanToolchain(spec, tmp_path / "bin", pins)
    # a record that pins lean4lean too (the shipped one cannot yet)
    both = K.soundness_record().model_copy(update={"pins": {
        **K.soundness_record().pins,
        "lean4lean": K.KernelPin(repo="https://example.org/lean4lean", commit="d" * 40)}})
    monkeypatch.setattr(K, "soundness_record", lambda: both)
    sb = ExportingSandbox("")
    rp = t.replay(ws, [P], sb, Caps(), ["Tutorial.double_lt"])
    # lean4lean ran at a commit the record does not pin: never a pass
    assert judge_kernels(kernel_set(spec), rp.kernels)[0] == "kernel-set-incomplete"
    assert [k.verdict for k in rp.kernels] == ["accept", "accept", "accept"]
    assert sb.calls[0][1:] == ["env", "leanchecker", "--fresh", P]
    sh = sb.calls[1]
    # only the checked declaration and what it uses are exported (issue 37)
    assert sh[:2] == ["/bin/sh", "-c"] and sh[5:] == [
        str(tmp_path / "bin" / "lake"), "env", str(pins / "tools" / "lean4export"), P,
        "--", "Tutorial.double_lt"]
    assert sb.calls[2][0] == str(pins / "tools" / "nanoda_bin")
    config = json.loads(Path(sb.calls[2][1]).read_text())
    # nanoda type-checks; axioms are step 5's (an export always declares sorryAx)
    assert config["export_file_path"] == sh[4] and config["unsafe_permit_all_axioms"]
    assert not config["unpermitted_axiom_hard_error"] and config["nat_extension"]
    assert sb.calls[3][1:] == ["env", str(pins / "tools" / "lean4lean"), "--fresh", P]
    refusing = ExportingSandbox("", refuse=("nanoda",))
    rp = t.replay(ws, [P], refusing, Caps())
    assert not rp.ok
    # the shipped record's set (Lean's kernel and nanoda at its pinned commit)
    monkeypatch.undo()
    dflt = lt.LeanToolchain(core_spec(), tmp_path / "bin", pins)
    rp = dflt.replay(ws, [P], ExportingSandbox(""), Caps())
    assert rp.ok and judge_kernels(kernel_set(core_spec()), rp.kernels) == (None, "")
    rp = dflt.replay(ws, [P], ExportingSandbox("", refuse=("nanoda",)), Caps())
    assert judge_kernels(kernel_set(core_spec()), rp.kernels)[0] == "kernel-disagreement"
    # a kernel built at another commit than the pinned one never counts
    (pins / "tools" / "nanoda_bin.commit").write_text("f" * 40 + "\n")
    rp = dflt.replay(ws, [P], ExportingSandbox(""), Caps())
    assert judge_kernels(kernel_set(core_spec()), rp.kernels)[0] == "kernel-set-incomplete"


def test_comparator_missing_helpers_never_pass(tmp_path: Path) -> None:
    ws = tutorial_workspace(tmp_path)
    spec = mathlib_spec(kernel={"replay": "comparator", "second_kernel": "nanoda"})
    t = lt.LeanToolchain(spec, tmp_path / "bin", tmp_path)
    sb = FakeSandbox(report(theorems=[row(name="Tutorial.double_lt")]))
    r = t.check_statement(ws, S, P, ["Tutorial.double_lt"], AXIOMS, sb, Caps())
    assert not r.ok and r.code == "toolchain-missing"


def relation_report(**kw: Any) -> str:
    return json.dumps({"checker": "CheckRelation", "version": 1, **kw})


def test_real_adapter_check_relation_request_and_report(tmp_path: Path) -> None:
    """check_relation sends component names and the kind; Python judges the row (D-12 #2)."""
    ws = tutorial_workspace(tmp_path)
    sb = FakeSandbox(relation_report(expected_type="¬∀ n, P n", actual_type="¬∀ n, P n",
                                     detail="", theorems=[row(name="T.t.refutation")]))
    t = lt.LeanToolchain(core_spec(), tmp_path / "bin", tmp_path)
    r = t.check_relation(ws, "negation", TermRef(S, "T.t"), None, P, "T.t.refutation",
                         AXIOMS, sb, Caps())
    assert r.ok and r.theorems[0].name == "T.t.refutation"
    request = json.loads(Path(sb.calls[0][-2]).read_text())
    assert request == {"mode": "check", "kind": "negation",
                       "left": {"module": name_components(S), "decl": ["T", "t"]},
                       "right": None, "solution_module": name_components(P),
                       "theorem": ["T", "t", "refutation"]}
    assert '"CheckRelation"' in Path(sb.calls[0][-3]).read_text()
    bad = FakeSandbox(relation_report(expected_type="¬P", actual_type="P", detail="",
                                      theorems=[row(name="T.t.refutation", type_equal=False)]))
    r2 = t.check_relation(ws, "negation", TermRef(S, "T.t"), None, P, "T.t.refutation",
                          AXIOMS, bad, Caps())
    assert r2.code == "statement-mismatch" and "expected ¬P" in r2.detail
    j = FakeSandbox(relation_report(expected_type="P", actual_type=None, detail="",
                                    theorems=[row(name="LemmataGate.RelationJoin.join")]))
    r3 = t.join_relation(ws, "implies-not", TermRef(P, "V.v"), TermRef(P, "V.v.relation"),
                         TermRef(S, "T.t"), AXIOMS, j, Caps())
    assert r3.ok
    assert json.loads(Path(j.calls[0][-2]).read_text())["mode"] == "join"


@pytest.mark.parametrize("kind,left,right", [
    ("sideways", TermRef(S, "T.t"), None),
    ("implies", TermRef(S, "T.t"), None),
    ("negation", TermRef(P, "T.t", 1), None),
])
def test_real_adapter_refuses_bad_relation_requests_without_running(
        tmp_path: Path, kind: str, left: TermRef, right: TermRef | None) -> None:
    sb = FakeSandbox(relation_report(theorems=[row()]))
    t = lt.LeanToolchain(core_spec(), tmp_path / "bin", tmp_path)
    r = t.check_relation(tutorial_workspace(tmp_path), kind, left, right,  # type: ignore[arg-type]
                         P, "T.t.refutation", AXIOMS, sb, Caps())
    assert not r.ok and r.code == "checker-failed" and sb.calls == []


def test_relation_under_comparator_is_unsupported_never_a_pass(tmp_path: Path) -> None:
    import network.gate.run  # noqa: F401  (defines artifact-check-unsupported)
    spec = mathlib_spec(kernel={"replay": "comparator"})
    sb = FakeSandbox(relation_report(theorems=[row()]))
    r = lt.LeanToolchain(spec, tmp_path / "bin", tmp_path).check_relation(
        tutorial_workspace(tmp_path), "vacuity", TermRef(S, "T.t"), None, P, "T.t.vacuity",
        AXIOMS, sb, Caps())
    assert not r.ok and r.code == "artifact-check-unsupported" and sb.calls == []
    assert r.code in CATALOG


def test_checker_sources_exist_and_follow_the_contract() -> None:
    for name in lt.CHECKERS:
        src = lt.checker_source(name)
        assert src.count("import Lean") == 1 and src.lstrip().startswith("/-")
        assert re.search(rf'mainWith "{name}"', src), name
        code = re.sub(r"/-.*?-/", "", src, flags=re.DOTALL)
        code = "\n".join(ln.split("--")[0] for ln in code.splitlines())
        assert "enableInitializersExecution" not in code
        body = (REPO / "network/gate/lean" / f"{name}.lean").read_text()
        assert "import" not in [ln.split()[0] for ln in body.splitlines() if ln.strip()]
    with pytest.raises(ValueError):
        lt.checker_source("Evil")
