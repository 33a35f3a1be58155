"""Web sessions: a person signed in with GitHub on the network's own site (D-35 v3.33,
issue 13).

The person routes (stewards, approvals, reviews of held proofs, the panel, literature
readings, shelvings, registrations) take a :class:`Person` through :data:`PersonDep`; only a
person may hold these roles, so none of them is an MCP tool (D-35's "no tool" rows). The
words routes (``POST /glosses``, ``POST /glosses/withdrawals``) take a bearer token *or* a
session (:data:`BearerOrSession`).

How a person gets a session:

* **GitHub sign-in** (the OAuth web flow, through authlib's httpx client):
  ``GET /auth/github/start?return_to=<page of the site>`` stores a single-use, ten-minute
  ``state`` (hashed) with a PKCE verifier and a browser binding, sets the binding as the
  ``lemmata_oauth`` cookie and redirects to GitHub's ``/authorize``;
  ``GET /auth/github/callback?code&state`` spends the state (it must come back to the
  browser that started it), exchanges the code at ``/access_token``, asks
  ``GET <github_api_url>/user`` for the login and opens the session. The login is always
  the same ledger identity as its bearer token (D-35): the identity whose ``github_key`` is
  the login. A login bound to none gets a session that ``needs_pseudonym``; ``POST
  /session/pseudonym`` then creates its one identity and files the signed binding record
  ``identities/<pseudonym>.yaml`` as a pull request (ruling 9).
* **An operator's link** (``lemmata session link --pseudonym P``, ruling 14): a one-time
  URL ``<public_url>/auth/link?token=...`` that opens a session for an existing identity,
  for ``make run`` where no GitHub app is configured. The command also files an
  operator-made identity's binding (network/api/people/identity_records.py), so the roles the
  graph gives P are its (issue 40); every refusal that sends a person to sign in names
  the way this network has (:func:`network.api.identity.session_store.way_in`).

The session is a 256-bit random id in the ``lemmata_session`` cookie, stored hashed:
``HttpOnly`` (no script reads it), ``Secure`` (browsers accept Secure cookies on
``http://127.0.0.1`` and ``http://localhost``, potentially trustworthy origins, so it is
never dropped), ``SameSite=Strict`` and host-only on the service's host, ``session_hours``
(8) long. Strict is enough: the site and the service are the same site (same scheme and
registrable domain; ports do not count), so the site's fetches carry it, while a link or
form from any other site does not. Only the short-lived ``lemmata_oauth`` binding cookie
is ``SameSite=Lax`` (path ``/auth/``): it must ride on GitHub's top-level redirect back
to the callback, which is a cross-site navigation (Lax sends it on a top-level GET,
Strict would not), and it is what stops a sign-in started in another browser (login
CSRF) from landing here.

Every request a session authenticates must carry an ``Origin`` equal to
``settings.site_origin`` (a write without ``Origin`` is refused) and a single-use CSRF token
``X-CSRF-Token`` that ``GET /session`` issued for that session. Cross-origin reads of
these routes are allowed only to the site (:class:`SiteCors`).

This module holds the dependencies (:func:`person`, :func:`bearer_or_session`,
:func:`session_write`), the session routes and their CORS; the session's stored form is
:mod:`network.api.identity.session_store`'s and the sign-in flows :mod:`network.api.people.sign_in`'s, and
every name of both is re-exported here.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from network.api import db, deps
from network.api.deps import marks
from network.api.identity.session_store import (  # re-exported: the session's stored form
    COOKIE,
    CSRF_HEADER,
    CSRF_KEEP,
    LINK_TTL_S,
    LOGIN_RE,
    OAUTH_COOKIE,
    STATE_TTL_S,
    Person,
    _Open,
    _origin_of,
    _retired,
    _svc,
    _who,
    check_return_to,
    end_sessions_of,
    site_origin,
    way_in,
)
from network.api.people.sign_in import (  # re-exported: the sign-in flows
    finish_sign_in,
    issue_sign_in_link,
    open_link,
    start_sign_in,
)
from network.api.service import Caller, Service, Who, iso, rate_hit, sha256_hex
from network.errors import LemmataError, define, define_once

__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "CSRF_KEEP",
    "LINK_TTL_S",
    "LOGIN_RE",
    "OAUTH_COOKIE",
    "SESSION_CODES",
    "SESSION_DEPENDENCIES",
    "SESSION_PATHS",
    "STATE_TTL_S",
    "BearerOrSession",
    "Person",
    "PersonDep",
    "PseudonymRequest",
    "SessionWrite",
    "SiteCors",
    "bearer_or_session",
    "check_return_to",
    "choose_pseudonym",
    "end_session",
    "end_sessions_of",
    "finish_sign_in",
    "install",
    "issue_sign_in_link",
    "open_link",
    "person",
    "roles_of",
    "session_view",
    "session_write",
    "site_origin",
    "start_sign_in",
    "uses_session",
    "way_in",
]

define_once("session-missing", None, 401,
            "This route is a person's act and needs a web session on the network's site "
            "(D-35 v3.33, ruling 14).",
            "Sign in on the site: with GitHub (its Sign in link) where GET /info.json says "
            "github_sign_in true, else through the one-time link the network's operator "
            "prints (`lemmata session link --pseudonym NAME`); then act from the page. An "
            "agent cannot hold a steward's or curator's role.")
define("session-invalid", None, 401,
       "The session cookie names no session the service opened, or one that was ended "
       "(POST /session/end, or the operator's revocation).",
       "Sign in again on the site.")
define("session-expired", None, 401,
       "The web session is older than its published length (settings.session_hours, "
       "eight hours by default; D-35 v3.33).",
       "Sign in again on the site.")
define("session-cross-origin", None, 403,
       "A request carrying a web session came from another origin than the network's site, "
       "or a write carried no Origin at all (D-35 v3.33: accepted only from the site's own "
       "origin).",
       "Act from the network's site; GET /info.json names it. Scripts and agents use a "
       "bearer token instead.")
define("csrf-missing", None, 403,
       "A write on a web session carried no X-CSRF-Token header, or one GET /session never "
       "issued for this session.",
       "Call GET /session and send its csrf_token as X-CSRF-Token with the next write.")
define("csrf-replayed", None, 403,
       "The X-CSRF-Token was already spent by an earlier write: each token is good for one.",
       "Call GET /session for a fresh csrf_token before each act.")
define("session-needs-pseudonym", None, 409,
       "The GitHub login signed in holds no identity yet, so it cannot act.",
       "Choose a pseudonym: POST /session/pseudonym {pseudonym, dco}.")

def _read_session(svc: Service, request: Request) -> _Open:
    """The live session the request's cookie names; a login's identity is looked up by
    the login each time (the login is the identity, D-35), so a token issued to it after
    sign-in is the same identity.

    Raises:
        LemmataError: ``session-missing``; ``session-invalid``; ``session-expired``;
            ``session-identity-retired``.
    """
    raw = request.cookies.get(COOKIE)
    if not raw:
        raise LemmataError("session-missing", f"{request.method} {request.url.path} needs a "
                           f"web session: {way_in(svc)}")
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row = s.execute(select(db.WebSessionRow).where(
            db.WebSessionRow.session_hash == sha256_hex(raw))).scalar_one_or_none()
        if row is None or row.ended_at is not None:
            raise LemmataError("session-invalid", "no open session has this cookie")
        if now >= row.expires_at:
            raise LemmataError("session-expired", f"the session ended at "
                               f"{iso(row.expires_at)}")
        ident = None
        if row.identity_id is not None:
            ident = s.get(db.IdentityRow, row.identity_id)
        elif row.github_login is not None:
            ident = s.execute(select(db.IdentityRow).where(
                db.IdentityRow.github_key == row.github_login.casefold())
            ).scalar_one_or_none()
            if ident is not None:
                row.identity_id = ident.id
        if ident is not None and _retired(s, ident.id):
            raise LemmataError("session-identity-retired", f"{ident.pseudonym} was retired "
                               "by the operator")
        return _Open(row.id, _who(ident) if ident is not None else None, row.github_login,
                     row.expires_at)


def _check_origin(svc: Service, request: Request, *, write: bool) -> None:
    """Refuse a session request from another origin; a write must name its origin.

    Raises:
        LemmataError: ``session-cross-origin``.
    """
    origin = request.headers.get("origin")
    if origin is None and not write:
        return
    if origin is None or _origin_of(origin) != site_origin(svc) or origin.endswith("/"):
        raise LemmataError("session-cross-origin", f"Origin {origin!r} is not "
                           f"{site_origin(svc)}")


def _spend_csrf(svc: Service, request: Request, session_id: int) -> None:
    """Spend the request's single-use CSRF token of this session.

    Raises:
        LemmataError: ``csrf-missing``; ``csrf-replayed``.
    """
    token = (request.headers.get(CSRF_HEADER) or "").strip()
    if not token:
        raise LemmataError("csrf-missing", "no X-CSRF-Token header")
    digest = sha256_hex(token)
    with db.transaction(svc.sessions) as s:
        res = s.execute(update(db.CsrfTokenRow).where(
            db.CsrfTokenRow.token_hash == digest, db.CsrfTokenRow.session_id == session_id,
            db.CsrfTokenRow.used_at.is_(None)).values(used_at=svc.now()))
        if getattr(res, "rowcount", 0) == 1:
            return
        used = s.execute(select(db.CsrfTokenRow.used_at).where(
            db.CsrfTokenRow.token_hash == digest,
            db.CsrfTokenRow.session_id == session_id)).scalar_one_or_none()
    if used is not None:
        raise LemmataError("csrf-replayed", f"this token was spent at {iso(used)}")
    raise LemmataError("csrf-missing", "this X-CSRF-Token was not issued for this session")


def _session_write(request: Request) -> tuple[Service, _Open]:
    """The checks of every write a session authenticates, in order: cookie, origin,
    the address's write count, session, CSRF token (spent here)."""
    svc = _svc(request)
    if not request.cookies.get(COOKIE):
        raise LemmataError("session-missing", f"{request.method} {request.url.path} needs a "
                           f"web session: {way_in(svc)}")
    _check_origin(svc, request, write=True)
    rate_hit(svc, f"address:{sha256_hex(deps.address(request))}:writes",
             svc.settings.rate_writes_per_address)
    opened = _read_session(svc, request)
    _spend_csrf(svc, request, opened.id)
    return svc, opened


