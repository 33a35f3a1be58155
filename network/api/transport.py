"""Products that travel light: gzip, strong ETags and ``304`` on the product routes
(issue 17 "Products and bundles that travel light"; D-35 "reads are cacheable").

:class:`ProductTransport` is pure ASGI middleware, installed by :func:`install` inside the
security-header middleware (network/api/contract.py), so every answer it makes, ``304``
and gzip included, still gets those headers. It acts only on ``GET`` requests whose path
is a product or read route (:data:`PRODUCT_PATHS`: the committed products and the public
reads built from them), and on those:

* **ETag.** A strong validator: the one the route answered (network/api/app.py's
  ``"<snapshot>-<sha256(body)[:16]>"``), else ``"<sha256(body)[:32]>"`` of the response
  bytes. A gzip representation is a different representation (RFC 9110 §8.8.1), so its
  ETag is the identity one with ``-gz`` before the closing quote.
* **If-None-Match.** Every tag of the list (``W/`` and ``-gz`` stripped: the weak
  comparison RFC 9110 §13.1.2 asks for) is compared with the current ETag; ``*`` matches
  any. A match is answered ``304`` with no body, with the ETag, ``Cache-Control``,
  ``Vary`` and ``X-Graph-Snapshot`` the ``200`` would have had.
* **gzip.** When the request's ``Accept-Encoding`` admits ``gzip`` (not ``gzip;q=0``),
  the body is at least :data:`MIN_GZIP_BYTES`, and the response sets no cookie, is not
  ``no-store`` and is not already encoded. The compressed bytes are kept per request
  target (path and query), with the ETag they were made for (:class:`GzipCache`, at most
  :data:`CACHE_ENTRIES` targets and :data:`CACHE_BYTES`), so a product is compressed once
  per version, not once per request, and a version that is superseded (the frontier's
  every second, a node bundle's at every claim) is released at once instead of kept
  until the byte bound (issue 39: memory flat under load); bodies past
  :data:`THREAD_BYTES` are compressed off the event loop. This is what Starlette's ``GZipMiddleware`` does, plus the per-ETag cache
  (its per-request level-9 compression of a 5 MB frontier would cap the route near 10
  requests per second) and the coding-specific ETag.
* **Vary: Accept-Encoding** on every answer of these routes, and ``Cache-Control:
  no-cache`` when the route set none (the routes of app.py set ``public, max-age``).

Why only these routes (BREACH, CVE-2013-3587): compressing a response that holds a secret
(a token, a CSRF token, a session) beside text an attacker chose lets the attacker read
the secret from the compressed length. The product routes answer the record and public
service state only; the token, session, sign-in, claim and submission routes, ``/me``
and every write are never compressed, whatever they answer, and a product response that
sets a cookie or says ``no-store`` is left as it is.
"""

from __future__ import annotations

import hashlib
import re
import threading
import zlib
from collections import OrderedDict
from typing import Any

import anyio.to_thread
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The product and public read routes (regular expressions over the path): what gzip,
#: the ETag and ``304`` apply to. Nothing here answers a token, a session or a CSRF token.
PRODUCT_PATHS: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in (
    r"/",
    r"/info\.json",
    r"/errors\.json",
    r"/dco\.json",
    r"/frontier\.json",
    r"/ledger\.json",
    r"/hosted-checkers\.json",
    r"/registrations\.json",
    r"/words-needed\.json",
    r"/targets/index\.json",
    r"/targets/[^/]+",
    r"/targets/[^/]+/defs",
    r"/targets/[^/]+/gate-spec\.json",
    r"/targets/[^/]+/sufficient-sets\.json",
    r"/targets/[^/]+/nodes/[^/]+",
    r"/schemas/[^/]+/[^/]+\.json",
    r"/openapi\.json",
))
#: Bodies under this many bytes are sent as they are (gzip's header costs more than it saves).
MIN_GZIP_BYTES = 1024
#: Bodies past this many bytes are compressed in a worker thread, off the event loop.
THREAD_BYTES = 128 * 1024
#: zlib level: 6 is gzip's default, within a few percent of 9's size at a third the time.
GZIP_LEVEL = 6
#: Compressed bytes kept per process, at most (issue 16: bounded memory).
CACHE_BYTES = 32 * 1024 * 1024
#: Request targets (path and query) whose compressed body is kept, at most (issue 39: a
#: query string a caller varies at will must not grow the process).
CACHE_ENTRIES = 1024
#: The suffix of a gzip representation's ETag (before the closing quote).
GZ_SUFFIX = "-gz"


