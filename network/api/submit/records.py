"""Record writes that are pull requests (D-35 "a PR appending the schema-checked file").

Each public ``submit_*``/``propose_*``/``file_*`` function is the one function an HTTP
route and its MCP tool both call (D-28; the table in ``network/api/tools.py``). Every one
follows the same path, :func:`open_record_pr`:

1. the write guard (:func:`network.api.identity.pseudonyms.write_identity`): address and identity
   rate limits, the bearer token, the current DCO;
2. the record is built from the caller's fields plus what only the service may fill in
   (the token's pseudonym as author, the service clock's date, and the file name
   ``<YYYYMMDDTHHMMSSZ>-<pseudonym>``), and validated against its model (D-34);
3. the would-be change is judged by the gate's own steps 1-2
   (:func:`network.gate.steps.step2.run_steps_1_2`) against the graph the service serves, so
   the files land exactly where the gate accepts them, and any finding refuses with its
   own catalog code (ruling 6);
4. copies are refused (D-25 v3.21): a statement, annex, postmortem, approach record,
   defect claim or revision request identical, comments and whitespace aside, to one
   merged for the same node (the graph at main) or open for it (the submissions index,
   ruling 12), a second witness for a hole;
5. only then is ONE pull request opened on the forge, authored by the token's identity
   (the service is committer, D-23/D-35), and indexed in the submissions index.

Nothing is written before step 5, so every refusal opens nothing and changes nothing.

This module holds the bearer-token record writes (postmortems D-13, annexes D-31, approach
records D-14, witnesses D-29, variants D-30 and speculative cruxes D-14, defect claims
D-16, revision requests D-8) and ``get_schema`` (D-34). Steps 2-5 are
:mod:`network.api.submit.record_pr`'s, and every name of it is re-exported here, where the route
modules have always imported them.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from network import ids
from network.api import db
from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller, Service, iso
from network.api.submit import openings
from network.api.submit.names import record_path
from network.api.submit.record_pr import (  # re-exported: the route modules import them from here
    Conflict,
    IndexKey,
    MemoryDiff,
    Opened,
    copy_refusal,
    dump_yaml,
    file_record,
    file_role_act,
    file_timestamp,
    gate_findings,
    graph_of,
    memory_diff,
    merged_copies,
    merged_copy_refusal,
    merged_statements,
    node_of,
    normalized_lean_sha256,
    normalized_record_sha256,
    normalized_text_sha256,
    open_record_pr,
    parse_yaml_mapping,
    pr_body,
    precheck_attachment,
    receipt,
    record_copy_key,
    refuse_findings,
    same_identity,
    sync_open_rows,
    target_of,
    validate_record,
)
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind
from network.record import derive
from network.record import models as m
from network.record.read.loader import parse_document

__all__ = [
    "RETIRED_DEFECT_CLASSES",
    "SCHEMA_ALIASES",
    "Conflict",
    "IndexKey",
    "MemoryDiff",
    "Opened",
    "copy_refusal",
    "dump_yaml",
    "file_defect_claim",
    "file_record",
    "file_revision_request",
    "file_role_act",
    "file_timestamp",
    "gate_findings",
    "get_schema",
    "graph_of",
    "memory_diff",
    "merged_copies",
    "merged_copy_refusal",
    "merged_statements",
    "node_of",
    "normalized_lean_sha256",
    "normalized_record_sha256",
    "normalized_text_sha256",
    "open_record_pr",
    "parse_yaml_mapping",
    "pr_body",
    "precheck_attachment",
    "propose_speculative_node",
    "propose_variant",
    "propose_witness",
    "receipt",
    "record_copy_key",
    "refuse_findings",
    "same_identity",
    "submit_approach_record",
    "submit_informal_annex",
    "submit_postmortem",
    "sync_open_rows",
    "target_of",
    "validate_record",
]

define_once("defect-class-retired", None, 422,
            "The defect class circular-decomposition was retired in v3.43 (D-12, D-16).",
            "Choose another class; a hole equal to an ancestor is the gate's "
            "offload-restates-ancestor refusal, not a defect claim.")
define_once("defect-line-out-of-range", None, 422,
            "A defect claim must point at a line of the node's Statement.lean (D-16).",
            "Give `line` between 1 and the statement's number of lines.")
define_once("licence-missing", None, 422,
            "The text carries no licence, and the record requires one (D-31, D-23).",
            "Name the licence the words are given under, e.g. CC-BY-4.0.")
define_once("schema-not-found", None, 404, "No published schema has this name and version.",
            "GET /info.json lists the schema index; names are kind/vN, e.g. d13/v1.")

_NEXT_GATE = ("Poll get_submission or GET /submissions/mine for the pull request; the gate "
              "runs step 2 (schema, path, role) and merges it.")


# --- postmortems (D-13) -------------------------------------------------------------------


def submit_postmortem(svc: Service, caller: Caller, *, target: str, node: str,
                      yaml_text: str) -> dict[str, Any]:
    """Open a pull request appending a D-13 postmortem
    ``nodes/<node>/attempts/<ts>-<pseudonym>-postmortem.yaml`` (POST /postmortems,
    submit_postmortem; D-13, D-28).

    Args:
        target, node: the node the failed attempt was on.
        yaml_text: the ``d13/v1`` document; ``schema``, ``node`` (``<target>/<node>``) and
            ``contributor`` may be omitted and are filled in.

    Returns:
        The receipt: ``{kind, target, node, paths, submission_id, pull_request, url, next}``.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``node-not-found``;
            ``malformed-yaml``; ``invalid-record``; ``unknown-schema``;
            ``record-identity-mismatch``; step-2 codes; ``record-copy`` (the same
            postmortem, contributor, date and whitespace aside, merged on the node or open
            for it: D-25 v3.21, so ``failure_classes`` counts each failure once);
            ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    d = f"targets/{target}/nodes/{node}"
    path = record_path(svc, f"{d}/attempts", who.pseudonym, "-postmortem.yaml")
    rec = parse_yaml_mapping(yaml_text, path)
    given_node = rec.get("node")
    if given_node is not None and str(given_node) not in (f"{target}/{node}", node):
        raise LemmataError("record-identity-mismatch", f"node is {given_node!r}, but the "
                           f"route names {target}/{node}", path=path, field="node")
    rec["node"] = f"{target}/{node}"
    same_identity(rec, "contributor", who, path)
    rec = validate_record(m.Postmortem, rec, path)
    key = IndexKey(target, node, Kind.POSTMORTEM.value, None, record_copy_key(rec))
    here = {"node": rec["node"]}  # a hand-filed postmortem may name its node alone
    merged = merged_copies(graph, ((a.path, a.postmortem) for a in n.attempts
                                   if a.postmortem is not None),
                           key=lambda pm: record_copy_key(pm, fill=here))
    opened = file_record(
        svc, who, graph, {path: dump_yaml(rec)}, kind=Kind.POSTMORTEM, key=key,
        title=f"postmortem: {target}/{node} by {who.pseudonym}",
        what=f"A D-13 postmortem on {target}/{node}: {rec['outcome']}, "
             f"{rec['failure_class']}.", decision="Record-only kind: step 2 alone (ruling 6)",
        copy="this postmortem", merged=merged)
    return receipt(opened, kind="postmortem", target=target, node=node, next_step=_NEXT_GATE)


