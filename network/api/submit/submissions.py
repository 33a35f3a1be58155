"""Submissions: the pull requests the service opens for a token, and the index that
mirrors every open pull request (D-25, D-28 submit_proof, D-35 ``POST /submissions``;
rulings 7 and 12).

:func:`submit_proof` refuses before any pull request opens (D-4, D-25 v3.21, v3.44, v3.47,
D-28):

* a precheck that did not pass, named (``precheck_id``) or attached (``attestation``), the
  same way on both paths: ``precheck-not-passed``, a toolchain-missing one included
  (:mod:`network.api.submit.submission_prechecks`);

* a copy — Lean comments and whitespace set aside (:func:`normalized_sha256`) — of an
  artifact merged on the node or open for it (:func:`check_copies`; the tutorial node stays
  open to rehearsal, D-27);
* a second witness for a hole whose witness is open (:func:`check_copies`, kind
  ``witness``: a hole has one slot);
* a partial missing its approach, licence, label or claim lines (``partial-unlabelled``,
  D-12 v3.44);
* work on a shelved statement (D-14 v3.47) and nodes :func:`network.record.derive.claimable`
  refuses.

It then opens the pull request on the forge — the token's pseudonym as author with a
``Signed-off-by`` trailer, the service as committer (D-23, D-35) — with the precheck
attestation in a fenced ``precheck-attestation`` block of its body and on the forge's row
(ruling 7), indexes it, and claims the node for the submitter (D-25).

The index (``submissions``) is operational: :func:`sync_index` mirrors every open pull
request of the forge, hand-opened ones included, so copy refusal sees them (ruling 12),
and marks the ones that merged or closed. When a racer's proof merges first the merge queue
moves the loser's text to its alternate path (``network.gate.queue.queue.move_losing_racers``,
D-25 v3.21); the index picks that pull request up like any other and the loser sees it in
``GET /submissions/mine``.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from pydantic import ValidationError
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from network import ids
from network.api import db
from network.api.frontier import claims
from network.api.guidance import not_checkable
from network.api.identity.pseudonyms import write_identity
from network.api.service import (
    Caller,
    Service,
    Who,
    authenticate,
    iso,
    require_queue,
    sha256_hex,
)
from network.api.submit import openings
from network.api.submit.precheck import (
    ATTEMPT_TYPES,
    SUBMITTABLE,
    attempt_stamp,
    build_bundle,
    is_tutorial,
)
from network.api.submit.record_pr import normalized_lean_sha256
from network.api.submit.submission_prechecks import attached_precheck, precheck_bundle
from network.errors import CATALOG, LemmataError, define
from network.forge.types import precheck_from_body
from network.gate import attestation as A
from network.gate.artifacts import partial_label_findings, strip_comments
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph

define("submission-description-fenced", None, 422,
       "The pull request's description holds a fenced block the gate reads from a body "
       "(a precheck-attestation or lemmata-disclosure block): the service writes those "
       "itself, from the precheck it checked and the disclosure it was given, and a second "
       "one would stand in for them (D-23 v3.37, D-28).",
       "Take the block out of the description; pass the disclosure as `disclosure` and "
       "the precheck as `precheck_id` or `attestation`.")
define("submission-copy", None, 409,
       "The artifact is, Lean comments and whitespace set aside, a copy of one already merged "
       "on the node or open for it (D-25 v3.21).",
       "Submit a different proof, or nothing; the detail names the one copied. A pull "
       "request whose gate failed or that closed blocks nothing.")
define("witness-slot-taken", None, 409,
       "A witness for this hole is already open: a hole has one witness slot (D-25 v3.21, "
       "D-29).",
       "Wait for that pull request: if its gate fails or it closes, propose again.")
define("submission-node-shelved", None, 409,
       "The statement is shelved by a steward or curator: work on it is refused (D-14 v3.47).",
       "Read the shelving in get_node and choose another node from list_frontier.")
define("forge-unavailable", None, 503,
       "The service has no forge to open pull requests on.",
       "Open the pull request by hand against the graph repository (D-35), or ask the "
       "operator to configure a forge.")
define("submission-not-found", None, 404, "No submission has this id.",
       "List yours with GET /submissions/mine (get_my_submissions).")
define("submission-not-yours", None, 403,
       "Only the identity the service opened the pull request for may withdraw it.",
       "Ask the submitter, or a person with rights on the graph, to close it.")
define("submission-merged", None, 409,
       "The pull request merged: it is part of the record and cannot be withdrawn (D-35).",
       "Nothing to do; a defect is answered by a defect claim or revision request.")
define("submission-closed", None, 409, "The pull request is already closed.",
       "Nothing to do; submit again if you still want it judged.")

#: Lean artifact kinds one node's copy check compares with each other (D-25 v3.21)
LEAN_KINDS = ("proof", "alternate", "partial", "reduction", "counterexample", "vacuity")
_SORRY = re.compile(r"\bsorry\b")
#: the fenced blocks a body carries for the gate; only the service writes them (issue 35)
_GATE_FENCE = re.compile(r"^[ \t]*```[ \t]*(precheck-attestation|" + A.DISCLOSURE_FENCE
                         + r")\b", re.MULTILINE)
_lock = threading.Lock()  # one check-then-open at a time per service process


# --- normalisation ------------------------------------------------------------------------


def normalized_sha256(text: str) -> str:
    """SHA-256 hex of Lean text with comments (line, block, doc) and every whitespace
    character removed: the comparison of D-25 v3.21 ("Lean comments and whitespace set
    aside"). The one Lean normalisation, shared with the record writes' statement and
    witness copy checks (:func:`network.api.submit.record_pr.normalized_lean_sha256`)."""
    return normalized_lean_sha256(text)


def hole_lines(text: str) -> list[int]:
    """1-based lines of the ``have`` each ``sorry`` of a partial closes, read from the text
    alone (comments removed): the line of the ``sorry`` when it holds ``have``, else the
    nearest ``have`` above it. A textual pre-check only; step 4 uses the toolchain's hole
    positions (D-12 v3.44)."""
    code = strip_comments(text).splitlines()
    out: list[int] = []
    for i, line in enumerate(code):
        if not _SORRY.search(line):
            continue
        j = i
        while j >= 0 and not code[j].lstrip().startswith("have "):
            j -= 1
        n = (j if j >= 0 else i) + 1
        if n not in out:
            out.append(n)
    return out


# --- the index -----------------------------------------------------------------------------


def _pr_key(number: int) -> str:
    return f"local/{number}"


def _pr_number(key: str | None) -> int | None:
    """The pull request number of an index row's key: ``local/N`` (this module's rows)
    or a bare ``N`` (the rows record writes open, network/api/submit/records.py)."""
    if key and key.startswith("local/"):
        key = key[6:]
    if key and key.isdigit():
        return int(key)
    return None


def _canonical(key: str | None) -> str:
    """An index row's pull request key as :func:`_pr_key` spells it ("" for none)."""
    n = _pr_number(key)
    return _pr_key(n) if n is not None else (key or "")


