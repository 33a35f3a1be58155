"""Display names: ``POST /me/name`` and the ``set_display_name`` tool (D-3 v3.37, D-35
"names and registrations").

:func:`set_display_name` opens one pull request writing ``names/<pseudonym>.yaml``
(``display-name/v1``) for the caller's own pseudonym and no other, signed with the
network's approval key for that pseudonym (ruling 14: the service signs what it files for
an identity). A record with no ``name`` withdraws the last one (the site then shows the
pseudonym alone). The gate's step 2 (:mod:`network.gate.records.actors`) admits it only for its
own pseudonym and signed for it, so a hand-opened pull request cannot name someone else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller, Service, iso
from network.api.submit.record_pr import file_role_act
from network.api.submit.records import (
    IndexKey,
    graph_of,
    normalized_record_sha256,
    receipt,
    validate_record,
)
from network.gate.artifacts import Kind
from network.record import models as m

if TYPE_CHECKING:
    from network.api.people.web_session import Person

_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 and "
         "merges it, and the site names you by it from the next rebuild (D-3 v3.37).")


def set_display_name(svc: Service, caller: Caller, *, name: str | None = None,
                     link: str | None = None, person: Person | None = None) -> dict[str, Any]:
    """Open a pull request writing ``names/<pseudonym>.yaml`` for the caller (POST
    /me/name, set_display_name; D-3 v3.37, D-35).

    Args:
        name: the display name (at most 200 characters); None withdraws the last one.
        link: an ``http(s)://`` page of the person's (an institutional page, ORCID).
        person: the signed-in person, when the route was reached on a web session.

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``).

    Raises:
        LemmataError: the write guard's codes (``dco-not-accepted`` among them);
            ``invalid-record`` (a name too long, a link that is no http(s) URL);
            ``approval-key-missing``; ``record-copy`` (the same name is already open);
            ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller if person is not None else caller)
    graph = graph_of(svc)
    path = f"names/{who.pseudonym}.yaml"
    rec = validate_record(m.DisplayName, {"pseudonym": who.pseudonym, "name": name,
                                          "link": link, "date": iso(svc.now())}, path)
    rec = {k: v for k, v in rec.items() if v is not None or k in ("pseudonym", "date")}
    key = IndexKey("", "", Kind.DISPLAY_NAME.value, None, normalized_record_sha256(
        {"pseudonym": who.pseudonym, "name": name, "link": link}))
    rec, opened = file_role_act(
        svc, who, graph, m.DisplayName, rec, path=path, kind=Kind.DISPLAY_NAME, key=key,
        title=f"name: {who.pseudonym}",
        what=f"Sets the display name of {who.pseudonym} (D-3 v3.37)",
        decision="Record-only kind: step 2 alone (ruling 6); D-35 names",
        copy="this display name")
    return receipt(opened, kind="display-name", target="", node=None, record=rec,
                   next_step=_NEXT)
