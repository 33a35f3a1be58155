"""The rendered ``GET /frontier.json``, cached so the common request does no JSON work.

The body :func:`network.api.reads.frontier` answers depends on three things only: the
graph snapshot (its committed product), the live claim registry at the instant read
(ruling 13, D-35), and the instant itself through ``live_claims_as_of``. So the route
keeps, per ``(snapshot ETag, registry version, filters)``, the body serialized once with
``live_claims_as_of`` left as a slot, and per second the finished bytes and their ETag.

* The registry version (:func:`network.api.frontier.claims.registry_version`) is one aggregate
  query per request. It changes on every claim, release, renewal and reap by any process
  sharing the database, and it names the earliest live expiry after now: when that moment
  passes the version changes, so an expired claim leaves the overlay at once (D-25).
* ``If-None-Match`` is answered ``304`` from the cached ETag with nothing rendered.
* The bytes are exactly ``json.dumps(network.api.reads.frontier(svc, filters, where), sort_keys=True,
  ensure_ascii=False).encode()`` for the same instant, and the ETag is the one every read
  answers (``"<snapshot>-<sha256(body)[:16]>"``, network/api/app.py); the tests compare
  both paths across a claim, a release and an expiry.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from network.api.frontier import claim_history, claims, frontier_body, frontier_query
from network.api.service import Service, iso

#: Cached bodies kept per service (distinct filters at the current snapshot and registry
#: version; older versions are dropped as soon as a newer one is rendered).
MAX_ENTRIES = 256
#: Bytes of cached bodies kept per service, at most (issue 16: a large frontier times many
#: filter variants must not grow the process without bound).
MAX_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Rendered:
    """One answer: the body's bytes, its ETag and the snapshot ETag it was read from."""

    body: bytes
    etag: str
    snapshot: str


@dataclass
class _Template:
    """A serialized body with ``live_claims_as_of`` cut out: ``head + iso + tail``;
    ``last`` is the most recent second's :class:`Rendered`."""

    head: bytes
    tail: bytes
    snapshot: str
    last: tuple[int, Rendered] | None = None

    @property
    def size(self) -> int:
        """Bytes held: the template and its last rendered body."""
        return 2 * (len(self.head) + len(self.tail))

    def at(self, now: int) -> Rendered:
        last = self.last
        if last is not None and last[0] == now:
            return last[1]
        body = self.head + (iso(now) or "").encode() + self.tail
        out = Rendered(body, etag_of(self.snapshot, body), self.snapshot)
        self.last = (now, out)
        return out


@dataclass
class FrontierCache:
    """The templates of one service, least recently used evicted past
    :data:`MAX_ENTRIES`."""

    templates: OrderedDict[tuple[Any, ...], _Template] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def etag_of(snapshot: str, body: bytes) -> str:
    """The ETag every read answers: ``"<snapshot>-<first 16 hex of sha256(body)>"``."""
    return f'"{snapshot}-{hashlib.sha256(body).hexdigest()[:16]}"'


def serialize(body: Any) -> bytes:
    """A read's body as served: sorted keys, UTF-8, no ASCII escaping."""
    return json.dumps(body, sort_keys=True, ensure_ascii=False).encode()


def _cache(svc: Service) -> FrontierCache:
    cache = svc.extra.get("frontier_cache")
    if not isinstance(cache, FrontierCache):
        cache = svc.extra.setdefault("frontier_cache", FrontierCache())
    assert isinstance(cache, FrontierCache)
    return cache


def _template(svc: Service, product: Any, snapshot: str, now: int,
              filters: dict[str, str] | None, where: tuple[str, ...] = ()) -> _Template:
    body = frontier_body.frontier_overlay(product, claims.registry(svc, now), filters,
                                  claim_history.history(svc, now), where)
    slot = "lemmata-as-of-" + secrets.token_hex(16)
    body["live_claims_as_of"] = slot
    data = serialize(body)
    head, sep, tail = data.partition(slot.encode())
    assert sep and slot.encode() not in tail  # a random slot cannot occur in the data
    return _Template(head, tail, snapshot)


def render(svc: Service, filters: dict[str, str] | None = None,
           where: tuple[str, ...] = ()) -> Rendered:
    """``GET /frontier.json``'s bytes and ETag now: :func:`network.api.reads.frontier` serialized,
    from the cache when the snapshot, the registry version and the query (``filters``
    and ``where``, :mod:`network.api.frontier.frontier_query`) were seen. The claim history
    overlaid (:mod:`network.api.frontier.claim_history`) changes only when the registry version
    does: every claim, release, renewal and reap changes it, and so does the passing of
    the earliest live expiry, the one moment a history item turns from live to expired.

    Returns:
        :class:`Rendered` (UTF-8 JSON bytes, quoted ETag, snapshot ETag).

    Raises:
        LemmataError: as :func:`network.api.reads.frontier` (``graph-unavailable``,
            ``product-missing``, ``malformed-json``).
    """
    snap = svc.graphs.snapshot()
    now = svc.now()
    version = claims.registry_version(svc, now)
    frontier_query.predicates(filters, where)  # refuse a bad query before any work
    key = (snap.etag, version, tuple(sorted((filters or {}).items())), where)
    cache = _cache(svc)
    with cache.lock:
        template = cache.templates.get(key)
        if template is not None:
            cache.templates.move_to_end(key)
    if template is None:
        # The version was read before the registry, so a claim landing in between can only
        # make this body newer than its key: never older (a request that read the old
        # version started before the claim committed).
        template = _template(svc, frontier_body.frontier_product(svc, snap), snap.etag, now, filters,
                             where)
        with cache.lock:
            for old in [k for k in cache.templates if k[:2] != key[:2]]:
                # another snapshot's or an older registry's bodies are never asked again
                del cache.templates[old]
            cache.templates[key] = template
            total = sum(t.size for t in cache.templates.values())
            while len(cache.templates) > MAX_ENTRIES or (
                    total > MAX_BYTES and len(cache.templates) > 1):
                total -= cache.templates.popitem(last=False)[1].size
    return template.at(now)
