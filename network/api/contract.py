"""The service's published contract: the error body every refusal has, the status codes
each route can answer, and the security headers on every response (issue 16).

* :class:`ErrorBody` is what :func:`network.api.app.error_response` renders for every
  :class:`~network.errors.LemmataError` (request-validation errors included: they are the
  catalog's ``bad-request``, 422), so the OpenAPI names it, not FastAPI's default
  validation shape, which the service never returns.
* :func:`document_errors` gives each route the error statuses it can answer: those of
  the codes its operation's docstring raises (looked up in the catalog), those of the
  transport (``body-too-large`` everywhere; a bearer route's ``token-*`` and
  ``rate-limited``; ``bad-request`` where a route takes input), and 304 on cacheable reads.
* :func:`publish_input_grammar` writes into the OpenAPI the grammar the operations
  enforce on identifiers they read (target and node ids, pseudonyms, the node bundle's
  ``include`` sections, artifact types): a request the schema admits is one the service
  does not refuse as malformed, and one it refuses is one the schema excludes
  (schemathesis' positive-data and negative-data checks, issue 16). The operations still
  refuse with their own catalog codes (``bad-target-id``, ``bad-node-id``,
  ``pseudonym-invalid``, ``bad-request``): the schema only publishes their rule.
* :class:`CredentialHeaders` refuses a request carrying more than one ``Authorization``
  header (``credentials-conflict``, issue 39: which one counts is never guessed).
* :class:`SecurityHeaders` adds ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY``, ``Referrer-Policy: no-referrer`` and a Content Security
  Policy: ``default-src 'none'`` for the JSON routes, and for ``/docs`` one that admits
  exactly what FastAPI's Swagger UI page loads (its bundle and stylesheet from
  :data:`SWAGGER_CDN`, its favicon, its one inline script by hash, and the OpenAPI
  document from this origin). A response whose route set no ``Cache-Control`` (every
  per-caller read: ``/claims/mine``, ``/me``, ``/submissions/mine``, a job; every write
  and refusal) gets ``Cache-Control: no-store`` (issue 39); the cacheable reads set
  their own.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from network.api.submit.precheck import SUBMITTABLE
from network.errors import CATALOG, LemmataError
from network.ids import MAX_ID_LEN, NODE_ID_RE, PSEUDONYM_RE, TARGET_ID_RE
from network.record.words import WORDS_KINDS

#: Where FastAPI's Swagger UI page loads its script and stylesheet from.
SWAGGER_CDN = "https://cdn.jsdelivr.net"
#: Where FastAPI's Swagger UI page loads its favicon from.
SWAGGER_FAVICON_ORIGIN = "https://fastapi.tiangolo.com"

#: The policy of every response but the docs page: nothing may load, nothing may frame it.
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


class ErrorBody(BaseModel):
    """The body of every refusal: the catalog code, what happened, what to do (STYLE.md
    rule 2); ``path`` and ``field`` name the graph file and field when there is one."""

    code: str = Field(description="The catalog code (GET /errors.json lists them all).")
    detail: str = Field(description="What happened, in one or two sentences.")
    action: str = Field(description="What to do about it (the catalog's fix).")
    path: str | None = Field(None, description="The graph path concerned, if any.")
    field: str | None = Field(None, description="The field concerned, if any.")


_ERROR_REF = "#/components/schemas/ErrorBody"

_SECTIONS = "(?:annex|literature|gloss|explainer)"
_ITEM = rf"\s*{_SECTIONS}?\s*"

#: The grammar of the identifiers the operations check, by parameter or body-field name
#: (network/ids.py, network/api/identity/identity.py, network/api/reads.py): JSON Schema keywords
#: merged into each such string schema of the published OpenAPI.
INPUT_GRAMMAR: dict[str, dict[str, Any]] = {
    "target_id": {"pattern": f"^{TARGET_ID_RE.pattern}$", "minLength": 1, "maxLength": 64},
    "node_id": {"pattern": f"^{NODE_ID_RE.pattern}$", "minLength": 1,
                "maxLength": MAX_ID_LEN},
    "identity": {"pattern": f"^{PSEUDONYM_RE.pattern}$"},
    "include": {"pattern": f"^{_ITEM}(?:,{_ITEM})*$"},
}
INPUT_GRAMMAR["target"] = INPUT_GRAMMAR["target_id"]
INPUT_GRAMMAR["node"] = INPUT_GRAMMAR["node_id"]
INPUT_GRAMMAR["review_id"] = INPUT_GRAMMAR["target_id"]  # a review is its target's

#: Parameters and body fields whose grammar is a route's own: (path, name) → keywords.
ROUTE_GRAMMAR: dict[tuple[str, str], dict[str, Any]] = {
    ("/words-needed.json", "kind"): {"enum": list(WORDS_KINDS)},
    # issue 39: what the operations refuse with 422 the schema excludes
    ("/glosses", "subject"): {"minLength": 1},          # words-subject-invalid
    ("/glosses/withdrawals", "record"): {"minLength": 1},  # withdrawal-subject-invalid
    ("/me/name", "link"): {"pattern": "^https?://"},     # invalid-record (names/ model)
    ("/precheck", "artifact_type"): {"enum": list(SUBMITTABLE)},  # artifact-type-unsupported
}

#: The write guard's refusals (network.api.identity.pseudonyms.write_identity).
_GUARD = ("rate-limited", "token-missing", "token-invalid", "token-expired",
          "pseudonym-reserved", "dco-not-accepted")
_CODE_RE = re.compile(r"``([a-z0-9]+(?:-[a-z0-9]+)+)``")
_REASONS = {304: "Not modified: the ETag in If-None-Match is current.",
            400: "Bad request.", 401: "No valid bearer token (token-missing, token-invalid, "
            "token-expired).", 403: "Forbidden.", 404: "Not found.", 405: "Method not allowed.",
            409: "Conflict with the record or the registry.", 413: "body-too-large.",
            422: "The request does not match the route, or the record does not validate.",
            429: "rate-limited: wait Retry-After seconds.", 503: "Unavailable now; retry."}


def _statuses(route: APIRoute) -> set[int]:
    """The error statuses ``route`` can answer."""
    op = getattr(route.endpoint, "__lemmata_op__", None)
    doc = " ".join(filter(None, [getattr(op, "__doc__", None), route.endpoint.__doc__]))
    codes = {c for c in _CODE_RE.findall(doc) if c in CATALOG}
    auth = getattr(route.endpoint, "__lemmata_auth__", "none")
    if "write guard" in doc or auth == "bearer":
        codes.update(_GUARD)
    from network.api.people.web_session import SESSION_CODES, uses_session

    if uses_session(route):  # a person's route (issue 13)
        codes.update(SESSION_CODES)
    codes.add("body-too-large")
    if route.dependant.path_params or route.dependant.query_params \
            or route.dependant.body_params or route.dependant.dependencies:
        codes.add("bad-request")
    out = {CATALOG[c].http_status for c in codes}
    methods = route.methods or set()
    if methods & {"POST", "DELETE", "PUT", "PATCH"}:
        out |= {404, 409, 422, 503}  # the operations' record, forge and registry refusals
    if route.dependant.path_params:
        out.add(404)
    if "GET" in methods:
        out.add(503)  # graph-unavailable
    return {s for s in out if s >= 400}


def document_errors(app: FastAPI) -> None:
    """Set every API route's documented responses: each error status it can answer with
    :class:`ErrorBody` (this replaces FastAPI's own 422 shape), ``Retry-After`` on 429,
    ``WWW-Authenticate`` on 401, and 304 on unauthenticated GET reads."""
    for route in app.routes:
        if not isinstance(route, APIRoute):
            continue
        responses: dict[int | str, dict[str, Any]] = dict(route.responses)
        for status in sorted(_statuses(route)):
            entry: dict[str, Any] = {"description": _REASONS.get(
                status, "Refused; the body names the catalog code."),
                "content": {"application/json": {"schema": {"$ref": _ERROR_REF}}}}
            if status == 429:
                entry["headers"] = {"Retry-After": {"schema": {"type": "integer"},
                                                    "description": "Seconds to wait."}}
            if status == 401:
                entry["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
            responses.setdefault(status, entry)
        if "GET" in (route.methods or set()) and (route.openapi_extra or {}).get(
                "x-auth") == "none":
            responses.setdefault(304, {"description": _REASONS[304]})
        route.responses = responses
    app.openapi_schema = None
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = plain()
            schemas = spec.setdefault("components", {}).setdefault("schemas", {})
            schemas["ErrorBody"] = ErrorBody.model_json_schema(
                ref_template="#/components/schemas/{model}")
            publish_input_grammar(spec)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _constrain(schema: dict[str, Any], rule: dict[str, Any]) -> None:
    """Merge ``rule`` into the string branch(es) of ``schema`` (a plain string schema, an
    ``anyOf`` with null for an optional one, or an array of strings)."""
    if schema.get("type") == "string":
        schema.update(rule)
    elif schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        _constrain(schema["items"], rule)
    for branch in schema.get("anyOf", []):
        if isinstance(branch, dict):
            _constrain(branch, rule)


def publish_input_grammar(spec: dict[str, Any]) -> None:
    """Write :data:`INPUT_GRAMMAR` into ``spec`` (an OpenAPI document, changed in place):
    into every parameter so named, and every property so named of the schemas request
    bodies refer to (:data:`ROUTE_GRAMMAR` first for a route's own name)."""
    schemas = spec.get("components", {}).get("schemas", {})
    for path, item in spec.get("paths", {}).items():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for param in op.get("parameters", []):
                rule = ROUTE_GRAMMAR.get((path, param.get("name"))) or INPUT_GRAMMAR.get(
                    param.get("name"))
                if rule is not None and isinstance(param.get("schema"), dict):
                    _constrain(param["schema"], rule)
            content = op.get("requestBody", {}).get("content", {})
            for media in content.values():
                ref = media.get("schema", {}).get("$ref", "")
                model = schemas.get(ref.rsplit("/", 1)[-1]) if ref else None
                if not isinstance(model, dict):
                    continue
                for name, prop in model.get("properties", {}).items():
                    rule = ROUTE_GRAMMAR.get((path, name)) or INPUT_GRAMMAR.get(name)
                    if rule is not None and isinstance(prop, dict):
                        _constrain(prop, rule)


def inline_script_hashes(html: str) -> str:
    """``'sha256-…'`` sources for every inline ``<script>`` of ``html`` (a CSP
    ``script-src`` list)."""
    scripts = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    return " ".join("'sha256-" + base64.b64encode(hashlib.sha256(x.encode()).digest()).decode()
                    + "'" for x in scripts)


def docs_csp(html: str) -> str:
    """The Content Security Policy of the ``/docs`` page ``html``: Swagger UI's bundle and
    stylesheet from :data:`SWAGGER_CDN`, its favicon, its own inline scripts by hash (read
    from the page served, so a FastAPI upgrade or a proxy's root path cannot break it),
    the OpenAPI document from this origin; nothing else loads, nothing may frame it."""
    return (f"default-src 'none'; script-src {SWAGGER_CDN} {inline_script_hashes(html)}; "
            f"style-src {SWAGGER_CDN}; img-src {SWAGGER_FAVICON_ORIGIN} data:; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP response.

    Args:
        app: the wrapped application.
        docs_paths: paths of HTML documentation pages (``/docs``): their response is
            held until complete and gets :func:`docs_csp` of its own body; every other
            response gets :data:`API_CSP`.
    """

    def __init__(self, app: ASGIApp, docs_paths: tuple[str, ...] = ("/docs",)) -> None:
        self.app = app
        self.docs_paths = docs_paths

    @staticmethod
    def _headers(message: Message, csp: str) -> Message:
        headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OURS]
        headers += [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"content-security-policy", csp.encode())]
        if not any(k.lower() == b"cache-control" for k, _ in headers):
            headers.append((b"cache-control", b"no-store"))  # per-caller answers (issue 39)
        return {**message, "headers": headers}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path", "") not in self.docs_paths:
            async def plain(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = self._headers(message, API_CSP)
                await send(message)

            await self.app(scope, receive, plain)
            return
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                body = b"".join(m.get("body", b"") for m in held[1:])
                await send(self._headers(held[0], docs_csp(body.decode("utf-8", "replace"))))
                await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, hold)


_OURS = {b"x-content-type-options", b"x-frame-options", b"referrer-policy",
         b"content-security-policy"}


class CredentialHeaders:
    """ASGI middleware refusing an HTTP request with more than one ``Authorization``
    header, before any route reads one (``credentials-conflict``, 400; issue 39).

    Args:
        app: the wrapped application.
        render: turns the refusal into the response (network.api.app.error_response).
    """

    def __init__(self, app: ASGIApp, render: Any) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            count = sum(1 for k, _ in scope.get("headers") or [] if k.lower() == b"authorization")
            if count > 1:
                resp = self.render(LemmataError(
                    "credentials-conflict", f"{count} Authorization headers were sent; "
                    "send exactly one"))
                await resp(scope, receive, send)
                return
        await self.app(scope, receive, send)
