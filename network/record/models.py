"""Typed models of every record kind a graph holds (docs/record.md).

Each model is one schema kind and version: ``SCHEMA_KIND`` names it (``meta/v1``). The
committed JSON Schemas under ``schemas/`` are generated from these models once and frozen
(D-34: a change is a new version, never an edit); ``tests/test_schemas.py`` holds the two
equal. Models are immutable and refuse unknown fields. No model has a ``status`` field:
statuses are derived (Foundation ruling 1).

A node's records are modelled in :mod:`network.record.node_models` and the shared id,
path and text types in :mod:`network.record.model_types`; this module re-exports them,
so every model is imported from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

# The record base, the signature envelope and the key model sit below the record, in
# signing's layer (issue 17); the record's model set keeps their names.
from network.model_base import Date as Date  # noqa: PLC0414 (re-exported)
from network.model_base import Record as Record  # noqa: PLC0414 (re-exported)

# The shared types and the node records live beside this module (issue 17: it was one
# module of 1,142 lines); every name stays importable from here.
from network.record.model_types import ArtifactHash as ArtifactHash  # noqa: PLC0414
from network.record.model_types import Disclosure as Disclosure  # noqa: PLC0414
from network.record.model_types import GitSha as GitSha  # noqa: PLC0414
from network.record.model_types import GraphPath as GraphPath  # noqa: PLC0414
from network.record.model_types import Label as Label  # noqa: PLC0414
from network.record.model_types import LongText as LongText  # noqa: PLC0414
from network.record.model_types import NodeId as NodeId  # noqa: PLC0414
from network.record.model_types import Pseudonym as Pseudonym  # noqa: PLC0414
from network.record.model_types import Reference as Reference  # noqa: PLC0414
from network.record.model_types import Sha256 as Sha256  # noqa: PLC0414
from network.record.model_types import ShortText as ShortText  # noqa: PLC0414
from network.record.model_types import TargetId as TargetId  # noqa: PLC0414
from network.record.model_types import fresh_default
from network.record.node_models import AcknowledgedHazard as AcknowledgedHazard  # noqa: PLC0414
from network.record.node_models import Annex as Annex  # noqa: PLC0414
from network.record.node_models import Approval as Approval  # noqa: PLC0414
from network.record.node_models import Closure as Closure  # noqa: PLC0414
from network.record.node_models import ClosureInput as ClosureInput  # noqa: PLC0414
from network.record.node_models import Defect as Defect  # noqa: PLC0414
from network.record.node_models import Dispute as Dispute  # noqa: PLC0414
from network.record.node_models import Explainer as Explainer  # noqa: PLC0414
from network.record.node_models import Gloss as Gloss  # noqa: PLC0414
from network.record.node_models import HoleOf as HoleOf  # noqa: PLC0414
from network.record.node_models import Literature as Literature  # noqa: PLC0414
from network.record.node_models import Meta as Meta  # noqa: PLC0414
from network.record.node_models import Motion as Motion  # noqa: PLC0414
from network.record.node_models import MotionKind as MotionKind  # noqa: PLC0414
from network.record.node_models import Outline as Outline  # noqa: PLC0414
from network.record.node_models import OutlineStepRecord as OutlineStepRecord  # noqa: PLC0414
from network.record.node_models import Pertinence as Pertinence  # noqa: PLC0414
from network.record.node_models import Postmortem as Postmortem  # noqa: PLC0414
from network.record.node_models import ProofReview as ProofReview  # noqa: PLC0414
from network.record.node_models import ProposedFor as ProposedFor  # noqa: PLC0414
from network.record.node_models import RevisionRequest as RevisionRequest  # noqa: PLC0414
from network.record.node_models import Section as Section  # noqa: PLC0414
from network.record.node_models import Shelving as Shelving  # noqa: PLC0414
from network.record.node_models import VariantOf as VariantOf  # noqa: PLC0414
from network.record.node_models import Vote as Vote  # noqa: PLC0414
from network.record.node_models import Waiver as Waiver  # noqa: PLC0414
from network.record.node_models import Withdrawal as Withdrawal  # noqa: PLC0414
from network.record.node_models import Words as Words  # noqa: PLC0414
from network.record.node_models import Writeup as Writeup  # noqa: PLC0414
from network.record.node_models import WriteupEvent as WriteupEvent  # noqa: PLC0414
from network.record.review_models import *
from network.record.review_models import REVIEW_KINDS
from network.signing import PublicKey as PublicKey  # noqa: PLC0414 (re-exported)
from network.signing import Signature as Signature  # noqa: PLC0414 (re-exported)

# --- graph root ------------------------------------------------------------------------


class ClaimTtl(BaseModel):
    """Flat claim TTL caps in seconds (D-25): an undeclared TTL gets ``min_s``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min_s: int = Field(3600, ge=60)
    max_s: int = Field(14 * 86400, ge=60)


