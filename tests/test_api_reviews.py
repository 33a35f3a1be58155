"""The formalization review's routes and MCP tools (D-9 v3.39, D-28 v3.39, D-35 "reviews";
issue 27): network/api/records/reviews.py and review_routes.py.

Every route runs over HTTP against a LocalForge seeded with the review graph of
``tests/review_support.py`` (the gate scenarios' ``demo``: steward ``steve``, the intent
signer; curator ``cora``); person routes run with the web-session dependency overridden
for a real identity, as tests/test_api_record_acts.py does. Each accepted write opens one
pull request holding exactly the act's file(s), whose record parses as its model, whose
signature (for a person's act) verifies with the graph's keys, and which passes the gate's
own steps 1-2; each refusal carries its catalog code and opens nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

from network.api.people import web_session
from network.api.service import Caller, authenticate
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.record import models as m
from network.record import trust
from network.record.read.loader import load_graph
from network.record.review_models import SCREENS
from tests.api_support import Api, forge_service
from tests.graphs import sha256_hex
from tests.review_support import (
    C1,
    C1_C2,
    C2,
    C3,
    CA_LEAN,
    Review,
    review_repo,
    two_readings,
)
from tests.test_api_records import Env

Build = Callable[[Review], Any]

#: a fresh candidate's Lean: a concept predicate and the theorem stated with it
G_LEAN = ("def Demo.g.Big (n : Nat) : Prop := 3 ≤ n\n\n"
          "theorem Demo.g (n : Nat) (h : Demo.g.Big n) : n ≠ 0 := by\n  sorry\n")
OPEN = {"target": "demo", "role": "steward", "words": "Every n > 2 is nonzero.",
        "cases": [{"kind": "small-value", "text": "3 is nonzero"}], "concepts": ["big"],
        "intent_signer": "steve"}


def _nothing(r: Review) -> None:
    """No review on demo."""


def _opened(r: Review) -> None:
    """A review on demo, three compiled candidates (all surviving: none is screened yet)
    and a question."""
    r.open()
    r.three_candidates()
    r.paths["question"] = r.question()


def _complete(r: Review) -> None:
    """The automated stages complete: one cluster, [C1, C2]."""
    r.complete()


def _env_of(tmp_path: Path, build: Build) -> Iterator[Env]:
    r = review_repo(tmp_path / "graph")
    r.b.curators([{"pseudonym": "curator", "targets": ["*"]},
                  {"pseudonym": "cora", "targets": ["*"]}])
    r.b.write_yaml("identities/cora.yaml", {"schema": "identity/v1", "pseudonym": "cora",
                                            "github": "cora", "since": "2026-01-01"})
    build(r)
    r.commit()
    with forge_service(tmp_path / "graph", tmp_path) as (client, app, forge, clock):
        env = Env(Api(client, app, clock, r.b), forge)
        env.review = r  # type: ignore[attr-defined]
        yield env


@pytest.fixture()
def bare(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, _nothing)


@pytest.fixture()
def opened(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, _opened)


@pytest.fixture()
def complete(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, _complete)


@pytest.fixture()
def readings(tmp_path: Path) -> Iterator[Env]:
    yield from _env_of(tmp_path, two_readings)


# --- helpers --------------------------------------------------------------------------


def _as(env: Env, pseudonym: str | None) -> str | None:
    """Sign ``pseudonym`` in (the web-session dependency overridden for its real identity,
    the GitHub login its own name); None signs out. Returns its bearer token."""
    if pseudonym is None:
        env.api.app.dependency_overrides.pop(web_session.person, None)
        return None
    tok = str(env.api.token(pseudonym)["token"])
    who = authenticate(env.api.svc, tok)
    person = web_session.Person(caller=Caller(token=None, address="t", who=who),
                                login=pseudonym)
    env.api.app.dependency_overrides[web_session.person] = lambda: person
    return tok


def _post(env: Env, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    return env.client.post(path, json=body,
                           headers={"Authorization": f"Bearer {token}"} if token else {})


def _refused(r: Any, code: str, status: int) -> None:
    assert r.json().get("code") == code, r.text
    assert r.status_code == status, r.text


def _opened_pr(env: Env, r: Any, kind: Kind, model: type[m.Record],
               folder: str, *, lean: bool = False) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The one pull request ``r`` opened: it passes steps 1-2 as ``kind``, holds exactly the
    act's record (and its Lean beside it), and the record parses as ``model``."""
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, kind)
    files = env.files(number)
    [yml] = [p for p in files if p.endswith(".yaml")]
    assert yml.startswith(f"targets/demo/review/{folder}/"), yml
    expected = {yml, yml[:-len(".yaml")] + ".lean"} if lean else {yml}
    assert set(files) == expected and sorted(expected) == r.json()["paths"]
    rec = yaml.safe_load(files[yml])
    model.model_validate(rec)
    return rec, files


