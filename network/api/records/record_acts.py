"""HTTP routes of literature, shelving, registrations and the person's own page (D-25
v3.35/v3.45, D-14 v3.47, D-10 v3.37, D-32 v3.35/v3.47, D-35; issue 13).

* ``POST /literature`` (tool ``propose_literature``): a bearer token, or a web session —
  the same ledger identity either way (D-35).
* ``POST /literature/confirm`` (tool ``confirm_literature``) and ``POST /registrations``
  (tool ``register_target``): a person's act on a web session; the MCP tool exists (D-35
  lists it) and answers ``role-act-needs-session``.
* ``POST /shelvings``, ``POST /pertinence-signatures`` (D-30 v3.12) and ``GET /me``: a
  person's, no tool (``tools.NO_TOOL``).
* ``POST /status-records`` (D-33), ``POST /withdrawals`` (D-18 v3.27) and ``POST
  /corrections`` (D-19 v3.27): a listed curator's acts on a web session, no tool
  (:mod:`network.api.records.registrations`; issue 40).

Each handler is a thin shell over the one operation function (``network/api/tools.py``);
:func:`install` adds them to the app :func:`network.api.app.create_app` builds.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from network.api import deps
from network.api.deps import marks
from network.api.people import display_names, me, web_session
from network.api.records import literature, pertinence, registrations, shelving
from network.api.service import Caller, Service
from network.errors import LemmataError


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LiteratureRequest(_Body):
    """``POST /literature``: a proposed literature status of a node (D-25 v3.35)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    status: str = Field(max_length=40)
    summary: str = Field(max_length=100_000)
    references: list[dict[str, Any]] | None = Field(None, max_length=100)


class DisplayNameRequest(_Body):
    """``POST /me/name``: the caller's own display name and link (D-3 v3.37); no name
    withdraws the last one."""

    name: str | None = Field(None, max_length=200)
    link: str | None = Field(None, max_length=500)


class LiteratureConfirmRequest(_Body):
    """``POST /literature/confirm``: a signed reading of a literature record (v3.35/v3.45)."""

    literature: str = Field(max_length=400)
    action: Literal["confirm", "correct", "dispute"]
    status: str | None = Field(None, max_length=40)
    summary: str | None = Field(None, max_length=100_000)
    references: list[dict[str, Any]] | None = Field(None, max_length=100)


