"""The web session's stored form (D-35 v3.33, issue 13): the cookie names and lifetimes,
:class:`Person` (a signed-in person), the site's origin and ``return_to`` judged against
it, and a session row opened for a browser. :mod:`network.api.people.web_session` (the
dependencies and session routes) and :mod:`network.api.people.sign_in` (GitHub's OAuth web flow
and the operator's link, ruling 14) both build on it; ``web_session`` re-exports every
name here.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from sqlalchemy import select, update

from network.api import db
from network.api.service import Caller, Service, Who, sha256_hex
from network.errors import LemmataError, define

define("return-to-refused", None, 422,
       "return_to is not a page on the network's site (settings.site_origin): sign-in "
       "returns only there.",
       "Start sign-in from the site's own Sign in link.")

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


def way_in(svc: Service, pseudonym: str | None = None, *, github: bool = False) -> str:
    """How a person gets a web session on this network, as a clause for a refusal's
    detail (issue 40: every refusal names a way in that exists here; D-35 v3.33, ruling
    14).

    Args:
        pseudonym: the identity's name, printed in the operator's command (``NAME`` when
            None).
        github: the identity is bound to a GitHub login, so only GitHub sign-in serves it.

    Returns:
        GitHub sign-in where an OAuth app is configured (``GET /info.json``
        ``github_sign_in`` true), else the operator's one-time link, ``lemmata session
        link --pseudonym NAME``.
    """
    name = pseudonym or "NAME"
    if svc.settings.github_client_id:
        return "sign in with GitHub on the network's site (its Sign in link)"
    if github:
        return ("this network has no GitHub sign-in (GET /info.json says github_sign_in "
                "false), so that login cannot sign in here")
    return ("this network has no GitHub sign-in (GET /info.json says github_sign_in false): "
            "its operator prints a one-time sign-in link with `lemmata session link "
            f"--pseudonym {name}`")


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
    ``lemmata token revoke`` and none was issued since (network/api/identity/identity.py)."""
    row = s.execute(select(db.TokenRow).where(db.TokenRow.identity_id == identity_id)
                    .order_by(db.TokenRow.id.desc()).limit(1)).scalar_one_or_none()
    return row is not None and row.retire_reason == "operator revocation"


def _who(ident: db.IdentityRow) -> Who:
    return Who(ident.id, ident.pseudonym, ident.github_login, ident.dco_version)


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
