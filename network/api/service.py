"""The service's dependencies in one object, the caller, and the write-path guard.

:class:`Service` is built once by :func:`network.api.app.create_app` (or by ``lemmata
mcp``) from :class:`~network.api.settings.ServiceSettings` and injected collaborators;
every operation function — the one function an HTTP route and its MCP tool both call
(D-28) — takes it as its first argument. Nothing here runs at import time except the
catalog entries (STYLE.md rule 6).

The refusals the service adds to the catalog are defined here, so ``errors.json`` lists
them whenever the service is importable.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from sqlalchemy import CursorResult, Engine, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from network.api import db
from network.api.settings import ServiceSettings
from network.errors import LemmataError, define

if TYPE_CHECKING:
    from network.api.graphs import GraphProvider

# --- the service's refusals ------------------------------------------------------------
define("token-missing", None, 401, "A route that needs a write token was called without one.",
       "Send `Authorization: Bearer <token>` (MCP: the `token` argument); get a token with "
       "POST /tokens (get_token). Where this service cannot check proofs (GET /info.json, "
       "`service.proofs`), its operator can issue one: `lemmata token issue`.")
define("token-invalid", None, 401,
       "The bearer token is not one the service issued, or it was retired by renewal or "
       "recovery.",
       "Use the newest token you were given; if it is lost, recover with POST /tokens/recover "
       "and the operator's recovery code.")
define("token-expired", None, 401,
       "The token lapsed after the published number of days without use (D-19 v3.29).",
       "Get a new token for the same identity with the same proof (POST /tokens), or recover "
       "with the recovery code (POST /tokens/recover).")
define("credentials-conflict", None, 400,
       "The request carries conflicting credentials: more than one Authorization header, or "
       "an MCP tool's token argument that differs from the Authorization header's token "
       "(issue 39); none of them is guessed at.",
       "Send one credential: a single `Authorization: Bearer <token>` header, or the "
       "`token` argument without a different header.")
define("dco-not-accepted", None, 403,
       "The identity has not accepted the current Developer Certificate of Origin (D-23).",
       "Read GET /dco.json (get_dco) and accept its version: POST /dco/accept, or pass it as "
       "`dco` when asking for a token.")
define("pseudonym-reserved", None, 422,
       "The pseudonym is one the service reserves, compared without regard to case "
       "(D-19 v3.28), or one the graph names as a curator, steward or identity, held only "
       "by the identity its identities/ record binds: the GitHub login it names, or the "
       "identity the network's operator vouched for (issue 16, issue 40).",
       "A new identity chooses another pseudonym (GET /info.json lists the reserved ones). "
       "A role's holder gets in as the detail says: with the GitHub login its identities/ "
       "record binds where GET /info.json says github_sign_in true, else through the "
       "network's operator (`lemmata token issue --pseudonym NAME --dco --holds-role`, then "
       "`lemmata session link --pseudonym NAME`).")
define("pseudonym-taken", None, 409,
       "Another identity already holds this pseudonym (compared without regard to case).",
       "Choose another pseudonym, or prove you are that identity with the same proof or "
       "its recovery code.")
define("identity-unknown", None, 404,
       "No identity of the network holds this pseudonym (compared without regard to case).",
       "Vouch for the identity first with `lemmata token issue --pseudonym NAME --dco` "
       "(adding --holds-role for a curator or steward the graph names); `lemmata token "
       "list` on the network's data directory lists the identities an operator vouched "
       "for.")
define("operator-invalid", None, 422,
       "The operator's name recorded as vouching for an identity is empty, too long "
       "(over 64 characters) or holds characters other than letters, digits and _.@-.",
       "Pass --operator NAME (or run as an OS user whose name is such a name).")
define("github-login-bound", None, 409,
       "The GitHub login that proved this request already belongs to another pseudonym.",
       "Ask for a token under the pseudonym the login already holds.")
define("proof-invalid", None, 403,
       "The proof of identity did not verify: no GitHub login, or no unspent passing "
       "tutorial precheck (D-19, D-27).",
       "Send proof {kind: github, token} with a GitHub token, or {kind: precheck, job_id} "
       "naming a passing precheck of the tutorial node. Where no pinned toolchain checks "
       "proofs here a tutorial precheck ends toolchain-missing and proves nothing: ask the "
       "operator for a token (`lemmata token issue --pseudonym NAME --dco`), precheck where "
       "the pinned toolchain is installed, or have the operator run `lemmata toolchain "
       "install`.")
define("proof-unavailable", None, 503,
       "The proof could not be checked now (GitHub or the precheck queue is unreachable).",
       "Retry later; nothing was recorded.")
define("recovery-invalid", None, 403,
       "The pseudonym and recovery code do not match an unused recovery code.",
       "Check both; a recovery code works once. If token and code are both lost, make a new "
       "identity with the same proof and ask a curator to move the credit (D-19 v3.29).")
define("rate-limited", None, 429,
       "Too many requests from this identity or address in the current window.",
       "Wait for the number of seconds in Retry-After, then retry.")
define("body-too-large", None, 413, "The request body exceeds the service's size limit.",
       "Send a smaller body; GET /info.json publishes the limit in bytes.")
define("bad-request", None, 422, "The request's parameters or body do not match the route.",
       "Read the route's schema at GET /openapi.json and fix the named field.")
define("route-not-found", None, 404, "No route has this path.",
       "GET / lists every route with its method, auth and purpose.")
define("method-not-allowed", None, 405, "The route exists but not with this HTTP method.",
       "GET / lists every route with its method.")
define("product-missing", None, 404, "The graph holds no committed copy of this product yet.",
       "Run `lemmata products GRAPH` and commit the result.")
define("target-not-found", None, 404, "No target has this id in the graph.",
       "List targets with GET /targets/index.json (list_targets).")
define("node-not-found", None, 404, "The target has no node with this id.",
       "Read the target's nodes with GET /targets/<id> (get_target).")
define("queue-down", None, 503,
       "The merge queue is down (its runner stopped, its last passes failed, or its "
       "heartbeat is stale), so a write that opens a pull request is refused rather than "
       "left unjudged (issue 16). Reads, prechecks, claims and tokens still work.",
       "Retry after the seconds in Retry-After; the operator reads GET /info.json "
       "service.queue and restarts the queue (`make run`).")


# --- time -----------------------------------------------------------------------------

Clock = Callable[[], float]
"""Seconds since the Unix epoch (UTC), fractional allowed. Injected so tests move time."""


def iso(ts: float | None) -> str | None:
    """Epoch seconds → ``2026-11-29T19:12:33Z`` (None stays None)."""
    if ts is None:
        return None
    return datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256_hex(data: str | bytes) -> str:
    """Lowercase hex SHA-256 of bytes (str is UTF-8 encoded)."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def new_secret(prefix: str) -> str:
    """A 256-bit URL-safe random secret with a readable prefix (``lmt_``, ``lmr_``)."""
    return prefix + secrets.token_urlsafe(32)


