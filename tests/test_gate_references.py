"""Step 2 refuses what ``lemmata validate`` would refuse at main after the merge, on real git
graphs through ``lemmata gate run``: a record whose reference dangles (a merged record can
never be deleted, so main would stay red), a signature that does not verify against the base
graph's keys on a record no role-act rule judges, and a precheck record that is not what
the precheck writes (D-34). A refused pull request leaves main validating; one whose
references resolve, to a file the same pull request adds or one on base, passes and main
still validates after it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.cli import main
from network.gate.records.references import precheck_key
from network.record import models as m
from network.record.read.loader import sha256_hex
from network.record.validate import ReferenceIndex, validate_graph
from tests.graphs import GraphBuilder, git_commit

T = "demo"
ND = f"targets/{T}/nodes"
TS = "20260105T000000Z"
DATE = "2026-01-05"
GHOST = f"{ND}/root/Nope.lean"


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    """demo with nodes root and lemma, curator ``curator``, the builder's keys and an
    approval key that expired in 2025, committed as base."""
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    old = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
    b.write_json("keys/old-approval.json", signing.public_key_record(
        old, "old-approval", "approval", "2024-01-01", "2025-12-31").model_dump(
            by_alias=True, exclude_none=True))
    return b, git_commit(b.root, "base")


def gate(b: GraphBuilder, base: str, submitter: str, tmp: Path) -> tuple[int, list[str]]:
    """``lemmata gate run`` on base..head; returns (exit code, step-2 codes of the published
    attestation). Main validates whatever the verdict: at base when refused, at head when
    the change passed (the change is then what merges)."""
    head = git_commit(b.root, "head")
    res = CliRunner().invoke(main, ["gate", "run", "--graph", str(b.root), "--base", base,
                                    "--head", head, "--out", str(tmp / "out"),
                                    "--submitter", submitter])
    body = json.loads(res.output)
    [written] = body["written"]
    att = m.attestation_from_json(Path(written).read_text("utf-8"))
    step2 = next((s for s in att.steps if s.step == 2), None)
    codes = [d["code"] for d in step2.diagnostics] if step2 is not None else []
    if res.exit_code == 1:
        assert att.verdict == "fail" and att.first_failing_step == 2, att
    assert validate_graph(b.root, commit=base) == []
    if res.exit_code == 0:
        assert validate_graph(b.root, commit=head) == [], "a passed change left main red"
    return res.exit_code, codes


def _rec(kind: str, ref: str, who: str = "alice") -> tuple[str, dict[str, Any]]:
    """(folder, record) of one contributor record of ``kind`` whose reference is ``ref``."""
    if kind == "literature":
        return "literature", {"schema": "literature/v1", "status": "open", "summary": "s",
                              "by": who, "date": DATE, "supersedes": ref}
    if kind == "defect":
        return "defects", {"schema": "defect/v1", "class": "vacuous", "line": 1, "claim": "c",
                           "exhibit": ref, "by": who, "date": DATE}
    if kind == "gloss":
        return "gloss", {"schema": "gloss/v1", "describes": ref, "describes_sha256": "0" * 64,
                         "author": who, "date": DATE, "licence": "CC-BY-4.0",
                         "sections": [{"text": "t"}]}
    if kind == "proposed-for":
        return "proposed-for", {"schema": "proposed-for/v1", "node": ref, "by": who,
                                "date": DATE}
    return "revision-requests", {"schema": "revision-request/v1", "node": ref,
                                 "operation": "revise-statement", "evidence": "e", "by": who,
                                 "date": DATE}


KINDS = ["literature", "defect", "gloss", "proposed-for", "revision-request"]
DANGLING = {"literature": f"{ND}/root/literature/20250101T000000Z-ghost.yaml",
            "defect": GHOST, "gloss": GHOST, "proposed-for": "nonexistent",
            "revision-request": "nonexistent"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_dangling_reference_is_refused_and_main_stays_green(
        kind: str, repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    folder, rec = _rec(kind, DANGLING[kind])
    b.write_yaml(f"{ND}/root/{folder}/{TS}-alice.yaml", rec)
    code, codes = gate(b, base, "alice", tmp_path)
    assert (code, codes) == (1, ["dangling-reference"])
    # what the gate refused is exactly what validate would report at main after a merge
    head = git_commit(b.root, "as if merged")
    assert [p.code for p in validate_graph(b.root, commit=head)] == ["dangling-reference"]


def _base_ref(b: GraphBuilder, kind: str) -> str:
    if kind == "literature":
        return b.literature(T, "root", "20260101T000000Z", "bob", "open", signed=False)
    if kind in ("proposed-for", "revision-request"):
        return "lemma"
    return f"{ND}/root/Statement.lean"


@pytest.mark.parametrize("kind", KINDS)
def test_a_reference_to_base_passes(kind: str, tmp_path: Path) -> None:
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    ref = _base_ref(b, kind)
    base = git_commit(b.root, "base")
    folder, rec = _rec(kind, ref)
    if kind == "gloss":
        rec["describes_sha256"] = b.sha(ref)
    b.write_yaml(f"{ND}/root/{folder}/{TS}-alice.yaml", rec)
    assert gate(b, base, "alice", tmp_path) == (0, [])


def test_a_reference_to_a_file_the_same_pull_request_adds_passes(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    first = b.literature(T, "root", "20260104T000000Z", "alice", "open", signed=False)
    _, rec = _rec("literature", first)
    b.write_yaml(f"{ND}/root/literature/{TS}-alice.yaml", rec)
    assert gate(b, base, "alice", tmp_path) == (0, [])


def test_a_reference_to_a_file_the_pull_request_deletes_dangles(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    """Deleting a base file and naming it is refused twice over, never passed."""
    b, base = repo
    _, rec = _rec("defect", f"{ND}/lemma/Statement.lean")
    b.remove(f"{ND}/lemma/Statement.lean")
    b.write_yaml(f"{ND}/root/defects/{TS}-alice.yaml", rec)
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1 and "dangling-reference" in codes


def test_the_reference_rule_is_validates_own() -> None:
    """One rule, two callers: the index resolves a record's references as validate does."""
    idx = ReferenceIndex([f"{ND}/root/META.yaml", f"{ND}/root/Statement.lean"])
    path = f"{ND}/root/proposed-for/{TS}-alice.yaml"
    assert idx.references(path, _rec("proposed-for", "root")[1]) == []
    [p] = idx.references(path, _rec("proposed-for", "ghost")[1])
    assert (p.code, p.field, p.path) == ("dangling-reference", "node", path)
    assert idx.references(path, {"schema": "postmortem/v1"}) == []