def _classify_pr(svc: Service, graph: Graph, pr: Any) -> dict[str, Any]:
    """Target, node, kind, main path and normalized hash of a pull request's first
    artifact (ruling 12: hand-opened pull requests are indexed too)."""
    import pygit2

    from network.gate.artifacts import classify
    from network.gate.diff import diff_commits

    forge = svc.forge
    out: dict[str, Any] = {"target": "-", "node": "-", "kind": "unclassified",
                           "chain_head": None, "normalized_sha256": "0" * 64}
    repo = getattr(forge, "repo", None)
    if repo is None:  # a remote forge (GitHub): the gate, not the index, reads its diffs
        return out
    try:
        main = forge.main_sha()
        mb = repo.merge_base(pygit2.Oid(hex=main), pygit2.Oid(hex=pr.head_sha))
        diff = diff_commits(forge.path, str(mb) if mb else main, pr.head_sha)
        found = classify(diff, graph)
    except (LemmataError, pygit2.GitError, KeyError, ValueError):
        return out
    if not found.artifacts:
        return out
    art = next((a for a in found.artifacts if a.kind.value in LEAN_KINDS),
               found.artifacts[0])
    out.update(target=art.target, node=art.node or "-", kind=art.kind.value,
               chain_head=art.main or None)
    change = next((c for c in diff.changes if c.path == art.main and c.new_id), None)
    if change is not None:
        try:
            out["normalized_sha256"] = normalized_sha256(
                diff.new_bytes(change).decode("utf-8"))
        except UnicodeDecodeError:
            out["normalized_sha256"] = sha256_hex(diff.new_bytes(change))
    return out