# --- informal annexes (D-31) --------------------------------------------------------------


def submit_informal_annex(svc: Service, caller: Caller, *, target: str, node: str, text: str,
                          licence: str, title: str,
                          source: dict[str, Any] | None = None) -> dict[str, Any]:
    """Open a pull request attaching an informal argument as ``annex/<sha256>.md`` plus its
    ``annex/v1`` metadata ``annex/<sha256>.yaml`` (POST /annexes, submit_informal_annex;
    D-31). Untrusted data: it earns nothing, ever.

    Args:
        target, node: the node the argument is about.
        text: the prose (UTF-8); its SHA-256 names the files.
        licence: the licence the text is given under (required).
        title: a short title.
        source: an optional reference ``{title, url?, doi?, arxiv?, note?}``.

    Returns:
        The receipt plus ``sha256``: the hash a skeleton must cite in a comment line
        (D-31 v3.12).

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``node-not-found``;
            ``licence-missing``; ``invalid-record``; ``record-copy`` (an annex whose text,
            whitespace aside, is open or already on the node); step-2 codes;
            ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    if not licence or not licence.strip():
        raise LemmataError("licence-missing", "an annex names its licence", field="licence")
    data = text.encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    d = f"targets/{target}/nodes/{node}/annex"
    if not text.strip():
        raise LemmataError("invalid-record", "the annex text is empty", path=f"{d}/{sha}.md",
                           field="text")
    rec: dict[str, Any] = {"sha256": sha, "author": who.pseudonym, "licence": licence.strip(),
                           "title": title, "date": iso(svc.now())}
    if source is not None:
        rec["source"] = source
    rec = validate_record(m.Annex, rec, f"{d}/{sha}.yaml")
    if f"{d}/{sha}.md" in graph.files:
        raise LemmataError("record-copy", f"this annex is identical to {d}/{sha}.md, merged",
                           path=f"{d}/{sha}.md")
    files = {f"{d}/{sha}.md": data, f"{d}/{sha}.yaml": dump_yaml(rec)}
    key = IndexKey(target, node, Kind.ANNEX.value, None, normalized_text_sha256(text))
    merged = merged_copies(graph, ((f"{d}/{rf.record.sha256}.md", rf.record) for rf in n.annexes
                                   if f"{d}/{rf.record.sha256}.md" in graph.files),
                           key=lambda a: normalized_text_sha256(graph.text(f"{d}/{a.sha256}.md")))
    opened = file_record(
        svc, who, graph, files, kind=Kind.ANNEX, key=key,
        title=f"annex: {target}/{node} {sha[:12]}",
        what=f"An informal argument for {target}/{node} (annex {sha}). Untrusted data "
             "(D-31).", decision="Record-only kind: step 2 alone (ruling 6)", copy="this annex",
        merged=merged)
    return receipt(opened, kind="annex", target=target, node=node, sha256=sha,
                   cite=f"-- annex: {sha}",
                   next_step="A skeleton (a partial) derived from this argument cites it by "
                   f"the comment line `-- annex: {sha}` (D-31); the annex must be merged on "
                   "the node first. " + _NEXT_GATE)


# --- approach records (D-14 mechanism 3) --------------------------------------------------


def submit_approach_record(svc: Service, caller: Caller, *, target: str,
                           record: dict[str, Any]) -> dict[str, Any]:
    """Open a pull request appending a target-scoped strategy record
    ``targets/<target>/approaches/<ts>-<pseudonym>.yaml`` (POST /approaches,
    submit_approach_record; D-14 mechanism 3). Earns nothing on submission, by design.

    Args:
        target: the target the strategy is about.
        record: the ``approach/v2`` fields D-14 names (route, outcome in D-13's
            vocabulary, model_and_tooling {method, models, framework}, and optionally
            pinned_mathlib_sha, nodes, references, detail); ``target``, ``author`` and
            ``date`` are filled in, and ``pinned_mathlib_sha`` with the target's
            gate-spec pin when omitted (issue 18: the route writes approach/v2, readers
            still take v1). A v1 body (title, state) is refused ``invalid-record``.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``invalid-record``
            (also a target whose gate-spec pins no Mathlib while the record names none);
            ``record-identity-mismatch``; ``dangling-reference`` (a named node is absent);
            step-2 codes; ``record-copy`` (the same record, author and date aside, merged
            on the target or open); ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    t = target_of(graph, target)
    path = record_path(svc, f"targets/{target}/approaches", who.pseudonym, ".yaml")
    rec = dict(record)
    if rec.get("target") not in (None, target):
        raise LemmataError("record-identity-mismatch", f"target is {rec.get('target')!r}",
                           path=path, field="target")
    rec["target"] = target
    same_identity(rec, "author", who, path)
    rec["date"] = iso(svc.now())
    if rec.get("pinned_mathlib_sha") is None:
        pin = t.gate_spec.mathlib.rev if t.gate_spec.mathlib else None
        if pin is None:
            raise LemmataError("invalid-record", f"{target}'s gate-spec pins no Mathlib: "
                               "name pinned_mathlib_sha", path=path,
                               field="pinned_mathlib_sha")
        rec["pinned_mathlib_sha"] = pin
    rec = validate_record(m.ApproachV2, rec, path)
    for nid in rec.get("nodes", []):
        if nid not in t.nodes:
            raise LemmataError("dangling-reference", f"no node {nid!r} in {target}", path=path,
                               field="nodes")
    key = IndexKey(target, "", Kind.APPROACH.value, None, record_copy_key(rec))
    opened = file_record(
        svc, who, graph, {path: dump_yaml(rec)}, kind=Kind.APPROACH, key=key,
        title=f"approach: {target}: {rec['route'][:80]}",
        what=f"A D-14 approach record on {target}: {rec['route']}.",
        decision="Record-only kind: step 2 alone (ruling 6)", copy="this approach record",
        merged=merged_copies(graph, ((rf.path, rf.record) for rf in t.approaches)))
    return receipt(opened, kind="approach", target=target, node=None, next_step=_NEXT_GATE)


