"""Attacks on the gate's judgment of a re-pin pull request (issue 37, commit 321666c).

Each test states an attack. Tests marked HOLE failed on the code at 321666c and hold the
fix (each names it); tests marked HOLDS passed there (the gate refused as it should) and
stay as regression tests; the one marked HARDENING was no exploit inside Lemmata (every
reader of gate-spec.json is Python's json) and is closed too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import REFUTATION_BAD, S_BAD, S_EMPTY, VACUITY_EMPTY

from network.gate import repin_branch as rb
from network.gate.lean.toolchain import MissingToolchain
from network.gate.repin import drift_report
from network.gate.repin_spec import repin_problem
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from tests.graphs import git_commit
from tests.test_repin import (
    GATED_SPEC,
    ND,
    NEW,
    RECORD,
    SPEC_PATH,
    SPEC_TEXT,
    WITNESS_TYPES,
    T,
    _record,  # noqa: F401 - the autouse fixture: every soundness read is the test record
    _theorems,
    clean_answers,
    gate,
    recorded,
    refusals,
    repin_pr,
    small_graph,
    statuses,
)


def _theorem_refusing(decl_suffix: str):
    def check_statement(args: dict[str, Any]) -> dict[str, Any]:
        if any(t.endswith(decl_suffix) for t in args["theorems"]):
            out = _theorems(args, type_equal=False)
            return {**out, "ok": False, "code": "statement-mismatch",
                    "detail": "no longer proves it under the new pin"}
        return _theorems(args)
    return check_statement


def _any_witness(a: dict[str, Any]) -> dict[str, Any]:
    ty = WITNESS_TYPES.get(a["decl"], "True")
    return {"ok": True, "code": None, "expected_type": ty, "witness_type": ty, "axioms": [],
            "axiom_identities": []}


# --- HOLE 1: merged Refutation.lean / Vacuity.lean are never re-elaborated ---------------


@pytest.mark.parametrize(("nid", "stmt", "decl", "kind", "text", "stem"), [
    ("bad", S_BAD, "Demo.bad", "counterexample", REFUTATION_BAD, "Refutation"),
    ("empty", S_EMPTY, "Demo.empty", "vacuity", VACUITY_EMPTY, "Vacuity"),
])
def test_hole_a_merged_refutation_or_vacuity_is_not_rechecked(
        tmp_path: Path, nid: str, stmt: str, decl: str, kind: str, text: str,
        stem: str) -> None:
    """HOLE. A node settled by a merged Refutation.lean (counterexample) or Vacuity.lean
    is a merged file of the target, but the drift report re-elaborates only Statement,
    Witness, Proof and Relation (network/gate/repin.py LEAN_STEMS). So a re-pin under
    which the refutation no longer checks passes the gate, and the record keeps calling
    the node refuted / vacuous under a pin that never checked it."""
    b, _ = small_graph(tmp_path / "g", spec=GATED_SPEC)
    b.node(T, nid, statement=stmt, declaration=decl,
           **({"refutation": text} if stem == "Refutation" else {"vacuity": text}))
    b.merge([f"{ND}/{nid}/{stem}.lean"], artifact_kind=kind)
    base = git_commit(b.root, "base with a settled node")
    _old, spec, new = rb.repinned_bytes(SPEC_PATH, GATED_SPEC.encode(), NEW)
    b.write(SPEC_PATH, new)
    head = git_commit(b.root, "re-pin")
    refusing = _theorem_refusing(f"{decl}.{stem.lower()}")
    answers = clean_answers(check_statement=refusing, check_refutation=refusing,
                            check_witness=_any_witness)
    stand_in = recorded(tmp_path, b, base, spec, answers)
    report = drift_report(b.root, base, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    out = gate(tmp_path, b, base, head, stand_in)
    # the intent: every merged file of the target is re-elaborated before a re-pin passes
    assert out.verdict != "pass", "the re-pin passed with an unchecked " + stem
    assert f"{nid}/{stem}.lean" in statuses(report), statuses(report)


@pytest.mark.parametrize("kind", ["partial", "reduction", "alternate"])
def test_hole_merged_attempts_are_not_rechecked(tmp_path: Path, kind: str) -> None:
    """HOLE (same cause as above). A merged partial or reduction is the proof that its
    node follows from its holes (the closure credits the node once the holes close); a
    merged alternate is a recorded second proof. None is in the drift report, so a re-pin
    under which one no longer checks passes."""
    b, _ = small_graph(tmp_path / "g", spec=GATED_SPEC)
    text = ("theorem Demo.aux (n : Nat) : 0 + n = n := by\n  exact Nat.zero_add n\n"
            if kind == "alternate" else None)
    path = b.partial(T, "aux", "20260102T000000Z", "bob", text, kind=kind)
    b.merge([path], artifact_kind=kind)
    base = git_commit(b.root, "base with a merged attempt")
    _old, spec, new = rb.repinned_bytes(SPEC_PATH, GATED_SPEC.encode(), NEW)
    b.write(SPEC_PATH, new)
    head = git_commit(b.root, "re-pin")
    stand_in = recorded(tmp_path, b, base, spec, clean_answers(check_witness=_any_witness))
    report = drift_report(b.root, base, T, spec, stand_in, Sandbox(),
                          work_dir=tmp_path / "wd", record=RECORD)
    out = gate(tmp_path, b, base, head, stand_in)
    # the fix: a merged file the report does not re-elaborate is not checked, never passed
    checked = {f.path: f.status for f in report.files}
    assert checked.get(path) == "not-checked", checked
    assert out.verdict == "fail"
    assert "repin-not-checkable" in refusals(out)[4], refusals(out)


# --- HOLE 3: a stale re-pin is judged under a spec other than the one that merges ---------


def _spec_text(mathlib_rev: str, fc_rev: str) -> str:
    doc = json.loads(SPEC_TEXT)
    doc["lean_toolchain"] = NEW
    doc["mathlib"]["rev"] = mathlib_rev
    doc["packages"][0]["rev"] = fc_rev
    doc["network_commit"] = json.loads(GATED_SPEC)["network_commit"]
    return json.dumps(doc, indent=2) + "\n"


def _recorded_with_pins(tmp_path: Path, b: Any, sha: str, spec: m.GateSpec,
                        answers: dict[str, Any], revs: list[str]) -> Any:
    """``recorded`` for a spec with Mathlib and packages: a pin directory per Mathlib rev
    whose manifest lists the spec's packages."""
    from gate_scenarios import RecordingToolchain, Scenario, merge_recordings
    from standin import RecordedToolchain

    pins = tmp_path / "pins"
    for rev in revs:
        (pins / rev).mkdir(parents=True, exist_ok=True)
        pkgs = [{"name": "mathlib", "rev": rev, "type": "git",
                 "url": "https://github.com/leanprover-community/mathlib4"},
                *({"name": p.name, "rev": p.rev, "type": "git", "url": p.url}
                  for p in spec.packages)]
        (pins / rev / "lake-manifest.json").write_text(json.dumps({"packages": pkgs}))
    store: dict[str, dict[str, Any]] = {}
    scenario = Scenario("repin", {}, answers)

    def recording(s: m.GateSpec) -> Any:
        t = RecordingToolchain(s, scenario, store)
        t.pins_root = pins
        return t

    drift_report(b.root, sha, T, spec, recording, Sandbox(), work_dir=tmp_path / "record-wd",
                 record=RECORD)
    merge_recordings(store, tmp_path / "recordings")

    def replaying(s: m.GateSpec) -> Any:
        t = RecordedToolchain(s, fixtures=tmp_path / "recordings")
        t.pins_root = pins
        return t
    return replaying


