"""Issue 11: a newcomer on a network without Lean is told the same true thing everywhere.

The banner, the tutorial target's text, a precheck's ``notice`` and ``next``,
``proof-invalid`` and the catalog's actions all say that without the pinned toolchain a
precheck ends ``toolchain-missing`` after the findings that need no Lean, and name the
ways forward (an operator token, a machine with the pinned toolchain, ``lemmata toolchain
install``). Each test here fails if a place drops that or claims a check it cannot do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from fastapi.testclient import TestClient

from network.api.guidance import WAY_FORWARD, not_checkable
from network.api.submit import precheck
from network.errors import CATALOG
from network.up import banner, calibration_nodes, calibration_targets
from tests.api_flow_support import TUTORIAL_PROOF, FlowNet

REPO = Path(__file__).resolve().parents[1]
WAYS = ("lemmata token issue", "pregate.sh", "lemmata toolchain install")


def _no_lean(tmp_path: Path, monkeypatch: Any) -> FlowNet:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return FlowNet.create(tmp_path, None)  # product default: detect_toolchain


def test_the_way_forward_names_all_three_ways() -> None:
    for way in WAYS:
        assert way in WAY_FORWARD
    text = not_checkable("leanprover/lean4:v4.34.0")
    assert "leanprover/lean4:v4.34.0" in text and "toolchain-missing" in text
    assert "never a pass" in text and WAY_FORWARD in text


def test_a_precheck_says_up_front_that_proofs_are_not_checked_here(
        tmp_path: Path, monkeypatch: Any) -> None:
    net = _no_lean(tmp_path, monkeypatch)
    with TestClient(net.app()) as client:
        r = client.post("/precheck", json={"target": "tutorial", "node": "tutorial",
                                           "artifact_type": "proof", "text": TUTORIAL_PROOF})
        assert r.status_code == 202, r.text
        queued = r.json()
        assert queued["checkable_here"] is False
        assert queued["notice"].startswith("Proofs cannot be checked on this service")
        assert all(w in queued["notice"] for w in WAYS)
        precheck.pool(client.app.state.svc).drain()  # type: ignore[attr-defined]
        job = client.get(f"/precheck/{queued['job_id']}").json()
        assert job["state"] == "toolchain-missing"
        assert all(w in job["next"] for w in WAYS)
        assert "try a service" not in job["next"]  # the old circle
        t = client.post("/tokens", json={"pseudonym": "newcomer", "dco": "1.1", "proof": {
            "kind": "precheck", "job_id": job["job_id"]}})
        assert t.status_code == 403 and t.json()["code"] == "proof-invalid"
        assert "toolchain-missing" in t.json()["detail"]
        assert "lemmata token issue" in t.json()["detail"]


def test_with_a_toolchain_the_precheck_carries_no_notice(tmp_path: Path) -> None:
    from standin import RecordedToolchain

    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        r = client.post("/precheck", json={"target": "tutorial", "node": "tutorial",
                                           "artifact_type": "proof", "text": TUTORIAL_PROOF})
        assert r.status_code == 202, r.text
        assert r.json()["checkable_here"] is True and "notice" not in r.json()


def test_the_catalog_actions_name_the_operator_token() -> None:
    for code in ("proof-invalid", "token-missing", "toolchain-missing"):
        assert "lemmata token issue" in CATALOG[code].action, code


def test_the_banner_without_lean_starts_from_an_operator_token() -> None:
    text = banner(api="http://h:1", site="http://h:2", toolchain_line="NOT checkable",
                  checkable=False, calibration=["infinite-primes/root"])
    assert "lemmata token issue --pseudonym NAME --dco" in text
    # issue 35, item 7: the node's full id, once
    assert text.count("infinite-primes") == 1 and "`infinite-primes/root`" in text
    assert "get_token with that precheck" not in text  # a step that cannot pass here
    assert "toolchain-missing" in text and "submit_postmortem" in text
    with_lean = banner(api="http://h:1", site="http://h:2", toolchain_line="checkable",
                       checkable=True, calibration=["infinite-primes/root"])
    assert "get_token with that precheck" in with_lean
    assert with_lean.count("infinite-primes") == 1 and "`infinite-primes/root`" in with_lean


def test_the_banner_names_each_calibration_node_of_the_sample_graph_in_full() -> None:
    from network.record.read.loader import load_graph

    nodes = calibration_nodes(load_graph(REPO / "graph"))
    assert nodes[0] == "infinite-primes/root" and len(nodes) > 1
    assert all(n.endswith("/root") for n in nodes)
    text = banner(api="http://h:1", site="http://h:2", toolchain_line="x", checkable=False,
                  calibration=nodes[:1])  # what `lemmata up` passes
    assert "claim_node on the calibration node `infinite-primes/root`" in text


def test_the_sample_graph_names_its_calibration_target_by_id() -> None:
    from network.record.read.loader import load_graph

    cal = calibration_targets(load_graph(REPO / "graph"))
    assert cal, "the sample graph has a calibration target"
    agents = (REPO / "graph" / "AGENTS.md").read_text()
    assert any(f"calibration target `{c}`" in agents for c in cal)
    tutorial = yaml.safe_load((REPO / "graph/targets/tutorial/target.yaml").read_text())
    for way in WAYS:
        assert way in tutorial["informal_statement"]


def test_the_banner_names_the_plain_git_way_in() -> None:
    text = banner(api="http://127.0.0.1:8000", site="http://h:2", toolchain_line="x",
                  checkable=False, calibration=[])
    assert "git clone http://127.0.0.1:8000/git/graph.git" in text
    assert "@127.0.0.1:8000/git/graph.git HEAD:submit/NAME" in text
