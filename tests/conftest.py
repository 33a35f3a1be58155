"""Shared test set-up (STYLE.md rule 8): real git in temporary directories, a fixed author
identity, and a guard that makes writes outside the test's temporary directories fail.

The guard has three layers, each "where practical":

- every test runs with its working directory in ``tmp_path`` and ``HOME`` (and the XDG
  folders) pointing at a fresh folder there, with a ``.gitconfig`` holding the fixed
  identity, so git and tools write their state inside the test;
- ``GIT_*`` variables that could point git elsewhere are removed and the fixed author and
  committer identity and date are set (pre-commit's ``tests/conftest.py``);
- a Python audit hook refuses, with ``PermissionError``, any file opened for writing, and
  any mkdir, rename, remove or rmdir, outside the temporary folder
  (``tempfile.gettempdir()``, which holds pytest's ``tmp_path``), except Python's own
  bytecode caches. Subprocesses and libgit2 are not covered by the hook; the first layer
  covers them. A test that truly must write elsewhere is marked ``allow_outside_writes``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FIXED_NAME = "Lemmata Test"
FIXED_EMAIL = "test@lemmata.invalid"
FIXED_DATE = "2026-09-21T12:00:00+00:00"
REPO_ROOT = Path(__file__).resolve().parents[1]

_REPO_REAL = os.path.realpath(REPO_ROOT)
_allowed_roots: list[str] = []  # empty: the guard is off (between tests, at collection)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_PATH_EVENTS = {"os.mkdir", "os.remove", "os.rmdir", "os.rename", "os.symlink",
                "os.link", "os.truncate", "os.chmod", "shutil.rmtree", "shutil.copyfile",
                "shutil.move"}


def _outside(path: Any) -> bool:
    if isinstance(path, int) or path is None:
        return False
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    full = os.path.realpath(os.path.abspath(text))
    if "__pycache__" in full or full.startswith("/dev/"):
        return False
    inside = [root for root in _allowed_roots if full == root or full.startswith(root + os.sep)]
    if _REPO_REAL != "/" and (full == _REPO_REAL or full.startswith(_REPO_REAL + os.sep)):
        # the checkout itself is never writable, even when it lies under the temp folder
        # (CI clones into one): only a test's own tmp_path inside it would be
        return not any(root.startswith(_REPO_REAL + os.sep) for root in inside)
    return not inside


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _allowed_roots:
        return
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writes and _outside(path):
            raise PermissionError(f"test guard: write outside the temporary folder: {path}")
    elif event in _PATH_EVENTS:
        targets = args[:2] if event in {"os.rename", "os.link", "os.symlink",
                                        "shutil.copyfile", "shutil.move"} else args[:1]
        for path in targets[1:] if event in {"os.symlink", "os.link", "shutil.copyfile"} \
                else targets:
            if _outside(path):
                raise PermissionError(f"test guard: {event} outside the temporary folder: "
                                      f"{path}")


def pytest_configure(config: pytest.Config) -> None:
    """Register the guard's marker and install the audit hook once per process."""
    config.addinivalue_line(
        "markers", "allow_outside_writes: turn the write guard off for this test")
    if not getattr(sys, "_lemmata_guard_installed", False):
        sys.addaudithook(_audit)
        sys._lemmata_guard_installed = True  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _isolated(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Run each test in ``tmp_path`` with its own HOME, a fixed git identity, and the
    write guard on."""
    home = tmp_path / "_home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f"[user]\n\tname = {FIXED_NAME}\n\temail = {FIXED_EMAIL}\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n", encoding="utf-8")
    for var in [v for v in os.environ if v.startswith("GIT_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", FIXED_NAME)
        monkeypatch.setenv(f"GIT_{who}_EMAIL", FIXED_EMAIL)
        monkeypatch.setenv(f"GIT_{who}_DATE", FIXED_DATE)
    monkeypatch.chdir(tmp_path)
    restore = _point_libgit2_at(home)
    guard = request.node.get_closest_marker("allow_outside_writes") is None
    if guard:
        _allowed_roots[:] = sorted({os.path.realpath(tempfile.gettempdir()),
                                    os.path.realpath(tmp_path)})
    try:
        yield
    finally:
        _allowed_roots.clear()
        restore()


def _point_libgit2_at(home: Path) -> Callable[[], None]:
    """Point libgit2's global config search path at the test HOME; returns the undo."""
    import pygit2

    level = pygit2.enums.ConfigLevel.GLOBAL
    old = pygit2.settings.search_path[level]
    pygit2.settings.search_path[level] = str(home)

    def restore() -> None:
        pygit2.settings.search_path[level] = old

    return restore


@pytest.fixture()
def repo_root() -> Path:
    """The root of this repository (read-only for tests)."""
    return REPO_ROOT


@pytest.fixture()
def graph_builder(tmp_path: Path) -> Any:
    """A :class:`tests.graphs.GraphBuilder` over ``tmp_path / "g"`` with policy.json and
    curators.json written (``base()``)."""
    from tests.graphs import GraphBuilder

    return GraphBuilder(tmp_path / "g").base()


@pytest.fixture()
def signing_key(tmp_path: Path) -> Any:
    """A fresh Ed25519 gate key, its ``key/v1`` record valid from 2026-01-01, as
    ``(private_key, PublicKey)``; key id ``gate-test``."""
    from network.signing import generate_private_key, public_key_record

    key = generate_private_key(tmp_path / "gate.pem")
    return key, public_key_record(key, "gate-test", "gate", "2026-01-01")


@pytest.fixture()
def one_route_graph(tmp_path: Path) -> Any:
    """A small valid graph under ``tmp_path / "g"``: target ``demo``, its root, a merged
    partial cutting one hole ``root--h1``."""
    from tests.graphs import GraphBuilder

    g = GraphBuilder(tmp_path / "g").base()
    g.target("demo")
    g.node("demo", "root")
    part = g.partial("demo", "root", "20260102T000000Z", "alice")
    g.hole("demo", "root", 1, part)
    g.merge([part], date="2026-01-02")
    return g
