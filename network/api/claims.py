"""The live claim registry: advisory claims with a TTL inside published flat caps (D-25).

* A claim declares its TTL in seconds within the caps ``policy.json`` publishes (a
  target may override them under ``policy.claim_ttl`` in target.yaml, ruling 13); an
  undeclared TTL gets the minimum, never the maximum.
* One live holder per node at a time, held by the ``claims.live_key`` UNIQUE constraint
  inside a transaction, so concurrent claimers cannot both win and no write is lost.
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
from sqlalchemy.exc import IntegrityError

from network import ids
from network.api import db
from network.api.service import Caller, Service, authenticate, iso, write_identity
from network.errors import CATALOG, LemmataError, define
from network.record.loader import Graph

define("claim-ttl-out-of-range", None, 422,
       "The declared claim TTL is outside the published flat caps (D-25).",
       "Declare ttl_s between the caps GET /info.json publishes, or omit it to get the "
       "minimum.")
define("claim-held", None, 409, "Another live claim holds this node (one holder at a time).",
       "Claims are advisory: pick another node from the frontier, wait for the expiry named, "
       "or race without a claim (D-25).")
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
                           f"[{caps.min_s}, {caps.max_s}] seconds")
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


def reap_expired(session: Any, key: str, now: int) -> None:
    """Release, as expired at its own expiry time, the live claim on ``key``
    (``<target>/<node>``) whose expiry (epoch seconds) is at or before ``now``, so its
    live-key slot is free for a new holder (D-25: claims auto-release on expiry)."""
    session.execute(update(db.ClaimRow)
                    .where(db.ClaimRow.live_key == key, db.ClaimRow.expires_at <= now)
                    .values(live_key=None, released_at=db.ClaimRow.expires_at,
                            release_reason="expired"))


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


def _next_steps(claim_id: str) -> str:
    return (f"Work on the node, then release with DELETE /claims/{claim_id} (release_claim). "
            f"To keep it longer, renew before expires_at with POST /claims/{claim_id}/renew "
            "(renew_claim). Claims are advisory: others may race, and the first merged proof "
            "wins (D-25).")


def claim_node(svc: Service, caller: Caller, *, target: str, node: str,
               ttl_s: int | None = None) -> dict[str, Any]:
    """Register an advisory claim and return its receipt (POST /claims, claim_node; D-25).

    Args:
        target, node: the node claimed.
        ttl_s: seconds the claim lasts, within the caps; None → the minimum.

    Returns:
        ``{claim_id, target, node, pseudonym, ttl_s, claimed_at, expires_at, state,
        released_at, renewals, next}``.

    Raises:
        LemmataError: the write guard's codes; ``claim-ttl-out-of-range``;
            ``target-not-found``/``node-not-found`` and the codes ``claimable()`` names
            (``claim-node-closed``, ``claim-no-steward``, ...); ``claim-held`` (naming holder and expiry).
    """
    who = write_identity(svc, caller)
    _check_claimable(svc, target, node)
    ttl = _ttl(svc, target, ttl_s)
    key = f"{target}/{node}"
    now = svc.now()
    public_id = "claim-" + secrets.token_hex(10)
    try:
        with db.transaction(svc.sessions) as s:
            reap_expired(s, key, now)
            row = db.ClaimRow(public_id=public_id, target=target, node=node,
                              identity_id=who.id, ttl_s=ttl, created_at=now,
                              expires_at=now + ttl, renewals=0, live_key=key)
            s.add(row)
            s.flush()
            out = _public(row, who.pseudonym, now)
    except IntegrityError:
        raise _held(svc, key, who.id) from None
    out["next"] = _next_steps(public_id)
    return out


def _held(svc: Service, key: str, my_id: int) -> LemmataError:
    with db.transaction(svc.sessions) as s:
        found = s.execute(select(db.ClaimRow, db.IdentityRow.pseudonym)
                          .join(db.IdentityRow, db.IdentityRow.id == db.ClaimRow.identity_id)
                          .where(db.ClaimRow.live_key == key)).first()
    if found is None:
        return LemmataError("claim-held", f"{key} was claimed concurrently; try again")
    row, pseudonym = found
    mine = f" (yours: {row.public_id}; renew it instead)" if row.identity_id == my_id else ""
    return LemmataError("claim-held", f"{key} is claimed by {pseudonym} until "
                        f"{iso(row.expires_at)}{mine}")


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
    out["next"] = _next_steps(claim_id)
    return out


def my_claims(svc: Service, caller: Caller) -> dict[str, Any]:
    """The caller's own live claims with their ids, and each node's other live holders
    (GET /claims/mine, list_my_claims). The one read that needs a token.

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
            others = live_for_node(svc, row.target, row.node, session=s)
            item["other_holders"] = [{k: v for k, v in c.items() if k != "claim_id"}
                                     for c in others if c["claim_id"] != row.public_id]
            out.append(item)
    return {"pseudonym": who.pseudonym, "claims": out}


def live_for_node(svc: Service, target: str, node: str, *, session: Any = None) -> list[dict[str, Any]]:
    """The node's live claims: ``[{claim_id, pseudonym, expires_at}]``. The claim id is
    the holder's receipt: strip it before publishing to anyone else."""
    now = svc.now()

    def run(s: Any) -> list[dict[str, Any]]:
        rows = s.execute(select(db.ClaimRow, db.IdentityRow.pseudonym)
                         .join(db.IdentityRow, db.IdentityRow.id == db.ClaimRow.identity_id)
                         .where(db.ClaimRow.target == target, db.ClaimRow.node == node,
                                db.ClaimRow.released_at.is_(None),
                                db.ClaimRow.expires_at > now)).all()
        return [{"claim_id": r.public_id, "pseudonym": p, "expires_at": iso(r.expires_at)}
                for r, p in rows]

    if session is not None:
        return run(session)
    with db.transaction(svc.sessions) as s:
        return run(s)


def registry(svc: Service, now: int | None = None) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every live claim, public view (pseudonym and expiry only), keyed by (target, node):
    what ``GET /frontier.json`` overlays on the committed product (ruling 13).

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
            {"pseudonym": p, "expires_at": iso(r.expires_at)})
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
    on, network/api/frontier_cache.py).

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