# --- the caller -------------------------------------------------------------------------


@dataclass(frozen=True)
class Who:
    """A snapshot of an authenticated identity: id, pseudonym, GitHub login, DCO version."""

    id: int
    pseudonym: str
    github_login: str | None
    dco_version: str | None


@dataclass(frozen=True)
class Caller:
    """Who is calling, as a transport saw it.

    Attributes:
        token: the bearer token presented, or None.
        address: the client address (an IP, or ``stdio``); stored only hashed.
        transport: ``http`` or ``mcp``, for messages.
        who: the identity, when the transport already authenticated the token (the HTTP
            routes do, so a wrong token is refused before the body is validated).
    """

    token: str | None
    address: str
    transport: str = "http"
    who: Who | None = None

    @property
    def address_hash(self) -> str:
        """SHA-256 hex of the address: what rate buckets and logs keep."""
        return sha256_hex(self.address)


@dataclass
class Service:
    """Everything an operation needs: settings, database, graph, clock and verifiers.

    Attributes:
        settings: the typed configuration.
        engine: the operational database engine.
        sessions: a session factory bound to ``engine``.
        graphs: the graph provider the read routes serve (see network/api/graphs.py).
        clock: epoch seconds now.
        github_verifier: GitHub token → GitHub login; raises ``proof-invalid`` or
            ``proof-unavailable``.
        forge: the forge adapter (LocalForge/GitHubForge), injected; None until built.
        toolchain: the Lean toolchain adapter, injected; None until built.
        keys: the network's Ed25519 keys by kind (``gate``, ``approval``, ``service``) as
            ``(key id, private key)``; the service key signs precheck attestations (D-35).
            None when none were loaded (prechecks are then unsigned, kind ``none``).
        sandbox: the step-3 sandbox prechecks run in (default: a fresh
            :class:`network.gate.sandbox.sandbox.Sandbox`, which fails closed).
        queue: how the service learns whether the merge queue is up
            (:class:`QueueMonitor`: :class:`RunnerQueue` in ``lemmata up``,
            :class:`HeartbeatQueue` in ``lemmata serve`` over a LocalForge); None where no
            queue is known (GitHub: Actions judge), and then no write is refused for it.
    """

    settings: ServiceSettings
    engine: Engine
    sessions: sessionmaker[Session]
    graphs: GraphProvider
    clock: Clock = time.time
    github_verifier: Callable[[str], str] | None = None
    forge: Any = None
    toolchain: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, tuple[str, Any]] | None = None
    sandbox: Any = None
    queue: QueueMonitor | None = None

    def now(self) -> int:
        """The current time in whole epoch seconds."""
        return int(self.clock())


