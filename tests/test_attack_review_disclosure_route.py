"""Attack review (issue 35 item 3): the route's ``disclosure`` is accepted by POST
/submissions and written into the body, yet the gate reads a different one.

``submissions._disclosure`` validates the route's disclosure as ``m.Disclosure`` (no bound
on the number of models), but ``attestation.disclosure_from_body`` reads any block over
4096 bytes, or a body with two blocks, as None: the attestation then says ``undisclosed``
while the pull request body shows the declaration. Nothing refuses it, so a declaration
made on the service path is lost silently (the commit's claim: "exactly as declared on
every path"). The ``description`` the route also takes goes verbatim into the same body,
so a caller can add a second block and have the service's own block ignored.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from network.gate import attestation as A
from network.record import models as m
from tests.api_flow_support import PROOF_MID, FlowNet
from tests.test_api_submissions import Net

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

BIG = {"method": "agent", "models": [f"model-{i:03d}-" + "x" * 140 for i in range(30)],
       "framework": "harness"}


@pytest.fixture()
def n(tmp_path: Path) -> Iterator[Net]:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        yield Net(net, client)


def _attested(n: Net) -> m.Disclosure:
    [item] = n.net.run_queue()
    atts = [rf.record for rf in n.net.main_graph().attestations if rf.record.node == "mid"]
    assert atts, item.notes
    return atts[-1].disclosure


def test_a_declared_disclosure_the_gate_cannot_read_is_refused_or_lands(n: Net) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    assert job["state"] == "pass", job
    r = n.submit(alice, precheck_id=job["job_id"], disclosure=BIG)
    if r.status_code != 201:  # refused before anything opens: fine
        return
    [pr] = n.net.forge().list_open()
    assert "lemmata-disclosure" in pr.body  # the body shows the declaration
    got = _attested(n)
    assert got == m.Disclosure(**BIG), f"declared {len(BIG['models'])} models; attested {got}"


def test_a_description_cannot_void_the_routes_disclosure(n: Net) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    declared = {"method": "agent", "models": ["gpt-5"]}
    desc = "my proof\n\n" + A.disclosure_block(m.Disclosure(method="human"))
    r = n.submit(alice, precheck_id=job["job_id"], disclosure=declared, description=desc)
    if r.status_code != 201:
        return
    got = _attested(n)
    assert got == m.Disclosure(**declared), f"declared {declared} on the route; attested {got}"
