"""Helpers for the registry-import tests: fixture checkouts as real git repositories in the
test's temporary folder (STYLE.md rule 8), and a copy of the starting graph."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "registries"
REPO_ROOT = Path(__file__).resolve().parents[1]
FIXED_TIME = 1_790_000_000  # 2026-09-21, the committer date of every fixture commit


def commit_all(repo_dir: Path, message: str = "fixture", when: int = FIXED_TIME) -> str:
    """Commit every file under ``repo_dir`` (initialising the repository if needed)."""
    if (repo_dir / ".git").exists():
        repo = pygit2.Repository(str(repo_dir))
        parents = [repo.head.target]
    else:
        repo = pygit2.init_repository(str(repo_dir), initial_head="main")
        parents = []
    repo.index.add_all()
    repo.index.write()
    tree = repo.index.write_tree()
    sig = pygit2.Signature("Fixture", "fixture@lemmata.invalid", when, 0)
    return str(repo.create_commit("HEAD", sig, sig, message, tree, parents))


def fc_checkout(tmp_path: Path, name: str = "fc") -> tuple[Path, str]:
    """A committed copy of the Formal Conjectures–style fixture; returns (path, commit)."""
    dest = tmp_path / name
    shutil.copytree(FIXTURES / "formal_conjectures", dest)
    return dest, commit_all(dest)


def graph_copy(tmp_path: Path, name: str = "graph") -> Path:
    """A copy of this repository's starting graph (graph/) to import into."""
    dest = tmp_path / name
    shutil.copytree(REPO_ROOT / "graph", dest)
    return dest


FC_REAL_ARCHIVE = FIXTURES / "formal-conjectures-488aade-erdos.tar.gz"
FC_REAL_COMMIT = "488aade228ec37880b8fec178c173c07d279bb53"


def fc_real_checkout(dest: Path) -> tuple[Path, str]:
    """The real Formal Conjectures snapshot (Erdős collection, upstream commit
    :data:`FC_REAL_COMMIT`) unpacked into ``dest`` and committed there, so the importer
    reads it at a git HEAD; returns (path, the scratch commit)."""
    import tarfile

    dest.mkdir(parents=True)
    with tarfile.open(FC_REAL_ARCHIVE) as tar:
        tar.extractall(dest, filter="data")
    return dest, commit_all(dest, f"formal-conjectures {FC_REAL_COMMIT}")
