"""Benchmark: build the static site (D-36) of the 10,000-node synthetic graph and of the
full Erdős import.

Generates the graph of ``benchmarks/products.py`` (targets of at most 1,000 nodes, trees
of routes with rival partials, postmortems and merged proofs) in a temporary directory,
then runs :func:`network.site.build.build_site` on it and prints the seconds of each named
stage, the total, the number of pages, the total bytes written, the largest page (its
path, and whether the 1 MB goal holds) and the peak memory, with the floors beside the
figures as ratios: reading the graph's files (for ``load``) and reading then writing the
output's bytes to as many files (for ``render``, ``check`` and the whole build). With ``--erdos`` it does the same for the whole Formal Conjectures Erdős
collection imported into a copy of ``graph/`` (as ``benchmarks/import_full.py`` does).
Goals (issue 15): no page over 1 MB; the full Erdős site in under 15 s on 2 cores; under
30 s for 10,000 nodes. Timings are printed, never asserted.

Usage::

    .venv/bin/python benchmarks/site_build.py                 # 10,000 nodes
    .venv/bin/python benchmarks/site_build.py --sizes 2000 10000
    .venv/bin/python benchmarks/site_build.py --erdos --sizes
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


PAGE_GOAL_BYTES = 1_000_000
"""Issue 15's goal: no page over 1 MB."""


def _weights(out: Path) -> dict[str, object]:
    """Total bytes under ``out``, its largest HTML page (output-relative path, bytes) and
    how many pages are over :data:`PAGE_GOAL_BYTES`."""
    files = [p for p in out.rglob("*") if p.is_file()]
    pages = sorted(((p.stat().st_size, str(p.relative_to(out))) for p in files
                    if p.suffix == ".html"), reverse=True)
    return {"total_bytes": sum(p.stat().st_size for p in files),
            "largest_page": pages[0][1] if pages else None,
            "largest_page_bytes": pages[0][0] if pages else 0,
            "pages_over_goal": sum(1 for n, _ in pages if n > PAGE_GOAL_BYTES)}


def _floors(graph: Path, out: Path, scratch: Path) -> dict[str, float]:
    """The floors the stages are measured against, in seconds: reading every file of the
    graph (``load``'s floor) and reading every output file and writing the same bytes to
    as many files (``render``'s and ``check``'s floor: a build cannot write its pages
    faster than the disk takes the bytes)."""
    t0 = time.perf_counter()
    for p in graph.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            p.read_bytes()
    read_graph = time.perf_counter() - t0
    t0 = time.perf_counter()
    made: set[Path] = set()
    for p in out.rglob("*"):
        if p.is_file():
            dest = scratch / p.relative_to(out)
            if dest.parent not in made:
                dest.parent.mkdir(parents=True, exist_ok=True)
                made.add(dest.parent)
            dest.write_bytes(p.read_bytes())
    return {"read_graph": read_graph, "copy_output": time.perf_counter() - t0}


def run_one(n_nodes: int) -> dict[str, object]:
    """Generate, then build the site of, a graph of ``n_nodes`` (0: the full Erdős import
    instead); returns the figures."""
    from network.site.build import build_site
    from network.site.config import SiteConfig

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        strict = True
        if n_nodes:
            from benchmarks.products import generate

            graph = Path(tmp) / "graph"
            generate(graph, n_nodes)
        else:
            graph = _erdos(Path(tmp))
            strict = False  # the collection's own TeX has typos: counted, not fatal
        t0 = time.perf_counter()
        report = build_site(SiteConfig(graph=graph, out=out, strict=strict))
        total = time.perf_counter() - t0
        weights = _weights(out)
        floors = _floors(graph, out, Path(tmp) / "floor")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"nodes": n_nodes or "erdos", "pages": len(report.pages), "total_s": round(total, 2),
            **{f"{k}_s": round(v, 2) for k, v in report.timings.items()},
            **weights, "peak_mb": round(peak, 1), "warnings": len(report.warnings),
            "floor_read_graph": round(floors["read_graph"], 3),
            "floor_copy_output": round(floors["copy_output"], 3)}


def _ratio(x: float, floor: float) -> str:
    return f"{x / floor:.1f}x" if floor > 0 else "n/a"


def _erdos(base: Path) -> Path:
    """The whole Erdős collection imported into a copy of ``graph/``, products written."""
    from network.importers import write_files
    from network.importers.formal_conjectures import plan_formal_conjectures_import
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph
    from tests.importfixtures import fc_real_checkout, graph_copy

    co_path, _ = fc_real_checkout(base / "fc")
    graph = graph_copy(base)
    write_files(graph, plan_formal_conjectures_import(co_path, graph).files)
    write_products(load_graph(graph), graph)
    return graph


def main(argv: list[str] | None = None) -> int:
    """Run each size in a fresh subprocess (so peak memory is per size) and print it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000])
    ap.add_argument("--erdos", action="store_true",
                    help="also build the site of the full Erdős import")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(run_one(args.one)))
        return 0
    for n in ([0] if args.erdos else []) + list(args.sizes):
        res = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True,
                             text=True, check=False)
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return res.returncode
        figs = json.loads(res.stdout.strip().splitlines()[-1])
        stages = " ".join(f"{k[:-2]}={v}s" for k, v in figs.items()
                          if k.endswith("_s") and k != "total_s")
        what = f"{n} nodes" if n else "the full Erdős import"
        goal_s = 30.0 if n else 15.0
        total = float(figs["total_s"])
        rw = float(figs["floor_copy_output"])
        over = int(figs["pages_over_goal"])
        print(f"site build, {what}: {total} s total, goal < {goal_s:g} s "
              f"({'met' if total < goal_s else 'missed'}); stages {stages}")
        print(f"  floors: reading the graph {figs['floor_read_graph']} s (load "
              f"{_ratio(float(figs['load_s']), float(figs['floor_read_graph']))} of it); "
              f"reading and writing the output's bytes {rw} s (render "
              f"{_ratio(float(figs['render_s']), rw)}, check {_ratio(float(figs['check_s']), rw)}"
              f", the whole build {_ratio(total, rw)} of it)")
        print(f"  {figs['pages']} pages, {figs['total_bytes']} bytes; largest page "
              f"{figs['largest_page']} ({figs['largest_page_bytes']} bytes); no page over 1 MB: "
              f"{'met' if over == 0 else f'missed ({over} pages over)'}; "
              f"peak {figs['peak_mb']} MB; {figs['warnings']} warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
