"""Write and check a graph's products, byte for byte deterministic (docs/record.md).

Products are derived from the record by :mod:`network.record.derive`, regenerated on every
merge and never hand-edited (D-25, D-28, ruling 2):

* ``frontier.json`` (``frontier/v2``): every frontier entry, D-25's fields;
* ``info.json`` (``info/v1``): graph id, "now", counts, gate-spec hashes, schema index;
* ``errors.json`` (``errors/v1``): the error catalog;
* ``targets/index.json`` (``index/v1``): every target with its status;
* ``targets/<id>/graph.json`` (``graph/v1``): nodes, edges, routes, closures, sufficient
  sets, selector and proofs;
* ``schemas/``: the canonical JSON Schemas, copied by ``network.record.schemas`` when that
  module is present (ruling 10).

Every file is ``json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\\n"``
in UTF-8. No wall-clock time, host name or commit id enters a product, so a work tree and
a commit of it give the same bytes, and ``--check`` is stable.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from network.errors import catalog_json
from network.record import derive, pertinence
from network.record.read.forked import ForkedCall
from network.record.read.loader import Graph, gc_paused, may_fork

PRODUCT_VERSION = 1
_GRAPH_JSON_RE = re.compile(r"targets/([^/]+)/graph\.json")


def render(obj: Any) -> bytes:
    """The one serialisation of every product: exactly the bytes of
    ``json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"`` in UTF-8.

    orjson writes that text natively (the standard library falls back to its pure-Python
    encoder whenever ``indent`` is set); ``tests/test_products.py`` holds the two
    byte-equal.

    Raises:
        TypeError: a value JSON cannot carry, a non-string key, or an integer beyond
            64 bits (orjson.JSONEncodeError is a TypeError).
    """
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def _schema_kinds() -> list[str]:
    try:
        schemas = importlib.import_module("network.record.schemas")
    except ImportError:
        return []
    kinds = getattr(schemas, "all_kinds", None)
    return sorted(kinds()) if callable(kinds) else []


def frontier_json(graph: Graph) -> dict[str, Any]:
    """The ``frontier.json`` body: ``{schema, graph_id, as_of, nodes}`` (D-25), written as
    ``frontier/v2``, whose schema requires every D-25 field and its amendments' (issue 18;
    ``frontier/v1`` stays published and unedited, D-34). The committed ``claim_history``
    is empty: the history is service state, overlaid at ``GET /frontier.json``.

    ``as_of`` is the record's "now" (ruling 2); ``nodes`` are :func:`derive.frontier`'s
    entries in the record's order.
    """
    return _frontier_body(graph, derive.frontier(graph))


def _frontier_body(graph: Graph, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"schema": "frontier/v2", "graph_id": graph.policy.graph_id,
            "as_of": derive.now(graph), "nodes": entries}


def info_json(graph: Graph, frontier_size: int | None = None) -> dict[str, Any]:
    """The ``info.json`` body: graph id, product version, "now", the last merge seq,
    counts of targets/nodes/attestations/ledger lines, each target's gate-spec SHA-256 and
    the schema kinds the network publishes (D-28, ruling 10)."""
    nodes = sum(len(t.nodes) for t in graph.targets.values())
    return {
        "schema": "info/v1",
        "graph_id": graph.policy.graph_id,
        "product_version": PRODUCT_VERSION,
        "as_of": derive.now(graph),
        "last_merge_seq": graph.merges[-1].record.seq if graph.merges else 0,
        "counts": {"targets": len(graph.targets), "nodes": nodes,
                   "attestations": len(graph.attestations), "ledger": len(graph.ledger),
                   "frontier": frontier_size if frontier_size is not None
                   else len(derive.frontier(graph))},
        "gate_specs": {tid: t.gate_spec_sha256 for tid, t in graph.targets.items()},
        "ledger_identities": {k: len(v) for k, v in derive.ledger_views(graph).items()},
        "schemas": _schema_kinds(),
    }


def index_json(graph: Graph) -> dict[str, Any]:
    """The ``targets/index.json`` body: ``{schema, as_of, targets}`` with one
    :func:`derive.target_summary` per target, by id, each with the target's panel, its
    motions and its write-ups added (:func:`network.record.panel.target_panel`, D-35
    v3.34: "Reads need nothing")."""
    front = derive.frontier(graph)  # one frontier per index, not per target
    return _index_body(graph, [index_row(graph, tid, front) for tid in graph.targets])


def _index_body(graph: Graph, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"schema": "index/v1", "as_of": derive.now(graph), "targets": rows}


def index_row(graph: Graph, tid: str, frontier: list[dict[str, Any]]) -> dict[str, Any]:
    """One ``targets/index.json`` row: the target's summary, panel, D-28 facts and curator
    facts; ``frontier`` is the whole graph's frontier (each row reads its own target's
    entries). :mod:`network.record.products.incremental` derives rows one by one through it."""
    from network.record import panel

    return {**derive.target_summary(graph, tid), **panel.target_panel(graph, tid),
            **d28_target_facts(graph, tid), **curator_facts(graph, tid, frontier)}


def curator_facts(graph: Graph, tid: str,
                  frontier: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What a curator of the target reads from its index row (issue 18): ``dormancy``, the
    D-33 series at the record's "now" (:func:`network.record.dormancy.dormancy_series`:
    K, N, ready, ready_below_k, last_progress, days_since_progress, meets; None before any
    merge), which a dormancy declaration must name; and ``missing_library``, the nodes
    whose missing-library postmortems reach ``missing_library_threshold`` (D-13: surfaced
    to the curator, nothing created). Additive to index/v1."""
    from network.record import dormancy

    now = derive.now(graph)
    series = dormancy.dormancy_series(graph, tid, now[:10], frontier) if now else None
    items = [{k: v for k, v in i.items() if k != "target"}
             for i in dormancy.missing_library_items(graph, tid)]
    return {"dormancy": series, "missing_library": items}


