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
  for ``make run`` where no GitHub app is configured.

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
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

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
from network.api.service import Caller, Service, Who, iso, rate_hit, sha256_hex
from network.errors import LemmataError, define, define_once

define_once("session-missing", None, 401,
            "This route is a person's act and needs a web session: sign in with GitHub on "
            "the network's site (D-35 v3.33).",
            "Sign in on the site (its Sign in link), then act from the page; an agent cannot "
            "hold a steward's or curator's role.")
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
define("session-identity-retired", None, 403,
       "The identity this login or link names was retired by the operator (`lemmata token "
       "revoke`): every token of it and every session were retired, and none is opened "
       "for it again until an operator vouches for it or its owner proves it anew.",
       "Ask the network's operator.")
define("signin-not-configured", None, 404,
       "GitHub sign-in is off on this service: no OAuth app client id is configured "
       "(LEMMATA_GITHUB_CLIENT_ID, LEMMATA_GITHUB_CLIENT_SECRET).",
       "The operator sets the GitHub OAuth app's id and secret, or opens a session for an "
       "existing identity with `lemmata session link --pseudonym NAME`.")
define("return-to-refused", None, 422,
       "return_to is not a page on the network's site (settings.site_origin): sign-in "
       "returns only there.",
       "Start sign-in from the site's own Sign in link.")
define("oauth-state-invalid", None, 403,
       "The sign-in's state is unknown, was already used, or was started in another "
       "browser (its binding cookie is missing or differs).",
       "Start sign-in again from the site, in this browser.")
define("oauth-state-expired", None, 403,
       "The sign-in took longer than ten minutes between its start and GitHub's redirect "
       "back.",
       "Start sign-in again from the site.")
define("oauth-denied", None, 403,
       "GitHub answered the sign-in with an error instead of a code (the person declined, "
       "or the OAuth app is misconfigured).",
       "Start sign-in again and authorize the network's app on GitHub.")
define("oauth-code-invalid", None, 403,
       "GitHub refused to exchange the sign-in code (unknown, used, expired, or not for "
       "this app and redirect).",
       "Start sign-in again from the site.")
define("sign-in-link-invalid", None, 403,
       "The sign-in link is unknown, already used, or past its fifteen minutes.",
       "Ask the operator for a new one: `lemmata session link --pseudonym NAME`.")

#: The session cookie (D-35 v3.33).
COOKIE = "lemmata_session"
#: The browser binding of a sign-in under way.
OAUTH_COOKIE = "lemmata_oauth"
#: Seconds a sign-in may take between start and callback.
STATE_TTL_S = 600
#: Seconds an operator's sign-in link stays good.
LINK_TTL_S = 900
#: Unspent CSRF tokens kept per session; older ones are dropped as new ones are issued.
CSRF_KEEP = 32
#: The header a person write carries its CSRF token in.
CSRF_HEADER = "x-csrf-token"
#: A GitHub login, as ``identities/<pseudonym>.yaml`` records it (models.Identity).
LOGIN_RE = re.compile(r"[A-Za-z0-9-]{1,39}")


@dataclass(frozen=True)
class Person:
    """A signed-in person.

    Attributes:
        caller: the caller, with ``who`` the ledger identity the session belongs to (the
            same identity as the login's bearer token, never a second one: D-35).
        login: the GitHub login the session was opened by, or None for a session an
            operator opened for an identity with no login.
    """

    caller: Caller
    login: str | None

    @property
    def who(self) -> Who:
        """The session's ledger identity (``caller.who``, never None for a Person)."""
        assert self.caller.who is not None
        return self.caller.who


@dataclass(frozen=True)
class _Open:
    """A session row read and judged live: its id, identity (None: needs a pseudonym),
    login and expiry."""

    id: int
    who: Who | None
    login: str | None
    expires_at: int


# --- helpers --------------------------------------------------------------------------


def _svc(request: Request) -> Service:
    svc = request.app.state.svc
    assert isinstance(svc, Service)
    return svc


def site_origin(svc: Service) -> str:
    """``settings.site_origin`` normalised: lower-case scheme and host, no trailing slash."""
    return _origin_of(svc.settings.site_origin) or svc.settings.site_origin.rstrip("/")