class Policy(Record):
    """``policy.json``: repository-wide settings; a target may override (ruling 13)."""

    SCHEMA_KIND: ClassVar[str] = "policy/v1"
    schema_: Literal["policy/v1"] = Field("policy/v1", alias="schema")
    graph_id: TargetId
    claim_ttl: ClaimTtl = ClaimTtl()
    token_lapse_days: int = Field(180, ge=1)
    starvation_days: int = Field(14, ge=1)
    dormancy_k_attempts: int = Field(3, ge=1)
    dormancy_n_days: int = Field(90, ge=1)
    missing_library_threshold: int = Field(3, ge=1)
    max_file_bytes: int = Field(1_000_000, ge=1024)
    reserved_pseudonyms: list[Pseudonym] = fresh_default([])
    data_license: ShortText = "CC-BY-4.0"
    code_license: ShortText = "Apache-2.0"


class PolicyV2(Policy):
    """``policy.json`` as policy/v2: v1's settings plus the roles' numbers (D-22 v3.33,
    D-32 v3.33/v3.34). policy/v1 files stay readable (D-34); a reader of v1 gets these
    defaults (:func:`network.record.panel_roles.policy_numbers`).

    Attributes:
        owner: the owner's pseudonym; curators.json changes only by a pull request the
            owner signs (D-22 v3.33). None: no owner bound, so no change to curators.json
            can merge.
        steward_admission: ``open`` (a first steward's record merges unattended with
            ``admitted_by: self``) or ``reviewed`` (a curator admits and is named).
        steward_lapse_months: months without a signed act on the target after which a
            steward lapses from the panel, by derivation.
        steward_cap: the most stewardships one person holds at once.
        vote_window_days: a motion is decided when this window closes.
        vote_threshold: a motion passes when its yes votes reach this fraction of the
            votes counted (0.5: a majority, i.e. more than half; D-32 v3.34).
        vote_minimum: votes that must be counted when the panel has three or more members.
    """

    SCHEMA_KIND: ClassVar[str] = "policy/v2"
    schema_: Literal["policy/v2"] = Field("policy/v2", alias="schema")  # type: ignore[assignment]
    owner: Pseudonym | None = None
    steward_admission: Literal["open", "reviewed"] = "open"
    steward_lapse_months: int = Field(6, ge=1)
    steward_cap: int = Field(5, ge=1)
    vote_window_days: int = Field(14, ge=1)
    vote_threshold: float = Field(0.5, ge=0.0, lt=1.0)
    vote_minimum: int = Field(2, ge=1)


