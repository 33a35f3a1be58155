"""Attacks on the gate's cold run through hostile trees (issue 17): the folder-by-folder
diff (network/gate/diff.py ``tree_deltas``) against libgit2's whole-tree diff, and the
scoped base load (network/record/read/scoped.py) over entries that are no folders.

* A tree may hold two entries of one name (git fsck's ``duplicateEntries``; libgit2 parses
  it). A walk keyed by name sees one of them: the other's change was missed, so a hidden
  edit of a root record rode beside a proof and passed. tree_deltas now gives libgit2's
  deltas for such a folder, and the screen refuses the name (``tree-unreadable``): which
  entry a later reader takes is not defined.
* A submodule (gitlink) among another target's nodes names a commit that is no object of
  the repository: the scoped load's role-signed scan read it and crashed (exit 3), where
  the whole load refuses it as ``hostile-path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pygit2

from network.gate.diff import diff_commits, tree_deltas
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.scoped import load_scoped

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import T, base_repo, precheck_raw, scenarios
from standin import RecordedToolchain

from tests.graphs import GraphBuilder, git_commit

SIG = pygit2.Signature("a", "a@example.org", 0, 0)


def _raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, int, pygit2.Oid]]
              ) -> pygit2.Oid:
    data = b"".join(f"{mode:o} ".encode() + name + b"\0" + oid.raw
                    for name, mode, oid in entries)
    return repo.odb.write(pygit2.enums.ObjectType.TREE, data)


def _commit(repo: pygit2.Repository, tree: pygit2.Oid, parent: str) -> str:
    return str(repo.create_commit(None, SIG, SIG, "hostile", tree, [pygit2.Oid(hex=parent)]))


def _rows(deltas: list[tuple[str, pygit2.DiffDelta]]) -> list[tuple[str, str, str]]:
    return sorted((p + d.old_file.path, p + d.new_file.path, str(d.new_file.id))
                  for p, d in deltas)


def _proof_pr(root: Path) -> tuple[GraphBuilder, str, str]:
    sc = scenarios()["proof-ok"]
    b, base = base_repo(root, **sc.base)
    for path, data in sc.files.items():
        assert data is not None
        b.write(path, data)
    return b, base, git_commit(b.root, "pull request: proof-ok")


def test_a_duplicate_entry_hiding_a_root_record_edit_is_in_the_diff(tmp_path: Path) -> None:
    b, base, head = _proof_pr(tmp_path / "g")
    repo = pygit2.Repository(str(b.root))
    tree = repo.get(head).peel(pygit2.Tree)
    edited = repo.create_blob(b.read("policy.json").replace(b"{", b'{"x": 1, ', 1))
    entries: list[tuple[bytes, int, pygit2.Oid]] = []
    for e in tree:
        if e.raw_name == b"policy.json":  # the edit first, base's bytes last
            entries.append((e.raw_name, int(e.filemode), edited))
        entries.append((e.raw_name or b"", int(e.filemode), e.id))
    hostile = _commit(repo, _raw_tree(repo, entries), head)
    bt = repo.get(base).peel(pygit2.Tree)
    ht = repo.get(hostile).peel(pygit2.Tree)
    whole = [("", d) for d in bt.diff_to_tree(ht).deltas]
    assert any(d.new_file.path == "policy.json" for _p, d in whole)
    assert _rows(tree_deltas(repo, bt, ht)) == _rows(whole)
    d = diff_commits(b.root, base, hostile)
    assert "policy.json" not in {c.path for c in d.changes}  # refused, both entries
    assert [(f.code, f.path) for f in d.entry_findings] == [("tree-unreadable",
                                                              "policy.json")]
    sc = scenarios()["proof-ok"]
    out = run_gate(b.root, base, hostile, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter)
    assert out.verdict == "fail"
    assert "tree-unreadable" in {f.code for f in out.unplaced} | {
        f.code for r in out.runs for st in r.steps for f in st.diagnostics}


def test_a_submodule_among_another_targets_nodes_does_not_crash_the_scoped_load(
        tmp_path: Path) -> None:
    b, _base = base_repo(tmp_path / "g")
    b.target("other")
    b.node("other", "root", statement="theorem Other.main : True := by\n  sorry\n",
           declaration="Other.main")
    clean = git_commit(b.root, "another target")
    repo = pygit2.Repository(str(b.root))

    def put(tree: pygit2.Tree | None, parts: list[str]) -> pygit2.Oid:
        tb = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
        if len(parts) == 1:
            tb.insert(parts[0], pygit2.Oid(hex="ab" * 20), pygit2.enums.FileMode.COMMIT)
        else:
            sub = repo.get(tree[parts[0]].id) if tree is not None else None
            assert sub is None or isinstance(sub, pygit2.Tree)
            tb.insert(parts[0], put(sub, parts[1:]), pygit2.enums.FileMode.TREE)
        return tb.write()
    base = _commit(repo, put(repo.get(clean).peel(pygit2.Tree),
                             ["targets", "other", "nodes", "sub"]), clean)
    g = load_scoped(b.root, base, frozenset({T}))
    assert g is not None and T in g.targets


def test_a_partial_prefix_reaching_into_unread_nodes_is_out_of_scope(tmp_path: Path) -> None:
    """``paths_under`` answers a scoped graph's listing or raises: a prefix that is not a
    whole folder (``targets/oth``, ``targets/other/nod``) also reaches the unread nodes."""
    from network.record.read.loader import load_graph
    from network.record.read.scoped import ScopeExceeded, paths_under

    b, _base = base_repo(tmp_path / "g")
    b.target("other")
    b.node("other", "root", statement="theorem Other.main : True := by\n  sorry\n",
           declaration="Other.main")
    base = git_commit(b.root, "another target")
    g = load_scoped(b.root, base, frozenset({T}))
    whole = load_graph(b.root, commit=base)
    assert g is not None
    for prefix in ("targets/oth", "targets/other/nod", "targets/other/", "targets/",
                   "t", "", "targets/other/nodes/root/"):
        try:
            got = paths_under(g, prefix)
        except ScopeExceeded:
            continue
        assert got == paths_under(whole, prefix), prefix
    assert paths_under(g, "targets/other/target.yaml") == ["targets/other/target.yaml"]
    assert paths_under(g, f"targets/{T}/nodes/") == paths_under(whole, f"targets/{T}/nodes/")
