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
import resource
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


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (the loader's forked worker)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def cache_loads(graph: Path, commit: str | None) -> dict[str, Any]:
    """Seconds to load ``graph`` (at ``commit``, or its work tree) without a cache, cold
    (empty cache) and warm (cache filled by the cold load), with the floor and ratios;
    ``*_cpu_s`` are the CPU seconds of each load (steadier than wall time on a shared
    machine; the cacheless work-tree load forks a reading worker, counted there)."""
    from network.record.read.loader import load_graph

    floor = commit_floor(graph, commit) if commit else worktree_floor(graph)
    out: dict[str, Any] = {"floor_s": round(floor, 3)}
    with tempfile.TemporaryDirectory(prefix="lemmata-cachebench-") as tmp:
        for label, cache in (("load", None), ("load_cache_cold", Path(tmp)),
                             ("load_cache_warm", Path(tmp))):
            c0, t0 = _cpu(), time.perf_counter()
            load_graph(graph, commit, cache=cache)
            wall, cpu = time.perf_counter() - t0, _cpu() - c0
            out[f"{label}_s"] = round(wall, 3)
            out[f"{label}_cpu_s"] = round(cpu, 3)
            out[f"{label}_over_floor"] = round(wall / floor, 2)
    return out
