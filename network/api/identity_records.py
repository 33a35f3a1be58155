"""The signed pseudonym <-> GitHub login binding a web sign-in files (ruling 9, D-35
v3.33, issue 13).

When a login first binds an identity (``POST /session/pseudonym``), the service files
``identities/<pseudonym>.yaml`` (``identity/v1``: ``pseudonym``, ``github``, ``since``)
signed with the network's approval key for that pseudonym, as one pull request the gate
judges at step 2 (:mod:`network.gate.actors`: the record names its submitter, is signed
for its own pseudonym, and names a login no other identity record holds). Role rules
then read the binding from the graph (network/api/pseudonyms.py).

:func:`prepare_binding` builds, signs and judges the record before anything is written;
:func:`file_binding` opens the pull request. The gate's verdict decides; the service only
refuses beforehand what the gate would refuse (records.gate_findings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from network.api.records import (
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
    validate_record,
)
from network.api.role_acts import sign_role_act
from network.api.service import Service, Who, iso
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
