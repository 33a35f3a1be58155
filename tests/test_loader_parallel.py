"""A large work tree is read by two processes (network.record.read.prefetch.Prefetch, started
before the loader lists the tree); the loaded graph and every problem are the same as when
one process reads it. A large graph's products are derived by two processes
(network.record.products.products._TargetsWorker); their bytes are the same as one process's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.record.read import loader, prefetch
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
    from network.record.read import forked

    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)
    assert loader.may_fork() is False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_graph_jsons_rendered_by_a_worker_are_the_same(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from network.record.products import products

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
    from network.record.products import products

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

    from network.record.products import products

    sizes = {"a": 10, "b": 3000, "c": 2500, "d": 2000, "e": 5}
    graph = SimpleNamespace(targets={t: SimpleNamespace(nodes=range(n))
                                     for t, n in sizes.items()})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(products, "may_fork", lambda: True)
        mine, theirs = products._split_targets(graph)  # type: ignore[arg-type]
    # b to this process; then the worker (starting at the catalog's 1500) takes c, this
    # process d, the worker a and e; each side in record order
    assert (mine, theirs) == (["b", "d"], ["a", "c", "e"])


def _worker_reads(root: Path, share: float = 1.0) -> dict[str, Any]:
    """What the worker reads of ``root`` for the later ``share`` of its node folders, read
    in this process (the worker's own function, no fork)."""
    old = prefetch.PARALLEL_MIN_NODES
    prefetch.PARALLEL_MIN_NODES = 0
    try:
        nodes = prefetch.later_nodes(str(root), share)
    finally:
        prefetch.PARALLEL_MIN_NODES = old
    return prefetch._read_nodes(str(root), nodes, os.getppid())


def test_the_worker_reads_nothing_behind_a_link(tmp_path: Path) -> None:
    """A link as ``targets``' target folder, as a target's ``nodes`` or as a node's
    subfolder: the loader refuses each (symlink-refused) and reads nothing behind it; the
    worker neither lists nor reads behind it (found by review: ``targets/zz/nodes -> /``
    had the worker parse every JSON and YAML file of the machine)."""
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    outside = tmp_path / "outside"
    (outside / "n1").mkdir(parents=True)
    (outside / "n1/META.yaml").write_text("schema: meta/v1\n")
    (outside / "nodes/n2").mkdir(parents=True)
    (outside / "nodes/n2/META.yaml").write_text("schema: meta/v1\n")
    (root / "targets/zz").mkdir()
    (root / "targets/zz/nodes").symlink_to(outside, target_is_directory=True)
    (root / "targets/yy").symlink_to(outside, target_is_directory=True)
    (root / "targets/demo/nodes/root/annex").mkdir(exist_ok=True)
    (root / "targets/demo/nodes/root/annex/sub").symlink_to(outside / "n1",
                                                            target_is_directory=True)
    old = prefetch.PARALLEL_MIN_NODES
    prefetch.PARALLEL_MIN_NODES = 0
    try:
        nodes = prefetch.later_nodes(str(root), 1.0)
    finally:
        prefetch.PARALLEL_MIN_NODES = old
    assert nodes and not any(t in ("zz", "yy") for t, _ in nodes)
    read = _worker_reads(root)
    assert read and all(p.startswith("targets/") for p in read)
    assert not any(p.startswith(("targets/zz/", "targets/yy/")) or "/annex/sub/" in p
                   for p in read)
    with pytest.raises(ValidationFailed) as exc:
        loader.load_graph(root)
    assert {p.path for p in exc.value.problems if p.code == "symlink-refused"} >= {
        "targets/zz/nodes", "targets/yy", "targets/demo/nodes/root/annex/sub"}


def test_the_worker_keeps_the_default_limit_when_policy_json_is_too_large(
        tmp_path: Path) -> None:
    """policy.json over the default limit is refused by the loader (file-too-large), which
    keeps the default limit; the worker must too, never reading it whole or trusting its
    ``max_file_bytes`` (found by review: a 1.1 MB policy.json raising the limit had the
    worker parse a 1.2 MB record the loader refuses)."""
    import json

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    policy = json.loads((root / "policy.json").read_text())
    policy["max_file_bytes"] = 10**12
    (root / "policy.json").write_text(json.dumps(policy) + " " * 1_100_000)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert prefetch._max_bytes(fd) == prefetch.DEFAULT_MAX_FILE_BYTES
        (root / "policy.json").write_text(json.dumps(policy))
        assert prefetch._max_bytes(fd) == 10**12
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="fifos only")
def test_the_worker_never_waits_on_a_fifo(tmp_path: Path) -> None:
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    os.mkfifo(root / "targets/demo/nodes/root/Proof.lean")
    fd = os.open(root / "targets/demo/nodes/root", os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert prefetch._read_capped("Proof.lean", fd, 10**6) is None
    finally:
        os.close(fd)
    assert "targets/demo/nodes/root/Proof.lean" not in _worker_reads(root)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_the_worker_stops_once_its_parent_is_gone(tmp_path: Path) -> None:
    from network.record.read.forked import ForkedCall

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    prefetch_nodes = [(t.name, n.name) for t in sorted((root / "targets").iterdir())
                      if (t / "nodes").is_dir() for n in sorted((t / "nodes").iterdir())]
    me = os.getpid()
    assert ForkedCall(lambda: prefetch._read_nodes(str(root), prefetch_nodes, me)).result()
    gone = ForkedCall(lambda: prefetch._read_nodes(str(root), prefetch_nodes, me + 10**6))
    assert gone.result() == {}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_record_nested_near_the_recursion_limit_reads_as_in_one_process(
        tmp_path: Path, parallel: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a deep text hits Python's recursion limit depends on how deep the stack
    already is, and the worker's stack is not the loader's (found by review: a JSON record
    979 deep was malformed in two processes and read in one). The worker leaves such
    texts to the loader."""
    monkeypatch.setattr(prefetch, "PARALLEL_SHARE", 1.0)
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    folder = root / "targets/demo/nodes/root/attempts/precheck"
    folder.mkdir(parents=True, exist_ok=True)
    for i, depth in enumerate((400, 900, 960, 975, 979, 985, 990, 1000)):
        (folder / f"{i:064x}.json").write_text(
            '{"schema": "literature/v1", "x": ' + "[" * depth + "]" * depth + "}")
    two = _snapshot(root)
    assert parallel
    monkeypatch.setattr(prefetch, "PARALLEL_MIN_NODES", 10**9)
    assert _snapshot(root) == two


def test_the_worker_reads_only_what_the_layout_admits(tmp_path: Path) -> None:
    """Files the layout has no place for (a junk folder, a name that is no record, a file
    in a folder deeper than any template) are never read by the loader; the worker must
    not read them either (found by review: 150 JSON files of 1 MB in a junk folder made
    the two-process load 300 times slower)."""
    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    node = root / "targets/demo/nodes/root"
    (node / "junk").mkdir()
    (node / "junk/a.json").write_text("{}")
    (node / "literature").mkdir(exist_ok=True)
    (node / "literature/not-a-record-name.yaml").write_text("a: 1\n")
    deep = node / "attempts/precheck/x/y"
    deep.mkdir(parents=True)
    (deep / ("0" * 64 + ".json")).write_text("{}")
    (node / "Notes.lean").write_text("-- no place\n")
    read = _worker_reads(root)
    assert "targets/demo/nodes/root/META.yaml" in read
    assert not [p for p in read if "/junk/" in p or "not-a-record" in p or "/x/y/" in p
                or p.endswith("Notes.lean")]


def test_the_worker_never_opens_a_device(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader's listing refuses a device without opening it; the worker must not open
    one either (opening some devices has effects; found by review)."""
    import socket

    root = tmp_path / "g"
    build_rich_graph(root, commit=False)
    node = root / "targets/demo/nodes/root"
    sock = socket.socket(socket.AF_UNIX)
    with monkeypatch.context() as here:  # a relative name: a full one may pass 107 bytes
        here.chdir(node)
        sock.bind("Vacuity.lean")  # a name no other node of the graph holds
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(prefetch.os, "open", spy)
    try:
        read = _worker_reads(root)
    finally:
        sock.close()
    assert not list(root.rglob("*/Vacuity.lean"))[1:]
    assert read and "Vacuity.lean" not in opened
