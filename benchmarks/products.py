"""Benchmark: load a synthetic graph and write all its products.

Generates, in a temporary directory, a graph of N nodes spread over targets of at most
1,000 nodes each. Every target is a tree of routes: a node with children has one merged
partial cutting three holes (every 11th node a second, rival partial with two more), every
fifth node carries a postmortem, every seventh hole a merged proof, and one merge record
and one pass attestation accompany each merged file. It then prints, per size, the seconds
to load the graph (:func:`network.record.read.loader.load_graph`), the seconds to derive and
write every product (:func:`network.record.products.products.write_products`) and the peak memory;
then (``worktree_*``, :mod:`benchmarks.cache_floors`) the work tree's load without a
record cache, through an empty one (cold) and a filled one (warm), beside the floor of
reading every file, as seconds, CPU seconds and ratios to the floor; then
(:func:`fresh_full`, ``fresh_*``) a full rebuild as a new process takes it, the load and
every product, each run beside the record-only read+parse floor taken just before it: the
figure issue 17's "a full rebuild within 2x the read + parse floor" is judged on; then
(:func:`incremental_figures`) the seconds of an incremental update after a one-node merge
beside a full rebuild and the read and read+parse floors, as ratios (issue 17).

Usage::

    .venv/bin/python benchmarks/products.py                 # 10,000 and 100,000 nodes
    .venv/bin/python benchmarks/products.py --sizes 10000   # one size
    .venv/bin/python benchmarks/products.py --sizes 10000 --profile
    .venv/bin/python benchmarks/products.py --graph-dir /tmp/bench  # generate once, reuse

The goal is under 2 s and 500 MB for 10,000 nodes on 2 cores. Peak memory is the process's
maximum resident set size (``resource.getrusage``), so each size runs in a fresh
subprocess; the loader's and the products' forked workers (network.record.read.loader,
network.record.products.products) are reported apart (``peak_worker_rss_mib``, the largest one;
most of its pages are shared with the parent). Timings are printed, never asserted (no
test depends on them). Before and after a performance change,
``benchmarks/products_equivalence.py`` checks that the loaded graphs, problem lists and
product bytes stay the same.

``--graph-dir DIR`` keeps each size's generated graph under ``DIR/<size>`` (100,000 nodes
take minutes to write) and runs on a hard-linked copy of it: the benchmark only adds files
(products, the merges' proofs, attestations and merge records), never rewrites one, so the
kept graph stays as generated.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_NODES = 1000
TOOLCHAIN = "leanprover/lean4:v4.22.0"
GATE_SEED = bytes(range(32))  # fixed keys: the synthetic graph is the same on every run
APPROVAL_SEED = bytes(range(1, 33))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Writer:
    """Writes files fast, with templates instead of YAML dumps."""

    def __init__(self, root: Path) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self.root = root
        self.seq = 0
        self.dirs: set[Path] = set()
        self.gate_key = Ed25519PrivateKey.from_private_bytes(GATE_SEED)
        self.approval_key = Ed25519PrivateKey.from_private_bytes(APPROVAL_SEED)

    def keys(self) -> None:
        """keys/bench-gate.json and keys/bench-approval.json (ruling 14: only what these
        sign counts)."""
        from network.signing import public_key_record

        for key, key_id, kind in ((self.gate_key, "bench-gate", "gate"),
                                  (self.approval_key, "bench-approval", "approval")):
            rec = public_key_record(key, key_id, kind, "2026-01-01")
            self.write(f"keys/{key_id}.json", rec.model_dump_json(
                by_alias=True, exclude_none=True).encode())

    def signed(self, model: Any, rec: dict[str, Any], kind: str, key_id: str,
               signer: str) -> dict[str, Any]:
        """``rec`` with its signature over the model's canonical JSON."""
        from network.signing import sign

        key = self.gate_key if kind == "gate" else self.approval_key
        sig = sign(model.model_validate(rec), key, kind, key_id, signer)
        return {**rec, "signature": sig.model_dump()}

    def write(self, rel: str, data: bytes) -> str:
        full = self.root / rel
        parent = full.parent
        if parent not in self.dirs:
            parent.mkdir(parents=True, exist_ok=True)
            self.dirs.add(parent)
        full.write_bytes(data)
        return rel

    def merged(self, paths: list[str], datas: list[bytes], target: str, node: str,
               date: str) -> None:
        self.seq += 1
        att = {
            "schema": "attestation/v1", "graph_id": "bench", "target": target, "node": node,
            "artifact_kind": "proof",
            "artifacts": [{"path": p, "sha256": _sha(d)} for p, d in zip(paths, datas)],
            "toolchain": TOOLCHAIN, "gate_spec_sha256": "0" * 64, "base_commit": "0" * 40,
            "head_commit": "0" * 40, "graph_commit": f"{self.seq - 1:040x}",
            "verdict": "pass", "steps": [], "timestamp": date,
        }
        from network.record.models import Attestation

        att = self.signed(Attestation, att, "gate", "bench-gate", "gate")
        apath = f"attestations/{self.seq:07d}.json"
        self.write(apath, json.dumps(att).encode())
        rec = {"schema": "merge/v1", "seq": self.seq, "merge_commit": f"{self.seq:040x}",
               "date": date, "pull_request": f"local/{self.seq}", "artifacts": paths,
               "attestation": apath}
        self.write(f"log/merges/{self.seq:06d}.json", json.dumps(rec).encode())


