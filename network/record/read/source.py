"""Where a graph's bytes come from: a work tree, or a commit of a git repository (pygit2).

Both sources list regular files only and refuse what a graph never holds: symbolic links,
submodules, hostile names and oversized files. Refusals are collected as
:class:`~network.errors.Problem` so a loader can report every one at once.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import pygit2

from network.errors import LemmataError, Problem

DEFAULT_MAX_FILE_BYTES = 1_000_000
_SEGMENT_RE = re.compile(r"[A-Za-z0-9_@][A-Za-z0-9_.@-]*")
_IGNORED_TOP = frozenset({".git"})


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of exact bytes (statement hashes, D-3)."""
    return hashlib.sha256(data).hexdigest()


def check_graph_path(path: str) -> str | None:
    """Why ``path`` is not a safe graph-relative path, or None when it is.

    Refused: absolute paths, ``.``/``..`` segments, empty segments, backslashes, control
    characters, and any segment outside ``[A-Za-z0-9_@][A-Za-z0-9_.@-]*`` (which also
    refuses hidden files and Unicode look-alikes). Dot-directories of tooling at the top
    level (``.github``) are allowed.
    """
    if not path or path.startswith("/") or "\\" in path:
        return "absolute path or backslash"
    segments = path.split("/")
    for i, seg in enumerate(segments):
        if i == 0 and seg in {".github", ".gitignore", ".gitattributes"}:
            continue
        if not _SEGMENT_RE.fullmatch(seg):
            return f"segment {seg!r} is not a plain portable name"
    return None


class Source(Protocol):
    """A readable graph snapshot.

    Attributes:
        commit: the 40-hex commit it was read at, or None for a work tree.
        label: a human name for messages.
    """

    label: str

    @property
    def commit(self) -> str | None:
        """The 40-hex commit it was read at, or None for a work tree."""
        ...

    def files(self, problems: list[Problem]) -> dict[str, int]:
        """Every regular file as graph-relative path → size in bytes, sorted by path.

        Refused entries are appended to ``problems`` and left out.
        """
        ...

    def read(self, path: str) -> bytes:
        """The exact bytes of one listed file.

        Raises:
            LemmataError: ``missing-file`` when it is not there.
        """
        ...