def _verify(env: Env, model: type[m.Record], rec: dict[str, Any], signer: str) -> None:
    """The record's signature is the approval key's for ``signer`` and verifies over it."""
    graph = load_graph(env.forge.path, "refs/heads/main")
    trust.check_role_signature(model.model_validate(rec),
                               m.Signature.model_validate(rec["signature"]),
                               actors=frozenset({signer}), holds=lambda _w, _d: True,
                               at_date=rec["date"], keys=graph.keys,
                               identities=graph.identities)
    assert rec["signature"]["kind"] == "approval" and rec["signature"]["signer"] == signer


# --- POST /reviews ----------------------------------------------------------------------


def test_a_steward_opens_a_review_signed_for_them(bare: Env) -> None:
    _as(bare, "steve")
    r = _post(bare, "/reviews", OPEN)
    rec, _ = _opened_pr(bare, r, Kind.REVIEW_OPENING, m.ReviewOpening, "openings")
    assert rec["by"] == "steve" and rec["role"] == "steward" and rec["concepts"] == ["big"]
    assert rec["intent_signer"] == "steve" and r.json()["review"] == "demo"
    _verify(bare, m.ReviewOpening, rec, "steve")
    tampered = {**rec, "words": "Every n > 3 is nonzero."}
    with pytest.raises(LemmataError) as exc:
        _verify(bare, m.ReviewOpening, tampered, "steve")
    assert exc.value.code == "role-signature-invalid"
    # one opening at a time: a second is refused while the first is open
    _refused(_post(bare, "/reviews", {**OPEN, "words": "other words"}),
             "review-already-open", 409)
    assert len(bare.prs()) == 1


def test_a_curator_opens_as_curator(bare: Env) -> None:
    _as(bare, "cora")
    r = _post(bare, "/reviews", {**OPEN, "role": "curator"})
    rec, _ = _opened_pr(bare, r, Kind.REVIEW_OPENING, m.ReviewOpening, "openings")
    _verify(bare, m.ReviewOpening, rec, "cora")


@pytest.mark.parametrize(("who", "change", "code", "status"), [
    ("alice", {}, "review-opener-role", 403),                 # no role on demo
    ("steve", {"role": "curator"}, "review-opener-role", 403),  # a role steve lacks
    ("cora", {"role": "steward"}, "review-opener-role", 403),
    ("steve", {"intent_signer": "alice"}, "review-intent-signer-not-steward", 422),
    ("steve", {"role": "proposer"}, "bad-request", 422),       # not an opener's role here
    ("steve", {"cases": [{"kind": "guess", "text": "x"}]}, "bad-request", 422),
    ("steve", {"target": "nope"}, "target-not-found", 404),
    ("steve", {"concepts": ["Not A Word"]}, "invalid-record", 422),
])
def test_opening_refusals_open_nothing(bare: Env, who: str, change: dict[str, Any],
                                       code: str, status: int) -> None:
    _as(bare, who)
    _refused(_post(bare, "/reviews", {**OPEN, **change}), code, status)
    assert bare.prs() == []


def test_opening_needs_a_session_and_one_review_per_target(opened: Env) -> None:
    _refused(_post(opened, "/reviews", OPEN), "session-missing", 401)
    _as(opened, "cora")
    _refused(_post(opened, "/reviews", {**OPEN, "role": "curator"}), "review-already-open",
             409)
    assert opened.prs() == []


# --- POST /reviews/{id}/candidates --------------------------------------------------------