def d28_target_facts(graph: Graph, tid: str) -> dict[str, Any]:
    """What D-28's list_targets row names beyond the summary: ``root_statement_hash`` (the
    root's META statement hash, None without a root) and ``mathlib`` (the pinned Mathlib
    commit of the target's gate-spec.json, None when it pins none). Additive to index/v1,
    whose rows allow further properties (issue 18, tool/route drift)."""
    from network import ids

    t = graph.targets[tid]
    root = t.nodes.get(ids.ROOT)
    return {"root_statement_hash": root.meta.statement_hash if root else None,
            "mathlib": t.gate_spec.mathlib.rev if t.gate_spec.mathlib else None}


def products(graph: Graph) -> dict[str, bytes]:
    """Every product as graph-relative path → exact bytes (schemas/ excepted).

    Raises:
        Nothing expected: derivations are total over a loaded graph.
    """
    with gc_paused():
        return _products(graph)


def _products(graph: Graph) -> dict[str, bytes]:
    derive.now(graph)  # the index (trust judged once) is built before the worker forks
    mine, theirs = _split_targets(graph)
    worker = _TargetsWorker(graph, theirs) if theirs else None
    try:
        parts = {tid: _target_products(graph, tid) for tid in mine}
        errors = render(catalog_json()) if worker is None else None
        done = worker.result() if worker is not None else {}
    finally:
        if worker is not None:
            worker.close()
    for tid in theirs:
        got = done.get(f"targets/{tid}")
        parts[tid] = got if isinstance(got, TargetProducts) else _target_products(graph, tid)
    if errors is None:
        got_errors = done.get("errors.json")
        errors = got_errors if isinstance(got_errors, bytes) else render(catalog_json())
    entries = [e for tid in graph.targets for e in parts[tid].frontier]
    out: dict[str, bytes] = {
        "frontier.json": render(_frontier_body(graph, entries)),
        "info.json": render(info_json(graph, len(entries))),
        "targets/index.json": render(_index_body(
            graph, [parts[tid].index_row for tid in graph.targets])),
        "errors.json": errors,
    }
    for tid in graph.targets:
        out[f"targets/{tid}/graph.json"] = parts[tid].graph_json
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class TargetProducts:
    """What one target contributes to the products: its :func:`derive.target_frontier`
    entries (its run of ``frontier.json``'s ``nodes``), its ``targets/index.json`` row
    (:func:`index_row`) and its ``graph.json`` bytes. Plain data, so a worker can send it
    whole."""

    frontier: list[dict[str, Any]]
    index_row: dict[str, Any]
    graph_json: bytes


def _target_products(graph: Graph, tid: str) -> TargetProducts:
    """One target's :class:`TargetProducts`: what :func:`frontier_json`, :func:`index_json`
    and the target's graph.json derive for it (a target's derivations read no other
    target's; the index row reads only the target's own frontier entries)."""
    front = derive.target_frontier(graph, tid)
    return TargetProducts(front, index_row(graph, tid, front), _graph_json(graph, tid))


def _graph_json(graph: Graph, tid: str) -> bytes:
    # D-30 v3.12: each related variant's row carries its pertinence signature
    return render(pertinence.annotate_view(graph, tid, derive.graph_view(graph, tid)))


PARALLEL_MIN_NODES = 4000
"""Graphs with at least this many nodes (and two targets) derive their targets' products in
two processes (see :class:`_TargetsWorker`)."""


