"""``lemmata gate run``, ``lemmata gate reproduce``, ``lemmata pregate`` and the shell
wrappers (D-4, D-5, D-27, D-34)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from network import signing
from network.cli import main
from network.gate.pregate import pregate, reproduce
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import precheck_raw, scenarios
from standin import RecordedToolchain

REPO = Path(__file__).resolve().parents[1]


def test_gate_run_without_lean_is_toolchain_missing_exit_1(tmp_path: Path) -> None:
    b, base, head = scenarios()["proof-ok"].build(tmp_path / "g")
    pre = tmp_path / "pre.json"
    pre.write_text(precheck_raw(b.root, base, head) or "")
    res = CliRunner().invoke(main, ["gate", "run", "--graph", str(b.root), "--base", base,
                                    "--head", head, "--precheck-attestation", str(pre),
                                    "--out", str(tmp_path / "out")])
    assert res.exit_code == 1, res.output
    body = json.loads(res.output)
    assert body["verdict"] == "fail" and body["artifacts"][0]["code"] == "toolchain-missing"
    [written] = body["written"]
    att = m.attestation_from_json(Path(written).read_text())
    assert att.verdict == "fail" and att.first_failing_step == 1


def test_gate_run_passes_a_record_only_submission(tmp_path: Path) -> None:
    b, base, head = scenarios()["postmortem"].build(tmp_path / "g")
    res = CliRunner().invoke(main, ["gate", "run", "--graph", str(b.root), "--base", base,
                                    "--head", head, "--submitter", "alice"])
    assert res.exit_code == 0, res.output


def test_reproduce_gives_the_identical_masked_attestation(tmp_path: Path) -> None:
    b, base, head = scenarios()["root-proof-reviewed"].build(tmp_path / "g")
    from network.gate.run import Review
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice",
                   review=Review("rita"), runner="hosted")
    rep = reproduce(b.root, out.attestations[0], toolchain=RecordedToolchain,
                    sandbox=Sandbox())
    assert rep.identical, rep.differing
    tampered = out.attestations[0].model_copy(update={"verdict": "fail"})
    assert reproduce(b.root, tampered, toolchain=RecordedToolchain,
                     sandbox=Sandbox()).differing == ["verdict"]


def test_pregate_records_once_and_signs_with_ssh(tmp_path: Path) -> None:
    b, base, head = scenarios()["sorry"].build(tmp_path / "g")
    res = pregate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                  submitter="alice", record_into=b.root)
    assert res.outcome.verdict == "fail" and len(res.recorded) == 1
    rec = m.PrecheckRecord.model_validate_json((b.root / res.recorded[0]).read_text())
    assert rec.verdict == "precheck-fail" and rec.first_failing_step == 5
    again = pregate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                    submitter="alice", record_into=b.root)
    assert again.recorded == []  # deduplicated on (statement, goal state, first step)
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    ok = scenarios()["proof-ok"].build(tmp_path / "h")
    signed = pregate(ok[0].root, ok[1], ok[2], toolchain=RecordedToolchain, sandbox=Sandbox(),
                     submitter="alice", sign_with=key)
    att = signed.attestations[0]
    assert att.signature is not None and att.signature.kind == "ssh"
    signing.verify_ssh(att, att.signature, [(tmp_path / "id_ed25519.pub").read_text()])
    assert "```precheck-attestation" in signed.to_dict()["pull_request_body_blocks"][0]


def test_shell_wrappers_call_the_same_code() -> None:
    for name in ("pregate.sh", "reproduce.sh"):
        text = (REPO / "network" / "gate" / name).read_text()
        assert text.startswith("#!/bin/sh") and "lemmata" in text
    assert "lemmata}\" pregate" in (REPO / "network/gate/pregate.sh").read_text()
    assert "gate reproduce" in (REPO / "network/gate/reproduce.sh").read_text()