# --- witness proposals (D-29) -------------------------------------------------------------


def propose_witness(svc: Service, caller: Caller, *, target: str, node: str, witness: str,
                    attestation: Any = None) -> dict[str, Any]:
    """Open a pull request adding only a blocked hole's ``Witness.lean`` (POST
    /proposals/witness, propose_witness; D-29, D-25 v3.21).

    Args:
        target, node: the hole (a node with a ``hole`` record and no Witness.lean).
        witness: the Lean text.
        attestation: the precheck attestation the gate requires of Lean kinds (ruling 7),
            JSON text or object; omitted, the gate bounces the pull request at step 0.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``node-not-found``;
            ``witness-not-wanted`` (not a blocked hole); ``claim-node-shelved`` (D-14
            v3.47); ``witness-already-open`` (another
            open pull request fills the slot); ``forbidden-option``; ``precheck-malformed``;
            ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    path = f"targets/{target}/nodes/{node}/Witness.lean"
    if n.meta.hole is None or "Witness" in n.files:
        raise LemmataError("witness-not-wanted", f"{target}/{node} is not a hole waiting for "
                           "its witness (D-29)", path=path)
    if derive.node_flags(graph, target, node).shelved:
        raise LemmataError("claim-node-shelved", f"{target}/{node} is shelved (D-14 v3.47): "
                           "work on it is refused", path=path)
    pre = precheck_attachment(attestation)
    key = IndexKey(target, node, Kind.WITNESS.value, None, normalized_lean_sha256(witness))

    def one_slot(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == Kind.WITNESS.value:
                raise LemmataError("witness-already-open", f"submission {r.id} "
                                   f"({openings.follow(r)}, by {r.pseudonym}) already "
                                   f"proposes a witness for {target}/{node}")

    opened = file_record(
        svc, who, graph, {path: witness.encode("utf-8")}, kind=Kind.WITNESS, key=key,
        title=f"witness: {target}/{node}",
        what=f"A witness for the blocked hole {target}/{node} (D-29).",
        decision="Gate-checked at step 7", copy=None, conflicts=[one_slot],
        precheck_attestation=pre)
    return receipt(opened, kind="witness", target=target, node=node,
                   precheck_attached=pre is not None, next_step=_NEXT_GATE)


# --- proposals: variants (D-30) and speculative cruxes (D-14) --------------------------------


def _proposal(svc: Service, caller: Caller, *, kind: Kind, target: str, node: str,
              statement: str, witness: str, declaration: str, meta_extra: dict[str, Any],
              relation_proof: str | None, attestation: Any, title: str,
              what: str) -> dict[str, Any]:
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    t = target_of(graph, target)
    ids.check_node_id(node)
    d = f"targets/{target}/nodes/{node}"
    if node in t.nodes:
        raise LemmataError("node-exists", f"{target}/{node} already exists", path=d)
    stmt = statement.encode("utf-8")
    meta = validate_record(m.Meta, {
        "id": node, "target": target, "declaration": declaration,
        "statement_hash": hashlib.sha256(stmt).hexdigest(),
        "origin": "variant" if kind is Kind.VARIANT else "authored",
        "author": who.pseudonym, **meta_extra}, f"{d}/META.yaml")
    files: dict[str, bytes] = {f"{d}/META.yaml": dump_yaml(meta), f"{d}/Statement.lean": stmt,
                               f"{d}/Witness.lean": witness.encode("utf-8")}
    if relation_proof:
        files[f"{d}/Relation.lean"] = relation_proof.encode("utf-8")
    pre = precheck_attachment(attestation)
    refuse_findings(gate_findings(graph, files, who.pseudonym, kind))
    key = IndexKey(target, "", "proposal", None, normalized_lean_sha256(statement))
    merged_copy_refusal(merged_statements(graph, target), key, "this statement")
    opened = open_record_pr(svc, who, key=key, files=files, title=title,
                            body=pr_body(what, who, "Gate-checked: statement, witness, relation"),
                            conflicts=[copy_refusal(key, "this statement")],
                            precheck_attestation=pre)
    return receipt(opened, kind=kind.value, target=target, node=node,
                   statement_hash=meta["statement_hash"], precheck_attached=pre is not None,
                   next_step=_NEXT_GATE)


def propose_variant(svc: Service, caller: Caller, *, target: str, node: str, statement: str,
                    witness: str, declaration: str, relation: str | None = "related",
                    relation_proof: str | None = None, of: str | None = "root",
                    pertinence: str | None = None, attestation: Any = None) -> dict[str, Any]:
    """Open a pull request creating a labelled variant of a root (POST /proposals/variant,
    propose_variant; D-30, v3.46).

    Args:
        target: the target; ``node``: the new node id (absent from the target).
        statement, witness: Statement.lean and Witness.lean text.
        declaration: the theorem's name in Statement.lean.
        relation: ``resolves`` | ``partial`` | ``related`` | ``refutes``; every label
            above related needs ``relation_proof`` (Relation.lean, gate-checked).
        of: the node it is a variant of (default the root).
        pertinence: for related, the sentence saying why it bears on the target (v3.12).
        attestation: the precheck attestation (ruling 7).

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``bad-node-id``;
            ``node-exists``; ``invalid-record`` (bad relation label); ``missing-file``
            (a proved label without Relation.lean); ``statement-command-refused``;
            ``dangling-reference``; ``record-copy`` (the statement, Lean comments and
            whitespace aside, is already a node's on the target or proposed and open,
            D-25 v3.21); ``precheck-malformed``; ``forge-not-configured``.
    """
    relation = relation or "related"
    variant: dict[str, Any] = {"of": of or "root", "relation": relation}
    if pertinence:
        variant["pertinence"] = pertinence
    return _proposal(svc, caller, kind=Kind.VARIANT, target=target, node=node,
                     statement=statement, witness=witness, declaration=declaration,
                     meta_extra={"variant": variant}, relation_proof=relation_proof,
                     attestation=attestation, title=f"variant ({relation}): {target}/{node}",
                     what=f"A {relation} variant {target}/{node} of {of} (D-30).")


def propose_speculative_node(svc: Service, caller: Caller, *, target: str, node: str,
                             statement: str, witness: str, declaration: str,
                             attestation: Any = None) -> dict[str, Any]:
    """Open a pull request entering a crux statement as a speculative node (POST
    /proposals/speculative, propose_speculative_node; D-14 mechanism 2).

    Args:
        target: the target; ``node``: the new node id.
        statement, witness: Statement.lean (body ``sorry``) and its non-vacuity witness.
        declaration: the theorem's name in Statement.lean.
        attestation: the precheck attestation (ruling 7).

    Raises:
        LemmataError: as :func:`propose_variant`, without the relation codes.
    """
    return _proposal(svc, caller, kind=Kind.SPECULATIVE, target=target, node=node,
                     statement=statement, witness=witness, declaration=declaration,
                     meta_extra={"speculative": True}, relation_proof=None,
                     attestation=attestation, title=f"speculative: {target}/{node}",
                     what=f"A speculative crux {target}/{node} (D-14).")


# --- defect claims (D-16) and revision requests (D-8) ------------------------------------


RETIRED_DEFECT_CLASSES = frozenset({"circular-decomposition"})
"""Defect classes retired by a later decision (v3.43, D-12, D-16)."""


def file_defect_claim(svc: Service, caller: Caller, *, target: str, node: str,
                      defect_class: str, line: int, claim: str,
                      exhibit: str | None = None) -> dict[str, Any]:
    """Open a pull request appending a defect claim ``nodes/<node>/defects/<ts>-<pseudonym>
    .yaml`` against the node's statement (POST /defects, file_defect_claim; D-16, ruling 13).

    The mechanical pre-triage of D-16 is applied before anything opens: a class, and a
    line of Statement.lean.

    Args:
        target, node: the statement's node.
        defect_class: a ``defect/v1`` class; the retired circular-decomposition is refused.
        line: 1-based line of Statement.lean the claim points at.
        claim: what is wrong, in words.
        exhibit: the graph path of a kernel-checkable exhibit, if any.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``node-not-found``;
            ``defect-class-retired``; ``defect-line-out-of-range``; ``invalid-record``;
            ``dangling-reference`` (exhibit absent); step-2 codes; ``record-copy`` (the
            same claim, claimant and date aside, merged on the node and not withdrawn, or
            open); ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    path = record_path(svc, f"targets/{target}/nodes/{node}/defects", who.pseudonym, ".yaml")
    if defect_class in RETIRED_DEFECT_CLASSES:
        raise LemmataError("defect-class-retired", f"{defect_class} was retired in v3.43",
                           path=path, field="class")
    stmt = n.files.get("Statement")
    lines = len(graph.text(stmt.path).splitlines()) if stmt is not None else 0
    if not isinstance(line, int) or not 1 <= line <= max(lines, 1):
        raise LemmataError("defect-line-out-of-range", f"line {line}; Statement.lean has "
                           f"{lines} line(s)", path=path, field="line")
    rec: dict[str, Any] = {"class": defect_class, "line": line, "claim": claim,
                           "by": who.pseudonym, "date": iso(svc.now())}
    if exhibit:
        if exhibit not in graph.files:
            raise LemmataError("dangling-reference", f"exhibit {exhibit!r} is not on the "
                               "graph", path=path, field="exhibit")
        rec["exhibit"] = exhibit
    rec = validate_record(m.Defect, rec, path)
    key = IndexKey(target, node, Kind.DEFECT.value, None, record_copy_key(rec))
    opened = file_record(
        svc, who, graph, {path: dump_yaml(rec)}, kind=Kind.DEFECT, key=key,
        title=f"defect ({defect_class}): {target}/{node}",
        what=f"A D-16 defect claim on {target}/{node}, line {line}: {defect_class}.",
        decision="The pre-triage bounce is step 2 (D-16)", copy="this defect claim",
        merged=merged_copies(graph, ((rf.path, rf.record) for rf in n.defects)))
    return receipt(opened, kind="defect", target=target, node=node,
                   next_step="A claim blocks nothing by being filed; a curator accepting it "
                   "(a dispute record) does (D-16 v3.28, D-18). " + _NEXT_GATE)


