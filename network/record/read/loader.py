"""Read a graph (work tree or git commit) into typed models, collecting every problem.

:func:`load_graph` is the one reader of the record (DESIGN.md): the gate's post-merge job,
the service's read routes and the site all call it. It parses each file by its place in
the layout (docs/record.md), validates it against its model, and cross-checks ids,
directories and statement hashes. Every problem is collected with its file and field
before one :class:`~network.errors.ValidationFailed` is raised (STYLE.md rule 4).
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from network import ids
from network.errors import LemmataError, Problem, ValidationFailed, define
from network.record import layout
from network.record import models as m
from network.record.read import blob_cache
from network.record.read.forked import may_fork
from network.record.read.parse import (
    _NODE_RECORD_DIRS,
    _PANEL_DIRS,
    _TARGET_RECORD_DIRS,
    RecordYamlLoader,
    _parse_text,
    _record_of,
    parse_document,
    parse_record,
)
from network.record.read.prefetch import (
    PARALLEL_MIN_NODES,
    PARALLEL_SHARE,
    Prefetch,
    start_prefetch,
)
from network.record.read.prefetch import Read as _Read
from network.record.read.prefetch import read_file as _read_file
from network.record.read.source import (
    DEFAULT_MAX_FILE_BYTES,
    CommitSource,
    Source,
    open_source,
    sha256_hex,
)
from network.record.review_models import REVIEW_LEAN_DIRS

define("unknown-file", None, 422, "A file sits where the record layout has no place for it.",
       "Move or remove it; docs/record.md lists every path a graph may hold.")

R = TypeVar("R", bound=BaseModel)

NODE_LEAN_FILES = ("Statement", "Witness", "Context", "Proof", "Refutation", "Vacuity", "Relation")
#: ``<ts>-<who>``, or ``<ts>.<tag>-<who>`` when the service broke a same-second tie with an
#: 8-hex tag (network/api/submit/names.py); the tag sits where no pseudonym can reach.
TS_RE = (r"(?P<ts>[0-9]{8}T[0-9]{6}Z)(?:\.(?P<tag>[0-9a-f]{8}))?"
         r"-(?P<who>[A-Za-z0-9][A-Za-z0-9_.-]{0,38})")
#: ``outline/<proof>.json`` (D-3 v3.30): ``Proof`` or a merged attempt's stem
OUTLINE_FILE_RE = re.compile(
    r"Proof\.json|" + TS_RE + r"-" + r"(?:alternate|partial|reduction)\.json")
ATTEMPT_RE = re.compile(
    TS_RE + r"-(?P<kind>postmortem\.yaml|partial\.lean"
    r"|(?:partial|reduction)\.h(?P<k>[1-9][0-9]*)\.witness\.lean"
    r"|reduction\.lean|alternate\.lean)"
)
RECORD_FILE_RE = re.compile(TS_RE + r"\.yaml")
#: a review candidate's or exhibit's Lean, beside its record (D-9 v3.39)
REVIEW_LEAN_RE = re.compile(TS_RE + r"\.lean")


@dataclass
class LeanFile:
    """A Lean source in the graph: its path, SHA-256 (hex) and size (bytes)."""

    path: str
    sha256: str
    size: int


@dataclass
class RecordFile(Generic[R]):
    """A parsed record with where it came from and the hash of its bytes."""

    path: str
    record: R
    sha256: str


@dataclass
class Attempt:
    """One file under ``attempts/``: a postmortem, partial, carried witness, reduction or
    alternate (D-12, D-13, D-25). ``ts`` is the name's timestamp; ``who`` its pseudonym."""

    path: str
    kind: str
    ts: str
    who: str
    sha256: str
    postmortem: m.Postmortem | None = None
    hole_k: int | None = None