def sync_index(svc: Service) -> list[Any]:
    """Mirror the forge's open pull requests into the index and mark indexed ones that
    merged or closed (ruling 12). Returns the open pull requests, oldest first (the merge
    queue's order). Without a forge the index is left as it is and ``[]`` returned."""
    forge = svc.forge
    if forge is None:
        return []
    open_prs = list(forge.list_open())
    open_keys = {_pr_key(p.number): p for p in open_prs}
    now = svc.now()
    with svc.sessions() as s:  # read, then ask the forge: never two sessions at once
        rows = s.execute(select(db.SubmissionRow.id, db.SubmissionRow.pull_request).where(
            (db.SubmissionRow.state == "open")
            | db.SubmissionRow.pull_request.in_(
                list(open_keys) + [str(p.number) for p in open_prs]))).all()
    known = {_canonical(pr_key) for _id, pr_key in rows}
    ended: dict[str, tuple[str, str | None, str | None]] = {}
    for row_id, pr_key in rows:
        n = _pr_number(pr_key)
        if _canonical(pr_key) in open_keys or n is None:
            continue
        try:
            pr = forge.get(n)
            state, why = pr.state, (getattr(pr, "close_code", None),
                                    getattr(pr, "close_detail", None))
        except LemmataError:
            state, why = "closed", (None, None)
        if state != "open":
            ended[row_id] = (state, *why)
    if ended:
        with db.transaction(svc.sessions) as s:
            for row_id, (state, code, detail) in ended.items():
                s.execute(update(db.SubmissionRow).where(db.SubmissionRow.id == row_id)
                          .values(state=state, closed_at=now, close_code=code,
                                  close_detail=detail))
    missing = [p for k, p in open_keys.items() if k not in known]
    if missing:
        try:
            graph = svc.graphs.snapshot().graph
        except LemmataError:
            return open_prs
        for pr in missing:
            facts = _classify_pr(svc, graph, pr)
            try:
                with db.transaction(svc.sessions) as s:
                    s.add(db.SubmissionRow(
                        id=ids.new_submission_id(), pull_request=_pr_key(pr.number),
                        pull_request_url=None, identity_id=None, pseudonym=pr.author[:64],
                        opened_by_service=0, state="open", opened_at=now,
                        head_sha=pr.head_sha, **facts))
            except IntegrityError:
                continue  # indexed concurrently
    return open_prs


# --- the refusals before a pull request opens -------------------------------------------------


def _merged_lean(graph: Graph, target: str, node: str) -> dict[str, str]:
    """Graph path → normalized hash of the Lean artifacts merged on the node."""
    t = graph.targets[target]
    n = t.nodes[node]
    out: dict[str, str] = {}
    paths = [f.path for stem, f in n.files.items() if stem in ("Proof", "Refutation", "Vacuity")]
    paths += [a.path for a in n.attempts
              if a.kind in ("alternate", "partial", "reduction") and a.path.endswith(".lean")
              and a.hole_k is None]
    for p in paths:
        try:
            out[p] = normalized_sha256(graph.text(p))
        except LemmataError:
            continue
    return out


def check_copies(svc: Service, graph: Graph, *, target: str, node: str, kind: str,
                 text: str) -> None:
    """Refuse a copy before any pull request opens (D-25 v3.21).

    Args:
        graph: the graph at main.
        target, node: the node the artifact is for.
        kind: the artifact kind; Lean kinds (:data:`LEAN_KINDS`) are compared with the
            node's merged Lean artifacts and with open pull requests of those kinds on the
            node; ``witness`` is refused while any witness for the hole is open; other
            kinds (annex, postmortem, approach) with open ones of the same kind.
        text: the artifact's text.

    Raises:
        LemmataError: ``submission-copy`` naming the artifact copied;
            ``witness-slot-taken`` naming the open pull request.

    The tutorial node is never refused: it stays open to rehearsal (D-27).
    """
    if is_tutorial(graph, target, node):
        return
    with svc.sessions() as s:
        if kind == "witness":
            row = s.execute(select(db.SubmissionRow).where(
                db.SubmissionRow.target == target, db.SubmissionRow.node == node,
                db.SubmissionRow.kind == "witness", db.SubmissionRow.state == "open")
            ).scalars().first()
            if row is not None:
                raise LemmataError("witness-slot-taken", f"{target}/{node}'s witness is open "
                                   f"in {row.pull_request} ({row.id}, {row.pseudonym})")
            return
        digest = normalized_sha256(text)
        kinds = LEAN_KINDS if kind in LEAN_KINDS else (kind,)
        row = s.execute(select(db.SubmissionRow).where(
            db.SubmissionRow.target == target, db.SubmissionRow.node == node,
            db.SubmissionRow.kind.in_(kinds), db.SubmissionRow.state == "open",
            db.SubmissionRow.normalized_sha256 == digest)).scalars().first()
    if row is not None:
        raise LemmataError("submission-copy", f"a copy of the {row.kind} open in "
                           f"{row.pull_request} ({row.id}, by {row.pseudonym})")
    if kind in LEAN_KINDS:
        for path, merged in _merged_lean(graph, target, node).items():
            if merged == digest:
                raise LemmataError("submission-copy", f"a copy of {path}, merged", path=path)


