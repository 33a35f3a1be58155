"""Benchmark helpers: the record cache's cold and warm loads beside their floors (issue 17).

* :func:`commit_floor`: the pygit2 floor of a commit load, a tree walk reading every blob.
* :func:`worktree_floor`: reading every file of a work tree.
* :func:`cache_loads`: seconds to load a graph with no cache, with an empty cache (cold:
  every record parsed and written), and with the cache filled (warm: every record a hit).

Used by benchmarks/gate_overhead.py and benchmarks/products.py; timings are printed, never
asserted.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any


def commit_floor(repo: Path, commit: str) -> float:
    """Seconds for a pygit2 walk of ``commit``'s tree reading every blob's bytes."""
    import pygit2

    t0 = time.perf_counter()
    r = pygit2.Repository(str(repo))
    stack = [r.revparse_single(commit).peel(pygit2.Commit).tree]
    total = 0
    while stack:
        tree = stack.pop()
        for entry in tree:
            obj = r.get(entry.id)
            if isinstance(obj, pygit2.Tree):
                stack.append(obj)
            elif isinstance(obj, pygit2.Blob):
                total += len(obj.data)
    return time.perf_counter() - t0


def worktree_floor(root: Path) -> float:
    """Seconds to read every file under ``root`` (``.git`` left out)."""
    t0 = time.perf_counter()
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            with open(os.path.join(folder, name), "rb") as f:
                f.read()
    return time.perf_counter() - t0


def cache_loads(graph: Path, commit: str | None) -> dict[str, Any]:
    """Seconds to load ``graph`` (at ``commit``, or its work tree) without a cache, cold
    (empty cache) and warm (cache filled by the cold load), with the floor and ratios."""
    from network.record.loader import load_graph

    floor = commit_floor(graph, commit) if commit else worktree_floor(graph)
    t0 = time.perf_counter()
    load_graph(graph, commit)
    plain = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="lemmata-cachebench-") as tmp:
        t1 = time.perf_counter()
        load_graph(graph, commit, cache=Path(tmp))
        cold = time.perf_counter() - t1
        t2 = time.perf_counter()
        load_graph(graph, commit, cache=Path(tmp))
        warm = time.perf_counter() - t2
    return {"floor_s": round(floor, 3), "load_s": round(plain, 3),
            "load_cache_cold_s": round(cold, 3), "load_cache_warm_s": round(warm, 3),
            "load_over_floor": round(plain / floor, 2),
            "cache_cold_over_floor": round(cold / floor, 2),
            "cache_warm_over_floor": round(warm / floor, 2)}
