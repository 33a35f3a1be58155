"""The one path a record write takes to a pull request (D-35 "a PR appending the
schema-checked file"; D-28: every ``submit_*``/``propose_*``/``file_*`` of the service's
route modules ends here).

It holds, in order of the path:

1. the record's form: the file-name timestamp, the copy keys (``normalized_*``, D-25
   v3.21), the YAML bytes, the graph and its targets and nodes, validation against the
   record's model (D-34) and the identity fields only the service fills (ruling 14);
2. the gate's own steps 1-2 on the would-be change held in memory (:class:`MemoryDiff`,
   :func:`gate_findings`, :func:`refuse_findings`): any finding refuses with its own
   catalog code (ruling 6);
3. copies (D-25 v3.21: identical, comments and whitespace aside, to one merged or open
   for the node): :func:`merged_copy_refusal` against the records merged on main
   (:func:`merged_copies`, :func:`merged_statements`), then the submissions index (ruling
   12): :class:`IndexKey`, the open rows synced with the forge, :func:`copy_refusal`;
4. :func:`open_record_pr`: ONE pull request on the forge, authored by the caller's
   identity (the service is committer, D-23/D-35), indexed; and the receipt and body every
   write answers with.

Nothing is written before step 4, so every refusal opens nothing and changes nothing. The
route functions themselves live in :mod:`network.api.submit.records` and the route modules beside
it; ``records`` re-exports every name here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from network import ids
from network.api import db
from network.api.identity.role_acts import sign_role_act
from network.api.service import Service, Who, require_queue
from network.api.submit import openings
from network.api.submit.precheck import is_tutorial
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind, strip_comments
from network.gate.diff import Change, Diff
from network.gate.result import Diagnostic
from network.gate.steps.step2 import run_steps_1_2
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, Node, Target, parse_document
from network.record.read.source import check_graph_path

define_once("forge-not-configured", None, 503,
            "The service has no forge to open pull requests on.",
            "Open the pull request by hand against the graph repository (the plain path), "
            "or ask the operator to start the service with its forge.")
define_once("record-copy", None, 409,
            "A statement, or a postmortem, annex, approach, defect claim, revision request "
            "or literature record, identical, comments and whitespace aside (and a record's "
            "author, date and signature), to one merged on the node or open for it is "
            "refused before a pull request opens (D-25 v3.21); any other record (a role act, "
            "words, an identity) while an identical one is open.",
            "Nothing to do: the copy adds no record. Read the named file or pull request, "
            "or submit something different.")
define_once("witness-already-open", None, 409,
            "A witness for this hole is already open in another pull request; a hole takes "
            "one witness at a time (D-25 v3.21, D-29).",
            "Wait for that pull request to merge or close, then propose again if the hole is "
            "still blocked.")
define_once("record-identity-mismatch", None, 422,
            "A field of the record names another author or another node than the request.",
            "Omit the field (the service fills it from your token and the route) or make it "
            "equal to your pseudonym and the node you submit to.")

#: Fields the service fills from the token and its clock; a copy differs only in these.
_IDENTITY_FIELDS = frozenset({"contributor", "author", "by", "date"})
_TS_FORMAT = "%Y%m%dT%H%M%SZ"


# --- small helpers ----------------------------------------------------------------------


def file_timestamp(svc: Service) -> str:
    """The service clock now as a file-name timestamp, ``YYYYMMDDTHHMMSSZ`` (UTC)."""
    return datetime.fromtimestamp(svc.now(), UTC).strftime(_TS_FORMAT)


def normalized_lean_sha256(text: str) -> str:
    """SHA-256 (hex digest) of Lean text with its comments (line, block, doc; as Lean's
    tokenizer reads them) and every whitespace character removed: what "identical,
    comments and whitespace aside" compares for a proof, partial, alternate, witness or
    statement (D-25 v3.21). The one Lean normalisation of the service's copy checks
    (:func:`network.api.submit.submissions.normalized_sha256` is this function)."""
    bare = re.sub(r"\s+", "", strip_comments(text))
    return hashlib.sha256(bare.encode()).hexdigest()


def normalized_text_sha256(text: str) -> str:
    """SHA-256 (hex digest) of prose with runs of whitespace collapsed and ends stripped
    (an annex's text, D-25 v3.21)."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def _whitespace_aside(value: Any) -> Any:
    """``value`` with every string's runs of whitespace collapsed and ends stripped, in
    lists and mappings too (a YAML record's comments are gone once it is parsed)."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, Mapping):
        return {k: _whitespace_aside(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_whitespace_aside(v) for v in value]
    return value


def normalized_record_sha256(record: Mapping[str, Any]) -> str:
    """SHA-256 (hex digest) of a record's canonical JSON without its author and date
    fields (``contributor``, ``author``, ``by``, ``date``), whitespace in its strings set
    aside, so the same record filed by two identities, twice, or re-spaced compares equal
    (D-25 v3.21: identical, comments and whitespace aside)."""
    body = _whitespace_aside({k: v for k, v in record.items() if k not in _IDENTITY_FIELDS})
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def record_copy_key(record: m.Record | Mapping[str, Any], *,
                    fill: Mapping[str, Any] | None = None,
                    drop: frozenset[str] = frozenset({"signature"})) -> str:
    """The copy key (hex SHA-256) of one record as filed: its JSON form as
    :func:`validate_record` returns it (a parsed model is dumped the same way), with the
    fields of ``fill`` set (what the route fills in, e.g. a postmortem's ``node``) and
    those in ``drop`` removed, through :func:`normalized_record_sha256`. A record the
    service builds and the same record read back from the graph give one key, which is
    what lets a write be compared with the records merged for its node (D-25 v3.21)."""
    body = (record.model_dump(mode="json", by_alias=True, exclude_none=True)
            if isinstance(record, m.Record) else dict(record))
    body.update(fill or {})
    return normalized_record_sha256({k: v for k, v in body.items() if k not in drop})


def merged_copies(graph: Graph, records: Iterable[tuple[str, Any]], *,
                  key: Callable[[Any], str] = record_copy_key) -> dict[str, str]:
    """Graph path → copy key (hex SHA-256) of each ``(path, record)`` of ``records`` that
    stands on ``graph``, for :func:`merged_copy_refusal` (D-25 v3.21: a copy of a record
    merged for the node is refused). A record a standing withdrawal names reads as absent
    (D-18 v3.27), and one whose key cannot be read (``LemmataError``), are left out.
    Raises nothing of its own.

    Args:
        graph: the graph the write is judged against (main's head).
        records: the node's (or target's) merged records of one kind, as the loader read
            them (``(rf.path, rf.record)``).
        key: a record → its copy key (default :func:`record_copy_key`), computed as the
            route computes the write's ``IndexKey.normalized_sha256``.
    """
    gone = derive.withdrawn(graph)
    out: dict[str, str] = {}
    for path, rec in records:
        if path in gone:
            continue
        try:
            out[path] = key(rec)
        except LemmataError:  # an unreadable file is no record to copy (the loader says so)
            continue
    return out


def merged_statements(graph: Graph, target: str) -> dict[str, str]:
    """Graph path → :func:`normalized_lean_sha256` of every node's ``Statement.lean`` on
    ``target`` (an unreadable one is left out): what a proposed statement is compared with,
    a statement being proposed once per target (D-25 v3.21).

    Raises:
        KeyError: no such target.
    """
    out: dict[str, str] = {}
    for n in graph.targets[target].nodes.values():
        stmt = n.files.get("Statement")
        if stmt is None:
            continue
        try:
            out[stmt.path] = normalized_lean_sha256(graph.text(stmt.path))
        except LemmataError:
            continue
    return out


def merged_copy_refusal(merged: Mapping[str, str], key: IndexKey, what: str) -> None:
    """The D-25 v3.21 refusal of a write identical to a record already merged for the
    node: ``merged`` maps each merged record's graph path to its copy key (computed as
    ``key.normalized_sha256`` was, e.g. by :func:`merged_copies`).

    Raises:
        LemmataError: ``record-copy`` naming the merged file.
    """
    for path, digest in sorted(merged.items()):
        if digest == key.normalized_sha256:
            raise LemmataError("record-copy", f"{what} is identical to {path}, merged",
                               path=path)


def dump_yaml(record: Mapping[str, Any]) -> bytes:
    """A record as block YAML, keys sorted, UTF-8: the bytes the pull request adds."""
    return yaml.safe_dump(dict(record), sort_keys=True, allow_unicode=True).encode("utf-8")


def dump_json(record: Mapping[str, Any]) -> bytes:
    """A record as indented JSON, keys sorted, UTF-8, one final newline: the bytes of a
    ``*.json`` record the pull request adds (a credit correction under ``ledger/``)."""
    return (json.dumps(dict(record), sort_keys=True, indent=2, ensure_ascii=False)
            + "\n").encode("utf-8")


def graph_of(svc: Service) -> Graph:
    """The graph the service serves (main's head on a forge deployment).

    Raises:
        LemmataError: ``graph-unavailable``.
    """
    return svc.graphs.snapshot().graph


def target_of(graph: Graph, target: str) -> Target:
    """The target ``target`` of ``graph``.

    Raises:
        LemmataError: ``bad-target-id``; ``target-not-found``.
    """
    ids.check_target_id(target)
    t = graph.targets.get(target)
    if t is None:
        raise LemmataError("target-not-found", f"no target {target!r}")
    return t


def node_of(graph: Graph, target: str, node: str) -> Node:
    """The node ``target``/``node`` of ``graph``.

    Raises:
        LemmataError: ``bad-target-id``; ``bad-node-id``; ``target-not-found``;
            ``node-not-found``.
    """
    t = target_of(graph, target)
    ids.check_node_id(node)
    n = t.nodes.get(node)
    if n is None:
        raise LemmataError("node-not-found", f"target {target!r} has no node {node!r}")
    return n


def validate_record(model: type[m.Record], record: dict[str, Any], path: str) -> dict[str, Any]:
    """Validate ``record`` against its model (D-34) and return its JSON form.

    Raises:
        LemmataError: ``invalid-record`` naming the first bad field (all of them in the
            detail), ``unknown-schema`` when ``schema`` names another kind.
    """
    if record.get("schema", model.SCHEMA_KIND) != model.SCHEMA_KIND:
        raise LemmataError("unknown-schema", f"this route writes {model.SCHEMA_KIND}, not "
                           f"{record.get('schema')!r}", path=path, field="schema")
    record = {**record, "schema": model.SCHEMA_KIND}
    try:
        obj = model.model_validate(record)
    except ValidationError as exc:
        errs = exc.errors()
        first = (".".join(str(p) for p in errs[0]["loc"]) or None) if errs else None
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errs)
        raise LemmataError("invalid-record", detail, path=path, field=first) from exc
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


def parse_yaml_mapping(text: str, path: str) -> dict[str, Any]:
    """Parse a YAML document that must be a mapping, as the loader and the gate will read
    it once it is a graph file (:func:`network.record.read.loader.parse_document`: one reader,
    plain data only).

    Raises:
        LemmataError: ``malformed-yaml``; ``invalid-record`` when it is not a mapping or
            not plain data (alias expansion, nesting).
    """
    return parse_document(path if path.endswith((".yaml", ".yml")) else f"{path}.yaml",
                          text.encode("utf-8"))


def same_identity(record: dict[str, Any], key: str, who: Who, path: str) -> None:
    """Fill ``record[key]`` with the caller's pseudonym, refusing another one.

    Raises:
        LemmataError: ``record-identity-mismatch``.
    """
    given = record.get(key)
    if given is not None and str(given) != who.pseudonym:
        raise LemmataError("record-identity-mismatch", f"{key} is {given!r}, but the token is "
                           f"{who.pseudonym!r}'s", path=path, field=key)
    record[key] = who.pseudonym


def precheck_attachment(attestation: Any) -> str | None:
    """A precheck attestation given as JSON text or an object, as the fenced block's JSON
    (ruling 7), or None. Either version (precheck-attestation/v1 or /v2, D-34) is read.

    Raises:
        LemmataError: ``precheck-malformed``.
    """
    if attestation is None or attestation == "":
        return None
    try:
        obj = json.loads(attestation) if isinstance(attestation, str) else attestation
        rec = m.precheck_attestation_from_json(obj)
    except (json.JSONDecodeError, ValidationError, TypeError) as exc:
        raise LemmataError("precheck-malformed", str(exc).splitlines()[0]) from exc
    return json.dumps(rec.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                      indent=2, ensure_ascii=False)


# --- the gate's steps 1-2 on the would-be change -----------------------------------------


@dataclass
class MemoryDiff(Diff):
    """A pull request's change held in memory: ``data`` maps each changed path to its new
    bytes (None deletes). :func:`network.gate.steps.step2.run_steps_1_2` reads it exactly as it
    reads a git diff, so the service judges the files before any commit exists."""

    data: dict[str, bytes | None] = field(default_factory=dict)

    def new_size(self, change: Change) -> int:
        """The change's new size in bytes (0 when deleted)."""
        return len(self.data.get(change.path) or b"")

    def new_bytes(self, change: Change) -> bytes:
        """The change's new bytes. Raises LemmataError ``missing-file`` when deleted."""
        data = self.data.get(change.path)
        if data is None:
            raise LemmataError("missing-file", "deleted at head", path=change.path)
        return data


def memory_diff(base: Graph, files: Mapping[str, bytes | None]) -> MemoryDiff:
    """The :class:`MemoryDiff` of ``files`` against ``base`` (added, modified, deleted).

    Raises:
        LemmataError: ``hostile-path`` for a path the record could never hold.
    """
    changes = []
    for path in sorted(files):
        why = check_graph_path(path)
        if why:
            raise LemmataError("hostile-path", why, path=path)
        data = files[path]
        exists = path in base.files
        if data is None:
            if exists:
                changes.append(Change(path, "deleted", 0, "0" * 40, None))
            continue
        sha = hashlib.sha1(data).hexdigest()
        changes.append(Change(path, "modified" if exists else "added", 0o100644,
                              "0" * 40 if exists else None, sha))
    return MemoryDiff(repo=None, base=base.commit or "", head="",  # type: ignore[arg-type]
                      changes=changes, data=dict(files))


def gate_findings(base: Graph, files: Mapping[str, bytes | None], submitter: str,
                  expect: Kind | None = None) -> list[Diagnostic]:
    """Every step-1/step-2 finding the gate would make on this change (D-4, ruling 6).

    Args:
        base: the graph the pull request would be opened against.
        files: graph path → new bytes.
        submitter: the pseudonym it is credited to (role rules).
        expect: the artifact kind the change must classify as; another kind is reported
            as ``path-not-permitted`` (a route writing the wrong place is refused, not
            opened).
    """
    result = run_steps_1_2(memory_diff(base, files), base, submitter)
    found = [*result.step1.diagnostics, *result.step2.diagnostics]
    if expect is not None and not found:
        kinds = {a.kind for a in result.artifacts}
        if kinds != {expect}:
            found.append(Diagnostic("path-not-permitted", f"classified as "
                                    f"{sorted(k.value for k in kinds)}, not {expect.value}"))
    return found


def refuse_findings(findings: list[Diagnostic]) -> None:
    """Raise the first finding's own catalog code, every finding in the detail.

    Raises:
        LemmataError: the first finding's code.
    """
    if not findings:
        return
    first = findings[0]
    detail = "; ".join(f"{d.code}: {d.path or '-'}: {d.message}" for d in findings)
    raise LemmataError(first.code, f"the gate would refuse this change: {detail}",
                       path=first.path)


# --- the submissions index and the forge ----------------------------------------------


@dataclass(frozen=True)
class IndexKey:
    """Where a record write sits in the submissions index (ruling 12).

    Attributes:
        target, node: the node the pull request writes ("" for a target-level record).
        kind: the artifact kind (``network.gate.artifacts.Kind`` values).
        chain_head: for words, ``<described file>|<superseded version or empty>``; else None.
        normalized_sha256: the copy key (see the ``normalized_*`` helpers).
    """

    target: str
    node: str
    kind: str
    chain_head: str | None
    normalized_sha256: str


Conflict = Callable[[list[db.SubmissionRow]], None]
"""Given the live rows for the same target and node, raise the refusal that applies."""


def _forge(svc: Service) -> Any:
    if svc.forge is None:
        raise LemmataError("forge-not-configured", "this service was started without a forge")
    return svc.forge


def sync_open_rows(svc: Service, target: str, node: str) -> list[db.SubmissionRow]:
    """The index rows still open for ``target``/``node``, after marking merged or closed
    any whose pull request the forge no longer has open (the index mirrors the forge,
    ruling 12; a closed or merged pull request blocks nothing, D-25 v3.21)."""
    with db.transaction(svc.sessions) as s:
        rows = list(s.execute(select(db.SubmissionRow).where(
            db.SubmissionRow.target == target, db.SubmissionRow.node == node,
            db.SubmissionRow.state.in_(("open", "opening")))).scalars())
    ended = openings.reconcile(svc, rows)  # a crashed write's row never jams (issue 16)
    rows = [r for r in rows if r.id not in ended]
    forge = svc.forge
    gone: dict[str, str] = {}
    if forge is not None and hasattr(forge, "get"):
        for r in rows:
            if r.state != "open" or not (r.pull_request or "").isdigit():
                continue
            try:
                state = forge.get(int(r.pull_request or "0")).state
            except LemmataError:
                state = "closed"
            if state != "open":
                gone[r.id] = state
    if gone:
        with db.transaction(svc.sessions) as s:
            for rid, state in gone.items():
                row = s.get(db.SubmissionRow, rid)
                if row is not None and row.state == "open":
                    row.state = state
                    row.closed_at = svc.now()
    return [r for r in rows if r.id not in gone]


def copy_refusal(key: IndexKey, what: str) -> Conflict:
    """The D-25 v3.21 refusal of a record identical to one open for the same node."""

    def check(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == key.kind and r.normalized_sha256 == key.normalized_sha256:
                raise LemmataError("record-copy", f"{what} is identical to open submission "
                                   f"{r.id} ({openings.follow(r)}, by {r.pseudonym})")

    return check


@dataclass
class Opened:
    """A pull request the service opened, or would open on a dry run."""

    submission_id: str | None
    pull_request: str | None
    url: str | None
    paths: list[str]
    title: str


def open_record_pr(svc: Service, who: Who, *, key: IndexKey, files: dict[str, bytes],
                   title: str, body: str, conflicts: list[Conflict],
                   precheck_attestation: str | None = None,
                   dry_run: bool = False) -> Opened:
    """Check the index, then open ONE pull request for ``files`` and index it.

    The caller has already validated the record and judged the change with
    :func:`gate_findings`. The index check and a reservation row are one transaction,
    so two concurrent writers of the same key cannot both pass; the reservation becomes
    the open row once the forge answers, or is deleted if it fails.

    Returns:
        :class:`Opened` (ids None on a dry run).

    Raises:
        LemmataError: whatever a conflict raises (``record-copy``,
            ``witness-already-open``, ``words-*``); ``queue-down`` (issue 16: nothing
            would judge it; a dry run is never refused for it); ``forge-not-configured``;
            the forge's own codes (``hostile-path``, ``git-error``).
    """
    paths = sorted(files)
    live = sync_open_rows(svc, key.target, key.node)
    for check in conflicts:
        check(live)
    if dry_run:
        return Opened(None, None, None, paths, title)
    require_queue(svc)
    forge = _forge(svc)
    sid = ids.new_submission_id()
    body = f"{body}\n{openings.mark(sid)}\n"  # how a crashed write is reconciled
    if precheck_attestation:
        body = f"{body}\n\n```precheck-attestation\n{precheck_attestation}\n```\n"
    with openings.in_flight(svc, sid):  # live while this process opens it (issue 39)
        _reserve(svc, who, key, sid, conflicts)
        openings.step(svc, "mid_open")
        try:
            pr = forge.open_pull_request(files=files, title=title, body=body,
                                         author=who.pseudonym,
                                         precheck_attestation=precheck_attestation)
        except BaseException:
            with db.transaction(svc.sessions) as s:
                row = s.get(db.SubmissionRow, sid)
                if row is not None:
                    s.delete(row)
            raise
        openings.step(svc, "after_open")
        url = _record_opened(svc, forge, sid, pr)
    return Opened(sid, str(pr.number), url, paths, title)


def _reserve(svc: Service, who: Who, key: IndexKey, sid: str,
             conflicts: Sequence[Conflict]) -> None:
    """Check the index and write the ``opening`` row ``sid`` in one transaction.

    Raises:
        LemmataError: whatever a conflict raises.
    """
    with db.transaction(svc.sessions) as s:
        rows = _live_rows(s, key)
        for check in conflicts:
            check(rows)
        s.add(db.SubmissionRow(
            id=sid, target=key.target, node=key.node, kind=key.kind, chain_head=key.chain_head,
            normalized_sha256=key.normalized_sha256, identity_id=who.id,
            pseudonym=who.pseudonym, opened_by_service=1, state="opening",
            opened_at=svc.now()))


def _record_opened(svc: Service, forge: Any, sid: str, pr: Any) -> str | None:
    """Turn the row ``sid`` ``open`` with the pull request the forge answered ``pr``
    (left as it is when a reconcile already recorded it merged or closed); returns the
    pull request's URL, if the forge has one."""
    url_of = getattr(forge, "pull_request_url", None)
    url = url_of(pr.number) if callable(url_of) else None
    with db.transaction(svc.sessions) as s:
        row = s.get(db.SubmissionRow, sid)
        assert row is not None
        if row.state in ("opening", "expired"):
            row.state = "open"
        row.pull_request = str(pr.number)
        row.pull_request_url = url
        row.head_sha = pr.head_sha  # get_submission finds the gate's attestations by it
    return url


def _live_rows(s: Session, key: IndexKey) -> list[db.SubmissionRow]:
    return list(s.execute(select(db.SubmissionRow).where(
        db.SubmissionRow.target == key.target, db.SubmissionRow.node == key.node,
        db.SubmissionRow.state.in_(("open", "opening")))).scalars())


def receipt(opened: Opened, *, kind: str, target: str, node: str | None, next_step: str,
            dry_run: bool = False, **extra: Any) -> dict[str, Any]:
    """The answer of every record write: what was opened and what to do next."""
    out: dict[str, Any] = {
        "kind": kind, "target": target, "node": node, "paths": opened.paths,
        "title": opened.title, "dry_run": dry_run,
        "submission_id": opened.submission_id, "pull_request": opened.pull_request,
        "url": opened.url, **extra,
        "next": ("Dry run: nothing was opened. " if dry_run else "") + next_step,
    }
    return out


def pr_body(what: str, who: Who, decision: str) -> str:
    """The pull request body: what it appends, for whom, under which decision."""
    return (f"{what}\n\nOpened by the Lemmata service for {who.pseudonym}, who is the author "
            f"and signs off (D-23, D-35). {decision}.\n")


# --- the common tail of every record write ----------------------------------------------


def file_record(svc: Service, who: Who, graph: Graph, files: dict[str, bytes], *,
                kind: Kind, key: IndexKey, title: str, what: str, decision: str,
                copy: str | None, conflicts: Sequence[Conflict] = (),
                precheck_attestation: str | None = None,
                merged: Mapping[str, str] | None = None) -> Opened:
    """Judge ``files`` as the gate's steps 1-2 would, refuse a copy of a record merged for
    the node, then open ONE pull request for them: :func:`refuse_findings` of
    :func:`gate_findings`, :func:`merged_copy_refusal`, then :func:`open_record_pr` with
    the body :func:`pr_body` writes (D-35, ruling 6, D-25 v3.21).

    Args:
        graph: the graph the pull request is opened against (:func:`graph_of`).
        files: graph path → the bytes the pull request adds.
        kind: the artifact kind the change must classify as.
        key: where the write sits in the submissions index.
        title: the pull request's title.
        what, decision: the body's sentence and the decision it is filed under.
        copy: how the copy refusal names the record (``record-copy`` against an open
            identical one, :func:`copy_refusal`); None for no copy refusal.
        conflicts: further index checks, run after the copy refusal.
        precheck_attestation: the fenced precheck block's JSON (ruling 7), if any.
        merged: graph path → copy key of the records of this kind merged for the node
            (:func:`merged_copies`); None for a role act, which repeats legitimately
            (a join after a step-down) and is compared with open ones alone. The
            tutorial node's records are never compared with merged ones: it stays open
            to rehearsal (D-27).

    Returns:
        :class:`Opened` for the route's receipt.

    Raises:
        LemmataError: the first finding's code; ``record-copy`` (identical to a merged
            record or an open submission) and whatever ``conflicts`` raise;
            :func:`open_record_pr`'s codes.
    """
    refuse_findings(gate_findings(graph, files, who.pseudonym, kind))
    if merged and copy is not None and not is_tutorial(graph, key.target, key.node):
        merged_copy_refusal(merged, key, copy)
    checks = ([copy_refusal(key, copy)] if copy is not None else []) + list(conflicts)
    return open_record_pr(svc, who, key=key, files=files, title=title,
                          body=pr_body(what, who, decision), conflicts=checks,
                          precheck_attestation=precheck_attestation)


def file_role_act(svc: Service, who: Who, graph: Graph, model: type[m.Record],
                  record: dict[str, Any], *, path: str, kind: Kind, key: IndexKey,
                  title: str, what: str, decision: str, copy: str,
                  check_signed: Callable[[dict[str, Any]], None] | None = None,
                  dump: Callable[[Mapping[str, Any]], bytes] | None = None,
                  ) -> tuple[dict[str, Any], Opened]:
    """Sign a validated role act with the network's approval key for ``who``
    (:func:`network.api.identity.role_acts.sign_role_act`, ruling 14, D-32 v3.33), then file it at
    ``path`` as one pull request (:func:`file_record`): the sign → judge → open path every
    person route of the service takes (stewards, panel, shelving, pertinence, literature,
    registrations, display names).

    Args:
        model: the record's model; ``record`` its JSON form, already validated
            (:func:`validate_record`).
        check_signed: a check of the signed record run before the gate's (the route's own
            rule, e.g. the pertinence findings); it raises to refuse.
        path, kind, key, title, what, decision, copy: as :func:`file_record`.
        dump: the signed record → the file's bytes; default :func:`dump_yaml` (a ledger
            file is JSON: :func:`dump_json`).

    Returns:
        ``(signed record, Opened)``.

    Raises:
        LemmataError: ``approval-key-missing``; whatever ``check_signed`` raises;
            :func:`file_record`'s codes.
    """
    signed = sign_role_act(svc, model, record, who)
    if check_signed is not None:
        check_signed(signed)
    opened = file_record(svc, who, graph, {path: (dump or dump_yaml)(signed)}, kind=kind,
                         key=key,
                         title=title, what=what, decision=decision, copy=copy)
    return signed, opened
