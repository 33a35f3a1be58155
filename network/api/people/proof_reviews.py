"""Reviews of held proofs by a signed-in steward or curator (D-4 step 9 v3.11/v3.15;
ruling 5 "held"; ruling 13: imported roots are held at step 9; D-35 v3.33; issue 13).

A proof that would settle a target whose root nobody vouched for is held at step 9 and its
pull request stays open. ``POST /proof-reviews`` (a person's act, no MCP tool: D-35, D-4's
"a non-author's review") finds the held pull request, checks what the gate will check,
writes ``targets/<t>/nodes/<n>/reviews/<ts>-<pseudonym>.yaml``
(:class:`~network.record.models.ProofReview`) naming the held attestation and its file
hashes, signs it with the network's approval key for the reviewer (ruling 14) and opens it
as its own pull request. Once that merges, the merge queue judges the held pull request
again (:mod:`network.gate.queue.queue`'s held notes) and step 9 reads the review
(:mod:`network.gate.records.proof_reviews`): it passes and merges.

:func:`held_proofs` lists what waits on a steward's or curator's review (the ``/me`` page).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from network.api import db
from network.api.deps import marks
from network.api.identity.pseudonyms import write_identity
from network.api.identity.role_acts import sign_role_act
from network.api.people import web_session
from network.api.service import Service, Who, iso
from network.api.submit.names import record_path
from network.api.submit.openings import follow
from network.api.submit.record_pr import _forge
from network.api.submit.records import (
    IndexKey,
    dump_yaml,
    gate_findings,
    graph_of,
    normalized_record_sha256,
    open_record_pr,
    pr_body,
    receipt,
    refuse_findings,
    validate_record,
)
from network.errors import LemmataError, define
from network.gate.artifacts import Kind
from network.gate.records import proof_reviews as gate_reviews
from network.gate.steps.step2 import roles_of
from network.record import models as m
from network.record.read.loader import Graph

define("proof-not-held", None, 409,
       "The pull request named is not a proof held at step 9: it is not open, or main holds "
       "no gate-signed held attestation of its head (D-4 step 9, ruling 5).",
       "Pick a pull request from your page's held proofs; one that merged, closed or was "
       "pushed again since it was judged needs no review (or waits for the gate's verdict "
       "on its new head first).")
define("review-not-steward", None, 403,
       "Only a steward of the held proof's target or a curator reviews it (D-4 step 9, "
       "D-32 v3.33).",
       "Become a steward of the target first, or ask one of its stewards or a curator.")
define("proof-already-reviewed", None, 409,
       "These exact bytes already carry an approving review, merged or waiting to merge "
       "(D-4 step 9).",
       "Nothing: the held pull request merges once that review is on main.")
define("review-subject-missing", None, 422,
       "A review names the held proof by exactly one of submission_id or pull_request.",
       "Send {\"submission_id\": \"...\"} or {\"pull_request\": N}.")
define("submission-unknown", None, 404, "No submission has that id.",
       "Use the submission id your page or GET /submissions.json shows.")


class ProofReviewRequest(BaseModel):
    """``POST /proof-reviews``: the held proof (by submission or pull request), the
    decision, a note and the waivers signed off (D-4 step 9 and Detail)."""

    model_config = ConfigDict(extra="forbid")
    submission_id: str | int | None = Field(None, union_mode="left_to_right")
    pull_request: int | None = Field(None, ge=1)
    decision: Literal["approve"]
    note: str | None = Field(None, max_length=2000)
    signs_off: list[Literal["native_decide"]] = Field(default_factory=list, max_length=1)


def _held_attestations(graph: Graph, head_sha: str) -> list[tuple[str, m.Attestation]]:
    """(path, record) of every gate-signed held attestation of ``head_sha`` on main, one
    per target and node (the newest base's, by path order when several)."""
    out: dict[tuple[str, str], tuple[str, m.Attestation]] = {}
    for rf in sorted(graph.attestations, key=lambda a: a.path):
        if rf.record.head_commit != head_sha or rf.record.verdict != "held":
            continue
        att = gate_reviews.held_attestation(graph, rf.path)
        if att is not None:
            out[(att.target, att.node)] = (rf.path, att)
    return list(out.values())


def _pull_request_of(svc: Service, submission_id: str | None,
                     pull_request: int | None) -> int:
    if (submission_id is None) == (pull_request is None):
        raise LemmataError("review-subject-missing", "name submission_id or pull_request")
    if pull_request is not None:
        return pull_request
    with svc.sessions() as s:
        row = s.get(db.SubmissionRow, str(submission_id))
    key = (row.pull_request or "") if row is not None else ""
    key = key.removeprefix("local/")
    if row is None or not key.isdigit():
        raise LemmataError("submission-unknown", f"no submission {submission_id!r} with a "
                           "pull request", field="submission_id")
    return int(key)


def _already_reviewed(graph: Graph, att: m.Attestation) -> bool:
    """Whether main holds an approving, verifying review of exactly ``att``'s bytes."""
    return gate_reviews.recorded_review(graph, att.target, att.node, att.artifacts,
                                        att.submitter) is not None


def review_held_proof(svc: Service, who: Who, *, submission_id: str | None = None,
                      pull_request: int | None = None, decision: str = "approve",
                      note: str | None = None,
                      signs_off: list[str] | None = None) -> dict[str, Any]:
    """Open a pull request appending a signed review of a held proof (POST /proof-reviews;
    D-4 step 9 v3.11/v3.15, ruling 5, ruling 14, D-35 v3.33).

    Args:
        who: the signed-in reviewer (the record's ``by``; never a body field).
        submission_id, pull_request: the held proof, by exactly one of them.
        decision: ``approve`` (the one decision that satisfies step 9).
        note: what the reviewer checked, in a sentence or two.
        signs_off: waivers signed off (``native_decide``, D-4 Detail).

    Returns:
        The record routes' receipt (``submission_id``, ``pull_request``, ``paths``,
        ``next``, ...) with ``reviews``: the held pull request's number.

    Raises:
        LemmataError: ``review-subject-missing``; ``submission-unknown``;
            ``pull-request-not-found``; ``forge-not-configured``; ``proof-not-held`` (not
            open, or no held attestation of its head on main); ``review-by-author`` (the
            reviewer submitted it); ``review-not-steward`` (neither a steward of its
            target nor a curator); ``proof-already-reviewed`` (these bytes carry an
            approving review on main or in an open review pull request);
            ``approval-key-missing``; ``invalid-record``; step-2 codes; ``queue-down``.
        Nothing is written when it refuses.
    """
    number = _pull_request_of(svc, submission_id, pull_request)
    forge = _forge(svc)
    pr = forge.get(number)
    graph = graph_of(svc)
    held = _held_attestations(graph, pr.head_sha) if pr.state == "open" else []
    if not held:
        raise LemmataError("proof-not-held", f"pull request #{number} is {pr.state} and main "
                           f"holds no held attestation of its head {pr.head_sha[:12]}")
    for att_path, att in held:
        if gate_reviews.same_person(att.submitter, who.pseudonym) or \
                gate_reviews.same_person(pr.author, who.pseudonym):
            raise LemmataError("review-by-author", f"{who.pseudonym} submitted #{number}; "
                               "step 9 asks another's review", path=att_path)
        if not roles_of(graph, att.target, who.pseudonym) & {"steward", "curator"}:
            raise LemmataError("review-not-steward", f"{who.pseudonym} is neither a steward "
                               f"of {att.target} nor a curator", path=att_path)
        if _already_reviewed(graph, att):
            raise LemmataError("proof-already-reviewed", f"{att_path}'s bytes already carry "
                               "an approving review on main", path=att_path)
    files: dict[str, bytes] = {}
    for att_path, att in held:
        path = record_path(svc, f"targets/{att.target}/nodes/{att.node}/reviews",
                           who.pseudonym, ".yaml")
        rec = validate_record(m.ProofReview, {
            "target": att.target, "node": att.node, "attestation": att_path,
            "artifacts": [a.model_dump() for a in att.artifacts], "decision": decision,
            "signs_off": sorted(set(signs_off or [])), "note": note, "by": who.pseudonym,
            "date": iso(svc.now())}, path)
        files[path] = dump_yaml(sign_role_act(svc, m.ProofReview, rec, who))
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.PROOF_REVIEW))
    first = held[0][1]
    key = IndexKey(first.target, first.node, Kind.PROOF_REVIEW.value, None,
                   normalized_record_sha256({"attestations": sorted(p for p, _ in held),
                                             "head": pr.head_sha}))

    def same(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == key.kind and r.normalized_sha256 == key.normalized_sha256:
                raise LemmataError("proof-already-reviewed", f"submission {r.id} "
                                   f"({follow(r)}) already reviews #{number}")

    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"review: #{number} ({first.target}/"
        f"{first.node})", body=pr_body(f"Approves the proof held in #{number} "
                                       f"(head {pr.head_sha}).", who,
                                       "Record-only kind: step 2 alone (ruling 6); step 9 "
                                       "of the held pull request reads it (D-4 v3.15)"),
        conflicts=[same])
    return receipt(opened, kind=Kind.PROOF_REVIEW.value, target=first.target,
                   node=first.node, reviews=str(number),
                   next_step=f"Once this review merges, the merge queue judges #{number} "
                   "again and step 9 reads the review: the held proof merges. Pushing a new "
                   "head there voids the review (it names these bytes only).")


