"""Models of a node's records (split from :mod:`network.record.models`, issue 17): META,
attempts' postmortems, annexes, literature, words, approvals, withdrawals, shelvings,
pertinence, reviews, waivers, defects, disputes, revision requests, closures, outlines, and
the panel's motions, votes and write-ups. :mod:`network.record.models` re-exports every
name; import them from there.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from network.model_base import Date, Record
from network.record.model_types import (
    ArtifactHash,
    Disclosure,
    GraphPath,
    Label,
    LongText,
    NodeId,
    Pseudonym,
    Reference,
    Sha256,
    ShortText,
    TargetId,
    fresh_default,
)
from network.signing import Signature

# --- nodes -----------------------------------------------------------------------------


class AcknowledgedHazard(BaseModel):
    """A hazard finding the author meant (D-4 step 6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    checker: Annotated[str, StringConstraints(max_length=60)]
    location: Annotated[str, StringConstraints(max_length=200)]
    justification: Annotated[str, StringConstraints(max_length=300)]


class HoleOf(BaseModel):
    """Where a hole came from: its parent, route and name (ruling 4, D-29 v3.22)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    parent: NodeId
    route: GraphPath
    k: int = Field(ge=1)
    name: Annotated[str, StringConstraints(max_length=200)]
    witness_type: LongText | None = None


class VariantOf(BaseModel):
    """A variant's relation to its root (D-30)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    of: NodeId = "root"
    relation: Literal["resolves", "partial", "related", "refutes"]
    pertinence: ShortText | None = None


class Meta(Record):
    """``nodes/<id>/META.yaml`` (D-3). Contributors never change it (ruling 6).

    ``lemmas`` is written only by the post-merge job (D-12 v3.38).
    """

    SCHEMA_KIND: ClassVar[str] = "meta/v1"
    schema_: Literal["meta/v1"] = Field("meta/v1", alias="schema")
    id: NodeId
    target: TargetId
    declaration: Annotated[str, StringConstraints(min_length=1, max_length=400)]
    statement_hash: Sha256
    origin: Literal["authored", "compiler-derived", "variant", "skeleton-hole"]
    author: Pseudonym | None = None
    provenance: dict[str, Any] = fresh_default({})
    deps: list[NodeId] = fresh_default([])
    lemmas: list[NodeId] = fresh_default([])
    hole: HoleOf | None = None
    supersedes: NodeId | None = None
    variant: VariantOf | None = None
    speculative: bool = False
    tutorial: bool = False
    acknowledged_hazards: list[AcknowledgedHazard] = fresh_default([])
    library_tags: list[Annotated[str, StringConstraints(max_length=100)]] = fresh_default([])
    upstream: bool = False


class Postmortem(Record):
    """``attempts/<ts>-<pseudonym>-postmortem.yaml`` (D-13)."""

    SCHEMA_KIND: ClassVar[str] = "d13/v1"
    schema_: Literal["d13/v1"] = Field("d13/v1", alias="schema")
    node: Annotated[str, StringConstraints(max_length=300)]
    contributor: Pseudonym
    route: ShortText
    route_class: Literal[
        "induction", "generating-function", "probabilistic", "direct-estimate",
        "case-split", "reduction-to-known", "computational",
    ]
    outcome: Literal["refuted-route", "exhausted", "abandoned-early", "blocked"]
    terminal_goal_state: LongText
    failure_class: Literal[
        "missing-library", "statement-suspect", "timeout-blowup", "needs-new-definition",
        "route-dead-ends", "budget-exhausted", "informal-gap",
    ]
    detail: LongText | None = None
    artifacts: dict[str, Any] = fresh_default({})
    disclosure: Disclosure = fresh_default(Disclosure())


class Annex(Record):
    """``annex/<sha256>.yaml``: metadata of an informal argument (D-31)."""

    SCHEMA_KIND: ClassVar[str] = "annex/v1"
    schema_: Literal["annex/v1"] = Field("annex/v1", alias="schema")
    sha256: Sha256
    author: Pseudonym
    licence: ShortText
    title: ShortText
    date: Date
    source: Reference | None = None


class Literature(Record):
    """``literature/<ts>-<pseudonym>.yaml`` (D-25 v3.35/v3.45)."""

    SCHEMA_KIND: ClassVar[str] = "literature/v1"
    schema_: Literal["literature/v1"] = Field("literature/v1", alias="schema")
    status: Literal["known-true", "known-false", "open", "partial-results", "unknown"]
    summary: LongText
    references: list[Reference] = fresh_default([])
    by: Pseudonym
    date: Date
    confirms: GraphPath | None = None
    disputes: GraphPath | None = None
    supersedes: GraphPath | None = None
    signature: Signature | None = None


class Section(BaseModel):
    """One section of a gloss or explainer (ruling 11)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    steps: list[Annotated[str, StringConstraints(max_length=100)]] = fresh_default([])
    text: LongText
    drafted_with: list[Annotated[str, StringConstraints(max_length=200)]] = fresh_default([])


class Words(Record):
    """Common body of glosses and explainers: a version of a chain (D-3 v3.30/v3.31)."""

    describes: GraphPath
    describes_sha256: Sha256
    author: Pseudonym
    date: Date
    licence: ShortText
    supersedes: GraphPath | None = None
    sections: list[Section] = Field(min_length=1)
    approvals: list[Signature] = fresh_default([])


class Gloss(Words):
    """``gloss/<ts>-<pseudonym>.yaml``: what a Lean file says; may carry a label (v3.44)."""

    SCHEMA_KIND: ClassVar[str] = "gloss/v1"
    schema_: Literal["gloss/v1"] = Field("gloss/v1", alias="schema")
    label: Label | None = None


class Explainer(Words):
    """``explainer/<ts>-<pseudonym>.yaml``: an account of a merged proof (D-3, D-36)."""

    SCHEMA_KIND: ClassVar[str] = "explainer/v1"
    schema_: Literal["explainer/v1"] = Field("explainer/v1", alias="schema")


class Approval(Record):
    """``nodes/<node>/approvals/<ts>-<pseudonym>.yaml``: a steward's or curator's approval
    of named sections of one gloss or explainer version (D-3 v3.31/v3.33, ruling 11).

    ``words`` is the version's graph path and ``words_sha256`` the SHA-256 of its bytes, so
    an approval never reaches a rewritten file; ``sections`` are 0-based section indices.
    Append-only: the version itself is never rewritten to carry it (its embedded
    ``approvals`` stay readable, signing the whole version)."""

    SCHEMA_KIND: ClassVar[str] = "approval/v1"
    schema_: Literal["approval/v1"] = Field("approval/v1", alias="schema")
    words: GraphPath
    words_sha256: Sha256
    sections: list[Annotated[int, Field(ge=0, le=999)]] = Field(min_length=1, max_length=1000)
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class Withdrawal(Record):
    """``withdrawals/<ts>-<pseudonym>.yaml``: reads the named record as absent (D-18 v3.27)."""

    SCHEMA_KIND: ClassVar[str] = "withdrawal/v1"
    schema_: Literal["withdrawal/v1"] = Field("withdrawal/v1", alias="schema")
    withdraws: GraphPath
    by: Pseudonym
    reason: ShortText
    date: Date
    signature: Signature | None = None


class ProposedFor(Record):
    """``proposed-for/<ts>-<pseudonym>.yaml``: the node a crux was proposed for (D-14 v3.26)."""

    SCHEMA_KIND: ClassVar[str] = "proposed-for/v1"
    schema_: Literal["proposed-for/v1"] = Field("proposed-for/v1", alias="schema")
    node: NodeId
    by: Pseudonym
    date: Date
    note: ShortText | None = None


class Shelving(Record):
    """``shelving/<ts>-<pseudonym>.yaml``: a steward's or curator's judgment (D-14 v3.47).

    ``lifts`` names an earlier shelving this record lifts; otherwise it shelves
    ``subject`` (the node itself, or a merged decomposition's path).
    """

    SCHEMA_KIND: ClassVar[str] = "shelving/v1"
    schema_: Literal["shelving/v1"] = Field("shelving/v1", alias="schema")
    subject: GraphPath | NodeId
    cause: LongText
    by: Pseudonym
    date: Date
    lifts: GraphPath | None = None
    signature: Signature | None = None


class Pertinence(Record):
    """``pertinence/<ts>-<pseudonym>.yaml`` under a related variant's node: one signature on
    the sentence saying why the variant bears on its target (D-30 v3.12; issue 18).

    ``target`` and ``variant`` name where it may stand (a copy under another node or
    target is refused, and the signature covers both); ``sentence_sha256`` is the SHA-256
    of the UTF-8 bytes of META.yaml's ``variant.pertinence`` as signed, so an edited
    sentence needs a new signature. Not a fidelity grade and not a rung of the ladder
    (D-9): :mod:`network.record.pertinence` reads it, step 2 judges it
    (:mod:`network.gate.records.pertinence`).
    """

    SCHEMA_KIND: ClassVar[str] = "pertinence/v1"
    schema_: Literal["pertinence/v1"] = Field("pertinence/v1", alias="schema")
    target: TargetId
    variant: NodeId
    sentence_sha256: Sha256
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class ProofReview(Record):
    """``reviews/<ts>-<pseudonym>.yaml``: a steward's or curator's approving review of a
    proof held at step 9 (D-4 v3.11/v3.15; ruling 5; issue 13).

    It names the held artifact by content: ``artifacts`` are the held attestation's
    (``attestation``, under ``attestations/``) file hashes, so a review of other bytes (a
    head pushed after the review) satisfies nothing. ``signs_off`` names waivers the
    reviewer signs off (D-4 Detail: ``native_decide``). Signed by its author's role key.
    """

    SCHEMA_KIND: ClassVar[str] = "proof-review/v1"
    schema_: Literal["proof-review/v1"] = Field("proof-review/v1", alias="schema")
    target: TargetId
    node: NodeId
    attestation: GraphPath
    artifacts: list[ArtifactHash] = Field(min_length=1, max_length=50)
    decision: Literal["approve"]
    signs_off: list[Literal["native_decide"]] = fresh_default([])
    note: ShortText | None = None
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class Waiver(Record):
    """``waivers/native_decide.yaml`` (D-4): justification; sign-off is in the review."""

    SCHEMA_KIND: ClassVar[str] = "waiver/v1"
    schema_: Literal["waiver/v1"] = Field("waiver/v1", alias="schema")
    kind: Literal["native_decide"] = "native_decide"
    justification: LongText
    author: Pseudonym
    date: Date


class Defect(Record):
    """``defects/<ts>-<pseudonym>.yaml``: a defect claim on the statement (D-16)."""

    SCHEMA_KIND: ClassVar[str] = "defect/v1"
    schema_: Literal["defect/v1"] = Field("defect/v1", alias="schema")
    defect_class: Literal[
        "vacuous", "misformalization", "junk-value", "wrong-quantifier", "off-by-one",
        "missing-hypothesis", "circular-decomposition",
    ] = Field(alias="class")
    line: int = Field(ge=1)
    claim: LongText
    exhibit: GraphPath | None = None
    by: Pseudonym
    date: Date


class Dispute(Record):
    """``disputes/<ts>-<pseudonym>.yaml``: a curator accepts a defect claim (D-18 v3.28)."""

    SCHEMA_KIND: ClassVar[str] = "dispute/v1"
    schema_: Literal["dispute/v1"] = Field("dispute/v1", alias="schema")
    defect: GraphPath
    curator: Pseudonym
    date: Date
    reason: ShortText
    signature: Signature | None = None


class RevisionRequest(Record):
    """``revision-requests/<ts>-<pseudonym>.yaml`` (D-8)."""

    SCHEMA_KIND: ClassVar[str] = "revision-request/v1"
    schema_: Literal["revision-request/v1"] = Field("revision-request/v1", alias="schema")
    node: NodeId
    operation: Literal["revise-statement", "add-relation", "revise-definition"]
    evidence: LongText
    proposed_statement_sha256: Sha256 | None = None
    by: Pseudonym
    date: Date


class ClosureInput(BaseModel):
    """One node a closure rests on, with the artifact that proved it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    node: NodeId
    proof: GraphPath


class Closure(Record):
    """``closure/route-<k>.json``, ``resolves.json`` or ``refutes.json`` (D-12 v3.42)."""

    SCHEMA_KIND: ClassVar[str] = "closure/v1"
    schema_: Literal["closure/v1"] = Field("closure/v1", alias="schema")
    target: TargetId
    node: NodeId
    link: Literal["route", "resolves", "refutes"]
    route: GraphPath | None = None
    inputs: list[ClosureInput]
    verdict: Literal["proved", "refuted"]
    merge_seq: int = Field(ge=1)
    toolchain: Annotated[str, StringConstraints(max_length=200)]
    signature: Signature | None = None


class OutlineStepRecord(BaseModel):
    """One named step of a merged proof's outline (D-3 v3.30), as the gate's Outline.lean
    read it from the compiled, kernel-checked term: the declaration, its place, its kind
    (``have``, ``let``, or ``theorem`` for a proof with no named step) and label.
    ``claim`` (the binder's kernel-checked type) and ``goal`` (the goal left) only when
    the step reads back; otherwise ``lean_only`` with ``why``, and the reader is sent to
    the Lean. ``constants`` and ``automation`` are facts of the step's value either way;
    ``hole``: its value is ``sorry``, a partial's open step that became a hole."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    decl: Annotated[str, StringConstraints(max_length=1000)]
    index: int = Field(ge=1)
    kind: Literal["have", "let", "theorem"]
    depth: int = Field(0, ge=0)
    name: Annotated[str, StringConstraints(max_length=1000)] | None = None
    lean_only: bool
    why: Annotated[str, StringConstraints(max_length=100)] | None = None
    claim: LongText | None = None
    goal: LongText | None = None
    constants: list[Annotated[str, StringConstraints(max_length=1000)]] = Field(
        default_factory=list, max_length=5000)
    automation: list[Annotated[str, StringConstraints(max_length=60)]] = Field(
        default_factory=list, max_length=100)
    hole: bool = False


class Outline(Record):
    """``outline/<proof>.json``: the outline of one merged proof of the node (D-3 v3.30),
    written by the post-merge job from the pinned gate's Outline.lean, gate-signed.
    ``proof`` is the merged file (Proof.lean, an alternate, a partial or a reduction) and
    ``proof_sha256`` its bytes; ``declarations`` the theorems read. Only an outline the
    toolchain answered is ever written: without Lean, or when the check could not run,
    there is no file (fail closed; nothing is made up)."""

    SCHEMA_KIND: ClassVar[str] = "outline/v1"
    schema_: Literal["outline/v1"] = Field("outline/v1", alias="schema")
    target: TargetId
    node: NodeId
    proof: GraphPath
    proof_sha256: Sha256
    declarations: list[Annotated[str, StringConstraints(max_length=1000)]] = Field(
        min_length=1, max_length=100)
    steps: list[OutlineStepRecord] = Field(min_length=1, max_length=5000)
    merge_seq: int = Field(ge=1)
    toolchain: Annotated[str, StringConstraints(max_length=200)]
    signature: Signature | None = None

    @model_validator(mode="after")
    def _lean_only_shows_no_claim(self) -> Outline:
        for st in self.steps:
            if st.lean_only and (st.claim is not None or st.goal is not None):
                raise ValueError(f"step {st.index} of {st.decl} is Lean only yet claims")
            if not st.lean_only and (st.claim is None or st.why is not None):
                raise ValueError(f"step {st.index} of {st.decl} reads back without a claim")
            if st.decl not in self.declarations:
                raise ValueError(f"step {st.index} names an unread declaration {st.decl}")
        return self


MotionKind = Literal["invite", "verify-writeup", "threshold", "significance"]
WriteupEvent = Literal["drafted", "written", "signed", "released", "on-arxiv", "submitted",
                       "accepted", "rejected", "withdrawn"]


class Motion(Record):
    """``targets/<id>/panel/motions/<ts>-<pseudonym>.yaml``: a motion of the target's panel
    (D-32 v3.34), opened by a panel member or a curator and decided when its window closes.

    ``invitee`` names whom an ``invite`` motion admits; ``subject`` the write-up
    (its first record's path) a ``verify-writeup`` motion verifies; ``text`` what it would
    do (for ``threshold`` the authorship threshold, for ``significance`` the statement)."""

    SCHEMA_KIND: ClassVar[str] = "motion/v1"
    schema_: Literal["motion/v1"] = Field("motion/v1", alias="schema")
    target: TargetId
    kind: MotionKind
    text: LongText
    subject: GraphPath | None = None
    invitee: Pseudonym | None = None
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class Vote(Record):
    """``targets/<id>/panel/votes/<ts>-<pseudonym>.yaml``: one signed vote on one motion
    (D-32 v3.34: only votes cast count; abstentions count neither way)."""

    SCHEMA_KIND: ClassVar[str] = "vote/v1"
    schema_: Literal["vote/v1"] = Field("vote/v1", alias="schema")
    motion: GraphPath
    vote: Literal["yes", "no"]
    by: Pseudonym
    date: Date
    signature: Signature | None = None


class Writeup(Record):
    """``targets/<id>/writeups/<ts>-<pseudonym>.yaml``: one event of a write-up of the target
    (D-32 v3.34). The first record (``drafted`` or ``written``, no ``writeup``) opens a
    write-up, which is named by that record's path; every later record names it in
    ``writeup``. The stage is derived (``network.record.panel.writeup_stage``).

    ``signed`` is a steward's or curator's signature of the write-up or of ``sections``
    of it; ``released`` a listed author's signature of the paper; ``on-arxiv`` carries
    ``arxiv``, ``submitted`` the ``journal``, ``accepted`` the ``doi`` (or the acceptance in
    ``note``), ``rejected`` a recorded rejection, ``withdrawn`` the withdrawal."""

    SCHEMA_KIND: ClassVar[str] = "writeup/v2"
    schema_: Literal["writeup/v2"] = Field("writeup/v2", alias="schema")
    target: TargetId
    event: WriteupEvent
    writeup: GraphPath | None = None
    title: ShortText | None = None
    url: Annotated[str, StringConstraints(pattern=r"^https?://", max_length=500)] | None = None
    document_sha256: Sha256 | None = None
    sections: list[Annotated[int, Field(ge=0, le=999)]] = fresh_default([])
    arxiv: Annotated[str, StringConstraints(
        pattern=r"^([0-9]{4}\.[0-9]{4,5}|[a-z-]+(\.[A-Z]{2})?/[0-9]{7})(v[0-9]+)?$",
        max_length=50)] | None = None
    journal: ShortText | None = None
    doi: Annotated[str, StringConstraints(pattern=r"^10\.[0-9]{4,9}/\S+$",
                                          max_length=200)] | None = None
    note: ShortText | None = None
    by: Pseudonym
    date: Date
    signature: Signature | None = None
