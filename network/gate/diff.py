"""The files a pull request changes: a pygit2 tree diff between base and head (D-4 step 2).

Renames are not detected: a rename is a deletion plus an addition, and both are judged.

Before the diff is read, every tree entry the pull request adds or changes is screened
(:func:`screen_tree`): each must be a folder or a regular file blob (mode 100644 or
100755) under a plain portable name. Symbolic links, submodules (gitlinks), other modes,
names with an empty, ``.`` or ``..`` component, a slash, a backslash, a control or format
character, a non-NFC spelling or any character outside ``[A-Za-z0-9_.@-]`` (Unicode
look-alikes among them), trees that cannot be parsed and a folder holding two entries of
one name become findings in
:attr:`Diff.entry_findings`, each with its own catalog code, and their paths leave
:attr:`Diff.changes`, so nothing downstream reads them. The gate refuses them at step 2
with a published attestation (issue 9), never with an exception.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pygit2

from network.errors import LemmataError, define
from network.gate.result import Diagnostic
from network.record.read.source import check_graph_path

define("submodule-in-submission", 2, 422,
       "The pull request adds a submodule (a gitlink tree entry, mode 160000).",
       "Replace it with the files themselves; the record holds regular files only.")
define("tree-entry-not-a-file", 2, 422,
       "A tree entry of the pull request is neither a folder nor a regular file blob "
       "(mode 100644 or 100755).",
       "Commit the file as an ordinary file (git add of a plain file).")
define("tree-unreadable", 2, 422,
       "A tree object of the pull request cannot be parsed (e.g. an entry with an empty "
       "name), so its files cannot be judged.",
       "Rebuild the commit with ordinary git; nothing in it can be merged as it is.")
define("path-dot-segment", 2, 422,
       "A path of the pull request has an empty, `.` or `..` component.",
       "Use a plain relative path inside the graph.")
define("path-control-character", 2, 422,
       "A path of the pull request holds a control or format character (a newline, a "
       "bidirectional override, a zero-width character).",
       "Rename the file with plain characters.")
define("path-backslash", 2, 422, "A path of the pull request holds a backslash.",
       "Use forward slashes between folders and none inside a name.")
define("path-not-portable", 2, 422,
       "A path component is not a plain portable name: a Unicode look-alike, a non-NFC "
       "spelling, bytes that are not UTF-8, a slash inside one tree entry name, a space or "
       "another character outside [A-Za-z0-9_.@-]; or the path is longer than 400 bytes.",
       "Name files and folders as graph/AGENTS.md lists them, in ASCII.")

#: the longest graph path the record holds (``models.GraphPath``), in bytes
MAX_PATH_BYTES = 400
#: the file modes a pull request may add: a regular file, executable or not
BLOB_MODES = frozenset({0o100644, 0o100755})
_TREE_MODE = 0o040000
_LINK_MODE = 0o120000
_GITLINK_MODE = 0o160000

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
    entry_findings: list[Diagnostic] = field(default_factory=list)

    def new_size(self, change: Change) -> int:
        """The size in bytes of the file at head (0 when deleted), read from the object
        header without loading the bytes."""
        if change.new_id is None:
            return 0
        return int(self.repo.odb.read_header(change.new_id)[1])

    def new_bytes(self, change: Change) -> bytes:
        """The file's bytes at head. Raises LemmataError ``missing-file`` when deleted."""
        if change.new_id is None:
            raise LemmataError("missing-file", "deleted at head", path=change.path)
        blob = self.repo.get(change.new_id)
        if not isinstance(blob, pygit2.Blob):
            raise LemmataError("tree-entry-not-a-file", "not a file blob", path=change.path)
        return bytes(blob.data)

    def old_bytes(self, change: Change) -> bytes:
        """The file's bytes at base. Raises LemmataError ``missing-file`` when added."""
        if change.old_id is None:
            raise LemmataError("missing-file", "absent at base", path=change.path)
        blob = self.repo.get(change.old_id)
        if not isinstance(blob, pygit2.Blob):
            raise LemmataError("tree-entry-not-a-file", "not a file blob", path=change.path)
        return bytes(blob.data)


def _commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    try:
        return repo.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {rev!r}: {exc}") from exc


def shown_path(raw: bytes) -> str:
    """A tree path as findings print it: UTF-8 where it decodes, every control, format or
    undecodable character escaped (``a\\nb``, ``bad\\xff``), so an attestation never
    carries the raw bytes."""
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() and unicodedata.category(ch) != "Cf"
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