def test_a_candidate_is_its_record_and_its_lean(opened: Env) -> None:
    tok = opened.api.token("gina")["token"]
    r = _post(opened, "/reviews/demo/candidates", {
        "lean": G_LEAN, "concepts": {"big": "Demo.g.Big"}, "read_others": False}, tok)
    rec, files = _opened_pr(opened, r, Kind.REVIEW_CANDIDATE, m.ReviewCandidate,
                            "candidates", lean=True)
    lean = next(p for p in files if p.endswith(".lean"))
    assert files[lean] == G_LEAN.encode() and rec["lean_sha256"] == sha256_hex(G_LEAN.encode())
    assert rec["by"] == "gina" and rec["origin"] == "person" and rec["read_others"] is False
    assert rec["declaration"] == "Demo.g"  # read from the Lean's one theorem
    assert rec["concepts"] == {"big": "Demo.g.Big"}
    # the same bytes again, while the first is open
    _refused(_post(opened, "/reviews/demo/candidates", {"lean": G_LEAN, "read_others": True},
                   tok), "review-candidate-copy", 409)
    assert len(opened.prs()) == 1


def test_a_models_candidate_names_its_models(opened: Env) -> None:
    tok = opened.api.token("gina")["token"]
    r = _post(opened, "/reviews/demo/candidates", {"lean": G_LEAN,
                                                   "models": ["model-a", "model-b"]}, tok)
    rec, _ = _opened_pr(opened, r, Kind.REVIEW_CANDIDATE, m.ReviewCandidate, "candidates",
                        lean=True)
    assert rec["origin"] == "model" and rec["model"] == "model-a, model-b"
    assert "read_others" not in rec


def test_a_mutant_names_what_it_perturbs_and_how(complete: Env) -> None:
    tok = complete.api.token("gina")["token"]
    body = {"lean": G_LEAN, "models": ["model-a"], "mutant_of": C2,
            "defect_class": "strength-drift"}
    r = _post(complete, "/reviews/demo/candidates", body, tok)
    rec, _ = _opened_pr(complete, r, Kind.REVIEW_CANDIDATE, m.ReviewCandidate, "candidates",
                        lean=True)
    assert rec["mutant_of"] == C2 and rec["defect_class"] == "strength-drift"
    _refused(_post(complete, "/reviews/demo/candidates",
                   {**body, "lean": G_LEAN + "\n", "defect_class": None}, tok),
             "invalid-record", 422)  # a mutant names its defect class


@pytest.mark.parametrize(("body", "code", "status"), [
    ({"lean": G_LEAN}, "invalid-record", 422),  # a person declares read_others
    ({"lean": G_LEAN + "\ntheorem Demo.h : True := trivial\n", "read_others": False},
     "bad-request", 422),  # two theorems: name the declaration
    ({"lean": CA_LEAN.replace("Demo.a", "Demo.c2"), "read_others": False,
      "declaration": "Demo.c2"}, "review-declaration-taken", 409),  # step 2's
    ({"read_others": False}, "bad-request", 422),  # no lean
    ({"lean": G_LEAN, "read_others": False, "origin": "oracle"}, "bad-request", 422),
])
def test_candidate_refusals_open_nothing(opened: Env, body: dict[str, Any], code: str,
                                         status: int) -> None:
    tok = opened.api.token("gina")["token"]
    _refused(_post(opened, "/reviews/demo/candidates", body, tok), code, status)
    assert opened.prs() == []


def test_a_candidate_needs_a_review_and_a_token(bare: Env) -> None:
    body = {"lean": G_LEAN, "read_others": False}
    _refused(_post(bare, "/reviews/demo/candidates", body), "token-missing", 401)
    tok = bare.api.token("gina")["token"]
    _refused(_post(bare, "/reviews/demo/candidates", body, tok), "review-not-open", 409)
    _refused(_post(bare, "/reviews/Bad_Id/candidates", body, tok), "bad-target-id", 422)
    assert bare.prs() == []


# --- POST /reviews/{id}/answers -----------------------------------------------------------


