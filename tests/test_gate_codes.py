"""Every catalog code the gate can emit, fed the bad input that earns it (issue 9, D-4).

Each test builds a real git graph (the demo graph of tests/gate_scenarios.py plus the
pull request), runs :func:`~network.gate.run.run_gate` end to end and asserts the refusal:
its code, the catalog's step for it, exit 1 and a published attestation. Codes that come
from a Lean check replay answers declared in tests/gate_code_scenarios.py, each what the
pinned Lean returns for those bytes.

:func:`test_every_gate_code_has_a_test_feeding_it` holds the property for codes added
later: see :func:`gate_codes` for how the set is computed and :func:`asserted_codes` for
what counts as a test asserting a code.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml

from network.errors import CATALOG, LemmataError, full_catalog, static_definitions
from network.gate.run import GateOutcome, run_gate
from network.gate.sandbox.sandbox import Sandbox

sys.path.insert(0, str(Path(__file__).parent))
from gate_code_scenarios import S_SUB, W_SUB, code_scenarios, proposal_files, record_codes
from gate_scenarios import ND, PROOF_MID, T, base_repo, precheck_raw
from standin import FIXTURES, RecordedToolchain

from network.record.read.loader import sha256_hex
from tests.graphs import GraphBuilder, git_commit

ROOT = Path(__file__).resolve().parents[1]
MID = f"{ND}/mid"


# --- helpers ---------------------------------------------------------------------------


def gate(root: Path, base: str, head: str, *, raw: Any = "auto", submitter: str = "alice",
         **kw: Any) -> GateOutcome:
    """run_gate with the recorded stand-in and a passing precheck of the first artifact."""
    if raw == "auto":
        raw = precheck_raw(root, base, head)
    return run_gate(root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                    precheck_raw=raw, submitter=submitter, **kw)


def pull_request(tmp_path: Path, files: dict[str, bytes | str | None], **kw: Any
                 ) -> GateOutcome:
    """The demo base, then one commit writing ``files`` (None deletes), through the gate."""
    b, base = base_repo(tmp_path / "g")
    for path, data in files.items():
        if data is None:
            _delete(b, path)
        else:
            b.write(path, data)
    head = git_commit(b.root, "pull request")
    return gate(b.root, base, head, **kw)


def _delete(b: GraphBuilder, path: str) -> None:
    b.remove(path)
    repo = pygit2.Repository(str(b.root))
    repo.index.read()
    repo.index.remove(path)
    repo.index.write()


def refusals(out: GateOutcome) -> set[tuple[int, str]]:
    """(step, code) of every finding of every failing step, over all artifacts."""
    return {(s.step, d.code) for r in out.runs for s in r.steps if not s.ok
            for d in s.diagnostics}


def assert_refused(out: GateOutcome, code: str, step: int | None = None) -> None:
    """The gate refused with ``code`` at ``step`` (default: the catalog's step for it;
    record-level codes, which have none, are step 2's), exit 1, and an attestation
    published for the refusal (D-5)."""
    step = step if step is not None else CATALOG[code].step
    assert step is not None, f"{code} has no gate step: say which step emits it"
    assert (out.verdict, out.exit_code) in (("fail", 1), ("bounced", 1)), out.to_dict()
    assert (step, code) in refusals(out), (code, sorted(refusals(out)))
    atts = [a for a in out.attestations if a.verdict in ("fail", "bounced")]
    assert atts, "a refusal is published as an attestation"
    assert any(a.first_failing_step == step for a in atts), [a.first_failing_step
                                                             for a in atts]


def _meta(nid: str, stmt: str, **over: Any) -> bytes:
    rec = {"schema": "meta/v1", "id": nid, "target": T, "declaration": "Demo.new",
           "statement_hash": sha256_hex(stmt.encode()), "origin": "authored",
           "author": "alice", "speculative": True, **over}
    return yaml.safe_dump(rec, sort_keys=False).encode()


def proposal(nid: str, stmt: str = "theorem Demo.new : True := by\n  sorry\n",
             **meta: Any) -> dict[str, bytes | str | None]:
    d = f"{ND}/{nid}"
    return {f"{d}/META.yaml": meta.pop("meta_bytes", None) or _meta(nid, stmt, **meta),
            f"{d}/Statement.lean": stmt,
            f"{d}/Witness.lean": "theorem Demo.new.witness : True := trivial\n"}


# --- codes from a Lean check (recorded answers, tests/gate_code_scenarios.py) ---------


@pytest.mark.parametrize(("name", "code"), [
    ("code-partial-without-holes", "partial-without-holes"),
    ("code-offload-restates-goal", "offload-restates-goal"),
    ("code-offload-restates-goal-disguised", "offload-restates-goal"),
    ("code-partial-hole-in-a-helper", "partial-without-holes"),
    ("code-circular-use", "circular-use"),
    ("code-circular-use-indirect", "circular-use"),
    ("code-hazard-found", "hazard-found"),
    ("code-carried-witness-unknown-hole", "carried-witness-unknown-hole"),
    ("code-declaration-missing", "declaration-missing"),
])
def test_a_lean_check_refuses_with_its_code(tmp_path: Path, name: str, code: str) -> None:
    """The gate refuses the scenario's bytes with ``code`` at its step, in the
    authoritative run and in the precheck alike."""
    sc = code_scenarios()[name]
    assert sc.code == code
    b, base, head = sc.build(tmp_path / name)
    out = gate(b.root, base, head, submitter=sc.submitter, review=sc.review)
    assert_refused(out, sc.code)
    assert CATALOG[sc.code].step == sc.step
    pre = gate(b.root, base, head, raw=None, mode="precheck")
    assert pre.verdict == "fail" and (sc.step, sc.code) in refusals(pre)
    assert pre.precheck_attestations[0].first_failing_step == sc.step


@pytest.mark.parametrize(("name", "code"), [
    ("code-hazard-acknowledged", "hazard-acknowledged"),
    ("code-hazard-on-hole", "hazard-on-hole"),
])
def test_an_informational_hazard_code_is_a_note_not_a_refusal(tmp_path: Path, name: str,
                                                              code: str) -> None:
    """The same nat-subtraction finding passes step 6 when META acknowledges it, or when the
    statement is a gate-written hole's; the note keeps its code on the attestation."""
    sc = code_scenarios()[name]
    b, base, head = sc.build(tmp_path / name)
    out = gate(b.root, base, head)
    assert out.verdict == "pass", out.to_dict()
    [run] = out.runs
    step6 = next(s for s in run.steps if s.step == 6)
    assert step6.ok and [d.code for d in step6.diagnostics] == [code]
    assert run.attestation is not None and run.attestation.verdict == "pass"
    assert CATALOG[code].step == 6 and CATALOG[code].http_status == 200


def test_an_unacknowledged_hazard_on_the_same_bytes_is_refused(tmp_path: Path) -> None:
    """hazard-found and hazard-acknowledged differ only in META.yaml: the acknowledgment,
    not the statement, makes the difference."""
    found, ack = code_scenarios()["code-hazard-found"], code_scenarios()["code-hazard-acknowledged"]
    stmt = f"{ND}/sub/Statement.lean"
    assert found.files[stmt] == ack.files[stmt]
    b, base, head = found.build(tmp_path / "f")
    assert_refused(gate(b.root, base, head), "hazard-found")


@pytest.mark.parametrize("ack", [
    {"checker": "nat-subtraction", "location": "Demo.sub: n - 2"},   # another subterm
    {"checker": "division-by-zero", "location": "Demo.sub: n - 1"},  # another checker
    {"checker": "nat-subtraction", "location": "Demo.other: n - 1"},  # another declaration
])
def test_an_acknowledgment_of_something_else_does_not_cover_a_hazard(
        tmp_path: Path, ack: dict[str, str]) -> None:
    """An acknowledgment covers the one finding it names exactly (checker and location):
    one written for a neighbouring finding leaves this one refused."""
    sc = replace(code_scenarios()["code-hazard-acknowledged"], files=proposal_files(
        "sub", "Demo.sub", S_SUB, W_SUB, [{**ack, "justification": "meant"}]))
    b, base, head = sc.build(tmp_path / "a")
    assert_refused(gate(b.root, base, head), "hazard-found")


def test_code_recordings_are_current(tmp_path: Path) -> None:
    """record_codes' calls are in the committed recordings (make_recordings.py writes them;
    a key may hold other scenarios' calls too)."""
    store: dict[str, dict[str, Any]] = {}
    record_codes(tmp_path, store)
    assert store
    for key, rec in store.items():
        path = FIXTURES / f"{key}.json"
        assert path.is_file(), f"missing recording {key}: run make_recordings.py"
        have = json.loads(path.read_text("utf-8"))
        assert have["files"] == rec["files"], key
        for call in json.loads(json.dumps(rec["calls"], ensure_ascii=False)):
            assert call in have["calls"], (key, call["method"])


@pytest.mark.lean
def test_the_code_scenarios_are_what_lean_answers(tmp_path: Path) -> None:
    """Where Lean is installed (``pytest -m lean``), every declared answer of
    gate_code_scenarios.py is compared with the real adapter's, call by call, by the
    recordings audit of tests/test_recordings_audit.py."""
    import shutil
    if shutil.which("lean") is None or shutil.which("lake") is None:
        pytest.skip("needs a real Lean toolchain: lean and lake are not on PATH")
    from test_recordings_audit import Auditing, _audit
    _audit(lambda: record_codes(tmp_path, {}, recorder=Auditing))  # type: ignore[arg-type]


def test_the_code_scenarios_audit_runs_without_lean(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit above, with the committed recordings answering for Lean: it asks every
    call and finds each declared answer in what the stand-in replays."""
    from test_recordings_audit import Auditing, _audit
    monkeypatch.setattr(Auditing, "real_factory", staticmethod(RecordedToolchain))
    _audit(lambda: record_codes(tmp_path, {}, recorder=Auditing))  # type: ignore[arg-type]


# --- step 2: the pull request's paths and records -------------------------------------


@pytest.mark.parametrize("second", [
    (f"{MID}/attempts/20260301T000000Z-alice-partial.lean",
     "-- approach: x\n-- licence: CC-BY-4.0\ntheorem Demo.mid (n : Nat) : n + 0 + 0 = n := rfl\n"),
    # proving and refuting one node in one pull request
    (f"{MID}/Refutation.lean",
     "theorem Demo.mid.refutation : ¬ ∀ n : Nat, n + 0 + 0 = n := by\n  intro h\n  sorry\n"),
])
def test_two_artifacts_on_one_node_are_mixed_artifacts(tmp_path: Path,
                                                       second: tuple[str, str]) -> None:
    out = pull_request(tmp_path, {f"{MID}/Proof.lean": PROOF_MID, second[0]: second[1]})
    assert_refused(out, "mixed-artifacts")


def test_a_proof_that_main_merged_meanwhile_is_proof_already_merged(tmp_path: Path) -> None:
    """The pull request branched before main merged a proof of the same node: against the
    new main its Proof.lean is a second proof."""
    b, fork = base_repo(tmp_path / "g")
    repo = pygit2.Repository(str(b.root))
    mine = b"theorem Demo.mid (n : Nat) : n + 0 + 0 = n := rfl\n"
    idx = pygit2.Index()
    idx.read_tree(repo.get(fork).peel(pygit2.Commit).tree)
    idx.add(pygit2.IndexEntry(f"{MID}/Proof.lean", repo.create_blob(mine),
                              pygit2.GIT_FILEMODE_BLOB))
    sig = pygit2.Signature("t", "t@example.org", 1_790_000_000, 0)
    head = str(repo.create_commit(None, sig, sig, "pull request", idx.write_tree(repo),
                                  [pygit2.Oid(hex=fork)]))
    b.write(f"{MID}/Proof.lean", PROOF_MID)
    b.merge([f"{MID}/Proof.lean"], date="2026-02-01", artifact_kind="proof")
    main = git_commit(b.root, "main merges another proof of mid")
    out = gate(b.root, main, head)
    assert_refused(out, "proof-already-merged")


@pytest.mark.parametrize(("path", "data"), [
    (f"{ND}/p/attempts/20260101T000000Z-carol-partial.lean", None),  # a merged route, deleted
    (f"{ND}/p/attempts/20260101T000000Z-carol-partial.lean",         # ... or rewritten
     "-- approach: mine now\n-- licence: CC-BY-4.0\ntheorem Demo.p : 1 + 1 = 2 := rfl\n"),
    (f"{ND}/root--h1/Witness.lean", None),                           # a hole's witness
])
def test_deleting_or_rewriting_a_file_of_the_record_is_record_deleted(
        tmp_path: Path, path: str, data: str | None) -> None:
    out = pull_request(tmp_path, {path: data})
    assert_refused(out, "record-deleted")


def test_a_path_under_a_target_that_does_not_exist_is_unknown_target(tmp_path: Path) -> None:
    out = pull_request(tmp_path, {"targets/ghost/nodes/root/Proof.lean": PROOF_MID})
    assert_refused(out, "unknown-target")
    # with two targets no artifact can adopt the finding: it is still published
    b, _ = base_repo(tmp_path / "two")
    b.target("second")
    base = git_commit(b.root, "a second target")
    b.write("targets/ghost/nodes/root/Proof.lean", PROOF_MID)
    assert_refused(gate(b.root, base, git_commit(b.root, "pull request")), "unknown-target")


def test_an_explainer_of_a_node_without_a_proof_is_refused(tmp_path: Path) -> None:
    rec = {"schema": "explainer/v1", "describes": f"{MID}/Statement.lean",
           "describes_sha256": sha256_hex(b"x"), "author": "alice",
           "date": "2026-03-01T00:00:00Z", "licence": "CC-BY-4.0",
           "sections": [{"steps": [], "text": "Why.", "drafted_with": []}]}
    out = pull_request(tmp_path, {f"{MID}/explainer/20260301T000000Z-alice.yaml":
                                  yaml.safe_dump(rec)})
    assert_refused(out, "explainer-without-proof")


def test_an_alternate_of_a_node_without_a_proof_is_refused(tmp_path: Path) -> None:
    out = pull_request(tmp_path, {f"{MID}/attempts/20260301T000000Z-alice-alternate.lean":
                                  "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := rfl\n"})
    assert_refused(out, "alternate-without-proof")


def test_a_witness_for_a_node_that_is_not_a_blocked_hole_is_refused(tmp_path: Path) -> None:
    """Only a blocked hole takes a witness after admission (D-29): bare is no hole."""
    b, _ = base_repo(tmp_path / "g")
    b.node(T, "bare", statement="theorem Demo.bare : True := by\n  sorry\n", witness=False,
           declaration="Demo.bare")
    base = git_commit(b.root, "a node without a witness")
    b.write(f"{ND}/bare/Witness.lean", "theorem Demo.bare.witness : True := trivial\n")
    head = git_commit(b.root, "a witness for bare")
    assert_refused(gate(b.root, base, head), "witness-not-wanted")


def test_a_proposal_whose_meta_names_another_node_is_id_mismatch(tmp_path: Path) -> None:
    stmt = "theorem Demo.new : True := by\n  sorry\n"
    out = pull_request(tmp_path, proposal("fresh", stmt, meta_bytes=_meta("other", stmt)))
    assert_refused(out, "id-mismatch", step=2)


def test_a_proposal_with_a_wrong_statement_hash_is_refused(tmp_path: Path) -> None:
    out = pull_request(tmp_path, proposal("fresh", statement_hash="0" * 64))
    assert_refused(out, "statement-hash-mismatch")


def test_a_proposal_depending_on_a_missing_node_is_a_dangling_reference(tmp_path: Path
                                                                       ) -> None:
    out = pull_request(tmp_path, proposal("fresh", deps=["ghost"]))
    assert_refused(out, "dangling-reference", step=2)


def test_a_proposed_statement_running_a_command_is_refused(tmp_path: Path) -> None:
    stmt = "theorem Demo.new : True := by\n  sorry\n#eval IO.println \"hi\"\n"
    out = pull_request(tmp_path, proposal("fresh", stmt))
    assert_refused(out, "statement-command-refused")


def test_a_proposal_under_an_id_outside_the_grammar_is_bad_node_id(tmp_path: Path) -> None:
    out = pull_request(tmp_path, proposal("x" * 201))  # the path's name, too long an id
    assert_refused(out, "bad-node-id", step=2)


def test_a_proof_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    out = pull_request(tmp_path, {f"{MID}/Proof.lean": b"theorem Demo.mid \xff\xfe : True\n"})
    assert_refused(out, "not-utf8", step=2)


def test_a_record_that_is_not_yaml_is_malformed_yaml(tmp_path: Path) -> None:
    out = pull_request(tmp_path, {
        f"{MID}/attempts/20260301T000000Z-alice-postmortem.yaml": "schema: [d13/v1\n"})
    assert_refused(out, "malformed-yaml", step=2)


# --- step 0 through the whole gate ----------------------------------------------------


@pytest.mark.parametrize(("over", "code"), [
    ({"verdict": "precheck-fail", "first_failing_step": 5}, "precheck-failed"),
    ({"schema": "precheck-attestation/v2", "verdict": "precheck-toolchain-missing",
      "first_failing_step": 1}, "precheck-toolchain-missing"),  # issue 35, item 6
    ({"node": "aux"}, "precheck-mismatch"),
    ({"date": "yesterday"}, "precheck-malformed"),
])
def test_a_precheck_that_does_not_vouch_for_these_bytes_is_bounced(tmp_path: Path,
                                                                   over: dict[str, Any],
                                                                   code: str) -> None:
    b, base = base_repo(tmp_path / "g")
    b.write(f"{MID}/Proof.lean", PROOF_MID)
    head = git_commit(b.root, "pull request")
    try:
        raw = precheck_raw(b.root, base, head, **over)
    except ValueError:  # the model refuses the field: send the raw JSON instead
        raw = json.dumps({**json.loads(precheck_raw(b.root, base, head) or "{}"), **over})
    out = gate(b.root, base, head, raw=raw)
    assert_refused(out, code)
    assert out.verdict == "bounced"


# --- commits and graphs that do not resolve -------------------------------------------


def test_a_head_that_does_not_resolve_is_git_error(tmp_path: Path) -> None:
    b, base = base_repo(tmp_path / "g")
    with pytest.raises(LemmataError) as exc:
        gate(b.root, base, "f" * 40, raw=None)
    assert exc.value.code == "git-error"
    with pytest.raises(LemmataError) as exc2:
        run_gate(b.root, "no-such-branch", base, toolchain=RecordedToolchain,
                 sandbox=Sandbox())
    assert exc2.value.code == "git-error"


@pytest.mark.parametrize("who", ["", "alice\n", "al ice", "-alice", "a" * 40])
def test_a_submitter_that_is_no_pseudonym_is_submitter_invalid(tmp_path: Path,
                                                               who: str) -> None:
    """The forge's or operator's word for the submitter is checked before anything is
    judged (an attack once got exit 3 from an attestation that could not hold it)."""
    b, base = base_repo(tmp_path / "g")
    with pytest.raises(LemmataError) as exc:
        run_gate(b.root, base, base, toolchain=RecordedToolchain, sandbox=Sandbox(),
                 submitter=who)
    assert exc.value.code == "submitter-invalid"


def test_a_repository_without_a_graph_is_not_a_graph(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "README").write_text("no graph here\n")
    one = git_commit(tmp_path / "r", "one")
    (tmp_path / "r" / "README").write_text("still none\n")
    two = git_commit(tmp_path / "r", "two")
    with pytest.raises(LemmataError) as exc:
        run_gate(tmp_path / "r", one, two, toolchain=RecordedToolchain, sandbox=Sandbox())
    assert exc.value.code == "not-a-graph"


# --- the property: every gate code has a test feeding it -------------------------------

#: Codes the gate can name that no test can feed, each with why. Empty: every code has one
#: (gate-internal-error included: the queue turns an exception into it, test_gate_queue.py).
EXCLUDED: dict[str, str] = {}

#: test modules whose literals do not count: they test the catalog's mechanics
_CATALOG_TESTS = {"test_error_catalog.py", "test_graph_products.py"}
#: this file's own meta-tests name codes to test the machinery: they feed nothing
_META_TESTS = {"test_every_gate_code_has_a_test_feeding_it", "test_the_meta_test_sees_what_it_claims"}
_ASSERTING_CALL = re.compile(r"assert|refus|expect|raises", re.IGNORECASE)


def _str_constants(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _in_catalog_lookup(node: ast.AST) -> set[str]:
    """Literals only looked up in the catalog (``"x" in CATALOG``, ``CATALOG["x"]``)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) and any(
                isinstance(c, ast.Name) and "CATALOG" in c.id.upper() for c in n.comparators):
            out.add(str(n.left.value))
        if (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                and "CATALOG" in n.value.id.upper() and isinstance(n.slice, ast.Constant)):
            out.add(str(n.slice.value))
    return out


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _asserting_helpers(tree: ast.Module) -> set[str]:
    """Names of a test module's own helper functions that assert (an ``assert``, or a call
    of an asserting name or of another such helper), found to a fixpoint."""
    helpers = {n.name: n for n in tree.body
               if isinstance(n, ast.FunctionDef) and not n.name.startswith("test_")}
    asserting: set[str] = set()
    while True:
        more = {name for name, fn in helpers.items() if name not in asserting and any(
            isinstance(n, ast.Assert) or isinstance(n, ast.Call) and (
                _ASSERTING_CALL.search(_call_name(n)) or _call_name(n) in asserting)
            for n in ast.walk(fn))}
        if not more:
            return asserting
        asserting |= more


def asserted_codes(tests_dir: Path = ROOT / "tests") -> dict[str, set[str]]:
    """code-like literal → the test modules that assert it.

    A literal counts when it stands in a test module (``tests/test_*.py``; the catalog's
    own tests and this file's meta-tests aside)

    * inside an ``assert`` statement, unless it is only looked up in the catalog there;
    * in a ``pytest.mark.parametrize`` decorator, or in a module-level table the decorator
      names;
    * in the arguments of a call whose name says it asserts (``assert_…``, ``…refus…``,
      ``expect…``, ``raises``) or of a helper of the module that asserts.

    A table a test only loops over, or a code merely mentioned, does not count.
    """
    found: dict[str, set[str]] = {}
    for path in sorted(tests_dir.glob("test_*.py")):
        if path.name in _CATALOG_TESTS:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        helpers = _asserting_helpers(tree)
        tables = {t.id: node.value for node in tree.body
                  if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(t, ast.Name)}
        lits: set[str] = set()
        for node in (n for top in tree.body if not (
                isinstance(top, ast.FunctionDef) and top.name in _META_TESTS)
                for n in ast.walk(top)):
            name = _call_name(node) if isinstance(node, ast.Call) else ""
            if isinstance(node, ast.Assert) or name == "parametrize" or (
                    name and (_ASSERTING_CALL.search(name) or name in helpers)):
                lits |= _str_constants(node) - _in_catalog_lookup(node)
            if name == "parametrize":
                for arg in ast.walk(node):
                    if isinstance(arg, ast.Name) and arg.id in tables:
                        lits |= _str_constants(tables[arg.id])
        for lit in lits:
            found.setdefault(lit, set()).add(path.name)
    return found


def _emitted_literals(source: str) -> set[str]:
    """String literals of a module that are not docstrings and not only compared with
    (``exc.code != "subprocess-timeout"`` tests for a code, it does not emit one)."""
    tree = ast.parse(source)
    compared: set[int] = set()
    docs: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):
            for side in (n.left, *n.comparators):
                compared |= {id(c) for c in ast.walk(side) if isinstance(c, ast.Constant)}
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = n.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in compared | docs}


