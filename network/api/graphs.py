"""Where the service's read routes get the graph from, and the ETag that names it.

The service reads the record only through :func:`network.record.read.loader.load_graph`
(DESIGN.md: ``network/record`` is the one reader). A :class:`GraphProvider` caches the
loaded graph and says which snapshot it is:

* for a git repository, the ``HEAD`` commit is read and is the ETag, and the graph is
  reloaded only when ``HEAD`` moves (the post-merge job's commit);
* for a plain work tree, the ETag is the SHA-256 of the file listing (paths and sizes),
  reloaded at most every ``recheck_s`` seconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define
from network.record import models as m
from network.record.read import blob_cache
from network.record.read.loader import Graph, load_graph, parse_document

define("graph-unavailable", None, 503, "The service cannot read its graph repository now.",
       "Retry later; the operator should check the configured graph path.")


@dataclass(frozen=True)
class Snapshot:
    """One loaded graph and its ETag (a commit id, or ``wt-<sha256 prefix>``)."""

    graph: Graph
    etag: str


def _listing_etag(graph: Graph) -> str:
    if graph.commit:
        return graph.commit
    digest = hashlib.sha256(json.dumps(graph.files, sort_keys=True).encode()).hexdigest()
    return f"wt-{digest[:40]}"


def _load_at(path: Path, commit: str, before: tuple[str, Graph] | None) -> Graph:
    """The graph at ``commit``: re-reading only what changed since the graph ``before``
    was read (:func:`network.record.read.reload.reload_graph`, issue 17) when there is one,
    else (or when that fails in any way) a whole :func:`load_graph`."""
    if before is not None and before[0] != commit:
        from network.record.products.incremental import changed_paths
        from network.record.read.loader import open_source
        from network.record.read.reload import reload_graph

        with contextlib.suppress(Exception):  # the whole load below reports the problem
            source = open_source(path, commit)
            changed = changed_paths(path, before[0], commit)
            sub = getattr(source, "subdir", "")
            if sub:  # repository paths to the graph's own; a change outside it is none
                changed = {p[len(sub) + 1:] for p in changed if p.startswith(f"{sub}/")}
            return reload_graph(before[1], source, changed)
    return load_graph(path, commit, cache=blob_cache.configured())


class GraphProvider:
    """Loads and caches the graph the service serves.

    Args:
        loader: a no-argument function returning a :class:`Graph`; called again only
            when :meth:`version` changes (or every call, when ``version`` is None).
        version: a cheap function naming the current snapshot (a commit id), or None.
        recheck_s: without ``version``, reuse a load for this many seconds.

    Raises (from :meth:`snapshot`):
        LemmataError: ``graph-unavailable`` when the graph cannot be read at all;
            ``validation-failed`` is passed through as graph-unavailable with its first
            problem, since a served graph must load.
    """

    def __init__(self, loader: Callable[[], Graph], version: Callable[[], str] | None = None,
                 recheck_s: float = 2.0) -> None:
        self._loader = loader
        self._version = version
        self._recheck_s = recheck_s
        self._lock = threading.Lock()
        self._cached: Snapshot | None = None
        self._cached_key: str | None = None
        self._loaded_at = 0.0

    @classmethod
    def for_path(cls, path: Path) -> GraphProvider:
        """A provider for a graph folder: read at ``HEAD`` when it is a git repository's
        root, else as a work tree."""
        path = Path(path)

        def is_repo_root() -> bool:
            return (path / ".git").exists()

        opened: list[Any] = []  # the one open pygit2.Repository, reused (see version)

        def version() -> str:
            # Called under the provider's lock on every read. Opening a repository costs
            # ~0.3 ms; an open one re-reads HEAD and its ref from disk on each ``head``
            # (~12 us), so moves of HEAD are still seen at once.
            if not is_repo_root():
                opened.clear()
                return ""
            import pygit2

            try:
                if not opened:
                    opened.append(pygit2.Repository(str(path)))
                repo = opened[0]
                return "" if repo.head_is_unborn else str(repo.head.target)
            except pygit2.GitError:
                opened.clear()
                return ""

        last: list[tuple[str, Graph]] = []  # the graph last read at a commit (issue 17)

        def loader() -> Graph:
            key = version()
            if not key:
                last.clear()
                return load_graph(path, cache=blob_cache.configured())
            graph = _load_at(path, key, last[0] if last else None)
            last[:] = [(key, graph)]
            return graph

        return cls(loader, version)

    def snapshot(self) -> Snapshot:
        """The current graph and its ETag.

        Raises:
            LemmataError: ``graph-unavailable``.
        """
        with self._lock:
            key = self._version() if self._version is not None else None
            fresh = (
                self._cached is not None
                and (key == self._cached_key if key else
                     time.monotonic() - self._loaded_at < self._recheck_s)
            )
            if fresh and self._cached is not None:
                return self._cached
            try:
                graph = self._loader()
            except LemmataError as exc:
                raise LemmataError("graph-unavailable", str(exc)) from exc
            except OSError as exc:
                raise LemmataError("graph-unavailable", f"{type(exc).__name__}: {exc}") from exc
            self._cached = Snapshot(graph, _listing_etag(graph))
            self._cached_key = key
            self._loaded_at = time.monotonic()
            return self._cached

    def policy(self) -> m.Policy | None:
        """The graph's published ``policy.json``, or None when no graph can be read."""
        try:
            return self.snapshot().graph.policy
        except LemmataError:
            return None


def committed_product(graph: Graph, path: str) -> Any | None:
    """A committed JSON product's parsed body (``frontier.json``, ``info.json``,
    ``targets/<id>/graph.json``, ...), or None when the graph holds none; read through the
    one reader of the record (:func:`network.record.read.loader.parse_document`).

    Raises:
        LemmataError: ``malformed-json`` when the committed bytes do not parse.
    """
    if path not in graph.files:
        return None
    return parse_document(path, graph.source.read(path))