def test_the_intent_signer_answers_signed_naming_the_login(opened: Env) -> None:
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    _as(opened, "steve")
    r = _post(opened, "/reviews/demo/answers", {"question": q, "answer": "From 3 on.",
                                               "source": "the problem's page"})
    rec, _ = _opened_pr(opened, r, Kind.REVIEW_ANSWER, m.ReviewAnswer, "answers")
    assert rec["question"] == q and rec["login"] == "steve" and rec["by"] == "steve"
    _verify(opened, m.ReviewAnswer, rec, "steve")
    # one answer per question: a second is refused while the first is open
    _refused(_post(opened, "/reviews/demo/answers", {"question": q, "answer": "Again."}),
             "review-question-answered", 409)
    assert len(opened.prs()) == 1


@pytest.mark.parametrize(("who", "question", "code", "status"), [
    ("erin", None, "review-answer-not-intent-signer", 403),
    ("cora", None, "review-answer-not-intent-signer", 403),
    ("steve", "targets/demo/review/questions/20260101T000000Z-zed.yaml",
     "review-question-unknown", 422),
])
def test_answer_refusals_open_nothing(opened: Env, who: str, question: str | None,
                                      code: str, status: int) -> None:
    _as(opened, who)
    q = question or opened.review.paths["question"]  # type: ignore[attr-defined]
    _refused(_post(opened, "/reviews/demo/answers", {"question": q, "answer": "x"}), code,
             status)
    assert opened.prs() == []


def test_an_answer_on_main_closes_the_question(tmp_path: Path) -> None:
    def answered(r: Review) -> None:
        _opened(r)
        r.paths["answer"] = r.answer(r.paths["question"])

    for env in _env_of(tmp_path, answered):
        _as(env, "steve")
        _refused(_post(env, "/reviews/demo/answers", {
            "question": env.review.paths["question"],  # type: ignore[attr-defined]
            "answer": "x"}), "review-question-answered", 409)
        assert env.prs() == []
        assert env.client.get("/review-questions").json()["questions"] == []


# --- POST /reviews/{id}/signatures --------------------------------------------------------


def test_an_independent_signature_of_the_surviving_cluster(complete: Env) -> None:
    _as(complete, "erin")
    r = _post(complete, "/reviews/demo/signatures", {
        "role": "independent", "decision": "accept", "cluster": [C1, C2], "note": "ok"})
    rec, _ = _opened_pr(complete, r, Kind.REVIEW_SIGNATURE, m.ReviewSignature, "signatures")
    assert rec["login"] == "erin" and rec["by"] == "erin" and rec["cluster"] == [C1, C2]
    _verify(complete, m.ReviewSignature, rec, "erin")


def test_a_signature_while_the_review_is_not_complete_is_refused(opened: Env) -> None:
    _as(opened, "steve")
    body = {"role": "intent", "decision": "accept", "cluster": [C1, C2]}
    _refused(_post(opened, "/reviews/demo/signatures", body), "review-not-complete", 409)
    assert opened.prs() == []
    # a send-back earns nothing and is recorded whatever the stages say
    r = _post(opened, "/reviews/demo/signatures", {**body, "decision": "send-back"})
    rec, _ = _opened_pr(opened, r, Kind.REVIEW_SIGNATURE, m.ReviewSignature, "signatures")
    assert rec["decision"] == "send-back"


@pytest.mark.parametrize(("who", "change", "code", "status"), [
    ("steve", {"role": "independent"}, "review-signer-role", 403),
    ("erin", {"role": "intent"}, "review-signer-role", 403),
    ("erin", {"cluster": [C1]}, "review-cluster-not-surviving", 409),  # step 2's
    ("carol", {}, "review-signer-authored", 403),  # carol wrote C2 (step 2's)
    ("erin", {"decision": "maybe"}, "bad-request", 422),
    ("erin", {"cluster": []}, "bad-request", 422),
])
def test_signature_refusals_open_nothing(complete: Env, who: str, change: dict[str, Any],
                                         code: str, status: int) -> None:
    _as(complete, who)
    body = {"role": "independent", "decision": "accept", "cluster": [C1, C2], **change}
    _refused(_post(complete, "/reviews/demo/signatures", body), code, status)
    assert complete.prs() == []


