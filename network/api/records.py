"""Record writes that are pull requests (D-35 "a PR appending the schema-checked file").

Each public ``submit_*``/``propose_*``/``file_*`` function is the one function an HTTP
route and its MCP tool both call (D-28; the table in ``network/api/tools.py``). Every one
follows the same path, :func:`open_record_pr`:

1. the write guard (:func:`network.api.service.write_identity`): address and identity
   rate limits, the bearer token, the current DCO;
2. the record is built from the caller's fields plus what only the service may fill in
   (the token's pseudonym as author, the service clock's date, and the file name
   ``<YYYYMMDDTHHMMSSZ>-<pseudonym>``), and validated against its model (D-34);
3. the would-be change is judged by the gate's own steps 1-2
   (:func:`network.gate.step2.run_steps_1_2`) against the graph the service serves, so
   the files land exactly where the gate accepts them, and any finding refuses with its
   own catalog code (ruling 6);
4. copies are refused against the submissions index (ruling 12, D-25 v3.21): an annex,
   postmortem or approach record identical to one open for the same node, a statement
   already proposed and open, a second witness for a hole;
5. only then is ONE pull request opened on the forge, authored by the token's identity
   (the service is committer, D-23/D-35), and indexed in the submissions index.

Nothing is written before step 5, so every refusal opens nothing and changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from network import ids
from network.api import db, openings
from network.api.names import record_path
from network.api.service import Caller, Service, Who, iso, require_queue, write_identity
from network.errors import LemmataError, define_once
from network.gate.artifacts import Kind, strip_comments
from network.gate.diff import Change, Diff
from network.gate.result import Diagnostic
from network.gate.step2 import run_steps_1_2
from network.record import derive
from network.record import models as m
from network.record.loader import Graph, Node, Target, parse_document
from network.record.source import check_graph_path

define_once("forge-not-configured", None, 503,
            "The service has no forge to open pull requests on.",
            "Open the pull request by hand against the graph repository (the plain path), "
            "or ask the operator to start the service with its forge.")
define_once("record-copy", None, 409,
            "An identical record, statement or annex is already open (or merged) for this "
            "node (D-25 v3.21).",
            "Nothing to do: the copy adds no record. Read the named pull request, or submit "
            "something different.")
define_once("witness-already-open", None, 409,
            "A witness for this hole is already open in another pull request; a hole takes "
            "one witness at a time (D-25 v3.21, D-29).",
            "Wait for that pull request to merge or close, then propose again if the hole is "
            "still blocked.")
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
define_once("record-identity-mismatch", None, 422,
            "A field of the record names another author or another node than the request.",
            "Omit the field (the service fills it from your token and the route) or make it "
            "equal to your pseudonym and the node you submit to.")
define_once("schema-not-found", None, 404, "No published schema has this name and version.",
            "GET /info.json lists the schema index; names are kind/vN, e.g. d13/v1.")

#: Fields the service fills from the token and its clock; a copy differs only in these.
_IDENTITY_FIELDS = frozenset({"contributor", "author", "by", "date"})
_TS_FORMAT = "%Y%m%dT%H%M%SZ"


# --- small helpers ----------------------------------------------------------------------


def file_timestamp(svc: Service) -> str:
    """The service clock now as a file-name timestamp, ``YYYYMMDDTHHMMSSZ`` (UTC)."""
    return datetime.fromtimestamp(svc.now(), UTC).strftime(_TS_FORMAT)


def normalized_lean_sha256(text: str) -> str:
    """SHA-256 (hex) of Lean text with comments and all whitespace removed: what
    "identical, comments and whitespace aside" compares (D-25 v3.21)."""
    bare = re.sub(r"\s+", "", strip_comments(text))
    return hashlib.sha256(bare.encode()).hexdigest()


def normalized_text_sha256(text: str) -> str:
    """SHA-256 (hex) of prose with runs of whitespace collapsed and ends stripped."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def normalized_record_sha256(record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a record's canonical JSON without its author and date fields, so
    the same record filed by two identities, or twice, compares equal (D-25 v3.21)."""
    body = {k: v for k, v in record.items() if k not in _IDENTITY_FIELDS}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def dump_yaml(record: Mapping[str, Any]) -> bytes:
    """A record as block YAML, keys sorted, UTF-8: the bytes the pull request adds."""
    return yaml.safe_dump(dict(record), sort_keys=True, allow_unicode=True).encode("utf-8")


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
        first = ".".join(str(p) for p in errs[0]["loc"]) if errs else None
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errs)
        raise LemmataError("invalid-record", detail, path=path, field=first) from exc
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


def parse_yaml_mapping(text: str, path: str) -> dict[str, Any]:
    """Parse a YAML document that must be a mapping, as the loader and the gate will read
    it once it is a graph file (:func:`network.record.loader.parse_document`: one reader,
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
    (ruling 7), or None.

    Raises:
        LemmataError: ``precheck-malformed``.
    """
    if attestation is None or attestation == "":
        return None
    try:
        obj = json.loads(attestation) if isinstance(attestation, str) else attestation
        rec = m.PrecheckAttestation.model_validate(obj)
    except (json.JSONDecodeError, ValidationError, TypeError) as exc:
        raise LemmataError("precheck-malformed", str(exc).splitlines()[0]) from exc
    return json.dumps(rec.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                      indent=2, ensure_ascii=False)


# --- the gate's steps 1-2 on the would-be change -----------------------------------------


@dataclass
class MemoryDiff(Diff):
    """A pull request's change held in memory: ``data`` maps each changed path to its new
    bytes (None deletes). :func:`network.gate.step2.run_steps_1_2` reads it exactly as it
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
                                   f"{r.id} (pull request {r.pull_request}, by {r.pseudonym})")

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
    sid = "s_" + secrets.token_hex(12)
    with db.transaction(svc.sessions) as s:
        rows = _live_rows(s, key)
        for check in conflicts:
            check(rows)
        s.add(db.SubmissionRow(
            id=sid, target=key.target, node=key.node, kind=key.kind, chain_head=key.chain_head,
            normalized_sha256=key.normalized_sha256, identity_id=who.id,
            pseudonym=who.pseudonym, opened_by_service=1, state="opening",
            opened_at=svc.now()))
    body = f"{body}\n{openings.mark(sid)}\n"  # how a crashed write is reconciled
    try:
        if precheck_attestation:
            body = f"{body}\n\n```precheck-attestation\n{precheck_attestation}\n```\n"
        pr = forge.open_pull_request(files=files, title=title, body=body,
                                     author=who.pseudonym,
                                     precheck_attestation=precheck_attestation)
    except BaseException:
        with db.transaction(svc.sessions) as s:
            row = s.get(db.SubmissionRow, sid)
            if row is not None:
                s.delete(row)
        raise
    url_of = getattr(forge, "pull_request_url", None)
    url = url_of(pr.number) if callable(url_of) else None
    with db.transaction(svc.sessions) as s:
        row = s.get(db.SubmissionRow, sid)
        assert row is not None
        row.state = "open"
        row.pull_request = str(pr.number)
        row.pull_request_url = url
        row.head_sha = pr.head_sha  # get_submission finds the gate's attestations by it
    return Opened(sid, str(pr.number), url, paths, title)


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
            ``record-identity-mismatch``; step-2 codes; ``record-copy``;
            ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    node_of(graph, target, node)
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
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.POSTMORTEM))
    key = IndexKey(target, node, Kind.POSTMORTEM.value, None, normalized_record_sha256(rec))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"postmortem: {target}/{node} by {who.pseudonym}",
        body=pr_body(f"A D-13 postmortem on {target}/{node}: {rec['outcome']}, "
                     f"{rec['failure_class']}.", who, "Record-only kind: step 2 alone (ruling 6)"),
        conflicts=[copy_refusal(key, "this postmortem")])
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
            ``licence-missing``; ``invalid-record``; ``record-copy`` (identical annex open
            or already on the node); step-2 codes; ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    node_of(graph, target, node)
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
        raise LemmataError("record-copy", f"this annex is already on the node: {d}/{sha}.md",
                           path=f"{d}/{sha}.md")
    files = {f"{d}/{sha}.md": data, f"{d}/{sha}.yaml": dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.ANNEX))
    key = IndexKey(target, node, Kind.ANNEX.value, None, normalized_text_sha256(text))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"annex: {target}/{node} {sha[:12]}",
        body=pr_body(f"An informal argument for {target}/{node} (annex {sha}). Untrusted data "
                     "(D-31).", who, "Record-only kind: step 2 alone (ruling 6)"),
        conflicts=[copy_refusal(key, "this annex")])
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
            step-2 codes; ``record-copy``; ``forge-not-configured``.
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
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.APPROACH))
    key = IndexKey(target, "", Kind.APPROACH.value, None, normalized_record_sha256(rec))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"approach: {target}: {rec['route'][:80]}",
        body=pr_body(f"A D-14 approach record on {target}: {rec['route']}.", who,
                     "Record-only kind: step 2 alone (ruling 6)"),
        conflicts=[copy_refusal(key, "this approach record")])
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
    files = {path: witness.encode("utf-8")}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.WITNESS))
    key = IndexKey(target, node, Kind.WITNESS.value, None, normalized_lean_sha256(witness))

    def one_slot(rows: list[db.SubmissionRow]) -> None:
        for r in rows:
            if r.kind == Kind.WITNESS.value:
                raise LemmataError("witness-already-open", f"submission {r.id} (pull request "
                                   f"{r.pull_request}, by {r.pseudonym}) already proposes a "
                                   f"witness for {target}/{node}")

    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"witness: {target}/{node}",
        body=pr_body(f"A witness for the blocked hole {target}/{node} (D-29).", who,
                     "Gate-checked at step 7"), conflicts=[one_slot],
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
    norm = normalized_lean_sha256(statement)
    for other in t.nodes.values():
        if other.meta.statement_hash == meta["statement_hash"]:
            raise LemmataError("record-copy", f"this statement is {target}/{other.ref.node}'s",
                               path=f"{d}/Statement.lean")
    key = IndexKey(target, "", "proposal", None, norm)
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
            ``dangling-reference``; ``record-copy`` (the statement is already a node's or
            proposed and open); ``precheck-malformed``; ``forge-not-configured``.
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
            ``dangling-reference`` (exhibit absent); step-2 codes; ``record-copy``;
            ``forge-not-configured``.
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
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.DEFECT))
    key = IndexKey(target, node, Kind.DEFECT.value, None, normalized_record_sha256(rec))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"defect ({defect_class}): {target}/{node}",
        body=pr_body(f"A D-16 defect claim on {target}/{node}, line {line}: {defect_class}.",
                     who, "The pre-triage bounce is step 2 (D-16)"),
        conflicts=[copy_refusal(key, "this defect claim")])
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
            ``invalid-record``; step-2 codes; ``record-copy``; ``forge-not-configured``.
    """
    who = write_identity(svc, caller)
    graph = graph_of(svc)
    node_of(graph, target, node)
    path = record_path(svc, f"targets/{target}/nodes/{node}/revision-requests",
                       who.pseudonym, ".yaml")
    rec: dict[str, Any] = {"node": node, "operation": operation, "evidence": evidence,
                           "by": who.pseudonym, "date": iso(svc.now())}
    if proposed_statement_sha256:
        rec["proposed_statement_sha256"] = proposed_statement_sha256
    rec = validate_record(m.RevisionRequest, rec, path)
    files = {path: dump_yaml(rec)}
    refuse_findings(gate_findings(graph, files, who.pseudonym, Kind.REVISION_REQUEST))
    key = IndexKey(target, node, Kind.REVISION_REQUEST.value, None,
                   normalized_record_sha256(rec))
    opened = open_record_pr(
        svc, who, key=key, files=files, title=f"revision request ({operation}): {target}/{node}",
        body=pr_body(f"A D-8 revision request on {target}/{node}: {operation}.", who,
                     "A curator acts on it (D-8)"),
        conflicts=[copy_refusal(key, "this revision request")])
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
