"""The live claim registry: advisory claims with a TTL inside published flat caps (D-25).

* Claims are advisory (D-25: "racing is permitted and on hard nodes desirable"; DESIGN.md
  ruling 14). A node may have several live holders at once, each with its own TTL; a
  claim on a node someone else holds is never refused. The first merged proof wins, and
  the service moves a losing racer's proof to its alternate path
  (``network.gate.queue.queue.move_losing_racers``, D-25 v3.21).
* One live claim per (identity, node): an identity claiming a node it already holds keeps
  its one claim (same ``claim_id``), its expiry moved to ``now + ttl`` when that is later
  (never shortened). The ``claims.live_key`` UNIQUE constraint
  (``"<identity id>:<target>/<node>"``, migration 0006) holds it under any concurrency.
* Per-identity limit: one identity holds at most ``claims_per_identity`` live claims at a
  time (``claim-limit-reached``; the service's setting, published by ``GET /info.json``).
  The count and the insert run in one transaction serialized per identity (SQLite's
  ``BEGIN IMMEDIATE``; PostgreSQL's row lock on the identity), so a race cannot exceed it.
* A claim declares its TTL in seconds within the caps ``policy.json`` publishes (a
  target may override them under ``policy.claim_ttl`` in target.yaml, ruling 13); an
  undeclared TTL gets the minimum, never the maximum.
* Expiry is an auto-release derived at read time from ``expires_at``; the row is reaped
  (``release_reason = expired``) the next time anyone claims the node. Rows are never
  deleted: the history stays.
* Whether a node may be claimed at all is decided by the one ``claimable()`` function of
  ``network.record.derive`` (Foundation ruling 1); its refusal code is the answer's.

Each public operation here is the one function both an HTTP route and its MCP tool call
(D-28, network/api/tools.py).
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Select, and_, bindparam, case, func, select, update

from network import ids
from network.api import db
from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller, Service, authenticate, iso
from network.errors import CATALOG, LemmataError, define
from network.record.read.loader import Graph

define("claim-ttl-out-of-range", None, 422,
       "The declared claim TTL is outside the published flat caps (D-25).",
       "Declare the TTL (`ttl_s` on the route, `ttl` on the tool) between the caps GET "
       "/info.json publishes, or omit it to get the minimum.")
define("claim-limit-reached", None, 409,
       "This identity already holds as many live claims as one identity may (D-25, D-19).",
       "Release a claim you no longer work on (release_claim; list_my_claims lists them), "
       "or let one expire; GET /info.json publishes the limit.")
define("claim-not-found", None, 404, "No claim has this id.",
       "List your claims with GET /claims/mine (list_my_claims).")
define("claim-not-yours", None, 403, "The claim belongs to another identity.",
       "Only the holder may release or renew a claim; list yours with GET /claims/mine.")
define("claim-not-live", None, 409, "The claim was already released or has expired.",
       "Claim the node again with POST /claims (claim_node) if you still work on it.")
define("not-claimable", None, 409, "The node cannot be claimed now (D-25, D-6, D-33).",
       "Read the node's status with get_node and choose a node on the frontier.")


@dataclass(frozen=True)
class TtlCaps:
    """Flat claim TTL caps in seconds: ``min_s`` ≤ ttl ≤ ``max_s`` (D-25)."""

    min_s: int
    max_s: int


def ttl_caps(svc: Service, target: str | None = None) -> TtlCaps:
    """The published caps: the target's override, else policy.json, else the settings."""
    lo, hi = svc.settings.claim_ttl_min_s, svc.settings.claim_ttl_max_s
    try:
        graph: Graph | None = svc.graphs.snapshot().graph
    except LemmataError:
        graph = None
    if graph is not None:
        lo, hi = graph.policy.claim_ttl.min_s, graph.policy.claim_ttl.max_s
        t = graph.targets.get(target or "")
        override = t.record.policy.get("claim_ttl") if t is not None else None
        if isinstance(override, dict):
            lo = int(override.get("min_s", lo))
            hi = int(override.get("max_s", hi))
    return TtlCaps(lo, hi)