# --- the agents' acts: exhibits, attempts, tests, questions ------------------------------


def test_an_implies_exhibit_is_its_record_and_its_lean(opened: Env) -> None:
    tok = opened.api.token("bob")["token"]
    r = _post(opened, "/reviews/demo/exhibits", {
        "kind": "implies", "candidate": C1, "other": C2, "theorem": "Demo.c1_c2",
        "lean": C1_C2, "tool": "by hand"}, tok)
    rec, files = _opened_pr(opened, r, Kind.REVIEW_EXHIBIT, m.ReviewExhibit, "exhibits",
                            lean=True)
    assert rec["lean_sha256"] == sha256_hex(C1_C2.encode()) and rec["by"] == "bob"
    assert files[next(p for p in files if p.endswith(".lean"))] == C1_C2.encode()
    _refused(_post(opened, "/reviews/demo/exhibits", {
        "kind": "implies", "candidate": C1, "other": C2, "theorem": "Demo.c1_c2",
        "lean": C1_C2}, tok), "record-copy", 409)


def test_an_attempt_and_a_question(opened: Env) -> None:
    tok = opened.api.token("bob")["token"]
    r = _post(opened, "/reviews/demo/attempts", {"candidate": C1, "other": C3,
                                                "tool": "aesop", "budget": "60 s"}, tok)
    rec, _ = _opened_pr(opened, r, Kind.REVIEW_ATTEMPT, m.ReviewAttempt, "attempts")
    assert rec["other"] == C3 and rec["budget"] == "60 s"
    r = _post(opened, "/reviews/demo/questions", {
        "question": "Is 0 meant to count?", "case": "n = 0", "candidates": [C1, C3]}, tok)
    rec, _ = _opened_pr(opened, r, Kind.REVIEW_QUESTION, m.ReviewQuestion, "questions")
    assert rec["case"] == "n = 0"


def test_an_intent_test_of_a_concept_of_the_opening(readings: Env) -> None:
    tok = readings.api.token("bob")["token"]
    r = _post(readings, "/reviews/demo/tests", {"concept": "big", "args": ["2"],
                                               "source": "computation"}, tok)
    rec, _ = _opened_pr(readings, r, Kind.REVIEW_TEST, m.ReviewTest, "tests")
    assert rec["concept"] == "big" and rec["args"] == ["2"] and "expected" not in rec
    _refused(_post(readings, "/reviews/demo/tests", {"concept": "small", "args": ["2"],
                                                    "source": "computation"}, tok),
             "review-test-concept", 422)
    _refused(_post(readings, "/reviews/demo/tests", {"concept": "big", "args": ["2"],
                                                    "source": "cited"}, tok),
             "invalid-record", 422)
    assert len(readings.prs()) == 1


def test_a_covers_test_and_a_candidate_naming_its_claim(readings: Env) -> None:
    """D-9 v3.39's covers probe takes no arguments; a candidate names its claim (the
    statement over its concept predicates) for the covers and witness probes to apply."""
    tok = readings.api.token("bob")["token"]
    r = _post(readings, "/reviews/demo/tests", {"probe": "covers", "concept": "big",
                                               "source": "computation"}, tok)
    rec, _ = _opened_pr(readings, r, Kind.REVIEW_TEST, m.ReviewTest, "tests")
    assert rec["probe"] == "covers" and rec["args"] == []
    _refused(_post(readings, "/reviews/demo/tests", {"probe": "covers", "concept": "big",
                                                    "args": ["2"], "source": "computation"},
                   tok), "invalid-record", 422)
    lean = ("def Demo.h.Big (n : Nat) : Prop := 2 < n\n\n"
            "def Demo.h.claim (Big : Nat → Prop) : Prop := ∀ n, Big n → n ≠ 0\n\n"
            "theorem Demo.h (n : Nat) (h : Demo.h.Big n) : n ≠ 0 := by\n  sorry\n")
    r = _post(readings, "/reviews/demo/candidates", {
        "lean": lean, "declaration": "Demo.h", "concepts": {"big": "Demo.h.Big"},
        "claim": "Demo.h.claim", "read_others": False}, tok)
    rec, _ = _opened_pr(readings, r, Kind.REVIEW_CANDIDATE, m.ReviewCandidate, "candidates",
                        lean=True)
    assert rec["claim"] == "Demo.h.claim"


