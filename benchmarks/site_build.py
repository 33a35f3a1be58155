"""Benchmark: build the static site (D-36) of the 10,000-node synthetic graph.

Generates the graph of ``benchmarks/products.py`` (targets of at most 1,000 nodes, trees
of routes with rival partials, postmortems and merged proofs) in a temporary directory,
then runs :func:`network.site.build.build_site` on it and prints the seconds of each named
stage, the total, the number of pages and the peak memory. The goal is under 30 s for
10,000 nodes on 2 cores. Timings are printed, never asserted.

Usage::

    .venv/bin/python benchmarks/site_build.py                 # 10,000 nodes
    .venv/bin/python benchmarks/site_build.py --sizes 2000 10000
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


def run_one(n_nodes: int) -> dict[str, float]:
    """Generate, then build the site of, a graph of ``n_nodes``; returns the figures."""
    from benchmarks.products import generate
    from network.site.build import build_site
    from network.site.config import SiteConfig

    with tempfile.TemporaryDirectory() as tmp:
        graph, out = Path(tmp) / "graph", Path(tmp) / "site"
        generate(graph, n_nodes)
        t0 = time.perf_counter()
        report = build_site(SiteConfig(graph=graph, out=out, strict=True))
        total = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"nodes": n_nodes, "pages": len(report.pages), "total_s": round(total, 2),
            **{f"{k}_s": round(v, 2) for k, v in report.timings.items()},
            "peak_mb": round(peak, 1), "warnings": len(report.warnings)}


def main(argv: list[str] | None = None) -> int:
    """Run each size in a fresh subprocess (so peak memory is per size) and print it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one)))
        return 0
    for n in args.sizes:
        res = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True,
                             text=True, check=False)
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return res.returncode
        figs = json.loads(res.stdout.strip().splitlines()[-1])
        stages = " ".join(f"{k[:-2]}={v}s" for k, v in figs.items()
                          if k.endswith("_s") and k != "total_s")
        print(f"site build, {n} nodes: {figs['total_s']} s total ({stages}); "
              f"{figs['pages']} pages; peak {figs['peak_mb']} MB; goal < 30 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
