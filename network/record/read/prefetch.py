"""A forked worker that reads a large work tree's later nodes while the loader lists the
tree and goes through the part before them (issue 17).

The loader (:mod:`network.record.read.loader`) reaches a work tree's files in one order: the
root's records, then each target by id, its own files, then its nodes by id. Before it
lists anything, :func:`start_prefetch` names the nodes that come last in that order (two
folder scans: ``targets/`` and each target's ``nodes/``) and forks a worker that walks
those node folders itself and reads, hashes and parses every file in them the layout
admits (a text that could nest deep enough to near Python's recursion limit is left to
the loader, since where that limit falls depends on the stack). The loader
takes each result when it reaches that file (:meth:`Prefetch.take`) and reads the file
itself whenever the worker did not (an unexpected error, a worker that died, a file the
worker never saw). The worker opens every folder and file through the folder holding it,
never through a link, and stops when the loader's process is gone. Results are plain data
(the parsed JSON/YAML objects), so the records
are validated in the loader exactly as without a worker: the listing, every problem and
every record are the loader's own; the worker only saves the reading
(``tests/test_loader_parallel.py``).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from network.record import layout
from network.record import models as m
from network.record.read.forked import ForkedCall, may_fork
from network.record.read.parse import _parse_text, parse_record
from network.record.read.source import (
    DEFAULT_MAX_FILE_BYTES,
    Source,
    WorktreeSource,
    _read_all,
    sha256_hex,
)

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
    ``*.json``, YAML otherwise: :func:`network.record.read.parse._parse_text`).

    Raises:
        LemmataError: from :meth:`Source.read`.
    """
    return _read_of(path, source.read(path), parse)


