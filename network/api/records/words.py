"""Glosses and explainers: words written as version chains (D-3 v3.30/v3.31/v3.32/v3.44,
ruling 11), and the read of what still lacks words (D-28 list_words_needed).

* :func:`submit_gloss` (``POST /glosses``) opens a pull request appending one version:
  a gloss of a Lean file or an explainer of a merged proof, new or superseding its chain's
  head. ``dry_run`` runs every check the pull request would meet and opens nothing;
  ``amends`` lets the author of an open words pull request replace its words in that
  pull request (D-28 notation note, 2026-10-06).
* One writer at a time: a new chain on a file is refused while another open pull request
  writes one (v3.31), and a version superseding a head is refused while another open pull
  request supersedes the same head (v3.32). Both are read from the submissions index,
  which mirrors every open pull request (ruling 12); a words row's ``chain_head`` is
  ``<described file>|<superseded version path, or empty for a new chain>``.
* :func:`withdraw_gloss` (``POST /glosses/withdrawals``) appends a withdrawal record of
  one version (v3.30: its author, a steward of the target or a curator).
* Approvals (v3.33) are made through the site by a signed-in steward or curator on a web
  session; they have no tool and no route here.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from network.api import db
from network.api.identity.pseudonyms import write_identity
from network.api.identity.role_acts import sign_role_act
from network.api.service import Caller, Service, iso
from network.api.submit.names import record_path
from network.api.submit.openings import follow
from network.api.submit.records import (
    IndexKey,
    dump_yaml,
    gate_findings,
    graph_of,
    node_of,
    normalized_record_sha256,
    open_record_pr,
    pr_body,
    receipt,
    refuse_findings,
    sync_open_rows,
    target_of,
    validate_record,
)
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind
from network.gate.steps.step2 import roles_of
from network.record import derive
from network.record import models as m
from network.record import words as record_words
from network.record.read.loader import ATTEMPT_RE, Graph, Node

define_once("words-subject-invalid", None, 422,
            "The file the words describe is not one words may describe: a gloss describes a "
            "node's Statement, Witness or Relation, or a merged partial; an explainer a merged "
            "proof or alternate (D-3 v3.30/v3.44).",
            "Name the graph path of such a file as `subject`; list_words_needed lists them.")
define_once("words-not-head", None, 409,
            "`supersedes` does not name the current version of a chain of the same kind on the "
            "same file (D-3 v3.30): a version supersedes its chain's latest, never one "
            "already superseded or withdrawn.",
            "Read the node's chains with get_node (gloss/explainer sections) and supersede the "
            "current version.")
define_once("words-chain-busy", None, 409,
            "Another open pull request is writing a new chain of words on this file (D-3 "
            "v3.31).",
            "Wait for it to merge, then supersede its version; or amend your own open pull "
            "request with `amends`.")
define_once("words-head-busy", None, 409,
            "Another open pull request supersedes the same version: one writer per chain head "
            "(D-3 v3.32).",
            "Wait for it to merge, then supersede the version that merged.")
define_once("words-amend-invalid", None, 409,
            "`amends` does not name an open words pull request of yours on the same file.",
            "Omit `amends` to open a new pull request, or name your own open one (its "
            "submission id or pull-request number).")
define_once("withdrawal-subject-invalid", None, 422,
            "The record to withdraw is not a gloss or explainer version on the record, or it "
            "is already withdrawn.",
            "Name the graph path of a current gloss or explainer version (get_node lists them).")

WORDS_KINDS = ("gloss", "explainer")
_SUBJECT = re.compile(r"targets/(?P<t>[^/]+)/nodes/(?P<n>[^/]+)/(?P<rest>.+)")
_GLOSSABLE = {"Statement.lean": "statement", "Witness.lean": "witness",
              "Relation.lean": "relation"}
_NEXT_WORDS = ("Poll GET /submissions/mine (get_my_submissions) for the pull request; the gate "
               "checks it at step 2 and merges it. A steward or curator approves words through "
               "the site (v3.33); to change your words before the merge, call submit_gloss "
               "again with `amends` = this submission_id.")


def _subject(graph: Graph, subject: str) -> tuple[str, str, Node, str]:
    """(target, node, node object, subject kind) of a file words may describe.

    Subject kinds: statement, witness, relation, proof (Proof.lean or an alternate),
    partial (a merged partial or reduction).

    Raises:
        LemmataError: ``words-subject-invalid``; ``target-not-found``; ``node-not-found``.
    """
    mt = _SUBJECT.fullmatch(subject or "")
    if mt is None:
        raise LemmataError("words-subject-invalid", f"{subject!r} is not a node's file",
                           field="subject")
    n = node_of(graph, mt.group("t"), mt.group("n"))
    rest = mt.group("rest")
    if subject not in graph.files:
        raise LemmataError("words-subject-invalid", f"{subject} is not on the graph",
                           path=subject)
    if rest in _GLOSSABLE:
        return mt.group("t"), mt.group("n"), n, _GLOSSABLE[rest]
    if rest == "Proof.lean":
        return mt.group("t"), mt.group("n"), n, "proof"
    at = ATTEMPT_RE.fullmatch(rest[len("attempts/"):]) if rest.startswith("attempts/") else None
    if at is not None and not at.group("k"):
        k = at.group("kind").split(".")[0]
        if k == "alternate":
            return mt.group("t"), mt.group("n"), n, "proof"
        if k in ("partial", "reduction"):
            sha = next((a.sha256 for a in n.attempts if a.path == subject), "")
            if derive.is_merged(graph, subject, sha):
                return mt.group("t"), mt.group("n"), n, "partial"
    raise LemmataError("words-subject-invalid", f"no words describe {rest}", path=subject)


def _words_rows(svc: Service, target: str, node: str) -> list[db.SubmissionRow]:
    return [r for r in sync_open_rows(svc, target, node) if r.kind in WORDS_KINDS]


def _find_amended(svc: Service, who_id: int, amends: str, target: str,
                  node: str) -> db.SubmissionRow:
    for r in _words_rows(svc, target, node):
        if amends in (r.id, r.pull_request) and r.identity_id == who_id and r.state == "open":
            return r
    raise LemmataError("words-amend-invalid", f"{amends!r} is not an open words pull request "
                       f"of yours on {target}/{node}", field="amends")


def _amended_path(svc: Service, row: db.SubmissionRow) -> str:
    """The words file the amended pull request adds (LocalForge: read from its branch)."""
    from network.gate.diff import diff_commits

    forge = svc.forge
    if forge is None or not hasattr(forge, "amend_pull_request"):
        raise LemmataError("words-amend-invalid", "this forge cannot amend a pull request; "
                           "close it and open a new one", field="amends")
    pr = forge.get(int(row.pull_request or "0"))
    changed = [c.path for c in diff_commits(forge.path, pr.base_sha, pr.head_sha).changes
               if c.status == "added" and c.path.endswith(".yaml")]
    if len(changed) != 1:
        raise LemmataError("words-amend-invalid", f"pull request {pr.number} does not add "
                           "exactly one words file", field="amends")
    return changed[0]


def submit_gloss(svc: Service, caller: Caller, *, subject: str, text: str | None = None,
                 sections: list[dict[str, Any]] | None = None, label: str | None = None,
                 licence: str | None = None, supersedes: str | None = None,
                 kind: str | None = None, drafted_with: list[str] | None = None,
                 dry_run: bool = False, amends: str | None = None) -> dict[str, Any]:
    """Append one version of a gloss or explainer (POST /glosses, submit_gloss; D-3
    v3.30/v3.31/v3.32/v3.44, ruling 11).

    Args:
        subject: the graph path of the file described (a Statement/Witness/Relation.lean,
            Proof.lean, an alternate or a merged partial).
        text: the words as one section (a gloss is one section); or ``sections``:
            ``[{steps, text, drafted_with}]`` naming outline steps.
        label: a statement gloss's short name, at most 60 characters (v3.44).
        licence: the words' licence; default the graph's ``policy.json`` data licence.
        supersedes: the path of the chain's current version this one supersedes; None
            starts a new chain.
        kind: ``gloss`` or ``explainer``; default explainer for a proof or alternate, gloss
            otherwise.
        drafted_with: models that drafted the text (D-23), for ``text``.
        dry_run: run every check and open nothing.
        amends: a submission id (or pull-request number) of the caller's own open words
            pull request on the same file, whose words this version replaces.

    Returns:
        The receipt plus ``warnings`` (what a reader or the products will lack) and the
        ``record`` written; on a dry run no pull request.

    Raises:
        LemmataError: the write guard's codes; ``words-subject-invalid``;
            ``target-not-found``; ``node-not-found``; ``bad-request`` (text and sections
            both or neither; unknown kind); ``invalid-record``; ``words-not-head``;
            ``words-chain-busy``; ``words-head-busy``; ``words-amend-invalid``;
            ``explainer-without-proof`` and other step-2 codes; ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    target, node, n, subject_kind = _subject(graph, subject)
    if kind is None:
        kind = "explainer" if subject_kind == "proof" else "gloss"
    if kind not in WORDS_KINDS:
        raise LemmataError("bad-request", f"kind must be gloss or explainer, not {kind!r}",
                           field="kind")
    if (kind == "explainer") != (subject_kind in ("proof", "partial")) and subject_kind != "partial":
        raise LemmataError("words-subject-invalid", f"a {kind} does not describe a "
                           f"{subject_kind} (D-3 v3.30)", path=subject, field="kind")
    if (text is None) == (sections is None):
        raise LemmataError("bad-request", "give either `text` or `sections`", field="text")
    secs = sections if sections is not None else [
        {"steps": [], "text": text, "drafted_with": list(drafted_with or [])}]
    if label is not None and (kind != "gloss" or subject_kind != "statement"):
        raise LemmataError("invalid-record", "only a gloss of a statement carries a label "
                           "(v3.44)", path=subject, field="label")
    row = _find_amended(svc, who.id, amends, target, node) if amends else None
    path = (_amended_path(svc, row) if row is not None
            else record_path(svc, f"targets/{target}/nodes/{node}/{kind}", who.pseudonym,
                             ".yaml"))
    if supersedes is not None:
        chains = record_words.words_chains(graph, target, node, kind)
        heads = {c["current"]["path"] for c in chains if c["describes"] == subject}
        if supersedes not in heads:
            raise LemmataError("words-not-head", f"{supersedes!r} is not the current {kind} of "
                               f"a chain on {subject}", path=path, field="supersedes")
    rec: dict[str, Any] = {
        "describes": subject, "describes_sha256": derive_sha(n, graph, subject),
        "author": who.pseudonym, "date": iso(svc.now()),
        "licence": (licence or graph.policy.data_license).strip(), "sections": secs,
    }
    if supersedes is not None:
        rec["supersedes"] = supersedes
    if label is not None:
        rec["label"] = label
    rec = validate_record(m.Gloss if kind == "gloss" else m.Explainer, rec, path)
    files = {path: dump_yaml(rec)}
    if row is None:
        refuse_findings(gate_findings(graph, files, who.pseudonym,
                                      Kind.GLOSS if kind == "gloss" else Kind.EXPLAINER))
    chain_head = f"{subject}|{supersedes or ''}"
    key = IndexKey(target, node, kind, chain_head, normalized_record_sha256(rec))

    def one_writer(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind not in WORDS_KINDS or (row is not None and r.id == row.id):
                continue
            if supersedes is None and r.chain_head == chain_head:
                raise LemmataError("words-chain-busy", f"submission {r.id} ({follow(r)}, "
                                   f"by {r.pseudonym}) is writing a new chain on {subject}",
                                   path=subject)
            if supersedes is not None and r.chain_head == chain_head:
                raise LemmataError("words-head-busy", f"submission {r.id} ({follow(r)}, by "
                                   f"{r.pseudonym}) already supersedes {supersedes}",
                                   path=supersedes)

    warnings = _warnings(rec, kind, subject_kind)
    if row is not None:
        one_writer(_words_rows(svc, target, node))
        if not dry_run:
            amended = svc.forge.amend_pull_request(int(row.pull_request or "0"), files,
                                                   f"{kind}: amend {path}",
                                                   author=who.pseudonym)
            with db.transaction(svc.sessions) as s:
                r = s.get(db.SubmissionRow, row.id)
                assert r is not None
                r.chain_head = chain_head
                r.head_sha = getattr(amended, "head_sha", r.head_sha)
                r.normalized_sha256 = key.normalized_sha256
        from network.api.submit.records import Opened

        opened = Opened(row.id, row.pull_request, row.pull_request_url, [path],
                        f"{kind}: {subject}")
    else:
        opened = open_record_pr(
            svc, who, key=key, files=files, title=f"{kind}: {subject}",
            body=pr_body(f"A {kind} version of {subject}"
                         + (f", superseding {supersedes}" if supersedes else ", a new chain")
                         + ". Unverified words (D-3 v3.30).", who,
                         "Record-only kind: step 2 alone (ruling 6)"),
            conflicts=[one_writer], dry_run=dry_run)
    return receipt(opened, kind=kind, target=target, node=node, dry_run=dry_run,
                   amended=row is not None, warnings=warnings, record=rec,
                   next_step=_NEXT_WORDS)


def derive_sha(n: Node, graph: Graph, subject: str) -> str:
    """SHA-256 (hex) of the described file's current bytes: what ``describes_sha256``
    names (D-3 v3.30: a gloss names the hash of the exact text it describes)."""
    for lf in n.files.values():
        if lf.path == subject:
            return lf.sha256
    for a in n.attempts:
        if a.path == subject:
            return a.sha256
    import hashlib

    return hashlib.sha256(graph.source.read(subject)).hexdigest()


def _warnings(rec: dict[str, Any], kind: str, subject_kind: str) -> list[str]:
    """What the words lack that readers or the products will miss (v3.31, v3.44)."""
    out: list[str] = []
    if kind == "gloss" and subject_kind == "statement":
        if not re.match(r"\s*\$\$.+?\$\$", rec["sections"][0]["text"], re.DOTALL):
            out.append("claim-missing: a statement gloss opens with the claim as a $$…$$ "
                       "display (v3.44); the node will have no claim")
        if "label" not in rec:
            out.append("label-missing: without a label the node is named by its hole or id "
                       "(v3.44)")
    if any(s.get("drafted_with") for s in rec["sections"]):
        out.append("drafted: sections a model drafted read as drafted until a person writes "
                   "or a steward signs them (v3.31)")
    return out


def withdraw_gloss(svc: Service, caller: Caller, *, record: str, reason: str) -> dict[str, Any]:
    """Open a pull request appending a withdrawal of one gloss or explainer version,
    ``nodes/<node>/withdrawals/<ts>-<pseudonym>.yaml`` (POST /glosses/withdrawals,
    withdraw_gloss; D-3 v3.30, D-18 v3.27).

    Args:
        record: the graph path of the version withdrawn.
        reason: why, in one sentence.

    Raises:
        LemmataError: the write guard's codes; ``withdrawal-subject-invalid``;
            ``role-not-permitted`` (neither its author, a steward of the target nor a
            curator); ``invalid-record``; step-2 codes; ``record-copy`` (the same
            withdrawal is open); ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    mt = _SUBJECT.fullmatch(record or "")
    parts = mt.group("rest").split("/") if mt else []
    if mt is None or len(parts) != 2 or parts[0] not in WORDS_KINDS:
        raise LemmataError("withdrawal-subject-invalid", f"{record!r} is not a gloss or "
                           "explainer version", field="record")
    target, node = mt.group("t"), mt.group("n")
    n = node_of(graph, target, node)
    authors = {rf.path: rf.record.author for rf in n.glosses}
    authors.update({rf.path: rf.record.author for rf in n.explainers})
    author = authors.get(record)
    if author is None or record in derive.withdrawn(graph):
        raise LemmataError("withdrawal-subject-invalid", f"{record} is not a current version "
                           "on the record", path=record)
    roles = roles_of(graph, target, who.pseudonym)
    if author.casefold() != who.pseudonym.casefold() and \
            not roles & {"steward", "curator"}:
        raise LemmataError("role-not-permitted", "a version is withdrawn by its author, a "
                           "steward of the target or a curator (D-3 v3.30)", path=record)
    target_of(graph, target)
    path = record_path(svc, f"targets/{target}/nodes/{node}/withdrawals", who.pseudonym,
                       ".yaml")
    rec = validate_record(m.Withdrawal, {"withdraws": record, "by": who.pseudonym,
                                         "reason": reason, "date": iso(svc.now())}, path)
    if author != who.pseudonym:  # rests on the steward's or curator's role (ruling 14)
        rec = sign_role_act(svc, m.Withdrawal, rec, who)
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.WITHDRAWAL))
    key = IndexKey(target, node, Kind.WITHDRAWAL.value, None,
                   normalized_record_sha256({"withdraws": record}))

    def same(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == key.kind and r.normalized_sha256 == key.normalized_sha256:
                raise LemmataError("record-copy", f"submission {r.id} ({follow(r)}) already "
                                   f"withdraws {record}")

    opened = open_record_pr(svc, who, key=key, files=files, title=f"withdraw: {record}",
                            body=pr_body(f"Withdraws {record}: {reason}", who,
                                         "Record-only kind: step 2 alone (ruling 6)"),
                            conflicts=[same])
    return receipt(opened, kind="withdrawal", target=target, node=node,
                   next_step="Once merged the version reads as absent and its chain's current "
                   "version is the latest not withdrawn (v3.30). " + _NEXT_WORDS.split(";")[0]
                   + ".")


def list_words_needed(svc: Service, target: str | None = None,
                      kind: str | None = None) -> dict[str, Any]:
    """``GET /words-needed.json`` (list_words_needed): every Lean file and merged proof
    lacking words, from :func:`network.record.words.words_needed` (the one derivation),
    with the open pull request already writing words on each file overlaid from the
    submissions index (D-28 notation notes 2026-10-05/06). Nothing is ranked.

    Args:
        target: keep one target's files.
        kind: keep one kind: statement, witness, relation, proof or partial.

    Returns:
        ``{schema, graph_commit, entries: [{target, node, file, sha256, kind, words, why,
        status, outline, open_pull_request}]}``; ``open_pull_request`` is ``{submission_id,
        pull_request, url, pseudonym, supersedes}`` or None.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``; ``bad-request`` (unknown
            kind); ``graph-unavailable``.
    """
    graph = graph_of(svc)
    if target is not None:
        target_of(graph, target)
    if kind is not None and kind not in record_words.WORDS_KINDS:
        raise LemmataError("bad-request", f"kind must be one of {list(record_words.WORDS_KINDS)}",
                           field="kind")
    entries = record_words.words_needed(graph, target, kind)
    with db.transaction(svc.sessions) as s:
        pairs = {(t, nd) for t, nd in s.execute(
            select(db.SubmissionRow.target, db.SubmissionRow.node).where(
                db.SubmissionRow.kind.in_(WORDS_KINDS), db.SubmissionRow.state == "open"))}
    writing: dict[str, dict[str, Any]] = {}
    for t, nd in sorted(pairs):
        for r in _words_rows(svc, t, nd):
            if r.state != "open" or not r.chain_head:
                continue
            file, _, sup = r.chain_head.partition("|")
            writing.setdefault(file, {"submission_id": r.id, "pull_request": r.pull_request,
                                      "url": r.pull_request_url, "pseudonym": r.pseudonym,
                                      "supersedes": sup or None})
    for e in entries:
        e["open_pull_request"] = writing.get(e["file"])
    return {"schema": "words-needed/v1", "graph_commit": graph.commit, "entries": entries}