def check_node_accepts(graph: Graph, *, target: str, node: str, kind: str) -> None:
    """The node-level refusals of a submission: shelved statements (D-14 v3.47); for an
    alternate a merged proof must exist (D-25 v3.13); every other kind must be claimable
    (``derive.claimable``'s code, D-25, D-6, D-33).

    Raises:
        LemmataError: ``submission-node-shelved``; ``alternate-without-proof``; the code
            ``claimable()`` names (``claim-node-closed``, ``claim-no-steward``, ...).
    """
    flags = derive.node_flags(graph, target, node)
    if flags.shelved:
        raise LemmataError("submission-node-shelved", f"{target}/{node} is shelved")
    if kind == "alternate":
        if "Proof" not in graph.targets[target].nodes[node].files:
            raise LemmataError("alternate-without-proof", f"{target}/{node} has no merged "
                               "proof: submit a proof instead")
        return
    if is_tutorial(graph, target, node):
        return  # the rehearsal slot is always open (D-27)
    ok, code = derive.claimable(graph, target, node)
    if not ok:
        entry = CATALOG.get(code or "")
        raise LemmataError(code if entry is not None and code else "not-claimable",
                           f"{target}/{node}: {entry.meaning if entry else code}")


# --- opening --------------------------------------------------------------------------------


def _require_forge(svc: Service) -> Any:
    if svc.forge is None:
        raise LemmataError("forge-unavailable", "no forge is configured")
    return svc.forge


def _claim_for(svc: Service, who: Who, target: str, node: str) -> dict[str, Any]:
    """Claim the node for the submitter for the longest published TTL (D-25: opening a
    submission claims the node), or extend the submitter's own claim to it; other holders
    are left alone (claims are advisory, racing is permitted; ruling 14). At the
    per-identity limit the submission still opens, unclaimed (``reason`` says why)."""
    ttl = claims.ttl_caps(svc, target).max_s
    now = svc.now()
    try:
        with db.transaction(svc.sessions) as s:
            row, _ = claims.hold(svc, s, who.id, target, node, ttl, now)
            return {"claimed": True, "claim_id": row.public_id,
                    "expires_at": iso(row.expires_at)}
    except LemmataError as exc:
        if exc.code != "claim-limit-reached":
            raise
        return {"claimed": False, "reason": f"claim-limit-reached: {exc.detail}"}


def _disclosure(given: dict[str, Any] | None) -> m.Disclosure | None:
    """A submission's disclosure block checked as the record's model (D-23 v3.37).

    Raises:
        LemmataError: ``bad-request`` when it is not exactly a ``Disclosure``;
            ``disclosure-too-large`` when its compact JSON is over the gate's cap
            (:data:`network.gate.attestation.MAX_DISCLOSURE_BYTES`: the gate would read
            such a block as no declaration, so it is refused here, never lost).
    """
    if given is None:
        return None
    try:
        declared = m.Disclosure.model_validate(given)
    except ValidationError as exc:
        raise LemmataError("bad-request", "disclosure: " + "; ".join(
            f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()),
            field="disclosure") from exc
    size = len(A.disclosure_json(declared).encode("utf-8"))
    if size > A.MAX_DISCLOSURE_BYTES:
        raise LemmataError("disclosure-too-large", f"the disclosure is {size} bytes of "
                           f"compact JSON; the limit is {A.MAX_DISCLOSURE_BYTES}",
                           field="disclosure")
    return declared