def file_revision_request(svc: Service, caller: Caller, *, target: str, node: str,
                          operation: str, evidence: str,
                          proposed_statement_sha256: str | None = None) -> dict[str, Any]:
    """Open a pull request appending a revision request ``nodes/<node>/revision-requests/
    <ts>-<pseudonym>.yaml`` (POST /revision-requests, file_revision_request; D-8).

    Args:
        target, node: the node whose statement (or definition) is defective.
        operation: ``revise-statement`` | ``add-relation`` | ``revise-definition``.
        evidence: why, in words (vacuity, misformalization, junk values; never "weaker").
        proposed_statement_sha256: the hash of a proposed replacement, if any.

    Raises:
        LemmataError: the write guard's codes; ``target-not-found``; ``node-not-found``;
            ``invalid-record``; step-2 codes; ``record-copy`` (the same request, author
            and date aside, merged on the node or open); ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    n = node_of(graph, target, node)
    path = record_path(svc, f"targets/{target}/nodes/{node}/revision-requests",
                       who.pseudonym, ".yaml")
    rec: dict[str, Any] = {"node": node, "operation": operation, "evidence": evidence,
                           "by": who.pseudonym, "date": iso(svc.now())}
    if proposed_statement_sha256:
        rec["proposed_statement_sha256"] = proposed_statement_sha256
    rec = validate_record(m.RevisionRequest, rec, path)
    key = IndexKey(target, node, Kind.REVISION_REQUEST.value, None, record_copy_key(rec))
    opened = file_record(
        svc, who, graph, {path: dump_yaml(rec)}, kind=Kind.REVISION_REQUEST, key=key,
        title=f"revision request ({operation}): {target}/{node}",
        what=f"A D-8 revision request on {target}/{node}: {operation}.",
        decision="A curator acts on it (D-8)", copy="this revision request",
        merged=merged_copies(graph, ((rf.path, rf.record) for rf in n.revision_requests)))
    return receipt(opened, kind="revision-request", target=target, node=node,
                   next_step="A curator may act on it by a revision <node>@v<n> (D-8). "
                   + _NEXT_GATE)


# --- schemas (D-34, ruling 10) ------------------------------------------------------------

#: D-28's get_schema names → schema kinds.
SCHEMA_ALIASES: dict[str, str] = {
    "postmortem": "d13", "defect-claim": "defect", "defect_claim": "defect",
    "revision-request": "revision-request", "speculative-node": "meta", "variant": "meta",
    "approach-record": "approach", "informal-annex": "annex",
}
_SCHEMA_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def get_schema(svc: Service, name: str, version: str) -> dict[str, Any]:
    """``GET /schemas/{name}/{version}.json`` (get_schema): one published JSON Schema, as
    the graph carries it under ``schemas/`` (ruling 10), else the canonical set this
    service was built with (D-34). ``name`` may be a kind (``d13``) or one of D-28's names
    (``postmortem``, ``defect-claim``, ``revision-request``, ``speculative-node``,
    ``approach-record``, ``informal-annex``).

    Raises:
        LemmataError: ``schema-not-found``.
    """
    from network.record import schemas

    kind = SCHEMA_ALIASES.get(name, name)
    if not _SCHEMA_NAME.fullmatch(kind) or not re.fullmatch(r"v[1-9][0-9]{0,3}", version):
        raise LemmataError("schema-not-found", f"{name!r}/{version!r} is not <kind>/v<N>")
    rel = f"{kind}/{version}.json"
    try:
        graph = graph_of(svc)
    except LemmataError:
        graph = None
    if graph is not None and f"schemas/{rel}" in graph.files:
        return parse_document(f"schemas/{rel}", graph.source.read(f"schemas/{rel}"))
    path = schemas.SCHEMAS_DIR / rel
    if not path.is_file():
        raise LemmataError("schema-not-found", f"no schema {kind}/{version}")
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
