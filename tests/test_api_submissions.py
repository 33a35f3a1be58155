"""Prechecks and submissions over plain HTTP: every refusal with its catalog code, fed the
bad input, and nothing opened by a refused call (D-4, D-19, D-25 v3.21/v3.44/v3.47, D-27,
D-28, D-35; rulings 7, 12)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from network import ids
from network.api.app import create_app
from network.api.settings import ServiceSettings
from network.api.submit import precheck, submissions
from network.errors import CATALOG
from tests.api_flow_support import (
    PROOF_MID,
    PROOF_MID_COPY,
    PROOF_MID_RACER,
    TUTORIAL_PROOF,
    FlowNet,
)
from tests.api_support import auth, build_graph, github_verifier
from tests.gate_scenarios import P_AUX

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

ROOT = Path(__file__).resolve().parents[1]


class Net:
    """A flow network with a TestClient over its app (lifespan running)."""

    def __init__(self, net: FlowNet, client: TestClient) -> None:
        self.net = net
        self.client = client
        self.app: Any = client.app

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def token(self, pseudonym: str) -> str:
        r = self.client.post("/tokens", json={"pseudonym": pseudonym, "dco": "1.1", "proof": {
            "kind": "github", "token": f"gh-{pseudonym}"}})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    def precheck(self, token: str | None, **body: Any) -> dict[str, Any]:
        r = self.client.post("/precheck", json=body, headers=auth(token) if token else {})
        assert r.status_code == 202, r.text
        precheck.pool(self.svc).drain()
        got: dict[str, Any] = self.client.get(f"/precheck/{r.json()['job_id']}").json()
        return got

    def submit(self, token: str, **body: Any) -> Any:
        return self.client.post("/submissions", json=body, headers=auth(token))


@pytest.fixture()
def n(tmp_path: Path) -> Iterator[Net]:
    """The flow's network; the stand-in toolchain."""
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        yield Net(net, client)


def _code(r: Any, code: str) -> None:
    assert r.json()["code"] == code, r.text
    assert r.status_code == CATALOG[code].http_status, r.text


def _prs(n: Net) -> int:
    return len(n.net.forge().list_all())


FAKE_ATT = json.dumps({"verdict": "precheck-pass"})


def test_precheck_refusals(n: Net) -> None:
    tok = n.token("alice")
    cases = [
        ({"target": "demo", "node": "mid", "artifact_type": "proof", "text": PROOF_MID}, None,
         "token-missing"),
        ({"target": "tutorial", "node": "tutorial", "artifact_type": "proof",
          "text": TUTORIAL_PROOF}, "lmt_wrong", "token-invalid"),
        ({"target": "demo", "node": "mid", "artifact_type": "postmortem", "text": "x"}, tok,
         "artifact-type-unsupported"),
        ({"target": "demo", "node": "mid", "artifact_type": "proof", "text": PROOF_MID,
          "files": {"../../evil.lean": "x"}}, tok, "bundle-path-refused"),
        ({"target": "demo", "node": "mid", "artifact_type": "proof", "text": PROOF_MID,
          "files": {"Statement.lean": "x"}}, tok, "bundle-path-refused"),
        ({"target": "demo", "node": "mid", "artifact_type": "proof",
          "files": {"Proof.lean": PROOF_MID}, "text": PROOF_MID}, tok, "bundle-invalid"),
        ({"target": "demo", "node": "mid", "artifact_type": "proof", "text": "  \n"}, tok,
         "bundle-invalid"),
        ({"target": "tutorial", "node": "tutorial", "artifact_type": "alternate",
          "text": TUTORIAL_PROOF}, None, "bundle-invalid"),
        ({"target": "demo", "node": "nope", "artifact_type": "proof", "text": "x"}, tok,
         "node-not-found"),
        ({"target": "Bad/../x", "node": "mid", "artifact_type": "proof", "text": "x"}, tok,
         "bad-target-id"),
    ]
    for body, token, code in cases:
        r = n.client.post("/precheck", json=body, headers=auth(token) if token else {})
        _code(r, code)
    _code(n.client.get("/precheck/pre-nope"), "precheck-not-found")
    with n.svc.sessions() as s:
        from network.api import db
        assert s.query(db.PrecheckJobRow).count() == 0


def test_anonymous_tutorial_prechecks_are_limited_per_address(tmp_path: Path) -> None:
    net = FlowNet.create(tmp_path, RecordedToolchain,
                         rate_anonymous_prechecks_per_address=1)
    with TestClient(net.app()) as client:
        body = {"target": "tutorial", "node": "tutorial", "artifact_type": "proof",
                "text": TUTORIAL_PROOF}
        assert client.post("/precheck", json=body).status_code == 202
        r = client.post("/precheck", json=body)
        _code(r, "rate-limited")
        assert r.headers["Retry-After"]


