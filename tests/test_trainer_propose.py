"""``lemmata trainer propose`` against a running service (issue 14, "The policy as a
contributor"; D-23 v3.37, D-25, D-27).

The real service (create_app under uvicorn, network.up.serve_in_thread) over a LocalForge
(tests/api_flow_support.FlowNet) with the recorded stand-in toolchain judging. The
proposer uses the service's HTTP routes only: it earns its token through the tutorial
precheck, claims, renders the prompt from the served bundle, prechecks and submits; the
pull request's body carries the disclosure block naming the model, and the merged
attestation names it too. The tiny random HFEngine produces nothing that passes: nothing
is submitted and every claim is released.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.gate import attestation as A
from network.trainer.propose import ProposeConfig, ServiceClient, disclosure, propose
from tests.api_flow_support import PROOF_MID, TUTORIAL_PROOF, FlowNet
from tests.trainer_doubles import RecordedEngine

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

CFG = ProposeConfig(model="tiny-llama-2l", samples=2, max_new_tokens=24, temperature=0.0,
                    prechecks_per_node=2, max_nodes=6, ttl_s=3600, poll_s=0.05,
                    precheck_timeout_s=60, targets=("demo",))
GOOD = RecordedEngine({("tutorial", "tutorial"): TUTORIAL_PROOF, ("demo", "mid"): PROOF_MID})


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[FlowNet, str]]:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with net.serve() as (url, _app):
        yield net, url


def _mine(url: str, token: str) -> list[dict[str, Any]]:
    c = ServiceClient(url, token)
    try:
        body = c.must("GET", "/claims/mine", auth=True)
    finally:
        c.close()
    return list(body["claims"] if isinstance(body, dict) else body)


def test_the_policy_earns_a_token_submits_a_pass_with_its_disclosure_and_releases_the_rest(
        served: tuple[FlowNet, str]) -> None:
    net, url = served
    client = ServiceClient(url)
    try:
        got = propose(client, GOOD, CFG, pseudonym="policy-bot")
    finally:
        client.close()
    assert got["token_earned"] and client.token
    assert got["submitted"] == 1, got["nodes"]
    by_node = {o["node"]: o for o in got["nodes"]}
    mid = by_node["mid"]
    assert mid["prechecks"][0]["state"] == "pass" and mid["submission"]["pull_request"]
    assert not mid["released"]  # the submission keeps the node claimed (D-25)
    others = [o for o in got["nodes"] if o["node"] != "mid"]
    assert others and all(o["released"] or o["claim_refused"] for o in others), others
    assert all(not o["prechecks"] for o in others)  # an empty sample is never prechecked
    assert {c["node"] for c in _mine(url, client.token)} == {"mid"}
    # the prompt was rendered from the served bundle: the node's statement, no proof
    [mid_prompt] = [p for p in GOOD.prompts if "Node: mid" in p]
    assert "Demo.mid" in mid_prompt and "simpa" not in mid_prompt
    # the pull request: under the policy's pseudonym, the disclosure names the model
    [pr] = net.forge().list_open()
    block = A.disclosure_from_body(pr.body)
    assert block is not None and block.method == "agent"
    assert block.models == disclosure(GOOD, CFG.model)["models"]
    assert any("tiny-llama-2l" in x and "v3" in x for x in block.models), block.models
    assert "prompt/v1" in (block.framework or "")
    # the gate judges it like anyone's: it merges, and the attestation names the model
    [item] = net.run_queue()
    assert item.verdict == "pass", item.notes
    [att] = [rf.record for rf in net.main_graph().attestations
             if rf.record.node == "mid" and rf.record.verdict == "pass"]
    assert att.disclosure.models == block.models


def test_a_sorry_or_an_axiom_is_prechecked_refused_and_never_submitted(
        served: tuple[FlowNet, str]) -> None:
    """Built to pass: the statement itself (ends in sorry) and a user axiom closing it."""
    net, url = served
    bad = {("tutorial", "tutorial"): TUTORIAL_PROOF,
           ("demo", "mid"): "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  sorry\n",
           ("demo", "p"): "axiom cheat : False\ntheorem Demo.p : False := cheat\n"}
    client = ServiceClient(url)
    try:
        got = propose(client, RecordedEngine(bad), CFG, pseudonym="cheat-bot")
    finally:
        client.close()
    assert got["submitted"] == 0
    tried = [o for o in got["nodes"] if o["prechecks"]]
    assert tried and all(p["state"] != "pass" for o in tried for p in o["prechecks"]), tried
    assert all(o["released"] or o["claim_refused"] for o in got["nodes"])
    assert net.forge().list_open() == []
    assert _mine(url, client.token or "") == []


@pytest.mark.slow
def test_the_tiny_model_passes_nothing_and_submits_nothing(
        served: tuple[FlowNet, str], tmp_path: Path) -> None:
    from network.trainer.engines import HFEngine
    from tests.trainer_support import tiny_base

    net, url = served
    engine = HFEngine(tiny_base(tmp_path / "base"))
    client = ServiceClient(url)
    try:  # it cannot earn a token: its tutorial samples do not pass
        with pytest.raises(LemmataError) as e:
            propose(client, engine, CFG, pseudonym="tiny-bot")
        assert e.value.code == "trainer-token-unearned"
        op = client.must("POST", "/tokens", body={  # an operator's token, passed in
            "pseudonym": "tiny-op", "dco": client.must("GET", "/dco.json")["version"],
            "proof": {"kind": "github", "token": "gh-tiny-op"}})
    finally:
        client.close()
    # the CLI, as an operator runs it, with the token passed in
    from click.testing import CliRunner

    from network.cli import main

    res = CliRunner().invoke(main, [
        "trainer", "propose", url, str(tmp_path / "base"), "--token", op["token"],
        "--model", "tiny-llama-2l", "--samples", "2", "--max-new-tokens", "24",
        "--temperature", "0", "--prechecks-per-node", "2", "--ttl", "3600",
        "--target", "demo"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert not got["token_earned"] and got["submitted"] == 0
    assert got["nodes"] and all(o["submission"] is None for o in got["nodes"])
    assert all(o["released"] or o["claim_refused"] for o in got["nodes"]), got["nodes"]
    assert any(o["prechecks"] for o in got["nodes"])  # it did try, and the gate refused
    assert all(p["state"] != "pass" for o in got["nodes"] for p in o["prechecks"])
    assert got["disclosure"]["models"][1].endswith("no adapter (the base model)")
    assert net.forge().list_open() == []
    assert _mine(url, op["token"]) == []


def test_a_token_the_service_did_not_issue_stops_the_run(served: tuple[FlowNet, str]) -> None:
    _net, url = served
    client = ServiceClient(url, "lm_forged-token")
    try:
        with pytest.raises(LemmataError) as e:
            propose(client, GOOD, CFG)
    finally:
        client.close()
    assert e.value.code == "trainer-service-refused"


def test_a_budget_below_one_is_refused(served: tuple[FlowNet, str]) -> None:
    from dataclasses import replace

    _net, url = served
    client = ServiceClient(url)
    try:
        with pytest.raises(LemmataError) as e:
            propose(client, GOOD, replace(CFG, samples=0), pseudonym="x-bot")
        assert e.value.code == "trainer-config-invalid"
        with pytest.raises(LemmataError) as e:
            propose(client, GOOD, CFG)  # no token and nobody to earn one as
        assert e.value.code == "trainer-config-invalid"
    finally:
        client.close()
