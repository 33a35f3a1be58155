"""Adversarial inputs for the reload's listing between two commits
(:meth:`CommitSource.files_since`) and for derive's index kept on its graph: malformed
trees a push can carry (a name twice in one tree, a name that is not UTF-8), a file that
becomes a symbolic link with the same blob id, and copies of an indexed graph."""

from __future__ import annotations

import copy
import dataclasses
import itertools
from pathlib import Path

import pygit2
import pytest

from network.errors import Problem, ValidationFailed
from network.record import derive
from network.record.derive._index import index_if_built
from network.record.products.incremental import changed_paths
from network.record.read.loader import load_graph
from network.record.read.reload import reload_graph
from network.record.read.source import CommitSource
from tests.graphs import git_commit
from tests.test_incremental_products import _World

_TREE = b"40000"


def _entries(tree: pygit2.Tree) -> list[tuple[bytes, bytes, pygit2.Oid]]:
    """``tree``'s entries as (mode, raw name, id), ready for :func:`_raw_tree`."""
    out = []
    for e in tree:
        mode = _TREE if e.filemode == pygit2.enums.FileMode.TREE else b"%o" % e.filemode
        out.append((mode, (e.name or "").encode("utf-8", "surrogateescape"), e.id))
    return out


def _raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, bytes, pygit2.Oid]]
              ) -> pygit2.Oid:
    """A tree object written byte by byte, in the order given: nothing checks it (a
    duplicate name, a name that is not UTF-8), as a push without fsck can carry it."""
    data = b"".join(mode + b" " + name + b"\0" + oid.raw for mode, name, oid in entries)
    oid = repo.odb.write(pygit2.enums.ObjectType.TREE, data)
    return oid if isinstance(oid, pygit2.Oid) else pygit2.Oid(raw=bytes(oid))


def _commit(repo: pygit2.Repository, tree: pygit2.Oid, parent: str) -> str:
    sig = pygit2.Signature("t", "t@example.org", 0, 0)
    return str(repo.create_commit(None, sig, sig, "m", tree, [pygit2.Oid(hex=parent)]))


def _folder(repo: pygit2.Repository, files: dict[str, bytes]) -> pygit2.Oid:
    tb = repo.TreeBuilder()
    for name, data in files.items():
        tb.insert(name, repo.create_blob(data), pygit2.enums.FileMode.BLOB)
    return tb.write()


def _both(root: Path, before: str, after: str) -> tuple[dict[str, int], list[Problem],
                                                         dict[str, int], list[Problem]]:
    """``after``'s listing since ``before`` (given ``before``'s whole listing when it
    has no problem), and ``after``'s whole listing, each with its problems."""
    old = CommitSource(root, before)
    old_problems: list[Problem] = []
    listed = old.files(old_problems)
    got_problems: list[Problem] = []
    got = (CommitSource(root, after).files_since(old, listed, got_problems)
           if not old_problems else CommitSource(root, after).files(got_problems))
    want_problems: list[Problem] = []
    want = CommitSource(root, after).files(want_problems)
    return got, got_problems, want, want_problems