#: Methods of a person route that read (``GET /me``): a session and an origin, no CSRF
#: token spent, since they change nothing (the answer is readable only by the site's
#: origin, under CORS).
_SAFE_METHODS = frozenset({"GET", "HEAD"})


def _session_read(request: Request) -> tuple[Service, _Open]:
    """The checks of a person route's read: cookie, origin (when sent), session."""
    svc = _svc(request)
    if not request.cookies.get(COOKIE):
        raise LemmataError("session-missing", f"{request.method} {request.url.path} needs a "
                           f"web session: {way_in(svc)}")
    _check_origin(svc, request, write=False)
    return svc, _read_session(svc, request)


# --- the dependencies -------------------------------------------------------------------


def person(request: Request) -> Person:
    """The signed-in person behind a request to a person route (D-35 v3.33).

    Accepted only with a live session cookie, an ``Origin`` equal to
    ``settings.site_origin`` and an unspent ``X-CSRF-Token`` issued for that session (it is
    spent here), for a session whose login holds an identity. A read (``GET /me``) needs
    the session and, when one is sent, the right ``Origin``, and spends no token.

    Raises:
        LemmataError: ``session-missing``; ``session-cross-origin``; ``rate-limited``;
            ``session-invalid``; ``session-expired``; ``session-identity-retired``;
            ``csrf-missing``; ``csrf-replayed``; ``session-needs-pseudonym``;
            ``pseudonym-reserved`` (the graph names the pseudonym as a role holder bound
            to another GitHub login, or to none: a squatter never acts, issue 16).
    """
    svc, opened = (_session_read(request) if request.method in _SAFE_METHODS
                   else _session_write(request))
    if opened.who is None:
        raise LemmataError("session-needs-pseudonym", f"GitHub login {opened.login} holds "
                           "no identity yet")
    from network.api.identity.pseudonyms import check_role_binding

    check_role_binding(svc, opened.who.pseudonym, opened.who.github_login)  # no squatter
    return Person(caller=Caller(token=None, address=deps.address(request), transport="web",
                                who=opened.who), login=opened.login)


