"""Pages and field selection over the served frontier (issue 17 "Products and bundles
that travel light"; D-28 list_frontier, D-35).

``GET /frontier.json`` with any of ``limit``, ``cursor`` or ``fields`` answers one page of
the same entries, in the same order, that the plain route answers for the same filters
(``k=v`` and ``where=``, :mod:`network.api.frontier.frontier_query`); the committed product and the
unpaged route stay complete. A page is the frontier body with its entry list cut to the
page, each entry cut to ``fields`` when given, and ``page``:

``{"limit": n, "offset": first index, "total": entries matching, "next_cursor": text or
null, "fields": [..] or null}``

* ``limit``: 1 to :data:`MAX_LIMIT` entries, default :data:`DEFAULT_LIMIT`.
* ``fields``: comma-separated (or repeated) frontier/v2 entry fields; ``target`` and
  ``node`` are always kept, so each row still names its node.
* ``cursor``: the previous page's ``next_cursor``, opaque (URL-safe base64 of a small JSON
  object). It names the query it belongs to (a digest of the filters, predicates and
  fields) and the last entry it answered, so a cursor of another query is refused, and a
  frontier that moved between pages resumes after that entry rather than skipping or
  repeating one; when that entry is gone the cursor is stale.

Refusals (all 4xx, catalog-coded; a hostile cursor never reaches a 500):
``frontier-page-invalid`` (a limit not an integer in range, an unknown field),
``frontier-cursor-invalid`` (not a cursor this service made, or another query's),
``frontier-cursor-stale`` (its entry is no longer in the frontier).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import Any

from network.api.frontier import (
    claim_history,
    claims,
    frontier_body,
    frontier_cache,
    frontier_query,
)
from network.api.service import Service, iso
from network.errors import LemmataError, define

define("frontier-page-invalid", None, 422,
       "A frontier page's `limit` is not an integer from 1 to the published maximum, or "
       "`fields` names a field no frontier entry has.",
       "Send e.g. `limit=100` and `fields=target,node,status` (docs/api.md, the frontier's "
       "pages).")
define("frontier-cursor-invalid", None, 422,
       "The frontier `cursor` is not one this service made, or it was made for another "
       "query (other filters, predicates or fields).",
       "Send back the `page.next_cursor` of the previous page unchanged, with the same "
       "filters and fields; or drop `cursor` to start again.")
define("frontier-cursor-stale", None, 409,
       "The entry the frontier `cursor` resumes after has left the frontier since that "
       "page was read.",
       "Start again from the first page (drop `cursor`).")

#: The query parameters of a page (never read as equality filters).
PARAMS = ("limit", "cursor", "fields")
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
#: A cursor is at most this many characters (what this module makes is under 100).
MAX_CURSOR = 256
#: Entry fields every paged row keeps.
KEY_FIELDS = ("target", "node")
_LIMIT_RE = re.compile(r"^[0-9]{1,7}$")


def _entry_key(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ""
    return f"{entry.get('target')}/{entry.get('node', entry.get('id'))}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def query_digest(filters: dict[str, str] | None, where: tuple[str, ...] | list[str],
                 fields: list[str] | None) -> str:
    """The digest a cursor carries: of the sorted filters, the predicates in order and
    the selected fields."""
    return _digest(json.dumps([sorted((filters or {}).items()), list(where),
                               fields], sort_keys=True))


def parse_limit(limit: Any) -> int:
    """``limit`` (text, int or None) → an int in 1..:data:`MAX_LIMIT`.

    Raises:
        LemmataError: ``frontier-page-invalid``.
    """
    if limit is None:
        return DEFAULT_LIMIT
    text = str(limit).strip()
    if isinstance(limit, bool) or not _LIMIT_RE.match(text) or not 1 <= int(text) <= MAX_LIMIT:
        raise LemmataError("frontier-page-invalid", f"limit {text[:40]!r}: an integer from 1 "
                           f"to {MAX_LIMIT}", field="limit")
    return int(text)


def parse_fields(fields: list[str] | str | None) -> list[str] | None:
    """``fields`` (comma-separated texts, repeatable) → the sorted distinct fields, the key
    fields included; None when not given.

    Raises:
        LemmataError: ``frontier-page-invalid`` (an unknown field, more fields than the
            entry has).
    """
    if fields is None:
        return None
    items = [fields] if isinstance(fields, str) else list(fields)
    names = {s.strip() for item in items for s in str(item).split(",") if s.strip()}
    known = frontier_query.entry_fields()
    unknown = sorted(n for n in names if n not in known)
    if unknown:
        raise LemmataError("frontier-page-invalid", "no frontier field(s) "
                           f"{[u[:40] for u in unknown[:5]]}", field="fields")
    return sorted(names | set(KEY_FIELDS))


def make_cursor(query: str, offset: int, last_key: str) -> str:
    """The opaque cursor resuming after the entry ``last_key`` at index ``offset - 1``."""
    raw = json.dumps({"v": 1, "q": query, "o": offset, "k": _digest(last_key)},
                     separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _bad_cursor(why: str) -> LemmataError:
    return LemmataError("frontier-cursor-invalid", why, field="cursor")


def read_cursor(cursor: str, query: str) -> tuple[int, str]:
    """A cursor → (offset, digest of the last entry's key), checked against ``query``.

    Raises:
        LemmataError: ``frontier-cursor-invalid``.
    """
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR \
            or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise _bad_cursor("not a cursor this service made")
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise _bad_cursor("not a cursor this service made") from exc
    if not isinstance(data, dict) or set(data) != {"v", "q", "o", "k"} or data["v"] != 1 \
            or not isinstance(data["o"], int) or isinstance(data["o"], bool) \
            or not isinstance(data["q"], str) or not isinstance(data["k"], str) \
            or data["o"] < 1:
        raise _bad_cursor("not a cursor this service made")
    if data["q"] != query:
        raise _bad_cursor("the cursor belongs to another query (filters, where or fields)")
    return data["o"], data["k"]


def _list_key(body: dict[str, Any]) -> str | None:
    for key in ("nodes", "frontier", "entries", "ready"):
        if isinstance(body.get(key), list):
            return key
    return None


def page(body: dict[str, Any], *, filters: dict[str, str] | None = None,
         where: tuple[str, ...] | list[str] = (), limit: Any = None,
         cursor: str | None = None, fields: list[str] | str | None = None
         ) -> dict[str, Any]:
    """One page of a frontier ``body`` (as :func:`network.api.reads.frontier` answers it for
    ``filters`` and ``where``): a shallow copy with the entry list cut and ``page`` added
    (module docstring). ``body`` is not changed.

    Raises:
        LemmataError: ``frontier-page-invalid``; ``frontier-cursor-invalid``;
            ``frontier-cursor-stale``.
    """
    n = parse_limit(limit)
    chosen = parse_fields(fields)
    query = query_digest(filters, tuple(where), chosen)
    key = _list_key(body)
    entries: list[Any] = body[key] if key is not None else []
    start = 0
    if cursor is not None:
        offset, last = read_cursor(cursor, query)
        if 0 < offset <= len(entries) and _digest(_entry_key(entries[offset - 1])) == last:
            start = offset
        else:
            at = next((i for i, e in enumerate(entries) if _digest(_entry_key(e)) == last),
                      None)
            if at is None:
                raise LemmataError("frontier-cursor-stale", "the entry this cursor resumes "
                                   "after is no longer in the frontier", field="cursor")
            start = at + 1
    rows = entries[start:start + n]
    if chosen is not None:
        rows = [{f: e[f] for f in chosen if f in e} if isinstance(e, dict) else e
                for e in rows]
    end = start + len(rows)
    out = dict(body)
    if key is not None:
        out[key] = rows
    out["page"] = {"limit": n, "offset": start, "total": len(entries), "fields": chosen,
                   "next_cursor": make_cursor(query, end, _entry_key(entries[end - 1]))
                   if end < len(entries) else None}
    return out


def wanted(params: Any) -> bool:
    """Whether a request's query parameters (a Starlette ``QueryParams``) ask for a page."""
    return any(p in params for p in PARAMS)


def _overlaid(svc: Service, filters: dict[str, str] | None,
              where: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The frontier body for the query (no ``live_claims_as_of``) and the snapshot ETag,
    kept per (snapshot, registry version, query): pages of one walk share one overlay."""
    snap = svc.graphs.snapshot()
    now = svc.now()
    version = claims.registry_version(svc, now)
    frontier_query.predicates(filters, where)
    key = (snap.etag, version, tuple(sorted((filters or {}).items())), where)
    kept = svc.extra.get("frontier_page_body")
    if isinstance(kept, tuple) and kept[0] == key:
        return kept[1], snap.etag
    body = frontier_body.frontier_overlay(frontier_body.frontier_product(svc, snap), claims.registry(svc, now),
                                  filters, claim_history.history(svc, now), where)
    svc.extra["frontier_page_body"] = (key, body)
    return body, snap.etag


def render(svc: Service, filters: dict[str, str] | None, where: tuple[str, ...],
           params: Any) -> tuple[bytes, str, str]:
    """``GET /frontier.json``'s paged answer for the query parameters ``params``: (UTF-8
    JSON bytes, quoted ETag, snapshot ETag). The bytes equal
    ``serialize(network.api.reads.frontier(svc, filters, where, limit=, cursor=, fields=))``.

    Raises:
        LemmataError: as :func:`page` and :func:`network.api.reads.frontier`.
    """
    fields = params.getlist("fields") if "fields" in params else None
    parse_limit(params.get("limit"))  # refuse before any work
    parse_fields(fields)
    base, snap = _overlaid(svc, filters, where)
    body = page({**base, "live_claims_as_of": iso(svc.now())}, filters=filters, where=where,
                limit=params.get("limit"), cursor=params.get("cursor"), fields=fields)
    data = frontier_cache.serialize(body)
    return data, frontier_cache.etag_of(snap, data), snap
