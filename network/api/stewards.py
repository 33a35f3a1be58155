"""``POST /stewards``: a signed-in person joins a target's panel, steps down, or accepts an
invitation (D-32 v3.17/v3.33/v3.34, D-6 v3.17, D-35 v3.33).

The service writes one ``steward/v4`` act (:class:`network.record.models.StewardAct`)
from the signed-in login: ``pseudonym`` is the session's identity, never a body field;
``admitted_by`` is ``self`` for a join and ``panel`` for an accepted invitation (a curator
adding someone else signs by hand, with their own key); the steward's own words
(``real_name``, ``affiliation``, ``commitment``) come from the body. It is signed with the
network's approval key (:func:`network.api.role_acts.sign_role_act`) and opened as a pull
request in the steward's name (:func:`network.api.records.open_record_pr`). Anything the
gate would refuse (a second steward joining without an invitation, a sixth stewardship,
reviewed admission, a step-down of a stewardship not in force) is refused before a pull
request opens, with the gate's own code (:func:`network.api.records.gate_findings`).

No MCP tool: only a person holds a steward's role (D-35 v3.33).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from network.api import web_session
from network.api.app import marks
from network.api.names import record_path
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
    target_of,
    validate_record,
)
from network.api.role_acts import sign_role_act
from network.api.service import Caller, Service, iso, write_identity
from network.gate.artifacts import Kind
from network.record import models as m

Action = Literal["join", "step-down", "accept-invitation"]

_NEXT = {
    "join": "Once the gate merges it you stand as steward of the target, and its root is "
            "claimable (D-6 v3.17); under open admission the site marks you self-admitted "
            "(D-32 v3.33).",
    "accept-invitation": "Once the gate merges it you sit on the target's panel like any "
                         "other steward (D-32 v3.34).",
    "step-down": "Once the gate merges it you no longer stand as steward; a target left "
                 "with no steward refuses claims until one is found (D-32 v3.17).",
}


def file_steward_act(svc: Service, caller: Caller, *, target: str, action: Action,
                     real_name: str | None = None, affiliation: str | None = None,
                     commitment: str | None = None,
                     invitation: str | None = None) -> dict[str, Any]:
    """Open a pull request appending ``targets/<target>/steward-acts/<ts>-<pseudonym>.yaml``
    (POST /stewards; D-32 v3.33/v3.34).

    Args:
        target: the target id.
        action: ``join`` (admitted_by self: open admission, the target's first steward),
            ``accept-invitation`` (admitted_by panel: ``invitation`` is the graph path of
            the passed invite motion naming the caller) or ``step-down``.
        real_name, affiliation, commitment: the steward's own words (a join and an
            acceptance need ``real_name`` and ``commitment``; a step-down takes none).
        invitation: see ``action``.

    Returns:
        The receipt ``{kind: "steward-act", target, node: None, paths, submission_id,
        pull_request, url, next, action}``.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``, ``target-not-found``;
            ``invalid-record`` (a join without its words, a step-down with them, an
            acceptance without its invitation); the gate's own codes
            (``steward-invitation-required``, ``steward-invitation-unknown``,
            ``steward-cap-reached``, ``steward-admission-reviewed``,
            ``steward-already-in-force``, ``steward-not-in-force``); ``record-copy`` (the
            same act is open); ``approval-key-missing``; ``forge-not-configured``;
            ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    target_of(graph, target)
    path = record_path(svc, f"targets/{target}/steward-acts", who.pseudonym, ".yaml")
    joining = action != "step-down"
    fields: dict[str, Any] = {
        "schema": m.StewardAct.SCHEMA_KIND, "pseudonym": who.pseudonym, "target": target,
        "action": "join" if joining else "step-down", "date": iso(svc.now()),
    }
    if joining or real_name or affiliation or commitment:
        fields.update(real_name=real_name, affiliation=affiliation, commitment=commitment)
    if action == "join":
        fields["admitted_by"] = "self"
    elif action == "accept-invitation":
        fields.update(admitted_by="panel", invitation=invitation)
    elif invitation is not None:
        fields["invitation"] = invitation
    rec = validate_record(m.StewardAct, {k: v for k, v in fields.items() if v is not None},
                          path)
    rec = sign_role_act(svc, m.StewardAct, rec, who)  # D-32 v3.33: the approval key
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.STEWARD_ACT))
    key = IndexKey(target, "", Kind.STEWARD_ACT.value, None, normalized_record_sha256(
        {"pseudonym": who.pseudonym, "target": target, "action": fields["action"]}))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"steward {action}: {who.pseudonym} on {target}",
        body=pr_body(f"A steward act ({action}) of {who.pseudonym} on {target}, signed by the "
                     "network's approval key for the signed-in login.", who,
                     "D-32 v3.33/v3.34: record-only kind, step 2 alone (ruling 6)"),
        conflicts=[copy_refusal(key, f"{who.pseudonym}'s {action} on {target}")])
    return receipt(opened, kind="steward-act", target=target, node=None,
                   next_step=_NEXT[action], action=action)


class StewardRequest(BaseModel):
    """``POST /stewards`` (the route contract of issue 13)."""

    model_config = ConfigDict(extra="forbid")
    target_id: Annotated[str, Field(max_length=64)]
    action: Action
    real_name: Annotated[str, Field(max_length=2000)] | None = None
    affiliation: Annotated[str, Field(max_length=2000)] | None = None
    commitment: Annotated[str, Field(max_length=100_000)] | None = None
    invitation: Annotated[str, Field(max_length=400)] | None = None


def install(app: FastAPI, svc: Service) -> None:
    """Add ``POST /stewards`` to ``app`` (a person route: no MCP tool, D-35 v3.33)."""

    @app.post("/stewards", status_code=201, openapi_extra={"x-auth": "session"})
    @marks(file_steward_act, "session")
    def stewards(p: web_session.PersonDep, body: StewardRequest) -> dict[str, Any]:
        """Join a target's panel, step down, or accept an invitation; opens one pull
        request appending a steward/v4 act signed by the approval key (D-32 v3.33)."""
        return file_steward_act(svc, p.caller, target=body.target_id, action=body.action,
                                real_name=body.real_name, affiliation=body.affiliation,
                                commitment=body.commitment, invitation=body.invitation)