PersonDep = Annotated[Person, Depends(person)]


def bearer_or_session(request: Request) -> Caller:
    """The caller of a words route: a bearer token when one is presented (checked first,
    as every token route does), else a web session under :func:`person`'s rules.

    Raises:
        LemmataError: ``token-missing`` when neither is presented; the token's codes;
            :func:`person`'s codes when a session cookie is used.
    """
    if request.headers.get("authorization") or not request.cookies.get(COOKIE):
        return deps.bearer_caller(request)
    return person(request).caller


BearerOrSession = Annotated[Caller, Depends(bearer_or_session)]


# --- roles ----------------------------------------------------------------------------


def roles_of(svc: Service, pseudonym: str) -> dict[str, list[str]]:
    """``{"curator": [target ids or "*"], "steward": [target ids]}`` for a pseudonym, read
    from the served graph (curators.json, verified standing steward records)."""
    from network.record import derive

    try:
        graph = svc.graphs.snapshot().graph
    except LemmataError:
        return {"curator": [], "steward": []}
    curated = sorted({t for c in graph.curators.curators if c.pseudonym == pseudonym
                      for t in c.targets})
    stewarded = sorted(tid for tid in graph.targets
                       if pseudonym in derive.stewards_of(graph, tid))
    return {"curator": curated, "steward": stewarded}