def gate_codes(root: Path = ROOT) -> dict[str, str]:
    """Every code the gate can emit → why it is counted, from the catalog and the sources:

    1. every catalog entry with a gate step (``step`` 0-9: D-4's steps and the bounce);
    2. every code a module under ``network/gate/`` defines (whatever its step);
    3. every catalog code a module under ``network/gate/`` names as a literal that is not
       only compared with: the record-level codes (``not-utf8``, ``bad-node-id``,
       ``missing-file``, ...) the gate's steps put in a Diagnostic, return as a result's
       code or raise.

    Modules added under network/gate later are read the same way, so a new gate code
    cannot escape the set.
    """
    cat = full_catalog()
    out = {c: f"catalog step {e.step}" for c, e in cat.items() if e.step is not None}
    gate = root / "network" / "gate"
    for path in sorted(gate.rglob("*.py")):  # steps/ too (issue 17)
        source = path.read_text("utf-8")
        name = path.relative_to(gate).as_posix()
        defined = static_definitions(source)
        names = ([e.code for e, _ in defined] if defined is not None else
                 re.findall(r"define(?:_once)?\(\s*\"([a-z0-9-]+)\"", source))
        for code in names:
            out.setdefault(code, f"defined in network/gate/{name}")
        for lit in sorted(_emitted_literals(source) & set(cat)):
            out.setdefault(lit, f"named in network/gate/{name}")
    return out