class Curator(BaseModel):
    """One curator: pseudonym and the targets curated (``*`` for all)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pseudonym: Pseudonym
    targets: list[Annotated[str, StringConstraints(pattern=r"^(\*|[a-z0-9]+(-[a-z0-9]+)*)$")]]


class Curators(Record):
    """``curators.json`` (D-6, D-21)."""

    SCHEMA_KIND: ClassVar[str] = "curators/v1"
    schema_: Literal["curators/v1"] = Field("curators/v1", alias="schema")
    curators: list[Curator] = fresh_default([])


class CuratorsV2(Curators):
    """``curators.json`` as curators/v2: v1's list signed by the owner policy/v2 names
    (D-22 v3.33: curators are named by the owner, by pull request; no one adds
    themselves). The signature (``ssh`` with the owner's listed key, or ``approval`` with
    ``signer`` the owner) is over the record's canonical JSON without ``signature``;
    ``date`` is when the owner signed (keys are judged valid on it and on the gate's
    now)."""

    SCHEMA_KIND: ClassVar[str] = "curators/v2"
    schema_: Literal["curators/v2"] = Field("curators/v2", alias="schema")  # type: ignore[assignment]
    date: Date
    signature: Signature | None = None


class Identity(Record):
    """``identities/<pseudonym>.yaml``: who a pseudonym is, for role rules (ruling 9)."""

    SCHEMA_KIND: ClassVar[str] = "identity/v1"
    schema_: Literal["identity/v1"] = Field("identity/v1", alias="schema")
    pseudonym: Pseudonym
    github: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9-]{1,39}$")] | None = None
    ssh_signers: list[Annotated[str, StringConstraints(max_length=2000)]] = fresh_default([])
    since: Date
    signature: Signature | None = None


class DisplayName(Record):
    """``names/<pseudonym>.yaml`` (D-3 v3.37); no name withdraws the last one."""

    SCHEMA_KIND: ClassVar[str] = "display-name/v1"
    schema_: Literal["display-name/v1"] = Field("display-name/v1", alias="schema")
    pseudonym: Pseudonym
    name: ShortText | None = None
    link: Annotated[str, StringConstraints(pattern=r"^https?://", max_length=500)] | None = None
    date: Date
    signature: Signature | None = None


class MergeRecord(Record):
    """``log/merges/<seq>.json``: the record's own clock (Foundation ruling 2).

    ``date`` is the merge commit's committer date; derivations take "now" from the
    newest record.
    """

    SCHEMA_KIND: ClassVar[str] = "merge/v1"
    schema_: Literal["merge/v1"] = Field("merge/v1", alias="schema")
    seq: int = Field(ge=1)
    merge_commit: GitSha
    date: Date
    pull_request: Annotated[str, StringConstraints(max_length=200)]
    submitter: Pseudonym | None = None
    artifacts: list[GraphPath]
    attestation: GraphPath | None = None
    signature: Signature | None = None


# --- attestations ----------------------------------------------------------------------


class StepRecord(BaseModel):
    """One gate step's result as signed (STYLE.md rule 5)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    step: int = Field(ge=0, le=9)
    name: Annotated[str, StringConstraints(max_length=60)]
    ok: bool
    code: Annotated[str, StringConstraints(max_length=80)] | None = None
    diagnostics: list[dict[str, Any]] = fresh_default([])


class Step9(BaseModel):
    """Why step 9 was satisfied, or what it waits on (D-4 v3.11/v3.15/v3.20/v3.39)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    basis: Literal[
        "calibration", "intermediate", "tutorial", "alternate", "certificate",
        "catalog-evidence", "review", "awaiting-review", "not-applicable",
    ]
    reviewer: Pseudonym | None = None
    certificate: GraphPath | None = None


class PrecheckConsumed(BaseModel):
    """The precheck attestation a gate run consumed (D-4, D-34)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sha256: Sha256
    signature_kind: Literal["service", "ssh", "none"]