def _binding_holds(svc: Service, who: Who) -> bool:
    """Whether the graph's role binding lets ``who`` hold its pseudonym's roles
    (:func:`network.api.identity.pseudonyms.check_role_binding`)."""
    from network.api.identity.pseudonyms import check_role_binding

    try:
        check_role_binding(svc, who.pseudonym, who.github_login)
    except LemmataError:
        return False
    return True


# --- session operations -------------------------------------------------------------------


def session_view(svc: Service, request: Request) -> dict[str, Any]:
    """``GET /session``: who is signed in, with a fresh single-use CSRF token.

    Returns:
        ``{"signed_in": false}`` without a live session, else ``{signed_in, pseudonym,
        login, expires_at, csrf_token, roles, needs_pseudonym, dco_version}`` (``pseudonym``
        None and ``needs_pseudonym`` true while the login holds no identity;
        ``dco_version`` the DCO text POST /session/pseudonym's ``dco`` must name).

    Raises:
        LemmataError: ``session-cross-origin`` (an Origin other than the site's);
            ``session-identity-retired``.
    """
    _check_origin(svc, request, write=False)
    try:
        opened = _read_session(svc, request)
    except LemmataError as exc:
        if exc.code in ("session-missing", "session-invalid", "session-expired"):
            return {"signed_in": False}
        raise
    token = secrets.token_urlsafe(32)
    with db.transaction(svc.sessions) as s:
        s.add(db.CsrfTokenRow(session_id=opened.id, token_hash=sha256_hex(token),
                              created_at=svc.now()))
        s.flush()
        keep = select(db.CsrfTokenRow.id).where(
            db.CsrfTokenRow.session_id == opened.id, db.CsrfTokenRow.used_at.is_(None)
        ).order_by(db.CsrfTokenRow.id.desc()).limit(CSRF_KEEP)
        s.execute(delete(db.CsrfTokenRow).where(
            db.CsrfTokenRow.session_id == opened.id, db.CsrfTokenRow.used_at.is_(None),
            db.CsrfTokenRow.id.not_in(keep)))
    who = opened.who
    roles: dict[str, list[str]] = {"curator": [], "steward": []}
    if who is not None and _binding_holds(svc, who):
        roles = roles_of(svc, who.pseudonym)
    return {"signed_in": True, "pseudonym": who.pseudonym if who else None,
            "login": opened.login, "expires_at": iso(opened.expires_at),
            "csrf_token": token,
            "roles": roles,
            "needs_pseudonym": who is None,
            "dco_version": svc.settings.dco_version}