def submit_proof(svc: Service, caller: Caller, *, target: str | None = None,
                 node: str | None = None, artifact_type: str | None = None,
                 precheck_id: str | None = None, text: str | None = None,
                 files: dict[str, str] | None = None, attestation: str | None = None,
                 title: str | None = None, description: str | None = None,
                 disclosure: dict[str, Any] | None = None) -> dict[str, Any]:
    """Open a submission's pull request on the forge (POST /submissions, submit_proof;
    D-25, D-28, D-35; rulings 7 and 12).

    The files are those of the named passing precheck (``precheck_id``), or the bundle
    (``text``/``files``, built as :func:`network.api.submit.precheck.build_bundle` builds them)
    with pregate.sh's ``attestation`` JSON. Every refusal happens before a pull request
    opens; see the module docstring.

    Args:
        target, node, artifact_type: the node and one of proof, alternate,
            counterexample, vacuity, reduction, partial (taken from the precheck when
            omitted; refused when they differ from it).
        precheck_id: a passing precheck job of the caller's.
        text, files: the bundle, when no precheck_id is given.
        attestation: the precheck attestation JSON pregate.sh printed, with a bundle.
        title, description: the pull request's title and prose.
        disclosure: ``{method, models, framework}``, the models and tooling that made the
            artifact (D-23 v3.37; :class:`~network.record.models.Disclosure`); written as
            the body's ``lemmata-disclosure`` block, which the merge queue hands to the
            gate, so the attestation records it. None: ``undisclosed``.

    Returns:
        The submission (:func:`get_submission`'s form) plus ``claim`` and ``next``.

    Raises:
        LemmataError: the write guard's codes; ``queue-down`` (the merge queue is down:
            nothing would judge it, issue 16); ``forge-unavailable``;
            ``precheck-not-found``/``precheck-not-yours``; ``precheck-not-passed`` (the
            named job, or the attached attestation, did not pass: a toolchain-missing run
            is refused the same on both paths, D-4, D-28); ``precheck-mismatch``;
            ``precheck-malformed``; ``submission-needs-precheck``;
            the codes of ``build_bundle``; ``submission-node-shelved``;
            ``alternate-without-proof``; ``claimable()``'s codes; ``partial-unlabelled``;
            ``submission-copy``; ``witness-slot-taken``; the forge's codes;
            ``disclosure-too-large``; ``submission-description-fenced`` (the description
            holds a block only the service writes).
    """
    who = write_identity(svc, caller)
    declared = _disclosure(disclosure)
    if description and _GATE_FENCE.search(description):
        raise LemmataError("submission-description-fenced", "the description holds a "
                           "```precheck-attestation or ```lemmata-disclosure block",
                           field="description")
    require_queue(svc)  # a pull request opened now would wait unjudged (issue 16)
    forge = _require_forge(svc)
    graph = svc.graphs.snapshot().graph
    if precheck_id:
        bundle, raw, pid = precheck_bundle(svc, who, precheck_id)
        for given, have, name in ((target, bundle.target, "target"),
                                  (node, bundle.node, "node"),
                                  (artifact_type, bundle.artifact_type, "artifact_type")):
            if given is not None and given != have:
                raise LemmataError("precheck-mismatch", f"the precheck is for {name} "
                                   f"{have!r}, not {given!r}", field=name)
        pre_id: str | None = pid
    else:
        if target is None or node is None or artifact_type is None:
            raise LemmataError("bad-request", "target, node and artifact_type are needed "
                               "without a precheck_id")
        bundle = build_bundle(graph, target=target, node=node, artifact_type=artifact_type,
                              text=text, files=files, pseudonym=who.pseudonym, now=svc.now(),
                              ts=attempt_stamp(svc, target, node, artifact_type,
                                               who.pseudonym, text))
        if not attestation:
            raise LemmataError("submission-needs-precheck", "no precheck_id and no "
                               "attestation")
        raw = attached_precheck(attestation)
        pre_id = None
    t, n, kind = bundle.target, bundle.node, bundle.artifact_type
    main_text = bundle.files[bundle.main]
    check_node_accepts(graph, target=t, node=n, kind=kind)
    if kind == "partial":
        found = partial_label_findings(main_text, bundle.main, hole_lines(main_text))
        if found:
            raise LemmataError("partial-unlabelled", "; ".join(
                f"{d.message}" + (f" (line {d.line})" if d.line else "") for d in found),
                path=bundle.main)
    with _lock:
        open_prs = sync_index(svc)
        check_copies(svc, graph, target=t, node=n, kind=kind, text=main_text)
        pr_title = (title or f"{kind} of {t}/{n}")[:200]
        body = ((description.strip() + "\n\n") if description else "") + (
            f"Submitted through the Lemmata service for {who.pseudonym} (D-35).\n\n"
            f"- node: {t}/{n}\n- artifact: {kind} ({bundle.main})\n\n"
            f"```precheck-attestation\n{raw}\n```\n") + (
            f"\n{A.disclosure_block(declared)}" if declared is not None else "")
        pr = forge.open_pull_request(
            files={p: v.encode("utf-8") for p, v in bundle.files.items()}, title=pr_title,
            body=body, author=who.pseudonym,
            precheck_attestation=precheck_from_body(body))
        sub_id = ids.new_submission_id()
        with db.transaction(svc.sessions) as s:
            s.add(db.SubmissionRow(
                id=sub_id, target=t, node=n, kind=kind, chain_head=bundle.main,
                normalized_sha256=normalized_sha256(main_text),
                pull_request=_pr_key(pr.number), pull_request_url=None,
                identity_id=who.id, pseudonym=who.pseudonym, opened_by_service=1,
                state="open", opened_at=svc.now(), precheck_id=pre_id, head_sha=pr.head_sha))
    del open_prs
    claim = {"claimed": False, "reason": "an alternate's node is proved: nothing to claim"} \
        if kind == "alternate" else _claim_for(svc, who, t, n)
    out = get_submission(svc, submission_id=sub_id)
    out["claim"] = claim
    return out


