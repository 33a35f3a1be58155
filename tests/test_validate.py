"""``lemmata validate``'s cross-checks: dangling references and signatures (ruling 9)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from network.errors import Problem
from network.proc import run
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.validate import validate_graph
from network.signing import generate_private_key, public_key_record, sign, sign_ssh
from tests.graphs import GraphBuilder, git_commit

T = "demo"
ND = f"targets/{T}/nodes"


def triples(problems: list[Problem]) -> set[tuple[str, str | None, str | None]]:
    return {(p.code, p.path, p.field) for p in problems}


@pytest.fixture()
def b(one_route_graph: GraphBuilder) -> GraphBuilder:
    """The shared small valid graph (tests/conftest.py ``one_route_graph``)."""
    return one_route_graph


def edit_yaml(b: GraphBuilder, path: str, **changes: Any) -> None:
    obj = yaml.safe_load(b.read(path))
    obj.update(changes)
    b.write_yaml(path, obj)


# --- dangling references -----------------------------------------------------------------


def test_meta_references_must_name_existing_nodes_and_files(b: GraphBuilder) -> None:
    edit_yaml(b, f"{ND}/root/META.yaml", deps=["root--h1", "nowhere"], lemmas=["gone"],
              supersedes="old", variant={"of": "missing", "relation": "related"})
    hole = yaml.safe_load(b.read(f"{ND}/root--h1/META.yaml"))["hole"]
    edit_yaml(b, f"{ND}/root--h1/META.yaml",
              hole={**hole, "parent": "ghost", "route": f"{ND}/root/attempts/none.lean"})
    meta, hmeta = f"{ND}/root/META.yaml", f"{ND}/root--h1/META.yaml"
    assert triples(validate_graph(b.root)) == {
        ("dangling-reference", meta, "deps.1"),
        ("dangling-reference", meta, "lemmas.0"),
        ("dangling-reference", meta, "supersedes"),
        ("dangling-reference", meta, "variant.of"),
        ("dangling-reference", hmeta, "hole.parent"),
        ("dangling-reference", hmeta, "hole.route"),
    }


def test_pass_attestation_artifacts_must_exist_fail_ones_need_not(b: GraphBuilder) -> None:
    proof = b.proof(T, "root--h1")
    passed = b.attest([proof])
    failed = b.attest([proof], verdict="fail")
    b.remove(proof)
    assert triples(validate_graph(b.root)) == {
        ("dangling-reference", passed, "artifacts.0.path")}
    assert failed  # a failed run names files that never merged: no problem


def test_merge_closure_ledger_and_record_references(b: GraphBuilder) -> None:
    b.merge_record(["targets/demo/nodes/root/Proof.lean"], "2026-01-03",
                   attestation="attestations/999.json")
    closure = b.closure(T, "root", "route", [("root--h9", f"{ND}/root--h9/Proof.lean")],
                        route=f"{ND}/root/attempts/none.lean")
    proof = b.proof(T, "root--h1")
    b.ledger_line(1, 1, "proof", "alice", T, proof)
    line = b.ledger_line(1, 2, "proof", "alice", T, proof, node="root--h1")
    b.remove(proof)
    wd = b.withdrawal(T, "root", "20260104T000000Z", "curator", f"{ND}/root/defects/x.yaml")
    merges = "log/merges/000002.json"
    assert triples(validate_graph(b.root)) == {
        ("dangling-reference", merges, "artifacts.0"),
        ("dangling-reference", merges, "attestation"),
        ("dangling-reference", closure, "route"),
        ("dangling-reference", closure, "inputs.0.node"),
        ("dangling-reference", closure, "inputs.0.proof"),
        ("dangling-reference", "ledger/000001-1.json", "artifact"),
        ("dangling-reference", line, "artifact"),
        ("dangling-reference", wd, "withdraws"),
    }


def test_node_records_must_name_existing_nodes(b: GraphBuilder) -> None:
    pf = b.proposed_for(T, "root--h1", "20260104T000000Z", "alice", "nope")
    sh = b.shelving(T, "root--h1", "20260104T000000Z", "steve", subject="root--h7")
    ap = b.approach(T, "20260104T000000Z", "alice", "split", nodes=["root", "zzz"])
    assert triples(validate_graph(b.root)) == {
        ("dangling-reference", pf, "node"),
        ("dangling-reference", sh, "subject"),
        ("dangling-reference", ap, "nodes.1"),
    }


def test_a_rich_valid_graph_has_no_problems(b: GraphBuilder) -> None:
    proof = b.proof(T, "root--h1")
    b.merge([proof], date="2026-01-03")
    b.closure(T, "root", "route", [("root--h1", proof)],
              route=f"{ND}/root/attempts/20260102T000000Z-alice-partial.lean", merge_seq=2)
    b.postmortem(T, "root", "20260103T000000Z", "bob")
    b.gloss(T, "root", "20260104T000000Z", "carol", label="Main")
    b.literature(T, "root", "20260104T000000Z", "carol", "open")
    d = b.defect(T, "root", "20260105T000000Z", "dan")
    b.dispute(T, "root", "20260106T000000Z", "curator", d)
    b.ledger_line(2, 1, "proof", "alice", T, proof, node="root--h1")
    b.annex(T, "root")
    assert validate_graph(b.root) == []
    sha = git_commit(b.root, "rich")
    assert validate_graph(b.root, sha) == []


def test_products_written_by_lemmata_products_match_their_schemas(b: GraphBuilder) -> None:
    from network.record.products.products import write_products

    write_products(load_graph(b.root), b.root)
    assert (b.root / "frontier.json").is_file()
    assert validate_graph(b.root) == []
    front = json.loads(b.read("frontier.json"))
    front["nodes"] = "not a list"
    b.write_json("frontier.json", front)
    assert triples(validate_graph(b.root)) == {("invalid-record", "frontier.json", "nodes")}


# --- signatures --------------------------------------------------------------------------


@pytest.fixture()
def gate_key(b: GraphBuilder, tmp_path: Path) -> Any:
    key = generate_private_key(tmp_path / "gate.pem")
    pub = public_key_record(key, "gate-1", "gate", "2026-01-01", "2026-12-31")
    b.write_json("keys/gate-1.json", pub.model_dump(by_alias=True, exclude_none=True))
    return key


def write_signed(b: GraphBuilder, path: str, model: type[m.Record], key: Any,
                 kind: str = "gate", key_id: str = "gate-1") -> m.Record:
    rec = model.model_validate(json.loads(b.read(path)))
    signed = rec.model_copy(update={"signature": sign(rec, key, kind, key_id, kind)})
    b.write_json(path, signed.model_dump(mode="json", by_alias=True, exclude_none=True))
    return signed


def test_signed_gate_records_verify(b: GraphBuilder, gate_key: Any) -> None:
    write_signed(b, "attestations/000001.json", m.Attestation, gate_key)
    write_signed(b, "log/merges/000001.json", m.MergeRecord, gate_key)
    closure = b.closure(T, "root", "route", [("root--h1", f"{ND}/root--h1/Witness.lean")],
                        route=f"{ND}/root/attempts/20260102T000000Z-alice-partial.lean")
    b.write(f"{ND}/root--h1/Witness.lean", "-- w\n")
    write_signed(b, closure, m.Closure, gate_key)
    assert validate_graph(b.root) == []


def test_tampered_signed_attestation_refused(b: GraphBuilder, gate_key: Any) -> None:
    att = "attestations/000001.json"
    write_signed(b, att, m.Attestation, gate_key)
    obj = json.loads(b.read(att))
    obj["toolchain"] = "leanprover/lean4:v4.0.0"
    b.write_json(att, obj)
    assert triples(validate_graph(b.root)) == {("bad-signature", att, "signature")}


def test_unknown_and_expired_keys_refused(b: GraphBuilder, gate_key: Any,
                                          tmp_path: Path) -> None:
    write_signed(b, "attestations/000001.json", m.Attestation, gate_key, key_id="gate-9")
    old = generate_private_key(tmp_path / "old.pem")
    b.write_json("keys/gate-2025.json", public_key_record(
        old, "gate-2025", "gate", "2025-01-01", "2025-12-31").model_dump(
            by_alias=True, exclude_none=True))
    write_signed(b, "log/merges/000001.json", m.MergeRecord, old, key_id="gate-2025")
    assert triples(validate_graph(b.root)) == {
        ("unknown-key", "attestations/000001.json", "signature"),
        ("key-expired", "log/merges/000001.json", "signature"),
    }


def test_gate_records_need_a_gate_key(b: GraphBuilder, tmp_path: Path) -> None:
    svc = generate_private_key(tmp_path / "svc.pem")
    b.write_json("keys/svc-1.json", public_key_record(
        svc, "svc-1", "service", "2026-01-01").model_dump(by_alias=True, exclude_none=True))
    write_signed(b, "attestations/000001.json", m.Attestation, svc, kind="service",
                 key_id="svc-1")
    assert triples(validate_graph(b.root)) == {
        ("bad-signature", "attestations/000001.json", "signature.kind")}


def test_closure_is_judged_by_the_key_valid_at_its_merge(b: GraphBuilder,
                                                         tmp_path: Path) -> None:
    key = generate_private_key(tmp_path / "k.pem")
    b.write_json("keys/gate-h1.json", public_key_record(
        key, "gate-h1", "gate", "2026-01-01", "2026-01-01").model_dump(
            by_alias=True, exclude_none=True))
    b.write(f"{ND}/root--h1/Proof.lean", "-- p\n")
    route = f"{ND}/root/attempts/20260102T000000Z-alice-partial.lean"
    closure = b.closure(T, "root", "route", [("root--h1", f"{ND}/root--h1/Proof.lean")],
                        route=route, merge_seq=1)
    write_signed(b, closure, m.Closure, key, key_id="gate-h1")
    # merge 1 is dated 2026-01-02, the day after the key's last day
    assert triples(validate_graph(b.root)) == {("key-expired", closure, "signature")}


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_ssh_signed_record_checks_the_signers_identity(b: GraphBuilder,
                                                       tmp_path: Path) -> None:
    def keypair(name: str) -> tuple[Path, str]:
        assert run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    str(tmp_path / name)]).rc == 0
        return tmp_path / name, (tmp_path / f"{name}.pub").read_text().strip()

    alice_key, alice_pub = keypair("alice")
    _, bob_pub = keypair("bob")
    b.write_yaml("identities/alice.yaml", {"schema": "identity/v1", "pseudonym": "alice",
                                           "since": "2026-01-01", "ssh_signers": [alice_pub]})
    b.write_yaml("identities/bob.yaml", {"schema": "identity/v1", "pseudonym": "bob",
                                         "since": "2026-01-01", "ssh_signers": [bob_pub]})
    lit = b.literature(T, "root", "20260104T000000Z", "alice", "open")
    rec = m.Literature.model_validate(yaml.safe_load(b.read(lit)))
    sig = sign_ssh(rec, alice_key, "alice")
    b.write_yaml(lit, rec.model_copy(update={"signature": sig}).model_dump(
        mode="json", by_alias=True, exclude_none=True))
    assert validate_graph(b.root) == []
    # the same signature claimed by bob fails; a stranger has no identity at all
    for signer, code in (("bob", "bad-signature"), ("eve", "unknown-key")):
        b.write_yaml(lit, rec.model_copy(update={"signature": sig.model_copy(
            update={"signer": signer})}).model_dump(mode="json", by_alias=True,
                                                      exclude_none=True))
        assert triples(validate_graph(b.root)) == {(code, lit, "signature")}