def test_a_passing_tutorial_precheck_proves_one_identity_once(n: Net) -> None:
    job = n.precheck(None, target="tutorial", node="tutorial", artifact_type="proof",
                     text=TUTORIAL_PROOF)
    assert job["state"] == "pass" and job["tutorial"] and "get_token" in job["next"]
    assert job["files"] == {"targets/tutorial/nodes/tutorial/Proof.lean":
                            job["attestation"]["artifacts"][0]["sha256"]}
    proof = {"kind": "precheck", "job_id": job["job_id"]}
    r = n.client.post("/tokens", json={"pseudonym": "tut", "dco": "1.1", "proof": proof})
    assert r.status_code == 201, r.text
    again = n.client.post("/tokens", json={"pseudonym": "tut2", "dco": "1.1", "proof": proof})
    _code(again, "proof-invalid")
    assert n.client.get(f"/precheck/{job['job_id']}").json()["spent_as_identity_proof"]


def test_without_a_toolchain_the_precheck_ends_toolchain_missing(tmp_path: Path,
                                                                 monkeypatch: Any) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    net = FlowNet.create(tmp_path, None)  # product default: detect_toolchain
    with TestClient(net.app()) as client:
        r = client.post("/precheck", json={"target": "tutorial", "node": "tutorial",
                                           "artifact_type": "proof", "text": TUTORIAL_PROOF})
        precheck.pool(client.app.state.svc).drain()  # type: ignore[attr-defined]
        job = client.get(f"/precheck/{r.json()['job_id']}").json()
        assert job["state"] == "toolchain-missing" and job["code"] == "toolchain-missing"
        assert job["attestation"]["verdict"] == "precheck-toolchain-missing"  # issue 35
        assert "No proof was checked" in job["next"]
        t = client.post("/tokens", json={"pseudonym": "x", "dco": "1.1", "proof": {
            "kind": "precheck", "job_id": job["job_id"]}})
        _code(t, "proof-invalid")


def test_precheck_unavailable_without_a_repository(tmp_path: Path) -> None:
    build_graph(tmp_path / "g")
    shutil.copytree(tmp_path / "g", tmp_path / "plain", ignore=shutil.ignore_patterns(".git"))
    app = create_app(ServiceSettings(data_dir=tmp_path / "data", graph=tmp_path / "plain"),
                     github_verifier=github_verifier)
    with TestClient(app) as client:
        tok = client.post("/tokens", json={"pseudonym": "al", "dco": "1.1", "proof": {
            "kind": "github", "token": "gh-al"}}).json()["token"]
        r = client.post("/precheck", json={"target": "demo", "node": "root",
                                           "artifact_type": "proof", "text": "x"},
                        headers=auth(tok))
        _code(r, "precheck-unavailable")
        s = client.post("/submissions", json={"target": "demo", "node": "root",
                                               "artifact_type": "proof", "text": "x",
                                               "attestation": FAKE_ATT}, headers=auth(tok))
        _code(s, "forge-unavailable")


