"""Outlines of merged proofs (D-3 v3.30): the checker's contract, the adapter's call, the
report's reading, the honesty of the recorded sample, the post-merge product, get_node's
section, the node page's block, and what happens without a toolchain. The Lean side
(network/gate/lean/Outline.lean) is audited against Lean by tests/test_recordings_audit.py
on the hand-declared sample of tests/fixtures/toolchain/sources/outline/."""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).parent))
from checker_channel import deliver
from outline_sample import (
    declared,
    outline_problems,
    outline_spec,
    outline_workspace,
    sample_sources,
)
from standin import NO_RECORDING, RecordedToolchain

from network.gate.diff import diff_commits
from network.gate.lean import lean_toolchain as lt
from network.gate.lean.toolchain import MissingToolchain, OutlineResult, OutlineStep, Toolchain
from network.gate.postmerge.outline import outline_path, outline_record
from network.gate.sandbox.sandbox import SandboxLayout, SandboxResult
from network.gate.sandbox.workspace import Workspace
from network.gate.steps.step2 import run_steps_1_2
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.words import words_needed
from tests.api_support import Api, make_api
from tests.graphs import GraphBuilder, git_commit

HAVE_MOD = "Lemmata.calib.havestep.Proof"
HAVE_DECL = "Calib.add_zero_have"
MIS_MOD = "Lemmata.calib.mislabel.Proof"
MIS_DECL = "Calib.mislabel"
SRC = Path(__file__).parent / "fixtures" / "toolchain" / "sources" / "outline"
HAVE_TEXT = (SRC / "HaveStep.lean").read_text("utf-8")
MIS_TEXT = (SRC / "Mislabel.lean").read_text("utf-8")
CAPS = m.Caps(wall_s=60, memory_mib=1024)
PIN = "leanprover/lean4:v4.34.0"

#: Outline.lean's report for HaveStep.lean, in the checker's own JSON shape
HAVE_ROW: dict[str, Any] = {
    "decl": HAVE_DECL, "index": 1, "name": "h", "kind": "have", "depth": 0,
    "reads_back": True, "why": None, "claim": "n + 0 = n", "goal": "n + 0 = n",
    "constants": ["Nat.add_zero"], "automation": [], "hole": False}
HAVE_REPORT: dict[str, Any] = {"checker": "Outline", "version": 1, "missing": [],
                               "steps": [HAVE_ROW]}


class FakeSandbox:
    """Captures each sandboxed command and answers with a canned checker report."""

    def __init__(self, stdout: str, rc: int = 0) -> None:
        self.stdout, self.rc = stdout, rc
        self.calls: list[tuple[list[str], SandboxLayout, dict[str, str]]] = []
        self.inputs: dict[str, str] = {}

    def run(self, argv: Sequence[str], layout: SandboxLayout, caps: m.Caps, *,
            cwd: Path | None = None, env: Mapping[str, str] | None = None,
            stdin: bytes | None = None) -> SandboxResult:
        self.calls.append((list(argv), layout, dict(env or {})))
        for a in argv[-3:-1]:
            p = Path(a)
            if p.is_file():
                self.inputs[p.name] = p.read_text("utf-8")
        return SandboxResult(self.rc, deliver(argv, stdin, self.stdout), "", None, 0.1,
                             tuple(argv))


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return outline_workspace(tmp_path / "ws")


def _sample_result(module: str) -> dict[str, Any]:
    [call] = [c for c in declared()["calls"]
              if c["method"] == "outline" and c["args"]["module"] == module]
    return call["result"]  # type: ignore[no-any-return]


# --- the checker: kernel terms only ---------------------------------------------------------


def _code(src: str) -> str:
    src = re.sub(r"/-.*?-/", "", src, flags=re.DOTALL)
    return "\n".join(ln.split("--")[0] for ln in src.splitlines())


