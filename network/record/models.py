"""Typed models of every record kind a graph holds (docs/record.md).

Each model is one schema kind and version: ``SCHEMA_KIND`` names it (``meta/v1``). The
committed JSON Schemas under ``schemas/`` are generated from these models once and frozen
(D-34: a change is a new version, never an edit); ``tests/test_schemas.py`` holds the two
equal. Models are immutable and refuse unknown fields. No model has a ``status`` field:
statuses are derived (Foundation ruling 1).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

# The record base, the signature envelope and the key model sit below the record, in
# signing's layer (issue 17); the record's model set keeps their names.
from network.model_base import Date as Date  # noqa: PLC0414 (re-exported)
from network.model_base import Record as Record  # noqa: PLC0414 (re-exported)
from network.signing import PublicKey as PublicKey  # noqa: PLC0414 (re-exported)
from network.signing import Signature as Signature  # noqa: PLC0414 (re-exported)

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
GitSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
TargetId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
NodeId = Annotated[
    str,
    StringConstraints(
        pattern=r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:@v[1-9][0-9]*)?(?:--h[1-9][0-9]*(?:@v[1-9][0-9]*)?)*$",
        max_length=200,
    ),
]
Pseudonym = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,38}$")
]
GraphPath = Annotated[
    str,
    StringConstraints(
        pattern=r"^[A-Za-z0-9_@][A-Za-z0-9_.@-]*(/[A-Za-z0-9_@][A-Za-z0-9_.@-]*)*$", max_length=400
    ),
]
ShortText = Annotated[str, StringConstraints(max_length=2000)]
LongText = Annotated[str, StringConstraints(max_length=100_000)]
Label = Annotated[str, StringConstraints(max_length=60)]


def _fresh(value: Any) -> Any:
    """A field default that a factory builds afresh for each instance (issue 17).

    pydantic deep-copies an unhashable default (a list, a dict, a model holding one) each
    time a record omits the field: ~64,000 ``copy.deepcopy`` calls in a 10,000-node load.
    A factory gives the same value without the copy; ``json_schema_extra`` names it as
    the field's ``default``, so the JSON Schemas (D-34: frozen) read exactly as before.

    Args:
        value: ``[]``, ``{}``, a list of strings, or a model instance that equals its
            class's defaults (built again by calling the class).

    Raises:
        ValueError: any other value (its fresh copy would need a deep copy again).
    """
    factory: Any
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        factory = functools.partial(list, value)
        shown: Any = list(value)
    elif isinstance(value, dict) and not value:
        factory, shown = dict, {}
    elif isinstance(value, BaseModel) and value == type(value)():
        factory, shown = type(value), value.model_dump(mode="json")
    else:
        raise ValueError(f"no fresh factory for the default {value!r}")
    return Field(default_factory=factory, json_schema_extra={"default": shown})


class Reference(BaseModel):
    """A checkable reference: title, where to find it, and what it says for us."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: ShortText
    url: Annotated[str, StringConstraints(pattern=r"^https?://", max_length=500)] | None = None
    doi: Annotated[str, StringConstraints(max_length=200)] | None = None
    arxiv: Annotated[str, StringConstraints(max_length=50)] | None = None
    note: ShortText | None = None


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
    reserved_pseudonyms: list[Pseudonym] = _fresh([])
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
    curators: list[Curator] = _fresh([])


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
    ssh_signers: list[Annotated[str, StringConstraints(max_length=2000)]] = _fresh([])
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


class ArtifactHash(BaseModel):
    """One file an attestation covers: its graph path and SHA-256."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: GraphPath
    sha256: Sha256


class StepRecord(BaseModel):
    """One gate step's result as signed (STYLE.md rule 5)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    step: int = Field(ge=0, le=9)
    name: Annotated[str, StringConstraints(max_length=60)]
    ok: bool
    code: Annotated[str, StringConstraints(max_length=80)] | None = None
    diagnostics: list[dict[str, Any]] = _fresh([])


class Disclosure(BaseModel):
    """Model and tooling as declared by the operator (D-23 v3.37)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    method: Literal["human", "agent", "mixed", "undisclosed"] = "undisclosed"
    models: list[Annotated[str, StringConstraints(max_length=200)]] = _fresh([])
    framework: Annotated[str, StringConstraints(max_length=200)] | None = None


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
    disclosure: Disclosure = _fresh(Disclosure())
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
    waivers: list[Literal["native_decide"]] = _fresh([])
    elaboration_state: LongText | None = None
    timestamp: Date
    runner: Literal["hosted", "local"] | None = None
    merge_commit: GitSha | None = None
    signature: Signature | None = None


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
    missing: list[ShortText] = _fresh([])


class Provenance(BaseModel):
    """D-6 item 3 and D-10: where the Lean statement came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    source: Literal["authored", "formal-conjectures", "registry", "review"]
    repository: Annotated[str, StringConstraints(max_length=300)] | None = None
    commit: GitSha | None = None
    file: Annotated[str, StringConstraints(max_length=400)] | None = None
    declaration: Annotated[str, StringConstraints(max_length=400)] | None = None
    authors: list[ShortText] = _fresh([])
    adversarially_reviewed: bool = False
    category: Annotated[str, StringConstraints(max_length=100)] | None = None
    ams: list[Annotated[str, StringConstraints(max_length=20)]] = _fresh([])


