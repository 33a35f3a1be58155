"""The signed pseudonym <-> GitHub login binding a web sign-in files (ruling 9, D-35
v3.33, issue 13), and the operator binding the operator's command files (ruling 14, D-32
v3.33, issue 40).

When a login first binds an identity (``POST /session/pseudonym``), the service files
``identities/<pseudonym>.yaml`` (``identity/v1``: ``pseudonym``, ``github``, ``since``)
signed with the network's approval key for that pseudonym, as one pull request the gate
judges at step 2 (:mod:`network.gate.records.actors`: the record names its submitter, is signed
for its own pseudonym, and names a login no other identity record holds). Role rules
then read the binding from the graph (network/api/identity/pseudonyms.py).

:func:`prepare_binding` builds, signs and judges the record before anything is written;
:func:`file_binding` opens the pull request. The gate's verdict decides; the service only
refuses beforehand what the gate would refuse (records.gate_findings).

On a network without GitHub sign-in the operator's command is the way in:
:func:`bind_operator_identity` files ``identities/<pseudonym>.yaml`` with no login, signed
by the approval key for an identity the operator vouched for, so that identity, and no
other, holds the roles the graph gives its pseudonym.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from network.api.identity.role_acts import sign_role_act
from network.api.service import Service, Who, iso
from network.api.submit.records import (
    IndexKey,
    copy_refusal,
    dump_yaml,
    gate_findings,
    graph_of,
    normalized_record_sha256,
    open_record_pr,
    pr_body,
    receipt,
    refuse_findings,
    sync_open_rows,
    validate_record,
)
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.record import models as m


@dataclass(frozen=True)
class Filing:
    """A binding ready to open: its path, bytes and submissions-index key; None parts
    when the graph already binds the pseudonym to the login (nothing to file)."""

    path: str
    files: dict[str, bytes] | None
    key: IndexKey


def prepare_binding(svc: Service, pseudonym: str, login: str) -> Filing:
    """Build, sign and judge ``identities/<pseudonym>.yaml`` binding ``login``.

    Returns:
        The :class:`Filing`; ``files`` None when the graph's record already binds this
        pseudonym to this login.

    Raises:
        LemmataError: ``approval-key-missing``; ``invalid-record``; step-2 codes the gate
            would give (``identity-login-bound``: another identity record holds the login;
            ``record-deleted``: the pseudonym's record exists with another login).
    """
    graph = graph_of(svc)
    path = f"identities/{pseudonym}.yaml"
    key = IndexKey("", "", Kind.IDENTITY.value, None,
                   normalized_record_sha256({"github": login.casefold()}))
    held = graph.identities.get(pseudonym)
    if held is not None and held.github is not None \
            and held.github.casefold() == login.casefold():
        return Filing(path, None, key)
    day = (iso(svc.now()) or "")[:10]
    rec = validate_record(m.Identity, {"pseudonym": pseudonym, "github": login,
                                       "since": day}, path)
    who = Who(0, pseudonym, login, svc.settings.dco_version)
    rec = sign_role_act(svc, m.Identity, rec, who)
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, pseudonym, Kind.IDENTITY))
    return Filing(path, files, key)


def file_binding(svc: Service, who: Who, filing: Filing) -> dict[str, Any] | None:
    """Open the binding's pull request for ``who`` (None when there is nothing to file).

    Raises:
        LemmataError: ``record-copy`` (an open pull request already binds this login);
            ``queue-down``; ``forge-not-configured``; the forge's codes.
    """
    if filing.files is None:
        return None
    opened = open_record_pr(
        svc, who, key=filing.key, files=filing.files,
        title=f"identity: {who.pseudonym} is GitHub {who.github_login}",
        body=pr_body(f"Binds pseudonym {who.pseudonym} to GitHub login {who.github_login} "
                     "(signed in on the site)", who,
                     "Ruling 9: the binding is a signed record; step 2 alone (ruling 6)"),
        conflicts=[copy_refusal(filing.key, f"the binding of {who.github_login}")])
    return receipt(opened, kind="identity", target="", node=None,
                   next_step="Once merged, role rules read this binding from the graph.")


# --- the operator's binding (ruling 14, issue 40) -----------------------------------------


def operator_binding_key(pseudonym: str) -> IndexKey:
    """Where an operator binding of ``pseudonym`` sits in the submissions index: one per
    pseudonym, case aside, so a second filing while one is open is found, never opened."""
    return IndexKey("", "", Kind.IDENTITY.value, None,
                    normalized_record_sha256({"operator-binding": pseudonym.casefold()}))


def bind_operator_identity(svc: Service, pseudonym: str) -> dict[str, Any]:
    """File the operator binding of an identity the network's operator vouched for:
    ``identities/<pseudonym>.yaml`` (``identity/v1``) with no GitHub login and no SSH
    signer, signed for the pseudonym by the network's approval key, as one pull request
    the gate judges at step 2 (:mod:`network.gate.records.actors`), opened in the identity's name
    (ruling 14, D-32 v3.33, ruling 9; issue 40). Once merged, the role rule
    (:func:`network.api.identity.pseudonyms.check_role_binding`) lets that identity, and no other,
    hold the roles the graph gives the pseudonym. ``lemmata token issue`` and ``lemmata
    session link`` call it with a service holding the data folder's forge and keys.

    Args:
        svc: a service with the network's forge (``svc.forge``), keys (``approval``) and
            the graph its main branch holds.
        pseudonym: the operator-made identity's pseudonym (case aside).

    Returns:
        ``{state, path, ...}``: ``state`` ``on-record`` (the graph already holds this
        binding), ``open`` (a pull request filing it is open: ``submission_id``,
        ``pull_request``, ``url``, ``opened`` true when this call opened it) or
        ``not-filed`` (``code`` and ``reason``: the graph binds the name otherwise, or
        this service cannot file it: no graph, forge or approval key, a step-2 finding).

    Raises:
        LemmataError: ``identity-unknown`` (no operator-made identity holds the
            pseudonym).
    """
    from sqlalchemy import select

    from network.api import db
    from network.api.identity import pseudonyms

    with svc.sessions() as s:
        ident = s.execute(select(db.IdentityRow).where(
            db.IdentityRow.pseudonym_key == pseudonym.casefold())).scalar_one_or_none()
        if ident is None or ident.proof_kind != "operator":
            raise LemmataError("identity-unknown", f"no identity the operator vouched for "
                               f"holds {pseudonym!r}")
        who = Who(ident.id, ident.pseudonym, None, ident.dco_version)
    path = f"identities/{who.pseudonym}.yaml"
    try:
        graph = graph_of(svc)
        holder = pseudonyms.role_holders(graph).get(who.pseudonym.casefold())
        if holder is not None and holder.binding == pseudonyms.OPERATOR:
            return {"state": "on-record", "path": path}
        if holder is not None and holder.binding is not None:
            raise LemmataError("pseudonym-reserved", f"identities/{holder.pseudonym}.yaml "
                               f"binds {holder.pseudonym!r} otherwise ({holder.binding})")
        key = operator_binding_key(who.pseudonym)
        for row in sync_open_rows(svc, "", ""):
            if row.kind == key.kind and row.normalized_sha256 == key.normalized_sha256:
                return {"state": "open", "path": path, "submission_id": row.id,
                        "pull_request": row.pull_request, "url": row.pull_request_url,
                        "opened": False}
        day = (iso(svc.now()) or "")[:10]
        rec = validate_record(m.Identity, {"pseudonym": who.pseudonym, "since": day}, path)
        files = {path: dump_yaml(sign_role_act(svc, m.Identity, rec, who))}
        refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.IDENTITY))
        opened = open_record_pr(
            svc, who, key=key, files=files,
            title=f"identity: {who.pseudonym}, vouched for by the network's operator",
            body=pr_body(f"Binds pseudonym {who.pseudonym} to the identity the network's "
                         "operator vouched for (no GitHub sign-in on this network)", who,
                         "Ruling 14 and D-32 v3.33: the operator's command is the way in; "
                         "the binding is a record the approval key signs (ruling 9)"),
            conflicts=[copy_refusal(key, f"the operator binding of {who.pseudonym}")])
    except LemmataError as exc:
        return {"state": "not-filed", "path": path, "code": exc.code, "reason": exc.detail}
    return {"state": "open", "path": path, "submission_id": opened.submission_id,
            "pull_request": opened.pull_request, "url": opened.url, "opened": True}