def session_write(request: Request) -> _Open:
    """The dependency of the session routes' own writes (``POST /session/end``, ``POST
    /session/pseudonym``): :func:`person`'s checks, but a login that holds no identity
    yet passes. A dependency, so it is judged before the body is read.

    Raises:
        LemmataError: :func:`person`'s codes but ``session-needs-pseudonym``.
    """
    return _session_write(request)[1]


SessionWrite = Annotated[_Open, Depends(session_write)]


def end_session(svc: Service, opened: _Open) -> dict[str, Any]:
    """``POST /session/end``: end the session (a write: origin and CSRF checked by
    :func:`session_write`)."""
    with db.transaction(svc.sessions) as s:
        s.execute(update(db.WebSessionRow).where(db.WebSessionRow.id == opened.id)
                  .values(ended_at=svc.now()))
    return {"signed_in": False}


def choose_pseudonym(svc: Service, request: Request, opened: _Open, *, pseudonym: str,
                     dco: str) -> dict[str, Any]:
    """``POST /session/pseudonym``: create the signed-in login's one identity (D-19, D-35)
    and file its signed binding ``identities/<pseudonym>.yaml`` (ruling 9).

    The D-19 rules are POST /tokens's: the current DCO, the pseudonym's syntax, reserved
    and role names (a role pseudonym only for the login its record binds), look-alikes.
    Everything the pull request needs is checked before the identity is created, and the
    identity is removed again if the pull request cannot be opened: a refused request
    writes nothing.

    Returns:
        :func:`session_view`'s answer for the session, plus ``binding``: the receipt of
        the binding's pull request (``{submission_id, pull_request, ...}``), or None when
        the graph already binds this pseudonym to this login.

    Raises:
        LemmataError: the session-write codes; ``github-login-bound`` (the login already
            holds an identity: never a second one); ``rate-limited``; ``dco-not-accepted``;
            ``pseudonym-invalid``; ``pseudonym-reserved``; ``pseudonym-confusable``;
            ``pseudonym-taken``; the binding's: ``approval-key-missing``,
            ``identity-login-bound`` and other step-2 codes, ``queue-down``,
            ``forge-not-configured``.
    """
    from network.api.identity import identity
    from network.api.people import identity_records

    login = opened.login
    if opened.who is not None or login is None:
        bound = opened.who.pseudonym if opened.who else "its operator-opened identity"
        raise LemmataError("github-login-bound", f"GitHub login {login} already holds "
                           f"pseudonym {bound}; a login has one identity")
    rate_hit(svc, f"address:{sha256_hex(deps.address(request))}:tokens",
             svc.settings.rate_token_issues_per_address)
    if dco != svc.settings.dco_version:
        raise LemmataError("dco-not-accepted", f"dco {dco!r} given; the current version is "
                           f"{svc.settings.dco_version} (GET /dco.json)")
    identity.check_pseudonym(svc, pseudonym)
    identity._check_name(svc, pseudonym, login)
    filing = identity_records.prepare_binding(svc, pseudonym, login)
    now = svc.now()
    try:
        with db.transaction(svc.sessions) as s:
            if s.execute(select(db.IdentityRow.id).where(
                    db.IdentityRow.github_key == login.casefold())).first():
                raise LemmataError("github-login-bound", f"GitHub login {login} already "
                                   "holds an identity")
            if s.execute(select(db.IdentityRow.id).where(
                    db.IdentityRow.pseudonym_key == pseudonym.casefold())).first():
                raise LemmataError("pseudonym-taken", f"{pseudonym!r} is held by another "
                                   "identity")
            ident = db.IdentityRow(pseudonym=pseudonym, pseudonym_key=pseudonym.casefold(),
                                   github_login=login, github_key=login.casefold(),
                                   proof_kind="github", created_at=now,
                                   dco_version=svc.settings.dco_version, dco_accepted_at=now)
            s.add(ident)
            s.flush()
            s.execute(update(db.WebSessionRow).where(db.WebSessionRow.id == opened.id)
                      .values(identity_id=ident.id))
            who = _who(ident)
    except IntegrityError as exc:
        raise LemmataError("pseudonym-taken", f"{pseudonym!r} or login {login} was taken "
                           "concurrently") from exc
    try:
        binding = identity_records.file_binding(svc, who, filing)
    except BaseException:
        with db.transaction(svc.sessions) as s:  # nothing half-written
            s.execute(update(db.WebSessionRow).where(db.WebSessionRow.id == opened.id)
                      .values(identity_id=None))
            s.execute(delete(db.IdentityRow).where(db.IdentityRow.id == who.id))
        raise
    out = session_view(svc, request)
    out["binding"] = binding
    return out


