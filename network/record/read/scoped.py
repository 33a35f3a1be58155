"""The base graph as one submission reads it: its own targets whole, the rest on demand
(issue 17: the gate's cold run).

A pull request is judged per target (D-2): the derivations of a target read no other
target's record except the inputs :mod:`network.record.products.incremental` lists (trust through
the keys and attestations, the clock through the merge log, the steward panel and cap
through every target's steward records and role-signed acts). :func:`load_scoped` reads a
commit the way such a judgment needs it:

* every root record (policy, curators, keys, identities, names, ledger) as
  :func:`~network.record.read.loader.load_graph` reads them;
* every target's own records (``targets/<t>/`` outside ``nodes/``), so steward panels,
  caps and target-level withdrawals derive as on the whole graph;
* the targets in ``scope`` whole;
* of ``attestations/`` and ``log/merges/`` the records that name a loaded path or target
  (read and checked as JSON first, validated as records only when kept), the newest merge
  (the clock), the merges whose commit a kept attestation was judged at and those the
  scope's closure records name by ``merge_seq`` (a closure is dated, and its gate key
  checked, by that merge, which may list another target's paths alone).

The other targets' nodes are not read: their ``nodes`` mapping raises
:class:`ScopeExceeded` on any access, as does iterating the graph's ``files`` (a single
path is looked up in the commit's tree instead) or looking up an attestation that was not
kept (:func:`attestation_at`). A caller runs its whole judgment on the scoped graph and,
when :class:`ScopeExceeded` escapes, runs it again on the whole graph
(:func:`network.gate.run.run_gate` does), so no answer ever rests on a record the scoped
graph left out. The two places that scan every target's nodes for role-signed acts (the
steward lapse, D-32 v3.34, and withdrawals, D-18 v3.27) skip a target only when
:func:`load_scoped` saw that none of its node folders holds a record of those kinds
(:func:`scanned_nodes`); when one does, :func:`load_scoped` returns None and the caller
loads the whole graph.

With a record cache, what the load learns of a log file (its JSON) and of a target's
``nodes/`` tree (whether a node folder holds such a record) is kept under the object's id,
so a filled cache reads no attestation, merge record or node tree again.

Validation (ruling of issue 17): the records read are validated exactly as the whole-graph
load validates them, and any problem among them raises the same
:class:`~network.errors.ValidationFailed`; records left unread (other targets' nodes,
attestations and merges of other targets) are not validated here. Main is validated as a
whole by the post-merge job on every merge, so a pull request is judged against its own
targets and the shared records, and a broken record elsewhere no longer refuses it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
import pygit2

from network.errors import LemmataError, Problem
from network.record import models as m
from network.record.read import blob_cache
from network.record.read import loader as L
from network.record.read.source import CommitSource

#: node folders holding role-signed acts read across targets (panel lapse, withdrawals)
_SIGNED_NODE_DIRS = frozenset({"shelving", "literature", "withdrawals", "gloss", "explainer"})
_SIGNED_NODE_NAMES = tuple(f" {d}\0".encode() for d in sorted(_SIGNED_NODE_DIRS))
_LOGS = ("attestations", "log")
#: record-cache places of what a scoped load learns (:class:`_Facts`)
_LOG_PLACE, _NODES_PLACE = "scoped:log-json", "scoped:nodes-signed"


class ScopeExceeded(BaseException):
    """A judgment on a scoped graph reached a record the scope left out: judge again on
    the whole graph. A BaseException, so no ``except Exception`` of a gate step can turn
    it into a finding."""


class _OutOfScopeNodes(dict[str, L.Node]):
    """The nodes of a target outside the scope: any access raises :class:`ScopeExceeded`."""

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target = target

    def _out(self, *_: Any, **__: Any) -> Any:
        raise ScopeExceeded(f"the nodes of {self.target}")

    __getitem__ = __contains__ = __iter__ = __len__ = _out
    get = keys = values = items = copy = __reversed__ = _out


class _ScopedFiles(dict[str, int]):
    """A scoped graph's file listing: the folders read, and any other single path looked
    up in the commit's tree; iterating all of it raises :class:`ScopeExceeded`."""

    def __init__(self, known: dict[str, int], source: CommitSource,
                 unread: frozenset[str]) -> None:
        super().__init__(known)
        self.source = source
        self.unread = unread  # targets whose nodes/ folder was not listed

    def _listed(self, prefix: str) -> bool:
        """Whether every file at or under ``prefix`` (a path, or a folder ending in "/")
        was listed: all but the ``nodes/`` folders of the targets outside the scope."""
        parts = prefix.split("/")
        if parts[0] != "targets":
            return prefix != ""
        if len(parts) < 2 or parts[1] == "":
            return False
        if parts[1] not in self.unread:
            return True
        return len(parts) >= 3 and parts[2] not in ("", "nodes")

    def _look(self, path: str) -> int | None:
        if dict.__contains__(self, path):
            return dict.__getitem__(self, path)
        if not isinstance(path, str) or self._listed(path):
            return None
        return self.source.lookup(path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._look(path) is not None

    def __getitem__(self, path: str) -> int:
        got = self._look(path)
        if got is None:
            raise KeyError(path)
        return got

    def get(self, path: str, default: Any = None) -> Any:
        got = self._look(path)
        return default if got is None else got

    def under(self, prefix: str) -> list[str]:
        """Every listed path starting with ``prefix`` (a folder read whole; any prefix
        reaching into an unlisted ``nodes/`` folder, ``targets/oth`` as much as
        ``targets/other/nodes/x/``, raises)."""
        unread = (f"targets/{t}/nodes/" for t in self.unread)
        if not prefix or any(r.startswith(prefix) or prefix.startswith(r) for r in unread):
            raise ScopeExceeded(f"the files under {prefix}")
        return [p for p in dict.__iter__(self) if p.startswith(prefix)]

    def _out(self, *_: Any, **__: Any) -> Any:
        raise ScopeExceeded("every file of the graph")

    __iter__ = __len__ = keys = values = items = copy = __reversed__ = _out


def paths_under(graph: L.Graph, prefix: str) -> list[str]:
    """Every file of ``graph`` whose path starts with ``prefix``, in listing order.

    Raises:
        ScopeExceeded: a scoped graph did not read that folder whole.
    """
    if isinstance(graph.files, _ScopedFiles):
        return graph.files.under(prefix)
    return [p for p in graph.files if p.startswith(prefix)]


def scanned_nodes(t: L.Target) -> Iterable[L.Node]:
    """The nodes of ``t`` a scan for role-signed acts must read: none for a target outside
    the scope (:func:`load_scoped` saw that its node folders hold no such record), else
    every node."""
    return () if isinstance(t.nodes, _OutOfScopeNodes) else t.nodes.values()


def attestation_at(graph: L.Graph, path: str) -> L.RecordFile[m.Attestation] | None:
    """The attestation record at ``path``, or None when the graph holds none there.

    Raises:
        ScopeExceeded: a scoped graph left that attestation unread.
    """
    rf = next((a for a in graph.attestations if a.path == path), None)
    if rf is None and graph.scope is not None and path in graph.scope.skipped_logs:
        raise ScopeExceeded(path)
    return rf


def scope_of(paths: Iterable[str]) -> frozenset[str] | None:
    """The targets a pull request changing ``paths`` is judged on, or None when it
    changes nothing or a path lies outside every target (root records are read across
    targets: load it whole)."""
    out: set[str] = set()
    for p in paths:
        parts = p.split("/")
        if len(parts) < 3 or parts[0] != "targets" or L.PRODUCT_PATHS_RE.fullmatch(p):
            return None
        out.add(parts[1])
    return frozenset(out) or None


def load_scoped(repo: str | Path, commit: str, scope: frozenset[str], *,
                cache: blob_cache.RecordCache | str | Path | None = None) -> L.Graph | None:
    """The graph at ``commit`` of ``repo`` as a judgment of the targets ``scope`` reads it
    (module docstring), or None when some node outside the scope holds a role-signed act
    read across targets (the caller loads the whole graph).

    Args:
        repo: the graph repository (the graph is its root).
        commit: a revision git resolves.
        scope: target ids read whole (ids with no folder at ``commit`` read nothing).
        cache: a record cache, as :func:`~network.record.read.loader.load_graph` takes it.

    Returns:
        A :class:`~network.record.read.loader.Graph` whose ``scope`` says what was read.

    Raises:
        ValidationFailed: a record read does not validate (every problem among them).
        LemmataError: ``not-a-graph`` or ``git-error`` when nothing can be read.
    """
    source = CommitSource(repo, commit)
    if cache is not None and not isinstance(cache, blob_cache.RecordCache):
        cache = blob_cache.RecordCache(cache)
    with L.gc_paused():
        try:
            return _load(source, scope, cache)
        finally:
            if cache is not None:
                cache.flush()


def _load(source: CommitSource, scope: frozenset[str],
          cache: blob_cache.RecordCache | None) -> L.Graph | None:
    problems: list[Problem] = []
    files: dict[str, int] = {}
    source.walk("", problems, files, skip=frozenset({"targets", *_LOGS}))
    if "policy.json" not in files:
        raise LemmataError("not-a-graph", f"{source.label} has no policy.json")
    targets = source.subtree("targets")
    node_trees: dict[str, Any] = {}
    for entry in targets if targets is not None else ():
        tid = entry.name or ""
        nodes = None if tid in scope else source.subtree(f"targets/{tid}/nodes")
        if nodes is not None:
            node_trees[tid] = nodes
    for d in _LOGS:
        source.walk(d, problems, files, sized=False)
    logs = {p: n for p, n in files.items() if n < 0}
    ids = source.blob_ids()
    facts = _Facts(cache, [ids[p] for p in logs] + [str(t.id) for t in node_trees.values()])
    for tid, nodes in node_trees.items():
        if _signed_node_records(source, nodes, facts):
            return None
    out_of_scope = list(node_trees)
    source.walk("targets", problems, files,
                skip=frozenset(f"targets/{tid}/nodes" for tid in out_of_scope))
    kept, skipped = _relevant_logs(source, logs, files, scope, facts, ids,
                                   _closure_seqs(source, files, scope))
    for p in logs:
        if p in kept:
            files[p] = kept[p]
        else:
            del files[p]
    listed = dict(sorted(files.items()))
    r, policy = L._start_reader(source, listed, problems, cache)
    every = dict(listed)
    every.update(skipped)  # listed as present; never read as records
    g = L._load_rest(source, listed, r, policy)
    for tid in out_of_scope:
        t = g.targets.get(tid)
        if t is not None:
            t.nodes = _OutOfScopeNodes(tid)
    g.files = _ScopedFiles(every, source, frozenset(out_of_scope))
    g.scope = L.Scope(scope, frozenset(skipped))
    return g


def _signed_node_records(source: CommitSource, nodes: Any, facts: _Facts) -> bool:
    """Whether a node folder of the ``nodes/`` tree ``nodes`` may hold a folder of
    role-signed acts (:data:`_SIGNED_NODE_DIRS`): one raw object read per node, matching
    the entry names in the tree's bytes (``<mode> <name>\\0<id>``; a match inside an id
    only makes the caller load the whole graph). The answer is kept in the record cache
    under the tree's id (its content's)."""
    oid = str(nodes.id)
    known = facts.get(oid, _NODES_PLACE)
    if isinstance(known, bool):
        return known
    odb = source.repo.odb
    # only a folder is a node (a file or a submodule there is no node: the whole load
    # refuses it, and a submodule's commit is no object of this repository)
    found = any(any(name in odb.read(entry.id)[1] for name in _SIGNED_NODE_NAMES)
                for entry in nodes if entry.filemode == pygit2.enums.FileMode.TREE)
    facts.put(oid, _NODES_PLACE, found)
    return found


class _Facts:
    """What a scoped load learnt about git objects (a log file's JSON, whether a nodes/
    tree holds role-signed folders), kept in the record cache by object id: the id names
    the content, and the cache's version names this code (network/record/read/blob_cache.py).
    Without a cache it remembers nothing."""

    def __init__(self, cache: blob_cache.RecordCache | None, oids: list[str]) -> None:
        self.cache = cache
        self.entries = cache.prefetch(oids) if cache is not None else {}

    def get(self, oid: str, place: str) -> Any:
        """The value stored for ``oid`` at ``place``, or None (a miss)."""
        value = self.entries.get((oid, place))
        if value is None:
            return None
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None

    def put(self, oid: str, place: str, value: Any) -> None:
        """Queue ``value`` (JSON data) for the cache's next flush."""
        if self.cache is not None:
            self.cache.put(oid, place, orjson.dumps(value))


def _log_facts(obj: dict[str, Any]) -> dict[str, Any]:
    """The fields of a log file's JSON :func:`_relevant_logs` decides by, each answering
    as in ``obj``: ``target``, ``graph_commit``, ``seq``, ``merge_commit``,
    ``attestation`` as they are, and ``artifacts`` with each path kept (an item that is
    no mapping, or no string, stands as ``0``)."""
    keys = ("target", "graph_commit", "seq", "merge_commit", "attestation")
    out: dict[str, Any] = {k: obj[k] for k in keys if k in obj}
    arts = obj.get("artifacts")
    if "artifacts" in obj:
        out["artifacts"] = [
            ({"path": a["path"]} if "path" in a else {}) if isinstance(a, dict)
            else a if isinstance(a, str) else 0
            for a in arts] if isinstance(arts, list) else 0
    return out


def _closure_seqs(source: CommitSource, files: dict[str, int],
                  scope: frozenset[str]) -> frozenset[Any]:
    """The ``merge_seq`` of every closure record of the targets in ``scope``: a closure
    is dated, and its gate key checked, by the merge its ``merge_seq`` names, and that
    merge may list only another target's paths (the post-merge job closes every target's
    closable nodes after any merge, D-12 v3.42). A closure that does not read as JSON
    names none (the record check reports it)."""
    out: set[Any] = set()
    for p in files:
        parts = p.split("/")
        if (len(parts) == 6 and parts[0] == "targets" and parts[1] in scope
                and parts[2] == "nodes" and parts[4] == "closure"):
            try:
                obj = orjson.loads(source.read(p))
            except (LemmataError, orjson.JSONDecodeError):
                continue
            if isinstance(obj, dict) and isinstance(obj.get("merge_seq"), int):
                out.add(obj["merge_seq"])
    return frozenset(out)


def _names(obj: dict[str, Any], fld: str, among: Any) -> bool:
    """Whether ``obj[fld]`` is among ``among``, or is there but no string (kept: the
    record check refuses it; an unhashable value must not crash the load)."""
    value = obj.get(fld)
    return value in among if isinstance(value, str) else value is not None


def _relevant_logs(source: CommitSource, logs: dict[str, int], files: dict[str, int],
                   scope: frozenset[str], facts: _Facts, ids: dict[str, str],
                   closure_seqs: frozenset[Any] = frozenset()
                   ) -> tuple[dict[str, int], dict[str, int]]:
    """The attestations and merge records to read (path → size in bytes) and the paths
    of the others. Kept: an attestation whose target is in ``scope`` or whose artifacts
    name a read path; a merge record whose artifacts or attestation name a read path or a
    kept attestation, whose commit a kept attestation was judged at, whose ``seq`` a
    closure of the scope names (``closure_seqs``), or with the highest ``seq`` (the
    clock). A file that does not read as a JSON mapping, or whose ``target``, ``seq``,
    ``merge_commit`` or ``attestation`` is of another JSON type than the record's, is kept
    (the record check reports it)."""
    def read(path: str) -> tuple[int, dict[str, Any] | None]:
        known = facts.get(ids[path], _LOG_PLACE)
        if (isinstance(known, list) and len(known) == 2 and isinstance(known[0], int)
                and (known[1] is None or isinstance(known[1], dict))):
            return known[0], known[1]
        try:
            data = source.read(path)
        except LemmataError:
            return 0, None  # kept: the reader reports it
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            obj = None
        got = _log_facts(obj) if isinstance(obj, dict) else None
        facts.put(ids[path], _LOG_PLACE, [len(data), got])
        return len(data), got

    def read_path(p: Any) -> bool:
        if not isinstance(p, str):
            return True
        parts = p.split("/")
        return (len(parts) >= 3 and parts[0] == "targets"
                and (parts[1] in scope or parts[2] != "nodes")) or p in files

    kept: dict[str, int] = {}
    sizes: dict[str, int] = {}
    commits: set[str] = set()
    merges: list[tuple[str, int, dict[str, Any]]] = []
    for path in logs:
        size, obj = read(path)
        sizes[path] = size
        if path.startswith("log/"):
            if obj is None:
                kept[path] = size
            else:
                merges.append((path, size, obj))
            continue
        arts = obj.get("artifacts") if obj is not None else None
        tgt = obj.get("target") if obj is not None else None
        if (obj is None or not isinstance(tgt, str) or tgt in scope
                or not isinstance(arts, list)
                or any(not isinstance(a, dict) or read_path(a.get("path")) for a in arts)):
            kept[path] = size
            if obj is not None and isinstance(obj.get("graph_commit"), str):
                commits.add(obj["graph_commit"])
    seqs = [o["seq"] for _, _, o in merges if isinstance(o.get("seq"), int)]
    newest = max(seqs) if seqs else None
    for path, size, obj in merges:
        arts = obj.get("artifacts")
        seq = obj.get("seq")
        if (seq == newest or not isinstance(seq, int) or seq in closure_seqs
                or not isinstance(arts, list)
                or any(read_path(a) for a in arts) or _names(obj, "merge_commit", commits)
                or _names(obj, "attestation", kept)):
            kept[path] = size
    return kept, {p: n for p, n in sizes.items() if p not in kept}