@pytest.mark.parametrize(("route", "body", "code", "status"), [
    ("attempts", {"candidate": "targets/demo/review/candidates/20260101T000000Z-zed.yaml",
                  "screen": "proves", "tool": "t", "budget": "1 s"},
     "review-candidate-unknown", 422),
    ("attempts", {"candidate": C1, "other": C2, "screen": "proves", "tool": "t",
                  "budget": "1 s"}, "invalid-record", 422),
    ("attempts", {"candidate": C1, "screen": "guess", "tool": "t", "budget": "1 s"},
     "bad-request", 422),
    ("exhibits", {"kind": "implies", "candidate": C1, "theorem": "Demo.x", "lean": C1_C2},
     "invalid-record", 422),  # an implies exhibit names the other candidate
    ("tests", {"concept": "big", "args": ["2"], "source": "computation"},
     "review-test-concept", 422),  # the opening names no concept
    ("questions", {"question": "Why?", "case": "n = 0",
                   "raised_by": "targets/demo/review/attempts/20260101T000000Z-zed.yaml"},
     "dangling-reference", 422),
])
def test_agent_act_refusals_open_nothing(opened: Env, route: str, body: dict[str, Any],
                                         code: str, status: int) -> None:
    tok = opened.api.token("bob")["token"]
    _refused(_post(opened, f"/reviews/demo/{route}", body, tok), code, status)
    assert opened.prs() == []


# --- reads: the blind rule, the questions, the open pairs ---------------------------------


def test_get_review_is_blind_until_the_caller_has_a_candidate(opened: Env) -> None:
    r = opened.client.get("/reviews/demo")
    assert "Authorization" in r.headers["vary"]  # no cache hands it to a token holder
    anon = r.json()
    assert anon["review"]["intent_signer"] == "steve" and anon["lean_shown"] is False
    assert {c["path"] for c in anon["review"]["candidates"]} == {C1, C2, C3}
    assert all("lean_text" not in c for c in anon["review"]["candidates"])
    outsider = opened.api.token("erin")["token"]
    r = opened.client.get("/reviews/demo", headers={"Authorization": f"Bearer {outsider}"})
    assert r.json()["lean_shown"] is False
    assert all("lean_text" not in c for c in r.json()["review"]["candidates"])
    author = opened.api.token("carol")["token"]  # carol wrote C2
    r = opened.client.get("/reviews/demo", headers={"Authorization": f"Bearer {author}"})
    body = r.json()
    assert body["lean_shown"] is True and r.headers["cache-control"] == "no-store"
    graph = load_graph(opened.forge.path, "refs/heads/main")
    for c in body["review"]["candidates"]:
        assert c["lean_text"] == graph.text(c["lean"])
    _refused(opened.client.get("/reviews/demo", headers={"Authorization": "Bearer lmt_x"}),
             "token-invalid", 401)


def test_get_review_of_a_target_without_one(bare: Env) -> None:
    body = bare.client.get("/reviews/demo").json()
    assert body["review"] is None and body["target"] == "demo"
    _refused(bare.client.get("/reviews/nope"), "target-not-found", 404)


def test_the_questions_waiting(opened: Env) -> None:
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    for url in ("/review-questions", "/review-questions?target_id=demo",
                "/reviews/demo/questions"):
        [item] = opened.client.get(url).json()["questions"]
        assert item["path"] == q and item["asked"] == "steve" and item["case"] == "n = 3"
    _refused(opened.client.get("/review-questions?target_id=nope"), "target-not-found", 404)


