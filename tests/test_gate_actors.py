"""Step 2's actor rules on real git repositories (ruling 14, issue 9): a record naming
another actor, and a role act unsigned, wrongly signed, or signed by a key not bound to the
role, each refused at step 2 with its own code, exit 1 and a published attestation; the
graph at main still validates afterwards."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.api.identity.role_acts import sign_role_act
from network.cli import main
from network.errors import CATALOG, LemmataError
from network.record import dormancy, trust
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.unverified import unverified
from network.record.validate import validate_graph
from tests.graphs import (
    BUILDER_APPROVAL_KEY,
    BUILDER_APPROVAL_KEY_ID,
    GraphBuilder,
    git_commit,
)

T = "demo"
ND = f"targets/{T}/nodes"
TS = "20260105T000000Z"
needs_ssh_keygen = pytest.mark.skipif(shutil.which("ssh-keygen") is None,
                                      reason="ssh-keygen is not installed")


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    """demo with steward steve (signed), curator ``curator``, a root with one merged gloss
    by alice, an old approval key that expired in 2025, and steve's SSH identity when
    ssh-keygen exists."""
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    gloss = b.gloss(T, "root", "20260102T000000Z", "alice")
    b.merge([gloss], date="2026-01-02", node="root", artifact_kind="gloss")
    old = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
    b.write_json("keys/old-approval.json", signing.public_key_record(
        old, "old-approval", "approval", "2024-01-01", "2025-12-31").model_dump(
            by_alias=True, exclude_none=True))
    if shutil.which("ssh-keygen"):
        key = tmp_path / "steve_ssh"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "steve", "-f",
                        str(key)], check=True)
        b.write_yaml("identities/steve.yaml", {
            "schema": "identity/v1", "pseudonym": "steve", "since": "2026-01-01",
            "ssh_signers": [key.with_suffix(".pub").read_text().strip()]})
    return b, git_commit(b.root, "base")


def gate(b: GraphBuilder, base: str, submitter: str | None, tmp: Path) -> tuple[int, list[str]]:
    """``lemmata gate run`` on base..head; returns (exit code, step-2 codes of the published
    attestation) after checking the attestation was written and main still validates."""
    head = git_commit(b.root, "head")
    args = ["gate", "run", "--graph", str(b.root), "--base", base, "--head", head,
            "--out", str(tmp / "out")]
    if submitter is not None:
        args += ["--submitter", submitter]
    res = CliRunner().invoke(main, args)
    body = json.loads(res.output)
    [written] = body["written"]
    att = m.attestation_from_json(Path(written).read_text("utf-8"))
    assert att.submitter == submitter
    step2 = next((s for s in att.steps if s.step == 2), None)
    codes = [d["code"] for d in step2.diagnostics] if step2 is not None else []
    if res.exit_code == 1:
        assert att.verdict == "fail" and att.first_failing_step == 2, att
    assert validate_graph(b.root, commit=base) == []
    return res.exit_code, codes


def _rec(b: GraphBuilder, path: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(b.read(path))
    return data


# --- records are bound to their submitter --------------------------------------------


def _postmortem_field(b: GraphBuilder) -> None:
    b.postmortem(T, "root", TS, "alice")
    p = f"{ND}/root/attempts/{TS}-alice-postmortem.yaml"
    b.write_yaml(p, {**_rec(b, p), "contributor": "mallory"})


def _postmortem_name(b: GraphBuilder) -> None:
    b.postmortem(T, "root", TS, "alice")
    p = f"{ND}/root/attempts/{TS}-alice-postmortem.yaml"
    data = b.read(p)
    b.remove(p)
    b.write(p.replace("-alice-", "-mallory-"), data)


def _literature_by_steward(b: GraphBuilder) -> None:  # the attack
    p = b.literature(T, "root", TS, "steve", "known-true")
    data = b.read(p)
    b.remove(p)
    b.write(p.replace("-steve.yaml", "-alice.yaml"), data)


def _gloss_author(b: GraphBuilder) -> None:
    p = b.gloss(T, "lemma", TS, "alice")
    b.write_yaml(p, {**_rec(b, p), "author": "mallory"})


def _approach_author(b: GraphBuilder) -> None:
    p = b.approach(T, TS, "alice", "Split by parity")
    b.write_yaml(p, {**_rec(b, p), "author": "mallory"})


def _defect_by(b: GraphBuilder) -> None:
    p = b.defect(T, "root", TS, "alice")
    b.write_yaml(p, {**_rec(b, p), "by": "mallory"})


def _annex_author(b: GraphBuilder) -> None:
    md = b.annex(T, "root", author="mallory")
    assert md.endswith(".md")


def _withdrawal_by_curator(b: GraphBuilder) -> None:  # the other attack
    b.withdrawal(T, None, TS, "alice", f"targets/{T}/stewards/steve.yaml", signed=False)
    p = f"targets/{T}/withdrawals/{TS}-alice.yaml"
    b.write_yaml(p, {**_rec(b, p), "by": "curator"})


def _partial_name(b: GraphBuilder) -> None:
    b.partial(T, "root", TS, "mallory", "-- approach: x\n-- licence: CC-BY-4.0\n")


@pytest.mark.parametrize("write", [
    _postmortem_field, _postmortem_name, _literature_by_steward, _gloss_author,
    _approach_author, _defect_by, _annex_author, _withdrawal_by_curator, _partial_name,
], ids=lambda f: f.__name__.lstrip("_"))
def test_a_record_naming_another_actor_is_refused(repo: Any, tmp_path: Path, write: Any) -> None:
    b, base = repo
    write(b)
    rc, codes = gate(b, base, "alice", tmp_path)
    assert rc == 1 and "actor-not-submitter" in codes, codes


def test_a_record_filed_by_its_own_actor_passes(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.postmortem(T, "root", TS, "alice")
    assert gate(b, base, "alice", tmp_path) == (0, [])


def test_an_unknown_submitter_names_no_actor(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.postmortem(T, "root", TS, "alice")
    rc, codes = gate(b, base, None, tmp_path)
    assert rc == 1 and codes.count("actor-not-submitter") == 2, codes  # field and file name


def test_case_is_not_identity(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.postmortem(T, "root", TS, "Alice")
    rc, codes = gate(b, base, "alice", tmp_path)
    assert rc == 1 and "actor-not-submitter" in codes


# --- role acts are signed --------------------------------------------------------------


def test_a_signed_shelving_by_the_steward_passes(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.shelving(T, "lemma", TS, "steve")
    assert gate(b, base, "steve", tmp_path) == (0, [])


def test_an_unsigned_shelving_is_role_act_unsigned(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.shelving(T, "lemma", TS, "steve", signed=False)
    assert gate(b, base, "steve", tmp_path) == (1, ["role-act-unsigned"])


def test_a_tampered_shelving_is_role_signature_invalid(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    p = b.shelving(T, "lemma", TS, "steve")
    b.write_yaml(p, {**_rec(b, p), "cause": "something else than was signed"})
    assert gate(b, base, "steve", tmp_path) == (1, ["role-signature-invalid"])


def _resign(b: GraphBuilder, p: str, model: type[m.Record], key: Ed25519PrivateKey,
            kind: str, key_id: str, signer: str) -> None:
    rec = {k: v for k, v in _rec(b, p).items() if k != "signature"}
    sig = signing.sign(model.model_validate(rec), key, kind, key_id, signer)
    b.write_yaml(p, {**rec, "signature": sig.model_dump()})


@pytest.mark.parametrize("how", ["gate-key", "other-signer", "expired-key", "unknown-key"])
def test_a_valid_signature_by_a_key_not_bound_to_the_role(repo: Any, tmp_path: Path,
                                                          how: str) -> None:
    from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

    b, base = repo
    p = b.shelving(T, "lemma", TS, "steve")
    if how == "gate-key":  # the gate's key signs verdicts, not a steward's judgment
        _resign(b, p, m.Shelving, BUILDER_GATE_KEY, "gate", BUILDER_GATE_KEY_ID, "steve")
    elif how == "other-signer":  # the approval key vouching for alice, not steve
        _resign(b, p, m.Shelving, BUILDER_APPROVAL_KEY, "approval", BUILDER_APPROVAL_KEY_ID,
                "curator")
    elif how == "expired-key":
        old = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
        _resign(b, p, m.Shelving, old, "approval", "old-approval", "steve")
    else:
        _resign(b, p, m.Shelving, Ed25519PrivateKey.generate(), "approval", "nope", "steve")
    # each signature verifies over the record with its own key: only the binding is wrong
    assert gate(b, base, "steve", tmp_path) == (1, ["role-key-unbound"])


def test_a_steward_acting_before_their_stewardship_is_unbound(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    b.shelving(T, "lemma", "20251201T000000Z", "steve")  # steve is steward from 2026-01-01
    assert gate(b, base, "steve", tmp_path) == (1, ["role-key-unbound"])


def test_a_backdated_act_signed_with_a_retired_key_is_unbound(repo: Any, tmp_path: Path) -> None:
    """The record's date is the filer's word: dated 2025 while the old approval key was
    valid, but judged on a main whose clock (the merge log) is 2026, it is refused."""
    b, base = repo
    defect = b.defect(T, "root", "20250501T000000Z", "bob")  # a reference that resolves
    base = git_commit(b.root, "a defect on base")
    p = b.dispute(T, "root", "20250601T000000Z", "curator", defect, signed=False)
    old = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
    _resign(b, p, m.Dispute, old, "approval", "old-approval", "curator")
    code, codes = gate(b, base, "curator", tmp_path)
    assert (code, codes) == (1, ["role-key-unbound"]), codes


def test_a_withdrawal_filed_under_another_target_withdraws_nothing(tmp_path: Path) -> None:
    """A curator of ``other`` only, filing under other/withdrawals/ a signed withdrawal of
    demo's steward record: refused at step 2, and derive ignores such a record if one were
    ever on main (an attack once stripped demo's steward this way)."""
    from network.record import derive
    from network.record.read.loader import load_graph

    b = GraphBuilder(tmp_path / "g").base()
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": ["other"]}])
    b.target(T)
    b.node(T, "root")
    b.target("other", steward=None)
    b.node("other", "root")
    base = git_commit(b.root, "base")
    w = b.withdrawal("other", None, TS, "cora", f"targets/{T}/stewards/steve.yaml")
    assert gate(b, base, "cora", tmp_path / "a") == (1, ["withdrawal-elsewhere"])
    head = git_commit(b.root, "the withdrawal, as if merged")
    g = load_graph(b.root, commit=head)
    assert derive.stewards_of(g, T) == ["steve"]
    assert w in unverified(g)


def test_an_unsigned_steward_record_is_no_steward(repo: Any, tmp_path: Path) -> None:
    """A shelving by a pseudonym whose steward record is unsigned: no role to sign with."""
    b, base = repo
    b.steward(T, "sam", signed=False)
    base2 = git_commit(b.root, "unsigned steward on main")
    b.shelving(T, "lemma", TS, "sam")
    rc, codes = gate(b, base2, "sam", tmp_path)
    assert rc == 1 and "role-key-unbound" in codes, codes
    del base


@needs_ssh_keygen
def test_ssh_signatures_by_the_listed_key_pass_and_others_are_unbound(
        repo: Any, tmp_path: Path) -> None:
    b, base = repo
    p = b.shelving(T, "lemma", TS, "steve", signed=False)
    rec = m.Shelving.model_validate(_rec(b, p))
    good = signing.sign_ssh(rec, tmp_path / "steve_ssh", "steve")
    b.write_yaml(p, {**_rec(b, p), "signature": good.model_dump()})
    assert gate(b, base, "steve", tmp_path / "a") == (0, [])
    other = tmp_path / "other_ssh"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)],
                   check=True)
    bad = signing.sign_ssh(rec, other, "steve")
    b.write_yaml(p, {**_rec(b, p), "signature": bad.model_dump()})
    assert gate(b, base, "steve", tmp_path / "b") == (1, ["role-key-unbound"])


