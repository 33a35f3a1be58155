"""Issue 35, item 6: one precheck answer (D-28, D-34).

A precheck that found no toolchain for the target's pin judged nothing, so its job's
``state``, its ``diagnostics.verdict`` and its signed attestation's ``verdict`` all say so
alike: ``toolchain-missing`` and ``precheck-toolchain-missing`` in a
precheck-attestation/v2. v1 attestations stay valid and readable (their schema is
published and frozen); step 0 refuses the new verdict as no pass, with its own code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from network.api.submit import precheck
from network.gate import attestation as A
from network.gate.result import Diagnostic, StepResult
from network.record import models as m
from tests.api_flow_support import TUTORIAL_PROOF, FlowNet

H64 = "a" * 64
BODY: dict[str, Any] = {
    "graph_id": "main", "target": "t", "node": "root", "artifact_kind": "proof",
    "artifacts": [{"path": "targets/t/nodes/root/Proof.lean", "sha256": H64}],
    "gate_spec_sha256": H64, "toolchain": "x", "first_failing_step": 1,
    "steps": [{"step": 1, "name": "resolve", "ok": False, "code": "toolchain-missing"}],
    "date": "2026-01-01T00:00:00Z"}


def _precheck_without_a_toolchain(tmp_path: Path, monkeypatch: Any, text: str) -> Any:
    """The finished job of a tutorial-proof precheck of ``text`` on a service with no Lean
    anywhere (the product default, detect_toolchain, finds none)."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    net = FlowNet.create(tmp_path, None)
    with TestClient(net.app()) as client:
        r = client.post("/precheck", json={"target": "tutorial", "node": "tutorial",
                                           "artifact_type": "proof", "text": text})
        assert r.status_code == 202, r.text
        precheck.pool(client.app.state.svc).drain()  # type: ignore[attr-defined]
        return client.get(f"/precheck/{r.json()['job_id']}").json()


def test_a_precheck_without_a_toolchain_gives_one_answer_in_three_places(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The job's state, its diagnostics' verdict and its attestation's verdict agree
    (today the attestation said ``precheck-fail``, a judgment nobody made)."""
    job = _precheck_without_a_toolchain(tmp_path, monkeypatch, TUTORIAL_PROOF)
    assert job["state"] == "toolchain-missing", job
    assert job["diagnostics"]["verdict"] == "toolchain-missing"
    att = job["attestation"]
    assert att["schema"] == "precheck-attestation/v2"
    assert att["verdict"] == "precheck-toolchain-missing", att
    assert job["signed"] is True
    assert "precheck-toolchain-missing" in job["pull_request_block"]
    parsed = m.precheck_attestation_from_json(att)
    assert isinstance(parsed, m.PrecheckAttestationV2)
    assert m.precheck_checked_nothing(parsed.verdict, parsed.steps)


def test_a_lean_free_refusal_is_a_fail_even_without_a_toolchain(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Issue 35 item 6, decided: a proof step 2 refuses (a right-to-left override hidden in
    a comment, found without Lean) fails its precheck where no toolchain is installed
    either. No toolchain could make it pass, so the job, its diagnostics and its signed
    attestation say ``fail`` with step 2's code, never "install Lean"."""
    hostile = TUTORIAL_PROOF.replace("\n", "\n-- \u202e reversed\n", 1)
    assert hostile != TUTORIAL_PROOF
    job = _precheck_without_a_toolchain(tmp_path, monkeypatch, hostile)
    assert job["state"] == "fail", job
    assert job["code"] == "lean-format-character", job
    assert job["diagnostics"].get("verdict") != "toolchain-missing"
    att = job["attestation"]
    assert att["verdict"] == "precheck-fail", att
    failing = {st["code"] for st in att["steps"] if not st["ok"]}
    assert "lean-format-character" in failing, att["steps"]


def test_the_one_rule_names_each_answer() -> None:
    missing = StepResult.refused(1, [Diagnostic("toolchain-missing", "no lean")])
    step2 = StepResult.refused(2, [Diagnostic("gate-only-path", "x")])
    unsound = StepResult.refused(4, [Diagnostic("toolchain-known-unsound", "x")])
    assert A.precheck_verdict([StepResult.passed(2)], "pass") == "precheck-pass"
    assert A.precheck_verdict([StepResult.passed(2), missing], "fail") == \
        "precheck-toolchain-missing"
    assert A.precheck_verdict([step2], "fail") == "precheck-fail"
    assert A.precheck_verdict([unsound, missing], "fail") == "precheck-fail"
    # issue 35 item 6: a Lean-free refusal is a judgment even with no toolchain beside it
    assert A.precheck_verdict([missing, step2], "fail") == "precheck-fail"
    assert A.precheck_verdict([step2, missing], "fail") == "precheck-fail"


def test_v1_stays_as_published_and_is_read_beside_v2() -> None:
    v1 = m.precheck_attestation_from_json({**BODY, "verdict": "precheck-fail"})
    assert type(v1) is m.PrecheckAttestation and v1.schema_ == "precheck-attestation/v1"
    with pytest.raises(ValidationError):  # the frozen v1 enum admits no new verdict
        m.PrecheckAttestation.model_validate({**BODY, "verdict": "precheck-toolchain-missing"})
    with pytest.raises(ValidationError):
        m.precheck_attestation_from_json({**BODY, "verdict": "precheck-toolchain-missing"})
    v2 = m.precheck_attestation_from_json(
        {**BODY, "schema": "precheck-attestation/v2", "verdict": "precheck-toolchain-missing"})
    assert isinstance(v2, m.PrecheckAttestationV2)
    # a v1 run that failed only at toolchain-missing also judged nothing
    assert m.precheck_checked_nothing(v1.verdict, v1.steps)
    assert not m.precheck_checked_nothing("precheck-fail", [
        m.StepRecord(step=2, name="paths", ok=False, code="gate-only-path")])
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" /
                         "precheck-attestation" / "v1.json").read_text("utf-8"))
    assert "precheck-toolchain-missing" not in json.dumps(schema)


def test_step_0_refuses_a_precheck_that_checked_nothing() -> None:
    att = m.PrecheckAttestationV2.model_validate(
        {**BODY, "verdict": "precheck-toolchain-missing"})
    spec = m.GateSpec(lean_toolchain="leanprover/lean4:v4.22.0")
    res, consumed = A.check_precheck(
        json.dumps(att.model_dump(by_alias=True, exclude_none=True)), spec=spec,
        gate_spec_sha256=H64, target="t", node="root",
        artifacts=[m.ArtifactHash(path="targets/t/nodes/root/Proof.lean", sha256=H64)],
        head_date="2026-01-01T00:00:00Z", keys={})
    assert not res.ok and res.code == "precheck-toolchain-missing" and consumed is None


def test_no_precheck_record_is_written_for_a_run_that_checked_nothing() -> None:
    from network.gate.pregate import precheck_record
    from network.gate.steps.outcome import ArtifactRun

    att = m.PrecheckAttestationV2.model_validate(
        {**BODY, "statement_hash": H64, "verdict": "precheck-toolchain-missing"})
    run = ArtifactRun(artifact=None, steps=(), verdict="fail", precheck=att)  # type: ignore[arg-type]
    assert precheck_record(run) is None