# --- CORS for the site ---------------------------------------------------------------------


class SiteCors:
    """ASGI middleware: cross-origin access for the site only, on the session-taking
    routes only (the session routes, every route depending on :func:`person` or
    :func:`bearer_or_session`). A request from ``settings.site_origin`` to such a route
    gets ``Access-Control-Allow-Origin: <site_origin>`` with credentials; its preflight
    (``OPTIONS``) is answered 204 here. No other origin and no other route gets a CORS
    header, so a browser shows them nothing.
    """

    METHODS = "GET, POST"
    HEADERS = "Content-Type, X-CSRF-Token"

    def __init__(self, app: ASGIApp, origin: str) -> None:
        self.app = app
        self.origin = origin
        self._routes: list[APIRoute] | None = None
        self.outer: Any = None

    def _session_routes(self, scope: Scope) -> list[APIRoute]:
        if self._routes is None:
            app = scope.get("app")
            routes = getattr(getattr(app, "router", None), "routes", [])
            self._routes = [r for r in routes if isinstance(r, APIRoute) and uses_session(r)]
        return self._routes

    def _matches(self, scope: Scope) -> bool:
        probe = {**scope, "method": "GET"}
        for r in self._session_routes(scope):
            for method in r.methods or ():
                if r.matches({**probe, "method": method})[0] is Match.FULL:
                    return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin", b"").decode("latin-1")
        if origin != self.origin or not self._matches(scope):
            await self.app(scope, receive, send)
            return
        allow = [(b"access-control-allow-origin", self.origin.encode()),
                 (b"access-control-allow-credentials", b"true"), (b"vary", b"Origin")]
        if scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            pre = Response(status_code=204, headers={
                "Access-Control-Allow-Methods": self.METHODS,
                "Access-Control-Allow-Headers": self.HEADERS,
                "Access-Control-Max-Age": "600"})
            pre.raw_headers.extend(allow)
            await pre(scope, receive, send)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *allow]}
            await send(message)

        await self.app(scope, receive, with_cors)


#: The session routes' own paths (they take the cookie without :func:`person`).
SESSION_PATHS = frozenset({"/session", "/session/end", "/session/pseudonym"})


#: The refusals of a request a session authenticates (:func:`person`), which the published
#: OpenAPI lists on every route that takes one (network/api/contract.py).
SESSION_CODES = ("session-missing", "session-cross-origin", "rate-limited", "session-invalid",
                 "session-expired", "session-identity-retired", "csrf-missing",
                 "csrf-replayed", "session-needs-pseudonym", "pseudonym-reserved")


#: Further dependencies that take a web session when no bearer token is presented (a
#: route module's own bearer-or-person dependency, e.g. ``POST /literature`` and ``POST
#: /me/name`` in network/api/records/record_acts.py, registers itself here), so :class:`SiteCors`
#: lets the site reach their routes and the contract lists the session refusals on them.
SESSION_DEPENDENCIES: set[Any] = set()


def uses_session(route: APIRoute) -> bool:
    """Whether ``route`` takes a web session: it depends on :func:`person` or
    :func:`bearer_or_session`, or is one of the session routes' own writes."""
    return route.path in SESSION_PATHS or _uses_session(route)


