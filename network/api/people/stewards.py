"""``POST /stewards``: a signed-in person joins a target's panel, steps down, or accepts an
invitation, and a signed-in curator of the target admits someone else (D-32
v3.17/v3.33/v3.34, D-6 v3.17, D-35 v3.33).

The service writes one ``steward/v4`` act (:class:`network.record.models.StewardAct`)
from the signed-in login: for a join, a step-down or an acceptance ``pseudonym`` is the
session's identity, never a body field; ``admitted_by`` is ``self`` for a join and
``panel`` for an accepted invitation. A curator's admission (``action: admit``, D-32
v3.33/v3.34: "a curator merges it and is named in admitted_by"; "or by a curator adding
them directly, at any time") names the new steward in the body's ``steward`` and the
curator, from the session, in ``admitted_by``; it is signed for the curator and filed in
the curator's name (:func:`network.record.panel_roles.expected_signer`). The steward's
words (``real_name``, ``affiliation``, ``commitment``) come from the body. It is signed with the
network's approval key (:func:`network.api.identity.role_acts.sign_role_act`) and opened as a pull
request in the steward's name (:func:`network.api.submit.records.open_record_pr`). Anything the
gate would refuse (a second steward joining without an invitation, a sixth stewardship,
reviewed admission, a step-down of a stewardship not in force) is refused before a pull
request opens, with the gate's own code (:func:`network.api.submit.records.gate_findings`).

No MCP tool: only a person holds a steward's role (D-35 v3.33).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from network.api.deps import marks
from network.api.identity.pseudonyms import write_identity
from network.api.people import web_session
from network.api.service import Caller, Service, iso
from network.api.submit.names import record_path
from network.api.submit.record_pr import file_role_act
from network.api.submit.records import (
    IndexKey,
    graph_of,
    normalized_record_sha256,
    receipt,
    target_of,
    validate_record,
)
from network.errors import LemmataError, define
from network.gate.artifacts import Kind
from network.record import models as m

Action = Literal["join", "step-down", "accept-invitation", "admit"]

define("steward-admit-self", None, 422,
       "A curator's admission names the curator as the steward: a curator's admission is "
       "the check of someone else's identity, and no one admits themselves (D-22 v3.33, "
       "D-32 v3.33).",
       "Join as yourself (POST /stewards action join) where admission allows it, or ask "
       "another curator of the target to admit you.")
define("steward-admit-unnamed", None, 422,
       "A curator's admission (action admit) names no steward, or another action names "
       "one: only a curator's admission files an act for someone else (D-32 v3.33).",
       "Give the new steward's pseudonym in steward with action admit; leave it out of a "
       "join, a step-down or an acceptance, which are your own acts.")

_NEXT = {
    "join": "Once the gate merges it you stand as steward of the target, and its root is "
            "claimable (D-6 v3.17); under open admission the site marks you self-admitted "
            "(D-32 v3.33).",
    "accept-invitation": "Once the gate merges it you sit on the target's panel like any "
                         "other steward (D-32 v3.34).",
    "step-down": "Once the gate merges it you no longer stand as steward; a target left "
                 "with no steward refuses claims until one is found (D-32 v3.17).",
    "admit": "Once the gate merges it the person you admitted stands as steward of the "
             "target, admitted by you, and the site shows no self-admitted mark (D-32 "
             "v3.33/v3.34).",
}


def file_steward_act(svc: Service, caller: Caller, *, target: str, action: Action,
                     real_name: str | None = None, affiliation: str | None = None,
                     commitment: str | None = None,
                     invitation: str | None = None,
                     steward: str | None = None) -> dict[str, Any]:
    """Open a pull request appending ``targets/<target>/steward-acts/<ts>-<pseudonym>.yaml``
    (POST /stewards; D-32 v3.33/v3.34).

    Args:
        target: the target id.
        action: ``join`` (admitted_by self: open admission, the target's first steward),
            ``accept-invitation`` (admitted_by panel: ``invitation`` is the graph path of
            the passed invite motion naming the caller), ``step-down``, or ``admit`` (a
            curator of the target admits ``steward``: admitted_by the caller, under
            either admission policy and whether or not the target has stewards).
        real_name, affiliation, commitment: the steward's own words (a join, an
            acceptance and an admission need ``real_name`` and ``commitment``; a
            step-down takes none).
        invitation: see ``action``.
        steward: on ``admit`` alone, the pseudonym of the person admitted (an identity
            of the graph, ``identities/<pseudonym>.yaml``).

    Returns:
        The receipt ``{kind: "steward-act", target, node: None, paths, submission_id,
        pull_request, url, next, action}``.

    Raises:
        LemmataError: the write guard's codes; ``bad-target-id``, ``target-not-found``;
            ``invalid-record`` (a join without its words, a step-down with them, an
            acceptance without its invitation); ``steward-admit-unnamed`` (an admission
            without ``steward``, or ``steward`` on another action);
            ``steward-admit-self`` (a curator admitting themselves); ``identity-unknown``
            (the admitted pseudonym has no identity in the graph); the gate's own codes
            (``steward-invitation-required``, ``steward-invitation-unknown``,
            ``steward-cap-reached``, ``steward-admission-reviewed``,
            ``steward-admitted-by-not-curator``, ``steward-already-in-force``,
            ``steward-not-in-force``); ``record-copy`` (the
            same act is open); ``approval-key-missing``; ``forge-not-configured``;
            ``queue-down``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    target_of(graph, target)
    if (steward is None) == (action == "admit"):
        raise LemmataError("steward-admit-unnamed", f"action {action} with steward "
                           f"{steward!r}")
    named = who.pseudonym
    if steward is not None:
        named = _admitted(graph, who.pseudonym, steward)
    # the file name's pseudonym is the filer: the steward, or the curator who admits them
    path = record_path(svc, f"targets/{target}/steward-acts", who.pseudonym, ".yaml")
    joining = action != "step-down"
    fields: dict[str, Any] = {
        "schema": m.StewardAct.SCHEMA_KIND, "pseudonym": named, "target": target,
        "action": "join" if joining else "step-down", "date": iso(svc.now()),
    }
    if joining or real_name or affiliation or commitment:
        fields.update(real_name=real_name, affiliation=affiliation, commitment=commitment)
    if action == "join":
        fields["admitted_by"] = "self"
    elif action == "accept-invitation":
        fields.update(admitted_by="panel", invitation=invitation)
    elif action == "admit":
        fields.update(admitted_by=who.pseudonym, invitation=invitation)
    elif invitation is not None:
        fields["invitation"] = invitation
    rec = validate_record(m.StewardAct, {k: v for k, v in fields.items() if v is not None},
                          path)
    # D-32 v3.33: the approval key, for the signer expected_signer names (the steward, or
    # the admitting curator: the caller either way)
    key = IndexKey(target, "", Kind.STEWARD_ACT.value, None, normalized_record_sha256(
        {"pseudonym": named, "target": target, "action": fields["action"]}))
    by = f" by {who.pseudonym}" if named != who.pseudonym else ""
    _, opened = file_role_act(
        svc, who, graph, m.StewardAct, rec, path=path, kind=Kind.STEWARD_ACT, key=key,
        title=f"steward {action}: {named} on {target}{by}",
        what=f"A steward act ({action}) of {named} on {target}{by}, signed by the "
             "network's approval key for the signed-in login.",
        decision="D-32 v3.33/v3.34: record-only kind, step 2 alone (ruling 6)",
        copy=f"{named}'s {action} on {target}")
    return receipt(opened, kind="steward-act", target=target, node=None,
                   next_step=_NEXT[action], action=action)