class ShelvingRequest(_Body):
    """``POST /shelvings``: shelve or lift a statement or merged decomposition (D-14 v3.47)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    action: Literal["shelved", "unshelved"]
    scope: str = Field(max_length=400)
    cause: str = Field(max_length=100_000)
    lifts: str | None = Field(None, max_length=400)


class PertinenceRequest(_Body):
    """``POST /pertinence-signatures``: sign a related variant's pertinence sentence (D-30
    v3.12); ``sentence_sha256`` is the sentence as read (get_node's ``pertinence``)."""

    target_id: str = Field(max_length=64)
    node_id: str = Field(max_length=200)
    sentence_sha256: str | None = Field(None, min_length=64, max_length=64)


class RegistrationRequest(_Body):
    """``POST /registrations``: a target's registration in a public registry (D-10 v3.37)."""

    target_id: str = Field(max_length=64)
    registry_id: str = Field(max_length=2000)
    wrapper_commit: str = Field(max_length=40)
    graph_commit: str = Field(max_length=40)
    registry: str = Field("palomar", max_length=2000)
    version: str | None = Field(None, max_length=2000)
    repository: str | None = Field(None, max_length=2000)
    state: Literal["submitted", "registered", "rejected"] = "submitted"
    proof: str | None = Field(None, max_length=400)
    attestation: str | None = Field(None, max_length=400)


class StatusRecordRequest(_Body):
    """``POST /status-records``: a curator's declaration of a target's status (D-33);
    ``starvation_series`` (dormant) is filled in from the record when omitted."""

    target_id: str = Field(max_length=64)
    declaration: Literal["active", "dormant", "known-result"]
    reasoning: str = Field(min_length=1, max_length=100_000)
    starvation_series: dict[str, Any] | None = None


class CuratorWithdrawalRequest(_Body):
    """``POST /withdrawals``: the graph path of the record a curator withdraws, and why
    (D-18 v3.27)."""

    record: str = Field(min_length=1, max_length=400)
    reason: str = Field(min_length=1, max_length=2000)


class CorrectionRequest(_Body):
    """``POST /corrections``: the ledger line corrected, who should be credited (none:
    nobody) and why (D-19 v3.27)."""

    line: str = Field(min_length=1, max_length=400)
    should_be: str | None = Field(None, max_length=39)
    reason: str = Field(min_length=1, max_length=2000)


@dataclass(frozen=True)
class Acting:
    """Who acts on a route that takes a bearer token or a web session: the caller, and
    the person when it came on a web session."""

    caller: Caller
    person: web_session.Person | None


def _bearer_or_person(request: Request) -> Acting:
    """A bearer token when one is presented (checked first, as every bearer route does),
    else the web session (:func:`network.api.people.web_session.person`, or the override the app
    holds for it).

    Raises:
        LemmataError: ``token-missing`` (neither); ``token-invalid``; ``token-expired``;
            the session's own refusals other than ``session-missing``.
    """
    if deps.bearer(request) is not None:
        return Acting(deps.bearer_caller(request), None)
    fn = request.app.dependency_overrides.get(web_session.person, web_session.person)
    try:
        p = fn(request) if inspect.signature(fn).parameters else fn()
    except LemmataError as exc:
        if exc.code != "session-missing":
            raise
        raise LemmataError("token-missing", "no bearer token was presented, and no web "
                           "session") from exc
    return Acting(p.caller, p)


BearerOrPerson = Annotated[Acting, Depends(_bearer_or_person)]
web_session.SESSION_DEPENDENCIES.add(_bearer_or_person)  # the site's CORS reaches them


def install(app: FastAPI, svc: Service) -> None:
    """Add the literature, shelving, registration and ``/me`` routes to ``app``."""
    bearer = {"x-auth": "bearer"}
    session = {"x-auth": "session"}

    @app.post("/literature", openapi_extra=bearer, status_code=201)
    @marks(literature.propose_literature, "bearer")
    def literature_propose(a: BearerOrPerson, body: LiteratureRequest) -> dict[str, Any]:
        """Open a pull request appending a literature proposal for the target's stewards."""
        return literature.propose_literature(
            svc, a.caller, target=body.target_id, node=body.node_id, status=body.status,
            summary=body.summary, references=body.references, person=a.person)

    @app.post("/me/name", openapi_extra=bearer, status_code=201)
    @marks(display_names.set_display_name, "bearer")
    def me_name(a: BearerOrPerson, body: DisplayNameRequest) -> dict[str, Any]:
        """Open a pull request writing names/<pseudonym>.yaml for the caller alone."""
        return display_names.set_display_name(svc, a.caller, name=body.name, link=body.link,
                                              person=a.person)

    @app.post("/literature/confirm", openapi_extra=session, status_code=201)
    @marks(literature.confirm_literature, "session")
    def literature_confirm(p: web_session.PersonDep,
                           body: LiteratureConfirmRequest) -> dict[str, Any]:
        """Open a pull request appending a steward's or curator's signed literature reading."""
        return literature.confirm_literature(
            svc, p.caller, literature=body.literature, action=body.action,
            status=body.status, summary=body.summary, references=body.references, person=p)

    @app.post("/shelvings", openapi_extra=session, status_code=201)
    @marks(shelving.file_shelving, "session")
    def shelvings(p: web_session.PersonDep, body: ShelvingRequest) -> dict[str, Any]:
        """Open a pull request appending a steward's or curator's signed shelving record."""
        return shelving.file_shelving(svc, p, target=body.target_id, node=body.node_id,
                                      action=body.action, scope=body.scope,
                                      cause=body.cause, lifts=body.lifts)

    @app.post("/pertinence-signatures", openapi_extra=session, status_code=201)
    @marks(pertinence.sign_pertinence, "session")
    def pertinence_signatures(p: web_session.PersonDep,
                              body: PertinenceRequest) -> dict[str, Any]:
        """Open a pull request appending a steward's or curator's signature on a related
        variant's pertinence sentence (D-30 v3.12)."""
        return pertinence.sign_pertinence(svc, p, target=body.target_id, node=body.node_id,
                                          sentence_sha256=body.sentence_sha256)

    @app.post("/registrations", openapi_extra=session, status_code=201)
    @marks(registrations.register_target, "session")
    def registrations_post(p: web_session.PersonDep,
                           body: RegistrationRequest) -> dict[str, Any]:
        """Open a pull request appending a signed registration record of the target."""
        return registrations.register_target(
            svc, p.caller, target=body.target_id, registry_id=body.registry_id,
            wrapper_commit=body.wrapper_commit, graph_commit=body.graph_commit,
            registry=body.registry, version=body.version, repository=body.repository,
            state=body.state, proof=body.proof, attestation=body.attestation, person=p)

    @app.post("/status-records", openapi_extra=session, status_code=201)
    @marks(registrations.file_status_record, "session")
    def status_records(p: web_session.PersonDep, body: StatusRecordRequest) -> dict[str, Any]:
        """Open a pull request appending a curator's signed status declaration (D-33)."""
        return registrations.file_status_record(
            svc, p, target=body.target_id, declaration=body.declaration,
            reasoning=body.reasoning, starvation_series=body.starvation_series)

    @app.post("/withdrawals", openapi_extra=session, status_code=201)
    @marks(registrations.file_withdrawal, "session")
    def withdrawals(p: web_session.PersonDep,
                    body: CuratorWithdrawalRequest) -> dict[str, Any]:
        """Open a pull request appending a curator's signed withdrawal of a record (D-18
        v3.27)."""
        return registrations.file_withdrawal(svc, p, record=body.record, reason=body.reason)

    @app.post("/corrections", openapi_extra=session, status_code=201)
    @marks(registrations.file_correction, "session")
    def corrections(p: web_session.PersonDep, body: CorrectionRequest) -> dict[str, Any]:
        """Open a pull request adding a curator's signed correction of a ledger line (D-19
        v3.27)."""
        return registrations.file_correction(svc, p, line=body.line, reason=body.reason,
                                             should_be=body.should_be)

    @app.get("/me", openapi_extra=session)
    @marks(me.me, "session")
    def me_page(p: web_session.PersonDep) -> dict[str, Any]:
        """The signed-in person's pseudonym, login, roles and what waits for them."""
        return me.me(svc, p)