class AttackRoutes(BaseModel):
    """D-6 item 4 (advisory): known partial results, reductions or crux candidates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    summary: LongText
    references: list[Reference] = _fresh([])


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
    area: list[Annotated[str, StringConstraints(max_length=100)]] = _fresh([])
    informal_statement: LongText
    listed: Date
    intake: Intake | None = None
    fidelity: Fidelity = Fidelity()
    answer_question: bool = False
    bountied_nodes: list[NodeId] = _fresh([])
    upstream: bool = False
    policy: dict[str, Any] = _fresh({})


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
    accepted_signature_kinds: list[Literal["service", "ssh", "none"]] = _fresh(
        ["service", "ssh", "none"])
    max_age_s: int = Field(7 * 86400, ge=60)


class KernelChecks(BaseModel):
    """How step 4 replays: leanchecker --fresh, or Comparator with an optional nanoda."""

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
    packages: list[LakePackage] = _fresh([])
    network_commit: GitSha | None = None
    axioms: list[Annotated[str, StringConstraints(max_length=200)]] = _fresh([
        "propext", "Classical.choice", "Quot.sound"
    ])
    kernel: KernelChecks = KernelChecks()
    hazard_checkers: list[
        Literal[
            "nat-subtraction", "division-by-zero", "junk-values", "int-truncation",
            "unused-binders", "off-by-one-ranges",
        ]
    ] = _fresh([
        "nat-subtraction", "division-by-zero", "junk-values", "int-truncation",
        "unused-binders", "off-by-one-ranges",
    ])
    caps: Caps = Caps()
    precheck: PrecheckPolicy = _fresh(PrecheckPolicy())


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
    nodes: list[NodeId] = _fresh([])
    references: list[Reference] = _fresh([])
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
    nodes: list[NodeId] = _fresh([])
    references: list[Reference] = _fresh([])


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
    provenance: dict[str, Any] = _fresh({})
    deps: list[NodeId] = _fresh([])
    lemmas: list[NodeId] = _fresh([])
    hole: HoleOf | None = None
    supersedes: NodeId | None = None
    variant: VariantOf | None = None
    speculative: bool = False
    tutorial: bool = False
    acknowledged_hazards: list[AcknowledgedHazard] = _fresh([])
    library_tags: list[Annotated[str, StringConstraints(max_length=100)]] = _fresh([])
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
    artifacts: dict[str, Any] = _fresh({})
    disclosure: Disclosure = _fresh(Disclosure())


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
    references: list[Reference] = _fresh([])
    by: Pseudonym
    date: Date
    confirms: GraphPath | None = None
    disputes: GraphPath | None = None
    supersedes: GraphPath | None = None
    signature: Signature | None = None


class Section(BaseModel):
    """One section of a gloss or explainer (ruling 11)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    steps: list[Annotated[str, StringConstraints(max_length=100)]] = _fresh([])
    text: LongText
    drafted_with: list[Annotated[str, StringConstraints(max_length=200)]] = _fresh([])


class Words(Record):
    """Common body of glosses and explainers: a version of a chain (D-3 v3.30/v3.31)."""

    describes: GraphPath
    describes_sha256: Sha256
    author: Pseudonym
    date: Date
    licence: ShortText
    supersedes: GraphPath | None = None
    sections: list[Section] = Field(min_length=1)
    approvals: list[Signature] = _fresh([])


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
    (:mod:`network.gate.pertinence`).
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
    signs_off: list[Literal["native_decide"]] = _fresh([])
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
    sections: list[Annotated[int, Field(ge=0, le=999)]] = _fresh([])
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


ALL_KINDS: tuple[type[Record], ...] = (
    Policy, PolicyV2, Curators, CuratorsV2, StewardAct, Identity, DisplayName, PublicKey, MergeRecord, Attestation,
    PrecheckRecord, PrecheckAttestation, LedgerLine, Revocation, Correction, TargetRecord, GateSpec,
    TargetStatusRecord, Steward, Approach, ApproachV2, Registration, Meta, Postmortem, Annex,
    Literature, Gloss, Explainer, Withdrawal, ProposedFor, Shelving, Pertinence, Waiver, Defect,
    Dispute, RevisionRequest, Closure, Approval, Motion, Vote, Writeup, ProofReview,
    Outline,
)
KIND_BY_SCHEMA: dict[str, type[Record]] = {k.SCHEMA_KIND: k for k in ALL_KINDS}
#: the versions one place of the record reads, keyed by the kind a reader names for it: a
#: file declaring any of them is read as that version (D-34: readers take every version)
SAME_PLACE: dict[str, tuple[type[Record], ...]] = {
    Approach.SCHEMA_KIND: (Approach, ApproachV2),
    Policy.SCHEMA_KIND: (Policy, PolicyV2),
    Curators.SCHEMA_KIND: (Curators, CuratorsV2),
}
