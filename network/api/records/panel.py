"""Words approvals and the panel on the site (D-3 v3.31/v3.33, D-32 v3.34, D-35 v3.34
"the panel (no tool)"): ``POST /approvals``, ``POST /motions``, ``POST /votes`` and
``POST /writeups``.

Each is a person's act on a web session (:data:`network.api.people.web_session.PersonDep`); none
is an MCP tool, since only a person sits on a panel or signs words. Each writes one record
from the session's identity (never a body field, ruling 14), signs it with the network's
approval key (:func:`network.api.identity.role_acts.sign_role_act`), refuses before opening
anything the gate would refuse (:func:`network.api.submit.records.gate_findings`, so the panel
rules of :mod:`network.gate.records.panel_rules` answer with their own codes), and opens one pull
request (:func:`network.api.submit.records.open_record_pr`) that the gate judges at step 2.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from network.api.deps import marks
from network.api.identity.pseudonyms import write_identity
from network.api.people import web_session
from network.api.service import Service, Who, iso
from network.api.submit.names import record_path
from network.api.submit.record_pr import file_role_act
from network.api.submit.records import (
    IndexKey,
    graph_of,
    node_of,
    normalized_record_sha256,
    receipt,
    target_of,
    validate_record,
)
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.gate.records import panel_rules  # noqa: F401  (defines the codes raised here)
from network.record import approvals
from network.record import models as m

_WORDS = re.compile(r"targets/(?P<t>[^/]+)/nodes/(?P<n>[^/]+)/(?:gloss|explainer)/[^/]+\.yaml")
_MOTION = re.compile(r"targets/(?P<t>[^/]+)/panel/motions/[^/]+\.yaml")
_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 "
         "and merges it; the target's row of targets/index.json then shows it (D-35 "
         "v3.34).")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApprovalRequest(_Body):
    """``POST /approvals``: a gloss or explainer version and the 0-based sections signed."""

    words: str = Field(max_length=400)
    sections: list[int] = Field(min_length=1, max_length=1000)


class MotionRequest(_Body):
    """``POST /motions``: a motion of the target's panel (D-32 v3.34)."""

    target_id: str = Field(max_length=64)
    kind: Literal["invite", "verify-writeup", "threshold", "significance"]
    subject: str | None = Field(None, max_length=400)
    invitee: str | None = Field(None, max_length=39)
    text: str = Field(max_length=100_000)


class VoteRequest(_Body):
    """``POST /votes``: one vote on one motion (D-32 v3.34)."""

    motion: str = Field(max_length=400)
    vote: Literal["yes", "no"]


class WriteupRequest(_Body):
    """``POST /writeups``: one event of a write-up (D-32 v3.34); ``writeup`` names the
    write-up (its first record's path) on every event but the opening one."""

    target_id: str = Field(max_length=64)
    stage: Literal["drafted", "written", "signed", "released", "on-arxiv", "submitted",
                   "accepted", "rejected", "withdrawn"]
    writeup: str | None = Field(None, max_length=400)
    title: str | None = Field(None, max_length=2000)
    url: str | None = Field(None, max_length=500)
    document_sha256: str | None = Field(None, max_length=64)
    sections: list[int] = Field(default_factory=list, max_length=1000)
    arxiv: str | None = Field(None, max_length=50)
    journal: str | None = Field(None, max_length=2000)
    doi: str | None = Field(None, max_length=200)
    note: str | None = Field(None, max_length=2000)


def _file(svc: Service, who: Who, model: type[m.Record], path: str, rec: dict[str, Any],
          kind: Kind, key: IndexKey, title: str, what: str) -> dict[str, Any]:
    """Validate, sign, judge as the gate would, and open one pull request (see module)."""
    graph = graph_of(svc)
    rec = validate_record(model, rec, path)
    rec, opened = file_role_act(svc, who, graph, model, rec, path=path, kind=kind, key=key,
                                title=title, what=what,
                                decision="Record-only kind: step 2 alone (ruling 6); signed "
                                         "with the approval key (D-32 v3.33/v3.34)",
                                copy=title)
    return receipt(opened, kind=kind.value, target=key.target, node=key.node or None,
                   record=rec, next_step=_NEXT)


