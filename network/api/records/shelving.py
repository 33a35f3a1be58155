"""Shelving: a steward's or curator's signed judgment that a statement, or one merged
decomposition of it, does not serve the root (D-14 v3.47, D-25 v3.47, D-32 v3.47, D-35
"shelving (no tool)").

:func:`file_shelving` (``POST /shelvings``, a person's act on a web session, no MCP tool)
opens a pull request appending one ``shelving/v1`` file under the node, signed with the
network's approval key for the signed-in steward of the target or curator: the action
(``shelved``, or ``unshelved`` lifting the shelving that stands), its scope (the statement,
or one of the node's merged decompositions named by its file) and a cause. It refuses,
before anything opens, what the gate's step 2 refuses (:mod:`network.gate.records.shelving`):

* the root (``shelving-root``);
* a statement a merged proof uses (``shelving-statement-used``);
* a decomposition that is not one of the node's merged decompositions
  (``shelving-subject-foreign``);
* a caller who is neither a steward of the target nor a curator (``role-not-permitted``);
* a lift with no shelving standing for the scope, or naming another record than the one
  that stands (``shelving-not-standing``).

What follows (the node's ``shelved`` flag, the frontier and the sufficient sets) is derived
(:func:`network.record.derive.node_flags`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from network.api.identity.pseudonyms import write_identity
from network.api.service import Service, iso
from network.api.submit.names import record_path
from network.api.submit.record_pr import file_role_act
from network.api.submit.records import (
    IndexKey,
    graph_of,
    node_of,
    normalized_record_sha256,
    receipt,
    validate_record,
)
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind
from network.gate.records.shelving import shelving_findings
from network.gate.steps.step2 import roles_of
from network.record import derive
from network.record import models as m

if TYPE_CHECKING:
    from network.api.people.web_session import Person

define_once("shelving-not-standing", None, 409,
            "No shelving stands for this scope, or `lifts` names another record than the "
            "one that stands: a lift lifts the scope's standing shelving (D-14 v3.47).",
            "Read the node's shelving (get_node, graph.json's `shelving`) and lift that "
            "record, or omit `lifts` to lift whichever stands.")

ACTIONS = ("shelved", "unshelved")
_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 and "
         "merges it. The node's row then reads shelved (or no longer), and the frontier and "
         "sufficient sets follow (D-14 v3.47).")


def file_shelving(svc: Service, person: Person, *, target: str, node: str, action: str,
                  scope: str, cause: str, lifts: str | None = None) -> dict[str, Any]:
    """Open a pull request appending a signed shelving
    ``nodes/<node>/shelving/<ts>-<pseudonym>.yaml`` (POST /shelvings; D-14 v3.47).

    Args:
        person: the signed-in steward of the target or curator.
        target, node: the node the judgment is filed under.
        action: ``shelved`` or ``unshelved``.
        scope: ``statement`` (the node's own statement), or the graph path of one of the
            node's merged decompositions (a partial or reduction under its attempts/).
        cause: why, on the record and under the signer's name.
        lifts: for ``unshelved``, the path of the shelving lifted; default the one that
            stands for the scope.

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``).

    Raises:
        LemmataError: the write guard's codes (``dco-not-accepted`` among them);
            ``bad-request`` (unknown action, ``lifts`` on a shelving); ``target-not-found``;
            ``node-not-found``; ``role-not-permitted``; ``shelving-root``;
            ``shelving-statement-used``; ``shelving-subject-foreign``;
            ``shelving-not-standing``; ``invalid-record``; ``approval-key-missing``;
            step-2 codes; ``record-copy``; ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    if action not in ACTIONS:
        raise LemmataError("bad-request", f"action must be one of {list(ACTIONS)}",
                           field="action")
    if action == "shelved" and lifts is not None:
        raise LemmataError("bad-request", "`lifts` belongs to an unshelved record",
                           field="lifts")
    graph = graph_of(svc)
    node_of(graph, target, node)
    if not roles_of(graph, target, who.pseudonym) & {"steward", "curator"}:
        raise LemmataError("role-not-permitted", f"shelving is a steward's of {target} or a "
                           "curator's act (D-14 v3.47)", field="target_id")
    subject = node if scope == "statement" else scope
    path = record_path(svc, f"targets/{target}/nodes/{node}/shelving", who.pseudonym, ".yaml")
    rec: dict[str, Any] = {"subject": subject, "cause": cause, "by": who.pseudonym,
                           "date": iso(svc.now())}
    if action == "unshelved":
        standing = derive.standing_shelving(graph, target, subject)
        if standing is None or (lifts is not None and lifts != standing):
            raise LemmataError("shelving-not-standing", f"the shelving standing for "
                               f"{subject} is {standing or 'none'}", field="lifts")
        rec["lifts"] = standing
    valid = validate_record(m.Shelving, rec, path)  # validated once, then signed
    model = m.Shelving.model_validate(valid)
    for finding in shelving_findings(graph, target, node, path, model):  # the gate's rule
        raise LemmataError(finding.code, finding.message, path=path, field="scope")
    key = IndexKey(target, node, Kind.SHELVING.value, None,
                   normalized_record_sha256({k: v for k, v in valid.items()
                                             if k in ("subject", "lifts")}))
    rec, opened = file_role_act(
        svc, who, graph, m.Shelving, valid, path=path, kind=Kind.SHELVING, key=key,
        title=f"{action}: {target}/{node}",
        what=f"{'Shelves' if action == 'shelved' else 'Lifts the shelving of'} "
             f"{subject} (scope: {scope}). Cause: {cause}",
        decision="Record-only kind: step 2 alone (ruling 6); D-14 v3.47",
        copy=f"this {action} record of {subject}")
    return receipt(opened, kind="shelving", target=target, node=node, action=action,
                   record=rec, next_step=_NEXT)
