"""A large work tree is read by two processes (network.record.loader._Prefetch); the loaded
graph and every problem are the same as when one process reads it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.record import loader
from tests.sitegraph import build_rich_graph


def _snapshot(root: Path) -> Any:
    try:
        g = loader.load_graph(root)
    except ValidationFailed as exc:
        return [str(p) for p in exc.problems]
    return repr([g.policy, g.curators, g.identities, g.names, g.keys, g.merges,
                 g.attestations, g.ledger, g.targets, g.files])


def _break(root: Path) -> None:
    node = root / "targets/demo/nodes/root"
    (node / "literature").mkdir(exist_ok=True)
    (node / "literature/20260301T000000Z-eve.yaml").write_text("schema: literature/v1\nby: [\n")
    (node / "defects").mkdir(exist_ok=True)
    (node / "defects/20260301T000000Z-eve.yaml").write_bytes(b"schema: defect/v1\nx: \xff\n")
    (node / "shelving").mkdir(exist_ok=True)
    (node / "shelving/20260302T000000Z-eve.yaml").write_text("- a list\n")
    (root / "keys").mkdir(exist_ok=True)
    (root / "keys/k1.json").write_text('{"schema": "key/v1", ')
    (root / "targets/demo/nodes/root--h2/Statement.lean").write_bytes(b"\xff broken\n")


@pytest.fixture()
def parallel(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Force the two-process read on small graphs; returns the worker count per load."""
    started: list[int] = []
    real = loader._Prefetch.__init__

    def spy(self: Any, source: Any, paths: list[str]) -> None:
        started.append(len(paths))
        real(self, source, paths)

    monkeypatch.setattr(loader, "PARALLEL_MIN_FILES", 0)
    monkeypatch.setattr(loader, "may_fork", lambda: True)
    monkeypatch.setattr(loader._Prefetch, "__init__", spy)
    return started


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
@pytest.mark.parametrize("broken", [False, True])
def test_two_processes_load_the_same_graph(tmp_path: Path, parallel: list[int],
                                           monkeypatch: pytest.MonkeyPatch,
                                           broken: bool) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    if broken:
        _break(root)
    two = _snapshot(root)
    assert parallel and parallel[0] > 0
    monkeypatch.setattr(loader, "PARALLEL_MIN_FILES", 10**9)
    assert _snapshot(root) == two


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_what_the_worker_fails_to_read_is_read_by_the_loader(
        tmp_path: Path, parallel: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    one = _snapshot(root)
    parent = os.getpid()
    real = loader._read_file

    def flaky(source: Any, path: str, parse: bool) -> Any:
        if os.getpid() != parent and path.endswith((".yaml", ".lean")):
            raise RuntimeError("worker fails")
        return real(source, path, parse)

    monkeypatch.setattr(loader, "_read_file", flaky)
    assert _snapshot(root) == one
    assert parallel


def test_a_threaded_process_reads_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader.threading, "active_count", lambda: 2)
    assert loader.may_fork() is False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_graph_jsons_rendered_by_a_worker_are_the_same(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record import products

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    one = products.products(loader.load_graph(root))
    started: list[list[str]] = []
    real = products._GraphJsonWorker.__init__

    def spy(self: Any, graph: Any, tids: list[str]) -> None:
        started.append(tids)
        real(self, graph, tids)

    monkeypatch.setattr(products, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(products, "may_fork", lambda: True)
    monkeypatch.setattr(products._GraphJsonWorker, "__init__", spy)
    assert products.products(loader.load_graph(root)) == one
    assert started and started[0]
