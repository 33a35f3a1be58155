"""A forked worker that reads a large work tree's later nodes while the loader lists the
tree and goes through the part before them (issue 17).

The loader (:mod:`network.record.loader`) reaches a work tree's files in one order: the
root's records, then each target by id, its own files, then its nodes by id. Before it
lists anything, :func:`start_prefetch` names the nodes that come last in that order (two
folder scans: ``targets/`` and each target's ``nodes/``) and forks a worker that walks
those node folders itself and reads, hashes and parses every file in them. The loader
takes each result when it reaches that file (:meth:`Prefetch.take`) and reads the file
itself whenever the worker did not (an unexpected error, a worker that died, a file the
worker never saw). Results are plain data (the parsed JSON/YAML objects), so the records
are validated in the loader exactly as without a worker: the listing, every problem and
every record are the loader's own; the worker only saves the reading
(``tests/test_loader_parallel.py``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from typing import Any

from network.errors import LemmataError
from network.record import models as m
from network.record.forked import ForkedCall, may_fork
from network.record.parse import _parse_text, parse_record
from network.record.source import DEFAULT_MAX_FILE_BYTES, Source, WorktreeSource

PARALLEL_MIN_NODES = 800
"""Work trees with at least this many node folders are read by two processes."""
PARALLEL_SHARE = 0.9
"""The share of node folders (the later ones) the worker reads: the loader meanwhile lists
the whole tree, checks it against the layout, reads the root's records and the earlier
nodes, and validates every record."""

Read = tuple[str, int, "tuple[int, str] | None", "tuple[str, Any] | None"]
"""A file as read for the loader: (SHA-256 hex, size in bytes, (byte, reason) when it is
not UTF-8, and when parsed ("ok", object) or (malformed-json|malformed-yaml, detail))."""

_READ_SUFFIXES = (".json", ".yaml", ".lean")


def read_file(source: Source, path: str, parse: bool) -> Read:
    """Read one file, hash it, check it is UTF-8 and, with ``parse``, parse it (JSON for
    ``*.json``, YAML otherwise: :func:`network.record.parse._parse_text`).

    Raises:
        LemmataError: from :meth:`Source.read`.
    """
    data = source.read(path)
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return sha, len(data), (exc.start, exc.reason), None
    return sha, len(data), None, _parse_text(path, text) if parse else None


def _folders(folder: str) -> list[str]:
    """The names of the real folders (no links) in ``folder``, sorted; [] when unreadable."""
    try:
        with os.scandir(folder) as it:
            return sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def later_nodes(root: str, share: float) -> list[tuple[str, str]]:
    """The (target, node) folders of the work tree at ``root`` that come last in the
    loader's order (targets by id, then nodes by id), ``share`` (0-1) of them all; []
    below :data:`PARALLEL_MIN_NODES` folders."""
    order = [(tid, nid) for tid in _folders(os.path.join(root, "targets"))
             for nid in _folders(os.path.join(root, "targets", tid, "nodes"))]
    if len(order) < PARALLEL_MIN_NODES:
        return []
    return order[int(len(order) * (1 - share)):]


def _walk(folder: str, rel: str) -> Iterator[tuple[str, int]]:
    """(graph path, size in bytes) of every regular file under ``folder`` (graph path
    ``rel``), links neither followed nor listed."""
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from _walk(entry.path, f"{rel}/{entry.name}")
                continue
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            yield f"{rel}/{entry.name}", st.st_size


def _max_bytes(source: Source) -> int:
    """The size limit policy.json sets, as the loader will read it, or the default when it
    does not read (the loader refuses larger files; the worker skips them)."""
    try:
        policy, _ = parse_record("policy.json", source.read("policy.json"), m.Policy)
    except LemmataError:
        return DEFAULT_MAX_FILE_BYTES
    return policy.max_file_bytes if policy is not None else DEFAULT_MAX_FILE_BYTES


class Prefetch:
    """The worker reading ``nodes`` ((target, node) folders) of ``source``'s work tree.

    Args:
        source: the work tree.
        nodes: the node folders it reads, each whole (files within the size limit and
            ending ``.json``, ``.yaml`` or ``.lean``).

    Raises:
        OSError: the worker cannot be forked.
    """

    def __init__(self, source: WorktreeSource, nodes: list[tuple[str, str]]) -> None:
        self.nodes = frozenset(nodes)
        self.results: dict[str, Read] | None = None
        root = str(source.root)

        def read_all() -> dict[str, Read]:
            max_bytes = _max_bytes(source)
            out: dict[str, Read] = {}
            for tid, nid in nodes:
                base = f"targets/{tid}/nodes/{nid}"
                for path, size in _walk(os.path.join(root, base), base):
                    if size > max_bytes or not path.endswith(_READ_SUFFIXES):
                        continue
                    try:
                        out[path] = read_file(source, path, not path.endswith(".lean"))
                    except Exception:  # noqa: BLE001, S112 - the loader reads it again
                        continue
            return out

        self.worker = ForkedCall(read_all)

    def take(self, path: str) -> Read | None:
        """The worker's result for graph path ``path`` (waiting for the worker the first
        time), or None when the worker has none."""
        parts = path.split("/", 4)
        if (len(parts) < 5 or parts[0] != "targets" or parts[2] != "nodes"
                or (parts[1], parts[3]) not in self.nodes):
            return None
        if self.results is None:
            self.results = self.worker.result()
        return self.results.pop(path, None)

    def close(self) -> None:
        """Stop and reap the worker if it was never waited for."""
        self.worker.close()


def start_prefetch(source: Source) -> Prefetch | None:
    """A :class:`Prefetch` over the later node folders of a large work tree, started before
    the loader lists it; None for a commit (libgit2 handles are not shared across a fork),
    a small tree, or when the process may not fork (:func:`may_fork`)."""
    if not isinstance(source, WorktreeSource) or not may_fork():
        return None
    nodes = later_nodes(str(source.root), PARALLEL_SHARE)
    if not nodes:
        return None
    try:
        return Prefetch(source, nodes)
    except OSError:
        return None