class KernelRecord(BaseModel):
    """One kernel's verdict on step 4's replay, as signed (issue 37): its name (``lean``,
    ``lean-export``, ``nanoda``, ``lean4lean``), its version (the toolchain's, or the
    pinned commit) and what it said."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[str, StringConstraints(max_length=40)]
    version: Annotated[str, StringConstraints(max_length=80)] | None = None
    verdict: Literal["accept", "refuse", "not-run"]


class Attestation(Record):
    """``attestations/<id>.json``: one authoritative gate run, any verdict (D-5, D-34).

    Reproducible: masking ``runner``, ``merge_commit`` and ``signature`` gives identical
    bytes across reruns. ``timestamp`` is the head commit's committer date (ruling 2).
    """

    SCHEMA_KIND: ClassVar[str] = "attestation/v1"
    schema_: Literal["attestation/v1"] = Field("attestation/v1", alias="schema")
    graph_id: TargetId
    target: TargetId
    node: NodeId
    statement_hash: Sha256 | None = None
    artifact_kind: Annotated[str, StringConstraints(max_length=40)]
    artifacts: list[ArtifactHash]
    submitter: Pseudonym | None = None
    channel: Literal["public", "bounty"] = "public"
    disclosure: Disclosure = fresh_default(Disclosure())
    toolchain: Annotated[str, StringConstraints(max_length=200)]
    toolchain_hash: Annotated[str, StringConstraints(max_length=200)] | None = None
    mathlib_rev: GitSha | None = None
    gate_spec_sha256: Sha256
    network_commit: GitSha | None = None
    base_commit: GitSha
    head_commit: GitSha
    graph_commit: GitSha
    precheck: PrecheckConsumed | None = None
    verdict: Literal["pass", "fail", "held", "bounced"]
    first_failing_step: int | None = Field(None, ge=0, le=9)
    steps: list[StepRecord]
    step9: Step9 | None = None
    waivers: list[Literal["native_decide"]] = fresh_default([])
    elaboration_state: LongText | None = None
    timestamp: Date
    runner: Literal["hosted", "local"] | None = None
    merge_commit: GitSha | None = None
    signature: Signature | None = None


class AttestationV2(Attestation):
    """``attestations/<id>.json``, version 2 (issue 37): an attestation/v1 plus
    ``kernels``, each kernel step 4 ran with its name, version and verdict (None when no
    replay ran). The gate writes v2; v1 records stay as published and read beside these
    (D-34: a new version, v1 never edited)."""

    SCHEMA_KIND: ClassVar[str] = "attestation/v2"
    schema_: Literal["attestation/v2"] = Field("attestation/v2", alias="schema")  # type: ignore[assignment]
    kernels: list[KernelRecord] | None = None


def attestation_from_json(data: str | bytes | dict[str, Any]) -> Attestation:
    """An attestation file's JSON read as the version it declares (``attestation/v1`` or
    ``/v2``; D-34: readers take every version).

    Raises:
        pydantic.ValidationError: not an attestation of either version.
    """
    import json
    obj = json.loads(data) if isinstance(data, str | bytes) else data
    model = AttestationV2 if isinstance(obj, dict) and obj.get("schema") == \
        AttestationV2.SCHEMA_KIND else Attestation
    return model.model_validate(obj)


class PrecheckRecord(Record):
    """``nodes/<id>/attempts/precheck/<hash>.json``, opt-in (D-34)."""

    SCHEMA_KIND: ClassVar[str] = "precheck/v1"
    schema_: Literal["precheck/v1"] = Field("precheck/v1", alias="schema")
    target: TargetId
    node: NodeId
    statement_hash: Sha256
    verdict: Literal["precheck-pass", "precheck-fail"]
    first_failing_step: int | None = Field(None, ge=0, le=9)
    goal_state_sha256: Sha256 | None = None
    terminal_goal_state: LongText | None = None
    steps: list[StepRecord]
    toolchain: Annotated[str, StringConstraints(max_length=200)]
    date: Date
    signature: Signature | None = None


class PrecheckAttestation(Record):
    """A precheck's signed verdict on one artifact (D-4, D-27, D-28; ruling 7).

    It rides in the pull request body as a fenced ``precheck-attestation`` JSON block,
    never as a graph file. ``signature`` is None for an unsigned ``pregate.sh`` run
    (kind "none"), a service signature from ``POST /precheck``, or an ssh signature from
    ``pregate.sh --sign``. ``date`` is the head commit's committer date it judged.
    """

    SCHEMA_KIND: ClassVar[str] = "precheck-attestation/v1"
    schema_: Literal["precheck-attestation/v1"] = Field(
        "precheck-attestation/v1", alias="schema")
    graph_id: TargetId
    target: TargetId
    node: NodeId
    artifact_kind: Annotated[str, StringConstraints(max_length=40)]
    artifacts: list[ArtifactHash]
    statement_hash: Sha256 | None = None
    gate_spec_sha256: Sha256
    toolchain: Annotated[str, StringConstraints(max_length=200)]
    verdict: Literal["precheck-pass", "precheck-fail"]
    first_failing_step: int | None = Field(None, ge=0, le=9)
    steps: list[StepRecord]
    submitter: Pseudonym | None = None
    date: Date
    signature: Signature | None = None


#: the verdict of a precheck that could check nothing because the target's pinned
#: toolchain is not installed where it ran: neither a pass nor a judgment (D-28, issue 35)
PRECHECK_TOOLCHAIN_MISSING = "precheck-toolchain-missing"
PrecheckVerdict = Literal["precheck-pass", "precheck-fail", "precheck-toolchain-missing"]


class PrecheckAttestationV2(PrecheckAttestation):
    """A precheck attestation, version 2 (issue 35 item 6): a precheck-attestation/v1 whose
    ``verdict`` also admits ``precheck-toolchain-missing``, the run that found no toolchain
    for the target's pin and so judged nothing (D-28: neither a pass nor a judgment). New
    runs write v2; v1 attestations stay valid and are read beside them (D-34: a new
    version, v1 never edited)."""

    SCHEMA_KIND: ClassVar[str] = "precheck-attestation/v2"
    schema_: Literal["precheck-attestation/v2"] = Field(  # type: ignore[assignment]
        "precheck-attestation/v2", alias="schema")
    verdict: PrecheckVerdict  # type: ignore[assignment]


def precheck_checked_nothing(verdict: str, steps: Sequence[StepRecord]) -> bool:
    """Whether a precheck's verdict is no judgment: it could not run for want of the
    target's pinned toolchain (D-28, issue 35 item 6).

    Args:
        verdict: a precheck attestation's or precheck record's ``verdict``.
        steps: its signed step records.

    Returns:
        True for ``precheck-toolchain-missing`` (precheck-attestation/v2), and for a
        ``precheck-fail`` whose every failing step says ``toolchain-missing`` (how v1
        attestations and precheck/v1 records wrote the same run; D-34: old versions are
        read, never rewritten). False for a pass and for every judged failure.
    """
    if verdict == PRECHECK_TOOLCHAIN_MISSING:
        return True
    bad = [st for st in steps if not st.ok]
    return verdict != "precheck-pass" and bool(bad) and all(
        st.code == "toolchain-missing" for st in bad)


def precheck_attestation_from_json(data: str | bytes | dict[str, Any]) -> PrecheckAttestation:
    """A precheck attestation's JSON read as the version it declares
    (``precheck-attestation/v1`` or ``/v2``; D-34: readers take every version).

    Args:
        data: the JSON text or bytes, or the object already parsed.

    Returns:
        :class:`PrecheckAttestation` (v1) or :class:`PrecheckAttestationV2`.

    Raises:
        json.JSONDecodeError: ``data`` is text that does not parse.
        pydantic.ValidationError: not a precheck attestation of either version.
    """
    import json
    obj = json.loads(data) if isinstance(data, str | bytes) else data
    model = PrecheckAttestationV2 if isinstance(obj, dict) and obj.get("schema") == \
        PrecheckAttestationV2.SCHEMA_KIND else PrecheckAttestation
    return model.model_validate(obj)


# --- ledger ----------------------------------------------------------------------------

LedgerLineName = Literal["statement", "proof", "review", "attempts", "upstream", "writeup"]


class LedgerLine(Record):
    """``ledger/<seq>-<k>.json``: one credit line of one merge (D-19)."""

    SCHEMA_KIND: ClassVar[str] = "ledger-line/v1"
    schema_: Literal["ledger-line/v1"] = Field("ledger-line/v1", alias="schema")
    merge_seq: int = Field(ge=1)
    k: int = Field(ge=1)
    line: LedgerLineName
    identity: Pseudonym
    target: TargetId
    node: NodeId | None = None
    artifact: GraphPath
    artifact_sha256: Sha256
    annotation: ShortText | None = None
    signature: Signature | None = None


class LedgerLineV2(LedgerLine):
    """A ledger-line/v1 plus ``disclosure``: the models and tooling the merged artifact's
    attestation records, exactly as declared (D-23 v3.37, issue 35 item 3). Written for a
    merge that declared one; v1 lines stay as published and are read beside these (D-34)."""

    SCHEMA_KIND: ClassVar[str] = "ledger-line/v2"
    schema_: Literal["ledger-line/v2"] = Field("ledger-line/v2", alias="schema")  # type: ignore[assignment]
    disclosure: Disclosure


class Revocation(Record):
    """Revokes one ledger line; the line stays, shown as revoked (D-18, D-19)."""

    SCHEMA_KIND: ClassVar[str] = "revocation/v1"
    schema_: Literal["revocation/v1"] = Field("revocation/v1", alias="schema")
    merge_seq: int = Field(ge=1)
    k: int = Field(ge=1)
    revokes: GraphPath
    reason: ShortText
    by: Pseudonym
    signature: Signature | None = None


class Correction(Record):
    """A curator's credit correction (D-19 v3.27): applied by revoke + rewrite."""

    SCHEMA_KIND: ClassVar[str] = "correction/v1"
    schema_: Literal["correction/v1"] = Field("correction/v1", alias="schema")
    merge_seq: int = Field(ge=1)
    k: int = Field(ge=1)
    corrects: GraphPath
    credited: Pseudonym | None = None
    should_be: Pseudonym | None = None
    reason: ShortText
    by: Pseudonym
    signature: Signature | None = None


