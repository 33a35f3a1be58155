"""Getting a web session (D-35 v3.33, issue 13; ruling 14): GitHub's OAuth web flow
(``GET /auth/github/start``, ``GET /auth/github/callback``, through authlib's httpx client,
with a single-use hashed ``state``, PKCE and a browser-binding cookie) and the operator's
one-time sign-in link (``lemmata session link``, ``GET /auth/link``). Each opens a session
row with :func:`network.api.identity.session_store._new_session`; the routes are installed by
:func:`network.api.people.web_session.install`, which re-exports every public name here.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import delete, select

from network.api import db, deps
from network.api.identity.session_store import (
    COOKIE,
    LINK_TTL_S,
    LOGIN_RE,
    OAUTH_COOKIE,
    STATE_TTL_S,
    _cookie_args,
    _new_session,
    _retired,
    check_return_to,
    site_origin,
)
from network.api.service import Service, iso, rate_hit, sha256_hex
from network.errors import LemmataError, define

define("signin-not-configured", None, 404,
       "GitHub sign-in is off on this service: no OAuth app client id is configured "
       "(LEMMATA_GITHUB_CLIENT_ID, LEMMATA_GITHUB_CLIENT_SECRET).",
       "The operator sets the GitHub OAuth app's id and secret, or opens a session for an "
       "existing identity with `lemmata session link --pseudonym NAME`.")
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
define("session-identity-retired", None, 403,
       "The identity this login or link names was retired by the operator (`lemmata token "
       "revoke`): every token of it and every session were retired, and none is opened "
       "for it again until an operator vouches for it or its owner proves it anew.",
       "Ask the network's operator.")


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
    from network.api.identity.identity import OPERATOR_RE

    if not isinstance(operator, str) or not OPERATOR_RE.fullmatch(operator):
        raise LemmataError("operator-invalid", f"{operator!r} cannot name an operator")
    back = check_return_to(svc, return_to or site_origin(svc) + "/")
    raw = "lml_" + secrets.token_urlsafe(32)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.pseudonym_key == str(pseudonym).casefold())).scalar_one_or_none()
        if ident is None:
            raise LemmataError("identity-unknown", f"no identity holds {pseudonym!r}; "
                               + _vouch_first(svc, str(pseudonym)))
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


def _vouch_first(svc: Service, pseudonym: str) -> str:
    """How the operator makes the identity a link needs (issue 40), for a detail."""
    from network.api.identity.pseudonyms import NAMED_ROLES, role_holder

    holder = role_holder(svc, pseudonym)
    if holder is not None and holder.roles & NAMED_ROLES:
        return (f"the graph names it ({', '.join(sorted(holder.roles))}): vouch for its "
                f"holder with `lemmata token issue --pseudonym {pseudonym} --dco "
                "--holds-role`, then ask for the link again")
    return (f"vouch for it first with `lemmata token issue --pseudonym {pseudonym} --dco`, "
            "then ask for the link again")


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