def _ttl(svc: Service, target: str, ttl_s: int | None) -> int:
    caps = ttl_caps(svc, target)
    if ttl_s is None:
        return caps.min_s
    if not caps.min_s <= ttl_s <= caps.max_s:
        raise LemmataError("claim-ttl-out-of-range", f"ttl_s {ttl_s} is outside "
                           f"[{caps.min_s}, {caps.max_s}] seconds", field="ttl_s")
    return ttl_s


def _check_claimable(svc: Service, target: str, node: str) -> None:
    """Refuse a node the record says may not be claimed, with a named code.

    Raises:
        LemmataError: ``bad-target-id``/``bad-node-id``; ``graph-unavailable``;
            ``target-not-found``; ``node-not-found``; the code ``claimable()`` names
            (``claim-node-closed``, ``claim-no-steward``, ...) or ``not-claimable``.
    """
    ids.NodeRef(target, node)
    graph = svc.graphs.snapshot().graph
    t = graph.targets.get(target)
    if t is None:
        raise LemmataError("target-not-found", f"no target {target!r}")
    n = t.nodes.get(node)
    if n is None:
        raise LemmataError("node-not-found", f"target {target!r} has no node {node!r}")
    from network.record.derive import claimable

    ok, code = claimable(graph, target, node)
    if not ok:
        entry = CATALOG.get(code or "")
        raise LemmataError(code if entry is not None and code else "not-claimable",
                           f"{target}/{node}: {entry.meaning if entry else code}")


def live_key(identity_id: int, target: str, node: str) -> str:
    """``"<identity id>:<target>/<node>"``: the value of ``claims.live_key`` while that
    identity's claim holds the node (one live claim per identity and node, migration
    0006)."""
    return f"{identity_id}:{target}/{node}"


def reap_expired(session: Any, target: str, node: str, now: int) -> None:
    """Release, each as expired at its own expiry time, every live claim on the node
    whose expiry (epoch seconds) is at or before ``now``, so its holder's live-key slot is
    free for a new claim (D-25: claims auto-release on expiry)."""
    c = db.ClaimRow
    session.execute(update(c)
                    .where(c.target == target, c.node == node, c.live_key.is_not(None),
                           c.expires_at <= now)
                    .values(live_key=None, released_at=c.expires_at, release_reason="expired"))


def hold(svc: Service, session: Any, identity_id: int, target: str, node: str, ttl: int,
         now: int) -> tuple[db.ClaimRow, bool]:
    """Inside ``session``'s transaction: the identity's one live claim on the node, held
    until at least ``now + ttl`` (an existing claim is extended, never shortened), or a
    new claim when it holds none. Other holders are left alone (claims are advisory, D-25).

    Returns:
        ``(row, created)``.

    Raises:
        LemmataError: ``claim-limit-reached`` when a new claim would exceed
            ``settings.claims_per_identity`` live claims for the identity.
    """
    c = db.ClaimRow
    # PostgreSQL: one identity's claims are decided one transaction at a time, so the
    # count below cannot be raced past the limit (SQLite's BEGIN IMMEDIATE already is).
    session.execute(select(db.IdentityRow.id).where(db.IdentityRow.id == identity_id)
                    .with_for_update())
    reap_expired(session, target, node, now)
    key = live_key(identity_id, target, node)
    mine = session.execute(select(c).where(c.live_key == key)).scalar_one_or_none()
    if mine is not None:
        if now + ttl > mine.expires_at:
            mine.ttl_s = ttl
            mine.expires_at = now + ttl
            mine.renewals += 1
        session.flush()
        return mine, False
    held = session.execute(select(func.count(c.id)).where(
        c.identity_id == identity_id, c.live_key.is_not(None), c.expires_at > now)).scalar_one()
    limit = svc.settings.claims_per_identity
    if held >= limit:
        raise LemmataError("claim-limit-reached", f"you hold {held} live claims, the most "
                           f"one identity may hold at once ({limit})")
    row = db.ClaimRow(public_id="claim-" + secrets.token_hex(10), target=target, node=node,
                      identity_id=identity_id, ttl_s=ttl, created_at=now, expires_at=now + ttl,
                      renewals=0, live_key=key)
    session.add(row)
    session.flush()
    return row, True