# --- targets ---------------------------------------------------------------------------


class PriorArt(BaseModel):
    """D-6 item 1: evidence the problem is plausibly still open, with dates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    summary: LongText
    checked_on: Date
    references: list[Reference]


class LibraryCoverage(BaseModel):
    """D-6 item 2: what the pinned Mathlib has and lacks for the conjectured routes."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    summary: LongText
    missing: list[ShortText] = fresh_default([])


class Provenance(BaseModel):
    """D-6 item 3 and D-10: where the Lean statement came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    source: Literal["authored", "formal-conjectures", "registry", "review"]
    repository: Annotated[str, StringConstraints(max_length=300)] | None = None
    commit: GitSha | None = None
    file: Annotated[str, StringConstraints(max_length=400)] | None = None
    declaration: Annotated[str, StringConstraints(max_length=400)] | None = None
    authors: list[ShortText] = fresh_default([])
    adversarially_reviewed: bool = False
    category: Annotated[str, StringConstraints(max_length=100)] | None = None
    ams: list[Annotated[str, StringConstraints(max_length=20)]] = fresh_default([])


class AttackRoutes(BaseModel):
    """D-6 item 4 (advisory): known partial results, reductions or crux candidates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    summary: LongText
    references: list[Reference] = fresh_default([])


class Intake(BaseModel):
    """The five intake artifacts a curator attaches (D-6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    prior_art: PriorArt
    library_coverage: LibraryCoverage
    provenance: Provenance
    attack_routes: AttackRoutes | None = None
    witness: GraphPath
    curator: Pseudonym
    signature: Signature | None = None


class Fidelity(BaseModel):
    """The root's D-9 grade; unset until a real gate compiles the statement."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    grade: Literal[
        "unreviewed", "screened", "screened-and-signed", "reviewed", "certified"
    ] | None = None
    certificate: GraphPath | None = None
    catalog_evidence_points: int = Field(0, ge=0)


