"""Derive trusts only what verifies (ruling 14, issue 9): an unsigned or wrongly signed
steward record, role record or attestation changes no status and is listed unverified;
the same records signed change what they always changed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.errors import LemmataError
from network.record import derive as d
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.unverified import unverified
from network.record.words import words_chains
from tests.graphs import BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID, GraphBuilder

T = "demo"
ND = f"targets/{T}/nodes"


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    g = GraphBuilder(tmp_path / "g").base()
    g.target(T, steward=None)
    g.node(T, "root")
    g.node(T, "lemma")
    return g


def load(b: GraphBuilder) -> Any:
    return load_graph(b.root)


def test_an_unsigned_steward_record_is_no_steward(b: GraphBuilder) -> None:
    path = b.steward(T, "steve", signed=False)
    g = load(b)
    assert d.stewards_of(g, T) == []
    assert d.claimable(g, T, "root") == (False, "claim-no-steward")
    assert path in unverified(g)
    b.steward(T, "steve")
    g = load(b)
    assert d.stewards_of(g, T) == ["steve"] and d.claimable(g, T, "root") == (True, None)
    assert path not in unverified(g)


@pytest.mark.skipif(shutil.which("dot") is None, reason="the site draws with Graphviz")
def test_the_target_page_shows_an_unverified_record(b: GraphBuilder, tmp_path: Path) -> None:
    from tests.site_support import build

    path = b.steward(T, "steve", signed=False)
    build(b.root, tmp_path / "site")
    page = (tmp_path / "site" / "targets" / T / "index.html").read_text("utf-8")
    assert "Records that do not verify" in page and path in page
    b.steward(T, "steve")
    build(b.root, tmp_path / "site2")
    page = (tmp_path / "site2" / "targets" / T / "index.html").read_text("utf-8")
    assert "Records that do not verify" not in page


def test_a_steward_record_signed_for_someone_else_is_no_steward(b: GraphBuilder) -> None:
    rec = {"schema": "steward/v3", "pseudonym": "steve", "target": T, "real_name": "S",
           "since": "2026-01-01", "commitment": "c"}
    b.write_yaml(f"targets/{T}/stewards/steve.yaml", b.signed(m.Steward, rec, "mallory"))
    assert d.stewards_of(load(b), T) == []
    b.write_yaml(f"targets/{T}/stewards/steve.yaml", b.signed(m.Steward, rec, "curator"))
    assert d.stewards_of(load(b), T) == ["steve"]  # D-32: a curator adding them directly


def test_an_unsigned_attestation_is_no_verdict(b: GraphBuilder) -> None:
    proof = b.proof(T, "lemma")
    att = b.attest([proof], signed=False)
    g = load(b)
    assert d.node_status(g, T, "lemma") == "open"
    assert not d.is_merged(g, proof, b.sha(proof))
    assert att in unverified(g)
    b.attest([proof], name="signed")
    g = load(b)
    assert d.node_status(g, T, "lemma") == "proved" and d.is_merged(g, proof, b.sha(proof))


@pytest.mark.parametrize("how", ["approval-key", "key-not-in-keys", "expired", "tampered"])
def test_an_attestation_not_signed_by_a_valid_gate_key_is_no_verdict(b: GraphBuilder,
                                                                     how: str) -> None:
    proof = b.proof(T, "lemma")
    att = b.attest([proof], signed=False, date="2026-03-01")
    rec = {k: v for k, v in yaml.safe_load(b.read(att)).items()}
    model = m.Attestation.model_validate(rec)
    if how == "approval-key":
        sig = signing.sign(model, BUILDER_APPROVAL_KEY, "approval", BUILDER_APPROVAL_KEY_ID,
                           "gate")
    elif how == "key-not-in-keys":
        sig = signing.sign(model, Ed25519PrivateKey.generate(), "gate", "gate-x", "gate")
    elif how == "expired":
        old = Ed25519PrivateKey.generate()
        b.write_json("keys/gate-old.json", signing.public_key_record(
            old, "gate-old", "gate", "2025-01-01", "2026-01-31").model_dump(
                by_alias=True, exclude_none=True))
        sig = signing.sign(model, old, "gate", "gate-old", "gate")
    else:
        from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID
        sig = signing.sign(model, BUILDER_GATE_KEY, "gate", BUILDER_GATE_KEY_ID, "gate")
        rec["node"] = "root"  # a verdict moved to another node after signing
    b.write_json(att, {**rec, "signature": sig.model_dump()})
    g = load(b)
    assert d.node_status(g, T, "lemma") == "open" and d.node_status(g, T, "root") == "open"
    assert att in unverified(g)


def test_an_unsigned_withdrawal_by_a_curator_removes_no_steward(b: GraphBuilder) -> None:
    steward = b.steward(T, "steve")
    w = b.withdrawal(T, None, "20260105T000000Z", "curator", steward, signed=False)
    g = load(b)
    assert d.stewards_of(g, T) == ["steve"] and w in unverified(g)
    b.withdrawal(T, None, "20260105T000000Z", "curator", steward)
    assert d.stewards_of(load(b), T) == ["steve"]  # D-22: one role-holder removes no one
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": [T]}])
    b.withdrawal(T, None, "20260106T000000Z", "cora", steward)
    assert d.stewards_of(load(b), T) == []


def test_an_unsigned_literature_reading_is_a_proposal(b: GraphBuilder) -> None:
    b.steward(T, "steve")
    lit = b.literature(T, "root", "20260105T000000Z", "steve", "known-true", signed=False)
    g = load(b)
    st = d.literature_status(g, T, "root")
    assert st is not None and st["source"] == "proposed" and lit in unverified(g)
    b.literature(T, "root", "20260105T000000Z", "steve", "known-true")
    st = d.literature_status(load(b), T, "root")
    assert st is not None and st["source"] == "confirmed"


def test_unsigned_shelving_dispute_and_status_records_change_nothing(b: GraphBuilder) -> None:
    b.steward(T, "steve")
    sh = b.shelving(T, "lemma", "20260105T000000Z", "steve", signed=False)
    defect = b.defect(T, "root", "20260105T000000Z", "alice")
    dp = b.dispute(T, "root", "20260106T000000Z", "curator", defect, signed=False)
    st = b.target_status(T, "dormant", "2026-01-07", signed=False)
    g = load(b)
    assert not d.node_flags(g, T, "lemma").shelved
    assert not d.node_flags(g, T, "root").disputed
    assert d.target_status(g, T).status == "listed"
    assert {sh, dp, st} <= unverified(g)
    b.shelving(T, "lemma", "20260105T000000Z", "steve")
    b.dispute(T, "root", "20260106T000000Z", "curator", defect)
    b.target_status(T, "dormant", "2026-01-07")
    g = load(b)
    assert d.node_flags(g, T, "lemma").shelved and d.node_flags(g, T, "root").disputed
    assert d.target_status(g, T).status == "dormant"
    assert not ({sh, dp, st} & unverified(g))


def test_a_role_act_before_the_stewardship_counts_for_nothing(b: GraphBuilder) -> None:
    b.steward(T, "steve", since="2026-02-01")
    b.shelving(T, "lemma", "20260105T000000Z", "steve")  # signed, but steve was not steward
    assert not d.node_flags(load(b), T, "lemma").shelved
    assert d.holds_role(load(b), T, "steve", "2026-02-02")
    assert not d.holds_role(load(b), T, "steve", "2026-01-05")


def test_a_forged_approval_leaves_the_words_unapproved(b: GraphBuilder) -> None:
    b.steward(T, "steve")
    good = b.gloss(T, "lemma", "20260105T000000Z", "alice", approved_by=["steve"])
    g = load(b)
    [chain] = words_chains(g, T, "lemma", "gloss")
    assert chain["current"]["approvals"] == ["steve"] and good not in unverified(g)
    rec = yaml.safe_load(b.read(good))
    rec["sections"][0]["text"] = "Not what steve approved."
    b.write_yaml(good, rec)
    g = load(b)
    [chain] = words_chains(g, T, "lemma", "gloss")
    assert chain["current"]["approvals"] == [] and good in unverified(g)


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_sshsig_read_in_python_agrees_with_ssh_keygen(tmp_path: Path) -> None:
    key = tmp_path / "k"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    pub = key.with_suffix(".pub").read_text()
    body = {"schema": "x", "n": 1, "text": "é"}
    sig = signing.sign_ssh(body, key, "steve")
    signing.verify_sshsig(body, sig, [pub])
    signing.verify_ssh(body, sig, [pub])
    with pytest.raises(LemmataError) as err:
        signing.verify_sshsig({**body, "n": 2}, sig, [pub])
    assert err.value.code == "bad-signature"
    other = subprocess.run(["ssh-keygen", "-Y", "sign", "-f", str(key), "-n", "git"],
                           input=signing.canonical_json(body), capture_output=True, check=True)
    lines = other.stdout.decode().strip().splitlines()[1:-1]
    wrong_ns = sig.model_copy(update={"value": "".join(lines)})
    with pytest.raises(LemmataError) as err:
        signing.verify_sshsig(body, wrong_ns, [pub])  # signed for git, not for lemmata
    assert err.value.code == "bad-signature"


def test_an_unsigned_closure_record_proves_nothing(b: GraphBuilder) -> None:
    b.target(T, steward=None, calibration=True, cls="calibration")
    part = b.partial(T, "root", "20260102T000000Z", "alice")
    b.hole(T, "root", 1, part, witness=True)
    b.merge([part], date="2026-01-02", node="root")
    proof = b.proof(T, "root--h1")
    b.merge([proof], date="2026-01-03", node="root--h1")
    cl = b.closure(T, "root", "route", [("root--h1", proof)], route=part, signed=False)
    g = load(b)
    assert d.node_status(g, T, "root") == "open" and cl in unverified(g)
    b.closure(T, "root", "route", [("root--h1", proof)], route=part)
    g = load(b)
    assert d.node_status(g, T, "root") == "proved" and cl not in unverified(g)


def test_the_forked_verifier_judges_as_the_serial_one(b: GraphBuilder,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record import trust

    paths = []
    for i in range(6):
        proof = b.proof(T, "lemma", f"-- proof {i}\n")
        paths.append(b.attest([proof], name=f"a{i}", signed=i % 2 == 0))
    rec = yaml.safe_load(b.read(paths[2]))
    rec["node"] = "root"  # tampered after signing
    b.write_json(paths[2], rec)
    g = load(b)
    atts = list(g.attestations)
    monkeypatch.setattr(trust, "_GATE_SIGNED", {})
    monkeypatch.setattr(trust, "PARALLEL_MIN_ATTESTATIONS", 10**9)
    serial = trust.gate_signed_paths(atts, g.keys)
    monkeypatch.setattr(trust, "_GATE_SIGNED", {})
    monkeypatch.setattr(trust, "PARALLEL_MIN_ATTESTATIONS", 2)
    forked = trust.gate_signed_paths(atts, g.keys)
    assert serial == forked == {paths[0], paths[4]}
    assert trust.gate_signed_paths(atts, g.keys) == serial  # from the memo
