"""A large work tree is read by two processes (network.record.prefetch.Prefetch, started
before the loader lists the tree); the loaded graph and every problem are the same as when
one process reads it. A large graph's products are derived by two processes
(network.record.products._TargetsWorker); their bytes are the same as one process's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.record import loader, prefetch
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
    real = prefetch.Prefetch.__init__

    def spy(self: Any, source: Any, nodes: list[tuple[str, str]]) -> None:
        started.append(len(nodes))
        real(self, source, nodes)

    monkeypatch.setattr(prefetch, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(prefetch, "may_fork", lambda: True)
    monkeypatch.setattr(prefetch.Prefetch, "__init__", spy)
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
    monkeypatch.setattr(prefetch, "PARALLEL_MIN_NODES", 10**9)
    assert _snapshot(root) == two


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_what_the_worker_fails_to_read_is_read_by_the_loader(
        tmp_path: Path, parallel: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    one = _snapshot(root)
    parent = os.getpid()
    real = prefetch.read_file

    def flaky(source: Any, path: str, parse: bool) -> Any:
        if os.getpid() != parent and path.endswith((".yaml", ".lean")):
            raise RuntimeError("worker fails")
        return real(source, path, parse)

    monkeypatch.setattr(prefetch, "read_file", flaky)
    assert _snapshot(root) == one
    assert parallel


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_the_worker_never_reads_what_the_listing_refuses(
        tmp_path: Path, parallel: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside the worker's node folders: links (to a file, to a folder, a node folder that
    is a link), a file over policy.json's size limit, a hostile name, a fifo. The worker
    lists before the loader does; the loader's listing alone decides."""
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    monkeypatch.setattr(prefetch, "PARALLEL_SHARE", 1.0)
    node = root / "targets/demo/nodes/root"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "META.yaml").write_text("schema: meta/v1\n")
    (node / "literature").mkdir(exist_ok=True)
    (node / "literature/20260301T000000Z-eve.yaml").symlink_to(outside / "META.yaml")
    (node / "annex").mkdir(exist_ok=True)
    (node / "annex/linked").symlink_to(outside, target_is_directory=True)
    (root / "targets/demo/nodes/linked").symlink_to(outside, target_is_directory=True)
    (node / "Proof.lean").write_bytes(b"-- " + b"x" * 1_100_000 + b"\n")
    (node / "defects").mkdir(exist_ok=True)
    (node / "defects/20260301T000000Z-e ve.yaml").write_text("schema: defect/v1\n")
    os.mkfifo(node / "defects/20260302T000000Z-eve.yaml")
    two = _snapshot(root)
    assert parallel and parallel[0] > 0
    assert any("symlink-refused" in p for p in two) and any("file-too-large" in p for p in two)
    monkeypatch.setattr(prefetch, "PARALLEL_MIN_NODES", 10**9)
    assert _snapshot(root) == two


def test_a_threaded_process_reads_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record import forked

    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)
    assert loader.may_fork() is False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_graph_jsons_rendered_by_a_worker_are_the_same(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record import products

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    one = products.products(loader.load_graph(root))
    started: list[list[str]] = []
    real = products._TargetsWorker.__init__

    def spy(self: Any, graph: Any, tids: list[str]) -> None:
        started.append(tids)
        real(self, graph, tids)

    monkeypatch.setattr(products, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(products, "CATALOG_NODES", 0)
    monkeypatch.setattr(products, "may_fork", lambda: True)
    monkeypatch.setattr(products._TargetsWorker, "__init__", spy)
    assert products.products(loader.load_graph(root)) == one
    assert started and started[0]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_what_the_products_worker_fails_to_derive_is_derived_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record import products

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    one = products.products(loader.load_graph(root))
    parent = os.getpid()
    real = products._target_products

    def flaky(graph: Any, tid: str) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("worker fails")
        return real(graph, tid)

    monkeypatch.setattr(products, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(products, "CATALOG_NODES", 0)
    monkeypatch.setattr(products, "may_fork", lambda: True)
    monkeypatch.setattr(products, "_target_products", flaky)
    assert products.products(loader.load_graph(root)) == one


def test_targets_are_split_by_nodes_largest_first() -> None:
    from types import SimpleNamespace

    from network.record import products

    sizes = {"a": 10, "b": 3000, "c": 2500, "d": 2000, "e": 5}
    graph = SimpleNamespace(targets={t: SimpleNamespace(nodes=range(n))
                                     for t, n in sizes.items()})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(products, "may_fork", lambda: True)
        mine, theirs = products._split_targets(graph)  # type: ignore[arg-type]
    # b to this process; then the worker (starting at the catalog's 1500) takes c, this
    # process d, the worker a and e; each side in record order
    assert (mine, theirs) == (["b", "d"], ["a", "c", "e"])