def _is_live(row: db.ClaimRow, now: int) -> bool:
    return row.released_at is None and row.expires_at > now


def _public(row: db.ClaimRow, pseudonym: str, now: int) -> dict[str, Any]:
    state = ("released" if row.release_reason == "released" else "expired") \
        if not _is_live(row, now) else "live"
    return {
        "claim_id": row.public_id, "target": row.target, "node": row.node,
        "pseudonym": pseudonym, "ttl_s": row.ttl_s, "claimed_at": iso(row.created_at),
        "expires_at": iso(row.expires_at), "state": state,
        "released_at": iso(row.released_at if row.released_at is not None
                           else (row.expires_at if state == "expired" else None)),
        "renewals": row.renewals,
    }


def _next_steps(claim_id: str, others: int) -> str:
    racing = (f" {others} other identit{'y holds' if others == 1 else 'ies hold'} this node "
              "too: claims are advisory, racing is permitted" if others else
              " Claims are advisory: others may claim and race")
    return (f"Work on the node, then release with DELETE /claims/{claim_id} (release_claim). "
            f"To keep it longer, renew before expires_at with POST /claims/{claim_id}/renew "
            f"(renew_claim).{racing}, and the first merged proof wins; a later complete "
            "proof is moved to its alternate path (D-25).")


def claim_node(svc: Service, caller: Caller, *, target: str, node: str,
               ttl_s: int | None = None) -> dict[str, Any]:
    """Register an advisory claim and return its receipt (POST /claims, claim_node; D-25,
    ruling 14). A node someone else holds is claimed all the same (several live holders,
    each with its own TTL); a node the caller already holds keeps its one claim, its
    expiry moved to ``now + ttl`` when that is later (``already_held`` true).

    Args:
        target, node: the node claimed.
        ttl_s: seconds the claim lasts, within the caps; None → the minimum.

    Returns:
        ``{claim_id, target, node, pseudonym, ttl_s, claimed_at, expires_at, state,
        released_at, renewals, already_held, other_holders: [{pseudonym, claimed_at,
        expires_at}], next}``.

    Raises:
        LemmataError: the write guard's codes; ``claim-ttl-out-of-range``;
            ``target-not-found``/``node-not-found`` and the codes ``claimable()`` names
            (``claim-node-closed``, ``claim-no-steward``, ...); ``claim-limit-reached``.
    """
    who = write_identity(svc, caller)
    _check_claimable(svc, target, node)
    ttl = _ttl(svc, target, ttl_s)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row, created = hold(svc, s, who.id, target, node, ttl, now)
        out = _public(row, who.pseudonym, now)
        others = [{k: v for k, v in h.items() if k != "claim_id"}
                  for h in live_for_node(svc, target, node, session=s, now=now)
                  if h["claim_id"] != row.public_id]
    out["already_held"] = not created
    out["other_holders"] = others
    out["next"] = _next_steps(row.public_id, len(others))
    return out


def _own_live(svc: Service, s: Any, claim_id: str, who_id: int, now: int) -> db.ClaimRow:
    row = s.execute(select(db.ClaimRow).where(db.ClaimRow.public_id == claim_id)).scalar_one_or_none()
    if row is None:
        raise LemmataError("claim-not-found", f"no claim {claim_id!r}")
    if row.identity_id != who_id:
        raise LemmataError("claim-not-yours", f"claim {claim_id!r} is held by another identity")
    if not _is_live(row, now):
        raise LemmataError("claim-not-live", f"claim {claim_id!r} ended at "
                           f"{iso(row.released_at or row.expires_at)}")
    return row  # type: ignore[no-any-return]


