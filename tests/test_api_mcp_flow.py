"""Issue 4's done-when flow: an agent with nothing but the MCP endpoint, driven by the real
``mcp`` client over streamable HTTP against the service on a loopback port, earns a token by
a tutorial precheck, claims, reads, prechecks and submits; the merge queue merges; the node
reads proved with its ledger line (D-4, D-19, D-25, D-27, D-28, D-35). And a restart of the
service mid-queue loses no pull request, claim or precheck job.

The toolchain is the recorded stand-in (tests/standin.py), injected through create_app's
``toolchain`` parameter; the recordings are written by
tests/fixtures/toolchain/make_api_recordings.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from network.api import db
from network.api.submit import precheck
from network.record import derive
from network.record import models as m
from tests.api_flow_support import (
    PROOF_MID,
    PROOF_MID_RACER,
    TUTORIAL_PROOF,
    FlowNet,
    agent_after_merge,
    agent_flow,
)

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain


@pytest.fixture()
def net(tmp_path: Path) -> FlowNet:
    """The flow's network on disk, with the recorded stand-in."""
    return FlowNet.create(tmp_path, RecordedToolchain)


def test_agent_earns_token_claims_prechecks_submits_and_sees_the_merge(net: FlowNet) -> None:
    from network.api.tools import TOOLS

    with net.serve() as (url, _app):
        out = anyio.run(agent_flow, url)
        # 1. the tools
        assert out["tools"] == {op.tool for op in TOOLS}
        # 2. a token earned through a tutorial precheck, signed by the service key
        tut = out["tutorial"]
        assert tut["state"] == "pass" and tut["tutorial"] and tut["signed"], tut
        assert tut["attestation"]["signature"]["kind"] == "service"
        assert out["receipt"]["recovery_code"] and out["receipt"]["token"].startswith("lmt_")
        # 3-4. claimed, bundle read
        assert out["claim"]["pseudonym"] == "agent"
        assert "Statement" in out["bundle"]["files"]
        # 5. precheck of the proof
        assert out["precheck"]["state"] == "pass", out["precheck"]
        assert out["precheck"]["attestation"]["verdict"] == "precheck-pass"
        # 6. a pull request on the LocalForge, authored by the pseudonym, service committer
        sub = out["submission"]
        assert sub["state"] == "open" and sub["queue_position"] == 1
        assert sub["precheck_attestation"]["signature"]["kind"] == "service"
        forge = net.forge()
        [pr] = forge.list_open()
        assert pr.author == "agent" and "```precheck-attestation" in pr.body
        commit = forge.repo.get(pr.head_sha)
        assert commit.author.name == "agent" and commit.committer.name == "Lemmata service"
        assert "Signed-off-by: agent" in commit.message
        assert out["polled"]["id"] == sub["id"]
        # 7. the merge queue
        [item] = net.run_queue()
        assert item.verdict == "pass" and item.merge_sha, item.notes
        # 8. proved in frontier.json, and its ledger line
        after = anyio.run(lambda: agent_after_merge(url, sub["id"]))
    assert after["submission"]["state"] == "merged"
    assert [a["verdict"] for a in after["submission"]["attestations"]] == ["pass"]
    assert not any(e["target"] == "demo" and e["node"] == "mid"
                   for e in after["frontier"]["nodes"])
    assert any(e["node"] == "root" for e in after["frontier"]["nodes"])
    assert after["node"]["state"]["status"] == "proved"
    g = net.main_graph()
    assert derive.node_status(g, "demo", "mid") == "proved"
    lines = [lf.record for lf in g.ledger if isinstance(lf.record, m.LedgerLine)
             and lf.record.node == "mid"]
    assert [(x.line, x.identity) for x in lines] == [("proof", "agent")]


def test_restart_mid_queue_loses_no_pull_request_claim_or_precheck(
        net: FlowNet, monkeypatch: pytest.MonkeyPatch) -> None:
    with net.serve() as (url, app):
        first = anyio.run(agent_flow, url)
        second = anyio.run(lambda: agent_flow(url, pseudonym="racer", proof=PROOF_MID_RACER))
        # a precheck accepted just before the process dies: queued, never handed to a worker
        monkeypatch.setattr(precheck.PrecheckPool, "submit", lambda self, job_id: None)
        c = app.state.svc
        from network.api.service import Caller

        pending = precheck.precheck_submission(
            c, Caller(token=None, address="9.9.9.9"), target="tutorial", node="tutorial",
            artifact_type="proof", text=TUTORIAL_PROOF)
        monkeypatch.undo()
    # advisory claims (ruling 14): the racer claimed the node agent holds, and both hold it
    assert second["claim"]["pseudonym"] == "racer"
    assert [h["pseudonym"] for h in second["claim"]["other_holders"]] == ["agent"]
    assert second["submission"]["claim"]["claimed"] is True
    with net.serve() as (_url2, app2):  # a new app over the same data dir, DB and forge
        from fastapi.testclient import TestClient

        client = TestClient(app2)
        listed = client.get("/submissions.json").json()["submissions"]
        assert [s["id"] for s in listed] == [first["submission"]["id"],
                                            second["submission"]["id"]]
        token = first["receipt"]["token"]
        mine = client.get("/claims/mine", headers={"Authorization": f"Bearer {token}"})
        assert [(x["target"], x["node"]) for x in mine.json()["claims"]] == [("demo", "mid")]
        assert [h["pseudonym"] for h in mine.json()["claims"][0]["other_holders"]] == ["racer"]
        precheck.pool(app2.state.svc).drain()
        resumed = client.get(f"/precheck/{pending['job_id']}").json()
        assert resumed["state"] == "pass", resumed
        # the queue runs on: the first proof merges, the racer's moves to its alternate path
        items = net.run_queue()
        assert [(i.number, i.verdict) for i in items] == [(1, "pass")]
        [moved] = items[0].moved
        rtoken = second["receipt"]["token"]
        racer = client.get("/submissions/mine",
                           headers={"Authorization": f"Bearer {rtoken}"}).json()
        assert [s["pull_request"] for s in racer["open"]] == [f"local/{moved}"]
        assert racer["open"][0]["kind"] == "alternate"
        assert racer["open"][0]["path"].endswith("-racer-alternate.lean")
        [closed] = racer["recent"]
        assert closed["id"] == second["submission"]["id"] and closed["state"] == "closed"
        assert closed["moved_to"] == f"local/{moved}"
        with app2.state.svc.sessions() as s:
            assert s.query(db.SubmissionRow).count() == 3
    forge = net.forge()
    pr = forge.get(moved)
    text = forge.repo.get(forge.repo.get(pr.head_sha).tree[racer["open"][0]["path"]].id).data
    assert text.decode() == PROOF_MID_RACER
    assert PROOF_MID != PROOF_MID_RACER