CATALOG_NODES = 1500
"""About how many nodes' derivations cost what errors.json's catalog costs (the worker
renders it: :func:`network.errors.catalog_json` reads every module not imported yet)."""


def _split_targets(graph: Graph) -> tuple[list[str], list[str]]:
    """(targets this process derives, targets a worker derives), each in record order:
    the targets go, largest first, to whichever side holds fewer nodes so far, the worker
    starting at :data:`CATALOG_NODES` (it also renders errors.json, while this process
    assembles frontier.json, info.json and targets/index.json at the end); everything
    stays here below :data:`PARALLEL_MIN_NODES` nodes or when it may not fork."""
    tids = list(graph.targets)
    sizes = {t: len(graph.targets[t].nodes) for t in tids}
    if len(tids) < 2 or sum(sizes.values()) < PARALLEL_MIN_NODES or not may_fork():
        return tids, []
    load = {"mine": 0, "theirs": CATALOG_NODES}
    side: dict[str, str] = {}
    for t in sorted(tids, key=lambda t: (-sizes[t], t)):
        side[t] = min(load, key=lambda k: (load[k], k))
        load[side[t]] += sizes[t]
    return ([t for t in tids if side[t] == "mine"], [t for t in tids if side[t] == "theirs"])


class _TargetsWorker(ForkedCall[Any]):
    """A forked worker deriving errors.json and some targets' :class:`TargetProducts`
    (keys ``errors.json`` and ``targets/<id>``).

    It starts once the index is built, so it shares the trust already judged; its results
    come back through a pipe, and whatever it did not deliver is derived here."""

    def __init__(self, graph: Graph, tids: list[str]) -> None:
        super().__init__(lambda: {
            "errors.json": render(catalog_json()),
            **{f"targets/{t}": _target_products(graph, t) for t in tids}})


def _stale_graph_jsons(graph: Graph, root: Path | None) -> list[str]:
    """``targets/<id>/graph.json`` files for targets the record no longer has."""
    found: set[str] = set()
    if root is not None and (root / "targets").is_dir():
        for p in (root / "targets").glob("*/graph.json"):
            found.add(p.relative_to(root).as_posix())
    else:
        found.update(p for p in graph.files if _GRAPH_JSON_RE.fullmatch(p))
    return sorted(p for p in found
                  if (mt := _GRAPH_JSON_RE.fullmatch(p)) and mt.group(1) not in graph.targets)


def copy_schemas(root: Path) -> list[str]:
    """Copy the canonical schemas into ``<root>/schemas/`` when ``network.record.schemas``
    provides ``copy_into`` (ruling 10); returns the paths it names, or [] without it."""
    try:
        schemas = importlib.import_module("network.record.schemas")
    except ImportError:
        return []
    copy_into = getattr(schemas, "copy_into", None)
    if not callable(copy_into):
        return []
    return list(copy_into(root))


def write_products(graph: Graph, root: str | Path) -> list[str]:
    """Write every product under ``root`` (the graph's work tree) and return the
    graph-relative paths written, sorted. Files whose bytes are already right are left
    untouched (but still listed); graph.json files of vanished targets are removed.

    Raises:
        OSError: the work tree cannot be written.
    """
    base = Path(root)
    written: list[str] = []
    for path, data in products(graph).items():
        full = base / path
        if not full.is_file() or full.read_bytes() != data:
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_bytes(data)
        written.append(path)
    for stale in _stale_graph_jsons(graph, base):
        (base / stale).unlink()
    written.extend(copy_schemas(base))
    return sorted(set(written))


def check_products(graph: Graph, root: str | Path) -> list[str]:
    """The graph-relative paths of products that differ from what the record derives:
    missing, different bytes, or a graph.json of a target that no longer exists.

    Reads the committed bytes from the graph's own source when it was loaded at a commit,
    else from ``root`` on disk. The schemas/ copy is checked by ``network.record.schemas``.
    """
    base = Path(root)
    differ: list[str] = []
    for path, data in products(graph).items():
        if graph.commit is not None:
            have = graph.source.read(path) if path in graph.files else None
        else:
            full = base / path
            have = full.read_bytes() if full.is_file() else None
        if have != data:
            differ.append(path)
    differ.extend(_stale_graph_jsons(graph, None if graph.commit is not None else base))
    return sorted(set(differ))


def catalog_meanings(graph: Graph) -> dict[str, str]:
    """Catalog code → meaning, as the graph's committed ``errors.json`` (``errors/v1``)
    says; ``{}`` when the graph has none or it does not read as the catalog (the site
    then shows this network's own catalog)."""
    if "errors.json" not in graph.files:
        return {}
    try:
        data = orjson.loads(graph.text("errors.json"))
        return {str(e["code"]): str(e["meaning"]) for e in data.get("errors", [])}
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return {}