def release_claim(svc: Service, caller: Caller, *, claim_id: str) -> dict[str, Any]:
    """Release one's own live claim early (DELETE /claims/{id}, release_claim; D-25).

    Raises:
        LemmataError: the write guard's codes; ``claim-not-found``; ``claim-not-yours``;
            ``claim-not-live``.
    """
    who = write_identity(svc, caller)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row = _own_live(svc, s, claim_id, who.id, now)
        row.released_at = now
        row.release_reason = "released"
        row.live_key = None
        s.flush()
        return _public(row, who.pseudonym, now)


def renew_claim(svc: Service, caller: Caller, *, claim_id: str,
                ttl_s: int | None = None) -> dict[str, Any]:
    """Extend one's own live claim before it expires: it then ends ``ttl_s`` seconds
    from now, within the caps (POST /claims/{id}/renew, renew_claim; D-25).

    Raises:
        LemmataError: the write guard's codes; ``claim-not-found``; ``claim-not-yours``;
            ``claim-not-live`` (an expired claim is claimed again instead);
            ``claim-ttl-out-of-range``.
    """
    who = write_identity(svc, caller)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        row = _own_live(svc, s, claim_id, who.id, now)
        ttl = _ttl(svc, row.target, ttl_s)
        row.ttl_s = ttl
        row.expires_at = now + ttl
        row.renewals += 1
        s.flush()
        out = _public(row, who.pseudonym, now)
        others = sum(1 for h in live_for_node(svc, row.target, row.node, session=s, now=now)
                     if h["claim_id"] != claim_id)
    out["next"] = _next_steps(claim_id, others)
    return out


def my_claims(svc: Service, caller: Caller) -> dict[str, Any]:
    """The caller's own live claims with their ids, and each node's other live holders
    (GET /claims/mine, list_my_claims; D-28 notation note 2026-09-24). The one read that
    needs a token.

    Returns:
        ``{pseudonym, limit, claims: [{claim_id, target, node, ttl_s, claimed_at,
        expires_at, ..., other_holders: [{pseudonym, claimed_at, expires_at}]}]}``, oldest
        claim first; ``limit`` is how many live claims one identity may hold.

    Raises:
        LemmataError: ``token-missing``; ``token-invalid``; ``token-expired``.
    """
    who = authenticate(svc, caller.token, caller.address_hash)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        rows = s.execute(select(db.ClaimRow).where(
            db.ClaimRow.identity_id == who.id, db.ClaimRow.released_at.is_(None),
            db.ClaimRow.expires_at > now).order_by(db.ClaimRow.id)).scalars().all()
        out = []
        for row in rows:
            item = _public(row, who.pseudonym, now)
            others = live_for_node(svc, row.target, row.node, session=s, now=now)
            item["other_holders"] = [{k: v for k, v in c.items() if k != "claim_id"}
                                     for c in others if c["claim_id"] != row.public_id]
            out.append(item)
    return {"pseudonym": who.pseudonym, "limit": svc.settings.claims_per_identity,
            "claims": out}


def live_for_node(svc: Service, target: str, node: str, *, session: Any = None,
                  now: int | None = None) -> list[dict[str, Any]]:
    """The node's live claims, oldest first: ``[{claim_id, pseudonym, claimed_at,
    expires_at}]`` (ISO 8601 UTC). The claim id is the holder's receipt: strip it before
    publishing to anyone else."""
    at = svc.now() if now is None else now

    def run(s: Any) -> list[dict[str, Any]]:
        rows = s.execute(select(db.ClaimRow, db.IdentityRow.pseudonym)
                         .join(db.IdentityRow, db.IdentityRow.id == db.ClaimRow.identity_id)
                         .where(db.ClaimRow.target == target, db.ClaimRow.node == node,
                                db.ClaimRow.released_at.is_(None),
                                db.ClaimRow.expires_at > at)
                         .order_by(db.ClaimRow.id)).all()
        return [{"claim_id": r.public_id, "pseudonym": p, "claimed_at": iso(r.created_at),
                 "expires_at": iso(r.expires_at)} for r, p in rows]

    if session is not None:
        return run(session)
    with db.transaction(svc.sessions) as s:
        return run(s)