def _origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an absolute http(s) URL with no user part, lower-cased;
    None for anything else (relative, another scheme, ``user@host``, control characters)."""
    if not isinstance(url, str) or len(url) > 2000 or any(ord(c) < 0x21 for c in url) \
            or "\\" in url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[parts.scheme]
    # port 0 is no default port: ``:0`` is kept, so it never equals the site's origin
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None and port != default
                                         else "")


def check_return_to(svc: Service, return_to: str) -> str:
    """``return_to`` if it is a page on the site (its origin is exactly
    ``settings.site_origin``).

    Raises:
        LemmataError: ``return-to-refused``.
    """
    if _origin_of(return_to) != site_origin(svc):
        raise LemmataError("return-to-refused", f"{return_to[:200]!r} is not on "
                           f"{site_origin(svc)}", field="return_to")
    return return_to


def _cookie_args(svc: Service) -> dict[str, Any]:
    return {"httponly": True, "secure": True, "samesite": "strict", "path": "/",
            "max_age": svc.settings.session_hours * 3600}


def _retired(s: Any, identity_id: int) -> bool:
    """Whether an operator retired the identity: its newest token was retired by
    ``lemmata token revoke`` and none was issued since (network/api/identity.py)."""
    row = s.execute(select(db.TokenRow).where(db.TokenRow.identity_id == identity_id)
                    .order_by(db.TokenRow.id.desc()).limit(1)).scalar_one_or_none()
    return row is not None and row.retire_reason == "operator revocation"


def _who(ident: db.IdentityRow) -> Who:
    return Who(ident.id, ident.pseudonym, ident.github_login, ident.dco_version)


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
                           "web session")
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
                           "web session")
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
                           "web session")
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
    from network.api.pseudonyms import check_role_binding

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
    (:func:`network.api.pseudonyms.check_role_binding`)."""
    from network.api.pseudonyms import check_role_binding

    try:
        check_role_binding(svc, who.pseudonym, who.github_login)
    except LemmataError:
        return False
    return True


# --- session operations -------------------------------------------------------------------


def _new_session(svc: Service, s: Any, *, identity_id: int | None, login: str | None,
                 opened_by: str, previous: str | None = None) -> str:
    """Insert a session and return its cookie value; ``previous`` (the cookie the browser
    still sent) is ended, so a browser holds one session at a time."""
    raw = secrets.token_urlsafe(32)
    now = svc.now()
    if previous:
        s.execute(update(db.WebSessionRow).where(
            db.WebSessionRow.session_hash == sha256_hex(previous),
            db.WebSessionRow.ended_at.is_(None)).values(ended_at=now))
    s.add(db.WebSessionRow(session_hash=sha256_hex(raw), identity_id=identity_id,
                           github_login=login, created_at=now,
                           expires_at=now + svc.settings.session_hours * 3600,
                           opened_by=opened_by))
    return raw


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


def end_sessions_of(svc: Service, s: Any, identity_id: int) -> int:
    """End every open session and unused sign-in link of an identity in transaction
    ``s`` (the operator's revocation); returns the sessions ended."""
    now = svc.now()
    res = s.execute(update(db.WebSessionRow).where(
        db.WebSessionRow.identity_id == identity_id, db.WebSessionRow.ended_at.is_(None))
        .values(ended_at=now))
    s.execute(update(db.SignInLinkRow).where(
        db.SignInLinkRow.identity_id == identity_id, db.SignInLinkRow.used_at.is_(None))
        .values(used_at=now))
    return int(getattr(res, "rowcount", 0))


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
    from network.api import identity, identity_records

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


# --- GitHub's OAuth web flow ---------------------------------------------------------------


def _oauth_client(svc: Service) -> Any:
    from authlib.integrations.httpx_client import OAuth2Client

    st = svc.settings
    secret = st.github_client_secret.get_secret_value() if st.github_client_secret else None
    return OAuth2Client(client_id=st.github_client_id, client_secret=secret,
                        token_endpoint_auth_method="client_secret_post",
                        redirect_uri=f"{st.public_url.rstrip('/')}/auth/github/callback",
                        code_challenge_method="S256", timeout=st.github_timeout_s)