def submit_approval(svc: Service, p: web_session.Person, *, words: str,
                    sections: list[int]) -> dict[str, Any]:
    """``POST /approvals``: approve named sections of one gloss or explainer version
    (D-3 v3.31/v3.33, ruling 11), as ``approval/v1`` under the version's node. The approval
    credits the words' author on the write-up line (D-19), never the signer.

    Raises:
        LemmataError: the write guard's codes; ``approval-words-invalid`` (no such
            version, or a section it lacks); ``role-not-permitted`` (neither steward of
            the target nor curator); ``approval-key-missing``; ``record-copy``; other
            step-2 codes; ``forge-not-configured``.
    """
    who = write_identity(svc, p.caller)
    graph = graph_of(svc)
    mt = _WORDS.fullmatch(words or "")
    if mt is None:
        raise LemmataError("approval-words-invalid", f"{words!r} is not a gloss or "
                           "explainer version's path", field="words")
    target, node = mt.group("t"), mt.group("n")
    n = node_of(graph, target, node)
    ver = approvals.version_of(n, words)
    if ver is None:
        raise LemmataError("approval-words-invalid", f"{words} is not on the record",
                           path=words)
    path = record_path(svc, f"targets/{target}/nodes/{node}/approvals", who.pseudonym,
                       ".yaml")
    rec = {"words": words, "words_sha256": ver.sha256, "sections": sorted(set(sections)),
           "by": who.pseudonym, "date": iso(svc.now())}
    key = IndexKey(target, node, Kind.APPROVAL.value, None, normalized_record_sha256(
        {"words": words, "sections": rec["sections"], "by": who.pseudonym}))
    return _file(svc, who, m.Approval, path, rec, Kind.APPROVAL, key,
                 f"approval: {words}", f"Approves sections {rec['sections']} of {words} "
                 "(D-3 v3.31/v3.33).")


def submit_motion(svc: Service, p: web_session.Person, *, target: str, kind: str,
                  text: str, subject: str | None = None,
                  invitee: str | None = None) -> dict[str, Any]:
    """``POST /motions``: open a motion of the target's panel (D-32 v3.34), as
    ``targets/<t>/panel/motions/<ts>-<pseudonym>.yaml``.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``;
            ``motion-not-member``; ``motion-subject-invalid``; ``invalid-record``;
            ``approval-key-missing``; ``record-copy``; ``forge-not-configured``.
    """
    who = write_identity(svc, p.caller)
    target_of(graph_of(svc), target)
    path = record_path(svc, f"targets/{target}/panel/motions", who.pseudonym, ".yaml")
    rec: dict[str, Any] = {"target": target, "kind": kind, "text": text,
                           "by": who.pseudonym, "date": iso(svc.now())}
    if subject is not None:
        rec["subject"] = subject
    if invitee is not None:
        rec["invitee"] = invitee
    key = IndexKey(target, "", Kind.MOTION.value, None, normalized_record_sha256(
        {k: v for k, v in rec.items() if k != "date"}))
    return _file(svc, who, m.Motion, path, rec, Kind.MOTION, key,
                 f"motion: {target}: {kind}", f"A {kind} motion of {target}'s panel "
                 "(D-32 v3.34).")


def submit_vote(svc: Service, p: web_session.Person, *, motion: str,
                vote: str) -> dict[str, Any]:
    """``POST /votes``: cast one vote on one motion (D-32 v3.34), as
    ``targets/<t>/panel/votes/<ts>-<pseudonym>.yaml``. A second vote by the same member is
    refused, by the gate at base and here while the first is an open pull request.

    Raises:
        LemmataError: the write guard's codes; ``vote-motion-unknown``;
            ``vote-not-member``; ``vote-duplicate``; ``vote-window-closed``;
            ``approval-key-missing``; ``forge-not-configured``.
    """
    who = write_identity(svc, p.caller)
    mt = _MOTION.fullmatch(motion or "")
    if mt is None:
        raise LemmataError("vote-motion-unknown", f"{motion!r} is not a motion's path",
                           field="motion")
    target = mt.group("t")
    target_of(graph_of(svc), target)
    path = record_path(svc, f"targets/{target}/panel/votes", who.pseudonym, ".yaml")
    rec = {"motion": motion, "vote": vote, "by": who.pseudonym, "date": iso(svc.now())}
    # one vote per member: the copy key ignores the vote, so an open yes blocks a no
    key = IndexKey(target, "", Kind.VOTE.value, None, normalized_record_sha256(
        {"motion": motion, "by": who.pseudonym}))
    try:
        return _file(svc, who, m.Vote, path, rec, Kind.VOTE, key, f"vote: {motion}",
                     f"A {vote} vote on {motion} (D-32 v3.34).")
    except LemmataError as exc:
        if exc.code == "record-copy":
            raise LemmataError("vote-duplicate", f"{who.pseudonym} already has an open vote "
                               f"on {motion}: {exc.detail}", path=motion) from exc
        raise