def test_a_name_twice_in_one_tree_is_refused_and_never_leaks_into_a_later_listing(
        tmp_path: Path) -> None:
    """Found by review: the old commit's root tree named the folder ``zz`` twice (two
    trees), which the whole listing took without a problem (both folders' files listed);
    at the next commit ``zz`` is the first tree alone, its id unchanged, so
    ``files_since`` took over every ``zz/`` file of the old listing, the second tree's
    ``zz/b.json`` too: a file listed that the commit does not hold. A name twice in one
    tree is now refused (git fsck's ``duplicateEntries``), by both listings."""
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    repo = pygit2.Repository(str(root))
    top = _entries(repo.revparse_single(base).peel(pygit2.Commit).tree)
    one, two = _folder(repo, {"a.json": b"1"}), _folder(repo, {"b.json": b"22"})
    twice = _commit(repo, _raw_tree(repo, [*top, (_TREE, b"zz", one), (_TREE, b"zz", two)]),
                    base)
    once = _commit(repo, _raw_tree(repo, [*top, (_TREE, b"zz", one)]), base)
    for before, after in ((twice, once), (once, twice), (base, twice)):
        got, got_problems, want, want_problems = _both(root, before, after)
        assert "zz/b.json" not in got or after == twice
        assert got == want and list(got) == list(want)
        assert got_problems == want_problems
    problems: list[Problem] = []
    CommitSource(root, twice).files(problems)
    assert [(p.code, p.path) for p in problems] == [("hostile-path", "zz")]
    # a file twice, and a name twice deeper down
    dup_file = _commit(repo, _raw_tree(repo, [*top, (b"100644", b"zz.json", one),
                                              (b"100644", b"zz.json", one)]), base)
    deep = _raw_tree(repo, [(_TREE, b"x", one), (_TREE, b"x", one)])
    dup_deep = _commit(repo, _raw_tree(repo, [*top, (_TREE, b"zz", deep)]), base)
    for head, where in ((dup_file, "zz.json"), (dup_deep, "zz/x")):
        for before in (base, once):
            got, got_problems, want, want_problems = _both(root, before, head)
            assert got == want and got_problems == want_problems
            assert [(p.code, p.path) for p in want_problems] == [("hostile-path", where)]


def test_a_name_that_is_not_utf8_is_reported_by_both_listings(tmp_path: Path) -> None:
    """A folder and a file whose names are not UTF-8 (read with surrogate escapes) are
    hostile names in either listing, and looking them up in the old tree does not
    crash."""
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    repo = pygit2.Repository(str(root))
    top = _entries(repo.revparse_single(base).peel(pygit2.Commit).tree)
    one = _folder(repo, {"a.json": b"1"})
    for entry in ((_TREE, b"caf\xe9", one), (b"100644", b"caf\xe9.json",
                                              repo.create_blob(b"x"))):
        head = _commit(repo, _raw_tree(repo, sorted([*top, entry], key=lambda e: e[1])),
                       base)
        got, got_problems, want, want_problems = _both(root, base, head)
        assert got == want and got_problems == want_problems
        assert [p.code for p in got_problems] == ["hostile-path"]


def test_a_file_turned_link_with_the_same_blob_is_refused_on_reload(tmp_path: Path) -> None:
    """A file replaced by a symbolic link whose target text is the file's bytes keeps
    its blob id (only the mode changes, so the path may not count as changed): the
    folder's tree id changes, so the reload walks it and refuses the link."""
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    old = load_graph(root, base)
    repo = pygit2.Repository(str(root))
    path = next(p for p in old.files if p.startswith("targets/alpha/nodes/"))
    index = pygit2.Index()
    index.read_tree(repo.revparse_single(base).peel(pygit2.Commit).tree)
    blob = index[path].id
    index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode.LINK))
    head = _commit(repo, index.write_tree(repo), base)
    with pytest.raises(ValidationFailed) as exc:
        reload_graph(old, CommitSource(root, head), changed_paths(root, base, head))
    assert ("symlink-refused", path) in {(p.code, p.path) for p in exc.value.problems}


def test_an_index_is_never_used_for_another_graph(tmp_path: Path) -> None:
    """``dataclasses.replace`` leaves the copy without an index; ``copy.copy`` carries
    the field over, but the index names its own graph and the copy builds its own."""
    root = tmp_path / "g"
    _World(root)
    g = load_graph(root, git_commit(root, "base"))
    derive.frontier(g)
    ix = index_if_built(g)
    assert ix is not None
    fewer = dataclasses.replace(g, targets={t: g.targets[t] for t in list(g.targets)[:1]})
    assert fewer.derive_index is None and index_if_built(fewer) is None
    assert derive.frontier(fewer) != derive.frontier(g)
    shallow = copy.copy(g)
    assert index_if_built(shallow) is None
    derive.frontier(shallow)
    assert index_if_built(shallow) is not ix and index_if_built(g) is ix