def _admitted(graph: Any, curator: str, steward: str) -> str:
    """The pseudonym a curator's admission names, as the graph's identity spells it.

    Raises:
        LemmataError: ``steward-admit-self`` (the curator names themselves, in any case);
            ``identity-unknown`` (no ``identities/`` record holds it: a steward is a
            person the pseudonym <-> login binding names, ruling 9).
    """
    if steward.casefold() == curator.casefold():
        raise LemmataError("steward-admit-self", f"{curator} admits {steward}")
    spelled = {p.casefold(): p for p in graph.identities}
    found = spelled.get(steward.casefold())
    if found is None:
        raise LemmataError("identity-unknown", f"no identity of the graph holds {steward!r}")
    return str(found)


class StewardRequest(BaseModel):
    """``POST /stewards`` (the route contract of issue 13)."""

    model_config = ConfigDict(extra="forbid")
    target_id: Annotated[str, Field(max_length=64)]
    action: Action
    real_name: Annotated[str, Field(max_length=2000)] | None = None
    affiliation: Annotated[str, Field(max_length=2000)] | None = None
    commitment: Annotated[str, Field(max_length=100_000)] | None = None
    invitation: Annotated[str, Field(max_length=400)] | None = None
    steward: Annotated[str, Field(max_length=64)] | None = None


def install(app: FastAPI, svc: Service) -> None:
    """Add ``POST /stewards`` to ``app`` (a person route: no MCP tool, D-35 v3.33)."""

    @app.post("/stewards", status_code=201, openapi_extra={"x-auth": "session"})
    @marks(file_steward_act, "session")
    def stewards(p: web_session.PersonDep, body: StewardRequest) -> dict[str, Any]:
        """Join a target's panel, step down, accept an invitation, or (a curator of the
        target) admit someone; opens one pull request appending a steward/v4 act signed
        by the approval key (D-32 v3.33/v3.34)."""
        return file_steward_act(svc, p.caller, target=body.target_id, action=body.action,
                                real_name=body.real_name, affiliation=body.affiliation,
                                commitment=body.commitment, invitation=body.invitation,
                                steward=body.steward)