# --- signatures on records no role-act rule judges -----------------------------------


def _literature(b: GraphBuilder, sig: dict[str, Any] | None = None) -> None:
    rec: dict[str, Any] = {"schema": "literature/v1", "status": "known-true", "summary": "s",
                           "by": "alice", "date": DATE}
    if sig is not None:
        rec["signature"] = sig
    b.write_yaml(f"{ND}/root/literature/{TS}-alice.yaml", rec)


def _signed_by(key: Ed25519PrivateKey, key_id: str) -> dict[str, Any]:
    rec = {"schema": "literature/v1", "status": "known-true", "summary": "s", "by": "alice",
           "date": DATE}
    return signing.sign(m.Literature.model_validate(rec), key, "approval", key_id,
                        "alice").model_dump()


def test_a_garbage_signature_on_a_contributor_record_is_refused(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    _literature(b, {"kind": "approval", "key_id": "builder-approval", "signer": "alice",
                    "value": "AAAA"})
    assert gate(b, base, "alice", tmp_path) == (1, ["bad-signature"])


def test_a_signature_by_an_unknown_key_is_refused(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    _literature(b, _signed_by(Ed25519PrivateKey.generate(), "alices-own-key"))
    assert gate(b, base, "alice", tmp_path) == (1, ["unknown-key"])


def test_a_key_added_by_the_same_pull_request_does_not_count(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    """Keys are read from base: a key the pull request plants vouches for nothing."""
    b, base = repo
    key = Ed25519PrivateKey.generate()
    b.write_json("keys/planted.json", signing.public_key_record(
        key, "planted", "approval", "2026-01-01").model_dump(by_alias=True,
                                                             exclude_none=True))
    _literature(b, _signed_by(key, "planted"))
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1 and "unknown-key" in codes


def test_a_signature_by_an_expired_key_is_refused(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    old = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
    _literature(b, _signed_by(old, "old-approval"))
    assert gate(b, base, "alice", tmp_path) == (1, ["key-expired"])


def test_a_record_signed_with_a_base_key_passes(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    b.literature(T, "root", TS, "alice", "known-true")  # signed with the approval key
    assert gate(b, base, "alice", tmp_path) == (0, [])


def test_a_role_act_is_judged_once(repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    """A curator's dispute with a forged signature is actors.py's to refuse; the generic
    signature rule does not report it a second time."""
    b, base = repo
    defect = b.defect(T, "root", "20260101T000000Z", "bob")
    base = git_commit(b.root, "defect")
    p = b.dispute(T, "root", TS, "curator", defect)
    text = b.read(p).decode().replace("value: ", "value: AAAA", 1)
    b.write(p, text)
    code, codes = gate(b, base, "curator", tmp_path)
    assert code == 1
    assert [c for c in codes if c in ("bad-signature", "unknown-key", "key-expired")] == []
    assert [c for c in codes if c.startswith("role-")], codes


# --- precheck records (D-34) ---------------------------------------------------------


def _precheck(b: GraphBuilder, **change: Any) -> tuple[str, dict[str, Any]]:
    """An honest precheck-fail record of demo/root as pregate.sh --record writes it, with
    ``change`` applied; returns (its honest path, the record)."""
    goal = "unsolved goals\n⊢ False"
    rec: dict[str, Any] = {
        "schema": "precheck/v1", "target": T, "node": "root",
        "statement_hash": b.sha(f"{ND}/root/Statement.lean"), "verdict": "precheck-fail",
        "first_failing_step": 3, "goal_state_sha256": sha256_hex(goal.encode()),
        "terminal_goal_state": goal, "steps": [], "toolchain": "leanprover/lean4:v4.34.0",
        "date": DATE}
    key = precheck_key(rec["statement_hash"], rec["goal_state_sha256"], 3)
    rec.update(change)
    return f"{ND}/root/attempts/precheck/{key}.json", rec


def test_an_honest_precheck_record_passes(repo: tuple[GraphBuilder, str],
                                          tmp_path: Path) -> None:
    b, base = repo
    path, rec = _precheck(b)
    b.write_json(path, rec)
    assert gate(b, base, "alice", tmp_path) == (0, [])


def test_the_attackers_precheck_record_is_refused_for_each_lie(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    _, rec = _precheck(b, target="other", node="elsewhere", statement_hash="0" * 64,
                       signature={"kind": "service", "key_id": "service",
                                  "signer": "operator", "value": "AAAA"})
    b.write_json(f"{ND}/root/attempts/precheck/{'ab' * 32}.json", rec)
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1
    assert sorted(codes) == ["id-mismatch", "precheck-record-mismatch",
                             "statement-hash-mismatch", "unknown-key"]


@pytest.mark.parametrize("lie", [
    lambda rec: {"first_failing_step": 4},  # the name is the key of other fields
    lambda rec: {"goal_state_sha256": "1" * 64},  # not the goal state's hash
    lambda rec: {"terminal_goal_state": "another goal"},
])
def test_a_precheck_record_that_is_not_its_own_key_is_refused(
        lie: Callable[[dict[str, Any]], dict[str, Any]], repo: tuple[GraphBuilder, str],
        tmp_path: Path) -> None:
    b, base = repo
    path, rec = _precheck(b)
    b.write_json(path, {**rec, **lie(rec)})
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1 and set(codes) == {"precheck-record-mismatch"}, codes


def test_a_precheck_record_for_another_node_is_refused(
        repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    b, base = repo
    path, rec = _precheck(b)
    b.write_json(path.replace("/root/", "/lemma/"), rec)
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1 and "id-mismatch" in codes


@pytest.mark.parametrize("rec", [
    {"schema": "meta/v1", "deps": 5, "hole": "x"},  # another kind's shape, refs malformed
    {"schema": "closure/v1", "node": 3, "inputs": 5, "route": [1]},
    {"schema": "defect/v1", "class": "vacuous", "line": 1, "claim": "c", "by": "alice",
     "date": DATE, "exhibit": {"a": 1}, "signature": "zz"},
])
def test_a_malformed_record_is_refused_not_crashed_on(
        rec: dict[str, Any], repo: tuple[GraphBuilder, str], tmp_path: Path) -> None:
    """References are judged only on a record that validates as its place's model: the
    rest is step 2's record check's (exit 1, never an exception's exit 3)."""
    b, base = repo
    b.write_yaml(f"{ND}/root/defects/{TS}-alice.yaml", rec)
    code, codes = gate(b, base, "alice", tmp_path)
    assert code == 1 and "invalid-record" in codes and "dangling-reference" not in codes
