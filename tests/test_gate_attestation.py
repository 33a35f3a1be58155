"""Attestations and the step-0 precheck bounce (D-4, D-5, D-34, ruling 7)."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.forge.types import precheck_from_body
from network.gate import attestation as A
from network.gate.result import Diagnostic, StepResult
from network.record import models as m

SPEC = m.GateSpec(lean_toolchain="leanprover/lean4:v4.22.0",
                  precheck=m.PrecheckPolicy(accepted_signature_kinds=["service", "none"],
                                            max_age_s=3600))
SPEC_SHA = "a" * 64
ARTS = [m.ArtifactHash(path="targets/t/nodes/root/Proof.lean", sha256="b" * 64)]
KEY = Ed25519PrivateKey.generate()
KEYS = {"svc-1": signing.public_key_record(KEY, key_id="svc-1", kind="service",
                                           valid_from="2026-01-01")}


def precheck(**over: object) -> m.PrecheckAttestation:
    body: dict[str, object] = {
        "graph_id": "g", "target": "t", "node": "root", "artifact_kind": "proof",
        "artifacts": ARTS, "gate_spec_sha256": SPEC_SHA, "toolchain": SPEC.lean_toolchain,
        "verdict": "precheck-pass", "steps": [], "date": "2026-02-01T10:00:00Z"}
    body.update(over)
    return m.PrecheckAttestation(**body)  # type: ignore[arg-type]


def signed(att: m.PrecheckAttestation) -> m.PrecheckAttestation:
    return att.model_copy(update={"signature": signing.sign(att, KEY, "service", "svc-1", "svc")})


def check(raw: str | None, head_date: str = "2026-02-01T10:30:00Z"):
    return A.check_precheck(raw, spec=SPEC, gate_spec_sha256=SPEC_SHA, target="t", node="root",
                            artifacts=ARTS, head_date=head_date, keys=KEYS)


def raw_of(att: m.PrecheckAttestation) -> str:
    block = A.precheck_block(att)
    got = precheck_from_body(f"Proof of root.\n\n{block}\nthanks")
    assert got is not None
    return got


def test_a_signed_passing_precheck_is_consumed() -> None:
    res, consumed = check(raw_of(signed(precheck())))
    assert res.ok and consumed is not None and consumed.signature_kind == "service"


def test_an_unsigned_precheck_is_accepted_where_none_is_allowed() -> None:
    res, consumed = check(raw_of(precheck()))
    assert res.ok and consumed is not None and consumed.signature_kind == "none"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (None, "precheck-missing"),
        ("{not json", "precheck-malformed"),
    ],
)
def test_missing_or_malformed(raw: str | None, code: str) -> None:
    res, consumed = check(raw)
    assert (res.step, res.ok, res.code, consumed) == (0, False, code, None)


def test_stale_precheck_is_bounced() -> None:
    res, _ = check(raw_of(signed(precheck())), head_date="2026-02-01T12:00:01Z")
    assert res.code == "precheck-stale"


def test_a_tampered_signature_is_bounced() -> None:
    att = signed(precheck())
    forged = att.model_copy(update={"node": "root", "verdict": "precheck-pass",
                                    "first_failing_step": 4})
    assert A.check_precheck(raw_of(forged), spec=SPEC, gate_spec_sha256=SPEC_SHA, target="t",
                            node="root", artifacts=ARTS, head_date="2026-02-01T10:30:00Z",
                            keys=KEYS)[0].code == "precheck-unsigned"


def test_other_bytes_are_a_mismatch() -> None:
    other = [m.ArtifactHash(path=ARTS[0].path, sha256="c" * 64)]
    res, _ = check(raw_of(signed(precheck(artifacts=other))))
    assert res.code == "precheck-mismatch"


def test_a_refused_kind() -> None:
    spec = SPEC.model_copy(update={"precheck": m.PrecheckPolicy(
        accepted_signature_kinds=["service"], max_age_s=3600)})
    res, _ = A.check_precheck(raw_of(precheck()), spec=spec, gate_spec_sha256=SPEC_SHA,
                              target="t", node="root", artifacts=ARTS,
                              head_date="2026-02-01T10:30:00Z", keys=KEYS)
    assert res.code == "precheck-kind-refused"


def test_a_failed_precheck_is_bounced() -> None:
    res, _ = check(raw_of(signed(precheck(verdict="precheck-fail", first_failing_step=5))))
    assert res.code == "precheck-failed"


def test_verdicts() -> None:
    ok = [StepResult.passed(i) for i in range(9)]
    assert A.verdict_of(ok, held=False) == ("pass", None)
    assert A.verdict_of(ok, held=True) == ("held", None)
    bad4 = ok[:4] + [StepResult.refused(4, [Diagnostic("x", "y")])]
    assert A.verdict_of(bad4, held=False) == ("fail", 4)
    assert A.verdict_of([StepResult.refused(0, [Diagnostic("x", "y")])], False) == ("bounced", 0)


def _att(runner: str | None) -> m.Attestation:
    return A.build_attestation(
        graph_id="g", target="t", node="root", statement_hash="d" * 64, artifact_kind="proof",
        artifacts=ARTS, spec=SPEC, gate_spec_sha256=SPEC_SHA, toolchain_hash=None,
        base_commit="1" * 40, head_commit="2" * 40, graph_commit="1" * 40,
        head_date="2026-02-01T10:00:00Z", steps=[StepResult.passed(i) for i in range(1, 9)],
        step9=m.Step9(basis="intermediate"), held=False, runner=runner)


def test_reruns_are_identical_once_masked_and_signatures_verify() -> None:
    gate = Ed25519PrivateKey.generate()
    keys = {"gate-1": signing.public_key_record(gate, key_id="gate-1", kind="gate",
                                                valid_from="2026-01-01")}
    a = A.sign_attestation(_att("local"), gate, "gate-1")
    b = A.sign_attestation(_att("hosted").model_copy(update={"merge_commit": "3" * 40}),
                           gate, "gate-1")
    assert A.attestation_bytes(a) != A.attestation_bytes(b)
    assert A.masked(a) == A.masked(b)
    assert A.attestation_id(a) == A.attestation_id(b)
    signing.verify(a, a.signature, keys, a.timestamp)  # type: ignore[arg-type]
    body = json.loads(A.attestation_bytes(a))
    assert body["verdict"] == "pass" and [s["step"] for s in body["steps"]] == list(range(1, 9))
