"""HTTP routes of the record writes, the words routes, the hosted check and the schema and
words reads (D-28, D-35). Each handler is a thin shell over the one operation function its
MCP tool also calls (``network/api/tools.py``); :func:`install` adds them to the app that
:func:`network.api.app.create_app` builds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from network.api import deps
from network.api.deps import Bearer, marks, read_response
from network.api.people.web_session import BearerOrSession
from network.api.records import words
from network.api.service import Caller, Service, Who, authenticate
from network.api.submit import checks, records

_TEXT = 1_000_000  # characters; the body limit (max_body_bytes) is the real cap


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PostmortemRequest(_Body):
    """``POST /postmortems``: the node and the ``d13/v1`` YAML (D-13)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    yaml: str = Field(max_length=_TEXT)


class AnnexRequest(_Body):
    """``POST /annexes``: the node, the prose, its licence and title (D-31)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    text: str = Field(max_length=_TEXT)
    licence: str = Field(max_length=2000)
    title: str = Field(max_length=2000)
    source: dict[str, Any] | None = None


class ApproachRequest(_Body):
    """``POST /approaches``: the target and the ``approach/v1`` fields (D-14)."""

    target_id: str = Field(max_length=64)
    record: dict[str, Any]


class WitnessRequest(_Body):
    """``POST /proposals/witness``: the hole and its Witness.lean (D-29)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    witness: str = Field(max_length=_TEXT)
    attestation: Any = None


class VariantRequest(_Body):
    """``POST /proposals/variant``: a new node's statement, witness and relation (D-30)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    stmt: str = Field(max_length=_TEXT)
    witness: str = Field(max_length=_TEXT)
    declaration: str = Field(max_length=400)
    relation: Literal["resolves", "partial", "related", "refutes"] = "related"
    relation_proof: str | None = Field(None, max_length=_TEXT)
    of: str = Field("root", max_length=200)
    pertinence: str | None = Field(None, max_length=2000)
    attestation: Any = None


class SpeculativeRequest(_Body):
    """``POST /proposals/speculative``: a crux statement and its witness (D-14)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    stmt: str = Field(max_length=_TEXT)
    witness: str = Field(max_length=_TEXT)
    declaration: str = Field(max_length=400)
    attestation: Any = None


class DefectRequest(_Body):
    """``POST /defects``: class, line and claim against a node's statement (D-16)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    defect_class: str = Field(alias="class", max_length=60)
    line: int
    claim: str = Field(max_length=100_000)
    exhibit: str | None = Field(None, max_length=400)


class RevisionRequestBody(_Body):
    """``POST /revision-requests``: operation and evidence (D-8)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    operation: str = Field(max_length=40)
    evidence: str = Field(max_length=100_000)
    proposed_statement_sha256: str | None = Field(None, max_length=64)


class GlossRequest(_Body):
    """``POST /glosses``: one gloss or explainer version (D-3 v3.30/v3.31/v3.32/v3.44)."""

    subject: str = Field(max_length=400)
    text: str | None = Field(None, max_length=100_000)
    sections: list[dict[str, Any]] | None = None
    label: str | None = Field(None, max_length=200)
    licence: str | None = Field(None, max_length=2000)
    supersedes: str | None = Field(None, max_length=400)
    kind: str | None = Field(None, max_length=20)
    drafted_with: list[str] | None = None
    dry_run: bool = False
    amends: str | None = Field(None, max_length=64)


class WithdrawalRequest(_Body):
    """``POST /glosses/withdrawals``: the version withdrawn and why (D-3 v3.30)."""

    record: str = Field(max_length=400)
    reason: str = Field(max_length=2000)


class CheckRequest(_Body):
    """``POST /check``: Lean text for the hosted checker (D-4 v3.14)."""

    target_id: str = Field(max_length=64)
    node_id: str | None = Field(None, max_length=200)
    content: str = Field(max_length=_TEXT)
    mode: Literal["check", "verify"] = "check"


def _optional_caller(request: Request) -> Caller:
    """The caller of a route anonymous callers may use: a presented token is checked
    (a wrong one is refused) before the body is read; none means anonymous."""
    token = deps.bearer(request)
    caller = Caller(token=token, address=deps.address(request))
    who: Who | None = authenticate(request.app.state.svc, token, caller.address_hash) \
        if token else None
    return Caller(token=token, address=caller.address, who=who)


MaybeBearer = Annotated[Caller, Depends(_optional_caller)]