def test_dormancy_dispute_and_steward_records_are_signed(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    # D-33's evidence: N days without progress, the series named (issue 18)
    series = {k: v for k, v in dormancy.dormancy_series(
        load_graph(b.root), T, "2026-04-05").items() if k != "meets"}
    b.target_status(T, "dormant", "2026-04-05", curator="curator", signed=False,
                    starvation_series=series)
    assert gate(b, base, "curator", tmp_path / "a") == (1, ["role-act-unsigned"])
    b.target_status(T, "dormant", "2026-04-05", curator="curator", starvation_series=series)
    assert gate(b, base, "curator", tmp_path / "b") == (0, [])
    b.remove(f"targets/{T}/status/2026-04-05-1.yaml")
    p = b.steward(T, "sam")
    _resign(b, p, m.Steward, BUILDER_APPROVAL_KEY, "approval", BUILDER_APPROVAL_KEY_ID,
            "alice")  # neither sam nor a curator
    assert gate(b, base, "curator", tmp_path / "c") == (1, ["role-key-unbound"])


def test_a_forged_approval_on_a_gloss_is_refused(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    p = b.gloss(T, "lemma", TS, "alice", approved_by=["steve"])
    rec = _rec(b, p)
    rec["sections"][0]["text"] = "Words steve never approved."
    b.write_yaml(p, rec)
    assert gate(b, base, "alice", tmp_path / "a") == (1, ["role-signature-invalid"])
    b.gloss(T, "lemma", TS, "alice", approved_by=["steve"])
    assert gate(b, base, "alice", tmp_path / "b") == (0, [])


def test_withdrawing_another_record_rests_on_a_signed_role(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    gloss = f"{ND}/root/gloss/20260102T000000Z-alice.yaml"
    b.withdrawal(T, "root", TS, "alice", gloss, signed=False)  # the author's own: no role
    assert gate(b, base, "alice", tmp_path / "a") == (0, [])
    b.remove(f"{ND}/root/withdrawals/{TS}-alice.yaml")
    b.withdrawal(T, "root", TS, "curator", gloss, signed=False)
    assert gate(b, base, "curator", tmp_path / "b") == (1, ["role-act-unsigned"])
    b.remove(f"{ND}/root/withdrawals/{TS}-curator.yaml")
    b.withdrawal(T, "root", TS, "curator", gloss)
    assert gate(b, base, "curator", tmp_path / "c") == (0, [])


def test_every_code_is_published_at_step_2() -> None:
    for code in ("actor-not-submitter", "role-act-unsigned", "role-signature-invalid",
                 "role-key-unbound"):
        assert CATALOG[code].step == 2


# --- the service signs a role act for the signed-in identity ----------------------------


class _Svc:
    def __init__(self, keys: dict[str, tuple[str, Any]] | None) -> None:
        self.keys = keys


class _Who:
    pseudonym = "steve"


def test_the_service_signs_a_role_act_or_refuses_without_the_key() -> None:
    rec = {"schema": "withdrawal/v1", "withdraws": f"{ND}/root/gloss/x.yaml", "by": "steve",
           "reason": "r", "date": "2026-01-05"}
    with pytest.raises(LemmataError) as err:
        sign_role_act(_Svc(None), m.Withdrawal, rec, _Who())  # type: ignore[arg-type]
    assert err.value.code == "approval-key-missing"
    signed = sign_role_act(_Svc({"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)}),
                           m.Withdrawal, rec, _Who())  # type: ignore[arg-type]
    model = m.Withdrawal.model_validate(signed)
    keys = {BUILDER_APPROVAL_KEY_ID: signing.public_key_record(
        BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID, "approval", "2000-01-01")}
    trust.check_role_signature(model, model.signature, actors=frozenset({"steve"}),
                               holds=lambda _w, _d: True, at_date=model.date, keys=keys,
                               identities={})


@needs_ssh_keygen
def test_a_plain_git_steward_signs_a_shelving_with_their_ssh_key(repo: Any,
                                                                 tmp_path: Path) -> None:
    b, base = repo
    p = b.shelving(T, "lemma", TS, "steve", signed=False)
    b.write(p, trust.sign_record_ssh(p, b.read(p), m.Shelving, tmp_path / "steve_ssh", "steve"))
    assert _rec(b, p)["signature"]["kind"] == "ssh"
    assert gate(b, base, "steve", tmp_path) == (0, [])


def test_lemmata_sign_record_signs_a_role_act_in_place(repo: Any, tmp_path: Path) -> None:
    if not shutil.which("ssh-keygen"):
        pytest.skip("ssh-keygen is not installed")
    b, base = repo
    p = b.shelving(T, "lemma", TS, "steve", signed=False)
    res = CliRunner().invoke(main, ["sign-record", str(b.root / p), "--graph", str(b.root),
                                    "--key", str(tmp_path / "steve_ssh"), "--signer", "steve"])
    assert res.exit_code == 0, res.output
    assert _rec(b, p)["signature"]["kind"] == "ssh"
    assert gate(b, base, "steve", tmp_path) == (0, [])
    res = CliRunner().invoke(main, ["sign-record", str(b.root / "policy.json"), "--graph",
                                    str(b.root), "--key", str(tmp_path / "steve_ssh"),
                                    "--signer", "steve"])
    assert res.exit_code == 1 and "path-not-permitted" in res.output