def submit_writeup(svc: Service, p: web_session.Person, *, target: str, stage: str,
                   **fields: Any) -> dict[str, Any]:
    """``POST /writeups``: record one event of a write-up of the target (D-32 v3.34), as
    ``targets/<t>/writeups/<ts>-<pseudonym>.yaml``; the stage shown is derived
    (:func:`network.record.panel.writeup_stage`).

    Args:
        stage: the event: drafted or written (opening a write-up when ``writeup`` is
            None), signed, released, on-arxiv, submitted, accepted, rejected, withdrawn.
        fields: ``writeup``, ``title``, ``url``, ``document_sha256``, ``sections``,
            ``arxiv``, ``journal``, ``doi``, ``note``.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``invalid-record``;
            ``writeup-unknown``; ``writeup-signer-not-steward``; ``writeup-not-author``;
            ``approval-key-missing``; ``record-copy``; ``forge-not-configured``.
    """
    who = write_identity(svc, p.caller)
    target_of(graph_of(svc), target)
    path = record_path(svc, f"targets/{target}/writeups", who.pseudonym, ".yaml")
    rec: dict[str, Any] = {"target": target, "event": stage, "by": who.pseudonym,
                           "date": iso(svc.now())}
    rec.update({k: v for k, v in fields.items() if v not in (None, [])})
    key = IndexKey(target, "", Kind.WRITEUP.value, None, normalized_record_sha256(
        {k: v for k, v in rec.items() if k != "date"}))
    return _file(svc, who, m.Writeup, path, rec, Kind.WRITEUP, key,
                 f"writeup: {target}: {stage}", f"A write-up event ({stage}) of {target} "
                 "(D-32 v3.34).")


def install(app: FastAPI, svc: Service) -> None:
    """Add ``POST /approvals``, ``/motions``, ``/votes`` and ``/writeups`` (person routes,
    listed in :data:`network.api.tools.NO_TOOL`)."""
    person = {"x-auth": "session"}

    @app.post("/approvals", openapi_extra=person, status_code=201)
    @marks(submit_approval, "session")
    def approvals(p: web_session.PersonDep, body: ApprovalRequest) -> dict[str, Any]:
        """Approve named sections of a gloss or explainer version (D-3 v3.31/v3.33)."""
        return submit_approval(svc, p, words=body.words, sections=body.sections)

    @app.post("/motions", openapi_extra=person, status_code=201)
    @marks(submit_motion, "session")
    def motions(p: web_session.PersonDep, body: MotionRequest) -> dict[str, Any]:
        """Open a motion of a target's panel (D-32 v3.34)."""
        return submit_motion(svc, p, target=body.target_id, kind=body.kind, text=body.text,
                             subject=body.subject, invitee=body.invitee)

    @app.post("/votes", openapi_extra=person, status_code=201)
    @marks(submit_vote, "session")
    def votes(p: web_session.PersonDep, body: VoteRequest) -> dict[str, Any]:
        """Cast one vote on a motion (D-32 v3.34)."""
        return submit_vote(svc, p, motion=body.motion, vote=body.vote)

    @app.post("/writeups", openapi_extra=person, status_code=201)
    @marks(submit_writeup, "session")
    def writeups(p: web_session.PersonDep, body: WriteupRequest) -> dict[str, Any]:
        """Record one event of a target's write-up (D-32 v3.34)."""
        fields = body.model_dump(exclude={"target_id", "stage"})
        return submit_writeup(svc, p, target=body.target_id, stage=body.stage, **fields)
