"""The protocol service's HTTP app (D-35) with the MCP adapter mounted at ``/mcp`` (D-28).

:func:`create_app` builds everything from its arguments; nothing happens at import time
(STYLE.md rule 6). Every route handler is a thin shell over the one operation function
its MCP tool also calls (the table in ``network/api/tools.py``). One exception handler
renders every :class:`~network.errors.LemmataError` as JSON ``{code, detail, action}``
with the catalog's HTTP status (STYLE.md rule 2); request-validation errors, unknown
routes and oversized bodies are mapped to catalog codes the same way.

Reads are unauthenticated and cacheable: each answers an ``ETag`` naming the graph
snapshot and the body, and ``If-None-Match`` gets ``304``. Every write route needs a
bearer token except the two by which an identity starts (:data:`UNAUTHENTICATED_WRITES`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import Body, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import sessionmaker
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from network.api import allocator, contract, db, mcp_errors, reads, tools, transport
from network.api.deps import Anon, Bearer, cached_read_response, marks, read_response
from network.api.frontier import claims, frontier_cache, frontier_page
from network.api.git import git_http
from network.api.graphs import GraphProvider
from network.api.identity import identity
from network.api.people import proof_reviews, stewards, web_session
from network.api.records import panel as panel_routes
from network.api.records import record_acts, record_routes, review_routes
from network.api.service import Clock, Service
from network.api.settings import ServiceSettings
from network.api.submit import precheck, submission_routes
from network.errors import LemmataError
from network.record.read.loader import Graph

#: Writes that need no token, and why: they are how an identity starts (D-19, D-35).
UNAUTHENTICATED_WRITES: dict[tuple[str, str], str] = {
    ("POST", "/check"): "check_lean: anonymous calls under the address limit (D-28, D-4 "
                        "v3.14); a presented token is still checked",
    ("POST", "/tokens"): "token issuance: the proof is the credential (D-35 'token issuance')",
    ("POST", "/tokens/recover"): "recovery: the operator's recovery code is the credential "
                                 "(D-19 v3.29)",
    ("POST", "/precheck"): "anonymous prechecks of the tutorial node under an address limit "
                           "(D-19, D-27, D-28 notation note 2026-09-14); other nodes need a "
                           "token, checked by the operation",
}

#: Starlette/FastAPI statuses rendered as catalog codes; 400 is FastAPI's "error parsing
#: the body" (deep JSON among them), which the catalog lists as ``bad-request`` (422).
_HTTP_CODES = {400: "bad-request", 404: "route-not-found", 405: "method-not-allowed",
               413: "body-too-large"}


def error_response(exc: LemmataError) -> JSONResponse:
    """The one rendering of an expected failure: the catalog's status and
    ``{code, detail, action, path, field}``; ``rate-limited`` adds ``Retry-After``."""
    headers = {}
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        headers["Retry-After"] = str(int(retry))
    if exc.entry.http_status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="lemmata"'
    return JSONResponse(exc.to_dict(), status_code=exc.entry.http_status, headers=headers)


class BodyLimit:
    """ASGI middleware refusing request bodies over ``max_bytes`` with ``body-too-large``:
    at once from ``Content-Length``, or while reading a body sent without one."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            resp = error_response(LemmataError(
                "body-too-large", f"Content-Length {length.decode(errors='replace')} exceeds "
                f"{self.max_bytes} bytes"))
            await resp(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise LemmataError("body-too-large", f"body exceeds {self.max_bytes} bytes")
            return message

        await self.app(scope, counted, send)


# --- request bodies ------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenRequest(_Body):
    """``POST /tokens``: pseudonym, accepted DCO version and the proof (D-19)."""

    pseudonym: str = Field(max_length=100)
    dco: str = Field(max_length=32)
    proof: dict[str, Any]


class RecoverRequest(_Body):
    """``POST /tokens/recover``: pseudonym and the operator's recovery code (D-19 v3.29)."""

    pseudonym: str = Field(max_length=100)
    recovery_code: str = Field(max_length=200)


class DcoAcceptRequest(_Body):
    """``POST /dco/accept``: the DCO version accepted (D-23 v3.37)."""

    version: str = Field(max_length=32)


class ClaimRequest(_Body):
    """``POST /claims``: the node and an optional TTL in seconds (D-25)."""

    target: str = Field(max_length=64)
    node: str = Field(max_length=200)
    ttl_s: int | None = None


class ClaimRenewRequest(_Body):
    """``POST /claims/{id}/renew``: an optional TTL in seconds from now (D-25)."""

    ttl_s: int | None = None


async def _trim_every(seconds: float) -> None:
    """Hand the C allocator's free memory back every ``seconds`` (issue 39,
    :func:`network.api.allocator.trim`), off the event loop, until cancelled."""
    while True:
        await asyncio.sleep(seconds)
        await asyncio.to_thread(allocator.trim)


def create_app(
    settings: ServiceSettings,
    *,
    graph_loader: Callable[[], Graph] | GraphProvider | None = None,
    forge: Any = None,
    toolchain: Any = None,
    github_verifier: Callable[[str], str] | None = None,
    clock: Clock | None = None,
    engine_connect_args: dict[str, Any] | None = None,
    keys: dict[str, tuple[str, Any]] | None = None,
    sandbox: Any = None,
    queue: Any = None,
) -> FastAPI:
    """Build the service: database (migrated), graph provider, routes and the MCP adapter.

    Args:
        settings: the typed configuration.
        graph_loader: a :class:`GraphProvider`, or a no-argument function returning the
            :class:`Graph` to serve; default: ``GraphProvider.for_path(settings.graph)``.
        forge: the forge adapter submissions will use (injected; unused by these routes).
        toolchain: the Lean toolchain adapter prechecks use: a Toolchain or
            ``spec -> Toolchain``; default ``detect_toolchain`` (the real adapter, else
            ``toolchain-missing``). Tests inject the recorded stand-in here.
        github_verifier: GitHub token → login, for ``proof.kind == github``; default asks
            ``settings.github_api_url``.
        clock: epoch seconds now; default ``time.time``.
        keys: kind → (key id, Ed25519 private key) of the network's keys; the ``service``
            key signs precheck attestations (D-35). ``lemmata serve``/``up`` load them
            from the data directory (network.up.ensure_keys).
        sandbox: the sandbox prechecks run in; default a fresh ``Sandbox`` (fails closed).
        queue: the merge queue's :class:`~network.api.service.QueueMonitor`; writes that
            open a pull request are refused ``queue-down`` while it says down (issue 16).
        engine_connect_args: extra DBAPI connect arguments (tests set a PostgreSQL
            search_path with them).

    Returns:
        The FastAPI app; ``app.state.svc`` is its :class:`Service` and
        ``app.state.mcp`` its MCP server.

    Raises:
        sqlalchemy.exc.OperationalError: the database cannot be reached (a deployment
            problem, reported as a bug by the CLI).
    """
    import time

    allocator.cap_arenas(settings.malloc_arena_max)  # before the service's threads start
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.resolved_database_url(), connect_args=engine_connect_args)
    db.migrate(engine)
    if graph_loader is None:
        graphs = GraphProvider.for_path(settings.graph)
    elif isinstance(graph_loader, GraphProvider):
        graphs = graph_loader
    else:
        graphs = GraphProvider(graph_loader)
    svc = Service(settings=settings, engine=engine,
                  sessions=sessionmaker(engine, expire_on_commit=False), graphs=graphs,
                  clock=clock or time.time, github_verifier=github_verifier, forge=forge,
                  toolchain=toolchain, keys=keys, sandbox=sandbox, queue=queue)
    mcp_server = tools.build_mcp(svc)
    from mcp.server.transport_security import TransportSecuritySettings

    mcp_starlette = mcp_server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=settings.mcp_allowed_hosts,
            allowed_origins=[settings.public_url.rstrip("/"), "http://127.0.0.1:*",
                             "http://localhost:*"]),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            precheck.resume_jobs(svc)
            trimming = (asyncio.create_task(_trim_every(settings.malloc_trim_s))
                        if settings.malloc_trim_s else None)
            try:
                yield
            finally:
                if trimming is not None:
                    trimming.cancel()
            precheck.pool(svc).shutdown()
        engine.dispose()

    app = FastAPI(
        title="Lemmata protocol service",
        version=reads.PROTOCOL_VERSION,
        description="Claims, tokens and reads over a Lemmata graph (D-35), with the MCP "
                    "adapter at /mcp (D-28). GET / lists every route.",
        lifespan=lifespan,
    )
    app.state.svc = svc
    app.state.mcp = mcp_server
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    # one credential per request (issue 39), refused inside the security headers
    app.add_middleware(contract.CredentialHeaders, render=error_response)
    transport.install(app)  # gzip, ETag and 304 on the product routes (issue 17)
    app.add_middleware(contract.SecurityHeaders, docs_paths=(app.docs_url or "/docs",))
    # outermost: a refusal on /mcp is a JSON-RPC error (issue 35, item 5)
    app.add_middleware(mcp_errors.McpRefusals, max_body_bytes=settings.max_body_bytes)
    _install_error_handlers(app)
    _install_routes(app, svc)
    submission_routes.install(app, svc)
    record_routes.install(app, svc)
    web_session.install(app, svc)  # GitHub sign-in and the web session (issue 13)
    record_acts.install(app, svc)  # literature, shelving, registrations, /me (issue 13)
    panel_routes.install(app, svc)  # approvals and the panel (issue 13)
    proof_reviews.install(app, svc)  # reviews of held proofs (issue 13)
    review_routes.install(app, svc)  # the formalization review (D-9 v3.39, issue 27)
    stewards.install(app, svc)  # POST /stewards, a person route (D-32 v3.33/v3.34)
    git_http.install(app, svc)  # the forge over git's smart HTTP (issue 11)
    for route in mcp_starlette.routes:
        if isinstance(route, Route) and route.path == "/mcp":
            app.router.routes.append(route)
    contract.document_errors(app)
    svc.extra["route_index"] = _build_index(app, settings)
    return app