def test_the_checker_reads_the_compiled_term_and_never_the_source() -> None:
    """No initializer, no frontend, no source file, no evaluation: Outline.lean loads the
    module as UsedConstants does and walks kernel terms (the reverted design re-elaborated
    the contributor's source with initializers enabled)."""
    assert "Outline" in lt.CHECKERS
    code = _code((Path(lt.__file__).parent / "Outline.lean").read_text("utf-8"))
    for banned in ("enableInitializersExecution", "Frontend", "processHeader", "readFile",
                   "evalConst", "runParserCategory", "elabCommand", "IO.Process", "unsafe"):
        assert banned not in code, banned
    assert "loadEnv #[mod]" in code and "ci.value?" in code
    assert ".letE n t v b nonDep" in code and "isAppOfArity `letFun 4" in code


# --- the adapter's call --------------------------------------------------------------------


def test_the_adapter_runs_outline_lean_on_the_module_and_its_declarations_only(
        tmp_path: Path, ws: Workspace) -> None:
    tc = lt.LeanToolchain(outline_spec(), bindir=tmp_path / "bin", pins_root=tmp_path / "pins")
    sb = FakeSandbox(json.dumps(HAVE_REPORT))
    res = tc.outline(ws, HAVE_MOD, [HAVE_DECL], sb, CAPS)
    [(argv, layout, env)] = sb.calls
    assert argv[:5] == [str(tmp_path / "bin" / "lake"), "env", "lean", f"-j{CAPS.threads}",
                        "--run"]
    assert argv[5].endswith("/Outline.lean") and argv[6].endswith("/Outline.json")
    # the request names no source file: nothing but the compiled module is read
    assert json.loads(sb.inputs["Outline.json"]) == {
        "module": ["Lemmata", "calib", "havestep", "Proof"],
        "decls": [["Calib", "add_zero_have"]]}
    assert sb.inputs["Outline.lean"] == lt.checker_source("Outline")
    assert "def runOutline" in sb.inputs["Outline.lean"]
    assert "def mainWith" in sb.inputs["Outline.lean"]  # Common.lean comes first
    assert ws.root in layout.read_only and layout.scratch != ws.root
    assert env["LEAN_ABORT_ON_PANIC"] == "1"
    assert res.ok and res.code is None and res.module == HAVE_MOD
    [st] = res.steps
    assert (st.decl, st.index, st.kind, st.name, st.claim, st.goal, st.lean_only) == (
        HAVE_DECL, 1, "have", "h", "n + 0 = n", "n + 0 = n", False)
    assert st.constants == ("Nat.add_zero",) and st.automation == () and not st.hole


def test_a_scratch_workspace_is_refused_by_the_adapter(tmp_path: Path) -> None:
    from network.gate.sandbox.workspace import node_source, write_workspace

    scratch = write_workspace(tmp_path / "s", outline_spec(),
                              [node_source("calib", "havestep", "Proof", HAVE_TEXT.encode())],
                              role="scratch")
    tc = lt.LeanToolchain(outline_spec(), bindir=tmp_path / "bin", pins_root=tmp_path)
    with pytest.raises(ValueError):
        tc.outline(scratch, HAVE_MOD, [HAVE_DECL], FakeSandbox("{}"), CAPS)


@pytest.mark.parametrize(("stdout", "rc", "code"), [
    ("", 0, "checker-output-unbound"),
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


@pytest.mark.parametrize("forged", [
    {"reads_back": False, "why": "inaccessible-local"},  # the checker said Lean only
    {"why": "elided-proof"},  # reads_back true but a reason not to: not a vouch
    {"reads_back": "yes"},  # anything but true is not a vouch
    {"name": None},  # an anonymous label never reads back
    {"claim": None},
])
def test_a_claim_the_checker_did_not_vouch_for_is_shown_as_lean_only(
        forged: dict[str, Any]) -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "steps": [{**HAVE_ROW, **forged}]},
                                 HAVE_MOD, [HAVE_DECL])
    assert res.ok
    [st] = res.steps
    assert st.lean_only and (st.claim, st.goal) == (None, None) and st.why
    assert st.constants == ("Nat.add_zero",)  # a fact of the kernel term either way