def name_finding(raw: bytes, path: str) -> Diagnostic | None:
    """Why one tree entry name is refused, as a step-2 finding on ``path``; None when it
    is a plain portable name.

    Codes: ``path-dot-segment``, ``path-control-character``, ``path-backslash``,
    ``path-not-portable``.
    """
    if raw in (b"", b".", b".."):
        return Diagnostic("path-dot-segment", f"the name {raw.decode()!r}", path)
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Diagnostic("path-not-portable", "the name is not UTF-8", path)
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F or unicodedata.category(ch) in ("Cc", "Cf")
           for ch in name):
        return Diagnostic("path-control-character", "a control or format character", path)
    if "\\" in name:
        return Diagnostic("path-backslash", "a backslash in a name", path)
    if "/" in name:
        return Diagnostic("path-not-portable", "a slash inside one tree entry name", path)
    if unicodedata.normalize("NFC", name) != name:
        return Diagnostic("path-not-portable", "a name not in Unicode NFC", path)
    at_root = "/" not in path  # git's own files and .github/ live only at the root
    if check_graph_path(name) is not None or (name.startswith(".") and not (
            at_root and name in (".github", ".gitignore", ".gitattributes"))):
        return Diagnostic("path-not-portable", "a character outside [A-Za-z0-9_.@-] "
                          "(a Unicode look-alike, a space, a leading dot)", path)
    return None