# --- rate limits ------------------------------------------------------------------------


def rate_hit(svc: Service, key: str, limit: int) -> None:
    """Count one request against the fixed-window bucket ``key`` and refuse past ``limit``.

    The count is committed in its own transaction before the operation runs, so a refused
    or failing request still counts (abuse cannot be free).

    Args:
        key: the bucket name, e.g. ``identity:42:writes`` or ``address:<hash>:tokens``.
        limit: requests allowed per window of ``settings.rate_window_s`` seconds.

    Buckets of earlier windows count nothing: the first hit of each new window deletes
    every one of them, whatever its key (:func:`sweep_rate_buckets`), so keys seen once
    (a bad token's hashed prefix, an address) never pile up across windows (issue 39).

    Raises:
        LemmataError: ``rate-limited`` (429); its detail names the seconds to wait.
    """
    window = svc.settings.rate_window_s
    now = svc.now()
    start = now - now % window
    sweep_rate_buckets(svc, start)
    for _attempt in range(5):
        try:
            with db.transaction(svc.sessions) as s:
                # one statement in the common case: the count as the update left it
                found = s.execute(
                    update(db.RateBucketRow)
                    .where(db.RateBucketRow.key == key, db.RateBucketRow.window_start == start)
                    .values(count=db.RateBucketRow.count + 1)
                    .returning(db.RateBucketRow.count)
                ).scalar_one_or_none()
                if found is None:  # earlier windows' rows went in sweep_rate_buckets
                    s.add(db.RateBucketRow(key=key, window_start=start, count=1))
                    s.flush()
                    found = 1
                count = int(found)
            break
        except IntegrityError:
            continue  # a concurrent first hit created the bucket: count again
    else:  # pragma: no cover - five lost races in a row
        count = limit + 1
    if count > limit:
        raise _refuse_rate(svc, key, limit)


# --- tokens ----------------------------------------------------------------------------


def lapse_days(svc: Service) -> int:
    """Days without use after which a token lapses: the graph's published number when it
    publishes one, else the setting (D-19 v3.29)."""
    policy = svc.graphs.policy()
    return policy.token_lapse_days if policy is not None else svc.settings.token_lapse_days


def sweep_rate_buckets(svc: Service, start: int) -> int:
    """Delete every rate bucket of a window before ``start`` (epoch seconds), at most once
    per window and process: the swept window is kept in ``svc.extra["rate_swept"]``.

    Returns:
        The number of rows deleted (0 when this window was already swept).
    """
    if svc.extra.get("rate_swept") == start:
        return 0
    with db.transaction(svc.sessions) as s:
        gone = cast(CursorResult[Any], s.execute(delete(db.RateBucketRow).where(
            db.RateBucketRow.window_start < start))).rowcount
    svc.extra["rate_swept"] = start
    return int(gone or 0)


def rate_count(svc: Service, key: str) -> int:
    """How many requests bucket ``key`` has counted in the current window (no count is
    added)."""
    window = svc.settings.rate_window_s
    now = svc.now()
    with svc.sessions() as s:
        count = s.execute(select(db.RateBucketRow.count).where(
            db.RateBucketRow.key == key,
            db.RateBucketRow.window_start == now - now % window)).scalar_one_or_none()
    return int(count or 0)


def _refuse_rate(svc: Service, key: str, limit: int) -> LemmataError:
    window = svc.settings.rate_window_s
    now = svc.now()
    retry = now - now % window + window - now
    exc = LemmataError("rate-limited", f"limit {limit} per {window} s reached for "
                       f"{key.split(':')[0]}; retry after {retry} s")
    exc.retry_after = retry  # type: ignore[attr-defined]
    return exc


