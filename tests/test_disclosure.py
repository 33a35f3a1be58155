"""The per-merge disclosure of models and tooling (D-23 v3.37): POST /submissions and
submit_proof take ``disclosure {method, models, framework}``, the pull request body carries
it as a ``lemmata-disclosure`` block, and the merge queue hands it to the gate, so the
merged attestation names the model (issue 11 left it undone; issue 14's policies submit
with it)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from network.api import tools
from network.gate import attestation as A
from network.record import models as m
from tests.api_flow_support import PROOF_MID, FlowNet
from tests.test_api_submissions import Net, _code, _prs

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

POLICY = {"method": "agent", "models": ["SmolLM2-135M-Instruct+lora-v3"],
          "framework": "lemmata-trainer prompt/v1"}


@pytest.fixture()
def n(tmp_path: Path) -> Iterator[Net]:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        yield Net(net, client)


def test_a_disclosed_submission_merges_an_attestation_naming_the_model(n: Net) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    assert job["state"] == "pass", job
    r = n.submit(alice, precheck_id=job["job_id"], disclosure=POLICY)
    assert r.status_code == 201, r.text
    [pr] = n.net.forge().list_open()
    assert A.disclosure_from_body(pr.body) == m.Disclosure(**POLICY)
    [item] = n.net.run_queue()
    assert item.verdict == "pass", item.notes
    graph = n.net.main_graph()
    [att] = [rf.record for rf in graph.attestations
             if rf.record.node == "mid" and rf.record.verdict == "pass"]
    assert att.disclosure.models == ["SmolLM2-135M-Instruct+lora-v3"]
    assert att.disclosure.method == "agent"
    assert att.disclosure.framework == "lemmata-trainer prompt/v1"


def test_an_undisclosed_submission_merges_undisclosed(n: Net) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    assert n.submit(alice, precheck_id=job["job_id"]).status_code == 201
    [item] = n.net.run_queue()
    assert item.verdict == "pass", item.notes
    [att] = [rf.record for rf in n.net.main_graph().attestations
             if rf.record.node == "mid" and rf.record.verdict == "pass"]
    assert att.disclosure == m.Disclosure()


@pytest.mark.parametrize("bad", [
    {"method": "robot", "models": []},                     # not a method D-23 names
    {"method": "agent", "models": ["x"], "weights": "y"},  # a field the block has not
    {"method": "agent", "models": ["x" * 201]},             # over the model's limit
])
def test_a_malformed_disclosure_is_refused_before_anything_opens(n: Net, bad: dict) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    _code(n.submit(alice, precheck_id=job["job_id"], disclosure=bad), "bad-request")
    assert _prs(n) == 0


def test_the_body_block_reads_one_exact_disclosure_or_none() -> None:
    d = m.Disclosure(**POLICY)
    block = A.disclosure_block(d)
    assert A.disclosure_from_body("prose\n\n" + block) == d
    assert A.disclosure_from_body("no block") is None
    assert A.disclosure_from_body(block + "\n" + block) is None  # two: neither is believed
    forged = block.replace('"method":"agent"', '"method":"agent","extra":1')
    assert A.disclosure_from_body(forged) is None
    huge = block.replace("SmolLM2", "S" * 5000)
    assert A.disclosure_from_body(huge) is None


def test_submit_proof_tool_takes_the_disclosure() -> None:
    op = next(o for o in tools.TOOLS if o.tool == "submit_proof")
    assert any(p.name == "disclosure" for p in op.params)


def test_the_github_trusted_job_records_the_bodys_disclosure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On GitHub the trusted job reads the same block from the pull request body."""
    from network import signing
    from tests import test_gate_workflow as W

    class BodyPR(W.FakePR):
        def __init__(self, number: int, head: str, raw: str | None) -> None:
            super().__init__(number, head, raw)
            self.body = "A proof.\n\n" + A.disclosure_block(m.Disclosure(**POLICY))

    monkeypatch.setattr(W, "FakePR", BodyPR)
    key = signing.generate_private_key(tmp_path / "gate-key.pem")
    pub = signing.public_key_record(key, "gate-test", "gate", "2026-01-01")
    root, base, head = W._pr_repo(tmp_path, pub, W._proof_files())
    d = W._judge(tmp_path, root, base, head, key)
    assert d.verdict == "pass", d.to_dict()
    [att] = d.attestations
    assert att.disclosure == m.Disclosure(**POLICY)
