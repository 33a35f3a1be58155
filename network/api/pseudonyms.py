"""Which pseudonyms a new identity may take (D-19 v3.28, ruling 9, issue 16).

Role checks read roles by pseudonym from the graph (curators.json,
``targets/<id>/stewards/``), so a pseudonym the graph names as a role holder is worth
squatting. The service therefore reserves, besides its own names and the graph's
``policy.json`` list:

* every **role pseudonym**: each curator, each steward of every target (withdrawn ones
  too), the owner ``policy.json`` names (whose signature alone changes curators.json, D-22
  v3.33), and each pseudonym with an ``identities/<pseudonym>.yaml`` record. A role
  pseudonym is *bound* when its identity record names a GitHub login: a GitHub proof of
  that login may hold it, nobody else may (an unbound one is held by no new token until
  the graph binds it);
* every **look-alike** of a reserved, role or existing pseudonym: equal by the one name
  rule (:func:`network.api.confusables.fold`: case and the separators ``_.-`` aside, as
  the reserved-name check compares; issue 39: ``steve.`` is ``steve``), or with a meeting
  TR39 skeleton over that fold (network/api/confusables.py: ``aIice`` is ``alice``,
  ``g4te`` is ``gate``).

Everything is read from the graph through ``network.record`` (the graph the service
serves) and the identities table; nothing is cached between requests except the pure
skeleton keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from network.api import confusables, db
from network.api.service import Service
from network.errors import LemmataError, define
from network.record.loader import Graph

define("pseudonym-confusable", None, 409,
       "The pseudonym looks like a reserved, role-holding or existing one: equal with case "
       "and the separators _ . - aside, or the same Unicode TR39 skeleton (steve. and "
       "steve, aIice and alice, g4te and gate).",
       "Choose a pseudonym that does not read as another's; GET /info.json lists the "
       "reserved ones.")


@dataclass(frozen=True)
class RoleHolder:
    """A pseudonym the graph names as a role holder, and the GitHub login it is bound to
    (from its ``identities/<pseudonym>.yaml``), if any."""

    pseudonym: str
    roles: frozenset[str]
    github: str | None


_last: list[tuple[Graph, dict[str, RoleHolder]]] = []  # the newest graph's answer only


def role_holders(graph: Graph | None) -> dict[str, RoleHolder]:
    """Case-folded pseudonym → :class:`RoleHolder` for every curator, steward, the owner and
    identity record of ``graph`` (empty without a graph). The answer for the one most
    recent graph is kept (a graph snapshot is immutable)."""
    if graph is None:
        return {}
    if _last and _last[0][0] is graph:
        return _last[0][1]
    out = _role_holders(graph)
    _last[:] = [(graph, out)]
    return out


def _role_holders(graph: Graph) -> dict[str, RoleHolder]:
    roles: dict[str, tuple[str, set[str]]] = {}

    def add(name: str, role: str) -> None:
        roles.setdefault(name.casefold(), (name, set()))[1].add(role)

    for c in graph.curators.curators:
        add(c.pseudonym, "curator")
    for t in graph.targets.values():
        for rf in t.stewards:
            add(rf.record.pseudonym, "steward")
        for af in t.steward_acts:  # steward/v4 joins name stewards too (D-32 v3.33)
            if af.record.action == "join":
                add(af.record.pseudonym, "steward")
    for name in graph.identities:
        add(name, "identity")
    from network.record.derive import policy_numbers

    owner = policy_numbers(graph).owner  # D-22 v3.33: curators.json is the owner's alone
    if owner:
        add(owner, "owner")
    bound = {p.casefold(): ident.github for p, ident in graph.identities.items()}
    return {k: RoleHolder(name, frozenset(r), bound.get(k)) for k, (name, r) in roles.items()}


def _graph(svc: Service) -> Graph | None:
    try:
        return svc.graphs.snapshot().graph
    except LemmataError:
        return None


def check_role_binding(svc: Service, pseudonym: str, github_login: str | None) -> None:
    """Refuse ``pseudonym`` to anyone but the GitHub login its identity record binds.

    Args:
        pseudonym: the pseudonym asked for (new or existing identity).
        github_login: the login the request proved, or None (a precheck proof).

    Raises:
        LemmataError: ``pseudonym-reserved`` when the graph names ``pseudonym`` as a role
            holder and ``github_login`` is not the login bound to it.
    """
    holder = role_holders(_graph(svc)).get(pseudonym.casefold())
    if holder is None:
        return
    if holder.github is None or github_login is None \
            or holder.github.casefold() != github_login.casefold():
        roles = ", ".join(sorted(holder.roles))
        raise LemmataError("pseudonym-reserved", f"{pseudonym!r} holds a role in the graph "
                           f"({roles}); only the GitHub login its identities/ record binds "
                           "may hold it")


def check_look_alikes(svc: Service, pseudonym: str, reserved: list[str]) -> None:
    """Refuse a new pseudonym that looks like a reserved, role-holding or existing one
    (but is not that one: an identity re-proving its own name is not refused here).

    Args:
        pseudonym: the new identity's pseudonym.
        reserved: the service's and the policy's reserved names.

    Raises:
        LemmataError: ``pseudonym-confusable`` naming the pseudonym it looks like.

    Scans the identities table (one column): a token issuance is rare and rate-limited.
    """
    own = pseudonym.casefold()
    mine = confusables.keys(pseudonym)
    others = list(reserved) + [h.pseudonym for h in role_holders(_graph(svc)).values()]
    with svc.sessions() as s:
        others += list(s.execute(select(db.IdentityRow.pseudonym)).scalars())
    for other in others:
        if other.casefold() != own and mine & confusables.keys(other):
            raise LemmataError("pseudonym-confusable", f"{pseudonym!r} looks like "
                               f"{other!r}")