@pytest.mark.parametrize("bad", [
    {"kind": "simp"},  # not a step kind
    {"decl": "Calib.other"},  # a declaration nobody asked about
    {"index": 0}, {"depth": -1}, {"constants": "Nat.add_zero"}, {"automation": [1]},
])
def test_a_strange_step_refuses_the_whole_report(bad: dict[str, Any]) -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "steps": [{**HAVE_ROW, **bad}]}, HAVE_MOD,
                                 [HAVE_DECL])
    assert (res.ok, res.code, res.steps) == (False, "checker-output-malformed", ())


def test_a_missing_declaration_gives_no_outline() -> None:
    res = lt.outline_from_report({**HAVE_REPORT, "missing": [HAVE_DECL]}, HAVE_MOD,
                                 [HAVE_DECL])
    assert (res.ok, res.code) == (False, "declaration-missing")


def test_without_a_toolchain_the_outline_is_unavailable(ws: Workspace) -> None:
    res = MissingToolchain(outline_spec()).outline(ws, HAVE_MOD, [HAVE_DECL], FakeSandbox(""),
                                                   CAPS)
    assert (res.ok, res.code, res.steps) == (False, "toolchain-missing", ())


# --- the recorded sample: honest on its face -------------------------------------------------


def test_the_stand_in_replays_the_hand_declared_sample(ws: Workspace) -> None:
    tc = RecordedToolchain(outline_spec())
    whole = tc.outline(ws, "Lemmata.calib.addzero.Proof", ["Calib.add_zero"], FakeSandbox(""),
                       CAPS)
    [st] = whole.steps
    assert whole.ok and (st.kind, st.name, st.claim, st.goal) == (
        "theorem", "Calib.add_zero", "∀ (n : Nat), n + 0 = n", None)
    have = tc.outline(ws, HAVE_MOD, [HAVE_DECL], FakeSandbox(""), CAPS)
    assert have.ok and [s.claim for s in have.steps] == ["n + 0 = n"]
    other = tc.outline(ws, HAVE_MOD, ["Calib.other"], FakeSandbox(""), CAPS)
    assert (other.ok, other.code) == (False, NO_RECORDING)  # never guessed


def test_the_sample_recording_is_honest_on_its_face() -> None:
    assert outline_problems(declared()["calls"], sample_sources()) == []