class TargetRecord(Record):
    """``targets/<id>/target.yaml`` (D-6, D-10, D-33)."""

    SCHEMA_KIND: ClassVar[str] = "target/v1"
    schema_: Literal["target/v1"] = Field("target/v1", alias="schema")
    id: TargetId
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    target_class: Literal["open-problem", "calibration", "tutorial"] = Field(alias="class")
    calibration: bool = False
    area: list[Annotated[str, StringConstraints(max_length=100)]] = fresh_default([])
    informal_statement: LongText
    listed: Date
    intake: Intake | None = None
    fidelity: Fidelity = Fidelity()
    answer_question: bool = False
    bountied_nodes: list[NodeId] = fresh_default([])
    upstream: bool = False
    policy: dict[str, Any] = fresh_default({})


class LakePackage(BaseModel):
    """A lake dependency pinned by exact commit."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]+$")]
    url: Annotated[str, StringConstraints(pattern=r"^https://", max_length=300)]
    rev: GitSha


class Caps(BaseModel):
    """Step-3 resource caps (D-4): CPU seconds, memory in MiB, wall-clock seconds."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    cpu_s: int = Field(1800, ge=1)
    memory_mib: int = Field(8192, ge=64)
    wall_s: int = Field(600, ge=1)
    threads: int = Field(2, ge=1)


class PrecheckPolicy(BaseModel):
    """Which precheck attestations the gate accepts, and how old (D-4)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    accepted_signature_kinds: list[Literal["service", "ssh", "none"]] = fresh_default(
        ["service", "ssh", "none"])
    max_age_s: int = Field(7 * 86400, ge=60)


class KernelChecks(BaseModel):
    """How step 4 replays: leanchecker --fresh, or Comparator with an optional nanoda.
    Beside it the gate always runs every independent kernel its soundness record pins
    (network/gate/lean/kernels.py, issue 37): that set is the gate's, never a gate-spec's."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    replay: Literal["leanchecker", "comparator"] = "leanchecker"
    second_kernel: Literal["nanoda"] | None = None