def start_sign_in(svc: Service, request: Request, return_to: str) -> Response:
    """``GET /auth/github/start``: redirect to GitHub's authorize page (302).

    Raises:
        LemmataError: ``signin-not-configured``; ``return-to-refused``; ``rate-limited``.
    """
    if not svc.settings.github_client_id:
        raise LemmataError("signin-not-configured", "no GitHub OAuth app is configured")
    check_return_to(svc, return_to)
    rate_hit(svc, f"address:{sha256_hex(deps.address(request))}:signin",
             svc.settings.rate_token_issues_per_address)
    state = secrets.token_urlsafe(32)
    browser = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(48)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        s.execute(delete(db.OAuthStateRow).where(db.OAuthStateRow.expires_at < now - 86400))
        s.add(db.OAuthStateRow(state_hash=sha256_hex(state), browser_hash=sha256_hex(browser),
                               return_to=return_to, code_verifier=verifier, created_at=now,
                               expires_at=now + STATE_TTL_S))
    with _oauth_client(svc) as client:
        url, _ = client.create_authorization_url(
            f"{svc.settings.github_oauth_url.rstrip('/')}/authorize", state=state,
            code_verifier=verifier, allow_signup="false")
    resp = RedirectResponse(url, status_code=302)
    resp.set_cookie(OAUTH_COOKIE, browser, max_age=STATE_TTL_S, path="/auth/",
                    secure=True, httponly=True, samesite="lax")
    return resp


def _spend_state(svc: Service, request: Request, state: str | None) -> db.OAuthStateRow:
    browser = request.cookies.get(OAUTH_COOKIE) or ""
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row = s.execute(select(db.OAuthStateRow).where(
            db.OAuthStateRow.state_hash == sha256_hex(state or ""))).scalar_one_or_none()
        if row is None or not state or row.used_at is not None:
            raise LemmataError("oauth-state-invalid", "unknown or used sign-in state")
        row.used_at = now  # single use, whatever happens next
        if not secrets.compare_digest(row.browser_hash, sha256_hex(browser)):
            expired = False
        else:
            expired = now >= row.expires_at
            if not expired:
                return row
    if expired:
        raise LemmataError("oauth-state-expired", "the sign-in was started over ten minutes "
                           "ago")
    raise LemmataError("oauth-state-invalid", "this sign-in was started in another browser")


def _github_login(svc: Service, row: db.OAuthStateRow, code: str) -> str:
    """Exchange ``code`` for a GitHub token and read its login (``GET /user``).

    Raises:
        LemmataError: ``oauth-code-invalid``; ``proof-invalid``; ``proof-unavailable``.
    """
    import httpx
    from authlib.integrations.base_client import OAuthError

    st = svc.settings
    with _oauth_client(svc) as client:
        try:
            client.fetch_token(f"{st.github_oauth_url.rstrip('/')}/access_token", code=code,
                               code_verifier=row.code_verifier)
        except OAuthError as exc:
            raise LemmataError("oauth-code-invalid", f"GitHub answered {exc.error}") from exc
        except (httpx.HTTPError, ValueError) as exc:
            raise LemmataError("proof-unavailable", f"GitHub's token endpoint: {exc}") from exc
        try:
            r = client.get(f"{st.github_api_url.rstrip('/')}/user",
                           headers={"Accept": "application/vnd.github+json"})
        except httpx.HTTPError as exc:
            raise LemmataError("proof-unavailable", f"GitHub unreachable: {exc}") from exc
    if r.status_code in (401, 403):
        raise LemmataError("proof-invalid", "GitHub refused the token it issued")
    if r.status_code != 200:
        raise LemmataError("proof-unavailable", f"GitHub /user answered {r.status_code}")
    try:
        login = r.json().get("login")
    except ValueError:
        login = None
    if not isinstance(login, str) or LOGIN_RE.fullmatch(login) is None:
        raise LemmataError("proof-invalid", "GitHub named no login")
    return login


