"""The JSON Schemas (D-34, ruling 10): committed equals generated, every one is valid
draft 2020-12, and each accepts a valid record and refuses a broken one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from network.cli import main
from network.errors import LemmataError, catalog_json
from network.record import models as m
from network.record import schemas

H64 = "a" * 64
G40 = "b" * 40
SIG = {"kind": "gate", "key_id": "gate-1", "signer": "gate", "value": "AAAA"}

# One minimal valid record per kind; each must also pass its pydantic model.
EXAMPLES: dict[str, dict[str, Any]] = {
    "policy/v1": {"graph_id": "main"},
    "policy/v2": {"graph_id": "main", "owner": "olga", "steward_admission": "reviewed"},
    "curators/v1": {"curators": [{"pseudonym": "carol", "targets": ["*"]}]},
    "curators/v2": {"curators": [{"pseudonym": "carol", "targets": ["*"]}],
                    "date": "2026-01-01", "signature": {**SIG, "kind": "approval"}},
    "identity/v1": {"pseudonym": "alice", "since": "2026-01-01",
                    "ssh_signers": ["ssh-ed25519 AAAAC3 alice@laptop"]},
    "display-name/v1": {"pseudonym": "alice", "name": "Alice A.", "date": "2026-01-01"},
    "key/v1": {"key_id": "gate-1", "kind": "gate", "public_key": "A" * 43 + "=",
               "valid_from": "2026-01-01"},
    "merge/v1": {"seq": 1, "merge_commit": G40, "date": "2026-01-01T00:00:00Z",
                 "pull_request": "local/1", "artifacts": ["targets/t/nodes/root/Proof.lean"],
                 "signature": SIG},
    "attestation/v1": {
        "graph_id": "main", "target": "t", "node": "root", "artifact_kind": "proof",
        "artifacts": [{"path": "targets/t/nodes/root/Proof.lean", "sha256": H64}],
        "toolchain": "leanprover/lean4:v4.22.0", "gate_spec_sha256": H64,
        "base_commit": G40, "head_commit": G40, "graph_commit": G40, "verdict": "pass",
        "steps": [{"step": 1, "name": "resolve", "ok": True}],
        "timestamp": "2026-01-01T00:00:00Z",
        "disclosure": {"method": "agent", "models": ["m"], "framework": "f"},
        "step9": {"basis": "intermediate"}, "signature": SIG,
    },
    "attestation/v2": {
        "graph_id": "main", "target": "t", "node": "root", "artifact_kind": "proof",
        "artifacts": [{"path": "targets/t/nodes/root/Proof.lean", "sha256": H64}],
        "toolchain": "leanprover/lean4:v4.34.0", "gate_spec_sha256": H64,
        "base_commit": G40, "head_commit": G40, "graph_commit": G40, "verdict": "pass",
        "steps": [{"step": 4, "name": "kernel", "ok": True}],
        "timestamp": "2026-01-01T00:00:00Z", "step9": {"basis": "intermediate"},
        "kernels": [{"name": "lean", "version": "4.34.0", "verdict": "accept"},
                    {"name": "nanoda", "version": G40, "verdict": "accept"}],
        "signature": SIG,
    },
    "precheck/v1": {"target": "t", "node": "root", "statement_hash": H64,
                    "verdict": "precheck-pass", "steps": [], "toolchain": "x",
                    "date": "2026-01-01"},
    "precheck-attestation/v1": {
        "graph_id": "main", "target": "t", "node": "root", "artifact_kind": "proof",
        "artifacts": [{"path": "targets/t/nodes/root/Proof.lean", "sha256": H64}],
        "gate_spec_sha256": H64, "toolchain": "x", "verdict": "precheck-pass", "steps": [],
        "date": "2026-01-01T00:00:00Z"},
    "precheck-attestation/v2": {
        "graph_id": "main", "target": "t", "node": "root", "artifact_kind": "proof",
        "artifacts": [{"path": "targets/t/nodes/root/Proof.lean", "sha256": H64}],
        "gate_spec_sha256": H64, "toolchain": "x", "verdict": "precheck-toolchain-missing",
        "first_failing_step": 1,
        "steps": [{"step": 1, "name": "resolve", "ok": False, "code": "toolchain-missing"}],
        "date": "2026-01-01T00:00:00Z"},
    "ledger-line/v1": {"merge_seq": 1, "k": 1, "line": "proof", "identity": "alice",
                       "target": "t", "artifact": "targets/t/nodes/root/Proof.lean",
                       "artifact_sha256": H64},
    "ledger-line/v2": {"merge_seq": 1, "k": 1, "line": "attempts", "identity": "alice",
                       "target": "t", "node": "root",
                       "artifact": "targets/t/nodes/root/attempts/x-postmortem.yaml",
                       "artifact_sha256": H64, "annotation": "induction",
                       "disclosure": {"method": "agent", "models": ["m"], "framework": "f"}},
    "revocation/v1": {"merge_seq": 2, "k": 1, "revokes": "ledger/000001-1.json",
                      "reason": "copy", "by": "carol"},
    "correction/v1": {"merge_seq": 2, "k": 1, "corrects": "ledger/000001-1.json",
                      "credited": "alice", "should_be": "bob", "reason": "r", "by": "carol"},
    "target/v1": {"id": "t", "title": "T", "class": "open-problem",
                  "informal_statement": "Every ...", "listed": "2026-01-01"},
    "gate-spec/v1": {"lean_toolchain": "leanprover/lean4:v4.22.0"},
    "target-status/v1": {"declaration": "active", "curator": "carol", "date": "2026-01-01",
                         "reasoning": "r"},
    "steward/v3": {"pseudonym": "steve", "target": "t", "real_name": "S", "since": "2026-01-01",
                   "commitment": "c"},
    "steward/v4": {"pseudonym": "steve", "target": "t", "action": "join", "real_name": "S",
                   "commitment": "c", "admitted_by": "self", "date": "2026-01-01"},
    "approach/v1": {"target": "t", "author": "alice", "date": "2026-01-01", "title": "x",
                    "state": "proposed"},
    "approach/v2": {"target": "t", "author": "alice", "date": "2026-01-01", "route": "x",
                    "outcome": "blocked", "pinned_mathlib_sha": G40,
                    "model_and_tooling": {"method": "human"}},
    "registration/v1": {"registry": "palomar", "registry_id": "1", "graph_commit": G40,
                        "state": "submitted", "by": "carol", "date": "2026-01-01"},
    "meta/v1": {"id": "root--h1", "target": "t", "declaration": "d", "statement_hash": H64,
                "origin": "compiler-derived",
                "hole": {"parent": "root", "route": "targets/t/nodes/root/attempts/x.lean",
                         "k": 1, "name": "h1"}},
    "d13/v1": {"node": "t/root", "contributor": "alice", "route": "r",
               "route_class": "induction", "outcome": "exhausted",
               "terminal_goal_state": "⊢ False", "failure_class": "missing-library"},
    "annex/v1": {"sha256": H64, "author": "alice", "licence": "CC-BY-4.0", "title": "t",
                 "date": "2026-01-01"},
    "literature/v1": {"status": "open", "summary": "s", "by": "alice", "date": "2026-01-01"},
    "gloss/v1": {"describes": "targets/t/nodes/root/Statement.lean", "describes_sha256": H64,
                 "author": "alice", "date": "2026-01-01", "licence": "CC-BY-4.0",
                 "sections": [{"text": "says"}], "label": "L"},
    "explainer/v1": {"describes": "targets/t/nodes/root/Proof.lean", "describes_sha256": H64,
                     "author": "alice", "date": "2026-01-01", "licence": "CC-BY-4.0",
                     "sections": [{"text": "says", "steps": ["1"]}]},
    "withdrawal/v1": {"withdraws": "targets/t/status/2026-01-01-1.yaml", "by": "carol",
                      "reason": "r", "date": "2026-01-01"},
    "proposed-for/v1": {"node": "root", "by": "alice", "date": "2026-01-01"},
    "shelving/v1": {"subject": "root--h1", "cause": "c", "by": "steve", "date": "2026-01-01"},
    "pertinence/v1": {"target": "demo", "variant": "rel", "sentence_sha256": "a" * 64,
                      "by": "steve", "date": "2026-01-01"},
    "proof-review/v1": {"target": "t", "node": "root", "attestation": "attestations/a.json",
                        "artifacts": [{"path": "targets/t/nodes/root/Proof.lean",
                                       "sha256": "0" * 64}],
                        "decision": "approve", "by": "steve", "date": "2026-01-01"},
    "waiver/v1": {"justification": "j", "author": "alice", "date": "2026-01-01"},
    # D-9 v3.39: the formalization review's records
    "review-opening/v1": {"target": "t", "role": "steward", "words": "w",
                          "intent_signer": "steve", "by": "steve", "date": "2026-01-01"},
    "review-candidate/v1": {"target": "t", "origin": "model", "model": "m",
                            "declaration": "T.main", "concepts": {"prime": "T.P"},
                            "lean_sha256": "0" * 64, "by": "bob", "date": "2026-01-01"},
    "review-exhibit/v1": {"target": "t", "kind": "negation",
                          "candidate": "targets/t/review/candidates/x.yaml",
                          "theorem": "T.neg", "lean_sha256": "0" * 64, "by": "bob",
                          "date": "2026-01-01"},
    "review-attempt/v1": {"target": "t", "screen": "proves",
                          "candidate": "targets/t/review/candidates/x.yaml", "tool": "t",
                          "budget": "60 s", "by": "bob", "date": "2026-01-01"},
    "review-test/v1": {"target": "t", "concept": "prime", "args": ["1"], "expected": "fails",
                       "source": "cited", "citation": "c", "by": "bob",
                       "date": "2026-01-01"},
    "review-question/v1": {"target": "t", "question": "q", "case": "n = 1", "by": "bob",
                           "date": "2026-01-01"},
    "review-answer/v1": {"target": "t", "question": "targets/t/review/questions/x.yaml",
                         "answer": "a", "by": "steve", "date": "2026-01-01"},
    "review-signature/v1": {"target": "t", "role": "intent", "decision": "accept",
                            "cluster": ["targets/t/review/candidates/x.yaml"], "by": "steve",
                            "date": "2026-01-01"},
    "defect/v1": {"class": "vacuous", "line": 1, "claim": "c", "by": "bob",
                  "date": "2026-01-01"},
    "dispute/v1": {"defect": "targets/t/nodes/root/defects/x.yaml", "curator": "carol",
                   "date": "2026-01-01", "reason": "r"},
    "revision-request/v1": {"node": "root", "operation": "revise-statement", "evidence": "e",
                            "by": "bob", "date": "2026-01-01"},
    "closure/v1": {"target": "t", "node": "root", "link": "route",
                   "route": "targets/t/nodes/root/attempts/x.lean",
                   "inputs": [{"node": "root--h1",
                               "proof": "targets/t/nodes/root--h1/Proof.lean"}],
                   "verdict": "proved", "merge_seq": 3, "toolchain": "x"},
    "outline/v1": {"target": "t", "node": "root", "proof": "targets/t/nodes/root/Proof.lean",
                   "proof_sha256": H64, "declarations": ["T.main"],
                   "steps": [{"decl": "T.main", "index": 1, "kind": "have", "name": "h",
                              "lean_only": False, "claim": "1 + 1 = 2", "goal": "True",
                              "constants": ["Nat"], "automation": ["decide"]}],
                   "merge_seq": 3, "toolchain": "x"},
    "approval/v1": {"words": "targets/t/nodes/root/gloss/20260101T000000Z-alice.yaml",
                    "words_sha256": H64, "sections": [0], "by": "steve",
                    "date": "2026-01-01"},
    "motion/v1": {"target": "t", "kind": "invite", "invitee": "eve", "text": "Invite eve",
                  "by": "steve", "date": "2026-01-01"},
    "vote/v1": {"motion": "targets/t/panel/motions/20260101T000000Z-steve.yaml",
                "vote": "yes", "by": "steve", "date": "2026-01-01"},
    "writeup/v2": {"target": "t", "event": "drafted", "title": "On t", "by": "alice",
                   "date": "2026-01-01"},
    "frontier/v1": {"graph_id": "main", "as_of": "2026-01-02T00:00:00Z",
                    "nodes": [{"target": "t", "node": "root", "status": "open"}]},
    "frontier/v2": {"graph_id": "main", "as_of": "2026-01-02T00:00:00Z", "nodes": [{
        "target": "t", "node": "root", "status": "open", "relation": None, "deps": [],
        "library_tags": [], "origin": "authored", "attempts": 0, "refuted_route_classes": [],
        "failure_classes": {"missing-library": 1}, "ready_since": "2026-01-01T00:00:00Z",
        "claim_status": None, "claim_history": [], "annex": False, "bounty": False,
        "literature": None, "claimable": True, "claimable_reason": None, "shelved": False,
        "dormant": False, "speculative": False, "closable": False, "question": False,
        "label": None, "claim": None, "label_source": "id"}]},
    "graph/v1": {"target": "t", "as_of": None,
                 "nodes": [{"id": "root", "statement_hash": H64, "status": "blocked"}],
                 "edges": [{"from": "root", "to": "root--h1", "kind": "hole"}]},
    "index/v1": {"as_of": "2026-01-02", "targets": [{"id": "t", "title": "T"}]},
    "info/v1": {"graph_id": "main", "as_of": "2026-01-02", "schemas": ["meta/v1"],
                "gate_specs": {"t": H64}},
    "errors/v1": {},  # filled from the live catalog below
}


def example(kind: str) -> dict[str, Any]:
    """A valid record of ``kind`` with its ``schema`` field."""
    if kind == "errors/v1":
        return catalog_json()
    return {"schema": kind, **copy.deepcopy(EXAMPLES[kind])}


def broken_examples(kind: str) -> list[tuple[str, dict[str, Any]]]:
    """Records of ``kind`` its schema must refuse, each with why."""
    good = example(kind)
    out = [("schema names another kind", {**good, "schema": "meta/v999"})]
    no_schema = dict(good)
    del no_schema["schema"]
    out.append(("no schema field", no_schema))
    required = schemas.schema_for(kind).get("required", [])
    for fld in required:
        if fld != "schema":
            missing = dict(good)
            missing.pop(fld, None)
            out.append((f"no {fld}", missing))
            break
    if schemas.schema_for(kind).get("additionalProperties") is False:
        out.append(("an unknown field", {**good, "bogus_field": 1}))
    return out


ALL = schemas.all_kinds()


def test_every_kind_has_an_example() -> None:
    assert sorted(EXAMPLES) == ALL


def test_committed_equals_generated() -> None:
    assert schemas.check() == [], "run `lemmata schemas --write` for a NEW version only"
    generated = schemas.generate()
    for rel, data in generated.items():
        assert (schemas.SCHEMAS_DIR / rel).read_bytes() == data, rel


def test_the_named_files_exist() -> None:
    for rel in ("d13/v1.json", "steward/v3.json", "meta/v1.json", "attestation/v1.json",
                "frontier/v1.json", "graph/v1.json", "index/v1.json", "info/v1.json",
                "errors/v1.json"):
        assert (schemas.SCHEMAS_DIR / rel).is_file(), rel


@pytest.mark.parametrize("kind", ALL)
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    s = schemas.load(kind)
    Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == f"urn:lemmata:schema:{kind}"
    assert "schema" in s["required"]


@pytest.mark.parametrize("kind", ALL)
def test_schema_accepts_a_valid_example(kind: str) -> None:
    rec = example(kind)
    errors = [e.message for e in Draft202012Validator(schemas.load(kind)).iter_errors(rec)]
    assert errors == []
    if kind in m.KIND_BY_SCHEMA:  # the model agrees with its schema
        m.KIND_BY_SCHEMA[kind].model_validate(rec)


@pytest.mark.parametrize("kind", ALL)
def test_schema_refuses_broken_examples(kind: str) -> None:
    v = Draft202012Validator(schemas.load(kind))
    for why, rec in broken_examples(kind):
        assert not v.is_valid(rec), f"{kind} accepted a record with {why}"


def test_pattern_and_enum_refusals() -> None:
    v = Draft202012Validator(schemas.load("meta/v1"))
    bad = {**example("meta/v1"), "statement_hash": "XYZ", "origin": "guessed"}
    fields = sorted(".".join(map(str, e.absolute_path)) for e in v.iter_errors(bad))
    assert fields == ["origin", "statement_hash"]


def test_check_reports_a_changed_schema_and_write_refuses_it(tmp_path: Path) -> None:
    root = tmp_path / "schemas"
    assert len(schemas.write(root)) == len(ALL)
    assert schemas.check(root) == []
    edited = root / "meta" / "v1.json"
    body = json.loads(edited.read_bytes())
    body["properties"]["id"]["maxLength"] = 5
    edited.write_text(json.dumps(body), encoding="utf-8")
    (root / "d13" / "v1.json").unlink()
    assert schemas.check(root) == [
        "d13/v1.json: missing",
        "meta/v1.json: differs from its model (a change needs a new version)",
    ]
    with pytest.raises(LemmataError) as exc:
        schemas.write(root)
    assert exc.value.code == "schema-published"
    assert schemas.write(root, force=True) == ["d13/v1.json", "meta/v1.json"]
    # an older version the models no longer generate is kept and not reported
    (root / "meta" / "v0.json").write_text("{}", encoding="utf-8")
    assert schemas.check(root) == []


def test_copy_into_a_graph(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    (graph / "schemas" / "stale").mkdir(parents=True)
    (graph / "schemas" / "stale" / "v1.json").write_text("{}", encoding="utf-8")
    copied = schemas.copy_into(graph)
    assert len(copied) == len(schemas.committed_kinds())
    assert "schemas/meta/v1.json" in copied
    assert not (graph / "schemas" / "stale").exists()
    for rel in copied:
        assert (graph / rel).read_bytes() == (schemas.SCHEMAS_DIR / rel[8:]).read_bytes()


def test_cli_schemas_check_and_write(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["schemas", "--check"])
    assert ok.exit_code == 0, ok.output
    root = tmp_path / "s"
    wrote = runner.invoke(main, ["schemas", "--write", "--root", str(root)])
    assert wrote.exit_code == 0 and f"{len(ALL)} schema file(s) written" in wrote.output
    (root / "meta" / "v1.json").write_text("{}", encoding="utf-8")
    bad = runner.invoke(main, ["schemas", "--check", "--root", str(root)])
    assert bad.exit_code == 1
    assert "differs: meta/v1.json" in bad.output and "schemas-differ" in bad.output
    listing = runner.invoke(main, ["schemas", "--root", str(root)])
    assert "meta/v1\tdiffers" in listing.output and "d13/v1\tok" in listing.output


def test_check_copy_names_missing_changed_and_extra_files(tmp_path: Path) -> None:
    from network.record.read.source import WorktreeSource

    graph = tmp_path / "graph"
    graph.mkdir()
    (graph / "policy.json").write_text("{}", encoding="utf-8")
    assert "schemas/meta/v1.json" in schemas.check_copy(WorktreeSource(graph))
    schemas.copy_into(graph)
    assert schemas.check_copy(WorktreeSource(graph)) == []
    (graph / "schemas" / "meta" / "v1.json").write_text("{}", encoding="utf-8")
    (graph / "schemas" / "meta" / "v7.json").write_text("{}", encoding="utf-8")
    (graph / "schemas" / "d13" / "v1.json").unlink()
    assert schemas.check_copy(WorktreeSource(graph)) == [
        "schemas/d13/v1.json", "schemas/meta/v1.json", "schemas/meta/v7.json"]
