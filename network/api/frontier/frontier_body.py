"""The frontier's body as the service answers it (ruling 13, D-35): the committed
``frontier.json`` of a snapshot, parsed once per snapshot, with the live claim registry and
the claims' history overlaid and the query's filters applied.

The route (:func:`network.api.reads.frontier`), its byte cache
(:mod:`network.api.frontier.frontier_cache`) and its pages (:mod:`network.api.frontier.frontier_page`) all
build on these, so none of them imports another upward (issue 34: no circle).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from network.api.frontier import claim_history, frontier_query
from network.api.graphs import Snapshot, committed_product
from network.api.service import Service
from network.errors import LemmataError
from network.record.read.loader import Graph


def _entries(product: Any) -> list[dict[str, Any]]:
    """The node entries of a frontier product, whatever list key it uses."""
    if isinstance(product, list):
        return [e for e in product if isinstance(e, dict)]
    if isinstance(product, dict):
        for key in ("nodes", "frontier", "entries", "ready"):
            if isinstance(product.get(key), list):
                return [e for e in product[key] if isinstance(e, dict)]
    return []


def frontier_product(svc: Service, snap: Snapshot | None = None) -> Any:
    """The committed ``frontier.json`` of a snapshot, parsed once per snapshot and cached
    (never re-parsed per request); a graph with no committed product gets what
    ``network.record.products.products.frontier_json`` derives from the same snapshot. The answer
    is shared: read it, never mutate it (:func:`frontier_overlay` copies what it changes).

    Raises:
        LemmataError: ``malformed-json``; ``product-missing``; ``graph-unavailable``.
    """
    snap = snap or svc.graphs.snapshot()
    cached = svc.extra.get("frontier_product")
    if cached is not None and cached[0] is snap.graph:
        return cached[1]
    product = committed_product(snap.graph, "frontier.json")
    if product is None:
        product = _derived_frontier(snap.graph)
    svc.extra["frontier_product"] = (snap.graph, product)
    return product


def frontier_overlay(product: Any, live: dict[tuple[str, str], list[dict[str, Any]]],
                     filters: dict[str, str] | None = None,
                     history: dict[tuple[str, str], list[dict[str, Any]]] | None = None,
                     where: Iterable[str] | None = None) -> dict[str, Any]:
    """The frontier body without its ``live_claims_as_of``: ``product`` (left untouched)
    with ``live`` (:func:`claims.registry`'s answer) overlaid on each entry and
    ``filters`` applied (ruling 13, D-35). Each entry gains ``live_claims`` (its holders
    oldest first: pseudonym, claimed_at, expires_at), ``claim_holders`` (how many hold it;
    claims are advisory, so any number may, ruling 14) and ``claimed_since`` (the oldest
    live claim's ``claimed_at``, or None), and its ``claim_status`` becomes ``claimed`` or
    ``unclaimed``. ``history`` (:func:`network.api.frontier.claim_history.history`) becomes each
    entry's ``claim_history`` (newest first-capped, with ``claim_history_total``), overlaid
    the same way (issue 18). ``filters`` and ``where`` are the frontier's query form
    (:mod:`network.api.frontier.frontier_query`), applied after the overlay so every field,
    overlaid ones included, can be asked. Service state only: the committed product stays
    the record's. Pure: the same arguments give an equal body.

    Raises:
        LemmataError: ``frontier-filter-malformed``, ``frontier-filter-unknown-field``.
    """
    preds = frontier_query.predicates(filters, where)
    entries = _entries(product)
    overlaid: dict[int, dict[str, Any]] = {}
    for entry in entries:
        key = (str(entry.get("target")), str(entry.get("node", entry.get("id"))))
        held = live.get(key, [])
        overlaid[id(entry)] = {**entry, "live_claims": held, "claim_holders": len(held),
                               "claimed_since": min((h["claimed_at"] for h in held),
                                                    default=None),
                               "claim_status": "claimed" if held else "unclaimed"}
        if history is not None:
            overlaid[id(entry)] = claim_history.overlay_entry(overlaid[id(entry)],
                                                              history.get(key, []))
    body: dict[str, Any] = dict(product) if isinstance(product, dict) else {"nodes": product}
    for list_key in ("nodes", "frontier", "entries", "ready"):
        if isinstance(body.get(list_key), list):
            items = [overlaid.get(id(e), e) for e in body[list_key]]
            if preds:
                items = [e for e in items if isinstance(e, dict)
                         and frontier_query.keep(e, preds)]
            body[list_key] = items
            break
    return body


def _derived_frontier(graph: Graph) -> Any:
    try:
        products = importlib.import_module("network.record.products.products")
    except ImportError as exc:
        raise LemmataError("product-missing", "the graph has no frontier.json") from exc
    build = getattr(products, "frontier_json", None)
    if build is None:
        raise LemmataError("product-missing", "the graph has no frontier.json")
    return build(graph)
