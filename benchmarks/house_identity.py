"""What callers see, written out so a restructuring can show it changed nothing (issue 34).

Moving modules between rooms must leave every observable surface byte-identical: the
OpenAPI document, the MCP ``tools/list`` answer, ``graph/errors.json`` and every derived
product of graph/. This writes each, as canonical bytes, into a folder (``--write DIR``),
or compares them with a folder written before (``--compare DIR``) and names every file
that differs.

* ``openapi.json``: ``create_app(...).openapi()`` over a copy of graph/, keys sorted;
* ``tools-list.json``: the MCP server's ``list_tools()``, each tool as its JSON model;
* ``products/<path>``: ``network.record.products.products.products(graph)`` for graph/, which
  holds ``errors.json`` (the catalog) among the rest.

Usage::

    .venv/bin/python benchmarks/house_identity.py --write /tmp/before
    # ... move modules ...
    .venv/bin/python benchmarks/house_identity.py --compare /tmp/before

Exit code 0 when identical (or after ``--write``), 1 when anything differs. It also prints
how many files it compared and how long it took; nothing is timed against a goal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def surfaces(graph_dir: Path) -> dict[str, bytes]:
    """Relative file name → canonical bytes of every surface, for the graph at
    ``graph_dir`` (copied; never written)."""
    import logging

    from network.api.app import create_app
    from network.api.settings import ServiceSettings
    from network.record.products.products import products
    from network.record.read.loader import load_graph

    logging.disable(logging.WARNING)
    out: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="lemmata-house-") as tmp:
        graph = Path(tmp) / "graph"
        shutil.copytree(graph_dir, graph)
        for path, data in products(load_graph(graph)).items():
            out[f"products/{path}"] = data
        app = create_app(ServiceSettings(data_dir=Path(tmp) / "data", graph=graph))
        out["openapi.json"] = json.dumps(app.openapi(), sort_keys=True, indent=1,
                                         ensure_ascii=False).encode()
        tools = asyncio.run(app.state.mcp.list_tools())
        out["tools-list.json"] = json.dumps(
            [t.model_dump(mode="json", exclude_none=True) for t in tools], sort_keys=True,
            indent=1, ensure_ascii=False).encode()
    return out


def main(argv: list[str] | None = None) -> int:
    """Write or compare; 0 identical (or written), 1 on any difference."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, help="write the surfaces into this folder")
    mode.add_argument("--compare", type=Path, help="compare with a folder --write made")
    ap.add_argument("--graph", type=Path, default=ROOT / "graph", help="the graph (graph/)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    now = surfaces(args.graph)
    if args.write:
        for name, data in now.items():
            (args.write / name).parent.mkdir(parents=True, exist_ok=True)
            (args.write / name).write_bytes(data)
        print(f"wrote {len(now)} files to {args.write} ({time.perf_counter() - t0:.1f} s)")
        return 0
    before = {p.relative_to(args.compare).as_posix(): p.read_bytes()
              for p in sorted(args.compare.rglob("*")) if p.is_file()}
    differ = sorted(n for n in now.keys() | before.keys() if now.get(n) != before.get(n))
    for name in differ:
        what = "new" if name not in before else "gone" if name not in now else "differs"
        print(f"  {what:<8} {name}")
    print(f"{len(now)} files now, {len(before)} before: "
          f"{'identical' if not differ else f'{len(differ)} differ'} "
          f"(OpenAPI, tools/list, errors.json, products; {time.perf_counter() - t0:.1f} s)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
