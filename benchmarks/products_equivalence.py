"""Check that loading and products stay byte-for-byte the same across a performance change.

Builds, once, four graphs under a work folder: the synthetic graph of
``benchmarks/products.py`` (10,000 nodes by default), the repository's ``graph/``, the
site tests' rich fixture graph (glosses, explainers, variants, closures, shelvings, a
ledger), and a broken copy of the rich graph (malformed YAML and JSON, bytes that are not
UTF-8, wrong schemas, invalid fields, unknown files, a hash mismatch). For each graph it
records every product's bytes (:func:`network.record.products.products.products`), a SHA-256 of the
loaded graph's ``repr`` (every model, every field), and for the broken graph the exact
problem list, each also read at a git commit of the graph.

Usage::

    .venv/bin/python benchmarks/products_equivalence.py --record   # before a change
    .venv/bin/python benchmarks/products_equivalence.py            # after: prints OK or DIFF

Exits 0 on OK, 1 on DIFF (each differing item is named), 3 when there is no baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_WORK = Path("/tmp/lemmata-products-equivalence")


def _build_graphs(work: Path, size: int) -> dict[str, Path]:
    """The graphs to compare, built under ``work`` when absent (each a git repository)."""
    from benchmarks.products import generate
    from tests.graphs import git_commit
    from tests.sitegraph import build_rich_graph

    graphs = {
        f"synthetic-{size}": work / f"synthetic-{size}",
        "repo-graph": work / "repo-graph",
        "rich": work / "rich",
        "broken": work / "broken",
    }
    def done(path: Path) -> Path:
        return path.with_name(path.name + ".done")

    synth = graphs[f"synthetic-{size}"]
    if not done(synth).exists():
        shutil.rmtree(synth, ignore_errors=True)
        synth.mkdir(parents=True)
        generate(synth, size)
        git_commit(synth, "synthetic")
        done(synth).write_text("")
    if not done(graphs["repo-graph"]).exists():
        shutil.rmtree(graphs["repo-graph"], ignore_errors=True)
        shutil.copytree(ROOT / "graph", graphs["repo-graph"])
        git_commit(graphs["repo-graph"], "repo graph")
        done(graphs["repo-graph"]).write_text("")
    if not done(graphs["rich"]).exists():
        shutil.rmtree(graphs["rich"], ignore_errors=True)
        build_rich_graph(graphs["rich"], commit=True)
        done(graphs["rich"]).write_text("")
    broken = graphs["broken"]
    if not done(broken).exists():
        shutil.rmtree(broken, ignore_errors=True)
        build_rich_graph(broken, commit=False)
        _break(broken)
        git_commit(broken, "broken")
        done(broken).write_text("")
    return graphs


def _break(root: Path) -> None:
    """Damage a copy of the rich graph in every way the loader reports."""
    node = root / "targets/demo/nodes/root"
    (node / "literature").mkdir(exist_ok=True)
    (node / "literature/20260301T000000Z-eve.yaml").write_text("schema: literature/v1\nby: [\n")
    (node / "defects").mkdir(exist_ok=True)
    (node / "defects/20260301T000000Z-eve.yaml").write_bytes(b"schema: defect/v1\nx: \xff\xfe\n")
    (node / "shelving").mkdir(exist_ok=True)
    (node / "shelving/20260302T000000Z-eve.yaml").write_text("- a\n- list\n")
    (node / "shelving/20260303T000000Z-eve.yaml").write_text("schema: nonsense/v9\n")
    (node / "shelving/20260304T000000Z-eve.yaml").write_text("schema: gloss/v1\n")
    (node / "withdrawals").mkdir(exist_ok=True)
    (node / "withdrawals/20260305T000000Z-eve.yaml").write_text(
        "schema: withdrawal/v1\nwithdraws: 12\nextra: true\n")
    (node / "stray.txt").write_text("stray\n")
    (node / "attempts/not-an-attempt.lean").write_text("--\n")
    (root / "keys").mkdir(exist_ok=True)
    (root / "keys/k1.json").write_text('{"schema": "key/v1", ')
    (root / "stray-top.txt").write_text("x\n")
    meta = root / "targets/demo/nodes/root--h1/META.yaml"
    if meta.exists():
        meta.write_text(meta.read_text().replace("statement_hash: ", "statement_hash: 00"))
    (root / "targets/demo/nodes/root--h2/Statement.lean").write_bytes(b"\xff\xfe broken\n")
    (root / "targets/demo/nodes/Bad Id").mkdir(parents=True, exist_ok=True)
    (root / "targets/demo/nodes/Bad Id/META.yaml").write_text("schema: meta/v1\n")


def _graph_digest(graph: Any) -> str:
    """SHA-256 of the repr of every loaded part of the graph (models included)."""
    h = hashlib.sha256()
    for name in ("commit", "policy", "curators", "identities", "names", "keys", "merges",
                 "attestations", "ledger", "targets", "files"):
        h.update(name.encode())
        h.update(repr(getattr(graph, name)).encode())
    return h.hexdigest()


def _snapshot(root: Path, commit: str | None) -> dict[str, Any]:
    """Products (as SHA-256 per path), graph digest and problems of one load."""
    from network.errors import ValidationFailed
    from network.record.products.products import products
    from network.record.read.loader import load_graph

    try:
        graph = load_graph(root, commit)
    except ValidationFailed as exc:
        return {"problems": [str(p) for p in exc.problems]}
    return {"digest": _graph_digest(graph),
            "products": {p: hashlib.sha256(b).hexdigest() for p, b in products(graph).items()},
            "bytes": {p: b.decode() for p, b in products(graph).items()}}


def snapshot_all(work: Path, size: int) -> dict[str, Any]:
    """Every graph's snapshot, from its work tree and from its HEAD commit."""
    out: dict[str, Any] = {}
    for name, root in _build_graphs(work, size).items():
        out[f"{name}@worktree"] = _snapshot(root, None)
        out[f"{name}@HEAD"] = _snapshot(root, "HEAD")
    return out


def _compare(want: dict[str, Any], have: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    for key in sorted(set(want) | set(have)):
        a, b = want.get(key), have.get(key)
        if a == b:
            continue
        if a is None or b is None:
            diffs.append(f"{key}: present only {'after' if a is None else 'before'}")
            continue
        for part in sorted(set(a) | set(b)):
            if part == "bytes":
                continue
            if a.get(part) != b.get(part):
                if isinstance(a.get(part), dict) and isinstance(b.get(part), dict):
                    for p in sorted(set(a[part]) | set(b[part])):
                        if a[part].get(p) != b[part].get(p):
                            diffs.append(f"{key}: {part} {p}")
                else:
                    diffs.append(f"{key}: {part}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    """Record a baseline (``--record``) or compare against it; prints OK or DIFF."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the baseline")
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK, help="work folder")
    ap.add_argument("--size", type=int, default=10000, help="synthetic graph size")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    baseline = args.work / f"baseline-{args.size}.json"
    snap = snapshot_all(args.work, args.size)
    if args.record:
        baseline.write_text(json.dumps(snap, sort_keys=True))
        print(f"recorded {baseline}")
        return 0
    if not baseline.exists():
        print(f"no baseline at {baseline}; run with --record first")
        return 3
    diffs = _compare(json.loads(baseline.read_text()), snap)
    if diffs:
        print("DIFF")
        for d in diffs:
            print(f"  {d}")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
