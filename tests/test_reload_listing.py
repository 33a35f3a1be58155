"""A reload between two commits lists only the folders that changed (issue 17): the
listing :meth:`CommitSource.files_since` gives is exactly :meth:`CommitSource.files`, and
the problems a changed folder holds (a link, a submodule, a hostile name) are reported as a
whole listing reports them."""

from __future__ import annotations

import itertools
from pathlib import Path
from unittest import mock

import pygit2
import pytest

from network.errors import Problem, ValidationFailed
from network.record.products.incremental import changed_paths
from network.record.read.loader import load_graph
from network.record.read.reload import reload_graph
from network.record.read.source import CommitSource
from tests.graphs import git_commit
from tests.test_incremental_products import _World


def _listings(root: Path, before: str, after: str) -> tuple[dict[str, int], list[Problem],
                                                            dict[str, int], list[Problem]]:
    old = CommitSource(root, before)
    listed = old.files([])
    got_problems: list[Problem] = []
    got = CommitSource(root, after).files_since(old, listed, got_problems)
    want_problems: list[Problem] = []
    want = CommitSource(root, after).files(want_problems)
    return got, got_problems, want, want_problems


def _commit_tree(root: Path, parent: str, edits: dict[str, tuple[int, bytes] | None],
                 message: str) -> str:
    """A commit on ``parent`` with ``edits`` applied to its tree (path → (filemode,
    bytes), or None to delete), built with pygit2's index so any mode can be written."""
    repo = pygit2.Repository(str(root))
    index = pygit2.Index()
    index.read_tree(repo.revparse_single(parent).peel(pygit2.Commit).tree)
    for path, edit in edits.items():
        if edit is None:
            index.remove(path)
            continue
        mode, data = edit
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), mode))
    tree = index.write_tree(repo)
    sig = pygit2.Signature("t", "t@example.org", 0, 0)
    return str(repo.create_commit(None, sig, sig, message, tree, [pygit2.Oid(hex=parent)]))


def test_listing_since_equals_a_whole_listing_over_merges(tmp_path: Path) -> None:
    root = tmp_path / "g"
    world = _World(root)
    commits = [git_commit(root, "base")]
    for i, op in enumerate(("proof", "partial", "postmortem", "new_target", "shelving",
                            "ledger", "proof", "partial")):
        world.step(op, i * 7, i % 3)
        commits.append(git_commit(root, op))
    for before, after in itertools.pairwise(commits):
        got, got_problems, want, want_problems = _listings(root, before, after)
        assert got == want and list(got) == list(want)
        assert got_problems == want_problems == []
    # across several commits at once, and backwards
    for before, after in ((commits[0], commits[-1]), (commits[-1], commits[0])):
        got, _, want, _ = _listings(root, before, after)
        assert got == want


def test_changed_folders_report_their_problems(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    blob = pygit2.enums.FileMode.BLOB
    edits: dict[str, tuple[int, bytes] | None] = {
        "targets/alpha/nodes/root/link.lean": (pygit2.enums.FileMode.LINK, b"/etc/passwd"),
        "targets/alpha/nodes/root/bad name.lean": (blob, b"x"),
        "targets/beta/nodes/root/.hidden": (blob, b"x"),
        "targets/beta/target.yaml": None,  # a file gone
        "log/new/deep/file.json": (blob, b"{}"),  # a folder new at the top
    }
    head = _commit_tree(root, base, edits, "hostile")
    got, got_problems, want, want_problems = _listings(root, base, head)
    assert got == want
    assert sorted(map(repr, got_problems)) == sorted(map(repr, want_problems))
    assert {p.code for p in got_problems} == {"symlink-refused", "hostile-path"}
    assert len(got_problems) == 3


def test_a_folder_turned_file_and_back(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    old = CommitSource(root, base).files([])
    stewards = [p for p in old if p.startswith("targets/gamma/stewards/")]
    blob = pygit2.enums.FileMode.BLOB
    edits: dict[str, tuple[int, bytes] | None] = {p: None for p in stewards}
    edits["targets/gamma/stewards"] = (blob, b"now a file")
    flat = _commit_tree(root, base, edits, "folder to file")
    got, _, want, _ = _listings(root, base, flat)
    assert got == want and "targets/gamma/stewards" in got
    got, _, want, _ = _listings(root, flat, base)
    assert got == want and set(stewards) <= set(got)


def test_reload_between_commits_walks_only_changed_folders(tmp_path: Path) -> None:
    root = tmp_path / "g"
    world = _World(root)
    first = git_commit(root, "one")
    old = load_graph(root, first)
    world.step("proof", 1, 1)
    second = git_commit(root, "two")
    changed = changed_paths(root, first, second)
    with mock.patch.object(CommitSource, "files",
                           side_effect=AssertionError("a whole listing")):
        new = reload_graph(old, CommitSource(root, second), changed)
    whole = load_graph(root, second)
    assert new.files == whole.files and new.targets == whole.targets


def test_reload_refuses_a_hostile_file_in_a_changed_folder(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    old = load_graph(root, base)
    link = "targets/alpha/nodes/root/evil.lean"
    head = _commit_tree(root, base, {link: (pygit2.enums.FileMode.LINK, b"/etc/passwd")},
                        "link")
    with pytest.raises(ValidationFailed) as exc:
        reload_graph(old, CommitSource(root, head), {link})
    assert "symlink-refused" in {p.code for p in exc.value.problems}