def _forge(module: str, **over: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = copy.deepcopy(declared()["calls"])
    for c in calls:
        if c["method"] == "outline" and c["args"]["module"] == module:
            c["result"]["steps"][0].update(over)
    return calls


@pytest.mark.parametrize(("calls", "sources", "said"), [
    # a step the kernel term does not have: no such binder in the code
    (_forge(HAVE_MOD, name="h2"), None, "no `have h2` binds"),
    # the source text's claim for the binder, when the term has another
    (_forge(MIS_MOD, name="h"), None, "no `have h` binds"),
    # a Lean-only step that still claims
    (_forge(HAVE_MOD, lean_only=True, why="print-failed"), None, "Lean only yet claims"),
    # a whole-theorem step for a proof that binds a step
    (_forge(HAVE_MOD, kind="theorem", name=HAVE_DECL, goal=None), None,
     "whole-theorem step"),
    # a hole in a proof without sorry
    (_forge(HAVE_MOD, hole=True), None, "a hole in a proof without sorry"),
    # an outline of a module whose build did not pass
    ([{**c, "result": {**c["result"], "ok": False}} if c["method"] == "build" else c
      for c in declared()["calls"]], None, "no passing build"),
    # steps for a sorry proof
    (declared()["calls"], {HAVE_MOD: HAVE_TEXT.replace("Nat.add_zero n", "sorry")},
     "steps recorded for a proof with sorry"),
])
def test_a_dishonest_outline_recording_is_held_out(calls: list[dict[str, Any]],
                                                   sources: dict[str, str] | None,
                                                   said: str) -> None:
    probs = outline_problems(calls, {**sample_sources(), **(sources or {})})
    assert any(said in p for p in probs), probs


def test_the_sample_recording_file_is_the_declared_sample() -> None:
    from outline_sample import outline_recording
    from standin import FIXTURES

    key, rec = outline_recording()
    assert json.loads((FIXTURES / f"{key}.json").read_text("utf-8")) == rec


# --- the record ------------------------------------------------------------------------------


def _rec(res: OutlineResult, decl: str = HAVE_DECL, node: str = "havestep",
         text: str = HAVE_TEXT) -> m.Outline | None:
    return outline_record(res, target="calib", node=node,
                          proof=f"targets/calib/nodes/{node}/Proof.lean",
                          proof_bytes=text.encode(), declarations=[decl], merge_seq=3,
                          toolchain=PIN)


def test_the_record_keeps_what_the_checker_vouched_for() -> None:
    rec = _rec(lt.outline_from_report(HAVE_REPORT, HAVE_MOD, [HAVE_DECL]))
    assert rec is not None
    [st] = rec.steps
    assert (st.name, st.claim, st.goal, st.lean_only, st.why) == (
        "h", "n + 0 = n", "n + 0 = n", False, None)
    assert m.Outline.model_validate(rec.model_dump(by_alias=True)) == rec


def test_an_unavailable_or_empty_answer_writes_no_record() -> None:
    step = OutlineStep(HAVE_DECL, 1, "have", name="h", lean_only=False, claim="False")
    assert _rec(OutlineResult(False, "checker-failed", HAVE_MOD, (HAVE_DECL,), (step,))) is None
    assert _rec(OutlineResult(True, None, HAVE_MOD, (HAVE_DECL,), ())) is None


def test_a_record_that_claims_for_a_lean_only_step_does_not_load() -> None:
    rec = _rec(lt.outline_from_report(HAVE_REPORT, HAVE_MOD, [HAVE_DECL]))
    assert rec is not None
    raw = rec.model_dump(by_alias=True)
    raw["steps"][0]["lean_only"] = True
    with pytest.raises(ValidationError):
        m.Outline.model_validate(raw)
    raw["steps"][0].update(lean_only=False, claim=None)
    with pytest.raises(ValidationError):
        m.Outline.model_validate(raw)
    raw["steps"][0].update(claim="n + 0 = n", decl="Calib.other")
    with pytest.raises(ValidationError):
        m.Outline.model_validate(raw)


@pytest.mark.parametrize(("proof", "want"), [
    ("targets/t/nodes/n/Proof.lean", "targets/t/nodes/n/outline/Proof.json"),
    ("targets/t/nodes/n--h1/attempts/20260301T000000Z-alice-partial.lean",
     "targets/t/nodes/n--h1/outline/20260301T000000Z-alice-partial.json"),
    ("targets/t/nodes/n/attempts/20260301T000000Z.0a1b2c3d-bo.b-alternate.lean",
     "targets/t/nodes/n/outline/20260301T000000Z.0a1b2c3d-bo.b-alternate.json"),
])
def test_outline_paths_sit_beside_their_proof_and_the_layout_places_them(
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
        "declarations": ["x"], "merge_seq": 1, "toolchain": "x",
        "steps": [{"decl": "x", "index": 1, "kind": "theorem", "lean_only": False,
                   "claim": "False"}]}) + "\n")
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


@pytest.mark.parametrize("toolchain", [MissingToolchain, RecordedToolchain])
def test_without_an_answer_the_post_merge_job_writes_no_outline(tmp_path: Path,
                                                                toolchain: Any) -> None:
    pm, _root = _merged(tmp_path, toolchain)
    assert not any(p.startswith("targets/") and "/outline/" in p for p in pm.files)
    assert any(n.startswith("outline of targets/demo/nodes/mid/Proof.lean not written")
               for n in pm.notes), pm.notes