def test_the_open_pairs(tmp_path: Path) -> None:
    def tried(r: Review) -> None:
        r.open()
        r.three_candidates()
        r.paths["attempt"] = "targets/demo/review/attempts/20260104T000000Z-bob.yaml"
        r.b.write_yaml(r.paths["attempt"], {
            "schema": "review-attempt/v1", "target": "demo", "candidate": C1, "other": C2,
            "tool": "aesop", "budget": "60 s", "by": "bob", "date": "2026-01-05"})

    for env in _env_of(tmp_path, tried):
        pairs = env.client.get("/review-pairs").json()["pairs"]
        by = {(p["left"]["path"], p["right"]["path"]): p for p in pairs}
        assert set(by) == {(a, b) for a in (C1, C2, C3) for b in (C1, C2, C3) if a != b}
        one = by[(C1, C2)]
        assert one["status"] == "open" and one["left"]["author"] == "alice"
        assert one["attempts"] == [{"path": env.review.paths["attempt"],  # type: ignore[attr-defined]
                                    "by": "bob", "tool": "aesop", "budget": "60 s",
                                    "date": "2026-01-05"}]
        assert by[(C2, C1)]["status"] == "untried" and by[(C2, C1)]["attempts"] == []


def test_a_complete_review_leaves_no_pair_and_no_question(complete: Env) -> None:
    assert complete.client.get("/review-pairs?target_id=demo").json()["pairs"] == []
    assert complete.client.get("/review-questions").json()["questions"] == []
    review = complete.client.get("/reviews/demo").json()["review"]
    assert review["complete"] is True and review["clusters"] == [[C1, C2]]
    assert set(SCREENS) == set(review["candidates"][0]["screens"])


def test_me_lists_the_questions_waiting_for_the_intent_signer(opened: Env) -> None:
    q = opened.review.paths["question"]  # type: ignore[attr-defined]
    _as(opened, "steve")
    [item] = opened.client.get("/me").json()["waiting"]["intent_questions"]
    assert item["path"] == q and item["target"] == "demo" and "intent signer" in item["what"]
    _as(opened, "erin")
    assert opened.client.get("/me").json()["waiting"]["intent_questions"] == []


# --- the MCP tools ------------------------------------------------------------------------


def test_the_review_tools_over_mcp(opened: Env) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    carol = opened.api.token("carol")["token"]
    gina = opened.api.token("gina")["token"]

    async def run() -> dict[str, Any]:
        transport = httpx2.ASGITransport(app=opened.api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            names = {t.name for t in (await c.list_tools()).tools}
            return {
                "names": names,
                "blind": await c.call_tool("get_review", {"target_id": "demo"}),
                "seen": await c.call_tool("get_review", {"target_id": "demo",
                                                          "token": carol}),
                "questions": await c.call_tool("list_review_questions", {}),
                "pairs": await c.call_tool("list_open_pairs", {"target_id": "demo"}),
                "refused": await c.call_tool("submit_candidate", {
                    "target_id": "nope", "lean": G_LEAN, "read_others": False,
                    "token": gina}),
                "submitted": await c.call_tool("submit_candidate", {
                    "target_id": "demo", "lean": G_LEAN, "models": ["model-a"],
                    "token": gina}),
            }

    out = anyio.run(run)
    assert {"get_review", "list_review_questions", "submit_candidate", "list_open_pairs",
            "submit_review_exhibit", "file_review_attempt", "file_review_test",
            "file_review_question"} <= out["names"]
    payload = {k: json.loads(v.content[0].text) for k, v in out.items() if k != "names"}
    assert payload["blind"]["lean_shown"] is False
    assert payload["seen"]["lean_shown"] is True
    assert [q["case"] for q in payload["questions"]["questions"]] == ["n = 3"]
    assert len(payload["pairs"]["pairs"]) == 6
    assert out["refused"].is_error and payload["refused"]["code"] == "target-not-found"
    number = int(payload["submitted"]["pull_request"])
    opened.step2_ok(number, Kind.REVIEW_CANDIDATE)
    [yml] = [p for p in opened.files(number) if p.endswith(".yaml")]
    rec = yaml.safe_load(opened.files(number)[yml])
    assert rec["by"] == "gina" and rec["origin"] == "model" and rec["model"] == "model-a"


def test_a_tool_refusal_names_the_tools_argument(bare: Env) -> None:
    from network.api.tools import TOOLS, in_tool_names

    op = next(o for o in TOOLS if o.tool == "submit_candidate")
    exc = in_tool_names(LemmataError("review-not-open", "demo has no review",
                                     field="review_id"), op)
    assert exc.field == "target_id"
