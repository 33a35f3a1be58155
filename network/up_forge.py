"""The forge ``lemmata up`` serves (D-35: the record is the forge repository's commits):
a LocalForge bare repository seeded from ``graph/`` with its history, one commit per
first-parent commit that changed the graph, and the network's public keys published under
``keys/`` (D-4 v3.27: a verdict counts only when a gate key the graph publishes signs it).
:mod:`network.up` runs it and re-exports every public name here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing

#: The branch the forge serves as the record.
MAIN = "refs/heads/main"


# --- the forge, seeded with graph/'s history --------------------------------------------


def _graph_commits(project: pygit2.Repository, subdir: str) -> list[pygit2.Commit]:
    """First-parent commits of HEAD, oldest first, in which ``subdir`` changed."""
    if project.head_is_unborn:
        return []
    chain: list[pygit2.Commit] = []
    commit: pygit2.Commit | None = project.head.peel(pygit2.Commit)
    while commit is not None:
        chain.append(commit)
        commit = commit.parents[0] if commit.parents else None
    chain.reverse()
    out: list[pygit2.Commit] = []
    last: pygit2.Oid | None = None
    for c in chain:
        try:
            tree_id = c.tree[subdir].id
        except KeyError:
            continue
        if tree_id != last:
            out.append(c)
            last = tree_id
    return out


def _copy_tree(src: pygit2.Repository, dst: pygit2.Repository, tree_id: pygit2.Oid) -> None:
    """Copy a tree and everything under it from ``src``'s object store into ``dst``'s."""
    stack = [tree_id]
    while stack:
        oid = stack.pop()
        if oid in dst.odb:
            continue
        obj = src.odb.read(oid)
        dst.odb.write(obj[0], obj[1])
        if obj[0] == pygit2.enums.ObjectType.TREE:
            for entry in src[oid].peel(pygit2.Tree):
                stack.append(entry.id)


def _holds_blob(repo: pygit2.Repository, tree: pygit2.Tree, path: str, data: bytes) -> bool:
    """Whether ``tree`` holds exactly ``data`` as a file at ``path`` (not a folder, a
    submodule or other bytes there)."""
    if path not in tree:
        return False
    obj = repo.get(tree[path].id)
    return isinstance(obj, pygit2.Blob) and obj.data == data


def seed_forge(forge: Path, graph_dir: Path, *, subdir: str = "graph") -> tuple[str, int]:
    """Create the LocalForge bare repository from ``graph_dir`` with its history.

    When ``graph_dir`` sits in a git work tree whose HEAD holds it, every first-parent
    commit that changed it becomes one commit of the new repository, with the same
    author, committer, dates and message, and the graph folder as its root tree. Files
    not yet committed are added in one last commit. Without git history the folder is
    committed once. An existing repository is left untouched.

    Returns:
        (main's commit id, the number of commits written; 0 when it already existed).

    Raises:
        LemmataError: ``symlink-refused`` or ``hostile-path`` from the folder's files.
    """
    from network.forge.local import LocalForge

    if (forge / "HEAD").exists():
        repo = pygit2.Repository(str(forge))
        return str(repo.references[MAIN].target), 0
    found = pygit2.discover_repository(str(graph_dir))
    project = pygit2.Repository(found) if found else None
    history: list[pygit2.Commit] = []
    if project is not None and project.workdir is not None:
        rel = graph_dir.resolve().relative_to(Path(project.workdir).resolve()).as_posix()
        subdir = rel
        history = _graph_commits(project, subdir)
    if not history:
        sha = LocalForge.seed(forge, graph_dir, message="Seed the graph")
        return sha, 1
    assert project is not None
    repo = pygit2.init_repository(str(forge), bare=True, initial_head="main")
    parent: list[pygit2.Oid] = []
    for c in history:
        tree_id = c.tree[subdir].id
        _copy_tree(project, repo, tree_id)
        oid = repo.create_commit(None, c.author, c.committer, c.message, tree_id, parent)
        parent = [oid]
    repo.references.create(MAIN, parent[0])
    written = len(history)
    # files in the folder that are not committed yet (a developer's work tree)
    head_tree = repo[parent[0]].peel(pygit2.Commit).tree
    on_disk = {p.relative_to(graph_dir).as_posix(): p.read_bytes()
               for p in sorted(graph_dir.rglob("*")) if p.is_file() and not p.is_symlink()}
    changed = {p: b for p, b in on_disk.items() if not _holds_blob(repo, head_tree, p, b)}
    if changed:
        sig = pygit2.Signature("Lemmata", "graph@lemmata.invalid", int(time.time()), 0)
        from network.forge.local import _build_tree

        tree = _build_tree(repo, head_tree, changed)
        oid = repo.create_commit(MAIN, sig, sig, "Uncommitted graph files", tree, parent)
        written += 1
    return str(repo.references[MAIN].target), written


def publish_keys(forge: Any, keys: dict[str, tuple[str, Ed25519PrivateKey]],
                 valid_from: str) -> list[str]:
    """Commit ``keys/<key_id>.json`` for each public half missing from main (D-4, ruling 9).

    Returns the paths committed (empty when every key is already published).
    """
    repo: pygit2.Repository = forge.repo
    tree = repo[forge.main_sha()].peel(pygit2.Commit).tree
    files: dict[str, bytes | None] = {}
    for kind, (key_id, key) in sorted(keys.items()):
        path = f"keys/{key_id}.json"
        if path in tree:
            continue
        rec = signing.public_key_record(key, key_id=key_id, kind=kind, valid_from=valid_from)
        files[path] = (json.dumps(rec.model_dump(by_alias=True, exclude_none=True),
                                  sort_keys=True, indent=2) + "\n").encode()
    if files:
        forge.commit_to_main(files, "Publish the network's public keys")
    return sorted(files)
