"""Outlines of merged proofs (D-3 v3.30): the adapter's call, the report's reading, the
post-merge product, get_node's section, the node page's block, and what happens without a
toolchain. The Lean side (network/gate/lean/Outline.lean) is audited against Lean by
tests/test_recordings_audit.py on the hand-declared sample of
tests/fixtures/toolchain/sources/outline/."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from outline_sample import declared, outline_spec, outline_workspace
from standin import RecordedToolchain

from network.gate import lean_toolchain as lt
from network.gate.diff import diff_commits
from network.gate.outline import outline_path, outline_record, step_lean
from network.gate.sandbox import SandboxLayout, SandboxResult
from network.gate.step2 import run_steps_1_2
from network.gate.toolchain import (
    MissingToolchain,
    OutlineResult,
    OutlineStep,
    Toolchain,
)
from network.gate.workspace import Workspace
from network.record import models as m
from network.record.loader import load_graph
from tests.api_support import Api, make_api
from tests.graphs import GraphBuilder, git_commit

HAVE_MOD = "Lemmata.calib.havestep.Proof"
HAVE_DECL = "Calib.add_zero_have"
HAVE_TEXT = (Path(__file__).parent / "fixtures" / "toolchain" / "sources" / "outline"
             / "HaveStep.lean").read_text("utf-8")
CAPS = m.Caps(wall_s=60, memory_mib=1024)

#: Outline.lean's report for HaveStep.lean, in the checker's own JSON shape (the declared
#: sample answer with the checker's vouching fields)
HAVE_REPORT: dict[str, Any] = {
    "checker": "Outline", "version": 1, "missing": [], "term_matches": True,
    "steps": [{"kind": "have", "name": "h", "line": 2, "column": 2, "end_line": 2,
               "end_column": 38, "lean_only": False, "in_kernel_term": True,
               "reads_back": True, "claim": "n + 0 = n", "goal": "n + 0 = n",
               "constants": ["Nat.add_zero", "Eq", "Nat", "HAdd.hAdd", "instHAdd",
                             "instAddNat", "OfNat.ofNat", "instOfNatNat"],
               "automation": []}]}


class FakeSandbox:
    """Captures each sandboxed command and answers with a canned checker report."""

    def __init__(self, stdout: str, rc: int = 0) -> None:
        self.stdout, self.rc = stdout, rc
        self.calls: list[tuple[list[str], SandboxLayout, dict[str, str]]] = []
        self.inputs: dict[str, str] = {}

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: m.Caps, *,
            cwd: Path | None = None, env: Mapping[str, str] | None = None) -> SandboxResult:
        self.calls.append((list(argv), layout, dict(env or {})))
        for a in argv[-2:]:
            p = Path(a)
            if p.is_file():
                self.inputs[p.name] = p.read_text("utf-8")
        return SandboxResult(self.rc, self.stdout, "", None, 0.1, tuple(argv))


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return outline_workspace(tmp_path / "ws")


# --- the adapter's call --------------------------------------------------------------------


def test_the_adapter_runs_outline_lean_on_the_module_its_declarations_and_its_source(
        tmp_path: Path, ws: Workspace) -> None:
    tc = lt.LeanToolchain(outline_spec(), bindir=tmp_path / "bin", pins_root=tmp_path / "pins")
    sb = FakeSandbox(json.dumps(HAVE_REPORT))
    res = tc.outline(ws, HAVE_MOD, [HAVE_DECL], sb, CAPS)
    [(argv, layout, env)] = sb.calls
    assert argv[:5] == [str(tmp_path / "bin" / "lake"), "env", "lean", f"-j{CAPS.threads}",
                        "--run"]
    assert argv[5].endswith("/Outline.lean") and argv[6].endswith("/Outline.json")
    assert json.loads(sb.inputs["Outline.json"]) == {
        "module": ["Lemmata", "calib", "havestep", "Proof"],
        "decls": [["Calib", "add_zero_have"]],
        "source": str(ws.source(HAVE_MOD).path)}
    assert sb.inputs["Outline.lean"] == lt.checker_source("Outline")
    assert "def runOutline" in sb.inputs["Outline.lean"]
    assert "def mainWith" in sb.inputs["Outline.lean"]  # Common.lean comes first
    # a check run: the workspace is read-only, a fresh output folder the only writable place
    assert ws.root in layout.read_only and layout.scratch != ws.root
    assert env["LEAN_ABORT_ON_PANIC"] == "1"
    assert res.ok and res.code is None and res.module == HAVE_MOD
    [st] = res.steps
    assert (st.kind, st.name, st.claim, st.goal, st.lean_only) == (
        "have", "h", "n + 0 = n", "n + 0 = n", False)
    assert st.constants == tuple(sorted(HAVE_REPORT["steps"][0]["constants"]))


def test_a_scratch_workspace_is_refused_by_the_adapter(tmp_path: Path) -> None:
    from network.gate.workspace import node_source, write_workspace

    scratch = write_workspace(tmp_path / "s", outline_spec(),
                              [node_source("calib", "havestep", "Proof", HAVE_TEXT.encode())],
                              role="scratch")
    tc = lt.LeanToolchain(outline_spec(), bindir=tmp_path / "bin", pins_root=tmp_path)
    with pytest.raises(ValueError):
        tc.outline(scratch, HAVE_MOD, [HAVE_DECL], FakeSandbox("{}"), CAPS)


@pytest.mark.parametrize(("stdout", "rc", "code"), [
    ("", 0, "checker-output-malformed"),
    (json.dumps({"checker": "Outline", "version": 1, "error": "unknown module"}), 1,
     "checker-failed"),
    (json.dumps({**HAVE_REPORT, "steps": "all fine"}), 0, "checker-output-malformed"),
])
def test_a_checker_that_did_not_answer_gives_no_outline(tmp_path: Path, ws: Workspace,
                                                         stdout: str, rc: int,
                                                         code: str) -> None:
    tc = lt.LeanToolchain(outline_spec(), bindir=tmp_path / "bin", pins_root=tmp_path)
    res = tc.outline(ws, HAVE_MOD, [HAVE_DECL], FakeSandbox(stdout, rc), CAPS)
    assert (res.ok, res.code, res.steps) == (False, code, ())


# --- reading the report: nothing the checker did not vouch for -------------------------------


def _step(**over: Any) -> dict[str, Any]:
    return {**HAVE_REPORT["steps"][0], **over}


@pytest.mark.parametrize("forged", [
    {"in_kernel_term": False},  # the claim is not in the kernel-checked term
    {"reads_back": False},  # its printing does not read back as the same Lean
    {"lean_only": True},  # the checker itself said Lean only
    {"in_kernel_term": "yes"},  # anything but true is not a vouch
])
def test_a_claim_the_checker_did_not_vouch_for_is_shown_as_lean_only(
        forged: dict[str, Any]) -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "steps": [_step(**forged)]}, HAVE_MOD,
                                 [HAVE_DECL])
    assert res.ok
    [st] = res.steps
    assert st.lean_only and (st.claim, st.goal, st.name, st.constants, st.automation) == (
        None, None, None, (), ())
    assert (st.line, st.column, st.end_line, st.end_column) == (2, 2, 2, 38)


def test_a_re_elaboration_that_differs_from_the_compiled_term_shows_nothing() -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "term_matches": False}, HAVE_MOD, [HAVE_DECL])
    assert (res.ok, res.code, res.steps) == (False, "checker-failed", ())


def test_a_missing_declaration_or_a_strange_step_is_refused() -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "missing": [HAVE_DECL]}, HAVE_MOD,
                                 [HAVE_DECL])
    assert (res.ok, res.code) == (False, "declaration-missing")
    res = lt.outline_from_report({**HAVE_REPORT, "steps": [_step(kind="simp")]}, HAVE_MOD,
                                 [HAVE_DECL])
    assert (res.ok, res.code) == (False, "checker-output-malformed")
    res = lt.outline_from_report({**HAVE_REPORT, "term_matches": "true"}, HAVE_MOD,
                                 [HAVE_DECL])
    assert (res.ok, res.code) == (False, "checker-failed")


def test_without_a_toolchain_the_outline_is_unavailable(ws: Workspace) -> None:
    res = MissingToolchain(outline_spec()).outline(ws, HAVE_MOD, [HAVE_DECL], FakeSandbox(""),
                                                   CAPS)
    assert (res.ok, res.code, res.steps) == (False, "toolchain-missing", ())


def test_the_stand_in_replays_the_hand_declared_sample(ws: Workspace) -> None:
    tc = RecordedToolchain(outline_spec())
    calls = {c["args"].get("module"): c["result"] for c in declared()["calls"]}
    empty = tc.outline(ws, "Lemmata.calib.addzero.Proof", ["Calib.add_zero"], FakeSandbox(""),
                       CAPS)
    assert (empty.ok, empty.steps) == (True, ()) and calls["Lemmata.calib.addzero.Proof"]
    have = tc.outline(ws, HAVE_MOD, [HAVE_DECL], FakeSandbox(""), CAPS)
    assert have.ok and [s.claim for s in have.steps] == ["n + 0 = n"]
    other = tc.outline(ws, HAVE_MOD, ["Calib.other"], FakeSandbox(""), CAPS)
    assert (other.ok, other.code) == (False, "toolchain-missing")  # never guessed


# --- the record ------------------------------------------------------------------------------


def test_the_record_cuts_each_steps_lean_from_the_proof() -> None:
    res = lt.outline_from_report(HAVE_REPORT, HAVE_MOD, [HAVE_DECL])
    rec = outline_record(res, target="calib", node="havestep",
                         proof="targets/calib/nodes/havestep/Proof.lean",
                         proof_bytes=HAVE_TEXT.encode(), declarations=[HAVE_DECL],
                         merge_seq=3, toolchain="leanprover/lean4:v4.34.0")
    assert rec.available and rec.unavailable is None
    [st] = rec.steps
    assert st.lean == "have h : n + 0 = n := Nat.add_zero n"
    assert (st.name, st.claim, st.goal) == ("h", "n + 0 = n", "n + 0 = n")
    assert m.Outline.model_validate(rec.model_dump(by_alias=True)) == rec
    multi = OutlineStep("calc", 2, 2, 3, 9)
    assert step_lean(HAVE_TEXT, multi) == "have h : n + 0 = n := Nat.add_zero n\n  exact h"
    assert step_lean(HAVE_TEXT, OutlineStep("show", 9, 0, 9, 3)) == ""


def test_an_unavailable_answer_carries_no_step_even_if_it_lists_some() -> None:
    res = OutlineResult(False, "checker-failed", HAVE_MOD, (HAVE_DECL,),
                        (OutlineStep("have", 2, 2, 2, 38, False, "h", "False"),), "boom")
    rec = outline_record(res, target="calib", node="havestep",
                         proof="targets/calib/nodes/havestep/Proof.lean",
                         proof_bytes=HAVE_TEXT.encode(), declarations=[HAVE_DECL],
                         merge_seq=1, toolchain="leanprover/lean4:v4.34.0")
    assert (rec.available, rec.unavailable, rec.steps, rec.detail) == (
        False, "checker-failed", [], "boom")


@pytest.mark.parametrize(("proof", "want"), [
    ("targets/t/nodes/n/Proof.lean", "targets/t/nodes/n/outline/Proof.json"),
    ("targets/t/nodes/n--h1/attempts/20260301T000000Z-alice-partial.lean",
     "targets/t/nodes/n--h1/outline/20260301T000000Z-alice-partial.json"),
    ("targets/t/nodes/n/attempts/20260301T000000Z.0a1b2c3d-bo.b-alternate.lean",
     "targets/t/nodes/n/outline/20260301T000000Z.0a1b2c3d-bo.b-alternate.json"),
])
def test_outline_paths_sit_beside_their_proof_and_the_loader_places_them(
        proof: str, want: str) -> None:
    from network.record import layout

    assert outline_path(proof) == want
    found = layout.match(want)
    assert found is not None and found[0].writer == "gate"


@pytest.mark.parametrize("bad", ["targets/t/nodes/n/Statement.lean", "Proof.lean",
                                 "targets/t/nodes/n/attempts/x-postmortem.yaml"])
def test_no_outline_path_for_what_is_not_a_merged_proof(bad: str) -> None:
    with pytest.raises(ValueError):
        outline_path(bad)


def test_a_pull_request_cannot_write_an_outline(tmp_path: Path) -> None:
    """Only the gate writes outlines: a contributor's own outline/Proof.json claiming a
    step is refused at step 2 (gate-only-path) before anything is built."""
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target("demo")
    b.node("demo", "root")
    base = git_commit(b.root, "base")
    b.write("targets/demo/nodes/root/outline/Proof.json", json.dumps({
        "schema": "outline/v1", "target": "demo", "node": "root",
        "proof": "targets/demo/nodes/root/Proof.lean", "proof_sha256": "0" * 64,
        "declarations": ["x"], "available": True, "merge_seq": 1, "toolchain": "x",
        "steps": []}) + "\n")
    head = git_commit(b.root, "head")
    r = run_steps_1_2(diff_commits(b.root, base, head), load_graph(b.root, commit=base),
                      "alice")
    assert [d.code for d in r.step2.diagnostics] == ["gate-only-path"]


# --- the post-merge product -----------------------------------------------------------------


def _merged(tmp_path: Path, toolchain: Any) -> tuple[Any, Path]:
    from tests.test_gate_run import merged

    pm, root, _head = merged(tmp_path, "proof-ok", toolchain=toolchain)
    return pm, root


MID_OUTLINE = "targets/demo/nodes/mid/outline/Proof.json"


def test_without_lean_the_post_merge_job_writes_the_outline_unavailable(
        tmp_path: Path) -> None:
    pm, root = _merged(tmp_path, MissingToolchain)
    rec = m.Outline.model_validate_json(pm.files[MID_OUTLINE])
    assert (rec.available, rec.unavailable, rec.steps) == (False, "toolchain-missing", [])
    assert rec.proof == "targets/demo/nodes/mid/Proof.lean" and rec.signature is not None
    assert rec.declarations == ["Demo.mid"] and rec.merge_seq >= 1
    assert any(n.startswith("outline of targets/demo/nodes/mid/Proof.lean unavailable")
               for n in pm.notes)
    from tests.test_gate_run import apply

    g = apply(root, pm.files)
    [orf] = g.targets["demo"].nodes["mid"].outlines
    assert orf.path == MID_OUTLINE and orf.record == rec  # the loader placed it
    from network.record import derive

    [need] = [w for w in derive.words_needed(g, "demo", "proof") if w["node"] == "mid"]
    assert need["file"] == rec.proof and need["outline"] == MID_OUTLINE


def test_the_stand_in_with_no_recorded_outline_answers_unavailable(tmp_path: Path) -> None:
    pm, _ = _merged(tmp_path, RecordedToolchain)
    rec = m.Outline.model_validate_json(pm.files[MID_OUTLINE])
    assert (rec.available, rec.unavailable) == (False, "toolchain-missing")


class _Vouching(RecordedToolchain):
    """The stand-in, answering outline with an empty outline: what Lean says of mid's
    ``simpa using …`` proof, which has no have/show/suffices/obtain/calc step."""

    asked: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: Any, caps: m.Caps) -> OutlineResult:
        self._guard(workspace, "outline")
        _Vouching.asked.append((module, tuple(decls)))
        return OutlineResult(True, None, module, tuple(decls), ())


def test_the_post_merge_job_writes_what_the_toolchain_vouches_for(tmp_path: Path) -> None:
    _Vouching.asked = []
    tc: Any = _Vouching
    assert isinstance(tc(outline_spec()), Toolchain)
    pm, _ = _merged(tmp_path, tc)
    assert _Vouching.asked == [("Lemmata.demo.mid.Proof", ("Demo.mid",))]
    rec = m.Outline.model_validate_json(pm.files[MID_OUTLINE])
    assert (rec.available, rec.unavailable, rec.steps) == (True, None, [])


# --- get_node and the node page --------------------------------------------------------------


def _write_outline(b: GraphBuilder, rec: m.Outline, path: str) -> None:
    b.write(path, rec.model_dump_json(by_alias=True, exclude_none=True) + "\n")


@pytest.fixture()
def api(tmp_path: Path) -> Any:
    yield from make_api(tmp_path)


def test_get_node_answers_the_nodes_outlines(api: Api) -> None:
    path = "targets/demo/nodes/root/outline/Proof.json"
    rec = m.Outline(target="demo", node="root", proof="targets/demo/nodes/root/Proof.lean",
                    proof_sha256="0" * 64, declarations=["Demo.main"], available=False,
                    unavailable="toolchain-missing", merge_seq=1,
                    toolchain="leanprover/lean4:v4.34.0")
    _write_outline(api.graph, rec, path)
    git_commit(api.graph.root, "outline")
    body = api.client.get("/targets/demo/nodes/root").json()
    assert "outline" in body["sections"]
    [got] = body["outline"]
    assert got["path"] == path and got["available"] is False
    assert got["unavailable"] == "toolchain-missing" and got["steps"] == []
    assert "untrusted" not in got  # the gate's product, not a contributor's prose
    narrow = api.client.get("/targets/demo/nodes/root?include=gloss").json()
    assert "outline" not in narrow
    only = api.client.get("/targets/demo/nodes/root?include=outline").json()
    assert only["outline"] == body["outline"]


def test_the_node_page_shows_the_outline_before_the_source(tmp_path: Path) -> None:
    from site_support import build, require_dot

    from tests.test_gate_run import apply

    require_dot()
    pm, root = _merged(tmp_path, MissingToolchain)
    apply(root, pm.files)
    git_commit(root, "post-merge")
    build(root, tmp_path / "site")
    html = (tmp_path / "site" / "targets" / "demo" / "nodes" / "mid.html").read_text("utf-8")
    said = "Unavailable (toolchain-missing)"
    assert said in html and html.index(said) < html.index("simpa")  # before the source
    assert "No outline of this proof is recorded yet" not in html


def test_the_node_page_lists_each_vouched_step_and_shows_a_lean_only_one_as_lean(
        tmp_path: Path) -> None:
    """The hand-declared sample's answer for HaveStep.lean, and the same step shown Lean
    only, rendered on a node whose Proof.lean is those bytes."""
    from site_support import build, require_dot

    require_dot()
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target("calib")
    b.node("calib", "havestep", declaration=HAVE_DECL, proof=HAVE_TEXT,
           statement="theorem Calib.add_zero_have (n : Nat) : n + 0 = n := by\n  sorry\n")
    proof = "targets/calib/nodes/havestep/Proof.lean"
    b.merge([proof])
    res = lt.outline_from_report(HAVE_REPORT, HAVE_MOD, [HAVE_DECL])
    rec = outline_record(res, target="calib", node="havestep", proof=proof,
                         proof_bytes=HAVE_TEXT.encode(), declarations=[HAVE_DECL],
                         merge_seq=1, toolchain="leanprover/lean4:v4.34.0")
    _write_outline(b, rec, outline_path(proof))
    git_commit(b.root, "graph")
    build(b.root, tmp_path / "site")
    html = (tmp_path / "site" / "targets" / "calib" / "nodes" / "havestep.html").read_text()
    assert "Its named steps" in html
    assert "<code>have h</code>: <code>n + 0 = n</code>; leaves <code>n + 0 = n</code>" in html
    lean_only = outline_record(
        lt.outline_from_report({**HAVE_REPORT, "steps": [_step(reads_back=False)]}, HAVE_MOD,
                               [HAVE_DECL]),
        target="calib", node="havestep", proof=proof, proof_bytes=HAVE_TEXT.encode(),
        declarations=[HAVE_DECL], merge_seq=1, toolchain="leanprover/lean4:v4.34.0")
    _write_outline(b, lean_only, outline_path(proof))
    git_commit(b.root, "lean only")
    build(b.root, tmp_path / "site2")
    html = (tmp_path / "site2" / "targets" / "calib" / "nodes" / "havestep.html").read_text()
    assert "Lean only:</span> <code>have h : n + 0 = n := Nat.add_zero n</code>" in html
    assert "leaves <code>" not in html