# --- reading ---------------------------------------------------------------------------------


def _attestations_for(svc: Service, head_sha: str | None) -> list[dict[str, Any]]:
    if not head_sha:
        return []
    try:
        graph = svc.graphs.snapshot().graph
    except LemmataError:
        return []
    return [{"path": rf.path, **rf.record.model_dump(by_alias=True, exclude_none=True)}
            for rf in graph.attestations if rf.record.head_commit == head_sha]


def _moved_to(svc: Service, row: db.SubmissionRow) -> str | None:
    """The pull request a losing racer's text was moved to (D-25 v3.21), if any."""
    n = _pr_number(row.pull_request)
    list_all = getattr(svc.forge, "list_all", None)
    if n is None or list_all is None or row.state != "closed":
        return None
    for pr in list_all():
        if pr.number > n and f"(from #{n})" in pr.title:
            return _pr_key(pr.number)
    return None


#: What a submitter does about each close reason the merge queue records (issue 16); any
#: other code is a gate refusal, answered by fixing what its step names.
CLOSE_ACTIONS = {
    "merge-conflict": "resubmit against current main: precheck the artifact again on the "
                      "main of now and submit it as a new submission (the closed one blocks "
                      "nothing and is never judged again)",
}


def close_reason(row: db.SubmissionRow, pr: Any = None) -> dict[str, Any] | None:
    """Why a closed submission closed: ``{code, detail, action}`` with ``code`` a catalog
    code (``merge-conflict``, a gate step's code) and ``action`` what its submitter does
    (``resubmit against current main`` for a merge conflict; the catalog's fix for a gate
    refusal). Read from the row, else from the forge's pull request ``pr``; None for an
    open or merged one, or when the queue recorded no reason (issue 16)."""
    if row.state != "closed":
        return None
    code, detail = row.close_code, row.close_detail
    if code is None and pr is not None:
        code, detail = getattr(pr, "close_code", None), getattr(pr, "close_detail", None)
    if code is None:
        return None
    entry = CATALOG.get(code)
    action = CLOSE_ACTIONS.get(code) or (
        f"{entry.action} Then precheck again and resubmit." if entry else
        "Read the attestation's first failing step, fix it, precheck again and resubmit.")
    return {"code": code, "detail": detail, "action": action}


def _guidance(row: db.SubmissionRow, position: int | None,
              reason: dict[str, Any] | None = None,
              waiting: dict[str, Any] | None = None, held: bool = False) -> str:
    if row.state == "open" and waiting is not None:
        return ("Open, waiting at toolchain-missing: the merge queue found nothing else to "
                "refuse, but this network cannot check Lean, so it is neither merged nor "
                "closed; it is judged as soon as the pinned toolchain is installed here. "
                + not_checkable())
    if row.state == "open" and held:
        return ("Open, held at step 9 (D-4 v3.15, ruling 5): it would settle a target whose "
                "root nobody has vouched for, so it waits for an approving review by a "
                "steward of the target or a curator who is not you (POST /proof-reviews on "
                "the site). Once that review merges, the merge queue judges it again and it "
                "merges; pushing a new head voids a review. Nothing for you to do meanwhile.")
    if row.state == "open":
        where = f" It is number {position} in the merge queue." if position else ""
        return (f"Open.{where} The merge queue runs the authoritative gate; poll "
                f"get_submission(submission_id={row.id!r}) every minute or so until state "
                "is merged or closed. Withdraw with withdraw_submission if you must.")
    if row.state == "merged":
        who = row.pseudonym or "<pseudonym>"
        return ("Merged: the node's status is in the record (get_node, list_frontier) and "
                f"your ledger line in get_ledger(identity={who!r}) (GET "
                f"/ledger.json?identity={who}) once the post-merge job has written it. "
                "Release your claim if you still hold it.")
    if reason is not None and reason["code"] == "merge-conflict":
        return ("Closed unmerged with merge-conflict: it no longer merges into main (another "
                "change reached main first). Resubmit against current main: precheck again "
                "and submit anew; this one blocks nothing and is never judged again.")
    why = f" Closed with {reason['code']}: {reason['action']}" if reason else ""
    return ("Closed unmerged." + why + " Read the attestation's first failing step "
            "(list_error_codes explains its code), fix it, precheck again and resubmit; a "
            "closed pull request blocks nothing. If `moved_to` is set, your text was moved "
            "there as an alternate.")


