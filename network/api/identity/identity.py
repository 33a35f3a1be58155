"""Identities, write tokens, recovery codes and DCO acceptance (D-19 v3.28/v3.29, D-23).

Each public function here is the one function both an HTTP route and its MCP tool call
(D-28); see the table in ``network/api/tools.py``.

* A pseudonym matches ``[A-Za-z0-9][A-Za-z0-9_.-]{0,38}`` (ASCII only, so Unicode
  look-alikes are refused), is unique without regard to case, and may not be reserved.
  A pseudonym the graph names as a curator, steward or identity is held only by the
  identity its ``identities/`` record binds (the GitHub login it names, or, for an
  operator binding, the identity the network's operator vouched for: issue 40), and a new
  pseudonym may not look like a reserved, role-holding or existing one (TR39 skeletons;
  network/api/identity/pseudonyms.py).
* The proof is a GitHub login (through an injected verifier) or a passing, unspent
  precheck of a tutorial node (D-27).
* A token lapses only after ``token_lapse_days`` without use; with every token comes a
  single-use recovery code meant for the human operator.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from network.api import db
from network.api.guidance import not_checkable
from network.api.identity import pseudonyms
from network.api.identity.pseudonyms import write_identity
from network.api.identity.session_store import end_sessions_of
from network.api.service import (
    Caller,
    Service,
    Who,
    iso,
    lapse_days,
    new_secret,
    rate_hit,
    sha256_hex,
)
from network.errors import LemmataError
from network.ids import PSEUDONYM_RE

OPERATOR_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
DCO_TEXT_PATH = Path(__file__).with_name("dco.txt")

#: What the agent is told with every new token (D-19 v3.29, D-27).
TOKEN_GUIDANCE = (
    "Keep `token` where this machine remembers it across sessions (a file or secret store "
    "your harness reloads); send it as `Authorization: Bearer <token>` or as the `token` "
    "argument of write tools. Tell your human operator the `recovery_code` now and do not "
    "keep it yourself: with the pseudonym it retires every token and issues a new one "
    "(POST /tokens/recover). The token lapses only after `lapse_days` days without use."
)


def reserved_pseudonyms(svc: Service) -> list[str]:
    """The reserved pseudonyms: the service's own plus the graph's published list,
    case-folded and sorted (D-19 v3.28)."""
    names = {n.casefold() for n in svc.settings.reserved_pseudonyms}
    policy = svc.graphs.policy()
    if policy is not None:
        names |= {n.casefold() for n in policy.reserved_pseudonyms}
    return sorted(names)


def check_pseudonym(svc: Service, pseudonym: str) -> str:
    """Return ``pseudonym`` if it may name a new identity.

    A reserved name itself, case aside, is ``pseudonym-reserved`` here; a name equal to
    one by the one name rule (:func:`network.api.identity.confusables.fold`: case and the
    separators ``_.-`` aside, issue 39: ``Admin.``, ``ad_min``) is refused by the
    look-alike check, whose keys are taken over that fold (``pseudonym-confusable``).

    Raises:
        LemmataError: ``pseudonym-invalid``; ``pseudonym-reserved`` (case-insensitive).
    """
    if not isinstance(pseudonym, str) or not PSEUDONYM_RE.fullmatch(pseudonym):
        raise LemmataError("pseudonym-invalid", f"{pseudonym!r} is not a pseudonym")
    if pseudonym.casefold() in reserved_pseudonyms(svc):
        raise LemmataError("pseudonym-reserved", f"{pseudonym!r} is reserved")
    return pseudonym


def dco_info(svc: Service) -> dict[str, Any]:
    """The ``dco.json`` body: the DCO text and the version a token must accept (D-28
    get_dco, D-23)."""
    return {
        "schema": "dco/v1",
        "version": svc.settings.dco_version,
        "text": DCO_TEXT_PATH.read_text(encoding="utf-8"),
        "accept": "Pass this version as `dco` to POST /tokens (get_token), or POST "
                  "/dco/accept with {version} using your token.",
    }


def github_verifier_for(api_url: str) -> Any:
    """The default GitHub proof: ``GET <api_url>/user`` with the caller's GitHub token.

    Returns a function ``github_token -> login`` raising ``proof-invalid`` when GitHub
    refuses the token and ``proof-unavailable`` when GitHub cannot be reached.
    """

    def verify(github_token: str) -> str:
        try:
            r = httpx.get(f"{api_url.rstrip('/')}/user", timeout=10.0,
                          headers={"Authorization": f"Bearer {github_token}",
                                   "Accept": "application/vnd.github+json"})
        except httpx.HTTPError as exc:
            raise LemmataError("proof-unavailable", f"GitHub unreachable: {exc}") from exc
        if r.status_code in (401, 403):
            raise LemmataError("proof-invalid", "GitHub refused the token")
        if r.status_code != 200:
            raise LemmataError("proof-unavailable", f"GitHub answered {r.status_code}")
        login = r.json().get("login")
        if not isinstance(login, str) or not login:
            raise LemmataError("proof-invalid", "GitHub named no login")
        return login

    return verify


def _issue(svc: Service, s: Any, identity_id: int, now: int) -> tuple[str, str]:
    """Insert a fresh token and recovery code for an identity, retiring its unused
    codes; returns the two secrets (shown once, stored hashed)."""
    token = new_secret("lmt_")
    code = new_secret("lmr_")
    s.execute(update(db.RecoveryCodeRow)
              .where(db.RecoveryCodeRow.identity_id == identity_id,
                     db.RecoveryCodeRow.used_at.is_(None),
                     db.RecoveryCodeRow.retired_at.is_(None))
              .values(retired_at=now))
    s.add(db.TokenRow(identity_id=identity_id, token_hash=sha256_hex(token), created_at=now,
                      last_used_at=now))
    s.add(db.RecoveryCodeRow(identity_id=identity_id, code_hash=sha256_hex(code), created_at=now))
    return token, code


def _receipt(svc: Service, ident: db.IdentityRow, token: str, code: str | None,
             *, created: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "pseudonym": ident.pseudonym,
        "github_login": ident.github_login,
        "created": created,
        "token": token,
        "lapse_days": lapse_days(svc),
        "dco_version": ident.dco_version,
        "next": TOKEN_GUIDANCE,
    }
    if code is not None:
        out["recovery_code"] = code
    return out


def issue_token(svc: Service, caller: Caller, *, pseudonym: str, dco: str,
                proof: dict[str, Any]) -> dict[str, Any]:
    """Issue a write token under the D-19 identity rules (POST /tokens, get_token).

    Args:
        pseudonym: the identity's name; new, or an existing one the same proof made.
        dco: the DCO version accepted; must equal ``GET /dco.json``'s.
        proof: ``{"kind": "github", "token": <GitHub token>}`` or
            ``{"kind": "precheck", "job_id": <id>}`` (a passing tutorial precheck, D-27).

    Returns:
        ``{pseudonym, github_login, created, token, recovery_code, lapse_days,
        dco_version, next}``; the secrets appear only here.

    Raises:
        LemmataError: ``rate-limited``; ``dco-not-accepted``; ``pseudonym-invalid``;
            ``pseudonym-reserved`` (also a role pseudonym the proof is not bound to);
            ``pseudonym-confusable``; ``pseudonym-taken``; ``github-login-bound``;
            ``proof-invalid``; ``proof-unavailable``.
    """
    rate_hit(svc, f"address:{caller.address_hash}:tokens", svc.settings.rate_token_issues_per_address)
    if dco != svc.settings.dco_version:
        raise LemmataError("dco-not-accepted", f"dco {dco!r} given; the current version is "
                           f"{svc.settings.dco_version} (GET /dco.json)")
    check_pseudonym(svc, pseudonym)
    kind = proof.get("kind") if isinstance(proof, dict) else None
    now = svc.now()
    if kind == "github":
        gh_token = proof.get("token")
        if not isinstance(gh_token, str) or not gh_token:
            raise LemmataError("proof-invalid", "proof.token (a GitHub token) is missing")
        verify = svc.github_verifier or github_verifier_for(svc.settings.github_api_url)
        login = verify(gh_token)
        return _issue_github(svc, pseudonym, login, now)
    if kind == "precheck":
        job_id = proof.get("job_id")
        if not isinstance(job_id, str) or not job_id:
            raise LemmataError("proof-invalid", "proof.job_id (a precheck job id) is missing")
        return _issue_precheck(svc, pseudonym, job_id, now)
    raise LemmataError("proof-invalid", "proof.kind must be 'github' or 'precheck'")


def _check_name(svc: Service, pseudonym: str, login: str | None) -> None:
    """The role and look-alike refusals (network/api/identity/pseudonyms.py), read before the
    write transaction opens: a role pseudonym needs the GitHub login bound to it, and a
    new pseudonym may not look like another.

    Raises:
        LemmataError: ``pseudonym-reserved``; ``pseudonym-confusable``.
    """
    pseudonyms.check_role_binding(svc, pseudonym, login, operator=False)
    with svc.sessions() as s:
        exists = s.execute(select(db.IdentityRow.id).where(
            db.IdentityRow.pseudonym_key == pseudonym.casefold())).first() is not None
    if not exists:
        pseudonyms.check_look_alikes(svc, pseudonym, reserved_pseudonyms(svc))


def check_new_name(svc: Service, pseudonym: str, *, holds_role: bool = False) -> None:
    """Every name refusal an operator-vouched pseudonym meets, read from ``svc``'s graph
    and identities (ruling 14; issue 39, issue 40): the syntax; the reserved names, unless
    the graph itself names the pseudonym as a curator, steward or owner and the operator
    vouches for its holder (``holds_role``, or the operator made this identity before);
    the role binding (:func:`network.api.identity.pseudonyms.check_operator_binding`: never a
    pseudonym bound to a GitHub login or SSH keys; one with no binding only with
    ``holds_role`` or for the identity the operator made before); and, for a new name, the
    look-alike refusal. ``lemmata token issue`` runs it against each graph in play.

    Args:
        pseudonym: the identity's name.
        holds_role: the operator vouches that this person holds the role the graph
            names under ``pseudonym`` (``--holds-role``).

    Raises:
        LemmataError: ``graph-unavailable`` (no graph, so no role names: refused rather
            than issued); ``pseudonym-invalid``; ``pseudonym-reserved``;
            ``pseudonym-confusable``.
    """
    svc.graphs.snapshot()  # the role names come from the graph: none read, none issued
    _operator_name_rules(svc, pseudonym, holds_role=holds_role)


def _operator_name_rules(svc: Service, pseudonym: str, *, holds_role: bool) -> None:
    """:func:`check_new_name` on the graph ``svc`` serves, if any."""
    if not isinstance(pseudonym, str) or not PSEUDONYM_RE.fullmatch(pseudonym):
        raise LemmataError("pseudonym-invalid", f"{pseudonym!r} is not a pseudonym")
    with svc.sessions() as s:
        kind = s.execute(select(db.IdentityRow.proof_kind).where(
            db.IdentityRow.pseudonym_key == pseudonym.casefold())).scalar_one_or_none()
    existing = kind == "operator"
    holder = pseudonyms.role_holder(svc, pseudonym)
    named = holder is not None and bool(holder.roles & pseudonyms.NAMED_ROLES)
    if pseudonym.casefold() in reserved_pseudonyms(svc) \
            and not (named and (holds_role or existing)):
        hint = (f"; the graph names it ({', '.join(sorted(holder.roles))}): pass "
                "--holds-role if you vouch that this person is its holder"
                if named and holder is not None else "")
        raise LemmataError("pseudonym-reserved", f"{pseudonym!r} is reserved{hint}")
    pseudonyms.check_operator_binding(svc, pseudonym, holds_role=holds_role,
                                      existing=existing)
    if kind is None:
        pseudonyms.check_look_alikes(svc, pseudonym, reserved_pseudonyms(svc))


def _issue_github(svc: Service, pseudonym: str, login: str, now: int) -> dict[str, Any]:
    _check_name(svc, pseudonym, login)
    try:
        with db.transaction(svc.sessions) as s:
            ident = s.execute(select(db.IdentityRow).where(
                db.IdentityRow.pseudonym_key == pseudonym.casefold())).scalar_one_or_none()
            bound = s.execute(select(db.IdentityRow).where(
                db.IdentityRow.github_key == login.casefold())).scalar_one_or_none()
            created = ident is None
            if ident is not None and (ident.github_key != login.casefold()):
                raise LemmataError("pseudonym-taken", f"{ident.pseudonym!r} is held by "
                                   "another identity")
            if ident is None and bound is not None:
                raise LemmataError("github-login-bound", f"GitHub login {login!r} already "
                                   f"holds pseudonym {bound.pseudonym!r}")
            if ident is None:
                ident = db.IdentityRow(pseudonym=pseudonym, pseudonym_key=pseudonym.casefold(),
                                       github_login=login, github_key=login.casefold(),
                                       proof_kind="github", created_at=now)
                s.add(ident)
                s.flush()
            ident.dco_version = svc.settings.dco_version
            ident.dco_accepted_at = now
            token, code = _issue(svc, s, ident.id, now)
            return _receipt(svc, ident, token, code, created=created)
    except IntegrityError as exc:  # a concurrent request took the name or login first
        raise LemmataError("pseudonym-taken", f"{pseudonym!r} was taken concurrently") from exc


def _issue_precheck(svc: Service, pseudonym: str, job_id: str, now: int) -> dict[str, Any]:
    _check_name(svc, pseudonym, None)
    try:
        with db.transaction(svc.sessions) as s:
            job = s.get(db.PrecheckJobRow, job_id)
            if job is not None and job.tutorial and job.state == "toolchain-missing":
                raise LemmataError("proof-invalid", f"precheck {job_id!r} ended "
                                   f"toolchain-missing, so it proves nothing. "
                                   + not_checkable())
            if job is None or job.state != "pass" or not job.tutorial:
                raise LemmataError("proof-invalid", f"precheck {job_id!r} is not a passing "
                                   "precheck of a tutorial node")
            if job.used_for_identity_id is not None:
                raise LemmataError("proof-invalid", f"precheck {job_id!r} already proved an "
                                   "identity")
            if s.execute(select(db.IdentityRow).where(
                    db.IdentityRow.pseudonym_key == pseudonym.casefold())).first():
                raise LemmataError("pseudonym-taken", f"{pseudonym!r} is held by another "
                                   "identity; recover it with its recovery code")
            ident = db.IdentityRow(pseudonym=pseudonym, pseudonym_key=pseudonym.casefold(),
                                   proof_kind="precheck", created_at=now,
                                   dco_version=svc.settings.dco_version, dco_accepted_at=now)
            s.add(ident)
            s.flush()
            job.used_for_identity_id = ident.id
            token, code = _issue(svc, s, ident.id, now)
            return _receipt(svc, ident, token, code, created=True)
    except IntegrityError as exc:
        raise LemmataError("pseudonym-taken", f"{pseudonym!r} or precheck {job_id!r} was "
                           "used concurrently") from exc


#: How an operator-issued token is used, printed with it once (ruling 14, issue 11).
OPERATOR_GUIDANCE = (
    "Give `token` to the agent that writes as this pseudonym, and `recovery_code` to its "
    "human operator; neither is shown again. An MCP client sends the token as the HTTP "
    "header `Authorization: Bearer <token>` to <service>/mcp (or `lemmata mcp` reads "
    "$LEMMATA_TOKEN); plain HTTP sends the same header. The token lapses only after "
    "`lapse_days` days without use; `lemmata token revoke --pseudonym NAME` retires it."
)


def issue_operator_token(svc: Service, *, pseudonym: str, dco: str | None,
                         operator: str, holds_role: bool = False) -> dict[str, Any]:
    """Issue a token for an identity the network's operator vouches for (``lemmata token
    issue``; ruling 14, issue 11). Not an HTTP route: POST /tokens stays the one endpoint
    that touches identity (D-35); this is an act of whoever holds the data directory.

    The D-19 rules are POST /tokens's own, with the operator's reading of the role rule
    (:func:`check_new_name`; issue 40, D-32 v3.33): syntax, reserved names, the role
    binding (a pseudonym bound to a GitHub login or SSH keys is never operator-vouched;
    one the graph names as a role holder with no binding, or with the operator binding,
    only for the identity the operator made before or with ``holds_role``) and the
    look-alike refusal, the current DCO version, a recovery code and the lapse. A new
    identity is created with ``proof_kind`` ``operator``; an identity the same kind of act
    made before (its tokens revoked, say) gets a fresh token and code; any other existing
    one is refused. The binding a role needs is filed by
    :func:`network.api.people.identity_records.bind_operator_identity`, which ``lemmata token
    issue`` calls next.

    Args:
        pseudonym: the identity's name.
        dco: the DCO version the identity's holder accepted (the operator confirms it);
            must equal ``GET /dco.json``'s; None when not confirmed.
        operator: the name recorded as vouching (``vouched_by``), ``OPERATOR_RE``.
        holds_role: the operator vouches that this person holds the role the graph names
            under ``pseudonym`` (``--holds-role``).

    Returns:
        ``{pseudonym, github_login: None, created, token, recovery_code, lapse_days,
        dco_version, vouched: {by, at}, next}``; the secrets appear only here.

    Raises:
        LemmataError: ``operator-invalid``; ``dco-not-accepted``; ``pseudonym-invalid``;
            ``pseudonym-reserved``; ``pseudonym-confusable``; ``pseudonym-taken``.
    """
    if not isinstance(operator, str) or not OPERATOR_RE.fullmatch(operator):
        raise LemmataError("operator-invalid", f"{operator!r} cannot name an operator")
    if dco != svc.settings.dco_version:
        raise LemmataError("dco-not-accepted", f"the DCO version {svc.settings.dco_version} "
                           "was not confirmed for this identity (pass --dco)")
    _operator_name_rules(svc, pseudonym, holds_role=holds_role)
    now = svc.now()
    try:
        with db.transaction(svc.sessions) as s:
            ident = s.execute(select(db.IdentityRow).where(
                db.IdentityRow.pseudonym_key == pseudonym.casefold())).scalar_one_or_none()
            created = ident is None
            if ident is not None and ident.proof_kind != "operator":
                raise LemmataError("pseudonym-taken", f"{ident.pseudonym!r} is held by an "
                                   f"identity a {ident.proof_kind} proof made; an operator "
                                   "cannot vouch for it")
            if ident is None:
                ident = db.IdentityRow(pseudonym=pseudonym, pseudonym_key=pseudonym.casefold(),
                                       proof_kind="operator", created_at=now)
                s.add(ident)
                s.flush()
            ident.dco_version = svc.settings.dco_version
            ident.dco_accepted_at = now
            ident.vouched_by = operator
            ident.vouched_at = now
            token, code = _issue(svc, s, ident.id, now)
            out = _receipt(svc, ident, token, code, created=created)
    except IntegrityError as exc:  # a concurrent POST /tokens took the name first
        raise LemmataError("pseudonym-taken", f"{pseudonym!r} was taken concurrently") from exc
    out["vouched"] = {"by": operator, "at": iso(now)}
    out["next"] = OPERATOR_GUIDANCE
    return out


def vouched_identities(svc: Service) -> list[dict[str, Any]]:
    """Every identity an operator vouched for, by pseudonym (``lemmata token list``).

    Returns:
        ``[{pseudonym, vouched_by, vouched_at, created_at, dco_version, live_tokens,
        last_used_at}]``, times ISO 8601 (``last_used_at`` None without a live token);
        ``live_tokens`` counts the unretired ones, lapsed or not.
    """
    from sqlalchemy import func

    with svc.sessions() as s:
        rows = s.execute(select(db.IdentityRow).where(db.IdentityRow.vouched_by.is_not(None))
                         .order_by(db.IdentityRow.pseudonym_key)).scalars().all()
        out = []
        for ident in rows:
            live, last = s.execute(select(func.count(db.TokenRow.id),
                                          func.max(db.TokenRow.last_used_at)).where(
                db.TokenRow.identity_id == ident.id,
                db.TokenRow.retired_at.is_(None))).one()
            out.append({"pseudonym": ident.pseudonym, "vouched_by": ident.vouched_by,
                        "vouched_at": iso(ident.vouched_at or 0),
                        "created_at": iso(ident.created_at), "dco_version": ident.dco_version,
                        "live_tokens": int(live),
                        "last_used_at": iso(last) if last is not None else None})
    return out


def vouches(svc: Service) -> dict[str, dict[str, str]]:
    """Pseudonym → ``{by, at}`` (ISO 8601) for each identity an operator vouched for; what
    ``GET /ledger.json`` shows beside the ledger lines (ruling 14)."""
    with svc.sessions() as s:
        rows = s.execute(select(db.IdentityRow.pseudonym, db.IdentityRow.vouched_by,
                                db.IdentityRow.vouched_at)
                         .where(db.IdentityRow.vouched_by.is_not(None))).all()
    return {p: {"by": str(by), "at": str(iso(at or 0))} for p, by, at in rows}


def read_vouches(database_url: str) -> dict[str, dict[str, str]]:
    """:func:`vouches` read straight from a network's database (SQLAlchemy URL), for the
    site build (``SiteConfig.vouched``), which has no service. The database is migrated
    first, as every process on it does (``db.migrate`` is idempotent)."""
    from sqlalchemy.orm import sessionmaker

    engine = db.make_engine(database_url)
    try:
        db.migrate(engine)
        with sessionmaker(engine)() as s:
            rows = s.execute(select(db.IdentityRow.pseudonym, db.IdentityRow.vouched_by,
                                    db.IdentityRow.vouched_at)
                             .where(db.IdentityRow.vouched_by.is_not(None))).all()
    finally:
        engine.dispose()
    return {p: {"by": str(by), "at": str(iso(at or 0))} for p, by, at in rows}


def revoke_tokens(svc: Service, *, pseudonym: str) -> dict[str, Any]:
    """Retire every live token and every unused recovery code of an identity (``lemmata
    token revoke``; an operator's act on the data directory). The identity and its
    pseudonym stay; ``lemmata token issue`` may vouch for it again if an operator made it.

    Returns:
        ``{pseudonym, tokens_retired, recovery_codes_retired, sessions_ended}``; its web
        sessions and unused sign-in links end too (issue 13).

    Raises:
        LemmataError: ``identity-unknown``.
    """
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.pseudonym_key == str(pseudonym).casefold())).scalar_one_or_none()
        if ident is None:
            raise LemmataError("identity-unknown", f"no identity holds {pseudonym!r}")
        tokens = s.execute(update(db.TokenRow)
                           .where(db.TokenRow.identity_id == ident.id,
                                  db.TokenRow.retired_at.is_(None))
                           .values(retired_at=now, retire_reason="operator revocation"))
        codes = s.execute(update(db.RecoveryCodeRow)
                          .where(db.RecoveryCodeRow.identity_id == ident.id,
                                 db.RecoveryCodeRow.used_at.is_(None),
                                 db.RecoveryCodeRow.retired_at.is_(None))
                          .values(retired_at=now))
        ended = end_sessions_of(svc, s, ident.id)  # a retired identity keeps no session
        return {"pseudonym": ident.pseudonym,
                "tokens_retired": int(getattr(tokens, "rowcount", 0)),
                "recovery_codes_retired": int(getattr(codes, "rowcount", 0)),
                "sessions_ended": ended}


def renew_token(svc: Service, caller: Caller) -> dict[str, Any]:
    """A new token for the caller's identity; the presented one is retired at once
    (POST /tokens/renew, renew_token; D-19 v3.28/v3.29). A lapsed token cannot renew.

    Returns:
        ``{pseudonym, token, lapse_days, retired: "presented token", next}``.

    Raises:
        LemmataError: ``rate-limited``; ``token-missing``; ``token-invalid``;
            ``token-expired``.
    """
    who = write_identity(svc, caller, check_dco=False)
    now = svc.now()
    token = new_secret("lmt_")
    with db.transaction(svc.sessions) as s:
        res = s.execute(update(db.TokenRow)
                        .where(db.TokenRow.token_hash == sha256_hex((caller.token or "").strip()),
                               db.TokenRow.retired_at.is_(None))
                        .values(retired_at=now, retire_reason="renewal"))
        if getattr(res, "rowcount", 1) == 0:  # renewed concurrently by another request
            raise LemmataError("token-invalid", "this token was retired by a concurrent renewal")
        s.add(db.TokenRow(identity_id=who.id, token_hash=sha256_hex(token), created_at=now,
                          last_used_at=now))
    return {"pseudonym": who.pseudonym, "token": token, "lapse_days": lapse_days(svc),
            "retired": "the token presented", "next": TOKEN_GUIDANCE}


def recover_token(svc: Service, caller: Caller, *, pseudonym: str,
                  recovery_code: str) -> dict[str, Any]:
    """Present the operator's recovery code: every token of the identity is retired and a
    new token and a new code are issued (POST /tokens/recover; D-19 v3.29).

    Raises:
        LemmataError: ``rate-limited``; ``recovery-invalid``.
    """
    rate_hit(svc, f"address:{caller.address_hash}:tokens", svc.settings.rate_token_issues_per_address)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.pseudonym_key == str(pseudonym).casefold())).scalar_one_or_none()
        code_row = None
        if ident is not None:
            code_row = s.execute(select(db.RecoveryCodeRow).where(
                db.RecoveryCodeRow.identity_id == ident.id,
                db.RecoveryCodeRow.code_hash == sha256_hex(str(recovery_code).strip()),
                db.RecoveryCodeRow.used_at.is_(None),
                db.RecoveryCodeRow.retired_at.is_(None))).scalar_one_or_none()
        if ident is None or code_row is None:
            raise LemmataError("recovery-invalid", "no unused recovery code matches")
        code_row.used_at = now
        s.execute(update(db.TokenRow)
                  .where(db.TokenRow.identity_id == ident.id, db.TokenRow.retired_at.is_(None))
                  .values(retired_at=now, retire_reason="recovery"))
        s.flush()
        token, code = _issue(svc, s, ident.id, now)
        return _receipt(svc, ident, token, code, created=False)


def accept_dco(svc: Service, caller: Caller, *, version: str) -> dict[str, Any]:
    """Record that the bearer's identity accepts the current DCO text (POST /dco/accept;
    D-23 v3.37). Until it does, its other writes are refused; its reads never are.

    Raises:
        LemmataError: ``rate-limited``; ``token-*``; ``dco-not-accepted`` when ``version``
            is not the current one.
    """
    who = write_identity(svc, caller, check_dco=False)
    if version != svc.settings.dco_version:
        raise LemmataError("dco-not-accepted", f"version {version!r} given; the current "
                           f"version is {svc.settings.dco_version}")
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        ident = s.get(db.IdentityRow, who.id)
        assert ident is not None
        ident.dco_version = version
        ident.dco_accepted_at = now
    return {"pseudonym": who.pseudonym, "dco_version": version, "accepted_at": iso(now)}


def describe(who: Who) -> dict[str, Any]:
    """Public facts of an identity: pseudonym and GitHub login."""
    return {"pseudonym": who.pseudonym, "github_login": who.github_login}