class WorktreeSource:
    """A graph read from a directory on disk, never following links.

    Args:
        root: the graph's root directory (holding ``targets/``).

    Raises:
        LemmataError: ``not-a-graph`` when ``root`` is not a directory.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise LemmataError("not-a-graph", f"{self.root} is not a directory")
        self.commit: str | None = None
        self.label = str(self.root)
        self._root = str(self.root)
        self._listed: frozenset[str] = frozenset()

    def files(self, problems: list[Problem]) -> dict[str, int]:
        out: dict[str, int] = {}
        stack: list[tuple[str, str]] = [(self._root, "")]
        while stack:
            folder, rel_dir = stack.pop()
            sub = self._list_folder(folder, rel_dir, problems, out)
            stack.extend(reversed(sub))
        listed = dict(sorted(out.items()))
        self._listed = frozenset(listed)
        return listed

    def _list_folder(self, folder: str, rel_dir: str, problems: list[Problem],
                     out: dict[str, int]) -> list[tuple[str, str]]:
        """One folder of :meth:`files`, in the order ``os.walk`` goes top-down: linked
        folders are refused, then the files listed; returns the subfolders to walk next."""
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return []
        dirs: list[os.DirEntry[str]] = []
        names: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if rel_dir == "" and entry.name in _IGNORED_TOP:
                    continue
                dirs.append(entry)
            else:
                names.append(entry)
        prefix = f"{rel_dir}/" if rel_dir else ""
        sub: list[tuple[str, str]] = []
        for entry in dirs:
            if entry.is_symlink():
                problems.append(Problem("symlink-refused", "a symbolic link", prefix + entry.name))
            else:
                sub.append((entry.path, prefix + entry.name))
        dir_ok = rel_dir != "" and check_graph_path(rel_dir) is None
        for entry in names:
            rel = prefix + entry.name
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                problems.append(Problem("symlink-refused", "a symbolic link", rel))
                continue
            if not stat.S_ISREG(st.st_mode):
                problems.append(Problem("hostile-path", "not a regular file", rel))
                continue
            if not (dir_ok and _SEGMENT_RE.fullmatch(entry.name)):
                why = check_graph_path(rel)
                if why:
                    problems.append(Problem("hostile-path", why, repr(rel)[1:-1]))
                    continue
            out[rel] = st.st_size
        return sub

    def read(self, path: str) -> bytes:
        if path not in self._listed and check_graph_path(path):
            raise LemmataError("hostile-path", "refused", path=path)
        try:  # O_NOFOLLOW: a link swapped in after listing is refused, not followed
            fd = os.open(os.path.join(self._root, path), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise LemmataError("missing-file", f"no such regular file ({exc.strerror})",
                               path=path) from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise LemmataError("missing-file", "not a regular file", path=path)
            return _read_all(fd, st.st_size)
        finally:
            os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    """Every byte of an open regular file of ``size`` bytes (more if it grew meanwhile)."""
    want = size + 1
    data = os.read(fd, want)
    if len(data) < want:
        return data
    chunks = [data]
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _twice(name: str, seen: set[str], rel: str, problems: list[Problem]) -> bool:
    """Whether ``name`` was already met in the tree being walked (``seen`` holds the
    names so far; ``name`` joins it), recording the problem at ``rel`` when it was: a
    tree naming one entry twice is malformed (git fsck's ``duplicateEntries``) and would
    list two folders' files as one, or one folder's files after the other went (the
    listing between two commits looks up only one)."""
    if name in seen:
        problems.append(Problem("hostile-path", "a name twice in one folder",
                                repr(rel)[1:-1]))
        return True
    seen.add(name)
    return False


class CommitSource:
    """A graph read from one commit of a git repository, without a checkout.

    Args:
        repo: path of the repository (bare or not).
        commit: a revision git can resolve (a 40-hex SHA, a branch, ``HEAD``).
        subdir: the graph's folder inside the repository ("" when it is the root).

    Raises:
        LemmataError: ``git-error`` when the repository or commit cannot be resolved;
            ``not-a-graph`` when ``subdir`` is not a folder at that commit.
    """

    def __init__(self, repo: str | Path, commit: str = "HEAD", subdir: str = "") -> None:
        try:
            self.repo = pygit2.Repository(str(repo))
            obj = self.repo.revparse_single(commit)
            c = obj.peel(pygit2.Commit)
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise LemmataError("git-error", f"cannot resolve {commit!r} in {repo}: {exc}") from exc
        self.commit = str(c.id)
        self.subdir = subdir
        self.label = f"{repo}@{self.commit[:12]}"
        tree = c.tree
        if subdir:
            try:
                entry = tree[subdir]
            except KeyError as exc:
                raise LemmataError("not-a-graph", f"no folder {subdir!r} at {commit}") from exc
            sub = self.repo.get(entry.id)
            if not isinstance(sub, pygit2.Tree):
                raise LemmataError("not-a-graph", f"{subdir!r} is not a folder at {commit}")
            tree = sub
        self.tree: pygit2.Tree = tree
        self._blobs: dict[str, pygit2.Oid] = {}
        self._odb = self.repo.odb

    def files(self, problems: list[Problem]) -> dict[str, int]:
        out: dict[str, int] = {}
        self.walk("", problems, out)
        return dict(sorted(out.items()))

    def subtree(self, rel_dir: str) -> pygit2.Tree | None:
        """The tree at ``rel_dir`` ("" for the graph's root), or None when no folder is
        there."""
        if not rel_dir:
            return self.tree
        try:
            entry = self.tree[rel_dir]
        except KeyError:
            return None
        obj = self.repo.get(entry.id)
        return obj if isinstance(obj, pygit2.Tree) else None

    def walk(self, rel_dir: str, problems: list[Problem], out: dict[str, int], *,
             sized: bool = True, skip: frozenset[str] = frozenset()) -> None:
        """Add every regular file under the folder ``rel_dir`` to ``out`` (path → size in
        bytes), exactly as :meth:`files` lists them; refusals go to ``problems``. With
        ``sized`` False the sizes are left as -1 (the caller learns them when it reads
        the bytes: the git header read costs as much as the blob's); folders named in
        ``skip`` (graph paths) are not entered. A missing folder adds nothing."""
        start = self.subtree(rel_dir)
        if start is None:
            return
        stack: list[tuple[str, pygit2.Tree]] = [(f"{rel_dir}/" if rel_dir else "", start)]
        while stack:
            prefix, tree = stack.pop()
            seen: set[str] = set()
            for entry in tree:
                name = entry.name or ""
                rel = f"{prefix}{name}"
                if prefix == "" and name in _IGNORED_TOP or _twice(name, seen, rel, problems):
                    continue
                mode = entry.filemode
                if mode == pygit2.enums.FileMode.TREE:
                    if rel in skip:
                        continue
                    sub = self.repo.get(entry.id)
                    # a tree entry names a tree object in any intact repository
                    assert isinstance(sub, pygit2.Tree), f"{rel}: tree object missing"
                    stack.append((rel + "/", sub))
                    continue
                self._add_file(rel, entry, problems, out, sized)

    def _add_file(self, rel: str, entry: pygit2.Object, problems: list[Problem],
                  out: dict[str, int], sized: bool) -> None:
        """List the non-folder tree entry ``entry`` at ``rel`` into ``out`` as
        :meth:`walk` lists it (a link, a submodule or a hostile name is a problem)."""
        mode = entry.filemode
        if mode == pygit2.enums.FileMode.LINK:
            problems.append(Problem("symlink-refused", "a symbolic link", rel))
            return
        if mode == pygit2.enums.FileMode.COMMIT:
            problems.append(Problem("hostile-path", "a submodule", rel))
            return
        why = check_graph_path(rel)
        if why:
            problems.append(Problem("hostile-path", why, repr(rel)[1:-1]))
            return
        self._blobs[rel] = entry.id
        out[rel] = self._odb.read_header(entry.id)[1] if sized else -1

    def files_since(self, before: CommitSource, listed: Mapping[str, int],
                    problems: list[Problem]) -> dict[str, int]:
        """:meth:`files`, given ``listed``: what :meth:`files` listed for ``before`` (an
        earlier commit's source in the same repository) without a problem. A folder
        whose tree id is the same at both commits holds the same files, so its part of
        ``listed`` is taken over and the folder is not walked (issue 17: a reload after a
        one-node merge at 100,000 nodes lists a few folders, not 465,000 files)."""
        keys = sorted(listed)  # bisected by folder prefix below
        out: dict[str, int] = {}
        stack: list[tuple[str, pygit2.Tree, pygit2.Tree | None]] = [("", self.tree, before.tree)]
        while stack:
            prefix, tree, prev = stack.pop()
            seen: set[str] = set()
            for entry in tree:
                name = entry.name or ""
                rel = f"{prefix}{name}"
                if prefix == "" and name in _IGNORED_TOP or _twice(name, seen, rel, problems):
                    continue
                if entry.filemode != pygit2.enums.FileMode.TREE:
                    self._add_file(rel, entry, problems, out, True)
                    continue
                old = prev[name] if prev is not None and name in prev else None
                same = old is not None and old.filemode == pygit2.enums.FileMode.TREE
                if same and old is not None and old.id == entry.id:
                    lo = bisect.bisect_left(keys, rel + "/")
                    hi = bisect.bisect_left(keys, rel + "0")  # "0" sorts right after "/"
                    for k in keys[lo:hi]:
                        out[k] = listed[k]
                    continue
                sub = self.repo.get(entry.id)
                assert isinstance(sub, pygit2.Tree), f"{rel}: tree object missing"
                was = self.repo.get(old.id) if same and old is not None else None
                stack.append((rel + "/", sub, was if isinstance(was, pygit2.Tree) else None))
        return dict(sorted(out.items()))

    def lookup(self, path: str) -> int | None:
        """The size in bytes of ``path`` when :meth:`files` would list it (a regular
        file at a safe path, not under ``.git``), else None: one path, without a walk."""
        if not path or path.split("/", 1)[0] in _IGNORED_TOP or check_graph_path(path):
            return None
        try:
            entry = self.tree[path]
        except (KeyError, ValueError):
            return None
        if entry.filemode not in (pygit2.enums.FileMode.BLOB,
                                  pygit2.enums.FileMode.BLOB_EXECUTABLE):
            return None
        self._blobs[path] = entry.id
        return int(self._odb.read_header(entry.id)[1])

    def blob_ids(self) -> dict[str, str]:
        """The git blob id (40 hex) of every file :meth:`files` listed, by path (empty
        before it is called); the record cache keys on them (network/record/read/blob_cache.py)."""
        return {path: str(oid) for path, oid in self._blobs.items()}

    def read(self, path: str) -> bytes:
        oid = self._blobs.get(path)
        if oid is None:
            try:
                oid = self.tree[path].id
            except KeyError as exc:
                raise LemmataError("missing-file", "not at this commit", path=path) from exc
        try:
            kind, data = self._odb.read(oid)[:2]
        except KeyError:
            kind, data = None, b""
        if kind != pygit2.enums.ObjectType.BLOB:
            raise LemmataError("missing-file", "not a file at this commit", path=path)
        return bytes(data)


def open_source(graph: str | Path, commit: str | None = None) -> Source:
    """A source for ``graph``: its work tree, or ``commit`` of the repository containing it.

    With ``commit``, ``graph`` may be the repository itself or a folder inside a work tree
    (then that folder is read at the commit).

    Raises:
        LemmataError: ``not-a-graph``; ``git-error``.
    """
    path = Path(graph)
    if commit is None:
        return WorktreeSource(path)
    found = pygit2.discover_repository(str(path))
    if found is None:
        raise LemmataError("git-error", f"{path} is not inside a git repository")
    repo = pygit2.Repository(found)
    workdir = repo.workdir
    subdir = ""
    if workdir is not None:
        rel = path.resolve().relative_to(Path(workdir).resolve())
        subdir = "" if str(rel) == "." else rel.as_posix()
    return CommitSource(found, commit, subdir)