def registry(svc: Service, now: int | None = None) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every live claim, public view (pseudonym, claimed_at and expires_at only), keyed by
    (target, node), each node's holders oldest first: what ``GET /frontier.json`` overlays
    on the committed product (ruling 13; several holders per node, ruling 14).

    Args:
        now: the instant (whole epoch seconds) the registry is read at; default
            ``svc.now()``. A claim is live at ``now`` iff unreleased and
            ``expires_at > now`` (D-25's auto-release).
    """
    now = svc.now() if now is None else now
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with db.transaction(svc.sessions) as s:
        rows = s.execute(select(db.ClaimRow, db.IdentityRow.pseudonym)
                         .join(db.IdentityRow, db.IdentityRow.id == db.ClaimRow.identity_id)
                         .where(and_(db.ClaimRow.released_at.is_(None),
                                     db.ClaimRow.expires_at > now))
                         .order_by(db.ClaimRow.id)).all()
    for r, p in rows:
        out.setdefault((r.target, r.node), []).append(
            {"pseudonym": p, "claimed_at": iso(r.created_at), "expires_at": iso(r.expires_at)})
    return out


def history_for_node(svc: Service, target: str, node: str) -> list[dict[str, Any]]:
    """Every claim ever made on the node, oldest first, public view (no claim ids)."""
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        rows = s.execute(select(db.ClaimRow, db.IdentityRow.pseudonym)
                         .join(db.IdentityRow, db.IdentityRow.id == db.ClaimRow.identity_id)
                         .where(db.ClaimRow.target == target, db.ClaimRow.node == node)
                         .order_by(db.ClaimRow.id)).all()
        return [{k: v for k, v in _public(r, p, now).items() if k != "claim_id"}
                for r, p in rows]


@dataclass(frozen=True)
class RegistryVersion:
    """A cheap name of the live registry at one instant: equal versions read at ``now``
    and ``now'`` give equal :func:`registry` answers at both (what the frontier cache keys
    on, network/api/frontier/frontier_cache.py).

    Attributes:
        rows, max_id, renewals, expiry_sum: count, largest id, summed renewals and summed
            ``expires_at`` of the rows holding a live key (live, or expired and not yet
            reaped). Every claim write changes one of them: a new claim raises ``max_id``
            (ids only grow: rows are never deleted), a release or reap lowers ``rows``
            (it clears ``live_key`` with ``released_at``), a renewal raises ``renewals``
            and a submission's extension raises ``expiry_sum``.
        next_expiry: the earliest ``expires_at`` after the instant read (epoch seconds),
            or None: the registry stays the same until that moment passes, and the
            version changes when it does.
    """

    rows: int
    max_id: int
    renewals: int
    expiry_sum: int
    next_expiry: int | None


@functools.cache
def _version_query() -> Select[int, int, int, int, Any]:
    """The aggregate :func:`registry_version` runs, built once (``now`` bound per call)."""
    c = db.ClaimRow
    now = bindparam("now", type_=BigInteger)
    return (select(func.count(c.id), func.max(c.id), func.sum(c.renewals),
                   func.sum(c.expires_at),
                   func.min(case((c.expires_at > now, c.expires_at), else_=None)))
            .where(c.live_key.is_not(None)))


def registry_version(svc: Service, now: int) -> RegistryVersion:
    """The :class:`RegistryVersion` at ``now`` (whole epoch seconds): one aggregate query
    over the rows holding a live key (the UNIQUE ``live_key`` index), never the history.

    Claims written by any process sharing the database (another worker, ``lemmata mcp``)
    are seen, since the database is asked every time.
    """
    # One read per request: no ORM session, and no SQLite write lock (db.READ_ONLY).
    with svc.engine.connect().execution_options(**{db.READ_ONLY: True}) as conn:
        found = conn.execute(_version_query(), {"now": now}).one()
    rows, max_id, renewals, expiry_sum, nxt = found
    return RegistryVersion(int(rows or 0), int(max_id or 0), int(renewals or 0),
                           int(expiry_sum or 0), None if nxt is None else int(nxt))