def held_proofs(svc: Service, pseudonym: str) -> list[dict[str, Any]]:
    """The held proofs ``pseudonym`` may review: open pull requests whose head main holds a
    held attestation of, on a target they steward or curate, not their own and not yet
    reviewed (the ``/me`` page's ``waiting.held_proofs``; D-4 step 9).

    Returns:
        ``[{target, node, submission_id, pull_request, what, since, attestation}]``,
        ``since`` the held attestation's ISO timestamp (the held head's date); oldest pull
        request first. ``[]`` without a forge.
    """
    forge = svc.forge
    if forge is None:
        return []
    graph = graph_of(svc)
    with svc.sessions() as s:
        rows = s.execute(select(db.SubmissionRow.id, db.SubmissionRow.pull_request).where(
            db.SubmissionRow.state == "open")).all()
    sub_of: dict[int, str] = {}
    for sid, key in rows:
        k = (key or "").removeprefix("local/")
        if k.isdigit():
            sub_of.setdefault(int(k), sid)
    out: list[dict[str, Any]] = []
    for pr in forge.list_open():
        for att_path, att in _held_attestations(graph, pr.head_sha):
            if gate_reviews.same_person(att.submitter, pseudonym) or \
                    gate_reviews.same_person(pr.author, pseudonym):
                continue
            if not roles_of(graph, att.target, pseudonym) & {"steward", "curator"}:
                continue
            if _already_reviewed(graph, att):
                continue
            out.append({"target": att.target, "node": att.node,
                        "submission_id": sub_of.get(pr.number),
                        "pull_request": str(pr.number), "attestation": att_path,
                        "what": f"a proof held at step 9 (by {att.submitter}) waits for "
                                "your review", "since": att.timestamp})
    return out


def install(app: FastAPI, svc: Service) -> None:
    """Add ``POST /proof-reviews`` (a person route: no MCP tool, D-35) to ``app``."""

    @app.post("/proof-reviews", status_code=201)
    @marks(review_held_proof, "session")
    def proof_reviews(p: web_session.PersonDep, body: ProofReviewRequest) -> dict[str, Any]:
        """Approve a proof held at step 9 as a steward or curator who is not its author.

        Without a web session it is refused with ``session-missing`` (a person's act)."""
        sid = None if body.submission_id is None else str(body.submission_id)[:40]
        who = write_identity(svc, p.caller)  # rates, squatters and the DCO (D-23 v3.37)
        return review_held_proof(svc, who, submission_id=sid,
                                 pull_request=body.pull_request, decision=body.decision,
                                 note=body.note, signs_off=list(body.signs_off))