def _tree(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Tree | None:
    """The tree object ``oid``, or None when it is missing or cannot be parsed."""
    try:
        obj = repo.get(oid)
    except (pygit2.GitError, ValueError):
        return None
    return obj if isinstance(obj, pygit2.Tree) else None


def screen_tree(repo: pygit2.Repository, base: pygit2.Tree | None, head: pygit2.Tree,
                prefix: bytes = b"") -> tuple[list[Diagnostic], set[str]]:
    """Every tree entry ``head`` adds or changes against ``base`` that a graph may not hold.

    Args:
        repo: the repository holding both trees.
        base: the tree at the pull request's base (None: everything is new).
        head: the tree at its head.
        prefix: the folder both trees are at, as raw bytes ending in ``/`` (or empty).

    Returns:
        (findings, refused paths as the diff spells them). A refused folder refuses
        everything under it.

    Codes: ``symlink-in-submission``, ``submodule-in-submission``,
    ``tree-entry-not-a-file``, ``tree-unreadable`` (also for a name held by two entries of
    one folder: both are refused) and those of :func:`name_finding`.
    """
    findings: list[Diagnostic] = []
    refused: set[str] = set()
    before = {e.raw_name: (e.filemode, e.id) for e in base} if base is not None else {}
    seen: set[bytes] = set()
    for entry in head:
        raw = entry.raw_name or b""
        mode = int(entry.filemode)
        if raw in seen:  # git fsck's duplicateEntries: which one a reader takes is open
            full = prefix + raw
            findings.append(Diagnostic("tree-unreadable", "a folder holding two entries of "
                                       "one name", shown_path(full)))
            refused.add(full.decode("utf-8", "surrogateescape"))
            continue
        seen.add(raw)
        if before.get(raw) == (entry.filemode, entry.id):
            continue
        full = prefix + raw
        shown = shown_path(full)

        def refuse(code: str, message: str) -> None:
            findings.append(Diagnostic(code, message, shown))  # noqa: B023 - used at once
            refused.add(full.decode("utf-8", "surrogateescape"))  # noqa: B023

        bad = name_finding(raw, shown)
        if bad is None and len(full) > MAX_PATH_BYTES:
            bad = Diagnostic("path-not-portable", f"a path longer than {MAX_PATH_BYTES} "
                             "bytes", shown[:MAX_PATH_BYTES] + "…")
        if bad is not None:
            findings.append(bad)
            refused.add(full.decode("utf-8", "surrogateescape"))
        elif mode == _TREE_MODE:
            sub = _tree(repo, entry.id)
            if sub is None:
                refuse("tree-unreadable", "a folder whose tree object cannot be read")
                continue
            old = before.get(raw)
            base_sub = _tree(repo, old[1]) if old is not None and old[0] == _TREE_MODE else None
            more, gone = screen_tree(repo, base_sub, sub, full + b"/")
            findings.extend(more)
            refused |= gone
        elif mode == _LINK_MODE:
            refuse("symlink-in-submission", "a symbolic link")
        elif mode == _GITLINK_MODE:
            refuse("submodule-in-submission", "a submodule (gitlink)")
        elif mode not in BLOB_MODES:
            refuse("tree-entry-not-a-file", f"tree entry mode {mode:o}")
        else:
            kind = _object_kind(repo, entry.id)
            if kind is None:
                refuse("tree-unreadable", "a file whose object is missing")
            elif kind != pygit2.enums.ObjectType.BLOB:
                refuse("tree-entry-not-a-file", "a file mode naming an object that is not "
                       "a blob")
    return findings, refused


def _object_kind(repo: pygit2.Repository, oid: pygit2.Oid) -> int | None:
    """The object type of ``oid`` from its header, or None when the object is missing."""
    try:
        return int(repo.odb.read_header(oid)[0])
    except (KeyError, ValueError, pygit2.GitError):
        return None


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


def _under(path: str, refused: set[str]) -> bool:
    return path in refused or any(path.startswith(r + "/") for r in refused)


def tree_deltas(repo: pygit2.Repository, base: pygit2.Tree, head: pygit2.Tree,
                prefix: str = "") -> list[tuple[str, pygit2.DiffDelta]]:
    """libgit2's deltas from ``base`` to ``head`` (``Tree.diff_to_tree``), each with the
    folder prefix its paths are relative to, without reading the folders both trees share.

    Where every entry that differs is a folder on both sides (a plain UTF-8 name), the
    walk goes down into those folders alone; anywhere else libgit2 diffs that pair of
    folders as the whole-tree diff would (added, deleted and modified files, type changes,
    submodules), so the deltas are the whole-tree diff's, path for path (a pull request
    changes a few folders; the whole diff reads every folder of a graph, ~1 s at 10,000
    nodes, issue 17).

    Raises:
        pygit2.GitError: a tree cannot be read.
    """
    if base.id == head.id:
        return []
    before = {e.raw_name: e for e in base}
    after = {e.raw_name: e for e in head}
    if len(before) != len(base) or len(after) != len(head):
        # a hostile tree holding two entries of one name: a name-keyed walk would see
        # one of them, so libgit2 diffs this pair of folders entry by entry
        return [(prefix, d) for d in base.diff_to_tree(head).deltas]
    down: list[tuple[str, pygit2.Tree, pygit2.Tree]] = []
    for raw in before.keys() | after.keys():
        a, b = before.get(raw), after.get(raw)
        if a is not None and b is not None and a.filemode == b.filemode and a.id == b.id:
            continue
        name = a.name if a is not None else None
        if (a is None or b is None or name is None or name != b.name
                or a.filemode != pygit2.enums.FileMode.TREE
                or b.filemode != pygit2.enums.FileMode.TREE):
            return [(prefix, d) for d in base.diff_to_tree(head).deltas]
        ta, tb = repo.get(a.id), repo.get(b.id)
        if not isinstance(ta, pygit2.Tree) or not isinstance(tb, pygit2.Tree):
            return [(prefix, d) for d in base.diff_to_tree(head).deltas]
        down.append((f"{prefix}{name}/", ta, tb))
    out: list[tuple[str, pygit2.DiffDelta]] = []
    for sub, ta, tb in down:
        out.extend(tree_deltas(repo, ta, tb, sub))
    return out


def diff_commits(repo_path: str | Path, base: str, head: str, subdir: str = "") -> Diff:
    """Every path that differs between ``base`` and ``head`` (in ``subdir`` when given).

    Args:
        repo_path: the repository (bare or not).
        base: the revision the pull request is against.
        head: the pull request's head revision.
        subdir: the graph's folder inside the repository, "" for the root.

    Returns:
        A :class:`Diff` whose ``changes`` are sorted by path; ``base``/``head`` are the
        resolved 40-hex commit ids; tree entries :func:`screen_tree` refuses are in
        ``entry_findings`` and not in ``changes``.

    Raises:
        LemmataError: ``git-error``; ``not-a-graph``.
    """
    try:
        repo = pygit2.Repository(str(repo_path))
    except pygit2.GitError as exc:
        raise LemmataError("git-error", f"{repo_path}: {exc}") from exc
    b, h = _commit(repo, base), _commit(repo, head)
    tb = _subtree(repo, b, subdir)
    try:
        th = _subtree(repo, h, subdir)
    except pygit2.GitError as exc:
        return Diff(repo, str(b.id), str(h.id), [], subdir,
                    [Diagnostic("tree-unreadable", f"the head tree cannot be read: {exc}")])
    findings, refused = screen_tree(repo, tb, th)
    changes: list[Change] = []
    try:
        deltas = tree_deltas(repo, tb, th)
    except pygit2.GitError as exc:
        findings.append(Diagnostic("tree-unreadable", f"the trees cannot be compared: {exc}"))
        deltas = []
    for prefix, patch_delta in deltas:
        old, new = patch_delta.old_file, patch_delta.new_file
        zero = "0" * 40
        old_id = None if str(old.id) == zero else str(old.id)
        new_id = None if str(new.id) == zero else str(new.id)
        status: ChangeStatus = (
            "added" if old_id is None else "deleted" if new_id is None else "modified"
        )
        path = prefix + (new.path if new_id is not None else old.path)
        if new_id is not None and _under(path, refused):
            continue
        if new_id is not None and int(new.mode) not in BLOB_MODES:  # e.g. 100664, which
            # libgit2 reads as 100644 in a tree walk but the diff reports as written
            findings.append(Diagnostic("tree-entry-not-a-file",
                                       f"tree entry mode {int(new.mode):o}", path))
            continue
        changes.append(Change(path, status, int(new.mode), old_id, new_id))
    changes.sort(key=lambda c: c.path)
    return Diff(repo, str(b.id), str(h.id), changes, subdir, findings)