class _Vouching(RecordedToolchain):
    """The stand-in, answering outline as Outline.lean answers mid's proof: its term binds
    no step, so the one step is the whole theorem (its claim stands for the printed type
    the real checker would give; this fake is never a recording)."""

    asked: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def outline(self, workspace: Workspace, module: str, decls: Sequence[str],
                sandbox: Any, caps: m.Caps) -> OutlineResult:
        self._guard(workspace, "outline")
        _Vouching.asked.append((module, tuple(decls)))
        return OutlineResult(True, None, module, tuple(decls), tuple(
            OutlineStep(d, 1, "theorem", name=d, lean_only=False, claim="the printed type",
                        constants=("Nat.add_zero",)) for d in decls))


def test_the_post_merge_job_writes_what_the_toolchain_answers_gate_signed(
        tmp_path: Path) -> None:
    from tests.test_gate_run import apply

    _Vouching.asked = []
    tc: Any = _Vouching
    assert isinstance(tc(outline_spec()), Toolchain)
    pm, root = _merged(tmp_path, tc)
    assert _Vouching.asked == [("Lemmata.demo.mid.Proof", ("Demo.mid",))]
    rec = m.Outline.model_validate_json(pm.files[MID_OUTLINE])
    assert rec.proof == "targets/demo/nodes/mid/Proof.lean" and rec.signature is not None
    assert rec.declarations == ["Demo.mid"] and rec.merge_seq >= 1
    assert [(s.kind, s.name, s.claim) for s in rec.steps] == [
        ("theorem", "Demo.mid", "the printed type")]
    g = apply(root, pm.files)
    [orf] = g.targets["demo"].nodes["mid"].outlines
    assert orf.path == MID_OUTLINE and orf.record == rec  # the loader placed it
    # the words view names the outline of the proof's current bytes (D-3 v3.30)
    [row] = [r for r in words_needed(g, "demo")
             if r["file"] == "targets/demo/nodes/mid/Proof.lean"]
    assert row["outline"] == MID_OUTLINE


# --- get_node and the node page --------------------------------------------------------------


def signed_outline(b: GraphBuilder, rec: m.Outline, *, kind: str = "gate") -> str:
    """The outline record's JSON as the post-merge job writes it: signed with the
    builder's gate key (or with ``kind="approval"``, a key no gate holds); only a
    gate-signed outline is shown (ruling 14)."""
    doc = rec.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(b.signed(m.Outline, doc, "gate", kind=kind)) + "\n"


def _write_outline(b: GraphBuilder, rec: m.Outline, path: str) -> None:
    b.write(path, signed_outline(b, rec))


@pytest.fixture()
def api(tmp_path: Path) -> Any:
    yield from make_api(tmp_path)


def test_get_node_answers_the_nodes_outlines(api: Api) -> None:
    path = "targets/demo/nodes/proved/outline/Proof.json"
    proof = "targets/demo/nodes/proved/Proof.lean"  # the outline of its current bytes
    res = lt.outline_from_report(
        {**HAVE_REPORT, "steps": [{**HAVE_ROW, "decl": "Demo.main"},
                                  {**HAVE_ROW, "decl": "Demo.main", "index": 2,
                                   "name": "h✝", "reads_back": False,
                                   "why": "inaccessible-name", "claim": None,
                                   "goal": None}]},
        "Lemmata.demo.proved.Proof", ["Demo.main"])
    rec = outline_record(res, target="demo", node="proved", proof=proof,
                         proof_bytes=(api.graph.root / proof).read_bytes(),
                         declarations=["Demo.main"], merge_seq=1, toolchain=PIN)
    assert rec is not None
    _write_outline(api.graph, rec, path)
    git_commit(api.graph.root, "outline")
    body = api.client.get("/targets/demo/nodes/proved").json()
    assert "outline" in body["sections"]
    [got] = body["outline"]
    assert got["path"] == path and got["proof"] == proof
    first, second = got["steps"]
    assert (first["name"], first["claim"], first["goal"], first["lean_only"]) == (
        "h", "n + 0 = n", "n + 0 = n", False)
    assert first["constants"] == ["Nat.add_zero"] and first["automation"] == []
    assert second["lean_only"] is True and second["why"] == "inaccessible-name"
    assert "claim" not in second or second["claim"] is None
    assert "untrusted" not in got  # the gate's product, not a contributor's prose
    narrow = api.client.get("/targets/demo/nodes/proved?include=gloss").json()
    assert "outline" not in narrow
    only = api.client.get("/targets/demo/nodes/proved?include=outline").json()
    assert only["outline"] == body["outline"]


