"""Record writes that are pull requests, words, the hosted check and the words/schema reads
(D-3 v3.30-v3.32, D-4 v3.14, D-8, D-13, D-14, D-16, D-28, D-29, D-30, D-31, D-35).

Every route is driven over HTTP against a LocalForge seeded with a small graph. Each
accepted write opens exactly one pull request whose files pass the gate's own steps 1-2
against main (the service writes what the gate accepts); every refusal carries its catalog
code and opens nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
import yaml
from fastapi.testclient import TestClient

from network import ids
from network.api import db
from network.forge.local import LocalForge
from network.gate.artifacts import Kind
from network.gate.diff import diff_commits
from network.gate.steps.step2 import run_steps_1_2
from network.record.products.products import write_products
from network.record.read.loader import load_graph
from tests.api_support import Api, auth, forge_service, make_api
from tests.graphs import (
    GraphBuilder,
    git_commit,
)

MATHLIB = "a" * 40
TS = "20260921T141320Z"  # tests.api_support.START as a file-name timestamp
PART = "targets/demo/nodes/root/attempts/20260101T000000Z-bob-partial.lean"
GLOSS = "targets/demo/nodes/proved/gloss/20260103T000000Z-carol.yaml"
HOLE_STMT = "targets/demo/nodes/root--h1/Statement.lean"
PROVED_STMT = "targets/demo/nodes/proved/Statement.lean"
PROVED_PROOF = "targets/demo/nodes/proved/Proof.lean"


def _build(root: Path) -> GraphBuilder:
    """demo (steward steve, Mathlib pinned): root with a merged partial and its blocked hole
    root--h1, proved (merged proof, a gloss by carol on its statement); lonely (no
    steward, nothing pinned)."""
    b = GraphBuilder(root)
    b.base()
    b.target("demo")
    b.write_json("targets/demo/gate-spec.json", {
        "schema": "gate-spec/v1", "lean_toolchain": "leanprover/lean4:v4.22.0",
        "mathlib": {"name": "mathlib", "url": "https://github.com/leanprover-community/mathlib4",
                    "rev": MATHLIB}})
    b.node("demo", "root")
    b.node("demo", "proved", statement="theorem stmt_proved : True := sorry\n-- line 2\n")
    proof = b.proof("demo", "proved")
    part = b.partial("demo", "root", "20260101T000000Z", "bob")
    b.hole("demo", "root", 1, part)
    b.hole("demo", "root", 2, part)
    b.shelving("demo", "root--h2", "20260104T000000Z", "steve")
    b.merge([proof, part], date="2026-01-02")
    b.gloss("demo", "proved", "20260103T000000Z", "carol", text="$$\\top$$ It is true.")
    b.target("lonely", steward=None)
    b.node("lonely", "root")
    # the steward's pseudonym is reserved to the GitHub login this record binds (issue 16)
    b.write_yaml("identities/steve.yaml", {"schema": "identity/v1", "pseudonym": "steve",
                                           "github": "steve", "since": "2026-01-01"})
    write_products(load_graph(root), root)
    git_commit(root, "graph")
    return b


@dataclass
class Env:
    """The service over a LocalForge, and helpers."""

    api: Api
    forge: LocalForge

    @property
    def client(self) -> TestClient:
        return self.api.client

    def post(self, path: str, body: dict[str, Any], token: str | None) -> Any:
        return self.client.post(path, json=body, headers=auth(token) if token else {})

    def prs(self) -> list[Any]:
        return self.forge.list_all()

    def step2_ok(self, number: int, kind: Kind) -> None:
        """The opened pull request passes the gate's steps 1-2 against main's base."""
        pr = self.forge.get(number)
        diff = diff_commits(self.forge.path, pr.base_sha, pr.head_sha)
        base = load_graph(self.forge.path, pr.base_sha)
        res = run_steps_1_2(diff, base, pr.author)
        assert res.step1.ok and res.step2.ok, res.step2.diagnostics
        assert {a.kind for a in res.artifacts} == {kind}
        assert pr.author in pr.title or pr.author  # authored by the token's identity

    def files(self, number: int) -> dict[str, bytes]:
        pr = self.forge.get(number)
        diff = diff_commits(self.forge.path, pr.base_sha, pr.head_sha)
        return {c.path: diff.new_bytes(c) for c in diff.changes}


def _env(tmp_path: Path, settings: dict[str, Any] | None = None) -> Iterator[Env]:
    b = _build(tmp_path / "graph")
    with forge_service(tmp_path / "graph", tmp_path, settings=settings) as (
            client, app, forge, clock):
        yield Env(Api(client, app, clock, b), forge)


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    yield from _env(tmp_path)


def _refused(r: Any, code: str, status: int | None = None) -> dict[str, Any]:
    assert r.json().get("code") == code, r.text
    if status is not None:
        assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


PM = {"route": "strong induction", "route_class": "induction", "outcome": "exhausted",
      "terminal_goal_state": "n : ℕ\n⊢ P n", "failure_class": "missing-library"}


# --- postmortems -------------------------------------------------------------------------


def test_postmortem_opens_one_pr_the_gate_accepts(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = env.post("/postmortems", {"target_id": "demo", "node_id": "root",
                                  "yaml": yaml.safe_dump(PM)}, tok)
    assert r.status_code == 201, r.text
    body = r.json()
    path = f"targets/demo/nodes/root/attempts/{TS}-alice-postmortem.yaml"
    assert body["paths"] == [path] and body["kind"] == "postmortem"
    assert len(env.prs()) == 1
    pr = env.prs()[0]
    assert pr.author == "alice" and body["pull_request"] == str(pr.number)
    env.step2_ok(pr.number, Kind.POSTMORTEM)
    rec = yaml.safe_load(env.files(pr.number)[path])
    assert rec["contributor"] == "alice" and rec["node"] == "demo/root"
    assert rec["schema"] == "d13/v1"
    with env.api.svc.sessions() as s:
        row = s.get(db.SubmissionRow, body["submission_id"])
        assert row is not None and row.state == "open" and row.kind == "postmortem"
        assert row.pull_request == str(pr.number) and row.opened_by_service == 1
    # issue 35, item 7: one form of submission id on every path
    assert ids.SUBMISSION_ID_RE.fullmatch(body["submission_id"]), body["submission_id"]


def test_a_record_submission_is_tracked_to_its_merge(env: Env) -> None:
    """get_submission follows a record write's pull request (key ``N``, not ``local/N``)
    to merged, and the index does not mirror it a second time as hand-opened."""
    tok = env.api.token("alice")["token"]
    body = env.post("/postmortems", {"target_id": "demo", "node_id": "root",
                                     "yaml": yaml.safe_dump(PM)}, tok).json()
    sid = body["submission_id"]
    pr = env.forge.get(int(body["pull_request"]))
    got = env.client.get(f"/submissions/{sid}").json()
    assert got["state"] == "open" and got["queue_position"] == 1
    assert got["head_commit"] == pr.head_sha
    listed = env.client.get("/submissions.json").json()["submissions"]
    assert [s["id"] for s in listed] == [sid]
    env.forge.merge(pr.number)
    assert env.client.get(f"/submissions/{sid}").json()["state"] == "merged"
    mine = env.client.get("/submissions/mine", headers=auth(tok)).json()
    assert not mine["open"] and [s["id"] for s in mine["recent"]] == [sid]


@pytest.mark.parametrize(("change", "code"), [
    ({"yaml": "route: [unclosed"}, "malformed-yaml"),
    ({"yaml": "- a list\n"}, "invalid-record"),
    ({"yaml": yaml.safe_dump({**PM, "route_class": "vibes"})}, "invalid-record"),
    ({"yaml": yaml.safe_dump({**PM, "outcome": None})}, "invalid-record"),
    ({"yaml": yaml.safe_dump({**PM, "surprise": 1})}, "invalid-record"),
    ({"yaml": yaml.safe_dump({**PM, "schema": "d13/v9"})}, "unknown-schema"),
    ({"yaml": yaml.safe_dump({**PM, "contributor": "mallory"})}, "record-identity-mismatch"),
    ({"yaml": yaml.safe_dump({**PM, "node": "demo/proved"})}, "record-identity-mismatch"),
    ({"node_id": "nope"}, "node-not-found"),
    ({"target_id": "nope"}, "target-not-found"),
    ({"target_id": "../../etc"}, "bad-target-id"),
    ({"node_id": "root/../../x"}, "bad-node-id"),
    ({"node_id": "dev/$(exit 99)"}, "bad-node-id"),
])
def test_postmortem_refusals_open_nothing(env: Env, change: dict[str, Any], code: str) -> None:
    tok = env.api.token("alice")["token"]
    body = {"target_id": "demo", "node_id": "root", "yaml": yaml.safe_dump(PM), **change}
    _refused(env.post("/postmortems", body, tok), code)
    assert env.prs() == []
    with env.api.svc.sessions() as s:
        assert s.query(db.SubmissionRow).count() == 0


def test_a_copy_of_an_open_postmortem_is_refused_until_it_closes(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    body = {"target_id": "demo", "node_id": "root", "yaml": yaml.safe_dump(PM)}
    first = env.post("/postmortems", body, a).json()
    err = _refused(env.post("/postmortems", body, b), "record-copy", 409)
    assert first["submission_id"] in err["detail"]
    assert len(env.prs()) == 1
    env.forge.close(int(first["pull_request"]))  # a closed pull request blocks nothing
    assert env.post("/postmortems", body, b).status_code == 201
    assert len(env.prs()) == 2


def test_oversized_body_is_refused(tmp_path: Path) -> None:
    for e in _env(tmp_path, {"max_body_bytes": 2048}):
        tok = e.api.token("alice")["token"]
        big = {**PM, "detail": "x" * 5000}
        _refused(e.post("/postmortems", {"target_id": "demo", "node_id": "root",
                                         "yaml": yaml.safe_dump(big)}, tok), "body-too-large", 413)
        assert e.prs() == []


def test_without_a_forge_nothing_opens(tmp_path: Path) -> None:
    for api in make_api(tmp_path):
        tok = api.token("alice")["token"]
        r = api.client.post("/postmortems", json={"target_id": "demo", "node_id": "root",
                                                  "yaml": yaml.safe_dump(PM)},
                            headers=auth(tok))
        _refused(r, "forge-not-configured", 503)
        with api.svc.sessions() as s:
            assert s.query(db.SubmissionRow).count() == 0


# --- annexes -------------------------------------------------------------------------------


def test_annex_is_content_hashed_and_returns_its_hash(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    text = "An informal argument.\n\nStep 1: split.\n"
    r = env.post("/annexes", {"target_id": "demo", "node_id": "root", "text": text,
                              "licence": "CC-BY-4.0", "title": "Split"}, tok)
    assert r.status_code == 201, r.text
    sha = hashlib.sha256(text.encode()).hexdigest()
    assert r.json()["sha256"] == sha and r.json()["cite"] == f"-- annex: {sha}"
    pr = env.prs()[0]
    env.step2_ok(pr.number, Kind.ANNEX)
    files = env.files(pr.number)
    d = "targets/demo/nodes/root/annex"
    assert files[f"{d}/{sha}.md"] == text.encode()
    meta = yaml.safe_load(files[f"{d}/{sha}.yaml"])
    assert meta["sha256"] == sha and meta["author"] == "alice" and meta["licence"] == "CC-BY-4.0"
    # the same text again, whitespace aside, by someone else: a copy of an open annex
    again = {"target_id": "demo", "node_id": "root", "text": text.replace("\n\n", "\n"),
             "licence": "CC0", "title": "Mine"}
    _refused(env.post("/annexes", again, env.api.token("bob")["token"]), "record-copy")
    assert len(env.prs()) == 1


@pytest.mark.parametrize(("change", "code"), [
    ({"licence": ""}, "licence-missing"),
    ({"licence": "   "}, "licence-missing"),
    ({"text": "  \n"}, "invalid-record"),
    ({"source": {"title": "x", "url": "javascript:alert(1)"}}, "invalid-record"),
    ({"node_id": "ghost"}, "node-not-found"),
])
def test_annex_refusals(env: Env, change: dict[str, Any], code: str) -> None:
    tok = env.api.token("alice")["token"]
    body = {"target_id": "demo", "node_id": "root", "text": "Argument.", "licence": "CC0",
            "title": "T", **change}
    _refused(env.post("/annexes", body, tok), code)
    assert env.prs() == []


# --- approach records ------------------------------------------------------------------


def test_approach_record(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    rec = {"route": "Sieve", "outcome": "abandoned-early", "detail": "parity barrier",
           "model_and_tooling": {"method": "human"}, "nodes": ["root"]}
    r = env.post("/approaches", {"target_id": "demo", "record": rec}, tok)
    assert r.status_code == 201, r.text
    path = f"targets/demo/approaches/{TS}-alice.yaml"
    assert r.json()["paths"] == [path]
    env.step2_ok(env.prs()[0].number, Kind.APPROACH)
    written = yaml.safe_load(env.files(env.prs()[0].number)[path])
    assert written["schema"] == "approach/v2"  # D-14's fields, issue 18
    assert written["pinned_mathlib_sha"] == MATHLIB  # the target's pin, filled in
    _refused(env.post("/approaches", {"target_id": "demo", "record": rec},
                      env.api.token("bob")["token"]), "record-copy")
    v1 = {"title": "Sieve", "state": "abandoned"}
    for bad, code in (({**rec, "nodes": ["ghost"]}, "dangling-reference"),
                      ({**rec, "outcome": "great"}, "invalid-record"),
                      (v1, "invalid-record"),
                      ({**rec, "schema": "approach/v1"}, "unknown-schema"),
                      ({**rec, "pinned_mathlib_sha": "not-a-sha"}, "invalid-record"),
                      ({**rec, "author": "mallory"}, "record-identity-mismatch"),
                      ({**rec, "target": "lonely"}, "record-identity-mismatch")):
        _refused(env.post("/approaches", {"target_id": "demo", "record": bad}, tok), code)
    assert len(env.prs()) == 1


# --- witness proposals --------------------------------------------------------------------


def test_witness_for_a_blocked_hole_one_at_a_time(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    r = env.post("/proposals/witness", {"target_id": "demo", "node_id": "root--h1",
                                        "witness": "example : True := trivial\n"}, a)
    assert r.status_code == 201, r.text
    env.step2_ok(env.prs()[0].number, Kind.WITNESS)
    assert r.json()["paths"] == ["targets/demo/nodes/root--h1/Witness.lean"]
    # a different witness while one is open: the hole has one slot
    _refused(env.post("/proposals/witness", {"target_id": "demo", "node_id": "root--h1",
                                             "witness": "example : 1 = 1 := rfl\n"}, b),
             "witness-already-open", 409)
    # not a blocked hole
    for nid in ("proved", "root"):
        _refused(env.post("/proposals/witness", {"target_id": "demo", "node_id": nid,
                                                 "witness": "example : True := trivial\n"}, b),
                 "witness-not-wanted")
    # a shelved hole refuses work (D-14 v3.47)
    _refused(env.post("/proposals/witness", {"target_id": "demo", "node_id": "root--h2",
                                             "witness": "example : True := trivial\n"}, b),
             "claim-node-shelved", 409)
    # a malformed precheck attestation is refused before anything opens
    _refused(env.post("/proposals/witness", {"target_id": "demo", "node_id": "root--h1",
                                             "witness": "x", "attestation": "{not json"}, b),
             "precheck-malformed")
    assert len(env.prs()) == 1


def test_witness_with_a_forbidden_option_is_refused(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    _refused(env.post("/proposals/witness", {
        "target_id": "demo", "node_id": "root--h1",
        "witness": "set_option debug.skipKernelTC true\nexample : True := trivial\n"}, tok),
        "forbidden-option")
    assert env.prs() == []


# --- variants and speculative cruxes ------------------------------------------------------


def _variant(node: str = "weaker", **extra: Any) -> dict[str, Any]:
    return {"target_id": "demo", "node_id": node,
            "stmt": f"theorem {node.replace('-', '_')} : True := sorry\n",
            "witness": "example : True := trivial\n", "declaration": node.replace("-", "_"),
            **extra}


def test_variant_related_and_resolves(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = env.post("/proposals/variant", _variant(), tok)
    assert r.status_code == 201, r.text
    pr = env.prs()[0]
    env.step2_ok(pr.number, Kind.VARIANT)
    meta = yaml.safe_load(env.files(pr.number)["targets/demo/nodes/weaker/META.yaml"])
    assert meta["origin"] == "variant" and meta["variant"] == {"of": "root", "relation": "related"}
    assert meta["author"] == "alice"
    _refused(env.post("/proposals/variant", _variant("strong", relation="resolves"), tok),
             "missing-file")
    r = env.post("/proposals/variant", _variant("strong", relation="resolves",
                                                relation_proof="-- strong → root\n"), tok)
    assert r.status_code == 201, r.text
    env.step2_ok(int(r.json()["pull_request"]), Kind.VARIANT)
    assert len(env.prs()) == 2


@pytest.mark.parametrize(("body", "code"), [
    (_variant("root"), "node-exists"),
    (_variant("bad_id"), "bad-node-id"),
    (_variant("root--h9"), "gate-only-path"),
    (_variant(relation="maybe"), "bad-request"),
    ({**_variant(), "stmt": "#eval IO.println 1\ntheorem weaker : True := sorry\n"},
     "statement-command-refused"),
    ({**_variant(), "stmt": PROVED_STMT and "theorem stmt_proved : True := sorry\n-- line 2\n"},
     "record-copy"),
])
def test_variant_refusals(env: Env, body: dict[str, Any], code: str) -> None:
    tok = env.api.token("alice")["token"]
    _refused(env.post("/proposals/variant", body, tok), code)
    assert env.prs() == []


def test_a_statement_proposed_twice_is_a_copy(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    assert env.post("/proposals/variant", _variant(), a).status_code == 201
    again = {**_variant("other"), "stmt": "-- mine\ntheorem  weaker :  True := sorry\n"}
    _refused(env.post("/proposals/speculative", again, b), "record-copy")
    assert len(env.prs()) == 1


def test_speculative_crux(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = env.post("/proposals/speculative", _variant("crux"), tok)
    assert r.status_code == 201, r.text
    pr = env.prs()[0]
    env.step2_ok(pr.number, Kind.SPECULATIVE)
    meta = yaml.safe_load(env.files(pr.number)["targets/demo/nodes/crux/META.yaml"])
    assert meta["speculative"] is True and meta["origin"] == "authored"


# --- defect claims and revision requests ---------------------------------------------------


def test_defect_claim_and_its_pre_triage(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    base = {"target_id": "demo", "node_id": "proved", "class": "junk-value", "line": 2,
            "claim": "Junk value at line 2."}
    r = env.post("/defects", base, tok)
    assert r.status_code == 201, r.text
    assert r.json()["paths"] == [f"targets/demo/nodes/proved/defects/{TS}-alice.yaml"]
    pr = env.prs()[0]
    env.step2_ok(pr.number, Kind.DEFECT)
    rec = yaml.safe_load(env.files(pr.number)[r.json()["paths"][0]])
    assert rec["class"] == "junk-value" and rec["line"] == 2 and rec["by"] == "alice"
    for change, code in (({"class": "circular-decomposition"}, "defect-class-retired"),
                         ({"line": 3}, "defect-line-out-of-range"),
                         ({"line": 0}, "defect-line-out-of-range"),
                         ({"class": "bad-vibes"}, "invalid-record"),
                         ({"exhibit": "targets/demo/nodes/proved/Nope.lean"},
                          "dangling-reference"),
                         ({"node_id": "ghost"}, "node-not-found")):
        _refused(env.post("/defects", {**base, **change}, env.api.token("bob")["token"]), code)
    _refused(env.post("/defects", base, env.api.token("bob")["token"]), "record-copy")
    assert len(env.prs()) == 1


def test_revision_request(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    body = {"target_id": "demo", "node_id": "proved", "operation": "revise-statement",
            "evidence": "The statement is vacuous."}
    r = env.post("/revision-requests", body, tok)
    assert r.status_code == 201, r.text
    env.step2_ok(env.prs()[0].number, Kind.REVISION_REQUEST)
    _refused(env.post("/revision-requests", {**body, "operation": "make-weaker"}, tok),
             "invalid-record")
    _refused(env.post("/revision-requests", {**body, "proposed_statement_sha256": "xyz"}, tok),
             "invalid-record")
    assert len(env.prs()) == 1


# --- glosses and explainers -------------------------------------------------------------


def test_gloss_new_chain_one_writer_and_dry_run(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    body = {"subject": HOLE_STMT, "text": "$$1 = 1$$ Says one is one.", "label": "one is one"}
    dry = env.post("/glosses", {**body, "dry_run": True}, a)
    assert dry.status_code == 201, dry.text
    assert dry.json()["dry_run"] is True and dry.json()["pull_request"] is None
    assert env.prs() == []
    r = env.post("/glosses", body, a)
    assert r.status_code == 201, r.text
    assert r.json()["warnings"] == []
    pr = env.prs()[0]
    env.step2_ok(pr.number, Kind.GLOSS)
    rec = yaml.safe_load(env.files(pr.number)[r.json()["paths"][0]])
    assert rec["describes"] == HOLE_STMT and rec["label"] == "one is one"
    assert rec["describes_sha256"] == env.api.graph.sha(HOLE_STMT)
    # another new chain on the same file while one is open: refused, dry run included
    for extra in ({}, {"dry_run": True}):
        _refused(env.post("/glosses", {"subject": HOLE_STMT, "text": "Mine.", **extra}, b),
                 "words-chain-busy", 409)
    assert len(env.prs()) == 1
    # the words-needed read names the open pull request writing it
    entries = env.client.get("/words-needed.json", params={"target_id": "demo"}).json()["entries"]
    hole = next(e for e in entries if e["file"] == HOLE_STMT)
    assert hole["open_pull_request"]["submission_id"] == r.json()["submission_id"]


def test_gloss_amends_replace_words_in_the_same_pr(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    first = env.post("/glosses", {"subject": HOLE_STMT, "text": "Draft."}, a).json()
    assert "claim-missing" in first["warnings"][0]
    env.api.clock.advance(60)
    r = env.post("/glosses", {"subject": HOLE_STMT, "text": "$$x$$ Better.",
                              "amends": first["submission_id"]}, a)
    assert r.status_code == 201, r.text
    assert r.json()["amended"] is True and r.json()["pull_request"] == first["pull_request"]
    assert len(env.prs()) == 1
    number = int(first["pull_request"])
    env.step2_ok(number, Kind.GLOSS)
    files = env.files(number)
    assert list(files) == first["paths"]
    assert yaml.safe_load(files[first["paths"][0]])["sections"][0]["text"] == "$$x$$ Better."
    _refused(env.post("/glosses", {"subject": HOLE_STMT, "text": "Hijack.",
                                   "amends": first["submission_id"]}, b), "words-amend-invalid")
    _refused(env.post("/glosses", {"subject": HOLE_STMT, "text": "x", "amends": "s_nope"}, a),
             "words-amend-invalid")


def test_gloss_supersedes_only_the_head_one_writer_per_head(env: Env) -> None:
    a, b = env.api.token("alice")["token"], env.api.token("bob")["token"]
    body = {"subject": PROVED_STMT, "text": "$$\\top$$ Better words.", "supersedes": GLOSS}
    r = env.post("/glosses", body, a)
    assert r.status_code == 201, r.text
    env.step2_ok(env.prs()[0].number, Kind.GLOSS)
    _refused(env.post("/glosses", {**body, "text": "$$\\top$$ Mine."}, b), "words-head-busy", 409)
    _refused(env.post("/glosses", {**body, "supersedes": "targets/demo/nodes/proved/gloss/x.yaml"},
                      b), "words-not-head")
    assert len(env.prs()) == 1


def test_explainer_of_a_merged_proof_and_subject_rules(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = env.post("/glosses", {"subject": PROVED_PROOF, "sections": [
        {"steps": ["s1"], "text": "The proof is trivial.", "drafted_with": ["model-x"]}]}, tok)
    assert r.status_code == 201, r.text
    assert r.json()["kind"] == "explainer" and any("drafted" in w for w in r.json()["warnings"])
    env.step2_ok(env.prs()[0].number, Kind.EXPLAINER)
    for body, code in (
        ({"subject": HOLE_STMT, "text": "x", "kind": "explainer"}, "words-subject-invalid"),
        ({"subject": PROVED_PROOF, "text": "x", "kind": "gloss"}, "words-subject-invalid"),
        ({"subject": "targets/demo/nodes/root/META.yaml", "text": "x"}, "words-subject-invalid"),
        ({"subject": "targets/demo/nodes/root/Nope.lean", "text": "x"}, "words-subject-invalid"),
        ({"subject": "../../etc/passwd", "text": "x"}, "words-subject-invalid"),
        ({"subject": "targets/demo/nodes/root--h1/Witness.lean", "text": "x"},
         "words-subject-invalid"),
        ({"subject": "targets/demo/nodes/root/Witness.lean", "text": "x", "label": "L"},
         "invalid-record"),
        ({"subject": HOLE_STMT, "text": "x", "label": "L" * 61}, "invalid-record"),
        ({"subject": HOLE_STMT}, "bad-request"),
        ({"subject": HOLE_STMT, "text": "x", "kind": "poem"}, "bad-request"),
    ):
        _refused(env.post("/glosses", body, tok), code)
    # a merged partial takes a gloss (v3.44)
    r = env.post("/glosses", {"subject": PART, "text": "Split the problem."}, tok)
    assert r.status_code == 201, r.text
    env.step2_ok(int(r.json()["pull_request"]), Kind.GLOSS)
    assert len(env.prs()) == 2


def test_gloss_withdrawal_by_author_steward_or_curator(env: Env) -> None:
    body = {"record": GLOSS, "reason": "superseded by better words"}
    _refused(env.post("/glosses/withdrawals", body, env.api.token("alice")["token"]),
             "role-not-permitted", 403)
    r = env.post("/glosses/withdrawals", body, env.api.token("carol")["token"])
    assert r.status_code == 201, r.text
    env.step2_ok(env.prs()[0].number, Kind.WITHDRAWAL)
    _refused(env.post("/glosses/withdrawals", body, env.api.token("steve")["token"]),
             "record-copy")
    _refused(env.post("/glosses/withdrawals", {**body, "record": PROVED_STMT},
                      env.api.token("steve")["token"]), "withdrawal-subject-invalid")
    assert len(env.prs()) == 1


# --- reads -------------------------------------------------------------------------------


def test_words_needed(env: Env) -> None:
    body = env.client.get("/words-needed.json").json()
    files = {(e["file"], e["kind"], e["why"]) for e in body["entries"]}
    assert (HOLE_STMT, "statement", "no-gloss") in files
    assert (PROVED_PROOF, "proof", "no-explainer") in files
    assert (PART, "partial", "no-words") in files
    assert not any(f == PROVED_STMT for f, _, _ in files)  # carol's gloss describes it
    assert not any(f == "targets/demo/nodes/root/Statement.lean" for f, _, _ in files)  # a root
    assert all(e["open_pull_request"] is None for e in body["entries"])
    only = env.client.get("/words-needed.json", params={"kind": "proof"}).json()["entries"]
    assert only and {e["kind"] for e in only} == {"proof"}
    _refused(env.client.get("/words-needed.json", params={"kind": "poem"}), "bad-request")
    _refused(env.client.get("/words-needed.json", params={"target_id": "nope"}),
             "target-not-found")


def test_get_schema(env: Env) -> None:
    r = env.client.get("/schemas/d13/v1.json")
    assert r.status_code == 200 and "route_class" in json.dumps(r.json())
    assert env.client.get("/schemas/postmortem/v1.json").json() == r.json()
    assert "ETag" in r.headers
    _refused(env.client.get("/schemas/d13/v99.json"), "schema-not-found", 404)
    _refused(env.client.get("/schemas/..%2F..%2Fetc/v1.json"), "route-not-found", 404)
    _refused(env.client.get("/schemas/.env/v1.json"), "schema-not-found", 404)
    _refused(env.client.get("/schemas/d13/latest.json"), "schema-not-found", 404)


# --- the hosted check ----------------------------------------------------------------------

CHECKER = "https://checker.example"
SECRET_TEXT = "theorem secret_lemma_text : True := trivial"


def test_no_hosted_checker_is_a_clear_refusal_and_is_logged(env: Env) -> None:
    r = env.client.post("/check", json={"target_id": "demo", "content": SECRET_TEXT})
    _refused(r, "no-hosted-checker", 503)
    with env.api.svc.sessions() as s:
        rows = s.query(db.CheckLogRow).all()
        assert len(rows) == 1 and rows[0].outcome == "no-hosted-checker"


def _no_text_logged(env: Env) -> None:
    with env.api.svc.sessions() as s:
        for row in s.query(db.CheckLogRow).all():
            for col in db.CheckLogRow.__table__.columns:
                assert "secret_lemma_text" not in str(getattr(row, col.name))


@respx.mock
def test_check_forwards_to_the_hosted_checker(tmp_path: Path) -> None:
    settings = {"hosted_checker_url": CHECKER,
                "hosted_checker_environments": {MATHLIB: "mathlib-env-1"}}
    for e in _env(tmp_path, settings):
        route = respx.post(f"{CHECKER}/check").mock(return_value=httpx.Response(
            200, json={"ok": True, "messages": [], "goals": []}))
        tok = e.api.token("alice")["token"]
        content = SECRET_TEXT + "\n-- uses sorry? no: sorry\nexample : True := by native_decide\n"
        r = e.post("/check", {"target_id": "demo", "node_id": "proved", "content": content,
                              "mode": "verify"}, tok)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["non_authoritative"] is True and body["result"]["ok"] is True
        assert body["environment"] == "mathlib-env-1"
        assert [w["code"] for w in body["warnings"]] == ["native-code-used"]
        sent = json.loads(route.calls.last.request.content)
        assert sent["environment"] == "mathlib-env-1" and sent["mode"] == "verify"
        assert sent["statement"].startswith("theorem stmt_proved") and sent["content"] == content
        own = e.client.get(f"/checks/{body['check_id']}", headers=auth(tok))
        assert own.status_code == 200, own.text
        assert own.json()["content_sha256"] == hashlib.sha256(content.encode()).hexdigest()
        assert own.json()["outcome"] == "accepted" and "content" not in own.json()
        other = e.api.token("bob")["token"]
        _refused(e.client.get(f"/checks/{body['check_id']}", headers=auth(other)),
                 "check-not-yours", 403)
        _refused(e.client.get("/checks/c_nope", headers=auth(tok)), "check-not-found", 404)
        # anonymous calls work and cannot be read back
        anon = e.client.post("/check", json={"target_id": "demo", "content": SECRET_TEXT})
        assert anon.status_code == 200
        _refused(e.client.get(f"/checks/{anon.json()['check_id']}", headers=auth(tok)),
                 "check-not-yours")
        # a wrong token is refused even on the anonymous route
        _refused(e.post("/check", {"target_id": "demo", "content": "x"}, "lmt_wrong"),
                 "token-invalid", 401)
        # no environment for lonely's pin; verify without a node
        _refused(e.post("/check", {"target_id": "lonely", "content": "x"}, tok),
                 "hosted-checker-unmatched", 409)
        _refused(e.post("/check", {"target_id": "demo", "content": "x", "mode": "verify"}, tok),
                 "bad-request")
        route.mock(return_value=httpx.Response(500, text="boom"))
        _refused(e.post("/check", {"target_id": "demo", "content": SECRET_TEXT}, tok),
                 "hosted-checker-unavailable", 502)
        route.mock(side_effect=httpx.ConnectError("down"))
        _refused(e.post("/check", {"target_id": "demo", "content": SECRET_TEXT}, tok),
                 "hosted-checker-unavailable", 502)
        _no_text_logged(e)
        hosted = e.client.get("/hosted-checkers.json").json()
        demo = next(t for t in hosted["targets"] if t["target"] == "demo")
        assert demo["servable"] and demo["environment"] == "mathlib-env-1"


# --- tools and docs ------------------------------------------------------------------------


def test_record_tools_are_in_the_table() -> None:
    from network.api.tools import TOOLS

    names = {op.tool for op in TOOLS}
    for tool in ("submit_postmortem", "submit_informal_annex", "submit_approach_record",
                 "propose_witness", "propose_variant", "propose_speculative_node",
                 "file_defect_claim", "file_revision_request", "submit_gloss",
                 "withdraw_gloss", "check_lean", "get_check", "get_hosted_checkers",
                 "list_words_needed", "get_schema"):
        assert tool in names, tool


def test_record_module_codes_are_documented() -> None:
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "api.md").read_text(encoding="utf-8")
    for module in ("submit/records", "records/words", "submit/checks"):
        src = (root / "network" / "api" / f"{module}.py").read_text(encoding="utf-8")
        for code in re.findall(r'define_once\("([a-z0-9-]+)"', src):
            assert f"| `{code}` |" in doc, code


def test_record_tools_over_mcp_call_the_same_functions(env: Env) -> None:
    """The MCP adapter reaches the same operations: an annex, a gloss dry run, the words
    read, a schema, and check_lean's refusal, over streamable HTTP."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    token = env.api.token("alice")["token"]

    def payload(result: Any) -> Any:
        if getattr(result, "structured_content", None):
            sc = result.structured_content
            return sc.get("result", sc) if isinstance(sc, dict) else sc
        return json.loads(result.content[0].text)

    async def run() -> dict[str, Any]:
        transport = httpx2.ASGITransport(app=env.api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            return {
                "annex": await c.call_tool("submit_informal_annex", {
                    "target_id": "demo", "node_id": "root", "text": "An argument.",
                    "licence": "CC0", "title": "T", "token": token}),
                "dry": await c.call_tool("submit_gloss", {
                    "subject": HOLE_STMT, "text": "$$x$$ words", "dry_run": True,
                    "token": token}),
                "needed": await c.call_tool("list_words_needed", {"kind": "proof"}),
                "schema": await c.call_tool("get_schema", {"name": "postmortem",
                                                           "version": "v1"}),
                "check": await c.call_tool("check_lean", {"target_id": "demo",
                                                          "content": "x"}),
                "defect": await c.call_tool("file_defect_claim", {
                    "target_id": "demo", "node_id": "proved",
                    "defect_class": "circular-decomposition", "line": 1, "claim": "c",
                    "token": token}),
            }

    out = anyio.run(run)
    annex = payload(out["annex"])
    assert annex["sha256"] == hashlib.sha256(b"An argument.").hexdigest()
    assert annex["pull_request"] and len(env.prs()) == 1
    assert payload(out["dry"])["dry_run"] is True and len(env.prs()) == 1
    assert {e["kind"] for e in payload(out["needed"])["entries"]} == {"proof"}
    assert payload(out["schema"])["$id"].endswith("d13/v1")
    for key, code in (("check", "no-hosted-checker"), ("defect", "defect-class-retired")):
        assert out[key].is_error
        text = out[key].content[0].text
        assert json.loads(text[text.index("{"):])["code"] == code