def _date(i: int) -> str:
    day = 1 + i % 28
    month = 1 + (i // 28) % 12
    return f"2026-{month:02d}-{day:02d}T{i % 24:02d}:00:00Z"


def generate(root: Path, n_nodes: int) -> int:
    """Write a synthetic graph of ``n_nodes`` nodes under ``root``; returns the file count."""
    from network.record.models import Steward

    w = _Writer(root)
    w.keys()
    w.write("policy.json", json.dumps({"schema": "policy/v1", "graph_id": "bench"}).encode())
    w.write("curators.json", json.dumps({"schema": "curators/v1", "curators": [
        {"pseudonym": "curator", "targets": ["*"]}]}).encode())
    made = 0
    t_index = 0
    clock = 0
    while made < n_nodes:
        tid = f"bench-{t_index:04d}"
        t_index += 1
        size = min(TARGET_NODES, n_nodes - made)
        w.write(f"targets/{tid}/target.yaml", (
            f"schema: target/v1\nid: {tid}\ntitle: Benchmark target {tid}\n"
            f"class: open-problem\ninformal_statement: A statement.\nlisted: '2026-01-01'\n"
        ).encode())
        w.write(f"targets/{tid}/gate-spec.json", json.dumps(
            {"schema": "gate-spec/v1", "lean_toolchain": TOOLCHAIN}).encode())
        steward = w.signed(Steward, {
            "schema": "steward/v3", "pseudonym": "steve", "target": tid, "real_name": "Steve",
            "since": "2026-01-01", "commitment": "Write it up."}, "approval", "bench-approval",
            "steve")
        w.write(f"targets/{tid}/stewards/steve.yaml", json.dumps(steward).encode())
        queue: list[tuple[str, str | None, str | None, int]] = [("root", None, None, 0)]
        count = 0
        head = 0
        while head < len(queue) and count < size:
            nid, parent, route, k = queue[head]
            head += 1
            count += 1
            clock += 1
            base = f"targets/{tid}/nodes/{nid}"
            stmt = f"theorem t_{count} : True := sorry -- {tid}/{nid}\n".encode()
            w.write(f"{base}/Statement.lean", stmt)
            w.write(f"{base}/Witness.lean", f"example : True := trivial -- {nid}\n".encode())
            meta = (f"schema: meta/v1\nid: '{nid}'\ntarget: {tid}\ndeclaration: t_{count}\n"
                    f"statement_hash: {_sha(stmt)}\n")
            if parent is None:
                meta += "origin: authored\n"
            else:
                meta += (f"origin: compiler-derived\nhole:\n  parent: '{parent}'\n"
                         f"  route: {route}\n  k: {k}\n  name: hole {k}\n")
            w.write(f"{base}/META.yaml", meta.encode())
            if count % 5 == 0:
                ts = f"2026{1 + count % 12:02d}{1 + count % 28:02d}T000000Z"
                w.write(f"{base}/attempts/{ts}-pm{count % 7}-postmortem.yaml", (
                    f"schema: d13/v1\nnode: {tid}/{nid}\ncontributor: pm{count % 7}\n"
                    f"route: a route\nroute_class: induction\noutcome: refuted-route\n"
                    f"terminal_goal_state: '⊢ False'\nfailure_class: route-dead-ends\n"
                ).encode())
            if parent is not None and count % 7 == 0:
                proof = f"-- proof of {nid}\n".encode()
                w.write(f"{base}/Proof.lean", proof)
                w.merged([f"{base}/Proof.lean"], [proof], tid, nid, _date(clock))
                continue
            if len(queue) >= size:
                continue
            n_routes = 2 if count % 11 == 0 else 1
            k_next = 1
            for r in range(n_routes):
                ts = f"202601{1 + r:02d}T{count % 24:02d}0000Z"
                text = f"-- approach: route {r} of {nid}\ntheorem p : True := sorry\n".encode()
                part = w.write(f"{base}/attempts/{ts}-alice{r}-partial.lean", text)
                w.merged([part], [text], tid, nid, _date(clock))
                for _ in range(3 if r == 0 else 2):
                    queue.append((f"{nid}--h{k_next}", nid, part, k_next))
                    k_next += 1
        made += count
    return sum(1 for _ in root.rglob("*") if _.is_file())


def _floors(root: Path) -> dict[str, float]:
    """The floors taken in the same run: seconds to read every record file of the graph
    (``read_floor_s``), and to read, SHA-256 and parse each YAML/JSON record
    (``parse_floor_s``, the C YAML loader and orjson; ``parse_floor_cpu_s`` its CPU
    seconds). Products (:data:`network.record.read.loader.PRODUCT_PATHS_RE`) are left out, as
    a load reads none of them; ``parse_floor_with_products_s`` is the same over every
    file of the folder, products included (how the figures issue 17 was filed with
    read)."""
    import orjson
    import yaml

    from network.record.read.loader import PRODUCT_PATHS_RE

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    every = [p for p in root.rglob("*") if p.is_file()]
    paths = [p for p in every
             if not PRODUCT_PATHS_RE.fullmatch(p.relative_to(root).as_posix())]

    def parse(files: list[Path]) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        for p in files:
            data = p.read_bytes()
            hashlib.sha256(data).hexdigest()
            if p.suffix == ".json":
                orjson.loads(data)
            elif p.suffix == ".yaml":
                yaml.load(data, Loader=loader)
        return time.perf_counter() - t0, time.process_time() - c0

    t0 = time.perf_counter()
    for p in paths:
        p.read_bytes()
    read_s = time.perf_counter() - t0
    parse_s, parse_cpu = parse(paths)
    with_products_s, _ = parse(every)
    return {"read_floor_s": round(read_s, 3), "parse_floor_s": round(parse_s, 3),
            "parse_floor_cpu_s": round(parse_cpu, 3),
            "parse_floor_with_products_s": round(with_products_s, 3)}


def _one_node_merge(root: Path, graph: Any, w: _Writer, date: str) -> set[str]:
    """Merge a proof of one open hole (the first of the middle target) as the post-merge
    job would record it; returns the changed paths."""
    tids = list(graph.targets)
    tid = tids[len(tids) // 2]
    nid = next(n for n, node in graph.targets[tid].nodes.items()
               if node.meta.hole is not None and "Proof" not in node.files)
    path = f"targets/{tid}/nodes/{nid}/Proof.lean"
    proof = f"-- proof of {nid}, merged {date}\n".encode()
    w.write(path, proof)
    w.merged([path], [proof], tid, nid, date)
    return {path, f"attestations/{w.seq:07d}.json", f"log/merges/{w.seq:06d}.json"}


MEASURED_MERGES = 3


def incremental_figures(root: Path, graph: Any) -> dict[str, Any]:
    """Seconds of an incremental products update after a one-node merge
    (:func:`network.record.products.incremental.update_products`) beside a full rebuild of the
    same graph and the floors, as ratios. A first merge dated after every date the
    synthetic record holds settles the clock (a live record's merges are dated in order;
    the generator's are not), then :data:`MEASURED_MERGES` merges land a day apart, each
    update timed from the one before as the service runs them (the graph reloaded by
    :func:`network.record.read.reload.reload_graph`, the previous products the update's own):
    ``incremental_s`` is their median, ``incremental_runs_s`` each. ``load_after_s`` is
    the full load of the last merged graph, which a fresh process needs first, and
    ``reload_after_merge_s`` the same graph reloaded from the graph before it.
    ``*_cpu_s`` are the same steps' CPU seconds (this process and its reaped workers),
    beside the read+parse floor's."""
    import statistics

    from benchmarks.cache_floors import _cpu
    from network.record.products.incremental import update_products_planned
    from network.record.products.products import products
    from network.record.read.loader import load_graph, open_source
    from network.record.read.reload import reload_graph

    w = _Writer(root)
    w.seq = len(graph.merges)
    prev = products(graph)
    changed = _one_node_merge(root, graph, w, "2027-01-01T00:00:00Z")
    old = load_graph(root)
    prev, _plan = update_products_planned(graph, old, changed, prev)
    runs: list[tuple[float, float]] = []
    reloads: list[float] = []
    fulls: list[str] = []
    for i in range(MEASURED_MERGES):
        changed = _one_node_merge(root, old, w, f"2027-01-{i + 2:02d}T00:00:00Z")
        t0 = time.perf_counter()
        new = reload_graph(old, open_source(root), changed)
        reloads.append(time.perf_counter() - t0)
        t0, c0 = time.perf_counter(), _cpu()
        got, plan = update_products_planned(old, new, changed, prev)
        runs.append((time.perf_counter() - t0, _cpu() - c0))
        fulls += [plan.full] if plan.full else []
        old, prev = new, got
    t0, c0 = time.perf_counter(), _cpu()
    merged = load_graph(root)
    load_after_s, load_cpu = time.perf_counter() - t0, _cpu() - c0
    t0, c0 = time.perf_counter(), _cpu()
    want = products(merged)
    full_s, full_cpu = time.perf_counter() - t0, _cpu() - c0
    incr_s = statistics.median(r[0] for r in runs)
    incr_cpu = statistics.median(r[1] for r in runs)
    reload_after_s = reloads[-1]
    floors = _floors(root)
    parse_cpu = floors["parse_floor_cpu_s"] or 1e-9
    parse = floors["parse_floor_s"] or 1e-9
    return {"incremental_s": round(incr_s, 3),
            "incremental_runs_s": [round(r[0], 3) for r in runs],
            "incremental_full_s": round(full_s, 3),
            "incremental_touched": len(plan.touched),
            "incremental_plan_full": "; ".join(fulls),
            "incremental_equal": got == want, "load_after_merge_s": round(load_after_s, 3),
            "reload_after_merge_s": round(reload_after_s, 3),
            **floors,
            "incremental_over_full": round(incr_s / full_s, 3) if full_s else 0.0,
            "incremental_over_parse_floor": round(incr_s / parse, 3),
            "full_over_parse_floor": round(full_s / parse, 3),
            "load_over_parse_floor": round(load_after_s / parse, 3),
            # issue 17's second goal: a full rebuild, loading included, within 2x the floor
            "load_and_full_over_parse_floor": round((load_after_s + full_s) / parse, 3),
            "load_and_full_over_parse_floor_with_products": round(
                (load_after_s + full_s) / (floors["parse_floor_with_products_s"] or 1e-9), 3),
            # CPU seconds (this process and its reaped workers): steadier on a shared host
            "incremental_cpu_s": round(incr_cpu, 3), "incremental_full_cpu_s": round(full_cpu, 3),
            "load_after_merge_cpu_s": round(load_cpu, 3),
            "load_and_full_cpu_over_parse_floor_cpu": round((load_cpu + full_cpu) / parse_cpu,
                                                            3),
            "reload_over_load": round(reload_after_s / load_after_s, 3) if load_after_s else 0.0}


FRESH_RUNS = 3


def _fresh_one(root: Path) -> dict[str, float]:
    """In this (fresh) process: the network's record modules imported, then seconds to
    load ``root`` and derive every product (:func:`network.record.products.products.products`), as
    a post-merge job or ``lemmata products`` run them: no index, trust judgment or catalog
    left by an earlier run in the same process."""
    # imported before the clock starts, as in a real run
    import network.record.dormancy
    import network.record.panel
    import network.record.schemas  # noqa: F401
    from benchmarks.cache_floors import _cpu
    from network.record.products.products import products
    from network.record.read.loader import load_graph

    t0, c0 = time.perf_counter(), _cpu()
    graph = load_graph(root)
    t1 = time.perf_counter()
    products(graph)
    t2, c2 = time.perf_counter(), _cpu()
    return {"load_s": t1 - t0, "products_s": t2 - t1, "cpu_s": c2 - c0}


def fresh_full(root: Path) -> dict[str, Any]:
    """Issue 17's "a full rebuild within 2x the read + parse floor", taken as a new
    process takes it: :data:`FRESH_RUNS` fresh subprocesses each load the graph and derive
    every product (:func:`_fresh_one`), each beside the record-only parse floor taken just
    before it (:func:`_floors`); ``fresh_full_over_parse_floor`` is the median of the
    per-run ratios, ``fresh_full_ratios`` each one, and
    ``fresh_full_over_parse_floor_with_products`` the median against the floor over every
    file of the folder, products included (when the folder holds them)."""
    import statistics

    runs: list[tuple[dict[str, float], float]] = []
    with_products: list[float] = []
    for _ in range(FRESH_RUNS):
        floors = _floors(root)
        with_products.append(floors["parse_floor_with_products_s"] or 1e-9)
        proc = subprocess.run([sys.executable, __file__, "--fresh", str(root)],
                              capture_output=True, text=True, check=True)
        runs.append((json.loads(proc.stdout), floors["parse_floor_s"] or 1e-9))
    ratios = [(r["load_s"] + r["products_s"]) / f for r, f in runs]
    ratios_with = [(r["load_s"] + r["products_s"]) / f
                   for (r, _), f in zip(runs, with_products)]
    return {"fresh_full_s": round(statistics.median(r["load_s"] + r["products_s"]
                                                    for r, _ in runs), 3),
            "fresh_load_s": round(statistics.median(r["load_s"] for r, _ in runs), 3),
            "fresh_products_s": round(statistics.median(r["products_s"] for r, _ in runs), 3),
            "fresh_cpu_s": round(statistics.median(r["cpu_s"] for r, _ in runs), 3),
            "fresh_parse_floor_s": [round(f, 3) for _, f in runs],
            "fresh_full_ratios": [round(x, 3) for x in ratios],
            "fresh_full_over_parse_floor": round(statistics.median(ratios), 3),
            # the same runs against the floor over every file, products included (the
            # floor issue 17 was filed with)
            "fresh_full_over_parse_floor_with_products": round(statistics.median(ratios_with),
                                                               3)}


_DONE = ".generated"


def _graph_into(root: Path, n_nodes: int, keep: Path | None) -> int:
    """Put a synthetic graph of ``n_nodes`` nodes at ``root`` (absent or empty): generated
    there, or, with ``keep``, hard-linked from ``keep/<n_nodes>``, generated first when it
    is not there yet. Returns the graph's file count."""
    if keep is None:
        return generate(root, n_nodes)
    kept = keep / str(n_nodes)
    done = kept / _DONE
    if not done.is_file():
        if kept.exists():
            subprocess.run(["rm", "-rf", str(kept)], check=True)
        kept.mkdir(parents=True)
        done.write_text(str(generate(kept, n_nodes)))
    root.rmdir()
    subprocess.run(["cp", "-al", str(kept), str(root)], check=True)
    (root / _DONE).unlink()
    return int(done.read_text())


def run_one(n_nodes: int, profile: bool, keep: Path | None = None) -> dict[str, Any]:
    """Generate (or, with ``keep``, reuse: :func:`_graph_into`), load and write products
    for one size in this process; returns figures."""
    from network.record.products.products import write_products
    from network.record.read.loader import load_graph

    with tempfile.TemporaryDirectory(prefix="lemmata-bench-") as tmp:
        root = Path(tmp) / "graph"
        root.mkdir()
        t0 = time.perf_counter()
        files = _graph_into(root, n_nodes, keep)
        gen_s = time.perf_counter() - t0
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t1 = time.perf_counter()
        graph = load_graph(root)
        load_s = time.perf_counter() - t1
        t2 = time.perf_counter()
        written = write_products(graph, root)
        write_s = time.perf_counter() - t2
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        from benchmarks.cache_floors import cache_loads

        loads = {f"worktree_{k}": v for k, v in cache_loads(root, None).items()}
        worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        nodes = sum(len(t.nodes) for t in graph.targets.values())
        fresh = fresh_full(root) if not profile else {}
        incr = incremental_figures(root, graph) if not profile else {}
        return {**fresh, **incr, "nodes": nodes, "files": files, "generate_s": round(gen_s, 2),
                "load_s": round(load_s, 3), "products_s": round(write_s, 3),
                "total_s": round(load_s + write_s, 3), "peak_rss_mib": round(peak, 1),
                "rss_before_load_mib": round(rss_before, 1),
                "peak_worker_rss_mib": round(worker_peak, 1), "products": len(written),
                **loads}


def main(argv: list[str] | None = None) -> int:
    """Parse ``--sizes`` and ``--profile``; run each size in a fresh subprocess and print
    one JSON line of figures per size. Returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000",
                    help="comma-separated node counts (default 10000,100000)")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of load+write")
    ap.add_argument("--graph-dir", type=Path,
                    help="keep each size's generated graph here and reuse it")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--fresh", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.fresh is not None:
        print(json.dumps(_fresh_one(args.fresh)))
        return 0
    if args.one is not None:
        print(json.dumps(run_one(args.one, args.profile, args.graph_dir)))
        return 0
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        cmd = [sys.executable, __file__, "--one", str(size)]
        if args.profile:
            cmd.append("--profile")
        if args.graph_dir is not None:
            cmd += ["--graph-dir", str(args.graph_dir.resolve())]
        proc = subprocess.run(cmd, capture_output=not args.profile, text=True, check=False)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        if proc.stdout:
            print(proc.stdout.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
