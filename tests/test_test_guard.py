"""The shared test set-up itself (tests/conftest.py): isolation and the write guard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from network.proc import run
from tests.conftest import FIXED_EMAIL, FIXED_NAME, REPO_ROOT


def test_writes_outside_the_temporary_folder_fail(tmp_path: Path) -> None:
    outside = REPO_ROOT / "guard-probe.txt"
    with pytest.raises(PermissionError, match="test guard"):
        outside.write_text("x")
    with pytest.raises(PermissionError, match="test guard"):
        os.open(str(outside), os.O_WRONLY | os.O_CREAT, 0o600)
    with pytest.raises(PermissionError, match="test guard"):
        (REPO_ROOT / "guard-probe-dir").mkdir()
    assert not outside.exists() and not (REPO_ROOT / "guard-probe-dir").exists()
    assert (REPO_ROOT / "pyproject.toml").read_bytes()  # reading is fine
    (tmp_path / "inside.txt").write_text("ok")


def test_runs_in_tmp_path_with_its_own_home(tmp_path: Path) -> None:
    assert Path.cwd() == tmp_path
    assert Path(os.environ["HOME"]).is_relative_to(tmp_path)
    assert not any(v.startswith("GIT_DIR") or v == "GIT_WORK_TREE" for v in os.environ)


def test_git_gets_the_fixed_identity(tmp_path: Path) -> None:
    assert run(["git", "init", "-q", str(tmp_path / "r")]).rc == 0
    name = run(["git", "config", "user.name"], cwd=tmp_path / "r")
    email = run(["git", "config", "user.email"], cwd=tmp_path / "r")
    assert (name.out.strip(), email.out.strip()) == (FIXED_NAME, FIXED_EMAIL)


def test_pygit2_reads_the_test_home(tmp_path: Path) -> None:
    import pygit2

    repo = pygit2.init_repository(str(tmp_path / "r"))
    assert repo.default_signature.name == FIXED_NAME
