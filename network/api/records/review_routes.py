"""The HTTP routes of a formalization review (D-9 v3.39, D-28 v3.39, D-35 "reviews";
issue 27): request bodies and :func:`install`. Each handler is a thin shell over the one
operation function of :mod:`network.api.records.reviews` that its MCP tool also calls
(``network/api/tools.py``); ``review_id`` in a path is the target's id.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import FastAPI, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from network.api.deps import Bearer, marks, read_response
from network.api.people import web_session
from network.api.records.record_routes import MaybeBearer
from network.api.records.reviews import (
    answer_question,
    file_attempt,
    file_question,
    file_test,
    get_review,
    list_open_pairs,
    list_review_questions,
    open_review,
    sign_review,
    submit_candidate,
    submit_exhibit,
)
from network.api.service import Service

_TEXT = 1_000_000  # characters; the body limit (max_body_bytes) is the real cap
#: an optional target id in a read's query string
_TargetQuery = Annotated[str | None, Query(max_length=64)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CaseBody(_Body):
    """One case that pins the words down (D-9 v3.39 stage 1)."""

    kind: Literal["special-case", "small-value", "consequence", "non-example"]
    text: str = Field(max_length=2000)
    source: str | None = Field(None, max_length=2000)


class OpeningRequest(_Body):
    """``POST /reviews``: open a target's review (D-9 v3.39 stage 1)."""

    target: str = Field(max_length=64)
    role: Literal["steward", "curator", "background"]
    words: str = Field(min_length=1, max_length=100_000)
    cases: list[CaseBody] = Field(default_factory=list, max_length=200)
    concepts: list[str] = Field(default_factory=list, max_length=50)
    intent_signer: str = Field(max_length=100)


class CandidateRequest(_Body):
    """``POST /reviews/{review_id}/candidates``: one candidate (D-9 v3.39 stage 2)."""

    lean: str = Field(min_length=1, max_length=_TEXT)
    declaration: str | None = Field(None, max_length=200)
    concepts: dict[str, str] | None = Field(None, max_length=50)
    origin: Literal["person", "model", "registry"] | None = None
    models: list[str] | None = Field(None, max_length=20)
    read_others: bool | None = None
    registry: dict[str, Any] | None = None
    mutant_of: str | None = Field(None, max_length=400)
    defect_class: str | None = Field(None, max_length=60)
    wraps: str | None = Field(None, max_length=400)
    claim: str | None = Field(None, max_length=200)


class AnswerRequest(_Body):
    """``POST /reviews/{review_id}/answers``: the intent signer's answer (stage 5)."""

    question: str = Field(min_length=1, max_length=400)
    answer: str = Field(min_length=1, max_length=100_000)
    source: str | None = Field(None, max_length=2000)


class SignatureRequest(_Body):
    """``POST /reviews/{review_id}/signatures``: a signature by role (stage 7)."""

    role: Literal["intent", "independent"]
    decision: Literal["accept", "split", "send-back"]
    cluster: list[str] = Field(min_length=1, max_length=50)
    note: str | None = Field(None, max_length=2000)


class ExhibitRequest(_Body):
    """``POST /reviews/{review_id}/exhibits``: a screen or direction proved (stages 3-4)."""

    kind: Literal["proves", "negation", "vacuity", "implies", "probe-holds", "probe-fails"]
    candidate: str = Field(min_length=1, max_length=400)
    other: str | None = Field(None, max_length=400)
    test: str | None = Field(None, max_length=400)
    theorem: str = Field(min_length=1, max_length=200)
    lean: str = Field(min_length=1, max_length=_TEXT)
    tool: str | None = Field(None, max_length=2000)


class AttemptRequest(_Body):
    """``POST /reviews/{review_id}/attempts``: a screen or direction tried in vain."""

    candidate: str = Field(min_length=1, max_length=400)
    other: str | None = Field(None, max_length=400)
    screen: Literal["proves", "negation", "vacuity"] | None = None
    tool: str = Field(min_length=1, max_length=200)
    budget: str = Field(min_length=1, max_length=200)


class IntentTestRequest(_Body):
    """``POST /reviews/{review_id}/tests``: an intent test (D-9 v3.39 "intent tests")."""

    probe: Literal["holds", "covers", "witness"] = "holds"
    concept: str = Field(min_length=1, max_length=60)
    args: list[str] = Field(default_factory=list, max_length=8)
    source: Literal["answer", "cited", "computation"]
    expected: Literal["holds", "fails"] | None = None
    answer: str | None = Field(None, max_length=400)
    citation: str | None = Field(None, max_length=2000)


class QuestionRequest(_Body):
    """``POST /reviews/{review_id}/questions``: a question to the intent signer (stage 5)."""

    question: str = Field(min_length=1, max_length=100_000)
    case: str = Field(min_length=1, max_length=2000)
    candidates: list[str] = Field(default_factory=list, max_length=50)
    raised_by: str | None = Field(None, max_length=400)


