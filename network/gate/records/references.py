"""Step 2's reference and signature rules over the records a pull request adds (D-4 step 2,
ruling 9; the attack findings "dangling references freeze the graph" and "signatures on
records that are not role acts are merged unchecked").

What ``lemmata validate`` would refuse at main after the merge must be refused before it,
because a merged record can never be deleted again (``record-deleted``). Three checks,
called once from :func:`network.gate.steps.step2.run_steps_1_2`:

1. **References resolve.** Every reference of an added or changed record (a literature
   record's ``supersedes``, a defect's ``exhibit``, a gloss's ``describes``, a
   proposed-for or revision-request ``node``, ...) must name a file or node of the graph
   at base plus the files the pull request adds. The per-kind rules are validate's own
   (:class:`network.record.validate.ReferenceIndex`): one rule, two callers. A META's
   ``deps`` are left to the proposal check, which resolves them against base alone. Code
   ``dangling-reference``.
2. **Signatures verify.** Every ``signature`` a record carries verifies against the base
   graph's ``keys/`` (or, for ``ssh``, its ``identities/``), on the record's date and on
   the base's date (:func:`network.record.validate.signature_problem`). Records the role
   act rules of :mod:`network.gate.records.actors` refused are not judged twice. Codes
   ``bad-signature``, ``unknown-key``, ``key-expired``.
3. **Precheck records are what the precheck writes** (D-34,
   :func:`network.gate.pregate.precheck_record`): ``target`` and ``node`` are the folder's
   (``id-mismatch``), ``statement_hash`` is the node's at base
   (``statement-hash-mismatch``), ``goal_state_sha256`` is the SHA-256 of
   ``terminal_goal_state`` and the file name is the deduplication key
   :func:`precheck_key` (``precheck-record-mismatch``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from network.errors import LemmataError, define
from network.gate.artifacts import Artifact
from network.gate.diff import Diff
from network.gate.records.actors import ValidRecords
from network.gate.result import Diagnostic
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, parse_document, sha256_hex
from network.record.read.scoped import ScopeExceeded
from network.record.validate import ReferenceIndex, record_date, signature_problem

define("precheck-record-mismatch", 2, 422,
       "A precheck record's file name is not its deduplication key (the SHA-256 of its "
       "statement hash, goal-state hash and first failing step, D-34), or its "
       "goal_state_sha256 is not the SHA-256 of its terminal_goal_state.",
       "File the record the precheck wrote (pregate.sh --record) unchanged: "
       "attempts/precheck/<key>.json with the fields it was computed from.")

ROLE_CODES = frozenset({"role-act-unsigned", "role-signature-invalid", "role-key-unbound"})
"""The codes :mod:`network.gate.records.actors` judges a role act's signature with."""


def precheck_key(statement_hash: str, goal_state_sha256: str | None,
                 first_failing_step: int | None) -> str:
    """The D-34 deduplication key a precheck record is named after: the SHA-256 (64 hex
    digits) of ``"<statement hash>\\n<goal-state hash or ->\\n<first failing step>"``."""
    text = f"{statement_hash}\n{goal_state_sha256 or '-'}\n{first_failing_step}"
    return sha256_hex(text.encode())


class _AfterMerge(Collection[str]):
    """The paths of a scoped base graph (:mod:`network.record.read.scoped`) after a pull
    request's changes, answered one path at a time."""

    def __init__(self, base: Graph, gone: set[str], added: set[str]) -> None:
        self.base, self.gone, self.added = base, gone, added

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (path in self.added or (
            path not in self.gone and path in self.base.files))

    def __iter__(self) -> Any:
        raise ScopeExceeded("every file of the graph")

    def __len__(self) -> int:
        raise ScopeExceeded("every file of the graph")


class _NodesAfterMerge(Collection[tuple[str, str]]):
    """``(target, node)`` pairs whose META.yaml is among ``files`` (as ReferenceIndex
    derives them from a listing)."""

    def __init__(self, files: _AfterMerge) -> None:
        self.files = files

    def __contains__(self, key: object) -> bool:
        return (isinstance(key, tuple) and len(key) == 2
                and f"targets/{key[0]}/nodes/{key[1]}/META.yaml" in self.files)

    def __iter__(self) -> Any:
        raise ScopeExceeded("every node of the graph")

    def __len__(self) -> int:
        raise ScopeExceeded("every node of the graph")


def reference_index(base: Graph, gone: set[str], added: set[str]) -> ReferenceIndex:
    """The :class:`~network.record.validate.ReferenceIndex` of ``base``'s files less
    ``gone`` plus ``added``. On a scoped graph, files and nodes are looked up one at a time
    and the targets are those with a listed file left (every target folder lists its
    target.yaml, else the load failed), so the answers are the whole listing's."""
    if base.scope is None:
        return ReferenceIndex((set(base.files) - gone) | added)
    index = ReferenceIndex(added)
    files = _AfterMerge(base, gone, added)
    index.files = files
    index.nodes = _NodesAfterMerge(files)  # type: ignore[assignment]
    for p in dict.keys(base.files):
        parts = p.split("/")
        if len(parts) >= 3 and parts[0] == "targets" and p not in gone:
            index.targets.add(parts[1])
    return index