def install(app: FastAPI, svc: Service) -> None:
    """Add the record-write, words, check, schema and words-needed routes to ``app``."""
    bearer = {"x-auth": "bearer"}
    none = {"x-auth": "none"}

    @app.post("/postmortems", openapi_extra=bearer, status_code=201)
    @marks(records.submit_postmortem, "bearer")
    def postmortems(c: Bearer, body: PostmortemRequest) -> dict[str, Any]:
        """Open a pull request appending a schema-checked D-13 postmortem to attempts/."""
        return records.submit_postmortem(svc, c, target=body.target_id, node=body.node_id,
                                         yaml_text=body.yaml)

    @app.post("/annexes", openapi_extra=bearer, status_code=201)
    @marks(records.submit_informal_annex, "bearer")
    def annexes(c: Bearer, body: AnnexRequest) -> dict[str, Any]:
        """Open a pull request attaching a content-hashed informal annex; returns its hash."""
        return records.submit_informal_annex(svc, c, target=body.target_id,
                                             node=body.node_id, text=body.text,
                                             licence=body.licence, title=body.title,
                                             source=body.source)

    @app.post("/approaches", openapi_extra=bearer, status_code=201)
    @marks(records.submit_approach_record, "bearer")
    def approaches(c: Bearer, body: ApproachRequest) -> dict[str, Any]:
        """Open a pull request appending a target-scoped D-14 approach record."""
        return records.submit_approach_record(svc, c, target=body.target_id,
                                              record=body.record)

    @app.post("/proposals/witness", openapi_extra=bearer, status_code=201)
    @marks(records.propose_witness, "bearer")
    def proposals_witness(c: Bearer, body: WitnessRequest) -> dict[str, Any]:
        """Open a pull request adding the Witness.lean of a blocked hole (D-29)."""
        return records.propose_witness(svc, c, target=body.target_id, node=body.node_id,
                                       witness=body.witness, attestation=body.attestation)

    @app.post("/proposals/variant", openapi_extra=bearer, status_code=201)
    @marks(records.propose_variant, "bearer")
    def proposals_variant(c: Bearer, body: VariantRequest) -> dict[str, Any]:
        """Open a pull request creating a labelled variant node with its relation (D-30)."""
        return records.propose_variant(
            svc, c, target=body.target_id, node=body.node_id, statement=body.stmt,
            witness=body.witness, declaration=body.declaration, relation=body.relation,
            relation_proof=body.relation_proof, of=body.of, pertinence=body.pertinence,
            attestation=body.attestation)

    @app.post("/proposals/speculative", openapi_extra=bearer, status_code=201)
    @marks(records.propose_speculative_node, "bearer")
    def proposals_speculative(c: Bearer, body: SpeculativeRequest) -> dict[str, Any]:
        """Open a pull request entering a crux statement as a speculative node (D-14)."""
        return records.propose_speculative_node(
            svc, c, target=body.target_id, node=body.node_id, statement=body.stmt,
            witness=body.witness, declaration=body.declaration, attestation=body.attestation)

    @app.post("/defects", openapi_extra=bearer, status_code=201)
    @marks(records.file_defect_claim, "bearer")
    def defects(c: Bearer, body: DefectRequest) -> dict[str, Any]:
        """Open a pull request appending a D-16 defect claim (class, line, claim)."""
        return records.file_defect_claim(svc, c, target=body.target_id, node=body.node_id,
                                         defect_class=body.defect_class, line=body.line,
                                         claim=body.claim, exhibit=body.exhibit)

    @app.post("/revision-requests", openapi_extra=bearer, status_code=201)
    @marks(records.file_revision_request, "bearer")
    def revision_requests(c: Bearer, body: RevisionRequestBody) -> dict[str, Any]:
        """Open a pull request appending a D-8 revision request."""
        return records.file_revision_request(
            svc, c, target=body.target_id, node=body.node_id, operation=body.operation,
            evidence=body.evidence, proposed_statement_sha256=body.proposed_statement_sha256)

    @app.post("/glosses", openapi_extra=bearer, status_code=201)
    @marks(words.submit_gloss, "bearer")
    def glosses(c: BearerOrSession, body: GlossRequest) -> dict[str, Any]:
        """Open a pull request appending a gloss or explainer version (dry_run, amends)."""
        return words.submit_gloss(
            svc, c, subject=body.subject, text=body.text, sections=body.sections,
            label=body.label, licence=body.licence, supersedes=body.supersedes,
            kind=body.kind, drafted_with=body.drafted_with, dry_run=body.dry_run,
            amends=body.amends)

    @app.post("/glosses/withdrawals", openapi_extra=bearer, status_code=201)
    @marks(words.withdraw_gloss, "bearer")
    def glosses_withdrawals(c: BearerOrSession, body: WithdrawalRequest) -> dict[str, Any]:
        """Open a pull request withdrawing one gloss or explainer version (D-3 v3.30)."""
        return words.withdraw_gloss(svc, c, record=body.record, reason=body.reason)

    @app.post("/check", openapi_extra=none)
    @marks(checks.check_lean)
    def check(c: MaybeBearer, body: CheckRequest) -> dict[str, Any]:
        """Forward Lean text to the hosted fast checker; non-authoritative (D-4 v3.14)."""
        return checks.check_lean(svc, c, target=body.target_id, node=body.node_id,
                                 content=body.content, mode=body.mode)

    @app.get("/checks/{check_id}", openapi_extra=bearer)
    @marks(checks.get_check, "bearer")
    def check_record(c: Bearer, check_id: str) -> dict[str, Any]:
        """Your own record of one check_lean call: hash, size, where and how it ended."""
        return checks.get_check(svc, c, check_id=check_id)

    @app.get("/words-needed.json", openapi_extra=none)
    @marks(words.list_words_needed)
    def words_needed(request: Request, target_id: str | None = None,
                     kind: str | None = None) -> Response:
        """Every Lean file and merged proof lacking words, with the open PR writing one."""
        return read_response(request, svc, words.list_words_needed(svc, target_id, kind))

    @app.get("/schemas/{name}/{version}.json", openapi_extra=none)
    @marks(records.get_schema)
    def schema(request: Request, name: str, version: str) -> Response:
        """One published JSON Schema by kind (or D-28 name) and version."""
        return read_response(request, svc, records.get_schema(svc, name, version))