#: The codes that count as a failed authentication against the address (issue 16).
AUTH_FAILURES = frozenset({"token-missing", "token-invalid", "token-expired"})

#: How many leading characters of a presented token name its failure bucket (issue 39):
#: the ``lmt_`` prefix and 8 characters of the secret, hashed before they are stored.
TOKEN_PREFIX_CHARS = 12


def auth_failure_keys(token: str | None, address_hash: str) -> list[str]:
    """The rate buckets a failed authentication counts in (issue 39): the address's, and
    the presented token's prefix's (:data:`TOKEN_PREFIX_CHARS`, hashed) when a token was
    presented. Successes count in none."""
    keys = [f"address:{address_hash}:auth-failures"]
    given = (token or "").strip()
    if given:
        keys.append(f"token-prefix:{sha256_hex(given[:TOKEN_PREFIX_CHARS])}:auth-failures")
    return keys


def authenticate(svc: Service, token: str | None, address_hash: str | None = None) -> Who:
    """The identity behind a bearer token, marking the token used now (D-19 v3.29).

    With ``address_hash`` (the transports pass it), each failure is counted against the
    address and against the presented token's prefix (:func:`auth_failure_keys`); a
    failure past ``settings.rate_auth_failures_per_address`` in either bucket is answered
    ``rate-limited`` instead of its 401 (issue 16: a bad-token flood meets 429). A valid
    token is never refused by these limits (issue 39: one caller's bad tokens behind a
    shared address lock nobody else out); tokens are 256-bit secrets, so the limit sheds
    load, it does not guard the secret.

    Runs in its own short transaction, so callers never hold a database lock while
    another one is taken (SQLite serialises writers).

    Raises:
        LemmataError: ``rate-limited``; ``token-missing``, ``token-invalid`` (unknown or
            retired), ``token-expired`` (unused for longer than the lapse).
    """
    if address_hash is None:
        return _authenticate(svc, token)
    try:
        return _authenticate(svc, token)
    except LemmataError as exc:
        if exc.code not in AUTH_FAILURES:
            raise
        refusal: LemmataError | None = None
        for key in auth_failure_keys(token, address_hash):  # every bucket counts
            try:
                rate_hit(svc, key, svc.settings.rate_auth_failures_per_address)
            except LemmataError as over:
                refusal = refusal or over
        if refusal is not None:
            raise refusal from exc
        raise


def _authenticate(svc: Service, token: str | None) -> Who:
    if not token or not token.strip():
        raise LemmataError("token-missing", "no bearer token was presented")
    lapse_s = lapse_days(svc) * 86400
    with db.transaction(svc.sessions) as s:
        row = s.execute(
            select(db.TokenRow).where(db.TokenRow.token_hash == sha256_hex(token.strip()))
        ).scalar_one_or_none()
        if row is None:
            raise LemmataError("token-invalid", "the service never issued this token")
        if row.retired_at is not None:
            raise LemmataError("token-invalid", f"this token was retired by {row.retire_reason} "
                               f"at {iso(row.retired_at)}")
        now = svc.now()
        if now - row.last_used_at > lapse_s:
            raise LemmataError("token-expired", f"unused since {iso(row.last_used_at)}; tokens "
                               f"lapse after {lapse_s // 86400} days without use")
        row.last_used_at = now
        ident = s.get(db.IdentityRow, row.identity_id)
        assert ident is not None  # foreign key
        return Who(ident.id, ident.pseudonym, ident.github_login, ident.dco_version)


# --- the merge queue's health (issue 16) --------------------------------------------------


@dataclass(frozen=True)
class QueueState:
    """Whether the merge queue is up, as a :class:`QueueMonitor` judged it.

    Attributes:
        up: False when writes that open a pull request must be refused.
        reason: why it is down (None when up).
        retry_after_s: seconds a refused writer should wait (Retry-After).
        health: the runner's health (:class:`network.gate.queue.queue_health.QueueHealth` snapshot),
            what ``GET /info.json`` shows under ``service.queue``.
    """

    up: bool
    reason: str | None
    retry_after_s: int
    health: dict[str, Any]

    def as_info(self) -> dict[str, Any]:
        """``service.queue`` of ``/info.json``: the health plus ``up`` and ``down_reason``."""
        return {**self.health, "up": self.up, "down_reason": self.reason}


class QueueMonitor(Protocol):
    """What the service asks of a merge queue it does not run itself (injected, issue 16)."""

    def state(self, now: float) -> QueueState:
        """The queue's state at ``now`` (epoch seconds)."""
        ...