def _view(svc: Service, row: db.SubmissionRow, position: int | None) -> dict[str, Any]:
    att = None
    pr = None
    if row.pull_request and svc.forge is not None and _pr_number(row.pull_request):
        try:
            pr = svc.forge.get(_pr_number(row.pull_request))
            raw = pr.precheck_attestation or precheck_from_body(pr.body)
            att = json.loads(raw) if raw else None
        except (LemmataError, json.JSONDecodeError):
            att = None
    reason = close_reason(row, pr)
    waiting = _waiting(svc, row)
    attestations = _attestations_for(svc, row.head_sha)
    held = any(a.get("verdict") == "held" for a in attestations)
    return {
        "id": row.id, "target": row.target, "node": row.node, "kind": row.kind,
        "path": row.chain_head, "pull_request": row.pull_request,
        "url": row.pull_request_url, "pseudonym": row.pseudonym,
        "opened_by_service": bool(row.opened_by_service), "state": row.state,
        "opened_at": iso(row.opened_at), "closed_at": iso(row.closed_at),
        "queue_position": position, "precheck_id": row.precheck_id,
        "head_commit": row.head_sha, "precheck_attestation": att,
        "attestations": attestations,
        "moved_to": _moved_to(svc, row), "close_reason": reason, "waiting": waiting,
        "next": _guidance(row, position, reason, waiting, held),
    }


def _waiting(svc: Service, row: db.SubmissionRow) -> dict[str, Any] | None:
    """``{code: toolchain-missing, since}`` while the merge queue leaves this open pull
    request waiting for its pinned toolchain (:func:`network.gate.queue.queue.read_waiting`, for
    the head the row names); None otherwise."""
    n = _pr_number(row.pull_request) if row.pull_request else None
    if row.state != "open" or n is None or not hasattr(svc.forge, "path"):
        return None
    from network.gate.queue.queue import read_waiting

    note = read_waiting(svc.forge, n)
    if note is None or (row.head_sha and note.get("head") != row.head_sha):
        return None
    return {"code": str(note.get("code") or "toolchain-missing"),
            "since": iso(note["since"]) if isinstance(note.get("since"), int) else None}


def _positions(open_prs: list[Any]) -> dict[str, int]:
    return {_pr_key(p.number): i for i, p in enumerate(open_prs, start=1)}


def get_submission(svc: Service, *, submission_id: str) -> dict[str, Any]:
    """A submission's state, merge-queue position and attestations: the precheck one it
    carries and the gate's once the queue judged it (GET /submissions/<id>,
    get_submission; D-28: the polling read after submit_proof).

    Raises:
        LemmataError: ``submission-not-found``.
    """
    with svc.sessions() as s:
        row = s.get(db.SubmissionRow, str(submission_id)[:40])
    if row is not None and row.state == "opening":
        openings.reconcile(svc, [row])  # a write whose writer is gone settles now (issue 39)
    positions = _positions(sync_index(svc))
    with svc.sessions() as s:
        row = s.get(db.SubmissionRow, str(submission_id)[:40])
    if row is None:
        raise LemmataError("submission-not-found", f"no submission {submission_id!r}")
    return _view(svc, row, positions.get(_canonical(row.pull_request)))


