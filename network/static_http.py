"""The site server's files with strong ETags, ``304`` and gzip (issue 17 "Products and
bundles that travel light"), for ``lemmata up``'s static server (network/up.py).

:func:`answer` reads one file of the built site and says what to send: the ETag is
``"<first 32 hex of sha256(bytes)>"`` (``-gz`` for the gzip representation, as the
service's, network/api/transport.py), ``If-None-Match`` (a list, ``W/`` tags, ``*``) is
answered ``304``, and text, JSON, JavaScript and SVG files of 1 KiB or more are sent
gzip-encoded to a client whose ``Accept-Encoding`` admits it. Reads, hashes and
compressions are kept per (path, size, mtime), so an unchanged file costs a ``stat``.
The site is public and holds no secrets (its pages read live claims from the service),
so compression cannot leak one (BREACH).
"""

from __future__ import annotations

import mimetypes
import threading
from dataclasses import dataclass
from pathlib import Path

from network.api.transport import (
    MIN_GZIP_BYTES,
    accepts_gzip,
    body_etag,
    gz_tag,
    gzip_bytes,
    parse_if_none_match,
)

#: Media types compressed (others, images and fonts, are already compressed).
COMPRESSIBLE = ("text/", "application/json", "application/javascript", "image/svg+xml",
                "application/xml")
#: At most this many files are kept in memory (the site's pages and products).
MAX_FILES = 4096


@dataclass(frozen=True)
class _Kept:
    stamp: tuple[int, int]
    body: bytes
    etag: str
    gz: bytes | None


@dataclass(frozen=True)
class Answer:
    """What to send: status (200 or 304), headers and body (empty on 304)."""

    status: int
    headers: dict[str, str]
    body: bytes


_kept: dict[str, _Kept] = {}
_lock = threading.Lock()


def media_type(path: Path) -> str:
    """The file's media type by its suffix (``application/octet-stream`` if unknown)."""
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _load(path: Path) -> _Kept:
    st = path.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    key = str(path)
    with _lock:
        hit = _kept.get(key)
    if hit is not None and hit.stamp == stamp:
        return hit
    body = path.read_bytes()
    kind = media_type(path)
    gz = gzip_bytes(body) if len(body) >= MIN_GZIP_BYTES and kind.startswith(COMPRESSIBLE) \
        else None
    kept = _Kept(stamp, body, body_etag(body), gz)
    with _lock:
        if len(_kept) >= MAX_FILES:
            _kept.clear()
        _kept[key] = kept
    return kept


def answer(path: Path, accept_encoding: str = "", if_none_match: str | None = None
           ) -> Answer:
    """What to send for the site file ``path``.

    Raises:
        OSError: the file cannot be read (the caller answers 404 as before).
    """
    kept = _load(path)
    zipped = kept.gz is not None and accepts_gzip(accept_encoding)
    etag = gz_tag(kept.etag) if zipped else kept.etag
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if if_none_match is not None:
        wanted = parse_if_none_match(if_none_match)
        if wanted is None or kept.etag in wanted:
            return Answer(304, headers, b"")
    body = kept.gz if zipped and kept.gz is not None else kept.body
    headers["Content-Type"] = media_type(path)
    headers["Content-Length"] = str(len(body))
    if zipped:
        headers["Content-Encoding"] = "gzip"
    return Answer(200, headers, body)
