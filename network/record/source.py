"""Where a graph's bytes come from: a work tree, or a commit of a git repository (pygit2).

Both sources list regular files only and refuse what a graph never holds: symbolic links,
submodules, hostile names and oversized files. Refusals are collected as
:class:`~network.errors.Problem` so a loader can report every one at once.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Protocol

import pygit2

from network.errors import LemmataError, Problem

DEFAULT_MAX_FILE_BYTES = 1_000_000
_SEGMENT_RE = re.compile(r"[A-Za-z0-9_@][A-Za-z0-9_.@-]*")
_IGNORED_TOP = frozenset({".git"})


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

    commit: str | None
    label: str

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

    def files(self, problems: list[Problem]) -> dict[str, int]:
        out: dict[str, int] = {}
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            rel_dir = os.path.relpath(dirpath, self.root)
            rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
            if rel_dir == "":
                dirnames[:] = [d for d in dirnames if d not in _IGNORED_TOP]
            for name in list(dirnames):
                full = os.path.join(dirpath, name)
                if os.path.islink(full):
                    rel = f"{rel_dir}/{name}" if rel_dir else name
                    problems.append(Problem("symlink-refused", "a symbolic link", rel))
                    dirnames.remove(name)
            for name in filenames:
                rel = f"{rel_dir}/{name}" if rel_dir else name
                st = os.lstat(os.path.join(dirpath, name))
                if stat.S_ISLNK(st.st_mode):
                    problems.append(Problem("symlink-refused", "a symbolic link", rel))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    problems.append(Problem("hostile-path", "not a regular file", rel))
                    continue
                why = check_graph_path(rel)
                if why:
                    problems.append(Problem("hostile-path", why, repr(rel)[1:-1]))
                    continue
                out[rel] = st.st_size
        return dict(sorted(out.items()))

    def read(self, path: str) -> bytes:
        if check_graph_path(path):
            raise LemmataError("hostile-path", "refused", path=path)
        try:  # O_NOFOLLOW: a link swapped in after listing is refused, not followed
            fd = os.open(self.root / path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise LemmataError("missing-file", f"no such regular file ({exc.strerror})",
                               path=path) from exc
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise LemmataError("missing-file", "not a regular file", path=path)
            return fh.read()


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
        self.label = f"{repo}@{self.commit[:12]}"
        tree = c.tree
        if subdir:
            try:
                entry = tree[subdir]
            except KeyError as exc:
                raise LemmataError("not-a-graph", f"no folder {subdir!r} at {commit}") from exc
            tree = self.repo.get(entry.id)
            if not isinstance(tree, pygit2.Tree):
                raise LemmataError("not-a-graph", f"{subdir!r} is not a folder at {commit}")
        self.tree: pygit2.Tree = tree
        self._blobs: dict[str, pygit2.Oid] = {}

    def files(self, problems: list[Problem]) -> dict[str, int]:
        out: dict[str, int] = {}
        stack: list[tuple[str, pygit2.Tree]] = [("", self.tree)]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                name = entry.name or ""
                rel = f"{prefix}{name}"
                if prefix == "" and name in _IGNORED_TOP:
                    continue
                mode = entry.filemode
                if mode == pygit2.enums.FileMode.TREE:
                    stack.append((rel + "/", self.repo.get(entry.id)))
                    continue
                if mode == pygit2.enums.FileMode.LINK:
                    problems.append(Problem("symlink-refused", "a symbolic link", rel))
                    continue
                if mode == pygit2.enums.FileMode.COMMIT:
                    problems.append(Problem("hostile-path", "a submodule", rel))
                    continue
                why = check_graph_path(rel)
                if why:
                    problems.append(Problem("hostile-path", why, repr(rel)[1:-1]))
                    continue
                blob = self.repo.get(entry.id)
                self._blobs[rel] = entry.id
                out[rel] = blob.size
        return dict(sorted(out.items()))

    def read(self, path: str) -> bytes:
        oid = self._blobs.get(path)
        if oid is None:
            try:
                oid = self.tree[path].id
            except KeyError as exc:
                raise LemmataError("missing-file", "not at this commit", path=path) from exc
        blob = self.repo.get(oid)
        if not isinstance(blob, pygit2.Blob):
            raise LemmataError("missing-file", "not a file at this commit", path=path)
        return bytes(blob.data)