def allowed_methods(request: Request) -> str:
    """The ``Allow`` header of a 405 (issue 39): every method some route of the app takes
    at the request's path (``HEAD`` beside ``GET``), comma-separated and sorted."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match == Match.NONE:
            continue
        methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


def _install_error_handlers(app: FastAPI) -> None:
    async def on_lemmata(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, LemmataError)
        return error_response(exc)

    async def on_validation(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()))
            problems.append(f"{loc}: {err.get('msg')}")
        return error_response(LemmataError("bad-request", "; ".join(problems) or "invalid"))

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if isinstance(exc.__cause__, LemmataError):  # raised while FastAPI read the body
            return error_response(exc.__cause__)
        code = _HTTP_CODES.get(exc.status_code)
        if code is None:
            return JSONResponse({"code": "bad-request", "detail": str(exc.detail),
                                 "action": "Check the request against GET /openapi.json."},
                                status_code=exc.status_code)
        resp = error_response(LemmataError(code, str(exc.detail)))
        if exc.status_code == 405:  # RFC 9110 §15.5.6: say which methods the path takes
            resp.headers["Allow"] = allowed_methods(request)
        return resp

    app.add_exception_handler(LemmataError, on_lemmata)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)


def _install_routes(app: FastAPI, svc: Service) -> None:
    bearer = {"x-auth": "bearer"}
    none = {"x-auth": "none"}

    # --- reads -----------------------------------------------------------------------

    @app.get("/", openapi_extra=none)
    @marks(reads.route_index)
    def index(request: Request) -> Response:
        """Every route with its method, auth and purpose, and the MCP and guide addresses."""
        return read_response(request, svc, reads.route_index(svc))

    @app.get("/info.json", openapi_extra=none)
    @marks(reads.info)
    def info(request: Request) -> Response:
        """Protocol version, gate-spec hashes, schema index and the published limits."""
        return read_response(request, svc, reads.info(svc))

    @app.get("/errors.json", openapi_extra=none)
    @marks(reads.error_codes)
    def errors(request: Request, prefix: str | None = None) -> Response:
        """The error-code catalog, optionally narrowed to a code prefix."""
        return read_response(request, svc, reads.error_codes(svc, prefix))

    @app.get("/dco.json", openapi_extra=none)
    @marks(identity.dco_info)
    def dco(request: Request) -> Response:
        """The Developer Certificate of Origin and the version a token must accept."""
        return read_response(request, svc, identity.dco_info(svc))

    @app.get("/frontier.json", openapi_extra=none)
    @marks(reads.frontier)
    def frontier(request: Request) -> Response:
        """The committed frontier with the live claim registry and the claim history
        overlaid; query parameters filter entries: `field=value`, and repeated
        `where=<field><op><value>` predicates over any field (no ranking)."""
        filters = {k: v for k, v in request.query_params.items()
                   if k not in ("where", *frontier_page.PARAMS)}
        where = tuple(request.query_params.getlist("where"))
        if frontier_page.wanted(request.query_params):  # a page (issue 17)
            return cached_read_response(request, svc, *frontier_page.render(
                svc, filters or None, where, request.query_params))
        out = frontier_cache.render(svc, filters or None, where)  # reads.frontier, cached
        return cached_read_response(request, svc, out.body, out.etag, out.snapshot)

    @app.get("/ledger.json", openapi_extra=none)
    @marks(reads.ledger)
    def ledger(request: Request, identity: Annotated[str | None, Query(max_length=200)] = None
               ) -> Response:
        """Ledger lines per identity (D-19), revoked ones shown revoked; `identity` narrows."""
        return read_response(request, svc, reads.ledger(svc, identity))

    @app.get("/hosted-checkers.json", openapi_extra=none)
    @marks(reads.hosted_checkers)
    def hosted_checkers(request: Request) -> Response:
        """Which targets the hosted fast checker serves, and whether it matches exactly."""
        return read_response(request, svc, reads.hosted_checkers(svc))

    @app.get("/targets/index.json", openapi_extra=none)
    @marks(reads.targets_index)
    def targets_index(request: Request) -> Response:
        """Every target: id, title, class, root statement hash, fidelity, pinned Mathlib."""
        return read_response(request, svc, reads.targets_index(svc))

    @app.get("/targets/{target_id}", openapi_extra=none)
    @marks(reads.target_view)
    def target(request: Request, target_id: str) -> Response:
        """A target's record, graph.json, nodes, approach records and defs/ index."""
        return read_response(request, svc, reads.target_view(svc, target_id))

    @app.get("/targets/{target_id}/defs", openapi_extra=none)
    @marks(reads.defs_view)
    def defs(request: Request, target_id: str) -> Response:
        """The target's shared definitions with text and content hashes."""
        return read_response(request, svc, reads.defs_view(svc, target_id))

    @app.get("/targets/{target_id}/gate-spec.json", openapi_extra=none)
    @marks(reads.gate_spec_view)
    def gate_spec(request: Request, target_id: str) -> Response:
        """The target's pinned gate-spec.json with its SHA-256."""
        return read_response(request, svc, reads.gate_spec_view(svc, target_id))

    @app.get("/targets/{target_id}/sufficient-sets.json", openapi_extra=none)
    @marks(reads.sufficient_sets_view)
    def sufficient_sets(request: Request, target_id: str) -> Response:
        """The target's routes with their facts, its sufficient sets and the selector tree."""
        return read_response(request, svc, reads.sufficient_sets_view(svc, target_id))

    @app.get("/registrations.json", openapi_extra=none)
    @marks(reads.registrations_view)
    def registrations(request: Request,
                      target_id: Annotated[str | None, Query(max_length=64)] = None
                      ) -> Response:
        """Every registration of a target in a public registry; `target_id` narrows."""
        return read_response(request, svc, reads.registrations_view(svc, target_id))

    @app.get("/targets/{target_id}/nodes/{node_id}", openapi_extra=none)
    @marks(reads.node_bundle)
    def node(request: Request, target_id: str, node_id: str,
             include: Annotated[list[str] | None, Query()] = None) -> Response:
        """A node's context bundle; `include` (repeatable or comma-separated) selects the
        prose sections annex, literature, gloss, explainer, outline."""
        sections = None if include is None else [
            s.strip() for item in include for s in item.split(",") if s.strip()]
        q = request.query_params  # a page of the attempt log (network/api/bundle_page.py)
        return read_response(request, svc, reads.node_bundle(svc, target_id, node_id, sections,
                                                             q.get("attempts_limit"),
                                                             q.get("attempts_cursor")))

    @app.get("/claims/mine", openapi_extra=bearer)
    @marks(claims.my_claims, "bearer")
    def claims_mine(c: Bearer) -> dict[str, Any]:
        """Your own live claims with their ids (the one read that needs a token)."""
        return claims.my_claims(svc, c)

    # --- identity --------------------------------------------------------------------

    @app.post("/tokens", openapi_extra=none, status_code=201)
    @marks(identity.issue_token)
    def tokens(c: Anon, body: TokenRequest) -> dict[str, Any]:
        """Issue a write token: pseudonym, accepted DCO version and a proof (D-19)."""
        return identity.issue_token(svc, c, pseudonym=body.pseudonym, dco=body.dco,
                                    proof=body.proof)

    @app.post("/tokens/renew", openapi_extra=bearer)
    @marks(identity.renew_token, "bearer")
    def tokens_renew(c: Bearer) -> dict[str, Any]:
        """Trade the presented token for a new one; the presented one is retired."""
        return identity.renew_token(svc, c)

    @app.post("/tokens/recover", openapi_extra=none)
    @marks(identity.recover_token)
    def tokens_recover(c: Anon, body: RecoverRequest) -> dict[str, Any]:
        """Pseudonym + recovery code: retire every token, issue a new token and code."""
        return identity.recover_token(svc, c, pseudonym=body.pseudonym,
                                      recovery_code=body.recovery_code)

    @app.post("/dco/accept", openapi_extra=bearer)
    @marks(identity.accept_dco, "bearer")
    def dco_accept(c: Bearer, body: DcoAcceptRequest) -> dict[str, Any]:
        """Record the bearer identity's acceptance of the current DCO version."""
        return identity.accept_dco(svc, c, version=body.version)

    # --- claims ----------------------------------------------------------------------

    @app.post("/claims", openapi_extra=bearer, status_code=201)
    @marks(claims.claim_node, "bearer")
    def claim(c: Bearer, body: ClaimRequest) -> dict[str, Any]:
        """Register an advisory claim with a TTL inside the published caps (D-25)."""
        return claims.claim_node(svc, c, target=body.target, node=body.node, ttl_s=body.ttl_s)

    @app.delete("/claims/{claim_id}", openapi_extra=bearer)
    @marks(claims.release_claim, "bearer")
    def release(c: Bearer, claim_id: str) -> dict[str, Any]:
        """Release your own live claim early."""
        return claims.release_claim(svc, c, claim_id=claim_id)

    @app.post("/claims/{claim_id}/renew", openapi_extra=bearer)
    @marks(claims.renew_claim, "bearer")
    def renew(c: Bearer, claim_id: str,
              body: Annotated[ClaimRenewRequest | None, Body()] = None) -> dict[str, Any]:
        """Extend your own live claim to end ttl_s seconds from now (within the caps)."""
        return claims.renew_claim(svc, c, claim_id=claim_id,
                                  ttl_s=body.ttl_s if body is not None else None)