def reference_findings(diff: Diff, base: Graph, artifacts: Iterable[Artifact],
                       skip: Collection[str] = (),
                       judged: Iterable[Diagnostic] = (),
                       records: ValidRecords | None = None) -> list[Diagnostic]:
    """Every reference, signature and precheck-record finding over the record files
    ``artifacts`` add or change.

    Args:
        diff: the pull request's changes.
        base: the graph at ``diff.base`` (its files, keys, identities and nodes).
        artifacts: the artifacts :func:`network.gate.artifacts.classify` placed.
        skip: paths step 2 refused already without reading them (oversized files).
        judged: the actor findings already made; a record refused with a role-act code
            (:data:`ROLE_CODES`) is not judged for its signature again.
        records: the pull request's parsed records, shared with the actor checks (one
            is made when None).

    Returns:
        Diagnostics with codes ``dangling-reference``, ``bad-signature``,
        ``unknown-key``, ``key-expired``, ``id-mismatch``, ``statement-hash-mismatch`` and
        ``precheck-record-mismatch``; a file that does not parse yields none here (step
        2's record check reports it), nor does one that does not validate as the model
        its place holds (:func:`network.gate.records.actors.model_of`).
    """
    records = records or ValidRecords(diff)
    changed = {c.path: c for c in diff.changes if c.new_id and c.status != "deleted"}
    gone = {c.path for c in diff.changes if c.status == "deleted"}
    index = reference_index(base, gone, set(changed))
    role_judged = {d.path for d in judged if d.code in ROLE_CODES}
    now = derive.now(base)
    findings: list[Diagnostic] = []
    for art in artifacts:
        for path in art.paths:
            if path in skip or path not in changed or not path.endswith((".yaml", ".json")):
                continue
            rec = records.of(art, path, changed[path])
            if rec is None:
                continue  # step 2's record check reports it; only valid shapes are judged
            data = diff.new_bytes(changed[path])
            try:
                obj: dict[str, Any] = parse_document(path, data)
            except LemmataError:
                continue
            for p in index.references(path, obj):
                if path.endswith("/META.yaml") and (p.field or "").startswith("deps."):
                    continue  # the proposal check resolves deps against base alone
                findings.append(Diagnostic(p.code, f"{p.field}: {p.detail}", path))
            if obj.get("signature") is not None and path not in role_judged:
                findings.extend(_signature_findings(base, path, obj, now))
            if isinstance(rec, m.PrecheckRecord):
                findings.extend(_precheck_findings(base, path, rec))
    return findings


def _signature_findings(base: Graph, path: str, obj: dict[str, Any],
                        now: str | None) -> list[Diagnostic]:
    # on the record's own date and on the base's: the date is the filer's word
    for when in dict.fromkeys(d for d in (record_date(obj), now) if d is not None):
        p = signature_problem(path, str(obj.get("schema", "")), obj, keys=base.keys,
                              identities=base.identities, at_date=when)
        if p is not None:
            return [Diagnostic(p.code, f"signature: {p.detail}", path)]
    return []


def _precheck_findings(base: Graph, path: str, rec: m.PrecheckRecord) -> list[Diagnostic]:
    parts = path.split("/")  # targets/<t>/nodes/<n>/attempts/precheck/<key>.json
    if len(parts) != 7:
        return []  # the layout rules place it elsewhere
    target, node, name = parts[1], parts[3], parts[6]
    out: list[Diagnostic] = []
    if (rec.target, rec.node) != (target, node):
        out.append(Diagnostic("id-mismatch", f"the record is for {rec.target}/{rec.node}, "
                              f"its folder is {target}/{node}", path))
    t = base.targets.get(target)
    meta = t.nodes.get(node) if t is not None else None
    if meta is not None and meta.meta.statement_hash != rec.statement_hash:
        out.append(Diagnostic("statement-hash-mismatch", f"statement_hash "
                              f"{rec.statement_hash} is not {target}/{node}'s "
                              f"{meta.meta.statement_hash}", path))
    goal = rec.terminal_goal_state
    want_goal = sha256_hex(goal.encode()) if goal else None
    if rec.goal_state_sha256 != want_goal:
        out.append(Diagnostic("precheck-record-mismatch", f"goal_state_sha256 is "
                              f"{rec.goal_state_sha256}, the terminal goal state hashes to "
                              f"{want_goal}", path))
    key = precheck_key(rec.statement_hash, rec.goal_state_sha256, rec.first_failing_step)
    if name != f"{key}.json":
        out.append(Diagnostic("precheck-record-mismatch", f"the file is named {name}, its "
                              f"deduplication key is {key}", path))
    return out