def test_submission_refusals_open_nothing(n: Net) -> None:
    alice = n.token("alice")
    bob = n.token("bob")
    base = {"target": "demo", "node": "mid", "artifact_type": "proof"}
    # a precheck job: unknown, another identity's, not passed, for another node
    _code(n.submit(alice, precheck_id="pre-nope"), "precheck-not-found")
    job = n.precheck(alice, **base, text=PROOF_MID)
    assert job["state"] == "pass", job
    _code(n.submit(bob, precheck_id=job["job_id"]), "precheck-not-yours")
    _code(n.submit(alice, precheck_id=job["job_id"], node="aux"), "precheck-mismatch")
    bad = n.precheck(alice, target="demo", node="p", artifact_type="proof",
                     text="theorem Demo.p : 1 + 1 = 2 := by\n  decide\n")
    assert bad["state"] == "fail" and bad["code"] == "toolchain-missing" or \
        bad["state"] in ("fail", "toolchain-missing")
    _code(n.submit(alice, precheck_id=bad["job_id"]), "precheck-not-passed")
    # a bundle needs an attestation, as JSON
    _code(n.submit(alice, **base, text=PROOF_MID), "submission-needs-precheck")
    _code(n.submit(alice, **base, text=PROOF_MID, attestation="not json"),
          "precheck-malformed")
    _code(n.submit(alice, target="demo", node="mid", text=PROOF_MID), "bad-request")
    # node-level refusals (claimable(), alternates, shelving is below)
    _code(n.submit(alice, target="demo", node="root--h2", artifact_type="proof",
                   text="theorem Demo.main.h2 : 2 < 3 := by decide\n", attestation=FAKE_ATT),
          "claim-node-blocked")
    _code(n.submit(alice, target="demo", node="mid", artifact_type="alternate",
                   text=PROOF_MID, attestation=FAKE_ATT), "alternate-without-proof")
    _code(n.submit(alice, target="demo", node="aux", artifact_type="proof",
                   text=P_AUX, attestation=FAKE_ATT), "claim-node-closed")
    # a copy of the merged proof, comments and whitespace aside, as an alternate
    copy = "-- mine\ntheorem  Demo.aux (n : Nat) : 0 + n = n := by\n    simp  /- easy -/\n"
    _code(n.submit(alice, target="demo", node="aux", artifact_type="alternate", text=copy,
                   attestation=FAKE_ATT), "submission-copy")
    # a partial without its labels (D-12 v3.44)
    unlabelled = ("-- approach: two steps\n-- licence: CC-BY-4.0\n"
                  "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n"
                  "  have h₁ : n + 0 = n := sorry\n  simp [h₁]\n")
    r = n.submit(alice, target="demo", node="mid", artifact_type="partial", text=unlabelled,
                 attestation=FAKE_ATT)
    _code(r, "partial-unlabelled")
    assert "label" in r.json()["detail"] and "claim" in r.json()["detail"]
    no_licence = unlabelled.replace("-- licence: CC-BY-4.0\n", "")
    _code(n.submit(alice, target="demo", node="mid", artifact_type="partial",
                   text=no_licence, attestation=FAKE_ATT), "partial-unlabelled")
    _code(n.submit(alice, target="demo", node="mid", artifact_type="vacuity-proof",
                   text="x", attestation=FAKE_ATT), "artifact-type-unsupported")
    assert _prs(n) == 0
    # the real one opens; a copy of it (other comments, other spacing) is then refused
    ok = n.submit(alice, precheck_id=job["job_id"])
    assert ok.status_code == 201, ok.text
    assert _prs(n) == 1
    r = n.submit(bob, **base, text=PROOF_MID_COPY, attestation=FAKE_ATT)
    _code(r, "submission-copy")
    assert ok.json()["pull_request"] in r.json()["detail"]
    assert _prs(n) == 1
    # a different proof races freely, and its submitter holds the node beside the first
    # (claims are advisory, ruling 14)
    raced = n.submit(bob, **base, text=PROOF_MID_RACER, attestation=FAKE_ATT)
    assert raced.status_code == 201 and raced.json()["claim"]["claimed"] is True
    holders = n.client.get("/targets/demo/nodes/mid").json()["claims"]["live"]
    assert [h["pseudonym"] for h in holders] == ["alice", "bob"]


def test_partial_with_labels_passes_the_service_checks(n: Net) -> None:
    from tests.gate_scenarios import MID_PARTIAL_TEXT

    assert submissions.hole_lines(MID_PARTIAL_TEXT) == [7, 10]
    alice = n.token("alice")
    r = n.submit(alice, target="demo", node="mid", artifact_type="partial",
                 text=MID_PARTIAL_TEXT, files={"h1.witness.lean": "theorem W : True := trivial\n"},
                 attestation=FAKE_ATT)
    assert r.status_code == 201, r.text
    assert re.fullmatch(r"targets/demo/nodes/mid/attempts/\d{8}T\d{6}Z-alice-partial\.lean",
                        r.json()["path"])
    forge = n.net.forge()
    [pr] = forge.list_open()
    tree = forge.repo.get(pr.head_sha).tree
    assert r.json()["path"][:-len(".lean")] + ".h1.witness.lean" in tree


def test_shelved_statement_refused(n: Net) -> None:
    forge = n.net.forge()
    from tests.graphs import GraphBuilder

    tmp = n.net.data / "shelf"
    b = GraphBuilder(tmp)
    b.shelving("demo", "mid", "20260901T000000Z", "steve")
    files = {str(p.relative_to(tmp)): p.read_bytes() for p in tmp.rglob("*") if p.is_file()}
    forge.commit_to_main(files, "shelve mid")
    alice = n.token("alice")
    r = n.submit(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID,
                 attestation=FAKE_ATT)
    _code(r, "submission-node-shelved")


