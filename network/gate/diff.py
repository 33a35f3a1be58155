"""The files a pull request changes: a pygit2 tree diff between base and head (D-4 step 2).

Renames are not detected: a rename is a deletion plus an addition, and both are judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pygit2

from network.errors import LemmataError

ChangeStatus = Literal["added", "modified", "deleted"]


@dataclass(frozen=True)
class Change:
    """One changed path.

    Attributes:
        path: graph-relative path (POSIX), as it appears in the tree.
        status: added, modified or deleted.
        mode: the new file mode (0 when deleted); 0o120000 is a symbolic link.
        old_id: the blob id at base (40 hex) or None.
        new_id: the blob id at head (40 hex) or None.
    """

    path: str
    status: ChangeStatus
    mode: int
    old_id: str | None
    new_id: str | None


@dataclass
class Diff:
    """A pull request's changes with access to both sides' bytes.

    Raises:
        LemmataError: ``git-error`` when a commit cannot be resolved.
    """

    repo: pygit2.Repository
    base: str
    head: str
    changes: list[Change]
    subdir: str = ""

    def new_bytes(self, change: Change) -> bytes:
        """The file's bytes at head. Raises LemmataError ``missing-file`` when deleted."""
        if change.new_id is None:
            raise LemmataError("missing-file", "deleted at head", path=change.path)
        blob = self.repo.get(change.new_id)
        assert isinstance(blob, pygit2.Blob)
        return bytes(blob.data)

    def old_bytes(self, change: Change) -> bytes:
        """The file's bytes at base. Raises LemmataError ``missing-file`` when added."""
        if change.old_id is None:
            raise LemmataError("missing-file", "absent at base", path=change.path)
        blob = self.repo.get(change.old_id)
        assert isinstance(blob, pygit2.Blob)
        return bytes(blob.data)


def _commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    try:
        return repo.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {rev!r}: {exc}") from exc


def _subtree(repo: pygit2.Repository, commit: pygit2.Commit, subdir: str) -> pygit2.Tree:
    tree = commit.tree
    if not subdir:
        return tree
    try:
        obj = repo.get(tree[subdir].id)
    except KeyError:
        return repo[repo.TreeBuilder().write()].peel(pygit2.Tree)  # empty: everything is added
    if not isinstance(obj, pygit2.Tree):
        raise LemmataError("not-a-graph", f"{subdir!r} is not a folder")
    return obj


def diff_commits(repo_path: str | Path, base: str, head: str, subdir: str = "") -> Diff:
    """Every path that differs between ``base`` and ``head`` (in ``subdir`` when given).

    Args:
        repo_path: the repository (bare or not).
        base: the revision the pull request is against.
        head: the pull request's head revision.
        subdir: the graph's folder inside the repository, "" for the root.

    Returns:
        A :class:`Diff` whose ``changes`` are sorted by path; ``base``/``head`` are the
        resolved 40-hex commit ids.

    Raises:
        LemmataError: ``git-error``; ``not-a-graph``.
    """
    try:
        repo = pygit2.Repository(str(repo_path))
    except pygit2.GitError as exc:
        raise LemmataError("git-error", f"{repo_path}: {exc}") from exc
    b, h = _commit(repo, base), _commit(repo, head)
    tb, th = _subtree(repo, b, subdir), _subtree(repo, h, subdir)
    changes: list[Change] = []
    for patch_delta in tb.diff_to_tree(th).deltas:
        old, new = patch_delta.old_file, patch_delta.new_file
        zero = "0" * 40
        old_id = None if str(old.id) == zero else str(old.id)
        new_id = None if str(new.id) == zero else str(new.id)
        status: ChangeStatus = (
            "added" if old_id is None else "deleted" if new_id is None else "modified"
        )
        path = new.path if new_id is not None else old.path
        changes.append(Change(path, status, int(new.mode), old_id, new_id))
    changes.sort(key=lambda c: c.path)
    return Diff(repo, str(b.id), str(h.id), changes, subdir)