def _page(tmp_path: Path, node: str, decl: str, text: str, res: OutlineResult,
          name: str = "site") -> str:
    from site_support import build, require_dot

    require_dot()
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target("calib")
    b.node("calib", node, declaration=decl, proof=text,
           statement=f"theorem {decl} (n : Nat) : n + 0 = n := by\n  sorry\n")
    proof = f"targets/calib/nodes/{node}/Proof.lean"
    b.merge([proof])
    rec = outline_record(res, target="calib", node=node, proof=proof,
                         proof_bytes=text.encode(), declarations=[decl], merge_seq=1,
                         toolchain=PIN)
    assert rec is not None
    _write_outline(b, rec, outline_path(proof))
    git_commit(b.root, "graph")
    build(b.root, tmp_path / name)
    return (tmp_path / name / "targets" / "calib" / "nodes" / f"{node}.html").read_text()


def _outline_block(html: str) -> str:
    """The outline block of the page: from the outline to the next file's source."""
    start = html.index('<div class="outline">')
    return html[start:html.index('class="file-with-gloss"', start)]


def _plain(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).replace("&#43;", "+")


def test_the_node_page_shows_each_step_before_the_source(tmp_path: Path) -> None:
    html = _page(tmp_path, "havestep", HAVE_DECL, HAVE_TEXT,
                 lt.outline_from_report(HAVE_REPORT, HAVE_MOD, [HAVE_DECL]))
    assert "No outline of this proof is recorded yet" not in html
    outline = _outline_block(html)
    assert 'class="outline-claim"' in outline and 'class="highlight"' in outline  # as Lean
    text = _plain(outline)
    assert "have h" in text and "n + 0 = n" in text and "Goal left:" in text
    assert "Automation: none marked" in text and "Constants: Nat.add_zero" in text
    proof = html.index('id="file-Proof"')
    # the outline before the proof's source
    assert proof < html.index('<div class="outline">') < html.index('<div class="source">', proof)


def test_the_node_page_shows_a_step_that_does_not_read_back_as_lean_only(
        tmp_path: Path) -> None:
    row = {**HAVE_ROW, "reads_back": False, "why": "elided-proof"}
    html = _page(tmp_path, "havestep", HAVE_DECL, HAVE_TEXT,
                 lt.outline_from_report({**HAVE_REPORT, "steps": [row]}, HAVE_MOD,
                                        [HAVE_DECL]))
    outline = _plain(_outline_block(html))
    assert "Lean only" in outline and "elided-proof" in outline
    assert "Goal left:" not in outline and "n + 0 = n" not in outline


def test_a_mislabelled_have_shows_the_kernels_claim_not_the_source_text(
        tmp_path: Path, ws: Workspace) -> None:
    """The hostile sample: a comment and a binder name «n + 0 = 0» that read as a claim the
    proof does not make. The outline's claim is the kernel's type of that binder."""
    assert "n + 0 = 0" in MIS_TEXT
    res = RecordedToolchain(outline_spec()).outline(ws, MIS_MOD, [MIS_DECL], FakeSandbox(""),
                                                    CAPS)
    assert res.ok
    [st] = res.steps
    assert (st.name, st.claim) == ("«n + 0 = 0»", "n + 0 = n") and not st.lean_only
    assert _sample_result(MIS_MOD)["steps"][0]["claim"] == "n + 0 = n"
    html = _page(tmp_path, "mislabel", MIS_DECL, MIS_TEXT, res)
    claim = html[html.index('class="outline-claim"'):]
    claim = _plain(claim[:claim.index("</div></div>") if "</div></div>" in claim else 400])
    assert "n + 0 = n" in claim and "n + 0 = 0" not in claim