def test_hole_a_stale_repin_merges_a_pin_combination_never_checked(tmp_path: Path) -> None:
    """HOLE. Two curators' re-pins both branch from main M0 (Mathlib m0, Formal
    Conjectures f0). The first moves Mathlib to m1 and merges (M1). The second moves
    Formal Conjectures to f1; the gate judges it against base M1, but its diff is
    merge-base(M0)..head, so the pins it re-elaborates M1's record under are the head's
    (m0, f1). The queue then merges it with a three-way merge (network/forge/local.py
    merge_target), which combines the two line changes cleanly: main's gate-spec becomes
    (m1, f1), a pin set no drift report ever ran under. (The same holds for any non-pin
    field main changed since the branch point.)"""
    import pygit2

    m0, m1, f0, f1 = "a" * 40, "c" * 40, "e" * 40, "f" * 40
    b, _ = small_graph(tmp_path / "g", spec=_spec_text(m0, f0))
    base0 = git_commit(b.root, "M0")
    b.write(SPEC_PATH, _spec_text(m0, f1))
    head = git_commit(b.root, "re-pin Formal Conjectures (branched from M0)")
    repo = pygit2.Repository(str(b.root))
    repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=base0))
    b.write(SPEC_PATH, _spec_text(m1, f0))
    base1 = git_commit(b.root, "M1: the Mathlib re-pin merged")
    judged = m.GateSpec.model_validate_json(_spec_text(m0, f1))
    stand_in = _recorded_with_pins(tmp_path, b, base1, judged,
                                   clean_answers(check_witness=_any_witness), [m0, m1])
    index = repo.merge_commits(base1, head)
    assert index.conflicts is None  # the queue would merge it cleanly
    merged = m.GateSpec.model_validate_json(bytes(repo[index[SPEC_PATH].id].data))
    assert merged != judged  # (m1, f1): never judged
    # the fix: a re-pin cut from a gate-spec that is no longer main's is refused
    out = gate(tmp_path, b, base1, head, stand_in)
    assert out.verdict == "fail"
    assert "repin-stale" in refusals(out)[2], refusals(out)


