"""Which pseudonyms a new identity may take (D-19 v3.28, ruling 9, issue 16).

Role checks read roles by pseudonym from the graph (curators.json,
``targets/<id>/stewards/``), so a pseudonym the graph names as a role holder is worth
squatting. The service therefore reserves, besides its own names and the graph's
``policy.json`` list:

* every **role pseudonym**: each curator, each steward of every target (withdrawn ones
  too), the owner ``policy.json`` names (whose signature alone changes curators.json, D-22
  v3.33), and each pseudonym with an ``identities/<pseudonym>.yaml`` record. A role
  pseudonym is *bound* by that record (:class:`RoleHolder` ``binding``): one naming a
  GitHub login is held by a GitHub proof of that login alone; an **operator binding**
  (no login, no SSH signer, signed for the pseudonym by the network's approval key, which
  the operator's command files: ``lemmata token issue``/``session link``, ruling 14, D-32
  v3.33, issue 40) is held by the identity the network's operator vouched for under that
  name alone; an unbound one, or one bound to SSH keys, by no identity of the service
  until the graph binds it (a new operator-vouched identity takes an unbound one only
  when the operator says it holds the role, :func:`check_operator_binding`);
* every **look-alike** of a reserved, role or existing pseudonym: equal by the one name
  rule (:func:`network.api.identity.confusables.fold`: case and the separators ``_.-`` aside, as
  the reserved-name check compares; issue 39: ``steve.`` is ``steve``), or with a meeting
  TR39 skeleton over that fold (network/api/identity/confusables.py: ``aIice`` is ``alice``,
  ``g4te`` is ``gate``).

Everything is read from the graph through ``network.record`` (the graph the service
serves) and the identities table; nothing is cached between requests except the pure
skeleton keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from network.api import db
from network.api.identity import confusables
from network.api.identity.session_store import way_in
from network.api.service import Caller, Service, Who, authenticate, rate_hit
from network.errors import LemmataError, define
from network.record import models as m
from network.record.read.loader import Graph

define("pseudonym-confusable", None, 409,
       "The pseudonym looks like a reserved, role-holding or existing one: equal with case "
       "and the separators _ . - aside, or the same Unicode TR39 skeleton (steve. and "
       "steve, aIice and alice, g4te and gate).",
       "Choose a pseudonym that does not read as another's; GET /info.json lists the "
       "reserved ones.")


#: How an ``identities/<pseudonym>.yaml`` record binds its pseudonym (issue 40).
GITHUB, OPERATOR, SSH, UNVERIFIED = "github", "operator", "ssh", "unverified"

#: The roles the graph names a pseudonym for (the ``identity`` entry is only a record).
NAMED_ROLES = frozenset({"curator", "steward", "owner"})


@dataclass(frozen=True)
class RoleHolder:
    """A pseudonym the graph names as a role holder, and how its ``identities/`` record
    binds it.

    Attributes:
        pseudonym: the name as the graph spells it.
        roles: ``curator``, ``steward``, ``owner``, ``identity`` (a record exists).
        github: the GitHub login the record binds, if any.
        binding: None (no record), :data:`GITHUB`, :data:`OPERATOR` (no login, no SSH
            signer, the approval key's signature for the pseudonym verifying against the
            graph's keys/: the operator's command filed it), :data:`SSH` (SSH signers
            listed) or :data:`UNVERIFIED` (none of these).
    """

    pseudonym: str
    roles: frozenset[str]
    github: str | None
    binding: str | None = None


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
    records = {p.casefold(): ident for p, ident in graph.identities.items()}
    out: dict[str, RoleHolder] = {}
    for k, (name, r) in roles.items():
        ident = records.get(k)
        out[k] = RoleHolder(name, frozenset(r), ident.github if ident else None,
                            _binding(graph, ident) if ident else None)
    return out


def _binding(graph: Graph, ident: m.Identity) -> str:
    """How ``ident`` binds its pseudonym (:class:`RoleHolder` ``binding``)."""
    if ident.github is not None:
        return GITHUB
    if ident.ssh_signers:
        return SSH
    sig = ident.signature
    if sig is None or sig.kind != "approval":
        return UNVERIFIED
    from network.record import trust

    try:
        trust.check_role_signature(ident, sig, actors=frozenset({ident.pseudonym}),
                                   holds=lambda who, _d: who == ident.pseudonym,
                                   at_date=ident.since, keys=graph.keys,
                                   identities=graph.identities)
    except LemmataError:
        return UNVERIFIED
    return OPERATOR


def _graph(svc: Service) -> Graph | None:
    try:
        return svc.graphs.snapshot().graph
    except LemmataError:
        return None


def role_holder(svc: Service, pseudonym: str) -> RoleHolder | None:
    """The :class:`RoleHolder` the served graph names under ``pseudonym`` (case aside),
    or None when the graph names it as no role holder (or no graph is served)."""
    return role_holders(_graph(svc)).get(pseudonym.casefold())


def operator_made(svc: Service, pseudonym: str) -> bool:
    """Whether the service's identity under ``pseudonym`` (case aside) is one the
    network's operator vouched for (``proof_kind`` ``operator``: ``lemmata token issue``,
    ruling 14)."""
    with svc.sessions() as s:
        kind = s.execute(select(db.IdentityRow.proof_kind).where(
            db.IdentityRow.pseudonym_key == pseudonym.casefold())).scalar_one_or_none()
    return kind == "operator"


def check_role_binding(svc: Service, pseudonym: str, github_login: str | None, *,
                       operator: bool | None = None) -> None:
    """Refuse ``pseudonym`` to anyone but the identity its ``identities/`` record binds
    (issue 16; issue 40, ruling 14, D-32 v3.33): the GitHub login a GitHub binding names,
    or, for an operator binding, the identity the network's operator vouched for.

    Args:
        pseudonym: the pseudonym asked for (new or existing identity).
        github_login: the login the request proved, or None (a precheck proof, an
            operator-vouched identity).
        operator: whether the identity asking is operator-vouched: True or False for a
            new identity (its proof says), None to read it from the identity the service
            holds under ``pseudonym`` (an existing identity's act).

    Raises:
        LemmataError: ``pseudonym-reserved`` when the graph names ``pseudonym`` as a role
            holder and the asker is not the identity its record binds; the detail says
            what binds it and how its holder gets in on this network.
    """
    holder = role_holder(svc, pseudonym)
    if holder is None:
        return
    if holder.binding == GITHUB and holder.github is not None and github_login is not None \
            and holder.github.casefold() == github_login.casefold():
        return
    if holder.binding == OPERATOR:
        vouched = operator_made(svc, pseudonym) if operator is None else operator
        if vouched and github_login is None:
            return
    roles = ", ".join(sorted(holder.roles))
    raise LemmataError("pseudonym-reserved", f"{pseudonym!r} holds a role in the graph "
                       f"({roles}); {_bound_to(svc, holder)}")


def _bound_to(svc: Service, holder: RoleHolder) -> str:
    """What binds a role pseudonym and how its holder gets in, for a refusal's detail."""
    name = holder.pseudonym
    if holder.binding == GITHUB:
        return (f"identities/{name}.yaml binds it to GitHub login {holder.github}, who "
                "alone holds it: " + way_in(svc, name, github=True))
    if holder.binding == OPERATOR:
        return (f"identities/{name}.yaml binds it to the identity this network's operator "
                "vouched for, who alone holds it: " + way_in(svc, name))
    if holder.binding == SSH:
        return (f"identities/{name}.yaml binds it to SSH keys only: its holder signs role "
                "acts with those keys and pushes them by plain git")
    return (f"no identities/{name}.yaml binds it yet, so no identity of the service holds "
            "it: where its holder has no GitHub binding, the network's operator vouches "
            f"for them (`lemmata token issue --pseudonym {name} --dco --holds-role`, or "
            f"`lemmata session link --pseudonym {name}` for the operator-made identity "
            "already holding it), which files that binding; once it merges the holder "
            "acts")


def check_operator_binding(svc: Service, pseudonym: str, *, holds_role: bool,
                           existing: bool) -> None:
    """Whether the network's operator may vouch for ``pseudonym`` (``lemmata token
    issue``, ``lemmata session link``; ruling 14, D-32 v3.33, issue 40): a pseudonym the
    graph names as no role holder, or one whose ``identities/`` record is an operator
    binding or absent. An absent binding is taken only by an identity the operator made
    before (``existing``: it got the role by its own act, through its own session) or
    when the operator says the person holds the role the graph names (``holds_role``);
    the command then files the binding (network/api/people/identity_records.py). A pseudonym
    bound to a GitHub login or SSH keys is never the operator's to vouch for.

    Args:
        pseudonym: the identity's pseudonym.
        holds_role: the operator vouches that this person holds the graph's role
            (``--holds-role``).
        existing: the service already holds an operator-made identity under the name.

    Raises:
        LemmataError: ``pseudonym-reserved``.
    """
    holder = role_holder(svc, pseudonym)
    if holder is None:
        return
    if holder.binding in (None, OPERATOR) and (existing or holds_role):
        return
    roles = ", ".join(sorted(holder.roles))
    if holder.binding is None or holder.binding == OPERATOR:
        raise LemmataError("pseudonym-reserved", f"{pseudonym!r} holds a role in the graph "
                           f"({roles}) and no identity of this service holds it: pass "
                           "--holds-role if you vouch that this person is its holder (the "
                           f"command then files identities/{holder.pseudonym}.yaml, signed "
                           "by the network's approval key), or choose another pseudonym")
    raise LemmataError("pseudonym-reserved", f"{pseudonym!r} holds a role in the graph "
                       f"({roles}); {_bound_to(svc, holder)}; an operator cannot vouch for "
                       "it")


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


def write_identity(svc: Service, caller: Caller, *, check_dco: bool = True) -> Who:
    """The guard of every token-authenticated write (D-19, D-23, D-35).

    Order: the caller's address is counted, then the token is checked (after the
    address's failed authentications), then the identity is counted, then an identity
    whose pseudonym the graph names as a role holder must be the GitHub login bound to
    it (issue 16: a squatter never acts), then (unless ``check_dco`` is False) the
    identity's accepted DCO version must be the current one. Each step commits on its own.

    Raises:
        LemmataError: ``rate-limited``; ``token-missing``/``token-invalid``/
            ``token-expired``; ``pseudonym-reserved``; ``dco-not-accepted``.
    """
    rate_hit(svc, f"address:{caller.address_hash}:writes", svc.settings.rate_writes_per_address)
    who = caller.who if caller.who is not None else authenticate(svc, caller.token,
                                                                 caller.address_hash)
    rate_hit(svc, f"identity:{who.id}:writes", svc.settings.rate_writes_per_identity)
    check_role_binding(svc, who.pseudonym, who.github_login)  # a squatter never acts
    if check_dco and who.dco_version != svc.settings.dco_version:
        raise LemmataError("dco-not-accepted", f"{who.pseudonym} accepted DCO "
                           f"{who.dco_version or 'none'}; the current version is "
                           f"{svc.settings.dco_version}")
    return who
