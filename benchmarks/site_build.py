"""Benchmark: build the static site (D-36) of the 10,000-node synthetic graph and of the
full Erdős import.

Generates the graph of ``benchmarks/products.py`` (targets of at most 1,000 nodes, trees
of routes with rival partials, postmortems and merged proofs) in a temporary directory,
then runs :func:`network.site.build.build_site` on it and prints the seconds of each named
stage, the total, the number of pages, the total bytes written, the largest page and the
peak memory. With ``--erdos`` it does the same for the whole Formal Conjectures Erdős
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


def _weights(out: Path) -> dict[str, object]:
    """Total bytes under ``out`` and its largest HTML page (output-relative path, bytes)."""
    files = [p for p in out.rglob("*") if p.is_file()]
    pages = sorted(((p.stat().st_size, str(p.relative_to(out))) for p in files
                    if p.suffix == ".html"), reverse=True)
    return {"total_bytes": sum(p.stat().st_size for p in files),
            "largest_page": pages[0][1] if pages else None,
            "largest_page_bytes": pages[0][0] if pages else 0}


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
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"nodes": n_nodes or "erdos", "pages": len(report.pages), "total_s": round(total, 2),
            **{f"{k}_s": round(v, 2) for k, v in report.timings.items()},
            **weights, "peak_mb": round(peak, 1), "warnings": len(report.warnings)}


def _erdos(base: Path) -> Path:
    """The whole Erdős collection imported into a copy of ``graph/``, products written."""
    from network.importers import write_files
    from network.importers.formal_conjectures import plan_formal_conjectures_import
    from network.record.loader import load_graph
    from network.record.products import write_products
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
        goal = "< 30 s" if n else "< 15 s"
        print(f"site build, {what}: {figs['total_s']} s total ({stages}); "
              f"{figs['pages']} pages, {figs['total_bytes']} bytes, largest page "
              f"{figs['largest_page']} ({figs['largest_page_bytes']} bytes; goal < 1 MB); "
              f"peak {figs['peak_mb']} MB; goal {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