def finish_sign_in(svc: Service, request: Request, *, code: str | None, state: str | None,
                   error: str | None) -> Response:
    """``GET /auth/github/callback``: spend the state, exchange the code, open the session
    for the login's identity (or for the login alone, needing a pseudonym), and redirect
    to ``return_to`` (302) with the session cookie set.

    Raises:
        LemmataError: ``signin-not-configured``; ``oauth-state-invalid``;
            ``oauth-state-expired``; ``oauth-denied``; ``oauth-code-invalid``;
            ``proof-invalid``; ``proof-unavailable``; ``session-identity-retired``.
    """
    if not svc.settings.github_client_id:
        raise LemmataError("signin-not-configured", "no GitHub OAuth app is configured")
    row = _spend_state(svc, request, state)
    if error or not code:
        raise LemmataError("oauth-denied", f"GitHub answered {error or 'no code'}")
    login = _github_login(svc, row, code)
    with db.transaction(svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.github_key == login.casefold())).scalar_one_or_none()
        if ident is not None and _retired(s, ident.id):
            raise LemmataError("session-identity-retired", f"{ident.pseudonym} was retired by "
                               "the operator")
        raw = _new_session(svc, s, identity_id=ident.id if ident else None, login=login,
                           opened_by="github", previous=request.cookies.get(COOKIE))
    resp = RedirectResponse(row.return_to, status_code=302)
    resp.set_cookie(COOKIE, raw, **_cookie_args(svc))
    resp.delete_cookie(OAUTH_COOKIE, path="/auth/", secure=True, httponly=True,
                       samesite="lax")
    return resp


# --- the operator's way in (ruling 14) ---------------------------------------------------------


def issue_sign_in_link(svc: Service, *, pseudonym: str, operator: str,
                       return_to: str | None = None) -> dict[str, Any]:
    """A one-time sign-in URL opening a session for an existing identity (``lemmata
    session link``; an act of whoever holds the data directory, like ``lemmata token
    issue``; ruling 14). Good for :data:`LINK_TTL_S` seconds, once.

    Returns:
        ``{pseudonym, url, expires_at, return_to}``; the URL appears only here.

    Raises:
        LemmataError: ``operator-invalid``; ``identity-unknown``;
            ``session-identity-retired``; ``return-to-refused``.
    """
    from network.api.identity import OPERATOR_RE

    if not isinstance(operator, str) or not OPERATOR_RE.fullmatch(operator):
        raise LemmataError("operator-invalid", f"{operator!r} cannot name an operator")
    back = check_return_to(svc, return_to or site_origin(svc) + "/")
    raw = "lml_" + secrets.token_urlsafe(32)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.pseudonym_key == str(pseudonym).casefold())).scalar_one_or_none()
        if ident is None:
            raise LemmataError("identity-unknown", f"no identity holds {pseudonym!r}")
        if _retired(s, ident.id):
            raise LemmataError("session-identity-retired", f"{ident.pseudonym} was retired "
                               "by the operator")
        s.add(db.SignInLinkRow(link_hash=sha256_hex(raw), identity_id=ident.id,
                               issued_by=operator, return_to=back, created_at=now,
                               expires_at=now + LINK_TTL_S))
        name = ident.pseudonym
    url = f"{svc.settings.public_url.rstrip('/')}/auth/link?{urlencode({'token': raw})}"
    return {"pseudonym": name, "url": url, "expires_at": iso(now + LINK_TTL_S),
            "return_to": back}


def open_link(svc: Service, request: Request, token: str | None) -> Response:
    """``GET /auth/link?token=``: spend an operator's sign-in link and open its session.

    Raises:
        LemmataError: ``sign-in-link-invalid``; ``session-identity-retired``.
    """
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row = s.execute(select(db.SignInLinkRow).where(
            db.SignInLinkRow.link_hash == sha256_hex(token or ""))).scalar_one_or_none()
        if row is None or not token or row.used_at is not None or now >= row.expires_at:
            raise LemmataError("sign-in-link-invalid", "unknown, used or expired link")
        row.used_at = now
        ident = s.get(db.IdentityRow, row.identity_id)
        assert ident is not None
        retired = _retired(s, ident.id)
        if not retired:
            raw = _new_session(svc, s, identity_id=ident.id, login=ident.github_login,
                               opened_by=f"operator:{row.issued_by}",
                               previous=request.cookies.get(COOKIE))
        back = row.return_to
    if retired:
        raise LemmataError("session-identity-retired", "the identity was retired")
    resp = RedirectResponse(back, status_code=302)
    resp.set_cookie(COOKIE, raw, **_cookie_args(svc))
    return resp


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
#: /me/name`` in network/api/record_acts.py, registers itself here), so :class:`SiteCors`
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
