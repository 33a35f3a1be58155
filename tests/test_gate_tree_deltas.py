"""network.gate.diff.tree_deltas gives libgit2's whole-tree diff, path for path, while
reading only the folders the two trees do not share (issue 17): a property over random
pairs of trees (files, executables, links, submodules, folders replaced by files and back,
shared and changed subtrees)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from network.gate.diff import tree_deltas

NAMES = st.sampled_from(["a", "b", "nodes", "x.lean", "META.yaml", "z"])
BLOB = st.tuples(st.sampled_from([0o100644, 0o100755, 0o120000]),
                 st.sampled_from([b"one", b"two", b"three"]))
SUBMODULE = st.just((0o160000, b"0123456789abcdef0123456789abcdef01234567"))
TREES: Any = st.recursive(
    st.one_of(BLOB, SUBMODULE),
    lambda inner: st.dictionaries(NAMES, inner, min_size=1, max_size=4),
    max_leaves=12,
)


def _write(repo: pygit2.Repository, spec: Any) -> pygit2.Oid:
    tb = repo.TreeBuilder()
    for name, item in sorted(spec.items()):
        if isinstance(item, dict):
            tb.insert(name, _write(repo, item), pygit2.enums.FileMode.TREE)
        elif item[0] == 0o160000:
            tb.insert(name, pygit2.Oid(hex=item[1].decode()), item[0])
        else:
            tb.insert(name, repo.create_blob(item[1]), item[0])
    return tb.write()


def _rows(deltas: Any) -> list[tuple[str, str, str, str, int]]:
    return sorted((prefix + d.old_file.path, prefix + d.new_file.path, str(d.old_file.id),
                   str(d.new_file.id), int(d.new_file.mode)) for prefix, d in deltas)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(base=st.dictionaries(NAMES, TREES, min_size=1, max_size=4),
       head=st.dictionaries(NAMES, TREES, min_size=1, max_size=4),
       common=st.dictionaries(NAMES, TREES, max_size=3),
       top=st.booleans())
def test_tree_deltas_are_the_whole_tree_diff(tmp_path: Path, base: Any, head: Any,
                                             common: Any, top: bool) -> None:
    repo = pygit2.Repository(str(tmp_path / "r")) if (tmp_path / "r").exists() else \
        pygit2.init_repository(str(tmp_path / "r"), bare=True)
    # the random trees sit two folders down beside a shared part, so the walk has
    # folders to skip and to enter; with ``top`` they also differ at the root
    b = repo.get(_write(repo, {**common, "targets": {"t": base, "u": common or {"k": (
        0o100644, b"one")}}, **({"a": (0o100644, b"one")} if top else {})}))
    h = repo.get(_write(repo, {**common, "targets": {"t": head, "u": common or {"k": (
        0o100644, b"one")}}}))
    assert isinstance(b, pygit2.Tree) and isinstance(h, pygit2.Tree)
    whole = [("", d) for d in b.diff_to_tree(h).deltas]
    assert _rows(tree_deltas(repo, b, h)) == _rows(whole)
    assert _rows(tree_deltas(repo, h, b)) == _rows([("", d) for d in h.diff_to_tree(b).deltas])
    assert tree_deltas(repo, b, b) == []


def test_only_the_changed_folders_are_diffed(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    big = {f"n{i}": {"META.yaml": (0o100644, b"one")} for i in range(50)}
    b = repo.get(_write(repo, {"targets": {"t": {"nodes": big}}}))
    h = repo.get(_write(repo, {"targets": {"t": {"nodes": {
        **big, "n7": {"META.yaml": (0o100644, b"one"), "Proof.lean": (0o100644, b"two")}}}}}))
    assert isinstance(b, pygit2.Tree) and isinstance(h, pygit2.Tree)
    got = tree_deltas(repo, b, h)
    assert [(p, d.new_file.path) for p, d in got] == [("targets/t/nodes/n7/", "Proof.lean")]