def is_product_path(path: str) -> bool:
    """Whether ``path`` is one of :data:`PRODUCT_PATHS` (whole-path match)."""
    return any(p.fullmatch(path) for p in PRODUCT_PATHS)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` value admits gzip: ``gzip`` or ``*`` listed with a
    non-zero ``q`` (RFC 9110 §12.5.3); ``gzip;q=0`` refuses it even beside ``*``."""
    star: bool | None = None
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        name = name.strip().lower()
        q = 1.0
        for param in params.split(";"):
            pname, eq, pval = param.partition("=")
            if eq and pname.strip().lower() == "q":
                # RFC 9110 qvalue: 0, 1, 0.xxx, 1.000; anything else counts as refusal
                v = pval.strip()
                q = float(v) if re.fullmatch(r"0(\.[0-9]{0,3})?|1(\.0{0,3})?", v) else 0.0
        if name in ("gzip", "x-gzip"):
            return q > 0
        if name == "*":
            star = q > 0
    return bool(star)


def base_tag(tag: str) -> str:
    """One entity tag reduced to the identity representation's strong form: ``W/``
    dropped, ``-gz`` dropped (``W/"a-gz"`` → ``"a"``)."""
    tag = tag.strip()
    tag = tag.removeprefix("W/")
    if tag.endswith(GZ_SUFFIX + '"'):
        tag = tag[: -len(GZ_SUFFIX) - 1] + '"'
    return tag


def parse_if_none_match(value: str) -> list[str] | None:
    """``If-None-Match`` → its entity tags reduced by :func:`base_tag`, or None for ``*``
    (matches any current representation). Text that is no tag is ignored."""
    if value.strip() == "*":
        return None
    return [base_tag(t) for t in re.findall(r'(?:W/)?"[^"]*"', value)]


def gz_tag(etag: str) -> str:
    """The gzip representation's ETag of the identity ETag ``etag`` (``"a"`` → ``"a-gz"``)."""
    return etag[:-1] + GZ_SUFFIX + '"' if etag.endswith('"') else f'"{etag}{GZ_SUFFIX}"'


def body_etag(body: bytes) -> str:
    """A strong ETag of a body: ``"<first 32 hex of sha256(body)>"``."""
    return f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def gzip_bytes(body: bytes, level: int = GZIP_LEVEL) -> bytes:
    """``body`` as one gzip member (RFC 1952), ``mtime`` 0 so equal bodies compress equal."""
    c = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(body) + c.flush()


def request_slot(scope: Scope) -> str:
    """Where :class:`GzipCache` keeps a request's body: the first 32 hex of the SHA-256 of
    its path and raw query string (fixed size, however long the query a caller sends)."""
    target = scope.get("path", "").encode("utf-8", "surrogateescape") + b"?" \
        + scope.get("query_string", b"")
    return hashlib.sha256(target).hexdigest()[:32]


class GzipCache:
    """Compressed bodies by request target, each with the identity ETag it was made for;
    least recently used evicted past ``max_entries`` targets or ``max_bytes``.

    One entry per target (``slot``: the path and query; the ETag itself when no slot is
    given): a new version of a target replaces the old one, so a body that changes every
    second holds one entry, never one per second (issue 39). Thread-safe; a body is
    compressed outside the lock (two first requests may both compress; both get equal
    bytes)."""

    def __init__(self, max_bytes: int = CACHE_BYTES, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._items: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.compressions = 0  # how many bodies were compressed (tests, benchmarks)

    def get(self, etag: str, slot: str | None = None) -> bytes | None:
        """The compressed body kept at ``slot`` (default ``etag``) for ``etag``, or None
        (none kept, or one made for another ETag)."""
        key = etag if slot is None else slot
        with self._lock:
            hit = self._items.get(key)
            if hit is None or hit[0] != etag:
                return None
            self._items.move_to_end(key)
            return hit[1]

    def put(self, etag: str, gz: bytes, slot: str | None = None) -> None:
        """Keep ``gz``, made for ``etag``, at ``slot`` (default ``etag``), replacing what
        the slot held, unless ``gz`` alone exceeds the byte bound."""
        if len(gz) > self.max_bytes:
            return
        key = etag if slot is None else slot
        with self._lock:
            old = self._items.pop(key, None)
            self._size -= len(old[1]) if old is not None else 0
            self._items[key] = (etag, gz)
            self._size += len(gz)
            while self._items and (self._size > self.max_bytes
                                   or len(self._items) > self.max_entries):
                self._size -= len(self._items.popitem(last=False)[1][1])

    def stats(self) -> dict[str, int]:
        """``{"entries", "bytes", "max_entries", "max_bytes"}``: what is kept now (targets,
        compressed bytes) and the bounds."""
        with self._lock:
            return {"entries": len(self._items), "bytes": self._size,
                    "max_entries": self.max_entries, "max_bytes": self.max_bytes}

    async def compressed(self, etag: str, body: bytes, slot: str | None = None) -> bytes:
        """``body`` gzipped, from the cache when ``etag`` was compressed before at
        ``slot`` (default ``etag``)."""
        hit = self.get(etag, slot)
        if hit is not None:
            return hit
        if len(body) >= THREAD_BYTES:
            gz = await anyio.to_thread.run_sync(gzip_bytes, body)
        else:
            gz = gzip_bytes(body)
        self.compressions += 1
        self.put(etag, gz, slot)
        return gz


_CARRIED_ON_304 = ("etag", "cache-control", "vary", "x-graph-snapshot", "expires",
                   "last-modified")


class ProductTransport:
    """ASGI middleware giving the product routes gzip, strong ETags and ``304`` (see the
    module docstring for the rules).

    Args:
        app: the wrapped application.
        cache: where compressed bodies are kept; default a fresh :class:`GzipCache`.
        min_gzip_bytes: bodies under this size are never compressed.
    """

    def __init__(self, app: ASGIApp, cache: GzipCache | None = None,
                 min_gzip_bytes: int = MIN_GZIP_BYTES) -> None:
        self.app = app
        self.cache = cache if cache is not None else GzipCache()
        self.min_gzip_bytes = min_gzip_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" \
                or not is_product_path(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        gzip_ok = accepts_gzip(headers.get("accept-encoding", ""))
        inm = headers.get("if-none-match")
        wanted = parse_if_none_match(inm) if inm is not None else []
        sent_gz = inm is not None and GZ_SUFFIX + '"' in inm
        inner_scope = scope
        if inm is not None:
            # The route compares If-None-Match with its ETag as one text: hand it the
            # identity tags, so its own 304 fast path answers a gzip client's tag too.
            raw = [(k, v) for k, v in scope["headers"] if k != b"if-none-match"]
            if wanted:
                raw.append((b"if-none-match", ", ".join(wanted).encode("latin-1")))
            inner_scope = {**scope, "headers": raw}
        start: Message | None = None
        chunks: list[bytes] = []

        async def hold(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                assert start is not None
                await self._answer(start, b"".join(chunks), send, gzip_ok, wanted,
                                   sent_gz, request_slot(scope))

        await self.app(inner_scope, receive, hold)

    async def _answer(self, start: Message, body: bytes, send: Send, gzip_ok: bool,
                      wanted: list[str] | None, sent_gz: bool, slot: str) -> None:
        status = start["status"]
        out = MutableHeaders(raw=list(start.get("headers", [])))
        if status not in (200, 304):
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        out.add_vary_header("Accept-Encoding")
        if "cache-control" not in out:
            out["cache-control"] = "no-cache"
        etag = out.get("etag")
        if status == 304:  # the route matched an identity tag itself
            if etag and gzip_ok and sent_gz:
                out["etag"] = gz_tag(etag)
            await self._not_modified(start, out, send)
            return
        if not etag or not etag.startswith('"') or etag.startswith("W/"):
            etag = body_etag(body)
            out["etag"] = etag
        secretish = "set-cookie" in out or "no-store" in out.get("cache-control", "") \
            or "content-encoding" in out
        use_gzip = gzip_ok and not secretish and len(body) >= self.min_gzip_bytes
        shown = gz_tag(etag) if use_gzip else etag
        if wanted is None or etag in wanted:
            out["etag"] = shown
            await self._not_modified(start, out, send)
            return
        if use_gzip:
            body = await self.cache.compressed(etag, body, slot)
            out["content-encoding"] = "gzip"
            out["etag"] = shown
        out["content-length"] = str(len(body))
        await send({**start, "headers": out.raw})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _not_modified(start: Message, out: MutableHeaders, send: Send) -> None:
        raw = [(k, v) for k, v in out.raw if k.decode("latin-1").lower() in _CARRIED_ON_304]
        await send({"type": "http.response.start", "status": 304, "headers": raw})
        await send({"type": "http.response.body", "body": b""})


def install(app: Any, cache: GzipCache | None = None) -> GzipCache:
    """Add :class:`ProductTransport` to ``app`` (a FastAPI/Starlette app, before its
    security-header middleware is added, so that one wraps this). Returns the
    :class:`GzipCache` it uses (``app.state.gzip_cache``)."""
    cache = cache if cache is not None else GzipCache()
    app.add_middleware(ProductTransport, cache=cache)
    app.state.gzip_cache = cache
    return cache