def test_index_mirrors_hand_opened_pull_requests_and_copy_refusal_sees_them(n: Net) -> None:
    forge = n.net.forge()
    hand = forge.open_pull_request(
        files={"targets/demo/nodes/mid/Proof.lean": PROOF_MID.encode()}, title="by hand",
        body="plain git", author="carol")
    listed = n.client.get("/submissions.json").json()["submissions"]
    assert [(s["pull_request"], s["kind"], s["node"], s["pseudonym"], s["opened_by_service"])
            for s in listed] == [(f"local/{hand.number}", "proof", "mid", "carol", False)]
    alice = n.token("alice")
    r = n.submit(alice, target="demo", node="mid", artifact_type="proof",
                 text=PROOF_MID_COPY, attestation=FAKE_ATT)
    _code(r, "submission-copy")
    # a closed pull request blocks nothing (D-25 v3.21)
    forge.close(hand.number)
    assert n.client.get("/submissions.json").json()["submissions"] == []
    r = n.submit(alice, target="demo", node="mid", artifact_type="proof",
                 text=PROOF_MID_COPY, attestation=FAKE_ATT)
    assert r.status_code == 201, r.text
    # one witness slot per hole
    w = forge.open_pull_request(files={"targets/demo/nodes/root--h2/Witness.lean":
                                       b"theorem Demo.main.h2.witness : True := trivial\n"},
                                title="witness", body="", author="carol")
    submissions.sync_index(n.svc)
    g = n.svc.graphs.snapshot().graph
    with pytest.raises(Exception) as exc:
        submissions.check_copies(n.svc, g, target="demo", node="root--h2", kind="witness",
                                 text="theorem other : True := trivial\n")
    assert getattr(exc.value, "code", None) == "witness-slot-taken"
    assert f"local/{w.number}" in str(exc.value)
    # the tutorial node stays open to rehearsal: copies are never refused there
    submissions.check_copies(n.svc, g, target="tutorial", node="tutorial", kind="proof",
                             text=TUTORIAL_PROOF)


def test_withdraw_and_mine(n: Net) -> None:
    alice = n.token("alice")
    bob = n.token("bob")
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    sub = n.submit(alice, precheck_id=job["job_id"]).json()
    assert sub["claim"]["claimed"] is True
    assert ids.SUBMISSION_ID_RE.fullmatch(sub["id"]), sub["id"]  # issue 35, item 7
    mine = n.client.get("/submissions/mine", headers=auth(alice)).json()
    assert [s["id"] for s in mine["open"]] == [sub["id"]]
    assert mine["open"][0]["queue_position"] == 1
    _code(n.client.get("/submissions/mine"), "token-missing")
    _code(n.client.delete("/submissions/sub-nope", headers=auth(alice)),
          "submission-not-found")
    _code(n.client.delete(f"/submissions/{sub['id']}", headers=auth(bob)),
          "submission-not-yours")
    _code(n.client.get("/submissions/sub-nope"), "submission-not-found")
    gone = n.client.delete(f"/submissions/{sub['id']}", headers=auth(alice))
    assert gone.status_code == 200 and gone.json()["state"] == "closed"
    assert n.net.forge().get(int(sub["pull_request"].split("/")[1])).state == "closed"
    assert n.client.get("/claims/mine", headers=auth(alice)).json()["claims"] == []
    _code(n.client.delete(f"/submissions/{sub['id']}", headers=auth(alice)),
          "submission-closed")
    mine = n.client.get("/submissions/mine", headers=auth(alice)).json()
    assert mine["open"] == [] and mine["recent"][0]["state"] == "closed"
    # a merged one is part of the record
    job = n.precheck(alice, target="demo", node="mid", artifact_type="proof", text=PROOF_MID)
    sub = n.submit(alice, precheck_id=job["job_id"]).json()
    [item] = n.net.run_queue()
    assert item.verdict == "pass", item.notes
    got = n.client.get(f"/submissions/{sub['id']}").json()
    assert got["state"] == "merged" and got["attestations"][0]["verdict"] == "pass"
    _code(n.client.delete(f"/submissions/{sub['id']}", headers=auth(alice)),
          "submission-merged")


def test_my_module_codes_are_documented() -> None:
    doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for module in ("submit/precheck", "submit/submissions"):
        src = (ROOT / "network" / "api" / f"{module}.py").read_text(encoding="utf-8")
        codes = re.findall(r'define\(\s*"([a-z0-9-]+)"', src)
        assert codes
        for code in codes:
            assert f"| `{code}` |" in doc, code


def test_a_queued_precheck_says_what_this_networks_toolchain_does(
        tmp_path: Path, monkeypatch: Any, n: Net) -> None:
    """Issue 35, item 7: "takes minutes" only where the pinned toolchain is here; without
    it the job says it runs the checks that need no Lean and ends toolchain-missing."""
    body = {"target": "tutorial", "node": "tutorial", "artifact_type": "proof",
            "text": TUTORIAL_PROOF}
    r = n.client.post("/precheck", json=body)
    assert r.status_code == 202, r.text
    assert "with the pinned Lean toolchain found here, which takes minutes" in r.json()["next"]
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    bare = FlowNet.create(tmp_path / "bare", None)  # product default: detect_toolchain
    with TestClient(bare.app()) as client:
        r = client.post("/precheck", json=body)
        assert r.status_code == 202, r.text
        said = r.json()["next"]
        assert "no toolchain for this target's pin" in said and "within seconds" in said
        assert "takes minutes" not in said
        again = client.get(f"/precheck/{r.json()['job_id']}").json()
        if again["state"] in ("queued", "running"):
            assert again["next"] == said
