"""``GET /me``: a signed-in person's own page — who they are, their roles, and what waits
for them (D-32 v3.35: "the unconfirmed proposals on their targets are listed on their own
page"; issue 13).

Everything is derived where it is read: roles and literature proposals from the graph
(:mod:`network.record.derive`), held proofs from the submissions index and the gate's
attestations on main, review questions from :func:`network.record.derive.is_question`,
the formalization-review questions the person answers as intent signer from
:func:`network.record.derive.review_state` (D-9 v3.39), and open motions from the panel's derivation when that module is present. Nothing here
writes, so an identity whose DCO acceptance is out of date still reads it (D-23 v3.37).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from network.api import db
from network.api.service import Service
from network.api.submit.records import graph_of
from network.record import derive
from network.record.read.loader import Graph

if TYPE_CHECKING:
    from network.api.people.web_session import Person


def roles_of_person(graph: Graph, pseudonym: str) -> dict[str, list[str]]:
    """``{"curator": [target ids, or "*"], "steward": [target ids]}`` for ``pseudonym``
    (curators.json; verified standing steward records, ruling 14)."""
    cur: list[str] = []
    for c in graph.curators.curators:
        if c.pseudonym.casefold() == pseudonym.casefold():
            cur.extend(c.targets)
    stewards = [tid for tid in sorted(graph.targets)
                if any(s.casefold() == pseudonym.casefold()
                       for s in derive.stewards_of(graph, tid))]
    return {"curator": sorted(set(cur)), "steward": stewards}


def _role_targets(graph: Graph, roles: dict[str, list[str]]) -> list[str]:
    if "*" in roles["curator"]:
        return sorted(graph.targets)
    return sorted({*roles["curator"], *roles["steward"]} & set(graph.targets))


def _literature(graph: Graph, targets: list[str]) -> list[dict[str, Any]]:
    out = []
    for tid in targets:
        for nid in sorted(graph.targets[tid].nodes):
            for p in derive.literature_awaiting(graph, tid, nid):
                out.append({"target": tid, "node": nid, "path": p["record"],
                            "what": f"literature proposal ({p['status']}) by "
                                    f"{p['contributor']}: confirm, correct or dispute it",
                            "since": p["date"]})
    return out


def _held_proofs(svc: Service, graph: Graph, targets: list[str],
                 pseudonym: str) -> list[dict[str, Any]]:
    """Open pull requests on the targets whose latest gate attestation on main is
    ``held`` (D-4 step 9: a person who is not its author reviews it); the person's own
    are left out (non-author review). Held pull requests without a submission row come
    from :func:`network.api.people.proof_reviews.held_proofs` (the forge's open ones)."""
    if not targets:
        return []
    with db.transaction(svc.sessions) as s:
        rows = list(s.execute(select(db.SubmissionRow).where(
            db.SubmissionRow.target.in_(targets), db.SubmissionRow.state == "open")).scalars())
    by_head: dict[str, list[Any]] = {}
    for rf in graph.attestations:
        by_head.setdefault(rf.record.head_commit, []).append(rf.record)
    out = []
    for r in sorted(rows, key=lambda r: (r.opened_at, r.id)):
        atts = sorted(by_head.get(r.head_sha or "", []), key=lambda a: a.timestamp)
        if not atts or atts[-1].verdict != "held":
            continue
        if (r.pseudonym or "").casefold() == pseudonym.casefold():
            continue
        out.append({"target": r.target, "node": r.node or None, "submission_id": r.id,
                    "pull_request": r.pull_request,
                    "what": f"{r.kind} by {r.pseudonym} held at step 9: review it",
                    "since": derive.norm_date(atts[-1].timestamp)})
    # a held pull request the service did not open (pushed over git, opened by hand on
    # the forge) has no submission row: the forge's open pull requests name it
    from network.api.people import proof_reviews

    known = {str(r.pull_request) for r in rows}
    for item in proof_reviews.held_proofs(svc, pseudonym):
        if item["pull_request"] not in known and item["target"] in targets:
            out.append({k: v for k, v in item.items() if k != "attestation"}
                       | {"since": derive.norm_date(item["since"])})
    return out


def _review_questions(graph: Graph, targets: list[str]) -> list[dict[str, Any]]:
    out = []
    for tid in targets:
        t = graph.targets[tid]
        for nid in sorted(t.nodes):
            if not derive.is_question(graph, tid, nid):
                continue
            if derive.node_status(graph, tid, nid) in derive.CLOSED:
                continue
            out.append({"target": tid, "node": nid,
                        "what": "a question (answer(sorry)): a variant fixing an answer is "
                                "judged by a person at step 9",
                        "since": derive.ready_since(graph, tid, nid)
                        or derive.norm_date(t.record.listed)})
    return out


def intent_questions(graph: Graph, pseudonym: str) -> list[dict[str, Any]]:
    """The formalization-review questions waiting for ``pseudonym``'s answer as the
    review's intent signer (D-9 v3.39 "the evidence page": "the same notice appears on
    the signer's /me/ page"), in target then record order.

    Returns:
        ``[{target, path, question, case, what, since}]``: ``path`` the question's record
        (what POST /reviews/{target}/answers names), ``since`` its date. ``[]`` for
        someone who is no review's intent signer.
    """
    out = []
    for tid in sorted(graph.targets):
        state = derive.review_state(graph, tid)
        if state is None or state.intent_signer.casefold() != pseudonym.casefold():
            continue
        for q in state.questions:
            if q.answer is not None:
                continue
            out.append({"target": tid, "path": q.path, "question": q.record.question,
                        "case": q.record.case,
                        "what": f"a question of {tid}'s formalization review waits for your "
                                f"answer as its intent signer (case: {q.record.case})",
                        "since": derive.norm_date(q.record.date)})
    return out


def _motions(graph: Graph, pseudonym: str) -> list[dict[str, Any]] | None:
    """Open motions for the person from the panel's derivation, or None while that
    module is not part of this service."""
    try:
        panel: Any = importlib.import_module("network.record.panel")
    except ImportError:
        return None
    return list(panel.open_motions(graph, pseudonym))


def _missing_library(graph: Graph, roles: dict[str, list[str]]) -> list[dict[str, Any]]:
    """D-13's curator items on the person's curator targets: each node whose
    missing-library postmortems reach ``missing_library_threshold`` (issue 18), as
    ``{target, node, count, threshold, what}``."""
    from network.record import dormancy

    mine = set(graph.targets) if "*" in roles["curator"] else set(roles["curator"])
    return [{"target": i["target"], "node": i["node"], "count": i["count"],
             "threshold": i["threshold"],
             "what": f"{i['count']} missing-library postmortems (threshold {i['threshold']}):"
                     " propose the missing lemma as a node (D-13, D-29)"}
            for i in dormancy.missing_library_items(graph) if i["target"] in mine]


def me(svc: Service, person: Person) -> dict[str, Any]:
    """``GET /me`` (a person route, no tool): the signed-in person's pseudonym, login,
    roles and what waits for them.

    Returns:
        ``{pseudonym, login, roles: {curator, steward}, waiting: {literature,
        held_proofs, review_questions, intent_questions, motions, missing_library},
        unavailable: [...]}`` (``missing_library``: a curator's D-13 items, issue 18;
        ``intent_questions``: the formalization-review questions waiting for the
        person's answer as intent signer, D-9 v3.39, :func:`intent_questions`); each
        waiting item is ``{target, node?, path?, submission_id?, pull_request?, what,
        since}``;
        ``unavailable`` names a list this service cannot derive yet (``motions`` without
        the panel module).

    Raises:
        LemmataError: ``graph-unavailable``.
    """
    who = person.who
    graph = graph_of(svc)
    roles = roles_of_person(graph, who.pseudonym)
    targets = _role_targets(graph, roles)
    motions = _motions(graph, who.pseudonym)
    return {
        "pseudonym": who.pseudonym, "login": person.login, "roles": roles,
        "waiting": {
            "literature": _literature(graph, targets),
            "held_proofs": _held_proofs(svc, graph, targets, who.pseudonym),
            "review_questions": _review_questions(graph, targets),
            "intent_questions": intent_questions(graph, who.pseudonym),
            "motions": motions or [],
            "missing_library": _missing_library(graph, roles),
        },
        "unavailable": [] if motions is not None else ["motions"],
    }