def install(app: FastAPI, svc: Service) -> None:
    """Add the review routes to ``app`` (D-35 "reviews", D-28 v3.39's tools)."""
    bearer = {"x-auth": "bearer"}
    session = {"x-auth": "session"}
    none = {"x-auth": "none"}

    @app.post("/reviews", openapi_extra=session, status_code=201)
    @marks(open_review, "session")
    def reviews_open(p: web_session.PersonDep, body: OpeningRequest) -> dict[str, Any]:
        """Open a target's formalization review as its steward or a curator (signed)."""
        return open_review(svc, p, target=body.target, role=body.role, words=body.words,
                           intent_signer=body.intent_signer, concepts=body.concepts,
                           cases=[c.model_dump(exclude_none=True) for c in body.cases])

    @app.post("/reviews/{review_id}/candidates", openapi_extra=bearer, status_code=201)
    @marks(submit_candidate, "bearer")
    def reviews_candidate(c: Bearer, review_id: str, body: CandidateRequest) -> dict[str, Any]:
        """Open a pull request appending one candidate formalization and its Lean."""
        return submit_candidate(svc, c, review_id=review_id, lean=body.lean,
                                declaration=body.declaration, concepts=body.concepts,
                                origin=body.origin, models=body.models,
                                read_others=body.read_others, registry=body.registry,
                                mutant_of=body.mutant_of, defect_class=body.defect_class,
                                wraps=body.wraps, claim=body.claim)

    @app.post("/reviews/{review_id}/answers", openapi_extra=session, status_code=201)
    @marks(answer_question, "session")
    def reviews_answer(p: web_session.PersonDep, review_id: str,
                       body: AnswerRequest) -> dict[str, Any]:
        """Open a pull request appending the intent signer's signed answer to a question."""
        return answer_question(svc, p, review_id=review_id, question=body.question,
                               answer=body.answer, source=body.source)

    @app.post("/reviews/{review_id}/signatures", openapi_extra=session, status_code=201)
    @marks(sign_review, "session")
    def reviews_sign(p: web_session.PersonDep, review_id: str,
                     body: SignatureRequest) -> dict[str, Any]:
        """Open a pull request appending a signed intent or independent signature."""
        return sign_review(svc, p, review_id=review_id, role=body.role,
                           decision=body.decision, cluster=body.cluster, note=body.note)

    @app.post("/reviews/{review_id}/exhibits", openapi_extra=bearer, status_code=201)
    @marks(submit_exhibit, "bearer")
    def reviews_exhibit(c: Bearer, review_id: str, body: ExhibitRequest) -> dict[str, Any]:
        """Open a pull request appending a review exhibit and its Lean proof."""
        return submit_exhibit(svc, c, review_id=review_id, kind=body.kind,
                              candidate=body.candidate, other=body.other, test=body.test,
                              theorem=body.theorem, lean=body.lean, tool=body.tool)

    @app.post("/reviews/{review_id}/attempts", openapi_extra=bearer, status_code=201)
    @marks(file_attempt, "bearer")
    def reviews_attempt(c: Bearer, review_id: str, body: AttemptRequest) -> dict[str, Any]:
        """Open a pull request recording a screen or direction attempted without result."""
        return file_attempt(svc, c, review_id=review_id, candidate=body.candidate,
                            other=body.other, screen=body.screen, tool=body.tool,
                            budget=body.budget)

    @app.post("/reviews/{review_id}/tests", openapi_extra=bearer, status_code=201)
    @marks(file_test, "bearer")
    def reviews_test(c: Bearer, review_id: str, body: IntentTestRequest) -> dict[str, Any]:
        """Open a pull request appending an intent test of the review's concepts."""
        return file_test(svc, c, review_id=review_id, concept=body.concept, args=body.args,
                         source=body.source, expected=body.expected, answer=body.answer,
                         citation=body.citation, probe=body.probe)

    @app.post("/reviews/{review_id}/questions", openapi_extra=bearer, status_code=201)
    @marks(file_question, "bearer")
    def reviews_question(c: Bearer, review_id: str, body: QuestionRequest) -> dict[str, Any]:
        """Open a pull request appending a question to the review's intent signer."""
        return file_question(svc, c, review_id=review_id, question=body.question,
                             case=body.case, candidates=body.candidates,
                             raised_by=body.raised_by)

    @app.get("/reviews/{review_id}", openapi_extra=none)
    @marks(get_review)
    def reviews_get(request: Request, c: MaybeBearer, review_id: str) -> Any:
        """A target's review; candidates' Lean only for a caller with a candidate of
        their own in it (the blind rule)."""
        body = get_review(svc, c, review_id=review_id)
        if c.who is not None:
            return body  # per caller: never stored (no-store)
        resp = read_response(request, svc, body)
        resp.headers["Vary"] = "Authorization"  # a cache never hands it to a token holder
        return resp

    @app.get("/reviews/{review_id}/questions", openapi_extra=none)
    @marks(list_review_questions)
    def reviews_questions(request: Request, review_id: str) -> Response:
        """The questions waiting on this review."""
        return read_response(request, svc, list_review_questions(svc, review_id))

    @app.get("/review-questions", openapi_extra=none)
    @marks(list_review_questions)
    def review_questions(request: Request, target_id: _TargetQuery = None) -> Response:
        """The questions waiting on every review; `target_id` narrows."""
        return read_response(request, svc, list_review_questions(svc, target_id))

    @app.get("/review-pairs", openapi_extra=none)
    @marks(list_open_pairs)
    def review_pairs(request: Request, target_id: _TargetQuery = None) -> Response:
        """The pair directions left open or untried, with their candidates and attempts."""
        return read_response(request, svc, list_open_pairs(svc, target_id))

