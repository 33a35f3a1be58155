"""What the literature says of a statement: proposals and their readings (D-25 v3.35/v3.45,
D-32 v3.35, D-35 "literature: propose_literature, confirm_literature").

* :func:`propose_literature` (``POST /literature``, tool ``propose_literature``) opens a pull
  request appending one unsigned ``literature/v1`` file under the node, attributed to the
  caller (a bearer token, or a web session: the same identity, D-35), its body naming the
  target's stewards so they see it. A steward's or curator's own record is a reading and
  is signed (step 2 refuses it unsigned): on a web session the service signs it with the
  approval key; by a bearer token it is refused ``role-act-unsigned``.
* :func:`confirm_literature` (``POST /literature/confirm``, tool ``confirm_literature``)
  appends a signed reading for a signed-in steward of the target or a curator: it
  confirms (``confirms``), corrects (``confirms`` with the signer's own status or summary)
  or disputes (``disputes``, v3.45) a proposal still awaiting a reading, or corrects the
  node's current reading (``supersedes``). Only a person signed in on the site makes it:
  the MCP tool and a bearer token are refused ``role-act-needs-session``.

The status derived from these records is :func:`network.record.derive.literature_status`;
the service writes what step 2 admits (:func:`network.api.submit.records.gate_findings`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from network.api.identity.pseudonyms import write_identity
from network.api.identity.role_acts import sign_role_act
from network.api.service import Caller, Service, Who, iso
from network.api.submit.names import record_path
from network.api.submit.record_pr import file_record
from network.api.submit.records import (
    IndexKey,
    dump_yaml,
    graph_of,
    merged_copies,
    node_of,
    receipt,
    record_copy_key,
    validate_record,
)
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind
from network.gate.steps.step2 import roles_of
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph

if TYPE_CHECKING:
    from network.api.people.web_session import Person

define_once("role-act-needs-session", None, 403,
            "This act rests on a steward's or curator's role, and only a person signed in "
            "on the network's site makes it through the service (D-35 v3.33/v3.35): a "
            "bearer token or an MCP tool cannot.",
            "Sign in on the site (with GitHub where GET /info.json says github_sign_in "
            "true, else through the one-time link the network's operator prints: `lemmata "
            "session link --pseudonym NAME`) and act from the node's or target's page, or "
            "sign the record with your own SSH key and open the pull request by hand.")
define_once("literature-not-found", None, 404,
            "The path names no literature record of a node on the graph (or one withdrawn).",
            "Name the graph path of a literature/v1 file, as get_node's literature section "
            "or the node's page shows it.")
define_once("literature-not-awaiting", None, 409,
            "The literature record is neither a proposal awaiting a reading nor the node's "
            "current reading: a signed reading already confirms or disputes it, or a later "
            "one supersedes it (D-25 v3.35/v3.45).",
            "Read the node's literature status (get_node) and act on the proposal awaiting "
            "or on the current reading.")
define_once("literature-action-invalid", None, 422,
            "The action does not fit the record: confirm keeps the proposal's status and "
            "summary, correct changes at least one of them, dispute gives the signer's own "
            "status and summary, and a current reading is only corrected (D-25 v3.35/v3.45).",
            "Use confirm to accept a proposal as written, correct to amend it or a reading, "
            "dispute (with status and summary) to reject it.")

ACTIONS = ("confirm", "correct", "dispute")
_PATH = re.compile(r"targets/(?P<t>[^/]+)/nodes/(?P<n>[^/]+)/literature/[^/]+\.yaml")
_NEXT = ("Poll GET /submissions/mine (get_my_submissions) for the pull request; the gate "
         "checks it at step 2 and merges it. The node's literature status is then on its "
         "row of graph.json and frontier.json (literature).")


def _stewards_named(graph: Graph, target: str) -> str:
    """The target's stewards as the pull request body names them (``@login`` where the
    identity binds a GitHub login, else the pseudonym)."""
    out = []
    for s in derive.stewards_of(graph, target):
        ident = graph.identities.get(s)
        out.append(f"@{ident.github}" if ident is not None and ident.github else s)
    return ", ".join(out) if out else "none yet"


def _references(references: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [dict(r) for r in (references or [])]


def _open(svc: Service, who: Who, graph: Graph, target: str, node: str, path: str,
          rec: dict[str, Any], what: str) -> dict[str, Any]:
    """Judge ``rec`` at ``path`` as step 2 would, refuse a copy (signer, date, signature
    and whitespace aside) of a literature record merged on the node or open for it (D-25
    v3.21), open one PR."""
    key = IndexKey(target, node, Kind.LITERATURE.value, None, record_copy_key(rec))
    merged = merged_copies(graph, ((rf.path, rf.record)
                                   for rf in graph.targets[target].nodes[node].literature))
    opened = file_record(
        svc, who, graph, {path: dump_yaml(rec)}, kind=Kind.LITERATURE, key=key,
        title=f"literature: {target}/{node}",
        what=f"{what}\n\nStewards of {target}: {_stewards_named(graph, target)}.",
        decision="Record-only kind: step 2 alone (ruling 6); D-25 v3.35",
        copy="this literature record", merged=merged)
    return receipt(opened, kind="literature", target=target, node=node, record=rec,
                   next_step=_NEXT)


def propose_literature(svc: Service, caller: Caller, *, target: str, node: str, status: str,
                       summary: str, references: list[dict[str, Any]] | None = None,
                       person: Person | None = None) -> dict[str, Any]:
    """Open a pull request appending a literature proposal
    ``nodes/<node>/literature/<ts>-<pseudonym>.yaml`` (POST /literature,
    propose_literature; D-25 v3.35, D-35).

    Args:
        target, node: the statement the literature speaks of.
        status: ``known-true``, ``known-false``, ``open``, ``partial-results`` or
            ``unknown``.
        summary: what the literature says, in the proposer's words (untrusted text).
        references: ``[{title, url?, doi?, arxiv?, note?}]``.
        person: the signed-in person, when the route was reached on a web session (a
            steward's or curator's own record is then signed as a reading).

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``).

    Raises:
        LemmataError: the write guard's codes (``dco-not-accepted`` among them);
            ``bad-target-id``/``bad-node-id``; ``target-not-found``; ``node-not-found``;
            ``invalid-record``; ``role-act-unsigned`` (a steward or curator proposing by
            bearer token: their record is a reading and is signed through the site);
            ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller if person is not None else caller)
    graph = graph_of(svc)
    node_of(graph, target, node)
    path = record_path(svc, f"targets/{target}/nodes/{node}/literature", who.pseudonym,
                       ".yaml")
    rec = validate_record(m.Literature, {
        "status": status, "summary": summary, "references": _references(references),
        "by": who.pseudonym, "date": iso(svc.now())}, path)
    if person is not None and roles_of(graph, target, who.pseudonym) & {"steward", "curator"}:
        rec = sign_role_act(svc, m.Literature, rec, who)  # a role holder's own reading
    return _open(svc, who, graph, target, node, path, rec,
                 f"Proposes the literature status {status!r} of {target}/{node} (D-25 "
                 "v3.35), for a steward of the target or a curator to confirm, correct or "
                 "dispute.")