def _build_index(app: FastAPI, settings: ServiceSettings) -> dict[str, Any]:
    by_route = tools.tool_by_route()
    rows: list[dict[str, Any]] = []
    for route in app.routes:
        path = getattr(route, "path", "")
        methods = sorted((getattr(route, "methods", None) or {"*"}) - {"HEAD"})
        if isinstance(route, APIRoute):
            auth = getattr(route.endpoint, "__lemmata_auth__", "none")
            purpose = tools.first_sentence(route.endpoint.__doc__ or "")  # whole, unwrapped
        else:
            auth = "none"
            purpose = tools.NO_TOOL.get(("GET", path)) or tools.NO_TOOL.get(("*", path), "")
        for method in methods:
            op = by_route.get((method, path))
            rows.append({
                "method": method, "path": path, "auth": auth, "purpose": purpose,
                "tool": op.tool if op else None,
                "no_tool": None if op else (tools.NO_TOOL.get((method, path))
                                            or tools.NO_TOOL.get(("*", path))),
            })
    base = settings.public_url.rstrip("/")
    return {
        "service": "lemmata",
        "protocol_version": reads.PROTOCOL_VERSION,
        "mcp": {"streamable_http": f"{base}/mcp", "stdio": "lemmata mcp"},
        "guide": "AGENTS.md at the root of the graph repository (D-27)",
        "openapi": f"{base}/openapi.json",
        "errors": f"{base}/errors.json",
        "routes": rows,
    }