def test_a_graph_in_a_subfolder_reloads_as_it_loads(tmp_path: Path) -> None:
    """A graph in the folder ``g`` of a repository that holds other files, some of them
    in folders named as the graph's (``targets/``): each reload between two commits
    (changed paths made graph-relative) equals a whole load at the later commit, listing
    and records."""
    repo_root = tmp_path / "repo"
    pygit2.init_repository(str(repo_root), initial_head="main")
    world = _World(repo_root / "g")
    (repo_root / "targets" / "alpha").mkdir(parents=True)
    (repo_root / "targets" / "alpha" / "x.json").write_text("{}")
    commits = [git_commit(repo_root, "base")]
    for i, op in enumerate(("proof", "partial", "new_target", "ledger", "proof")):
        world.step(op, i * 5, i % 3)
        (repo_root / "targets" / "alpha" / "x.json").write_text(f'{{"i": {i}}}')
        commits.append(git_commit(repo_root, op))
    graph = repo_root / "g"
    old = load_graph(graph, commits[0])
    for before, after in itertools.pairwise(commits):
        changed = {p[2:] for p in changed_paths(repo_root, before, after)
                   if p.startswith("g/")}
        source = CommitSource(repo_root, after, subdir="g")
        new = reload_graph(old, source, changed)
        whole = load_graph(graph, after)
        assert list(new.files) == list(whole.files) and new.files == whole.files
        assert new.targets == whole.targets and new.merges == whole.merges
        assert new.attestations == whole.attestations and new.ledger == whole.ledger
        old = new


def test_the_service_reloads_a_graph_in_a_subfolder(tmp_path: Path) -> None:
    """Found by review: ``changed_paths`` names repository paths (``g/targets/...``),
    which the reload took for paths outside the layout, so the service's snapshot reload
    of a graph in a subfolder always loaded it whole (and without the record cache).
    The paths are now made graph-relative, a change outside the graph dropped."""
    from unittest import mock

    from network.api.graphs import _load_at
    from network.record.read import reload as R

    repo_root = tmp_path / "repo"
    pygit2.init_repository(str(repo_root), initial_head="main")
    world = _World(repo_root / "g")
    first = git_commit(repo_root, "one")
    world.step("proof", 1, 1)
    (repo_root / "README.md").write_text("outside the graph")
    second = git_commit(repo_root, "two")
    graph = repo_root / "g"
    old = load_graph(graph, first)
    with mock.patch.object(R, "_reload", wraps=R._reload) as inner:
        new = _load_at(graph, second, (first, old))
    assert inner.called
    whole = load_graph(graph, second)
    assert new.files == whole.files and new.targets == whole.targets
    assert new.merges == whole.merges and new.attestations == whole.attestations


def test_an_executable_bit_and_an_unsorted_old_listing(tmp_path: Path) -> None:
    """A file whose mode alone changes (100644 to 100755, one blob id) and an old
    listing given in reverse order: the listing since equals the whole listing, order
    included."""
    root = tmp_path / "g"
    _World(root)
    base = git_commit(root, "base")
    repo = pygit2.Repository(str(root))
    old = CommitSource(root, base)
    listed = old.files([])
    path = next(p for p in listed if p.startswith("targets/beta/nodes/"))
    index = pygit2.Index()
    index.read_tree(repo.revparse_single(base).peel(pygit2.Commit).tree)
    index.add(pygit2.IndexEntry(path, index[path].id, pygit2.enums.FileMode.BLOB_EXECUTABLE))
    head = _commit(repo, index.write_tree(repo), base)
    backwards = dict(reversed(list(listed.items())))
    got_problems: list[Problem] = []
    got = CommitSource(root, head).files_since(old, backwards, got_problems)
    want = CommitSource(root, head).files([])
    assert list(got) == list(want) and got == want and got_problems == []