def untested(codes: dict[str, str], asserted: dict[str, set[str]]) -> list[str]:
    """The gate codes no test asserts and EXCLUDED does not excuse, sorted."""
    return sorted(c for c in codes if c not in asserted and c not in EXCLUDED)


def test_every_gate_code_has_a_test_feeding_it() -> None:
    """A gate code without a test asserting it fails here: write the test that feeds it its
    bad input (this file shows how), or, only where no input can produce it, add it to
    EXCLUDED with the reason."""
    codes = gate_codes()
    asserted = asserted_codes()
    missing = untested(codes, asserted)
    assert not missing, {c: codes[c] for c in missing}
    stale = sorted(c for c in EXCLUDED if c not in codes or c in asserted)
    assert not stale, f"EXCLUDED lists codes that are tested or no gate code: {stale}"


def test_the_meta_test_sees_what_it_claims() -> None:
    """gate_codes holds the five codes issue 9 names and the record-level codes step 2
    emits, and not the codes the gate only compares with; asserted_codes ignores a code
    that is only looked up in the catalog."""
    codes = gate_codes()
    assert {"hazard-found", "partial-without-holes", "offload-restates-goal", "circular-use",
            "mixed-artifacts", "not-utf8", "bad-node-id", "precheck-missing"} <= set(codes)
    assert "subprocess-timeout" not in codes and "validation-failed" not in codes
    tree = "def test_x():\n    assert 'zz-code' in CATALOG\n    assert f() == 'yy-code'\n"
    assert _in_catalog_lookup(ast.parse(tree)) == {"zz-code"}
    assert "subprocess-timeout" not in _emitted_literals(
        "if exc.code != 'subprocess-timeout':\n    raise LemmataError('sandbox-unavailable', '')\n")


