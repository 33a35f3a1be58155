"""One answer for a toolchain-missing bundle (issue 40, beside its copies): both paths of
``submit_proof`` refuse a precheck that did not pass, before a pull request opens (D-4:
the authoritative gate requires an attached *passing* precheck; D-28).

A precheck that found no pinned Lean ends ``toolchain-missing``: it checked no proof, so it
is neither a pass nor a judgment. Named by ``precheck_id`` it was refused
``precheck-not-passed``; given as the bundle's ``attestation`` it opened a pull request that
waited. Now both answer ``precheck-not-passed`` and open nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from network.api.submit import submission_prechecks
from network.errors import CATALOG, LemmataError
from network.gate.lean.toolchain import MissingToolchain
from tests.api_flow_support import PROOF_MID, FlowNet
from tests.test_api_submissions import Net


def missing(spec: Any) -> MissingToolchain:
    """The toolchain factory of a network with no Lean installed."""
    return MissingToolchain(spec, ("no lean on PATH (test)",))


@pytest.fixture()
def n(tmp_path: Path) -> Iterator[Net]:
    """The flow network, its prechecks run with no toolchain."""
    net = FlowNet.create(tmp_path, missing)
    with TestClient(net.app()) as client:
        yield Net(net, client)


def _refused(r: Any, code: str) -> dict[str, Any]:
    assert r.json().get("code") == code, r.text
    assert r.status_code == CATALOG[code].http_status, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_toolchain_missing_precheck_is_refused_the_same_on_both_paths(n: Net) -> None:
    alice = n.token("alice")
    base = {"target": "demo", "node": "mid", "artifact_type": "proof"}
    job = n.precheck(alice, **base, text=PROOF_MID)
    assert job["state"] == "toolchain-missing", job
    att = job["attestation"]
    assert att is not None and att["verdict"] == "precheck-toolchain-missing"  # issue 35
    by_id = _refused(n.submit(alice, precheck_id=job["job_id"]), "precheck-not-passed")
    by_bundle = _refused(n.submit(alice, **base, text=PROOF_MID,
                                  attestation=json.dumps(att)), "precheck-not-passed")
    for err in (by_id, by_bundle):
        assert "toolchain-missing" in err["detail"] and "no proof was checked" in err["detail"]
    assert n.net.forge().list_all() == []  # nothing opened, nothing waits
    with n.svc.sessions() as s:
        from network.api import db
        assert s.query(db.SubmissionRow).count() == 0


def test_a_failed_attestation_is_refused_and_a_passing_one_opens(n: Net) -> None:
    alice = n.token("alice")
    base = {"target": "demo", "node": "mid", "artifact_type": "proof", "text": PROOF_MID}
    failed = {"verdict": "precheck-fail", "first_failing_step": 4,
              "steps": [{"step": 4, "name": "build", "ok": False, "code": "proof-invalid"}]}
    err = _refused(n.submit(alice, **base, attestation=json.dumps(failed)),
                   "precheck-not-passed")
    assert "proof-invalid" in err["detail"]
    _refused(n.submit(alice, **base, attestation="[1, 2]"), "precheck-malformed")
    assert n.net.forge().list_all() == []
    # only the verdict is read here; the gate's step 0 judges the rest of a pass
    ok = n.submit(alice, **base, attestation=json.dumps({"verdict": "precheck-pass"}))
    assert ok.status_code == 201, ok.text
    assert len(n.net.forge().list_all()) == 1


@pytest.mark.parametrize(("attestation", "code"), [
    ('{"verdict": "precheck-pass"}', None),
    (json.dumps({"verdict": "precheck-fail",
                 "steps": [{"step": 1, "ok": False, "code": "toolchain-missing"}]}),
     "precheck-not-passed"),
    ('{"verdict": "precheck-fail"}', "precheck-not-passed"),
    ('{"steps": []}', "precheck-not-passed"),
    ("not json", "precheck-malformed"),
    ('"precheck-pass"', "precheck-malformed"),
])
def test_attached_precheck_reads_the_verdict(attestation: str, code: str | None) -> None:
    if code is None:
        assert json.loads(submission_prechecks.attached_precheck(attestation)) == \
            json.loads(attestation)
        return
    with pytest.raises(LemmataError) as exc:
        submission_prechecks.attached_precheck(attestation)
    assert exc.value.code == code
