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

A curator's other acts on the record are filed here the same way, each a person's act on
a web session with no MCP tool (only a person holds the curator's role, D-35 v3.33), signed
with the approval key for the signed-in curator (graph/curators.json) and opened as one
pull request the gate judges at step 2 (issue 40):

* :func:`file_status_record` (``POST /status-records``): ``targets/<id>/status/<date>-<n>.yaml``,
  a ``target-status/v1`` declaration, active, dormant or known-result (D-33); a dormant
  one names the D-25 series at its date, filled in from the record when not given, and is
  refused as step 2 refuses it (:mod:`network.gate.records.dormancy_gate`).
* :func:`file_withdrawal` (``POST /withdrawals``): ``withdrawals/<ts>-<pseudonym>.yaml``
  beside the withdrawn record (under its node, or its target), ``withdrawal/v1``; once
  merged the record reads as absent (D-18 v3.27, D-14 v3.27).
* :func:`file_correction` (``POST /corrections``): ``ledger/<seq>-<k>.json`` in the
  corrected line's merge, ``correction/v1``; the post-merge job of its merge revokes the
  line and writes the corrected one (D-19 v3.27, :mod:`network.gate.postmerge.postmerge_ledger`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from network.api import db
from network.api.identity.pseudonyms import write_identity
from network.api.records import literature  # noqa: F401  (role-act-needs-session)
from network.api.service import Caller, Service, Who, iso
from network.api.submit.names import record_path
from network.api.submit.record_pr import dump_json, file_role_act
from network.api.submit.records import (
    IndexKey,
    graph_of,
    node_of,
    normalized_record_sha256,
    receipt,
    target_of,
    validate_record,
)
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind
from network.gate.steps.step2 import roles_of
from network.record import derive, dormancy, layout
from network.record import models as m
from network.record.read.loader import Graph

if TYPE_CHECKING:
    from network.api.people.web_session import Person

#: tries at a free ``<date>-<n>`` name before giving up (``name-unavailable``)
_TRIES = 64
_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 and "
         "merges it. list_registrations (GET /registrations.json) then reads it; a later "
         "record for the same registry id supersedes it (D-10 v3.37).")


define_once("withdrawal-record-unknown", None, 422,
            "The record to withdraw is not a record of a target on main that a curator "
            "withdraws (a status record, defect claim, approach, postmortem or other "
            "appended record; never a Lean file, a node's META.yaml, target.yaml or a "
            "gate-written file), or it is already withdrawn (D-18 v3.27).",
            "Name the graph path of a record merged on main and not withdrawn (get_target "
            "and get_node list them).")

#: what a curator's status declaration may say (D-33)
DECLARATIONS = ("active", "dormant", "known-result")
_NEXT_CURATOR = ("Poll GET /submissions/mine for the pull request; the gate checks it at "
                 "step 2 and merges it.")


def _numbered_path(svc: Service, target: str, date: str, taken: set[str], *,
                   directory: str | None = None, suffix: str = ".yaml") -> str:
    """``<directory>/<date>-<n><suffix>`` (default ``targets/<id>/registrations/``) with
    the least ``n`` neither on main nor reserved by another write (the ``file_names``
    table, as :func:`network.api.submit.names.record_path` reserves): a registration's or status
    record's ``<date>-<n>.yaml``, a correction's ``ledger/<seq>-<k>.json``.

    Raises:
        LemmataError: ``name-unavailable``.
    """
    now = svc.now()
    folder = directory or f"targets/{target}/registrations"
    for n in range(1, _TRIES + 1):
        path = f"{folder}/{date}-{n}{suffix}"
        if path in taken:
            continue
        try:
            with db.transaction(svc.sessions) as s:
                s.add(db.FileNameRow(path=path, created_at=now))
                s.flush()
        except IntegrityError:
            continue
        return path
    raise LemmataError("name-unavailable", f"no free name under {folder} for {date}")


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
        from network.api.identity.session_store import way_in

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


# --- a curator's acts on the record (issue 40) ------------------------------------------


def _curator(graph: Graph, who: Who, target: str, what: str) -> None:
    """Refuse unless ``who`` (the write guard's identity, checked first) is a listed
    curator of ``target`` (graph/curators.json, as step 2 judges it).

    Raises:
        LemmataError: ``role-not-permitted``.
    """
    if "curator" not in roles_of(graph, target, who.pseudonym):
        raise LemmataError("role-not-permitted", f"{what} is a listed curator's act on "
                           f"{target} (graph/curators.json)", field="target_id")


def file_status_record(svc: Service, person: Person, *, target: str, declaration: str,
                       reasoning: str,
                       starvation_series: dict[str, Any] | None = None) -> dict[str, Any]:
    """Open a pull request appending a curator's signed status declaration,
    ``targets/<id>/status/<date>-<n>.yaml`` (``target-status/v1``; POST /status-records;
    D-33).

    Args:
        person: the signed-in curator of the target.
        target: the target declared.
        declaration: ``active``, ``dormant`` or ``known-result``.
        reasoning: the published reasoning (D-33 (b)).
        starvation_series: for ``dormant``, the D-25 series at the declaration's date;
            filled in from the record (:func:`network.record.dormancy.dormancy_series`)
            when omitted, and held to it by step 2 when given.

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``).
        Once merged, ``targets/index.json``'s ``status`` is the declaration (D-33; the
        next progress artifact reactivates a dormant target mechanically).

    Raises:
        LemmataError: the write guard's codes (``dco-not-accepted`` among them);
            ``bad-request`` (an unknown declaration); ``bad-target-id``;
            ``target-not-found``; ``role-not-permitted``; ``invalid-record``;
            ``approval-key-missing``; ``name-unavailable``; the D-33 codes of step 2
            (``dormancy-evidence-insufficient``, ``dormancy-series-mismatch``,
            ``dormancy-reasoning-empty``, ...); ``record-copy``;
            ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    if declaration not in DECLARATIONS:
        raise LemmataError("bad-request", f"declaration must be one of {list(DECLARATIONS)}",
                           field="declaration")
    graph = graph_of(svc)
    target_of(graph, target)
    _curator(graph, who, target, "a status declaration")
    date = iso(svc.now()) or ""
    rec: dict[str, Any] = {"declaration": declaration, "curator": who.pseudonym,
                           "date": date, "reasoning": reasoning}
    if declaration == "dormant":
        if starvation_series is None:
            truth = dormancy.dormancy_series(graph, target, date[:10])
            starvation_series = {k: truth[k] for k in dormancy.SERIES_FIELDS}
        rec["starvation_series"] = starvation_series
    elif starvation_series is not None:
        rec["starvation_series"] = starvation_series
    folder = f"targets/{target}/status"
    rec = validate_record(m.TargetStatusRecord, rec, f"{folder}/")
    path = _numbered_path(svc, target, date[:10], set(graph.files), directory=folder)
    key = IndexKey(target, "", Kind.DORMANCY.value, None, normalized_record_sha256(
        {k: v for k, v in rec.items() if k in ("declaration", "reasoning")}))
    rec, opened = file_role_act(
        svc, who, graph, m.TargetStatusRecord, rec, path=path, kind=Kind.DORMANCY, key=key,
        title=f"status: {target} {declaration}",
        what=f"Declares {target} {declaration}. Reasoning: {reasoning}",
        decision="Record-only kind: step 2 alone (ruling 6); D-33",
        copy=f"this {declaration} declaration")
    return receipt(opened, kind="target-status", target=target, node=None, record=rec,
                   next_step=_NEXT_CURATOR + " The target's status (targets/index.json) "
                   "then reads the declaration (D-33).")


def _withdrawable(graph: Graph, record: str) -> tuple[str, str | None]:
    """``(target, node or None)`` of ``record`` when it is a record a curator withdraws:
    merged on ``graph``, appended under a target (a layout row a contributor, steward or
    curator writes, not a node's META.yaml or a target's own files), and not withdrawn.

    Raises:
        LemmataError: ``withdrawal-record-unknown``; ``target-not-found``.
    """
    row = layout.match(record)
    parts = record.split("/")
    if (row is None or not row[0].record or row[0].writer in ("gate", "product")
            or row[0].kind in ("", "variant") or parts[0] != "targets"
            or record not in graph.files):
        raise LemmataError("withdrawal-record-unknown", f"{record!r} is no record on main a "
                           "curator withdraws", field="record")
    target_of(graph, parts[1])
    if record in derive.withdrawn(graph):
        raise LemmataError("withdrawal-record-unknown", f"{record} is already withdrawn",
                           field="record")
    return parts[1], (parts[3] if parts[2] == "nodes" else None)


def file_withdrawal(svc: Service, person: Person, *, record: str,
                    reason: str) -> dict[str, Any]:
    """Open a pull request appending a curator's signed withdrawal of one record,
    ``withdrawals/<ts>-<pseudonym>.yaml`` under the record's node, or its target for a
    target-level record (``withdrawal/v1``; POST /withdrawals; D-18 v3.27, D-14 v3.27).

    Args:
        person: the signed-in curator of the record's target.
        record: the graph path of the record withdrawn (a status record, a defect claim,
            an approach, ...).
        reason: why, on the record.

    Returns:
        The receipt. Once merged, the record stays in the tree and reads as absent in
        every derivation (``derive.withdrawn``): a withdrawn status record no longer
        decides the target's status, a withdrawn defect claim disputes nothing.

    Raises:
        LemmataError: the write guard's codes; ``withdrawal-record-unknown``;
            ``target-not-found``; ``node-not-found``; ``role-not-permitted``;
            ``invalid-record``; ``approval-key-missing``; step-2 codes
            (``withdrawal-elsewhere``, ``role-key-unbound``, ...); ``record-copy`` (the
            same withdrawal is open); ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    target, node = _withdrawable(graph, record)
    _curator(graph, who, target, "withdrawing a record")
    if node is not None:
        node_of(graph, target, node)
    folder = (f"targets/{target}/nodes/{node}/withdrawals" if node is not None
              else f"targets/{target}/withdrawals")
    path = record_path(svc, folder, who.pseudonym, ".yaml")
    rec = validate_record(m.Withdrawal, {"withdraws": record, "by": who.pseudonym,
                                         "reason": reason, "date": iso(svc.now())}, path)
    key = IndexKey(target, node or "", Kind.WITHDRAWAL.value, None,
                   normalized_record_sha256({"withdraws": record}))
    rec, opened = file_role_act(
        svc, who, graph, m.Withdrawal, rec, path=path, kind=Kind.WITHDRAWAL, key=key,
        title=f"withdraw: {record}", what=f"Withdraws {record}: {reason}",
        decision="Record-only kind: step 2 alone (ruling 6); D-18 v3.27",
        copy=f"a withdrawal of {record}")
    return receipt(opened, kind="withdrawal", target=target, node=node, record=rec,
                   next_step=_NEXT_CURATOR + " The withdrawn record then reads as absent "
                   "(D-18 v3.27).")


def file_correction(svc: Service, person: Person, *, line: str, reason: str,
                    should_be: str | None = None) -> dict[str, Any]:
    """Open a pull request adding a curator's signed credit correction,
    ``ledger/<seq>-<k>.json`` (``correction/v1``; POST /corrections; D-19 v3.27): ``seq``
    the corrected line's merge, ``k`` the least free there. ``credited`` is the identity
    the line credits, read from the record.

    Args:
        person: the signed-in curator of the line's target.
        line: the graph path of the ledger line corrected (``GET /ledger.json``'s ``path``).
        reason: why, on the record.
        should_be: the identity that should be credited, or None for nobody.

    Returns:
        The receipt. Once merged, the post-merge job of that merge revokes the line (its
        reason opening ``correction <path>: ``) and, unless ``should_be`` is None, writes
        the corrected line for ``should_be``; ``GET /ledger.json`` shows both (D-19 v3.27).

    Raises:
        LemmataError: the write guard's codes; ``correction-line-unknown``;
            ``role-not-permitted``; ``invalid-record``; ``approval-key-missing``;
            ``name-unavailable``; step-2 codes (``correction-does-not-apply``: the line
            already revoked, or ``should_be`` the identity it credits); ``record-copy`` (a
            correction of the line is open); ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    old = next((rf.record for rf in graph.ledger if rf.path == line
                and isinstance(rf.record, m.LedgerLine)), None)
    if old is None or old.target not in graph.targets:
        raise LemmataError("correction-line-unknown", f"{line!r} is no ledger line on main",
                           field="line")
    _curator(graph, who, old.target, "a credit correction")
    rec: dict[str, Any] = {"merge_seq": old.merge_seq, "k": 1, "corrects": line,
                           "credited": old.identity, "reason": reason, "by": who.pseudonym}
    if should_be is not None:
        rec["should_be"] = should_be
    validate_record(m.Correction, rec, "ledger/")  # refused before a name is reserved
    path = _numbered_path(svc, old.target, f"{old.merge_seq:06d}", set(graph.files),
                          directory="ledger", suffix=".json")
    rec["k"] = int(path.removesuffix(".json").rsplit("-", 1)[1])
    rec = validate_record(m.Correction, rec, path)
    key = IndexKey(old.target, "", Kind.CORRECTION.value, None,
                   normalized_record_sha256({"corrects": line}))
    rec, opened = file_role_act(
        svc, who, graph, m.Correction, rec, path=path, kind=Kind.CORRECTION, key=key,
        title=f"correction: {line}",
        what=f"Corrects {line}: credited {old.identity}, should be "
             f"{should_be or 'nobody'}. Reason: {reason}",
        decision="Record-only kind: step 2 alone (ruling 6); D-19 v3.27",
        copy=f"a correction of {line}", dump=dump_json)
    return receipt(opened, kind="correction", target=old.target, node=None, record=rec,
                   next_step=_NEXT_CURATOR + " Its merge's post-merge job then revokes the "
                   "line and writes the corrected one (D-19 v3.27; GET /ledger.json).")