def list_submissions(svc: Service) -> dict[str, Any]:
    """Every open pull request on the graph, the service's and hand-opened ones, in
    merge-queue order (GET /submissions.json, list_submissions; D-28, ruling 12)."""
    open_prs = sync_index(svc)
    positions = _positions(open_prs)
    with svc.sessions() as s:
        rows = s.execute(select(db.SubmissionRow).where(db.SubmissionRow.state == "open")
                         ).scalars().all()
        items = sorted(({
            "id": r.id, "target": r.target, "node": r.node, "kind": r.kind,
            "path": r.chain_head, "pull_request": r.pull_request, "url": r.pull_request_url,
            "pseudonym": r.pseudonym, "opened_by_service": bool(r.opened_by_service),
            "opened_at": iso(r.opened_at),
            "queue_position": positions.get(_canonical(r.pull_request))} for r in rows),
            key=lambda x: (x["queue_position"] or 10**9, x["opened_at"] or ""))
    return {"schema": "submissions/v1", "submissions": items}


def my_submissions(svc: Service, caller: Caller) -> dict[str, Any]:
    """The caller's submissions: every open one with its merge-queue position, and the
    twenty most recently merged or closed with how each ended (GET /submissions/mine,
    get_my_submissions; D-28 notation note 2026-10-04). Hand-opened pull requests whose
    author is the caller's pseudonym (a losing racer's moved alternate) are included.

    Raises:
        LemmataError: ``token-missing``; ``token-invalid``; ``token-expired``.
    """
    who = caller.who if caller.who is not None else authenticate(svc, caller.token,
                                                                 caller.address_hash)
    positions = _positions(sync_index(svc))
    mine = (db.SubmissionRow.identity_id == who.id) | (
        (db.SubmissionRow.opened_by_service == 0)
        & (func.lower(db.SubmissionRow.pseudonym) == who.pseudonym.casefold()))
    with svc.sessions() as s:
        opened = s.execute(select(db.SubmissionRow).where(
            mine, db.SubmissionRow.state == "open")).scalars().all()
        done = s.execute(select(db.SubmissionRow).where(
            mine, db.SubmissionRow.state != "open")
            .order_by(db.SubmissionRow.closed_at.desc()).limit(20)).scalars().all()
    return {
            "pseudonym": who.pseudonym,
        "open": sorted((_view(svc, r, positions.get(_canonical(r.pull_request)))
                        for r in opened), key=lambda v: v["queue_position"] or 10**9),
        "recent": [_view(svc, r, None) for r in done],
    }


def withdraw_submission(svc: Service, caller: Caller, *, submission_id: str) -> dict[str, Any]:
    """Close, unmerged, a pull request the service opened for the caller and delete its
    branch (DELETE /submissions/<id>, withdraw_submission; D-28 notation note 2026-09-24,
    D-35). The caller's live claim on the node is released.

    Raises:
        LemmataError: the write guard's codes; ``forge-unavailable``;
            ``submission-not-found``; ``submission-not-yours`` (another identity's, or a
            hand-opened pull request); ``submission-merged``; ``submission-closed``.
    """
    who = write_identity(svc, caller)
    forge = _require_forge(svc)
    sync_index(svc)
    with svc.sessions() as s:
        row = s.get(db.SubmissionRow, str(submission_id)[:40])
        if row is None:
            raise LemmataError("submission-not-found", f"no submission {submission_id!r}")
        if not row.opened_by_service or row.identity_id != who.id:
            raise LemmataError("submission-not-yours", f"{submission_id} is not yours")
        number = _pr_number(row.pull_request)
    if number is None:  # pragma: no cover - the service only writes local/<n>
        raise LemmataError("submission-not-found", f"{submission_id} has no pull request")
    pr = forge.get(number)
    if pr.state == "merged":
        raise LemmataError("submission-merged", f"{row.pull_request} merged")
    if pr.state == "closed":
        raise LemmataError("submission-closed", f"{row.pull_request} is closed")
    forge.close(number)
    now = svc.now()
    with db.transaction(svc.sessions) as s:
        s.execute(update(db.SubmissionRow).where(db.SubmissionRow.id == row.id)
                  .values(state="closed", closed_at=now))
        s.execute(update(db.ClaimRow).where(
            db.ClaimRow.live_key == claims.live_key(who.id, row.target, row.node))
            .values(live_key=None, released_at=now, release_reason="released"))
    out = get_submission(svc, submission_id=row.id)
    out["withdrawn"] = True
    return out


__all__ = ["ATTEMPT_TYPES", "SUBMITTABLE", "check_copies", "check_node_accepts",
           "get_submission", "hole_lines", "list_submissions", "my_submissions",
           "normalized_sha256", "submit_proof", "sync_index", "withdraw_submission"]