def test_a_new_gate_code_without_a_test_is_caught(tmp_path: Path) -> None:
    """A module under network/gate defining a code, and one naming a record-level code it
    emits, are both counted; the code stays untested until a test asserts it."""
    gate_dir = tmp_path / "network" / "gate"
    gate_dir.mkdir(parents=True)
    (gate_dir / "newstep.py").write_text(
        "from network.errors import define\n"
        "define('brand-new-refusal', 2, 422, 'Meaning.', 'Action.')\n"
        "def check(p):\n    return Diagnostic('not-utf8', 'x', p)\n", "utf-8")
    codes = gate_codes(tmp_path)
    assert codes["brand-new-refusal"] == "defined in network/gate/newstep.py"
    tests_dir = tmp_path / "tests"
    tests_dir.mkdir()
    (tests_dir / "test_new.py").write_text(
        "def test_it():\n    for code in ('brand-new-refusal',):\n"
        "        assert code in CATALOG\n", "utf-8")
    assert "brand-new-refusal" in untested(codes, asserted_codes(tests_dir))
    for body in ("def test_it():\n    assert run().code == 'brand-new-refusal'\n",
                 ("def judged(c):\n    assert run().code == c\n\n"
                  "def test_it():\n    judged('brand-new-refusal')\n"),
                 ("CASES = [('x', 'brand-new-refusal')]\n\n"
                  "@pytest.mark.parametrize(('x', 'code'), CASES)\n"
                  "def test_it(x, code):\n    assert run(x).code == code\n")):
        (tests_dir / "test_new.py").write_text(body, "utf-8")
        assert "brand-new-refusal" not in untested(codes, asserted_codes(tests_dir)), body
