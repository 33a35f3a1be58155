"""Benchmark: import the whole real Formal Conjectures Erdős collection, then build its
products and its static site (issue 12; D-10, D-36).

Unpacks ``tests/fixtures/registries/formal-conjectures-488aade-erdos.tar.gz`` (610 files)
into a temporary folder, commits it there (the importer reads a git HEAD), imports every
file into a copy of ``graph/``, writes the derived products and builds the site. It prints
the seconds of each step and the site's size in bytes, each beside a *floor* measured in the
same run on the same machine:

- import floor: reading every file of the collection from the git HEAD and writing the same
  number of bytes the import writes (no Lean reading, no records);
- products floor: loading the imported graph (every record parsed once), which products
  needs before it derives anything;
- site floor: copying the imported graph's files to another folder (the bytes the site at
  least has to read).

Timings are printed, never asserted.

Usage::

    .venv/bin/python benchmarks/import_full.py
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _size(folder: Path) -> tuple[int, int]:
    """(files, bytes) under ``folder``."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def run() -> dict[str, object]:
    """Run the three steps and their floors; returns the figures."""
    from network.importers import write_files
    from network.importers.formal_conjectures import (
        open_checkout,
        plan_formal_conjectures_import,
        problem_files,
    )
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph
    from network.site.build import build_site
    from network.site.config import SiteConfig
    from tests.importfixtures import fc_real_checkout, graph_copy

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        co_path, _ = fc_real_checkout(base / "fc")
        graph = graph_copy(base)

        t0 = time.perf_counter()
        plan = plan_formal_conjectures_import(co_path, graph)
        write_files(graph, plan.files)
        import_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        co = open_checkout(co_path)
        read = sum(len(co.read(f.path) or b"") for f in problem_files(co, None))
        floor_dir = base / "floor"
        floor_dir.mkdir()
        for k, data in enumerate(plan.files.values()):
            (floor_dir / f"{k}.bin").write_bytes(data)
        import_floor_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        loaded = load_graph(graph)
        products_floor_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_products(load_graph(graph), graph)
        products_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        shutil.copytree(graph, base / "graph-copy")
        site_floor_s = time.perf_counter() - t0
        out = base / "site"
        t0 = time.perf_counter()
        report = build_site(SiteConfig(graph=graph, out=out))
        site_s = time.perf_counter() - t0
        site_files, site_bytes = _size(out)
        graph_files, graph_bytes = _size(graph)
        counts = plan.report["counts"]
        return {
            "files_imported": counts["files_imported"], "files_refused": counts["files_refused"],
            "declarations": counts["declarations"], "targets": len(loaded.targets),
            "graph_files": graph_files, "graph_bytes": graph_bytes, "source_bytes": read,
            "import_s": round(import_s, 2), "import_floor_s": round(import_floor_s, 2),
            "products_s": round(products_s, 2), "products_floor_s": round(products_floor_s, 2),
            "site_s": round(site_s, 2), "site_floor_s": round(site_floor_s, 2),
            "site_pages": len(report.pages), "site_files": site_files, "site_bytes": site_bytes,
            "site_warnings": len(report.warnings),
        }


def main() -> int:
    """Print the figures as one JSON object and a readable summary."""
    res = run()
    print(json.dumps(res))
    print(f"import   {res['import_s']:>8} s  (floor {res['import_floor_s']} s: read the "
          f"sources, write the same bytes)")
    print(f"products {res['products_s']:>8} s  (floor {res['products_floor_s']} s: load the "
          f"graph)")
    print(f"site     {res['site_s']:>8} s  (floor {res['site_floor_s']} s: copy the graph)")
    print(f"site size {res['site_bytes']} bytes in {res['site_files']} files "
          f"(graph {res['graph_bytes']} bytes; {res['targets']} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
