"""Reviews of held proofs (D-4 step 9 v3.11/v3.15, ruling 5, ruling 13; issue 13).

End to end on a LocalForge: alice's proof of the root of ``demo`` (an open problem whose
root nobody vouched for) is held at step 9; the merge queue leaves it open and does not
re-judge it while main stands still; its steward steve reviews it through
``POST /proof-reviews`` (a person route); the review's pull request merges; the queue
judges the held pull request again, step 9 reads the review and it merges with basis
``review``. Each attack is refused with its own code: the author's own review, a
non-steward's, a steward of another target's, a forged signature, a review of other bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import select

from network import signing
from network.api import db
from network.api.people import proof_reviews, web_session
from network.api.service import Caller, Who
from network.api.submit.records import gate_findings
from network.forge.local import LocalForge
from network.gate import attestation as A
from network.gate.artifacts import Kind
from network.gate.github import github_trusted as T
from network.gate.queue import queue as Q
from network.gate.run import attestation_path
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph, sha256_hex
from network.record.unverified import unverified
from tests.api_support import FakeClock, forge_service
from tests.graphs import (
    BUILDER_APPROVAL_KEY,
    BUILDER_APPROVAL_KEY_ID,
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
    git_commit,
)

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_ROOT, base_repo, open_prechecked, precheck_raw
from standin import RecordedToolchain

from tests.test_gate_workflow import FakePR, _event, _judge, _pr_repo, _toolchain

PROOF = f"{ND}/root/Proof.lean"


@dataclass
class Env:
    client: TestClient
    app: Any
    forge: LocalForge

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def who(self, pseudonym: str) -> Who:
        """The identity ``pseudonym`` (created through POST /tokens once)."""
        with self.svc.sessions() as s:
            row = s.execute(select(db.IdentityRow).where(
                db.IdentityRow.pseudonym == pseudonym)).scalar_one_or_none()
        if row is None:
            r = self.client.post("/tokens", json={
                "pseudonym": pseudonym, "dco": "1.1",
                "proof": {"kind": "github", "token": f"gh-{pseudonym}"}})
            assert r.status_code == 201, r.text
            return self.who(pseudonym)
        return Who(row.id, row.pseudonym, row.github_login, row.dco_version)

    def review(self, pseudonym: str, body: dict[str, Any]) -> Any:
        """POST /proof-reviews signed in as ``pseudonym``."""
        who = self.who(pseudonym)
        self.app.dependency_overrides[web_session.person] = lambda: web_session.Person(
            caller=Caller(token=None, address="t", who=who), login=pseudonym)
        try:
            return self.client.post("/proof-reviews", json={"decision": "approve", **body})
        finally:
            self.app.dependency_overrides.pop(web_session.person, None)

    def run_queue(self) -> list[Q.QueueItem]:
        return Q.process_queue(self.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                               gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)

    def main(self) -> Any:
        return load_graph(self.forge.path, self.forge.main_sha())


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    b, _ = base_repo(tmp_path / "graph")
    b.target("other", steward="ursula")  # ursula stewards another target only
    b.node("other", "root")
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": ["demo"]}])
    for who in ("steve", "ursula", "cora"):  # a role holder's pseudonym is bound to its login
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": who, "since": "2026-01-01"})
    git_commit(b.root, "stewards")
    clock = FakeClock()
    with forge_service(b.root, tmp_path, clock=clock, when=int(clock())) as (
            client, app, forge, _clock):
        yield Env(client, app, forge)


def _held(env: Env) -> tuple[int, m.Attestation, str]:
    """alice's proof of demo's root, opened and judged: held. (number, attestation, path)."""
    n = open_prechecked(env.forge, {PROOF: PROOF_ROOT.encode()}, author="alice")
    items = env.run_queue()
    assert [(i.number, i.verdict) for i in items] == [(n, "held")], [i.notes for i in items]
    head = env.forge.get(n).head_sha
    (rf,) = [a for a in env.main().attestations if a.record.head_commit == head]
    assert rf.record.step9 == m.Step9(basis="awaiting-review")
    return n, rf.record, rf.path


def _review_record(att_path: str, att: m.Attestation, by: str, *,
                   artifacts: list[dict[str, str]] | None = None,
                   key: Ed25519PrivateKey = BUILDER_APPROVAL_KEY) -> dict[str, Any]:
    body = {"schema": "proof-review/v1", "target": att.target, "node": att.node,
            "attestation": att_path,
            "artifacts": artifacts or [a.model_dump() for a in att.artifacts],
            "decision": "approve", "by": by, "date": "2026-09-21T14:13:20Z"}
    sig = signing.sign(m.ProofReview.model_validate(body), key, "approval",
                       BUILDER_APPROVAL_KEY_ID, by)
    return {**body, "signature": sig.model_dump()}


def _review_path(by: str) -> str:
    return f"{ND}/root/reviews/20260921T141320Z-{by}.yaml"


# --- the flow ------------------------------------------------------------------------------


def test_a_held_proof_merges_once_a_steward_reviews_it(env: Env) -> None:
    n, att, att_path = _held(env)
    again = env.run_queue()  # main stands still: the held pull request is not re-gated
    assert [(i.number, i.verdict, i.outcome) for i in again] == [(n, "held", None)]
    assert env.forge.get(n).state == "open"
    listed = proof_reviews.held_proofs(env.svc, "steve")
    assert [(x["target"], x["node"], x["pull_request"], x["attestation"]) for x in listed] == [
        ("demo", "root", str(n), att_path)]
    assert listed[0]["since"] == att.timestamp
    assert proof_reviews.held_proofs(env.svc, "alice") == []  # the author's own
    assert proof_reviews.held_proofs(env.svc, "ursula") == []  # another target's steward

    r = env.review("steve", {"pull_request": n, "note": "checked the statement"})
    assert r.status_code == 201, r.text
    got = r.json()
    assert got["kind"] == "proof-review" and got["reviews"] == str(n)
    (path,) = got["paths"]
    assert path.startswith(f"{ND}/root/reviews/") and path.endswith("-steve.yaml")
    review_pr = int(got["pull_request"])
    assert env.forge.get(review_pr).author == "steve"

    items = env.run_queue()  # the review merges; the held one waits (main had not moved)
    verdicts = {i.number: i.verdict for i in items}
    assert verdicts == {n: "held", review_pr: "pass"}, [i.notes for i in items]
    assert env.forge.get(review_pr).state == "merged"
    rec = env.main().targets["demo"].nodes["root"].reviews[0].record
    assert (rec.by, rec.attestation, rec.artifacts) == ("steve", att_path, att.artifacts)
    assert rec.signature is not None and rec.signature.kind == "approval"
    bundle = env.client.get("/targets/demo/nodes/root").json()  # get_node shows it
    assert [(r["path"], r["by"]) for r in bundle["reviews"]] == [(path, "steve")]

    items = env.run_queue()  # main moved: judged again, step 9 reads the review
    assert [(i.number, i.verdict) for i in items] == [(n, "pass")], [i.notes for i in items]
    assert env.forge.get(n).state == "merged"
    head = env.forge.get(n).head_sha
    passed = [a.record for a in env.main().attestations
              if a.record.head_commit == head and a.record.verdict == "pass"]
    assert [a.step9 for a in passed] == [m.Step9(basis="review", reviewer="steve")]
    assert proof_reviews.held_proofs(env.svc, "steve") == []


def test_a_review_by_submission_id_and_the_copy_refusal(env: Env) -> None:
    n, _att, _ = _held(env)
    subs = env.client.get("/submissions.json").json()["submissions"]  # indexes #n
    (sid,) = [s["id"] for s in subs if s["pull_request"] == f"local/{n}"]
    view = env.client.get(f"/submissions/{sid}").json()  # the submitter is told why it waits
    assert view["state"] == "open" and "held at step 9" in view["next"]
    r = env.review("cora", {"submission_id": sid})
    assert r.status_code == 201, r.text
    again = env.review("steve", {"pull_request": n})  # the same bytes, already under review
    assert (again.status_code, again.json()["code"]) == (409, "proof-already-reviewed")
    env.run_queue()  # cora's (a curator's) review merges
    after = env.review("steve", {"pull_request": n})
    assert (after.status_code, after.json()["code"]) == (409, "proof-already-reviewed")


# --- refusals at the service ------------------------------------------------------------------


def _prs(env: Env) -> int:
    return len(env.forge.list_all())


def test_the_author_cannot_review_their_own_proof(env: Env) -> None:
    n, *_ = _held(env)
    before = _prs(env)
    r = env.review("alice", {"pull_request": n})
    assert (r.status_code, r.json()["code"]) == (403, "review-by-author")
    assert _prs(env) == before


def test_a_non_steward_cannot_review(env: Env) -> None:
    n, *_ = _held(env)
    before = _prs(env)
    r = env.review("bob", {"pull_request": n})
    assert (r.status_code, r.json()["code"]) == (403, "review-not-steward")
    assert _prs(env) == before


def test_a_steward_of_another_target_cannot_review(env: Env) -> None:
    n, *_ = _held(env)
    r = env.review("ursula", {"pull_request": n})
    assert (r.status_code, r.json()["code"]) == (403, "review-not-steward")


def test_only_a_held_proof_is_reviewed(env: Env) -> None:
    n, *_ = _held(env)
    r = env.review("steve", {"pull_request": n})
    assert r.status_code == 201, r.text
    review_pr = int(r.json()["pull_request"])
    not_held = env.review("cora", {"pull_request": review_pr})  # open, but not held
    assert (not_held.status_code, not_held.json()["code"]) == (409, "proof-not-held")
    unknown = env.review("cora", {"submission_id": "s_nothing"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "submission-unknown")
    numeric = env.review("cora", {"submission_id": 12345})  # the contract's int form
    assert (numeric.status_code, numeric.json()["code"]) == (404, "submission-unknown")
    none = env.review("cora", {})
    assert (none.status_code, none.json()["code"]) == (422, "review-subject-missing")
    both = env.review("cora", {"pull_request": n, "submission_id": "s_x"})
    assert (both.status_code, both.json()["code"]) == (422, "review-subject-missing")
    env.run_queue()
    env.run_queue()  # it merged
    merged = env.review("cora", {"pull_request": n})
    assert (merged.status_code, merged.json()["code"]) == (409, "proof-not-held")


# --- refusals at the gate: step 2, and step 9 over what main holds -----------------------------


def test_step_2_refuses_forged_unsigned_elsewhere_and_authors_reviews(env: Env) -> None:
    _n, att, att_path = _held(env)
    graph = env.main()

    def findings(rec: dict[str, Any], by: str = "steve") -> list[str]:
        files = {_review_path(by): yaml.safe_dump(rec).encode()}
        return [d.code for d in gate_findings(graph, files, by, Kind.PROOF_REVIEW)]

    assert findings(_review_record(att_path, att, "steve")) == []
    forged = _review_record(att_path, att, "steve", key=Ed25519PrivateKey.generate())
    assert findings(forged) == ["role-signature-invalid"]
    unsigned = {k: v for k, v in _review_record(att_path, att, "steve").items()
                if k != "signature"}
    assert findings(unsigned) == ["role-act-unsigned"]
    other = [{"path": PROOF, "sha256": sha256_hex(b"theorem other : True := trivial\n")}]
    assert findings(_review_record(att_path, att, "steve", artifacts=other)) == [
        "review-names-no-held-proof"]
    assert set(findings(_review_record("attestations/none.json", att, "steve"))) == {
        "review-names-no-held-proof", "dangling-reference"}
    assert "review-by-author" in findings(_review_record(att_path, att, "alice"), "alice")
    assert "role-not-permitted" in findings(_review_record(att_path, att, "ursula"), "ursula")


@pytest.mark.parametrize("case", ["forged", "other-bytes", "author", "other-target"])
def test_step_9_ignores_a_review_on_main_that_does_not_count(env: Env, case: str) -> None:
    """Reviews put on main past step 2 (by hand, as the publisher): step 9 judges them
    again and none of these lets the held proof merge."""
    n, att, att_path = _held(env)
    by = {"author": "alice", "other-target": "ursula"}.get(case, "steve")
    rec = _review_record(
        att_path, att, by,
        key=Ed25519PrivateKey.generate() if case == "forged" else BUILDER_APPROVAL_KEY,
        artifacts=[{"path": PROOF, "sha256": "1" * 64}] if case == "other-bytes" else None)
    files = {_review_path(by): yaml.safe_dump(rec).encode()}
    if case == "author":  # alice a steward too: only her authorship voids her review
        st = {"schema": "steward/v3", "pseudonym": "alice", "target": "demo",
              "real_name": "Alice", "since": "2026-01-01", "commitment": "c"}
        sig = signing.sign(m.Steward.model_validate(st), BUILDER_APPROVAL_KEY, "approval",
                           BUILDER_APPROVAL_KEY_ID, "alice")
        files["targets/demo/stewards/alice.yaml"] = yaml.safe_dump(
            {**st, "signature": sig.model_dump()}).encode()
    env.forge.commit_to_main(files, "by hand")
    if case == "author":
        assert "alice" in derive.stewards_of(env.main(), "demo")
    # a forged or role-less signature is flagged as unverified (ruling 14)
    assert (_review_path(by) in unverified(env.main())) == (
        case in ("forged", "other-target"))
    items = env.run_queue()  # main moved: judged again, still held
    assert [(i.number, i.verdict) for i in items] == [(n, "held")], [i.notes for i in items]
    assert items[0].outcome is not None
    assert items[0].outcome.attestations[0].step9 == m.Step9(basis="awaiting-review")
    assert env.forge.get(n).state == "open"


def test_a_held_attestation_from_another_key_names_nothing(env: Env) -> None:
    """A review must name a gate-signed held attestation: one signed by another key (put
    on main by hand) is no verdict."""
    _n, att, _ = _held(env)
    fake = A.sign_attestation(att.model_copy(update={"signature": None}),
                              Ed25519PrivateKey.generate(), BUILDER_GATE_KEY_ID)
    path = "attestations/forged.json"
    env.forge.commit_to_main({path: A.attestation_bytes(fake)}, "by hand")
    files = {_review_path("steve"): yaml.safe_dump(
        _review_record(path, att, "steve")).encode()}
    codes = [d.code for d in gate_findings(env.main(), files, "steve", Kind.PROOF_REVIEW)]
    assert codes == ["review-names-no-held-proof"]


# --- the GitHub path: `lemmata gate trusted` takes the same record ------------------------------


def test_the_trusted_github_job_takes_the_same_review_record(tmp_path: Path) -> None:
    """The held proof's trusted run (github_trusted.decide) passes once main holds a
    steward's review of its bytes, with no GitHub approval; a review of other bytes, or
    none, leaves it held."""
    key = signing.generate_private_key(tmp_path / "gate-key.pem")
    pub = signing.public_key_record(key, "gate-test", "gate", "2026-01-01")
    root, base, head = _pr_repo(tmp_path, pub, {PROOF: PROOF_ROOT.encode()})
    held = _judge(tmp_path, root, base, head, key, scenario="root-proof")
    assert held.verdict == "held" and not held.merge
    (att,) = held.attestations
    att_path = attestation_path(att)
    repo = pygit2.Repository(str(root))

    def main_with(files: dict[str, bytes]) -> str:
        """A main commit after ``base`` holding the held attestation and ``files``."""
        idx = pygit2.Index()
        idx.read_tree(repo.revparse_single(base).peel(pygit2.Commit).tree)
        for path, data in {att_path: A.attestation_bytes(att), **files}.items():
            idx.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB))
        sig = pygit2.Signature("gate", "gate@x.invalid", 1_790_000_000, 0)
        return str(repo.create_commit(None, sig, sig, "review on main", idx.write_tree(repo),
                                      [pygit2.Oid(hex=base)]))

    def trusted(main: str) -> Any:
        ev = T.parse_event(_event(head, number=7))
        return T.decide(root, ev, FakePR(7, head, precheck_raw(root, base, head)),
                        tmp_path / "artifact", toolchain=_toolchain(scenario="root-proof"),
                        sandbox=Sandbox(), gate_key=key, key_id="gate-test", base=main)

    other = _review_record(att_path, att, "steve",
                           artifacts=[{"path": PROOF, "sha256": "2" * 64}])
    stale = trusted(main_with({_review_path("steve"): yaml.safe_dump(other).encode()}))
    assert stale.verdict == "held" and not stale.merge
    good = _review_record(att_path, att, "steve")
    ok = trusted(main_with({_review_path("steve"): yaml.safe_dump(good).encode()}))
    assert ok.verdict == "pass" and ok.merge, ok.to_dict()
    assert ok.attestations[0].step9 == m.Step9(basis="review", reviewer="steve")