class GateSpec(Record):
    """``targets/<id>/gate-spec.json``: everything step 1 resolves from (D-4, D-28)."""

    SCHEMA_KIND: ClassVar[str] = "gate-spec/v1"
    schema_: Literal["gate-spec/v1"] = Field("gate-spec/v1", alias="schema")
    lean_toolchain: Annotated[
        str, StringConstraints(pattern=r"^leanprover/lean4:(v\d+\.\d+\.\d+(-rc\d+)?|nightly-\d{4}-\d{2}-\d{2})$")
    ]
    mathlib: LakePackage | None = None
    packages: list[LakePackage] = fresh_default([])
    network_commit: GitSha | None = None
    axioms: list[Annotated[str, StringConstraints(max_length=200)]] = fresh_default([
        "propext", "Classical.choice", "Quot.sound"
    ])
    kernel: KernelChecks = KernelChecks()
    hazard_checkers: list[
        Literal[
            "nat-subtraction", "division-by-zero", "junk-values", "int-truncation",
            "unused-binders", "off-by-one-ranges",
        ]
    ] = fresh_default([
        "nat-subtraction", "division-by-zero", "junk-values", "int-truncation",
        "unused-binders", "off-by-one-ranges",
    ])
    caps: Caps = Caps()
    precheck: PrecheckPolicy = fresh_default(PrecheckPolicy())


class TargetStatusRecord(Record):
    """``targets/<id>/status/<date>-<n>.yaml``: a curator's declaration (D-33).

    ``declaration`` is what was declared; the target's status itself is derived.
    """

    SCHEMA_KIND: ClassVar[str] = "target-status/v1"
    schema_: Literal["target-status/v1"] = Field("target-status/v1", alias="schema")
    declaration: Literal["active", "dormant", "known-result"]
    curator: Pseudonym
    date: Date
    reasoning: LongText
    starvation_series: dict[str, Any] | None = None
    signature: Signature | None = None


class Steward(Record):
    """``targets/<id>/stewards/<pseudonym>.yaml`` (D-32, D-6 v3.17)."""

    SCHEMA_KIND: ClassVar[str] = "steward/v3"
    schema_: Literal["steward/v3"] = Field("steward/v3", alias="schema")
    pseudonym: Pseudonym
    target: TargetId
    real_name: ShortText
    affiliation: ShortText | None = None
    since: Date
    commitment: LongText
    signature: Signature | None = None


class StewardAct(Record):
    """``targets/<id>/steward-acts/<ts>-<pseudonym>.yaml``: one steward act, join or
    step-down (steward/v4; D-32 v3.17/v3.33/v3.34, D-6 v3.17).

    steward/v3 (:class:`Steward`, ``stewards/<pseudonym>.yaml``) is one file per steward
    and cannot say who admitted them, by which route, or that they stepped down without
    rewriting the file. D-32 v3.33/v3.34 needs all three on an append-only record, so v4
    is a new frozen version in a folder of its own: a join names ``admitted_by`` (``self``
    under open admission for a target's first steward; a curator's pseudonym when a
    curator admits them or adds them directly; ``panel`` when they accept a passed
    invitation motion named by ``invitation``), a step-down ends their commitment of
    either version (v3.33). The file name's pseudonym is the filer (the steward, or the
    curator who adds them); ``pseudonym`` names the steward. v3 records stay valid joins.

    Attributes:
        pseudonym: the steward.
        target: the target.
        action: ``join`` or ``step-down``.
        real_name, affiliation, commitment: the steward's own words (a join needs
            ``real_name`` and ``commitment``).
        admitted_by: on a join, ``self``, ``panel`` or a curator's pseudonym.
        invitation: on a join by invitation, the graph path of the passed invite motion.
        date: when the act was signed (the merge log dates it for derivations, ruling 2).
    """

    SCHEMA_KIND: ClassVar[str] = "steward/v4"
    schema_: Literal["steward/v4"] = Field("steward/v4", alias="schema")
    pseudonym: Pseudonym
    target: TargetId
    action: Literal["join", "step-down"]
    real_name: ShortText | None = None
    affiliation: ShortText | None = None
    commitment: LongText | None = None
    admitted_by: Pseudonym | None = None
    invitation: GraphPath | None = None
    date: Date
    signature: Signature | None = None

    @model_validator(mode="after")
    def _join_or_step_down(self) -> StewardAct:
        if self.action == "join":
            if not self.real_name or not self.commitment or self.admitted_by is None:
                raise ValueError("a join names real_name, commitment and admitted_by")
            if (self.invitation is None) != (self.admitted_by != "panel"):
                raise ValueError("admitted_by: panel goes with an invitation, and only it")
        elif self.admitted_by is not None or self.invitation is not None:
            raise ValueError("a step-down names no admitted_by or invitation")
        return self