# --- HOLE 4: a re-pin's attestation (node "root") lifts the root's staleness --------------


def test_hole_a_repin_attestation_re_attests_the_root(tmp_path: Path) -> None:
    """HOLE (inherited: every node-less artifact is attested on ``root``, network/gate/
    steps/outcome.py ``node = art.node or "root"``). The root is proved with lemma-a; a
    revision of lemma-a merges (seq 3) and the root is stale (D-8). A re-pin attestation
    judged at a graph commit including merge 3 is filed under node ``root`` and
    network/record/derive/_index.py ``_reattested`` counts any pass attestation of the
    node, whatever its kind and artifacts: the root is no longer stale though its proof
    was never re-run against the revision. (An approach record, identity binding or
    curators.json change by anyone does the same today.)"""
    from network.record import derive as d
    from network.record.read.loader import load_graph
    from tests.graphs import GraphBuilder, merge_commit_of

    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target(T)
    b.write(SPEC_PATH, GATED_SPEC)
    b.node(T, "root", deps=["lemma-a"])
    b.node(T, "lemma-a")
    b.merge([b.proof(T, "lemma-a")])
    b.merge([b.proof(T, "root")])
    b.node(T, "lemma-a@v2", supersedes="lemma-a")
    b.merge_record([f"{ND}/lemma-a@v2/META.yaml"], "2026-02-01")  # seq 3
    assert d.node_flags(load_graph(b.root), T, "root").stale
    _old, _spec, new = rb.repinned_bytes(SPEC_PATH, GATED_SPEC.encode(), NEW)
    b.write(SPEC_PATH, new)
    b.attest([SPEC_PATH], target=T, node="root", artifact_kind="repin",
             graph_commit=merge_commit_of(3))  # what the gate writes for a re-pin
    assert d.node_flags(load_graph(b.root), T, "root").stale, (
        "a re-pin's attestation lifted the root's staleness")


# --- HOLE 5: the re-pin's attestation names the old pin ---------------------------------


def test_hole_the_repin_attestation_names_the_pin_it_was_judged_under(tmp_path: Path
                                                                      ) -> None:
    """HOLE (record accuracy). The pass attestation of a re-pin is built from the base's
    gate-spec (network/gate/steps/outcome.py ``_finish``: ``spec = t.gate_spec``), so it
    says ``toolchain: leanprover/lean4:v4.27.0`` (the known-unsound pin being left) and
    the old gate_spec_sha256 / mathlib_rev, while every check it records ran under
    v4.34.0. A reader (reproduce.sh, the site, an auditor) takes it as a pass under the
    unsound pin."""
    b, base, head, spec = repin_pr(tmp_path)
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "pass"
    att = out.runs[0].attestation
    assert att is not None and att.artifact_kind == "repin"
    assert att.toolchain == NEW, f"attested as judged under {att.toolchain}"


# --- what held (regression tests; these pass) -----------------------------------------


def _head_with(tmp_path: Path, mutate: Any, *, curators: list[dict[str, Any]] | None = None
               ) -> tuple[Any, str, str, m.GateSpec]:
    b, _ = small_graph(tmp_path / "g", spec=GATED_SPEC)
    if curators is not None:
        b.curators(curators)
    base = git_commit(b.root, "base")
    _old, spec, new = rb.repinned_bytes(SPEC_PATH, GATED_SPEC.encode(), NEW)
    b.write(SPEC_PATH, new)
    mutate(b)
    return b, base, git_commit(b.root, "re-pin"), spec


