"""Signing a related variant's pertinence sentence (D-30 v3.12; issue 18).

:func:`sign_pertinence` (``POST /pertinence-signatures``, a person's act on a web session,
no MCP tool: "one human act on the one claim no kernel checks") opens a pull request
appending one ``pertinence/v1`` file under the variant's node, signed with the network's
approval key for the signed-in steward of the target or curator. It refuses, before
anything opens, what the gate's step 2 refuses (:mod:`network.gate.records.pertinence`):

* a caller who is neither a steward of the target nor a curator (``role-not-permitted``);
* a node that is no related variant (``pertinence-not-related``), or one without a
  sentence (``pertinence-no-sentence``);
* a ``sentence_sha256`` the caller read that is not the sentence's now
  (``pertinence-sentence-mismatch``: the sentence changed since it was read);
* a sentence that already carries a signature that counts (``pertinence-already-signed``).

What follows (``variant.pertinence_signed`` in graph.json, the pages, ``get_node``'s
``pertinence``) is derived (:mod:`network.record.pertinence`).
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
from network.errors import LemmataError
from network.gate.artifacts import Kind
from network.gate.records.pertinence import pertinence_findings
from network.gate.steps.step2 import roles_of
from network.record import models as m
from network.record import pertinence

if TYPE_CHECKING:
    from network.api.people.web_session import Person

_NEXT = ("Poll GET /submissions/mine for the pull request; the gate checks it at step 2 and "
         "merges it. The variant then reads pertinent to its target (graph.json "
         "variant.pertinence_signed, get_node's pertinence; D-30 v3.12).")


def sign_pertinence(svc: Service, person: Person, *, target: str, node: str,
                    sentence_sha256: str | None = None) -> dict[str, Any]:
    """Open a pull request appending a signed pertinence record
    ``nodes/<node>/pertinence/<ts>-<pseudonym>.yaml`` (POST /pertinence-signatures;
    D-30 v3.12).

    Args:
        person: the signed-in steward of the target or curator.
        target, node: the related variant whose sentence is signed.
        sentence_sha256: the SHA-256 (hex) of the sentence as the signer read it
            (get_node's ``pertinence.sentence_sha256``); when given it must be the
            sentence's now, so a sentence changed after reading is never signed. Default:
            the sentence's now.

    Returns:
        The receipt (``submission_id``, ``pull_request``, ``paths``, ``record``, ``next``).

    Raises:
        LemmataError: the write guard's codes (``dco-not-accepted`` among them);
            ``target-not-found``; ``node-not-found``; ``role-not-permitted``;
            ``pertinence-not-related``; ``pertinence-no-sentence``;
            ``pertinence-sentence-mismatch``; ``pertinence-already-signed``;
            ``invalid-record``; ``approval-key-missing``; step-2 codes; ``record-copy``;
            ``forge-not-configured``; ``queue-down``.
    """
    who = write_identity(svc, person.caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    if not roles_of(graph, target, who.pseudonym) & {"steward", "curator"}:
        raise LemmataError("role-not-permitted", f"a pertinence signature is a steward's of "
                           f"{target} or a curator's act (D-30 v3.12)", field="target_id")
    sentence = n.meta.variant.pertinence if n.meta.variant is not None else None
    now_sha = pertinence.sentence_sha256(sentence) if sentence else None
    path = record_path(svc, f"targets/{target}/nodes/{node}/pertinence", who.pseudonym,
                       ".yaml")
    rec: dict[str, Any] = {
        "target": target, "variant": node,
        "sentence_sha256": sentence_sha256 or now_sha or "0" * 64,
        "by": who.pseudonym, "date": iso(svc.now())}
    valid = validate_record(m.Pertinence, rec, path)  # validated once, then signed
    model = m.Pertinence.model_validate(valid)
    problem = pertinence.record_problem(graph, target, node, model)
    if problem is not None:  # the gate's rule, before anything is signed
        raise LemmataError(problem[0], problem[1], path=path, field="sentence_sha256")

    def the_gates_rule(signed: dict[str, Any]) -> None:
        model = m.Pertinence.model_validate(signed)
        for finding in pertinence_findings(graph, target, node, path, model):
            raise LemmataError(finding.code, finding.message, path=path)

    key = IndexKey(target, node, Kind.PERTINENCE.value, None,
                   normalized_record_sha256({k: valid[k] for k in ("variant",
                                                                  "sentence_sha256")}))
    rec, opened = file_role_act(
        svc, who, graph, m.Pertinence, valid, path=path, kind=Kind.PERTINENCE, key=key,
        title=f"pertinence: {target}/{node}",
        what=f"Signs the pertinence sentence of the related variant {node}: "
             f"“{sentence}” (sha256 {valid['sentence_sha256']}).",
        decision="Record-only kind: step 2 alone (ruling 6); D-30 v3.12",
        copy=f"this signature of {node}'s sentence", check_signed=the_gates_rule)
    return receipt(opened, kind="pertinence", target=target, node=node, record=rec,
                   next_step=_NEXT)