class Approach(Record):
    """``targets/<id>/approaches/<ts>-<pseudonym>.yaml`` (D-14)."""

    SCHEMA_KIND: ClassVar[str] = "approach/v1"
    schema_: Literal["approach/v1"] = Field("approach/v1", alias="schema")
    target: TargetId
    author: Pseudonym
    date: Date
    title: Annotated[str, StringConstraints(max_length=200)]
    state: Literal["proposed", "abandoned", "refuted"]
    cause: LongText | None = None
    nodes: list[NodeId] = fresh_default([])
    references: list[Reference] = fresh_default([])
    detail: LongText | None = None


D13Outcome = Literal["refuted-route", "exhausted", "abandoned-early", "blocked"]
"""D-13's un-collapsible outcome vocabulary, shared by postmortems and approach/v2 (D-14)."""


class ApproachV2(Record):
    """``targets/<id>/approaches/<ts>-<pseudonym>.yaml`` with D-14 mechanism 3's fields:
    route, outcome (D-13's vocabulary), pinned_mathlib_sha, model_and_tooling (D-23
    v3.37's disclosure block) and date. A record whose pinned Mathlib is not its target's
    gate-spec pin reads stale (:func:`network.record.derive.approach_views`); readers take
    ``approach/v1`` records beside these (D-34: a new version, v1 never edited)."""

    SCHEMA_KIND: ClassVar[str] = "approach/v2"
    schema_: Literal["approach/v2"] = Field("approach/v2", alias="schema")
    target: TargetId
    author: Pseudonym
    date: Date
    route: ShortText
    outcome: D13Outcome
    pinned_mathlib_sha: GitSha
    model_and_tooling: Disclosure
    detail: LongText | None = None
    nodes: list[NodeId] = fresh_default([])
    references: list[Reference] = fresh_default([])


class Registration(Record):
    """``targets/<id>/registrations/<date>-<n>.yaml`` (D-10 v3.37)."""

    SCHEMA_KIND: ClassVar[str] = "registration/v1"
    schema_: Literal["registration/v1"] = Field("registration/v1", alias="schema")
    registry: ShortText
    registry_id: ShortText
    version: ShortText | None = None
    repository: ShortText | None = None
    commit: GitSha | None = None
    graph_commit: GitSha
    proof: GraphPath | None = None
    attestation: GraphPath | None = None
    state: Literal["submitted", "registered", "rejected"]
    by: Pseudonym
    date: Date
    signature: Signature | None = None


ALL_KINDS: tuple[type[Record], ...] = (
    Policy, PolicyV2, Curators, CuratorsV2, StewardAct, Identity, DisplayName, PublicKey, MergeRecord, Attestation,
    AttestationV2,
    PrecheckRecord, PrecheckAttestation, PrecheckAttestationV2, LedgerLine, LedgerLineV2, Revocation, Correction, TargetRecord, GateSpec,
    TargetStatusRecord, Steward, Approach, ApproachV2, Registration, Meta, Postmortem, Annex,
    Literature, Gloss, Explainer, Withdrawal, ProposedFor, Shelving, Pertinence, Waiver, Defect,
    Dispute, RevisionRequest, Closure, Approval, Motion, Vote, Writeup, ProofReview,
    Outline, *REVIEW_KINDS,
)
KIND_BY_SCHEMA: dict[str, type[Record]] = {k.SCHEMA_KIND: k for k in ALL_KINDS}
#: the versions one place of the record reads, keyed by the kind a reader names for it: a
#: file declaring any of them is read as that version (D-34: readers take every version)
SAME_PLACE: dict[str, tuple[type[Record], ...]] = {
    Approach.SCHEMA_KIND: (Approach, ApproachV2),
    Policy.SCHEMA_KIND: (Policy, PolicyV2),
    Curators.SCHEMA_KIND: (Curators, CuratorsV2),
    Attestation.SCHEMA_KIND: (Attestation, AttestationV2),
    LedgerLine.SCHEMA_KIND: (LedgerLine, LedgerLineV2),
}