def test_holds_a_curator_of_another_target_may_not_repin(tmp_path: Path) -> None:
    b, base, head, spec = _head_with(
        tmp_path, lambda b: None,
        curators=[{"pseudonym": "curator", "targets": ["*"]},
                  {"pseudonym": "carol", "targets": ["other"]}])
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in, submitter="carol")
    assert out.verdict == "fail" and "role-not-permitted" in refusals(out)[2]


@pytest.mark.parametrize("extra", [
    "identities/mallory.yaml", "curators.json", "names/mallory.yaml",
    f"targets/{T}/target.yaml", f"targets/{T}/defs/Extra.lean",
])
def test_holds_a_repin_beside_any_other_file_is_refused(tmp_path: Path, extra: str) -> None:
    def mutate(b: Any) -> None:
        p = b.root / extra
        b.write(extra, (p.read_bytes() if p.exists() else b"") + b"\n")
    b, base, head, spec = _head_with(tmp_path, mutate)
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "fail"


def test_holds_a_repin_with_its_spec_made_executable(tmp_path: Path) -> None:
    """The mode rides along unnoticed (classification reads only the bytes): noted, not
    an exploit (no reader executes gate-spec.json)."""
    b, base, head, spec = _head_with(tmp_path, lambda b: (b.root / SPEC_PATH).chmod(0o755))
    stand_in = recorded(tmp_path, b, base, spec, clean_answers())
    out = gate(tmp_path, b, base, head, stand_in)
    assert out.verdict == "fail"
    assert all(r.artifact.kind.value != "repin" for r in out.runs)


@pytest.mark.parametrize("toolchain", [
    "leanprover/lean4:v\u0664.34.0",  # Arabic-Indic digit: \d takes it, kernels.py does not
    "leanprover/lean4:nightly-2027-01-01",  # no fixed nightly in the record: unsound
    "leanprover/lean4:v4.34.0-rc1",  # a release candidate before the fix
])
def test_holds_odd_toolchain_strings_are_refused(tmp_path: Path, toolchain: str) -> None:
    # hand-made (lemmata target repin refuses the first): the gate classifies it a re-pin
    b, base, head, _spec = repin_pr(tmp_path, toolchain, edit=lambda d: None)
    out = gate(tmp_path, b, base, head, MissingToolchain)
    assert out.verdict == "fail"
    assert "toolchain-known-unsound" in refusals(out).get(4, set()), refusals(out)


@pytest.mark.parametrize("bad", [
    b"\xef\xbb\xbf" + GATED_SPEC.replace("v4.27.0", "v4.34.0").encode(),  # BOM
    GATED_SPEC.replace("v4.27.0", "v4.34.0").encode() + b"{}",  # trailing data
    GATED_SPEC.replace("v4.27.0", "v4.34.0").replace(  # a duplicate key, last one widened
        '"network_commit"', '"axioms": ["sorryAx"],\n  "network_commit"').encode(),
    GATED_SPEC.replace("v4.27.0", "v4.34.0").replace(  # a nested extra key
        '"network_commit"', '"caps": {"cpu_s": 1, "extra": 1},\n  "network_commit"').encode(),
])
def test_holds_json_tricks_are_no_repin(bad: bytes) -> None:
    assert repin_problem(SPEC_PATH, GATED_SPEC.encode(), bad) is not None


def test_hardening_a_duplicate_key_rides_on_a_repin() -> None:
    """HARDENING (fails today; no exploit inside Lemmata). ``{"axioms": ["sorryAx"], ...,
    "axioms": [the three]}`` is a re-pin to Python's json (the last key wins), so these
    bytes merge; a reader that keeps the first key, or refuses duplicates (serde_json),
    reads another gate-spec. A re-pin could be required to be exactly the bytes
    ``lemmata target repin`` writes (network/gate/repin_branch.py repinned_bytes)."""
    new = SPEC_TEXT.replace("v4.27.0", "v4.34.0").replace(
        '"schema"', '"axioms": ["sorryAx"],\n  "schema"').encode()
    assert json.loads(new)["axioms"] == json.loads(SPEC_TEXT)["axioms"]  # last key wins
    assert repin_problem(SPEC_PATH, SPEC_TEXT.encode(), new) is not None
