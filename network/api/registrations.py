"""Registrations of a target in a public registry (D-10 v3.37, D-3 v3.37, D-35 "names and
registrations: set_display_name, register_target").

:func:`register_target` (``POST /registrations``, tool ``register_target``) opens a pull
request appending one ``registration/v1`` file under the target,
``targets/<id>/registrations/<date>-<n>.yaml``, naming the registry id, the wrapper commit
and the graph commit it was exported from, signed with the network's approval key for a
signed-in curator or listed steward of the target. It never talks to the registry: the
submission there is the curator's act outside the network, and an agent never registers,
so the MCP tool and a bearer token are refused ``role-act-needs-session``.
What the record says is read back by :func:`network.record.derive.registrations`
(``list_registrations``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from network.api import db, literature  # noqa: F401  (literature: role-act-needs-session)
from network.api.pseudonyms import write_identity
from network.api.record_pr import file_role_act
from network.api.records import (
    IndexKey,
    graph_of,
    normalized_record_sha256,
    receipt,
    target_of,
    validate_record,
)
from network.api.service import Caller, Service, iso
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.gate.step2 import roles_of
from network.record import models as m

if TYPE_CHECKING:
    from network.api.web_session import Person

#: tries at a free ``<date>-<n>`` name before giving up (``name-unavailable``)
_TRIES = 64
_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 and "
         "merges it. list_registrations (GET /registrations.json) then reads it; a later "
         "record for the same registry id supersedes it (D-10 v3.37).")


def _numbered_path(svc: Service, target: str, date: str, taken: set[str]) -> str:
    """``targets/<id>/registrations/<date>-<n>.yaml`` with the least ``n`` neither on main
    nor reserved by another write (the ``file_names`` table, as
    :func:`network.api.names.record_path` reserves).

    Raises:
        LemmataError: ``name-unavailable``.
    """
    now = svc.now()
    for n in range(1, _TRIES + 1):
        path = f"targets/{target}/registrations/{date}-{n}.yaml"
        if path in taken:
            continue
        try:
            with db.transaction(svc.sessions) as s:
                s.add(db.FileNameRow(path=path, created_at=now))
                s.flush()
        except IntegrityError:
            continue
        return path
    raise LemmataError("name-unavailable", f"no free registration name for {target} on {date}")


def register_target(svc: Service, caller: Caller, *, target: str, registry_id: str,
                    wrapper_commit: str, graph_commit: str, registry: str = "palomar",
                    version: str | None = None, repository: str | None = None,
                    state: str = "submitted", proof: str | None = None,
                    attestation: str | None = None,
                    person: Person | None = None) -> dict[str, Any]:
    """Open a pull request appending a signed registration record (POST /registrations,
    register_target; D-10 v3.37).

    Args:
        target: the target registered.
        registry_id: its id in the registry (``PALOMAR-YYYY-MM-DD-NNNNNN`` for Palomar).
        wrapper_commit: the wrapper repository's commit submitted (40 hex).
        graph_commit: the graph commit the wrapper was exported from (40 hex).
        registry: the registry's name; default ``palomar`` (D-10 v3.37).
        version, repository, state, proof, attestation: the record's optional fields;
            ``state`` is ``submitted``, ``registered`` or ``rejected``.
        person: the signed-in person (the web-session route passes it); None refuses.

    Raises:
        LemmataError: ``role-act-needs-session`` (no web session: the MCP tool, a bearer
            token); the write guard's codes (``dco-not-accepted`` among them);
            ``bad-target-id``; ``target-not-found``; ``role-not-permitted`` (neither a
            curator nor a listed steward of the target); ``invalid-record``;
            ``approval-key-missing``; ``name-unavailable``; step-2 codes;
            ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    if person is None:
        from network.api.session_store import way_in

        raise LemmataError("role-act-needs-session", "register_target is a curator's or "
                           "steward's signed act, made by a person signed in on the site: "
                           + way_in(svc), field="target_id")
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    target_of(graph, target)
    if not roles_of(graph, target, who.pseudonym) & {"steward", "curator"}:
        raise LemmataError("role-not-permitted", "a registration is appended by a curator "
                           f"or a listed steward of {target} (D-3 v3.37)", field="target_id")
    date = iso(svc.now()) or ""
    rec: dict[str, Any] = {
        "registry": registry, "registry_id": registry_id, "commit": wrapper_commit,
        "graph_commit": graph_commit, "state": state, "by": who.pseudonym, "date": date}
    for k, v in (("version", version), ("repository", repository), ("proof", proof),
                 ("attestation", attestation)):
        if v is not None:
            rec[k] = v
    rec = validate_record(m.Registration, rec, f"targets/{target}/registrations/")
    path = _numbered_path(svc, target, date[:10], set(graph.files))
    key = IndexKey(target, "", Kind.REGISTRATION.value, None, normalized_record_sha256(rec))
    rec, opened = file_role_act(
        svc, who, graph, m.Registration, rec, path=path, kind=Kind.REGISTRATION, key=key,
        title=f"registration: {target} in {registry}",
        what=f"Registers {target} in {registry} as {registry_id} (wrapper commit "
             f"{wrapper_commit}, exported from graph commit {graph_commit}).",
        decision="Record-only kind: step 2 alone (ruling 6); D-10 v3.37",
        copy="this registration record")
    return receipt(opened, kind="registration", target=target, node=None, record=rec,
                   next_step=_NEXT)
