"""The HTTP routes of prechecks and submissions (D-28, D-35): thin shells over
:mod:`network.api.submit.precheck` and :mod:`network.api.submit.submissions`, whose functions the MCP
tools call too (the table in ``network/api/tools.py``).

:func:`install` is called by :func:`network.api.app.create_app` after the core routes.
``GET /submissions/mine`` is registered before ``GET /submissions/{submission_id}`` so the
literal path wins.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from network.api.deps import Anon, Bearer, marks
from network.api.service import Service
from network.api.submit import openings, precheck, submissions

#: ``POST /precheck`` needs no token for the tutorial node (D-19, D-27, D-28 notation note
#: 2026-09-14); app.UNAUTHENTICATED_WRITES lists it with this reason.
PRECHECK_WRITE_REASON = ("anonymous prechecks of the tutorial node, under an address limit: "
                         "how an MCP-only client earns its first token (D-19, D-27, D-28 "
                         "notation note 2026-09-14); any other node needs a token, and a "
                         "token presented must be valid")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PrecheckRequest(_Body):
    """``POST /precheck``: the bundle (D-28 precheck_submission)."""

    target: str = Field(max_length=64)
    node: str = Field(max_length=200)
    artifact_type: str = Field(max_length=32)
    text: str | None = Field(None, max_length=900_000)
    """The artifact's Lean text; its path is built from the artifact type."""
    files: dict[str, str] | None = None
    """Further files, relative to the node's folder (waivers/native_decide.yaml,
    h<k>.witness.lean for a partial's carried witnesses)."""


class SubmissionRequest(_Body):
    """``POST /submissions``: a passing precheck's id, or a bundle with pregate.sh's
    attestation (D-28 submit_proof)."""

    target: str | None = Field(None, max_length=64)
    node: str | None = Field(None, max_length=200)
    artifact_type: str | None = Field(None, max_length=32)
    precheck_id: str | None = Field(None, max_length=40)
    text: str | None = Field(None, max_length=900_000)
    files: dict[str, str] | None = None
    attestation: str | None = Field(None, max_length=200_000)
    title: str | None = Field(None, max_length=200)
    description: str | None = Field(None, max_length=20_000)
    disclosure: dict[str, Any] | None = None
    """The models and tooling that made the artifact: ``{method, models, framework}``
    (D-23 v3.37); the attestation records it."""


def install(app: FastAPI, svc: Service) -> None:
    """Add the precheck and submission routes to ``app``, once the record writes a
    process that is gone left ``opening`` are settled (:func:`network.api.submit.openings.start`,
    issue 39: a restart completes or clears every half-made write)."""
    openings.start(svc)
    bearer = {"x-auth": "bearer"}
    none = {"x-auth": "none"}

    @app.post("/precheck", openapi_extra=none, status_code=202)
    @marks(precheck.precheck_submission)
    def precheck_start(c: Anon, body: PrecheckRequest) -> dict[str, Any]:
        """Queue a precheck of a bundle (gate steps 1-2, 4-8 in the sandbox); returns a job id."""
        return precheck.precheck_submission(
            svc, c, target=body.target, node=body.node, artifact_type=body.artifact_type,
            text=body.text, files=body.files)

    @app.get("/precheck/{job_id}", openapi_extra=none)
    @marks(precheck.get_precheck)
    def precheck_get(job_id: str) -> dict[str, Any]:
        """A precheck job's state, diagnostics and signed attestation (poll it)."""
        return precheck.get_precheck(svc, job_id=job_id)

    @app.post("/submissions", openapi_extra=bearer, status_code=201)
    @marks(submissions.submit_proof, "bearer")
    def submission_open(c: Bearer, body: SubmissionRequest) -> dict[str, Any]:
        """Open a pull request for a prechecked artifact and claim its node (D-25, D-35)."""
        return submissions.submit_proof(
            svc, c, target=body.target, node=body.node, artifact_type=body.artifact_type,
            precheck_id=body.precheck_id, text=body.text, files=body.files,
            attestation=body.attestation, title=body.title, description=body.description,
            disclosure=body.disclosure)

    @app.get("/submissions.json", openapi_extra=none)
    @marks(submissions.list_submissions)
    def submissions_list() -> dict[str, Any]:
        """Every open pull request on the graph, in merge-queue order (ruling 12)."""
        return submissions.list_submissions(svc)

    @app.get("/submissions/mine", openapi_extra=bearer)
    @marks(submissions.my_submissions, "bearer")
    def submissions_mine(c: Bearer) -> dict[str, Any]:
        """Your own submissions: open ones with their merge-queue place, and recent ends."""
        return submissions.my_submissions(svc, c)

    @app.get("/submissions/{submission_id}", openapi_extra=none)
    @marks(submissions.get_submission)
    def submission_get(submission_id: str) -> dict[str, Any]:
        """A submission's state, queue position and attestations (poll it after submitting)."""
        return submissions.get_submission(svc, submission_id=submission_id)

    @app.delete("/submissions/{submission_id}", openapi_extra=bearer)
    @marks(submissions.withdraw_submission, "bearer")
    def submission_withdraw(c: Bearer, submission_id: str) -> dict[str, Any]:
        """Withdraw your own open submission: close its pull request unmerged."""
        return submissions.withdraw_submission(svc, c, submission_id=submission_id)
