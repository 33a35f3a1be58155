"""Signatures (ruling 9): Ed25519 round trips, and every refusal with its catalog code."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.proc import run
from network.record import models as m
from network.signing import (
    canonical_json,
    generate_private_key,
    load_private_key,
    private_key_from_env,
    public_key_record,
    record_body,
    sign,
    sign_ssh,
    verify,
    verify_ssh,
)

BODY: dict[str, Any] = {
    "schema": "merge/v1", "seq": 1, "merge_commit": "a" * 40, "date": "2026-03-01",
    "pull_request": "local/1", "artifacts": ["targets/t/nodes/root/Proof.lean"],
    "note": "∀ n, ∃ p > n",
}


def code_of(exc: pytest.ExceptionInfo[LemmataError]) -> str:
    return exc.value.code


def test_canonical_json_is_sorted_compact_utf8_without_signature() -> None:
    a = canonical_json({"b": 1, "a": {"d": [1, 2], "c": "é"}, "signature": {"x": 1}})
    assert a == '{"a":{"c":"é","d":[1,2]},"b":1}'.encode()
    assert canonical_json({"a": {"c": "é", "d": [1, 2]}, "b": 1}) == a
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_null_fields_read_as_absent() -> None:
    assert canonical_json({"a": 1, "b": None, "c": {"d": None}}) == b'{"a":1,"c":{}}'


def test_canonical_json_of_a_model_equals_that_of_its_written_dict() -> None:
    rec = m.MergeRecord.model_validate({k: v for k, v in BODY.items() if k != "note"})
    written = record_body(rec)
    assert "submitter" not in written and written["schema"] == "merge/v1"
    assert canonical_json(rec) == canonical_json(written)


def test_round_trip(signing_key: Any) -> None:
    key, pub = signing_key
    sig = sign(BODY, key, "gate", "gate-test", "gate")
    assert sig.kind == "gate" and sig.key_id == "gate-test" and len(sig.value) == 88
    verify(BODY, sig, {"gate-test": pub}, "2026-03-01")
    # the stored record, with its signature inside, verifies the same way
    verify({**BODY, "signature": sig.model_dump()}, sig, {"gate-test": pub}, "2026-03-01")


def test_signed_model_round_trip(signing_key: Any) -> None:
    key, pub = signing_key
    rec = m.MergeRecord.model_validate({k: v for k, v in BODY.items() if k != "note"})
    sig = sign(rec, key, "gate", "gate-test", "gate")
    signed = rec.model_copy(update={"signature": sig})
    verify(record_body(signed), sig, {"gate-test": pub}, rec.date)


@pytest.mark.parametrize("tamper", [
    lambda b: {**b, "seq": 2},
    lambda b: {**b, "note": b["note"] + " "},
    lambda b: {**b, "extra": 0},
    lambda b: {k: v for k, v in b.items() if k != "note"},
])
def test_tampered_body_refused(signing_key: Any, tamper: Any) -> None:
    key, pub = signing_key
    sig = sign(BODY, key, "gate", "gate-test", "gate")
    with pytest.raises(LemmataError) as exc:
        verify(tamper(BODY), sig, {"gate-test": pub}, "2026-03-01")
    assert code_of(exc) == "bad-signature"


def test_wrong_key_refused(signing_key: Any, tmp_path: Path) -> None:
    key, _ = signing_key
    other = generate_private_key(tmp_path / "other.pem")
    impostor = public_key_record(other, "gate-test", "gate", "2026-01-01")
    sig = sign(BODY, key, "gate", "gate-test", "gate")
    with pytest.raises(LemmataError) as exc:
        verify(BODY, sig, {"gate-test": impostor}, "2026-03-01")
    assert code_of(exc) == "bad-signature"


def test_unknown_key_refused(signing_key: Any) -> None:
    key, pub = signing_key
    sig = sign(BODY, key, "gate", "gate-9", "gate")
    with pytest.raises(LemmataError) as exc:
        verify(BODY, sig, {"gate-test": pub}, "2026-03-01")
    assert code_of(exc) == "unknown-key"


def test_key_of_another_kind_refused(signing_key: Any) -> None:
    key, _ = signing_key
    as_service = public_key_record(key, "svc", "service", "2026-01-01")
    sig = sign(BODY, key, "gate", "svc", "gate")
    with pytest.raises(LemmataError) as exc:
        verify(BODY, sig, {"svc": as_service}, "2026-03-01")
    assert code_of(exc) == "bad-signature"


@pytest.mark.parametrize("at_date,ok", [
    ("2026-01-01", True),              # first day of validity
    ("2026-06-30T23:59:59Z", True),    # last second of the last day
    ("2025-12-31T23:59:59Z", False),   # before valid_from
    ("2026-07-01", False),             # after valid_until
])
def test_expired_key_refused(tmp_path: Path, at_date: str, ok: bool) -> None:
    key = generate_private_key(tmp_path / "k.pem")
    pub = public_key_record(key, "gate-2026h1", "gate", "2026-01-01", "2026-06-30")
    sig = sign(BODY, key, "gate", "gate-2026h1", "gate")
    if ok:
        verify(BODY, sig, {"gate-2026h1": pub}, at_date)
    else:
        with pytest.raises(LemmataError) as exc:
            verify(BODY, sig, {"gate-2026h1": pub}, at_date)
        assert code_of(exc) == "key-expired"


def test_garbage_signature_value_refused(signing_key: Any) -> None:
    _, pub = signing_key
    sig = m.Signature(kind="gate", key_id="gate-test", signer="gate", value="not base64!")
    with pytest.raises(LemmataError) as exc:
        verify(BODY, sig, {"gate-test": pub}, None)
    assert code_of(exc) == "bad-signature"


def test_private_key_files(tmp_path: Path) -> None:
    path = tmp_path / "gate.pem"
    key = generate_private_key(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    loaded = load_private_key(path)
    assert public_key_record(loaded, "k", "gate", "2026-01-01") == \
        public_key_record(key, "k", "gate", "2026-01-01")
    with pytest.raises(FileExistsError):
        generate_private_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(LemmataError) as exc:
        load_private_key(path)
    assert code_of(exc) == "key-file-insecure"
    with pytest.raises(LemmataError) as exc:
        load_private_key(tmp_path / "absent.pem")
    assert code_of(exc) == "bad-private-key"


def test_private_key_from_env(tmp_path: Path) -> None:
    path = tmp_path / "gate.pem"
    key = generate_private_key(path)
    env = {"LEMMATA_GATE_KEY": path.read_text()}
    got = private_key_from_env("LEMMATA_GATE_KEY", env)
    assert public_key_record(got, "k", "gate", "2026-01-01").public_key == \
        public_key_record(key, "k", "gate", "2026-01-01").public_key
    for bad_env in ({}, {"LEMMATA_GATE_KEY": "-----BEGIN NONSENSE-----"}):
        with pytest.raises(LemmataError) as exc:
            private_key_from_env("LEMMATA_GATE_KEY", bad_env)
        assert code_of(exc) == "bad-private-key"


def test_public_key_record_is_a_valid_key_v1(signing_key: Any) -> None:
    _, pub = signing_key
    assert pub.schema_ == "key/v1" and pub.algorithm == "ed25519"
    assert len(pub.public_key) == 44


# --- sshsig ----------------------------------------------------------------------------

needs_ssh_keygen = pytest.mark.skipif(shutil.which("ssh-keygen") is None,
                                      reason="ssh-keygen is not installed")


def _ssh_key(tmp_path: Path, name: str) -> tuple[Path, str]:
    path = tmp_path / name
    done = run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)])
    assert done.rc == 0, done.err
    return path, (tmp_path / f"{name}.pub").read_text().strip()


@needs_ssh_keygen
def test_ssh_round_trip_and_refusals(tmp_path: Path) -> None:
    key, pub = _ssh_key(tmp_path, "alice")
    _, other_pub = _ssh_key(tmp_path, "mallory")
    sig = sign_ssh(BODY, key, "alice")
    assert sig.kind == "ssh" and sig.signer == "alice"
    verify_ssh(BODY, sig, [pub])
    verify_ssh(BODY, sig, [other_pub, pub])  # any allowed key of the signer
    cases = [
        ({**BODY, "seq": 9}, sig, [pub], "bad-signature"),                # tampered
        (BODY, sig, [other_pub], "bad-signature"),                        # key not allowed
        (BODY, sig, [], "unknown-key"),                                   # no allowed keys
        (BODY, sig.model_copy(update={"value": sig.value[:-8] + "AAAAAAA="}), [pub],
         "bad-signature"),                                                # corrupted
    ]
    for body, s, allowed, code in cases:
        with pytest.raises(LemmataError) as exc:
            verify_ssh(body, s, allowed)
        assert code_of(exc) == code


@needs_ssh_keygen
def test_ssh_signature_from_another_namespace_refused(tmp_path: Path) -> None:
    key, pub = _ssh_key(tmp_path, "alice")
    done = run(["ssh-keygen", "-Y", "sign", "-f", str(key), "-n", "git"],
               input_bytes=canonical_json(BODY))
    assert done.rc == 0, done.err
    value = "".join(done.out.strip().splitlines()[1:-1])
    sig = m.Signature(kind="ssh", key_id="ssh:alice", signer="alice", value=value)
    with pytest.raises(LemmataError) as exc:
        verify_ssh(BODY, sig, [pub])
    assert code_of(exc) == "bad-signature"


@needs_ssh_keygen
def test_ssh_signer_cannot_inject_allowed_signers_options(tmp_path: Path) -> None:
    key, pub = _ssh_key(tmp_path, "alice")
    sig = sign_ssh(BODY, key, "alice").model_copy(update={"signer": "*"})
    with pytest.raises(LemmataError) as exc:
        verify_ssh(BODY, sig, [pub])
    assert code_of(exc) == "bad-signature"
