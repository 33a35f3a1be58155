"""LocalForge: pull requests as branches plus rows, merges into main (D-35)."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from sqlalchemy.orm import sessionmaker

from network.api.db import Base, make_engine
from network.errors import LemmataError
from network.forge.local import LocalForge


@pytest.fixture()
def forge(tmp_path: Path) -> LocalForge:
    graph = tmp_path / "graph"
    (graph / "targets").mkdir(parents=True)
    (graph / "policy.json").write_text("{}\n")
    LocalForge.seed(tmp_path / "forge.git", graph, when=1_790_000_000)
    engine = make_engine(f"sqlite:///{tmp_path / 'state.db'}")
    Base.metadata.create_all(engine)
    return LocalForge(tmp_path / "forge.git", sessionmaker(engine), clock=lambda: 1_790_000_100)


def read(forge: LocalForge, sha: str, path: str) -> bytes:
    commit = forge.repo.get(sha).peel(pygit2.Commit)
    return bytes(forge.repo.get(commit.tree[path].id).data)


def test_seed_is_idempotent(forge: LocalForge, tmp_path: Path) -> None:
    main = forge.main_sha()
    assert LocalForge.seed(tmp_path / "forge.git", tmp_path / "graph") == main
    assert read(forge, main, "policy.json") == b"{}\n"


def test_open_then_merge_fast_forwards(forge: LocalForge) -> None:
    pr = forge.open_pull_request(files={"targets/a.txt": b"x"}, title="t", body="b",
                                 author="alice", precheck_attestation='{"k": 1}')
    assert pr.state == "open" and pr.branch in forge.repo.references
    commit = forge.repo.get(pr.head_sha)
    assert commit.author.name == "alice" and commit.committer.name == "Lemmata service"
    assert "Signed-off-by: alice" in commit.message
    assert [p.number for p in forge.list_open()] == [pr.number]
    merged = forge.merge(pr.number)
    assert merged.state == "merged" and merged.merge_sha == pr.head_sha == forge.main_sha()
    assert pr.branch not in forge.repo.references
    assert forge.get(pr.number).precheck_attestation == '{"k": 1}'
    with pytest.raises(LemmataError) as exc:
        forge.merge(pr.number)
    assert exc.value.code == "pull-request-closed"


def test_two_prs_merge_with_a_merge_commit(forge: LocalForge) -> None:
    a = forge.open_pull_request(files={"targets/a.txt": b"a"}, title="a", body="", author="al")
    b = forge.open_pull_request(files={"targets/b.txt": b"b"}, title="b", body="", author="bo")
    forge.merge(a.number)
    merged = forge.merge(b.number)
    assert merged.merge_sha != b.head_sha
    assert read(forge, forge.main_sha(), "targets/a.txt") == b"a"
    assert read(forge, forge.main_sha(), "targets/b.txt") == b"b"


def test_conflicting_prs_refuse_to_merge(forge: LocalForge) -> None:
    a = forge.open_pull_request(files={"targets/x.txt": b"1"}, title="a", body="", author="al")
    b = forge.open_pull_request(files={"targets/x.txt": b"2"}, title="b", body="", author="bo")
    forge.merge(a.number)
    with pytest.raises(LemmataError) as exc:
        forge.merge(b.number)
    assert exc.value.code == "merge-conflict"
    assert forge.get(b.number).state == "open"


def test_close_and_delete(forge: LocalForge) -> None:
    pr = forge.open_pull_request(files={"policy.json": None}, title="del", body="", author="al")
    commit = forge.repo.get(pr.head_sha).peel(pygit2.Commit)
    assert "policy.json" not in commit.tree
    assert forge.close(pr.number).state == "closed"
    assert forge.list_open() == []


def test_hostile_paths_are_refused(forge: LocalForge) -> None:
    for bad in ("../x", "/etc/passwd", "a/../b", "dev/$(exit 99)\n"):
        with pytest.raises(LemmataError) as exc:
            forge.open_pull_request(files={bad: b"x"}, title="t", body="", author="al")
        assert exc.value.code == "hostile-path"


def test_unknown_pull_request(forge: LocalForge) -> None:
    with pytest.raises(LemmataError) as exc:
        forge.get(99)
    assert exc.value.code == "pull-request-not-found"


def test_commit_to_main(forge: LocalForge) -> None:
    sha = forge.commit_to_main({"attestations/1.json": b"{}"}, "publish")
    assert forge.main_sha() == sha