#: Seconds a writer refused ``queue-down`` is told to wait when the queue names no retry.
QUEUE_RETRY_S = 30


def judge_queue(health: dict[str, Any], *, alive: bool, max_failures: int,
                stale_for_s: float | None = None) -> QueueState:
    """The one rule of "down" (issue 16), for every monitor: the runner is not alive, it
    stopped, ``max_failures`` passes or more failed in a row, or (a heartbeat read from
    another process) ``stale_for_s`` is set: the heartbeat is that many seconds old, past
    the bound.
    A runner busy with one long pass (a Lean build) is up: it is alive and not failing.

    Returns:
        :class:`QueueState`; ``retry_after_s`` is the runner's next retry when it names
        one, else :data:`QUEUE_RETRY_S`.
    """
    failures = int(health.get("failures_in_a_row") or 0)
    retry = health.get("next_try_in_s")
    wait = max(1, int(retry) + 1) if isinstance(retry, int | float) else QUEUE_RETRY_S
    reason: str | None = None
    if stale_for_s is not None:
        reason = f"the merge queue wrote no heartbeat for {int(stale_for_s)} s"
    elif not alive:
        reason = "the merge-queue runner is not running"
    elif health.get("state") == "stopped":
        reason = "the merge queue stopped"
    elif failures >= max_failures:
        last = health.get("last_error") or {}
        code = last.get("code") if isinstance(last, dict) else None
        reason = f"its last {failures} passes failed" + (f" ({code})" if code else "")
    return QueueState(reason is None, reason, wait, dict(health))


@dataclass
class RunnerQueue:
    """The monitor of a runner in this process (``lemmata up``): ``snapshot`` gives its
    health, ``alive`` whether its thread runs (a thread not yet started counts as alive:
    it is starting)."""

    snapshot: Callable[[], dict[str, Any]]
    alive: Callable[[], bool]
    max_failures: int = 5

    def state(self, now: float) -> QueueState:
        """See :func:`judge_queue`."""
        return judge_queue(self.snapshot(), alive=self.alive(), max_failures=self.max_failures)


@dataclass
class HeartbeatQueue:
    """The monitor of a runner in another process: the heartbeat it writes every
    ``network.gate.queue.queue_health.HEARTBEAT_S`` seconds to ``path`` (``<data>/queue-heartbeat.json``)
    while its runner thread lives. Down when there is no heartbeat (no queue has run on
    this data directory: a pull request opened now would never be judged), when it is
    older than ``stale_s`` (the queue's process died) or as far in the future (a clock
    set back), or when it says the runner died,
    stopped or keeps failing."""

    path: Path
    stale_s: float = 60.0
    max_failures: int = 5

    def state(self, now: float) -> QueueState:
        """See the class doc and :func:`judge_queue`."""
        from network.gate.queue.queue_health import read_heartbeat

        beat = read_heartbeat(self.path)
        if beat is None:
            return QueueState(False, "no merge queue has written a heartbeat in the data "
                              "directory", QUEUE_RETRY_S, {"state": "unknown"})
        at = float(beat["at"])  # type: ignore[arg-type]  # read_heartbeat checked it
        raw = beat["health"]
        health = {**(raw if isinstance(raw, dict) else {}), "heartbeat_at": int(at)}
        age = now - at  # a beat from the future (a clock set back) is no fresher
        return judge_queue(health, alive=beat.get("alive") is True,
                           max_failures=self.max_failures,
                           stale_for_s=abs(age) if abs(age) > self.stale_s else None)


def queue_state(svc: Service) -> QueueState | None:
    """The injected monitor's judgement now, or None when the service knows no queue."""
    return None if svc.queue is None else svc.queue.state(svc.clock())


def require_queue(svc: Service) -> None:
    """Refuse a write that opens a pull request while the merge queue is down (issue 16):
    the submission would sit unjudged. Writes that open none (claims, tokens, prechecks,
    withdrawals) never call this.

    Raises:
        LemmataError: ``queue-down`` (503) with ``retry_after`` (Retry-After seconds).
    """
    st = queue_state(svc)
    if st is None or st.up:
        return
    exc = LemmataError("queue-down", f"{st.reason}; nothing was opened. Retry in "
                       f"{st.retry_after_s} s")
    exc.retry_after = st.retry_after_s  # type: ignore[attr-defined]
    raise exc