@dataclass
class Node:
    """A node directory, parsed."""

    ref: ids.NodeRef
    meta: m.Meta
    files: dict[str, LeanFile] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    prechecks: list[RecordFile[m.PrecheckRecord]] = field(default_factory=list)
    annexes: list[RecordFile[m.Annex]] = field(default_factory=list)
    literature: list[RecordFile[m.Literature]] = field(default_factory=list)
    glosses: list[RecordFile[m.Gloss]] = field(default_factory=list)
    explainers: list[RecordFile[m.Explainer]] = field(default_factory=list)
    withdrawals: list[RecordFile[m.Withdrawal]] = field(default_factory=list)
    proposed_for: list[RecordFile[m.ProposedFor]] = field(default_factory=list)
    shelvings: list[RecordFile[m.Shelving]] = field(default_factory=list)
    pertinences: list[RecordFile[m.Pertinence]] = field(default_factory=list)
    reviews: list[RecordFile[m.ProofReview]] = field(default_factory=list)
    waivers: list[RecordFile[m.Waiver]] = field(default_factory=list)
    defects: list[RecordFile[m.Defect]] = field(default_factory=list)
    disputes: list[RecordFile[m.Dispute]] = field(default_factory=list)
    revision_requests: list[RecordFile[m.RevisionRequest]] = field(default_factory=list)
    closures: list[RecordFile[m.Closure]] = field(default_factory=list)
    approvals: list[RecordFile[m.Approval]] = field(default_factory=list)
    outlines: list[RecordFile[m.Outline]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.ref.node


@dataclass
class Target:
    """A target directory, parsed; ``nodes`` in id order."""

    id: str
    record: m.TargetRecord
    gate_spec: m.GateSpec
    gate_spec_sha256: str
    defs: dict[str, LeanFile] = field(default_factory=dict)
    approaches: list[RecordFile[m.Approach | m.ApproachV2]] = field(default_factory=list)
    status_records: list[RecordFile[m.TargetStatusRecord]] = field(default_factory=list)
    stewards: list[RecordFile[m.Steward]] = field(default_factory=list)
    steward_acts: list[RecordFile[m.StewardAct]] = field(default_factory=list)
    registrations: list[RecordFile[m.Registration]] = field(default_factory=list)
    withdrawals: list[RecordFile[m.Withdrawal]] = field(default_factory=list)
    nodes: dict[str, Node] = field(default_factory=dict)
    motions: list[RecordFile[m.Motion]] = field(default_factory=list)
    votes: list[RecordFile[m.Vote]] = field(default_factory=list)
    writeups: list[RecordFile[m.Writeup]] = field(default_factory=list)
    # D-9 v3.39: the formalization review, targets/<id>/review/<dir>/ (m.REVIEW_DIRS)
    review_openings: list[RecordFile[m.ReviewOpening]] = field(default_factory=list)
    review_candidates: list[RecordFile[m.ReviewCandidate]] = field(default_factory=list)
    review_exhibits: list[RecordFile[m.ReviewExhibit]] = field(default_factory=list)
    review_attempts: list[RecordFile[m.ReviewAttempt]] = field(default_factory=list)
    review_tests: list[RecordFile[m.ReviewTest]] = field(default_factory=list)
    review_questions: list[RecordFile[m.ReviewQuestion]] = field(default_factory=list)
    review_answers: list[RecordFile[m.ReviewAnswer]] = field(default_factory=list)
    review_signatures: list[RecordFile[m.ReviewSignature]] = field(default_factory=list)
    review_lean: dict[str, LeanFile] = field(default_factory=dict)


@dataclass(frozen=True)
class Scope:
    """What a scoped load read (:func:`network.record.read.scoped.load_scoped`).

    Attributes:
        targets: the targets read whole.
        skipped_logs: graph paths of the attestations and merge records left unread.
    """

    targets: frozenset[str]
    skipped_logs: frozenset[str]


@dataclass
class Graph:
    """A whole graph at one snapshot. ``commit`` is None for a work tree; ``scope`` is
    None, or says what part of it a scoped load read (:mod:`network.record.read.scoped`)."""

    source: Source
    commit: str | None
    policy: m.Policy
    curators: m.Curators
    identities: dict[str, m.Identity] = field(default_factory=dict)
    names: dict[str, m.DisplayName] = field(default_factory=dict)
    keys: dict[str, m.PublicKey] = field(default_factory=dict)
    merges: list[RecordFile[m.MergeRecord]] = field(default_factory=list)
    attestations: list[RecordFile[m.Attestation]] = field(default_factory=list)
    ledger: list[RecordFile[m.LedgerLine | m.Revocation | m.Correction]] = field(
        default_factory=list
    )
    targets: dict[str, Target] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    #: what a scoped load read (:func:`network.record.read.scoped.load_scoped`); None: all
    scope: Scope | None = None
    #: derive's memoised index of this graph (network/record/derive/_index.py), built on
    #: first use; never part of the record (not compared, not copied by ``replace``), and
    #: freed with the graph
    derive_index: Any = field(default=None, init=False, repr=False, compare=False)

    def text(self, path: str) -> str:
        """The UTF-8 text of one graph file.

        Raises:
            LemmataError: ``missing-file``; ``not-utf8``.
        """
        data = self.source.read(path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LemmataError("not-utf8", str(exc), path=path) from exc

    def node(self, target: str, node: str) -> Node:
        """One node. Raises: LemmataError ``dangling-reference`` when absent."""
        try:
            return self.targets[target].nodes[node]
        except KeyError as exc:
            raise LemmataError("dangling-reference", f"no node {target}/{node}") from exc


# Where each product lives; the loader skips them (they are derived, never read as record).
PRODUCT_PATHS_RE = re.compile(
    r"(frontier\.json|info\.json|errors\.json|targets/index\.json"
    r"|targets/[^/]+/graph\.json|schemas/.*|AGENTS\.md|README\.md|LICENSE|DCO\.txt"
    r"|\.github/.*|\.gitignore|\.gitattributes|lakefile\.(lean|toml)|lean-toolchain)"
)


class _Reader:
    """Parses files for one load, collecting problems."""

    def __init__(self, source: Source, files: dict[str, int], max_bytes: int) -> None:
        self.source = source
        self.files = files
        self.max_bytes = max_bytes
        self.problems: list[Problem] = []
        self.prefetch: Prefetch | None = None
        self.cache: blob_cache.RecordCache | None = None
        self.oids: dict[str, str] = {}
        self.entries: dict[tuple[str, str], bytes] = {}

    def _readable(self, path: str) -> bool:
        """Whether ``path`` is listed and within the size limit; records the problem if not."""
        size = self.files.get(path)
        if size is None:
            self.problems.append(Problem("missing-file", "required file is absent", path))
            return False
        if size > self.max_bytes:
            self.problems.append(
                Problem("file-too-large", f"{size} bytes; the limit is {self.max_bytes}", path)
            )
            return False
        return True

    def raw(self, path: str) -> bytes | None:
        if not self._readable(path):
            return None
        return self.source.read(path)

    def text(self, path: str) -> str | None:
        data = self.raw(path)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.problems.append(Problem("not-utf8", f"byte {exc.start}: {exc.reason}", path))
            return None

    def read(self, path: str, parse: bool) -> _Read | None:
        """One file read (and parsed, with ``parse``) as :func:`_read_file` reads it, taken
        from the prefetching worker when it read it; None after a size problem."""
        if not self._readable(path):
            return None
        done = self.prefetch.take(path) if self.prefetch is not None else None
        if done is not None and (not parse or done[2] is not None or done[3] is not None):
            return done
        return _read_file(self.source, path, parse)

    def lean(self, path: str) -> LeanFile | None:
        done = self.read(path, parse=False)
        if done is None:
            return None
        sha, size, bad_utf8, _ = done
        if bad_utf8 is not None:
            self.problems.append(Problem("not-utf8", f"byte {bad_utf8[0]}: {bad_utf8[1]}", path))
            return None
        return LeanFile(path, sha, size)

    def record(self, path: str, model: type[R]) -> RecordFile[R] | None:
        if self.cache is not None:
            return self._cached_record(path, model)
        done = self.read(path, parse=True)
        if done is None:
            return None
        sha, _, bad_utf8, parsed = done
        rec = _record_of(path, bad_utf8, parsed, model, self.problems)
        return None if rec is None else RecordFile(path, rec, sha)

    def start_cache(self, cache: blob_cache.RecordCache) -> None:
        """Use ``cache`` for every record read from now on: the blob ids of the record
        files are taken from the source's tree (:meth:`CommitSource.blob_ids`) or computed
        from their bytes (read here, not kept), and their entries fetched in bulk."""
        self.cache = cache
        wanted = [p for p, size in self.files.items()
                  if size <= self.max_bytes and p.endswith((".json", ".yaml"))
                  and not PRODUCT_PATHS_RE.fullmatch(p)]
        tree_ids = getattr(self.source, "blob_ids", None)
        known: dict[str, str] = tree_ids() if callable(tree_ids) else {}
        for path in wanted:
            oid = known.get(path)
            if oid is None:
                try:
                    data = self.source.read(path)
                except LemmataError:
                    continue  # read again (and reported) where the loader reaches it
                oid = blob_cache.git_blob_id(data)
            self.oids[path] = oid
        self.entries = cache.prefetch(self.oids.values())

    def _cached_record(self, path: str, model: type[R]) -> RecordFile[R] | None:
        """:meth:`record` through the cache: an entry for (blob id, parser, model) gives
        the record, its SHA-256 and its problems without parsing; a miss parses the bytes
        as :meth:`record` does and queues the entry under the blob id of the bytes it
        parsed (computed again, so a file changed meanwhile, or an object store whose
        bytes do not match their id, never files a parse under another blob's id)."""
        assert self.cache is not None
        if not self._readable(path):
            return None
        place = blob_cache.place_of(path, model)
        data: bytes | None = None
        oid = self.oids.get(path)
        if oid is None:
            data = self.source.read(path)
            oid = blob_cache.git_blob_id(data)
        value = self.entries.get((oid, place))
        got = blob_cache.read_entry(value, path, model) if value is not None else None
        if got is not None:
            self.cache.hits += 1
            sha, rec, found = got
            self.problems.extend(found)
            return None if rec is None else RecordFile(path, rec, sha)
        self.cache.misses += 1
        data = self.source.read(path) if data is None else data
        sha = sha256_hex(data)
        mine: list[Problem] = []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            made = _record_of(path, (exc.start, exc.reason), None, model, mine)
        else:
            made = _record_of(path, None, _parse_text(path, text), model, mine)
        self.problems.extend(mine)
        entry = blob_cache.entry_of(sha, made, mine, path)
        if entry is not None:
            self.cache.put(blob_cache.git_blob_id(data), place, entry)
        return None if made is None else RecordFile(path, made, sha)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a block that builds many objects at once.

    A load or a products run allocates millions of objects that live on; every automatic
    full collection meanwhile walks all of them again (a third of the time on 10,000
    nodes). Reference counting still frees everything as usual; the collector is enabled
    again on exit when it was enabled on entry.

    On that exit the objects the block left are moved straight into the oldest generation
    (``gc.freeze()`` then ``gc.unfreeze()``), as two young collections would promote them,
    without those collections walking them all first (a tenth of a second on 10,000
    nodes). Nothing is lost: cyclic garbage among them is collected by the next full
    collection instead of a young one.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def load_graph(graph: str | Path | Source, commit: str | None = None, *,
               cache: blob_cache.RecordCache | str | Path | None = None) -> Graph:
    """Read a whole graph and validate every record it holds.

    Args:
        graph: a graph root folder, or an already-opened :class:`Source`.
        commit: read this git revision instead of the work tree.
        cache: a :class:`~network.record.read.blob_cache.RecordCache` (or its folder) holding
            records by git blob id: records whose blob, parser, model and code version
            have an entry are not parsed again, and new parses are written to it at the
            end. None (the default) parses everything. The graph (records, problems,
            their order) is the same either way (tests/test_blob_cache.py).

    Returns:
        The parsed :class:`Graph`.

    Raises:
        ValidationFailed: with every problem found (``validation-failed``), each carrying
            its catalog code, file and field.
        LemmataError: ``not-a-graph`` or ``git-error`` when nothing can be read at all.
    """
    source = graph if not isinstance(graph, (str, Path)) else open_source(graph, commit)
    if cache is not None and not isinstance(cache, blob_cache.RecordCache):
        cache = blob_cache.RecordCache(cache)
    with gc_paused():
        try:
            return _load(source, cache)
        finally:
            if cache is not None:
                cache.flush()


def _load(source: Source, cache: blob_cache.RecordCache | None = None) -> Graph:
    problems: list[Problem] = []
    # the worker reads the later nodes while this process lists the tree; the cache
    # replaces its parses
    prefetch = start_prefetch(source) if cache is None else None
    try:
        files = source.files(problems)
        if "policy.json" not in files:
            raise LemmataError("not-a-graph", f"{source.label} has no policy.json")
        r, policy = _start_reader(source, files, problems, cache)
        r.prefetch = prefetch  # its results are node files; policy.json is never one
        return _load_rest(source, files, r, policy)
    finally:
        if prefetch is not None:
            prefetch.close()


def _start_reader(source: Source, files: dict[str, int], problems: list[Problem],
                  cache: blob_cache.RecordCache | None) -> tuple[_Reader, m.Policy]:
    """A reader over the listed ``files`` holding the listing's ``problems``, with
    policy.json read first (its ``max_file_bytes`` bounds every later read; an unreadable
    one leaves the default and an ``invalid`` graph id) and the record ``cache`` started;
    returns it with the policy. The whole load and the scoped one (network/record/read/scoped.py)
    both start so."""
    r = _Reader(source, files, DEFAULT_MAX_FILE_BYTES)
    r.problems.extend(problems)
    policy_rf = r.record("policy.json", m.Policy)
    if policy_rf is not None:
        r.max_bytes = policy_rf.record.max_file_bytes
    if cache is not None:
        r.start_cache(cache)
    return r, policy_rf.record if policy_rf else m.Policy(graph_id="invalid")


def _load_rest(source: Source, files: dict[str, int], r: _Reader, policy: m.Policy) -> Graph:
    r.files = _in_the_table(files, r.problems)
    curators_rf = r.record("curators.json", m.Curators)
    g = Graph(
        source=source,
        commit=source.commit,
        policy=policy,
        curators=curators_rf.record if curators_rf else m.Curators(),
        files=files,
    )
    _load_root_records(g, r)
    _load_targets(g, r)
    if r.problems:
        raise ValidationFailed(r.problems)
    return g


def _in_the_table(files: dict[str, int], problems: list[Problem]) -> dict[str, int]:
    """The files a template of the one path table admits (:mod:`network.record.layout`,
    docs/record.md) or that are tooling the loader skips (:data:`PRODUCT_PATHS_RE`); each
    other file is ``unknown-file`` and is read no further (no catch-all folder, issue 9)."""
    kept: dict[str, int] = {}
    for path, size in files.items():
        if PRODUCT_PATHS_RE.fullmatch(path) or layout.match(path) is not None:
            kept[path] = size
        else:
            problems.append(Problem("unknown-file", "no place in the layout of "
                                    "docs/record.md", path))
    return kept


def _load_root_records(g: Graph, r: _Reader) -> None:
    handled = {"policy.json", "curators.json"}
    for path in r.files:
        if path in handled or path.startswith("targets/") or PRODUCT_PATHS_RE.fullmatch(path):
            continue
        parts = path.split("/")
        if len(parts) == 2 and parts[0] == "identities" and path.endswith(".yaml"):
            ident = r.record(path, m.Identity)
            if ident:
                _expect_equal(r, path, "pseudonym", ident.record.pseudonym, parts[1][:-5])
                g.identities[ident.record.pseudonym] = ident.record
        elif len(parts) == 2 and parts[0] == "names" and path.endswith(".yaml"):
            name = r.record(path, m.DisplayName)
            if name:
                _expect_equal(r, path, "pseudonym", name.record.pseudonym, parts[1][:-5])
                g.names[name.record.pseudonym] = name.record
        elif len(parts) == 2 and parts[0] == "keys" and path.endswith(".json"):
            key = r.record(path, m.PublicKey)
            if key:
                _expect_equal(r, path, "key_id", key.record.key_id, parts[1][:-5])
                g.keys[key.record.key_id] = key.record
        elif len(parts) == 3 and parts[:2] == ["log", "merges"] and path.endswith(".json"):
            merge = r.record(path, m.MergeRecord)
            if merge:
                _expect_equal(r, path, "seq", f"{merge.record.seq:06d}", parts[2][:-5])
                g.merges.append(merge)
        elif len(parts) == 2 and parts[0] == "attestations" and path.endswith(".json"):
            att = r.record(path, m.Attestation)
            if att:
                g.attestations.append(att)
        elif len(parts) == 2 and parts[0] == "ledger" and path.endswith(".json"):
            entry = _ledger_record(r, path)
            if entry:
                g.ledger.append(entry)
        else:
            r.problems.append(Problem("unknown-file", "no place in the layout", path))
    g.merges.sort(key=lambda rf: rf.record.seq)


def _ledger_record(
    r: _Reader, path: str
) -> RecordFile[m.LedgerLine | m.Revocation | m.Correction] | None:
    data = r.raw(path)
    if data is None:
        return None
    try:
        kind = json.loads(data).get("schema")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        kind = None
    models: dict[str, type[m.LedgerLine | m.Revocation | m.Correction]] = {
        "revocation/v1": m.Revocation, "correction/v1": m.Correction
    }
    # a non-string schema (a list, a mapping) is no key; the record check reports it
    return r.record(path, models.get(kind if isinstance(kind, str) else "", m.LedgerLine))


def _expect_equal(r: _Reader, path: str, fld: str, got: str, want: str) -> None:
    if got != want:
        r.problems.append(
            Problem("id-mismatch", f"{fld} is {got!r} but the file name says {want!r}", path, fld)
        )


def _load_targets(g: Graph, r: _Reader) -> None:
    by_target: dict[str, list[str]] = {}
    for path in r.files:
        parts = path.split("/")
        if parts[0] != "targets" or PRODUCT_PATHS_RE.fullmatch(path):
            continue
        if len(parts) < 3:
            r.problems.append(Problem("unknown-file", "no place in the layout", path))
            continue
        by_target.setdefault(parts[1], []).append(path)
    for tid in sorted(by_target):
        try:
            ids.check_target_id(tid)
        except LemmataError as exc:
            r.problems.append(Problem("bad-id", exc.detail, f"targets/{tid}"))
            continue
        t = _load_target(r, tid, by_target[tid])
        if t is not None:
            g.targets[tid] = t


def _load_target(r: _Reader, tid: str, paths: list[str]) -> Target | None:
    base = f"targets/{tid}/"
    rec = r.record(base + "target.yaml", m.TargetRecord)
    spec_rf = r.record(base + "gate-spec.json", m.GateSpec)
    if rec is not None:
        _expect_equal(r, rec.path, "id", rec.record.id, tid)
    node_paths: dict[str, list[str]] = {}
    loose: list[str] = []
    for path in paths:
        rest = path[len(base):]
        parts = rest.split("/")
        if parts[0] == "nodes" and len(parts) >= 3:
            node_paths.setdefault(parts[1], []).append(path)
        elif rest not in {"target.yaml", "gate-spec.json"}:
            loose.append(path)
    if rec is None or spec_rf is None:
        return None
    t = Target(tid, rec.record, spec_rf.record, spec_rf.sha256)
    for path in loose:
        rest = path[len(base):]
        parts = rest.split("/")
        if len(parts) == 2 and parts[0] == "defs" and parts[1].endswith(".lean"):
            lf = r.lean(path)
            if lf:
                t.defs[parts[1][:-5]] = lf
        elif len(parts) == 2 and parts[0] == "stewards" and parts[1].endswith(".yaml"):
            st = r.record(path, m.Steward)
            if st:
                _expect_equal(r, path, "pseudonym", st.record.pseudonym, parts[1][:-5])
                _expect_equal(r, path, "target", st.record.target, tid)
                t.stewards.append(st)
        elif (len(parts) == 3 and parts[0] == "panel" and parts[1] in _PANEL_DIRS
              and RECORD_FILE_RE.fullmatch(parts[2])):
            pmodel, pattr = _PANEL_DIRS[parts[1]]
            prf = r.record(path, pmodel)
            if prf:
                getattr(t, pattr).append(prf)
        elif len(parts) == 3 and parts[0] == "review" and parts[1] in m.REVIEW_DIRS:
            _load_review_file(r, t, path, parts[1], parts[2])
        elif len(parts) == 2 and parts[0] in _TARGET_RECORD_DIRS and parts[1].endswith(".yaml"):
            model, attr = _TARGET_RECORD_DIRS[parts[0]]
            rf = r.record(path, model)
            if rf:
                getattr(t, attr).append(rf)
        else:
            r.problems.append(Problem("unknown-file", "no place in the target layout", path))
    for nid in sorted(node_paths):
        try:
            ids.check_node_id(nid)
        except LemmataError as exc:
            r.problems.append(Problem("bad-id", exc.detail, f"{base}nodes/{nid}"))
            continue
        node = _load_node(r, tid, nid, node_paths[nid])
        if node is not None:
            t.nodes[nid] = node
    return t


def _load_review_file(r: _Reader, t: Target, path: str, folder: str, name: str) -> None:
    """One file under ``targets/<id>/review/<folder>/`` (D-9 v3.39): a record, or the Lean
    file beside a candidate's or exhibit's record."""
    if RECORD_FILE_RE.fullmatch(name):
        model, attr = m.REVIEW_DIRS[folder]
        rf = r.record(path, model)
        if rf:
            getattr(t, attr).append(rf)
    elif folder in REVIEW_LEAN_DIRS and REVIEW_LEAN_RE.fullmatch(name):
        lf = r.lean(path)
        if lf:
            t.review_lean[path] = lf
    else:
        r.problems.append(Problem("unknown-file", "no place in the review's layout", path))


def _load_node(r: _Reader, tid: str, nid: str, paths: list[str]) -> Node | None:
    base = f"targets/{tid}/nodes/{nid}/"
    meta_rf = r.record(base + "META.yaml", m.Meta)
    if meta_rf is None:
        return None
    meta = meta_rf.record
    _expect_equal(r, meta_rf.path, "id", meta.id, nid)
    _expect_equal(r, meta_rf.path, "target", meta.target, tid)
    node = Node(ids.NodeRef(tid, nid), meta)
    for path in paths:
        rest = path[len(base):]
        parts = rest.split("/")
        if rest == "META.yaml":
            continue
        if len(parts) == 1 and parts[0].endswith(".lean") and parts[0][:-5] in NODE_LEAN_FILES:
            lf = r.lean(path)
            if lf:
                node.files[parts[0][:-5]] = lf
        elif parts[0] == "attempts":
            _load_attempt(r, node, path, parts)
        elif parts[0] == "annex" and len(parts) == 2:
            _load_annex(r, node, path, parts[1])
        elif parts[0] == "closure" and len(parts) == 2 and re.fullmatch(
            r"route-[1-9][0-9]*\.json|resolves\.json|refutes\.json", parts[1]
        ):
            rf = r.record(path, m.Closure)
            if rf:
                node.closures.append(rf)
        elif parts[0] == "outline" and len(parts) == 2 and OUTLINE_FILE_RE.fullmatch(parts[1]):
            orf = r.record(path, m.Outline)
            if orf:
                node.outlines.append(orf)
        elif parts == ["waivers", "native_decide.yaml"]:
            wf = r.record(path, m.Waiver)
            if wf:
                node.waivers.append(wf)
        elif len(parts) == 2 and parts[0] in _NODE_RECORD_DIRS and RECORD_FILE_RE.fullmatch(
            parts[1]
        ):
            model, attr = _NODE_RECORD_DIRS[parts[0]]
            rf2 = r.record(path, model)
            if rf2:
                getattr(node, attr).append(rf2)
        else:
            r.problems.append(Problem("unknown-file", "no place in the node layout", path))
    stmt = node.files.get("Statement")
    if stmt is None:
        r.problems.append(Problem("missing-file", "every node has a Statement.lean",
                                  base + "Statement.lean"))
    elif stmt.sha256 != meta.statement_hash:
        r.problems.append(
            Problem("statement-hash-mismatch",
                    f"Statement.lean hashes to {stmt.sha256}, META says {meta.statement_hash}",
                    meta_rf.path, "statement_hash")
        )
    node.attempts.sort(key=lambda a: (a.ts, a.path))
    return node


def _load_attempt(r: _Reader, node: Node, path: str, parts: list[str]) -> None:
    if len(parts) == 3 and parts[1] == "precheck" and parts[2].endswith(".json"):
        rf = r.record(path, m.PrecheckRecord)
        if rf:
            node.prechecks.append(rf)
        return
    mt = ATTEMPT_RE.fullmatch(parts[1]) if len(parts) == 2 else None
    if mt is None:
        r.problems.append(Problem("unknown-file", "attempts/ holds <ts>-<pseudonym>-<kind>", path))
        return
    kind = mt.group("kind")
    if kind == "postmortem.yaml":
        pm = r.record(path, m.Postmortem)
        if pm:
            node.attempts.append(Attempt(path, "postmortem", mt.group("ts"), mt.group("who"),
                                         pm.sha256, postmortem=pm.record))
        return
    lf = r.lean(path)
    if lf is None:
        return
    k = mt.group("k")
    name = "witness" if k else kind.split(".")[0]
    node.attempts.append(Attempt(path, name, mt.group("ts"), mt.group("who"), lf.sha256,
                                 hole_k=int(k) if k else None))


def _load_annex(r: _Reader, node: Node, path: str, name: str) -> None:
    mt = re.fullmatch(r"([0-9a-f]{64})\.(md|yaml)", name)
    if mt is None:
        r.problems.append(Problem("unknown-file", "annex/ holds <sha256>.md and .yaml", path))
        return
    if mt.group(2) == "md":
        text = r.raw(path)
        if text is not None and sha256_hex(text) != mt.group(1):
            r.problems.append(Problem("annex-hash-mismatch",
                                      "annex bytes do not hash to their name", path))
        return
    rf = r.record(path, m.Annex)
    if rf:
        _expect_equal(r, path, "sha256", rf.record.sha256, mt.group(1))
        node.annexes.append(rf)


#: the public names, with those parse.py and source.py hold (importable from here)
__all__ = [
    "ATTEMPT_RE", "NODE_LEAN_FILES", "OUTLINE_FILE_RE", "PARALLEL_MIN_NODES",
    "PARALLEL_SHARE", "PRODUCT_PATHS_RE", "RECORD_FILE_RE", "TS_RE", "Attempt",
    "CommitSource", "Graph", "LeanFile", "Node", "RecordFile", "RecordYamlLoader",
    "Target", "gc_paused", "load_graph", "may_fork", "open_source", "parse_document",
    "parse_record", "sha256_hex",
]
