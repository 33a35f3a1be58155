"""Claim history on the frontier (D-25: "claim status and claim history"; issue 18).

The service's claims table keeps every claim ever made (rows are never deleted, network/api
/db.py ``ClaimRow``), so the history is service state, like the live registry (D-35: "the
overlay is never evidentiary"). ``GET /frontier.json`` and list_frontier overlay it on each
entry's ``claim_history`` exactly as they overlay live claims; the committed product's
``claim_history`` stays empty.

Each item is the public view only: ``{pseudonym, claimed_at, expires_at, ended_at, ended}``
with ``ended`` one of ``live``, ``released`` or ``expired`` at the instant read, and never
a claim id (what release_claim takes is the holder's alone).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select

from network.api import db
from network.api.service import Service, iso

#: Most recent claims published per node; ``claim_history_total`` counts them all.
HISTORY_CAP = 20


def history(svc: Service, now: int) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every node's claims at ``now`` (whole epoch seconds), newest :data:`HISTORY_CAP`
    kept, oldest first within them, keyed by (target, node).

    A claim is ``live`` iff unreleased and ``expires_at > now`` (D-25's auto-release at
    read time), ``released`` when its holder released it (or a withdrawal did), else
    ``expired``; ``ended_at`` is when it ended (None while live).
    """
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    c = db.ClaimRow
    with db.transaction(svc.sessions) as s:
        rows = s.execute(select(c.target, c.node, c.created_at, c.expires_at, c.released_at,
                                c.release_reason, db.IdentityRow.pseudonym)
                         .join(db.IdentityRow, and_(db.IdentityRow.id == c.identity_id))
                         .order_by(c.id)).all()
    for target, node, created, expires, released, reason, pseudonym in rows:
        live = released is None and expires > now
        ended = "live" if live else ("released" if reason == "released" else "expired")
        end = None if live else (released if released is not None else expires)
        out.setdefault((target, node), []).append(
            {"pseudonym": pseudonym, "claimed_at": iso(created), "expires_at": iso(expires),
             "ended_at": iso(end), "ended": ended})
    return out


def overlay_entry(entry: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """``entry`` with ``claim_history`` the newest :data:`HISTORY_CAP` of ``items`` and
    ``claim_history_total`` their number (a copy; ``entry`` is left untouched)."""
    return {**entry, "claim_history": items[-HISTORY_CAP:], "claim_history_total": len(items)}