def confirm_literature(svc: Service, caller: Caller, *, literature: str, action: str,
                       status: str | None = None, summary: str | None = None,
                       references: list[dict[str, Any]] | None = None,
                       person: Person | None = None) -> dict[str, Any]:
    """Open a pull request appending a steward's or curator's signed reading of a
    literature record (POST /literature/confirm, confirm_literature; D-25 v3.35/v3.45,
    D-32 v3.35), signed with the approval key for the signed-in person.

    Args:
        literature: the graph path of the literature record read.
        action: ``confirm`` (the proposal's status and summary, ``confirms``), ``correct``
            (``confirms`` a proposal with a changed status or summary, or ``supersedes``
            the node's current reading) or ``dispute`` (``disputes`` a proposal; the
            signer's own ``status`` and ``summary`` are required).
        status, summary, references: the reading's own, where the action takes them;
            omitted ones are the record's.
        person: the signed-in person (the web-session route passes it); None refuses.

    Raises:
        LemmataError: ``role-act-needs-session`` (no web session: the MCP tool, a bearer
            token); the write guard's codes; ``literature-not-found``;
            ``role-not-permitted`` (neither a steward of the target nor a curator);
            ``literature-not-awaiting``; ``literature-action-invalid``; ``bad-request``
            (unknown action); ``invalid-record``; ``approval-key-missing``; step-2
            codes; ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    if person is None:
        from network.api.identity.session_store import way_in

        raise LemmataError("role-act-needs-session", "confirm_literature is a steward's or "
                           "curator's signed act, made by a person signed in on the site: "
                           + way_in(svc), field="literature")
    who = write_identity(svc, person.caller)
    if action not in ACTIONS:
        raise LemmataError("bad-request", f"action must be one of {list(ACTIONS)}",
                           field="action")
    graph = graph_of(svc)
    mt = _PATH.fullmatch(literature or "")
    if mt is None:
        raise LemmataError("literature-not-found", f"{literature!r} is not a literature "
                           "record's path", field="literature")
    target, node = mt.group("t"), mt.group("n")
    n = node_of(graph, target, node)
    read = next((rf.record for rf in n.literature if rf.path == literature), None)
    if read is None or literature in derive.withdrawn(graph):
        raise LemmataError("literature-not-found", f"{literature} is not on the record",
                           path=literature)
    if not roles_of(graph, target, who.pseudonym) & {"steward", "curator"}:
        raise LemmataError("role-not-permitted", "a literature reading is a steward's of "
                           f"{target} or a curator's act (D-25 v3.35)", path=literature)
    rec: dict[str, Any] = {
        "status": status or read.status, "summary": summary or read.summary,
        "references": (_references(references) if references is not None
                       else [r.model_dump(exclude_none=True) for r in read.references]),
        "by": who.pseudonym, "date": iso(svc.now())}
    rec[_relation(graph, target, node, literature, action, status, summary, read)] = literature
    path = record_path(svc, f"targets/{target}/nodes/{node}/literature", who.pseudonym,
                       ".yaml")
    rec = sign_role_act(svc, m.Literature, validate_record(m.Literature, rec, path), who)
    return _open(svc, who, graph, target, node, path, rec,
                 f"A signed reading ({action}) of {literature}: status {rec['status']!r} "
                 "(D-25 v3.35/v3.45).")


def _relation(graph: Graph, target: str, node: str, literature: str, action: str,
              status: str | None, summary: str | None, read: m.Literature) -> str:
    """Which field of the reading names ``literature``: ``confirms``, ``disputes`` or
    ``supersedes``, after checking the action fits the record's place in the node's
    literature status.

    Raises:
        LemmataError: ``literature-not-awaiting``; ``literature-action-invalid``.
    """
    state = derive.literature_status(graph, target, node) or {}
    current = state.get("record") if state.get("source") == "confirmed" else None
    awaiting = _awaiting(graph, target, node)
    changes = (status is not None and status != read.status) or (
        summary is not None and summary != read.summary)
    if literature == current:
        if action != "correct" or not changes:
            raise LemmataError("literature-action-invalid", f"{literature} is the node's "
                               "current reading: correct it with a changed status or "
                               "summary", path=literature, field="action")
        return "supersedes"
    if literature not in awaiting:
        raise LemmataError("literature-not-awaiting", f"{literature} awaits no reading",
                           path=literature)
    if action == "confirm":
        if changes:
            raise LemmataError("literature-action-invalid", "confirm keeps the proposal's "
                               "status and summary; use correct to change them",
                               path=literature, field="status")
        return "confirms"
    if action == "correct":
        if not changes:
            raise LemmataError("literature-action-invalid", "correct changes the status or "
                               "the summary; use confirm to accept it as written",
                               path=literature, field="status")
        return "confirms"
    if status is None or summary is None:
        raise LemmataError("literature-action-invalid", "a dispute gives the signer's own "
                           "reading: status and summary (D-25 v3.45)", path=literature,
                           field="status" if status is None else "summary")
    return "disputes"


def _awaiting(graph: Graph, target: str, node: str) -> set[str]:
    """Paths of the node's proposals awaiting a reading
    (:func:`network.record.derive.literature_awaiting`)."""
    return {p["record"] for p in derive.literature_awaiting(graph, target, node)}