def _uses_session(route: APIRoute) -> bool:
    stack = [route.dependant]
    while stack:
        dep = stack.pop()
        if dep.call in (person, bearer_or_session, session_write) \
                or dep.call in SESSION_DEPENDENCIES:
            return True
        stack.extend(dep.dependencies)
    return False


# --- routes --------------------------------------------------------------------------------


class PseudonymRequest(BaseModel):
    """``POST /session/pseudonym``: the new identity's pseudonym and the accepted DCO."""

    model_config = ConfigDict(extra="forbid")
    pseudonym: str = Field(max_length=100)
    dco: str = Field(max_length=32)


def install(app: FastAPI, svc: Service) -> None:
    """Add the sign-in and session routes and the site's CORS to ``app``."""
    none = {"x-auth": "none"}
    session = {"x-auth": "session"}
    app.add_middleware(SiteCors, origin=site_origin(svc))

    @app.get("/auth/github/start", openapi_extra=none, status_code=302,
             response_class=RedirectResponse)
    @marks(None)
    def github_start(request: Request, return_to: str) -> Response:
        """Start GitHub sign-in: redirect to GitHub, returning later to a page of the site.

        Refusals: ``signin-not-configured``, ``return-to-refused``, ``rate-limited``.
        """
        return start_sign_in(svc, request, return_to)

    @app.get("/auth/github/callback", openapi_extra=none, status_code=302,
             response_class=RedirectResponse)
    @marks(None)
    def github_callback(request: Request, code: str | None = None, state: str | None = None,
                        error: str | None = None) -> Response:
        """GitHub's redirect back: open the web session and return to the site's page.

        Refusals: ``signin-not-configured``, ``oauth-state-invalid``,
        ``oauth-state-expired``, ``oauth-denied``, ``oauth-code-invalid``,
        ``proof-invalid``, ``proof-unavailable``, ``session-identity-retired``.
        """
        return finish_sign_in(svc, request, code=code, state=state, error=error)

    @app.get("/auth/link", openapi_extra=none, status_code=302,
             response_class=RedirectResponse)
    @marks(None)
    def sign_in_link(request: Request, token: str | None = None) -> Response:
        """Open the web session an operator's one-time link names (`lemmata session link`).

        Refusals: ``sign-in-link-invalid``, ``session-identity-retired``.
        """
        return open_link(svc, request, token)

    @app.get("/session", openapi_extra=none)
    @marks(None)
    def session_get(request: Request) -> JSONResponse:
        """Who is signed in on this browser, with a fresh single-use CSRF token.

        Refusals: ``session-cross-origin``, ``session-identity-retired``.
        """
        return JSONResponse(session_view(svc, request),
                            headers={"Cache-Control": "no-store"})

    @app.post("/session/end", openapi_extra=session)
    @marks(None, "session")
    def session_end(opened: SessionWrite) -> JSONResponse:
        """End this browser's web session.

        Refusals: ``session-missing``, ``session-cross-origin``, ``rate-limited``,
        ``session-invalid``, ``session-expired``, ``session-identity-retired``,
        ``csrf-missing``, ``csrf-replayed``.
        """
        resp = JSONResponse(end_session(svc, opened))
        resp.delete_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="strict")
        return resp

    @app.post("/session/pseudonym", openapi_extra=session)
    @marks(None, "session")
    def session_pseudonym(request: Request, opened: SessionWrite,
                          body: Annotated[PseudonymRequest, Body()]) -> dict[str, Any]:
        """Create the signed-in login's one identity under a pseudonym (D-19, D-35).

        Refusals: the session write's (``session-missing``, ``session-cross-origin``,
        ``rate-limited``, ``session-invalid``, ``session-expired``,
        ``session-identity-retired``, ``csrf-missing``, ``csrf-replayed``), then
        ``github-login-bound``, ``dco-not-accepted``, ``pseudonym-invalid``,
        ``pseudonym-reserved``, ``pseudonym-confusable``, ``pseudonym-taken``,
        ``approval-key-missing``, ``identity-login-bound``, ``queue-down``,
        ``forge-not-configured``.
        """
        return choose_pseudonym(svc, request, opened, pseudonym=body.pseudonym,
                                dco=body.dco)
