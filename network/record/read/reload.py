"""Load a graph after a merge by re-reading only what changed (issue 17).

:func:`reload_graph` gives a :class:`~network.record.read.loader.Graph` equal to
``load_graph(source)``: the root records and targets of ``old`` whose files did not
change are taken over as they are (a Graph is an immutable snapshot, so sharing them is
safe), and only the changed root records and the targets holding a changed path are read
and validated again, by the loader's own readers. A change to ``policy.json`` (the size
limit every read obeys), ``curators.json``, ``keys/``, ``identities/`` or ``names/``, or a
path outside the layout, loads the whole graph again. Between two commits the listing
itself skips every folder whose tree id did not change
(:meth:`~network.record.read.source.CommitSource.files_since`). ``tests/test_incremental_products.py``
holds the two loads' products equal on random merge sequences, and
``tests/test_reload_listing.py`` the listings equal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from network import ids
from network.errors import LemmataError, Problem, ValidationFailed
from network.record.read import loader as L
from network.record.read.source import CommitSource, Source

_ROOT_LISTS = {"attestations": "attestations", "log": "merges", "ledger": "ledger"}


def reload_graph(old: L.Graph, source: Source, changed: Iterable[str]) -> L.Graph:
    """The graph at ``source``, given ``old`` (the graph before) and every path whose
    bytes differ between the two (added, modified or removed).

    Raises:
        ValidationFailed: a re-read file does not validate (as ``load_graph`` would).
        LemmataError: ``not-a-graph`` or ``git-error`` when nothing can be read.
    """
    changed = set(changed)
    for path in changed:
        parts = path.split("/")
        if L.PRODUCT_PATHS_RE.fullmatch(path):
            continue
        if parts[0] == "targets" and len(parts) >= 3:
            continue
        if parts[0] in ("attestations", "ledger") and len(parts) == 2:
            continue
        if parts[:2] == ["log", "merges"] and len(parts) == 3:
            continue
        return L.load_graph(source)  # read by every record: load it all
    with L.gc_paused():
        return _reload(old, source, changed)


def _listing(old: L.Graph, source: Source, problems: list[Problem]) -> dict[str, int]:
    """What ``source.files`` lists; for two commits, the folders whose tree id did not
    change are taken from ``old.files`` (:meth:`CommitSource.files_since`)."""
    if (isinstance(source, CommitSource) and isinstance(old.source, CommitSource)
            and type(old.files) is dict):
        return source.files_since(old.source, old.files, problems)
    return source.files(problems)


def _reload(old: L.Graph, source: Source, changed: set[str]) -> L.Graph:
    problems: list[Problem] = []
    files = _listing(old, source, problems)
    r = L._Reader(source, files, old.policy.max_file_bytes)
    r.problems.extend(problems)
    # every path of old passed the table (old loaded without a problem): judge only the
    # paths that are new or changed, in the listing's order
    judged = L._in_the_table({p: n for p, n in files.items()
                              if p in changed or p not in old.files}, r.problems)
    r.files = {p: n for p, n in files.items()
               if p in judged or (p in old.files and p not in changed)}
    g = L.Graph(source=source, commit=source.commit, policy=old.policy, curators=old.curators,
                identities=old.identities, names=old.names, keys=old.keys, files=files)
    kept: dict[str, Any] = {}
    for name in ("merges", "attestations", "ledger"):
        for rf in getattr(old, name):
            kept[rf.path] = rf
    fresh = L.Graph(source=source, commit=source.commit, policy=old.policy,
                    curators=old.curators)
    todo = _ChangedFiles(r, {p for p in changed if p in r.files and not p.startswith("targets/")})
    L._load_root_records(fresh, todo)  # type: ignore[arg-type]
    got = {rf.path: rf for name in ("merges", "attestations", "ledger")
           for rf in getattr(fresh, name)}
    for path in r.files:
        parts = path.split("/")
        into = _ROOT_LISTS.get(parts[0])
        if into is None or path.startswith("targets/") or L.PRODUCT_PATHS_RE.fullmatch(path):
            continue
        rf = got.get(path) if path in changed else kept.get(path)
        if rf is not None:
            getattr(g, into).append(rf)
    g.merges.sort(key=lambda rf: rf.record.seq)
    by_target: dict[str, list[str]] = {}
    for path in r.files:
        parts = path.split("/")
        if parts[0] == "targets" and len(parts) >= 3 and not L.PRODUCT_PATHS_RE.fullmatch(path):
            by_target.setdefault(parts[1], []).append(path)
    dirty = {p.split("/")[1] for p in changed if p.startswith("targets/") and p.count("/") >= 2}
    for tid in sorted(by_target):
        if tid not in dirty and tid in old.targets:
            g.targets[tid] = old.targets[tid]
            continue
        t = _nodes_only(r, old.targets.get(tid), tid, by_target[tid], changed)
        if t is not None:
            g.targets[tid] = t
            continue
        sub = L.Graph(source=source, commit=source.commit, policy=old.policy,
                      curators=old.curators)
        one = _ChangedFiles(r, set(by_target[tid]))
        L._load_targets(sub, one)  # type: ignore[arg-type]
        g.targets.update(sub.targets)
    r.problems.extend(todo.problems)
    if r.problems:
        raise ValidationFailed(r.problems)
    return g


def _nodes_only(r: L._Reader, old_t: L.Target | None, tid: str, paths: list[str],
                changed: set[str]) -> L.Target | None:
    """``old_t`` with only its changed nodes read again, when every changed path of the
    target lies in a node directory; else None (the target is read whole)."""
    if old_t is None:
        return None
    base = f"targets/{tid}/nodes/"
    dirty: set[str] = set()
    for p in changed:
        if p.startswith(f"targets/{tid}/"):
            parts = p[len(base):].split("/") if p.startswith(base) else []
            if len(parts) < 2:
                return None
            dirty.add(parts[0])
    node_paths: dict[str, list[str]] = {}
    for p in paths:
        if p.startswith(base):
            parts = p[len(base):].split("/")
            if len(parts) >= 2 and parts[0] in dirty:
                node_paths.setdefault(parts[0], []).append(p)
    nodes = {nid: n for nid, n in old_t.nodes.items() if nid not in dirty}
    for nid in sorted(node_paths):
        try:
            ids.check_node_id(nid)
        except LemmataError as exc:
            r.problems.append(Problem("bad-id", exc.detail, f"{base}{nid}"))
            continue
        node = L._load_node(r, tid, nid, node_paths[nid])
        if node is not None:
            nodes[nid] = node
    return dataclasses.replace(old_t, nodes=dict(sorted(nodes.items())))


class _ChangedFiles:
    """A :class:`~network.record.read.loader._Reader` seen through a smaller file table: the
    loader's walkers iterate ``files``; reads go to the whole reader (whose problems
    collect every finding)."""

    def __init__(self, r: L._Reader, paths: set[str]) -> None:
        self._r = r
        self.files = {p: r.files[p] for p in r.files if p in paths}
        self.problems = r.problems

    def __getattr__(self, name: str) -> Any:
        return getattr(self._r, name)