def _read_of(path: str, data: bytes, parse: bool, *, shallow_only: bool = False) -> Read:
    """:func:`read_file`'s answer for ``data``, the bytes of graph path ``path``; with
    ``shallow_only`` a text that is not :func:`_shallow` is left unparsed (the loader then
    parses it itself)."""
    sha = sha256_hex(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return sha, len(data), (exc.start, exc.reason), None
    if not parse or (shallow_only and not _shallow(text)):
        return sha, len(data), None, None
    return sha, len(data), None, _parse_text(path, text)


# The worker reaches every folder and file through the folder holding it, opened without
# following a link (a link anywhere below the root is refused by the loader's listing and
# never read: the worker must not read behind one either), and opens files non-blocking (a
# fifo swapped in is never waited on).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _open_dir(name: str, dir_fd: int | None) -> int | None:
    """The folder ``name`` (relative to ``dir_fd``) opened, or None when it is a link, no
    folder, or unreadable."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def _folders(fd: int | None) -> list[str]:
    """The names of the real folders (no links) in the open folder ``fd``, sorted."""
    if fd is None:
        return []
    try:
        with os.scandir(fd) as it:
            return sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _close(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            os.close(fd)


def later_nodes(root: str, share: float) -> list[tuple[str, str]]:
    """The (target, node) folders of the work tree at ``root`` that come last in the
    loader's order (targets by id, then nodes by id), ``share`` (0-1) of them all; []
    below :data:`PARALLEL_MIN_NODES` folders. Only real folders count: ``targets``, a
    target or its ``nodes`` that is a link is passed over, as the loader refuses it."""
    order: list[tuple[str, str]] = []
    root_fd = _open_dir(root, None)
    targets_fd = _open_dir("targets", root_fd) if root_fd is not None else None
    try:
        for tid in _folders(targets_fd):
            t_fd = _open_dir(tid, targets_fd)
            nodes_fd = _open_dir("nodes", t_fd) if t_fd is not None else None
            order += [(tid, nid) for nid in _folders(nodes_fd)]
            _close(nodes_fd, t_fd)
    finally:
        _close(targets_fd, root_fd)
    if len(order) < PARALLEL_MIN_NODES:
        return []
    return order[int(len(order) * (1 - share)):]


def _read_capped(name: str, dir_fd: int, max_bytes: int) -> bytes | None:
    """The bytes of the regular file ``name`` in the open folder ``dir_fd``, or None when
    it is a link, no regular file, unreadable, or over ``max_bytes`` bytes."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        return _read_all(fd, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)


SHALLOW_MARKS = 200
"""A text with fewer line breaks, ``-``, ``?``, ``[`` and ``{`` than this together cannot
nest this deep; the worker parses only such texts."""


def _shallow(text: str) -> bool:
    """Whether ``text`` cannot nest :data:`SHALLOW_MARKS` deep, JSON or YAML (each level
    needs a new line, a ``-``, a ``?``, a ``[`` or a ``{``). Parsing a deeper text may hit
    Python's recursion limit, which depends on how deep the stack already is: the worker's
    stack is not the loader's, so the loader parses such a text itself."""
    return (text.count("\n") + text.count("-") + text.count("?") + text.count("[")
            + text.count("{")) < SHALLOW_MARKS


#: below a node folder the layout holds files at most two folders down
#: (``attempts/precheck/<hash>.json``); the worker descends no further
_NODE_DEPTH = 2


class _Walk:
    """One node folder's walk: what the layout admits there (the loader reads nothing
    else), memoised by the path below the node, and the process waiting for the results."""

    def __init__(self, max_bytes: int, parent: int, out: dict[str, Read]) -> None:
        self.max_bytes = max_bytes
        self.parent = parent
        self.out = out
        self.tails: dict[str, bool] = {}

    def admits(self, tail: str) -> bool:
        """Whether the layout admits ``targets/<t>/nodes/<n>/<tail>`` for valid ids."""
        got = self.tails.get(tail)
        if got is None:
            got = self.tails[tail] = layout.match(f"targets/t/nodes/n/{tail}") is not None
        return got

    def folder(self, fd: int, rel: str, tail: str, depth: int) -> None:
        """Read into ``out`` every regular file under the open folder ``fd`` (graph path
        ``rel``; ``tail`` below the node) that the layout admits, within ``max_bytes``:
        links, devices, fifos and sockets neither followed nor opened."""
        if os.getppid() != self.parent:
            os._exit(1)  # nobody is waiting for these results
        try:
            with os.scandir(fd) as it:
                entries = [(e.name, e.is_dir(follow_symlinks=False),
                            e.is_file(follow_symlinks=False)) for e in it]
        except OSError:
            return
        for name, is_dir, is_file in entries:
            below = f"{tail}{name}"
            if is_dir and depth < _NODE_DEPTH:
                sub = _open_dir(name, fd)
                if sub is not None:
                    try:
                        self.folder(sub, f"{rel}/{name}", f"{below}/", depth + 1)
                    finally:
                        os.close(sub)
            elif is_file and name.endswith(_READ_SUFFIXES) and self.admits(below):
                data = _read_capped(name, fd, self.max_bytes)
                if data is not None:
                    path = f"{rel}/{name}"
                    self.out[path] = _read_of(path, data, not name.endswith(".lean"),
                                              shallow_only=True)


def _max_bytes(root_fd: int) -> int:
    """The size limit policy.json sets, as the loader will read it (a policy.json over the
    default limit, unreadable or invalid leaves the default), so the worker skips what the
    loader refuses as too large."""
    data = _read_capped("policy.json", root_fd, DEFAULT_MAX_FILE_BYTES)
    if data is None:
        return DEFAULT_MAX_FILE_BYTES
    policy, _ = parse_record("policy.json", data, m.Policy)
    return policy.max_file_bytes if policy is not None else DEFAULT_MAX_FILE_BYTES


def _read_nodes(root: str, nodes: list[tuple[str, str]], parent: int) -> dict[str, Read]:
    """The worker's work: every file of the ``nodes`` folders the layout admits, read as
    the loader reads it (:func:`read_file`; a text that is not :func:`_shallow` is left
    unparsed), by graph path. It stops when its ``parent`` process is gone."""
    out: dict[str, Read] = {}
    root_fd = _open_dir(root, None)
    if root_fd is None:
        return out
    walk = _Walk(_max_bytes(root_fd), parent, out)
    targets_fd = _open_dir("targets", root_fd)
    t_fds: dict[str, tuple[int | None, int | None]] = {}
    try:
        for tid, nid in nodes:
            if tid not in t_fds:
                for t_fd, n_fd in t_fds.values():
                    _close(n_fd, t_fd)
                t_fd = _open_dir(tid, targets_fd) if targets_fd is not None else None
                t_fds = {tid: (t_fd, _open_dir("nodes", t_fd) if t_fd is not None else None)}
            nodes_fd = t_fds[tid][1]
            rel = f"targets/{tid}/nodes/{nid}"
            if layout.match(f"{rel}/META.yaml") is None:
                continue  # an id the layout refuses: the loader reads none of its files
            node_fd = _open_dir(nid, nodes_fd) if nodes_fd is not None else None
            if node_fd is not None:
                try:
                    walk.folder(node_fd, rel, "", 0)
                finally:
                    os.close(node_fd)
    finally:
        for t_fd, n_fd in t_fds.values():
            _close(n_fd, t_fd)
        _close(targets_fd, root_fd)
    return out


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
        root, parent = str(source.root), os.getpid()
        self.worker = ForkedCall(lambda: _read_nodes(root, nodes, parent))

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
