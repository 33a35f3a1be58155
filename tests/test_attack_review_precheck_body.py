"""Attack review (issue 40 / issue 35 item 6: "a toolchain-missing bundle refused on both
submission paths"): submit_proof puts the caller's ``description`` verbatim BEFORE the
service's own fenced ``precheck-attestation`` block, and the forge and the gate read the
FIRST such block (network/forge/types.py precheck_from_body). A description carrying its
own block replaces the attestation the service vetted (submission_prechecks): e.g. a v2
``precheck-toolchain-missing`` one, which the queue then treats as "waiting at
toolchain-missing" (queue._precheck_unchecked) instead of closing the pull request.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from network.forge.types import precheck_from_body
from tests.api_flow_support import PROOF_MID, FlowNet
from tests.test_api_submissions import Net

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain


@pytest.fixture()
def n(tmp_path: Path) -> Iterator[Net]:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        yield Net(net, client)


def test_the_pull_requests_precheck_is_the_one_the_service_checked(n: Net) -> None:
    alice = n.token("alice")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    assert job["state"] == "pass", job
    vetted = job["attestation"]
    smuggled = dict(vetted, schema="precheck-attestation/v2",
                    verdict="precheck-toolchain-missing", first_failing_step=1)
    desc = ("see below\n\n```precheck-attestation\n"
            + json.dumps(smuggled, sort_keys=True, indent=2) + "\n```\n")
    r = n.submit(alice, precheck_id=job["job_id"], description=desc)
    if r.status_code != 201:  # a description holding a fence is refused: fine
        return
    [pr] = n.net.forge().list_open()
    got = json.loads(precheck_from_body(pr.body) or "null")
    assert got is not None and got.get("verdict") == "precheck-pass", (
        f"the pull request's precheck is the description's: {got and got.get('verdict')}")
