"""Parsed, validated records cached on disk by git blob id (issue 17, speed).

A record file's bytes decide what the loader makes of them, given the place's model and
the code that parses and validates: :func:`network.record.read.loader.load_graph` with a
:class:`RecordCache` stores, per record file, the record (as plain JSON data), the SHA-256
of its bytes and every problem it raised, under

    (blob id, parser (json|yaml), model)        in a file named by the code version

so an unchanged blob is never parsed again and a commit load is a tree walk plus cache
hits. The blob id is the one git computes (``sha1("blob <len>\\0" + bytes)``): a commit's
tree names it without reading the blob; a work tree computes it from the bytes it read
(cheaper than parsing YAML, measured in benchmarks/products.py).

What the cache trusts, and why it cannot be poisoned from a submission:

* **Everything the parse depends on is in the key.** The blob id (the exact bytes), the
  parser the path's suffix picks, the place's model, and :func:`code_version`: a digest of
  the modules that parse and validate (models, loader, plain, layout, ids, signing,
  errors, this module), the schemas folder, and the versions of Python, pydantic,
  pydantic-core and PyYAML (and ``source.py``, which lists the files). Any change there
  opens a fresh database file; old ones are inert (safe to delete) and removed a day after
  their last write. Problems carry no path in the entry; the loader attaches the path it
  is reading, and an entry is only written when every problem names that path. A miss is
  filed under the blob id of the bytes it parsed, computed from those bytes.
* **Only plain data comes back.** An entry is JSON (no pickle, nothing that constructs
  objects); it is read back through ``json.loads`` and then validated again by the model
  (``model_validate``), so the worst an entry can yield is a record the model accepts.
  Each entry carries a SHA-256 over its key and value; a truncated, altered or garbage
  entry, a wrong shape, a record the model refuses, or a database file that is not SQLite
  is a miss (the file is parsed again), never a crash and never another record.
* **Writes are atomic.** Entries are written in one SQLite transaction at the end of a
  load (SQLite's journal makes it all or nothing; a killed writer leaves the old state).
  A busy or read-only database just skips the write.
* **Out of every sandbox's reach.** The cache lives in the service's data directory
  (``<data_dir>/record-cache``, :func:`default_dir`). The gate's contributor code runs only
  under :class:`network.gate.sandbox.sandbox.Sandbox`, whose binds are the system directories, the
  toolchain, the workspace and its scratch (network/gate/sandbox/sandbox.py); the data directory is
  never bound, so no contributor build can read or write an entry. Whoever can write the
  data directory already holds the service's database and keys.

``load_graph(path)`` without a cache is unchanged. The process-wide cache the service,
the queue and the gate CLI set (:func:`configure`) is what :func:`configured` returns.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from network.errors import Problem
from network.record import models as m

CACHE_DIR_NAME = "record-cache"
_ENTRY_FORMAT = 1
_CHUNK = 500
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
STALE_VERSION_S = 86_400.0
"""A database file of another code version unwritten this long is removed (seconds)."""
#: the modules outside record/ a parse reads (record/ is digested whole: a hand list of its
#: modules would miss the next one models.py imports)
_CODE_MODULES = ("model_base.py", "ids.py", "signing.py", "errors.py")

_version_lock = threading.Lock()
_version: list[str] = []
_configured: list[RecordCache | None] = [None]
R = TypeVar("R", bound=BaseModel)


def git_blob_id(data: bytes) -> str:
    """The 40-hex object id git gives a blob of exactly ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def code_version(extra: str = "") -> str:
    """A 64-hex digest of the code and libraries a record's parse depends on (see module
    doc), :func:`code_digest` of this package, computed once per process; ``extra`` is
    mixed in (tests)."""
    with _version_lock:
        if not _version:
            _version.append(code_digest(Path(__file__).resolve().parents[2]))
    return hashlib.sha256((_version[0] + extra).encode()).hexdigest() if extra else _version[0]


def code_digest(package: Path) -> str:
    """SHA-256 (hex) over the entry format, the Python, pydantic, pydantic-core and PyYAML
    versions, the bytes of the parsing modules of ``package`` (the ``network`` folder) and
    every file of the ``schemas`` folder beside it."""
    import pydantic
    import pydantic_core
    import yaml

    h = hashlib.sha256()
    h.update(f"fmt{_ENTRY_FORMAT}|py{sys.version}|pydantic{pydantic.VERSION}|"
             f"core{pydantic_core.__version__}|yaml{yaml.__version__}|"
             f"libyaml{getattr(yaml, '__with_libyaml__', False)}".encode())
    record = sorted(p.relative_to(package).as_posix() for p in (package / "record").rglob("*.py"))
    for rel in (*_CODE_MODULES, *record):
        h.update(rel.encode() + b"\0")
        h.update(_digest_file(package / rel))
    schemas = package.parent / "schemas"
    if schemas.is_dir():
        for p in sorted(schemas.rglob("*")):
            if p.is_file():
                h.update(p.relative_to(schemas).as_posix().encode() + b"\0")
                h.update(_digest_file(p))
    return h.hexdigest()


def _digest_file(p: Path) -> bytes:
    try:
        return hashlib.sha256(p.read_bytes()).digest()
    except OSError:
        return b"missing"


def default_dir(data_dir: str | Path) -> Path:
    """Where a data directory keeps the record cache: ``<data_dir>/record-cache``."""
    return Path(data_dir) / CACHE_DIR_NAME


def configure(directory: str | Path | None) -> RecordCache | None:
    """Set (or with None clear) the process-wide cache :func:`configured` returns; the
    service (``ServiceSettings.data_dir``), ``lemmata up`` and the gate CLI call it."""
    _configured[0] = RecordCache(directory) if directory is not None else None
    return _configured[0]


def configured() -> RecordCache | None:
    """The process-wide cache set by :func:`configure`, or None (then loads parse all)."""
    return _configured[0]


def _check(oid: str, place: str, value: bytes) -> bytes:
    return hashlib.sha256(f"{oid}\0{place}\0".encode() + value).digest()


class RecordCache:
    """An on-disk map ``(blob id, place) -> entry bytes`` for one code version.

    Args:
        directory: the cache folder (created on first write); ``records-<version>.sqlite3``
            inside it holds the entries.
        version: the code version (default :func:`code_version`).

    Entries are read in bulk (:meth:`prefetch`) and written in one transaction
    (:meth:`flush`). Every failure of the database is a miss or a skipped write; none
    raises. Thread-safe (one lock); usable from several processes (SQLite locking).
    """

    def __init__(self, directory: str | Path, version: str | None = None) -> None:
        self.directory = Path(directory)
        self.version = version or code_version()
        self.path = self.directory / f"records-{self.version[:32]}.sqlite3"
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], bytes] = {}
        self.hits = 0
        self.misses = 0

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.exists():
            return None
        try:
            if create:
                self.directory.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=2.0, isolation_level=None)
            db.execute("CREATE TABLE IF NOT EXISTS entries (oid TEXT NOT NULL, "
                       "place TEXT NOT NULL, value BLOB NOT NULL, check_ BLOB NOT NULL, "
                       "PRIMARY KEY (oid, place)) WITHOUT ROWID")
            return db
        except (sqlite3.Error, OSError):
            self._discard_if_corrupt()
            return None

    def _discard_if_corrupt(self) -> None:
        """A file that is not a SQLite database is removed (it is only a cache)."""
        try:
            with self.path.open("rb") as f:
                head = f.read(16)
        except OSError:
            return
        if head != b"SQLite format 3\0":
            with contextlib.suppress(OSError):
                self.path.unlink()

    def _prune_other_versions(self, older_than_s: float | None = None) -> None:
        """Remove the database files of other code versions not written for
        ``older_than_s`` seconds (default :data:`STALE_VERSION_S`; a deploy's old
        processes may still use a recent one)."""
        limit = STALE_VERSION_S if older_than_s is None else older_than_s
        now = time.time()
        with contextlib.suppress(OSError):
            for p in self.directory.glob("records-*.sqlite3*"):
                if not p.name.startswith(self.path.name):
                    with contextlib.suppress(OSError):
                        if now - p.stat().st_mtime > limit:
                            p.unlink()

    def prefetch(self, oids: Iterable[str]) -> dict[tuple[str, str], bytes]:
        """Every checked entry stored for ``oids`` as ``(oid, place) -> value``; entries
        whose check fails are left out (misses). An unreadable database gives ``{}``."""
        wanted = sorted(set(oids))
        out: dict[tuple[str, str], bytes] = {}
        with self._lock:
            db = self._connect(create=False)
            if db is None:
                return out
            try:
                for i in range(0, len(wanted), _CHUNK):
                    chunk = wanted[i:i + _CHUNK]
                    rows = db.execute(
                        "SELECT oid, place, value, check_ FROM entries WHERE oid IN "
                        f"({','.join('?' * len(chunk))})", chunk).fetchall()
                    for oid, place, value, check in rows:
                        if (isinstance(oid, str) and isinstance(place, str)
                                and isinstance(value, bytes)
                                and check == _check(oid, place, value)):
                            out[(oid, place)] = value
            except sqlite3.Error:
                db.close()
                self._discard_if_corrupt()
                return {}
            db.close()
        return out

    def put(self, oid: str, place: str, value: bytes) -> None:
        """Queue one entry for the next :meth:`flush`."""
        with self._lock:
            self._pending[(oid, place)] = value

    def flush(self) -> int:
        """Write every queued entry in one transaction; returns how many were written (0
        when the database is busy, read-only or unusable: the entries are dropped)."""
        with self._lock:
            pending, self._pending = self._pending, {}
            if not pending:
                return 0
            if not self.path.exists():
                self._prune_other_versions()
            db = self._connect(create=True)
            if db is None:
                return 0
            try:
                with contextlib.closing(db):
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany(
                        "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)",
                        [(o, p, v, _check(o, p, v)) for (o, p), v in pending.items()])
                    db.execute("COMMIT")
            except sqlite3.Error:
                return 0
            return len(pending)


def encode_entry(sha256: str, kind: str | None, record: Any,
                 problems: list[tuple[str, str, str | None]]) -> bytes:
    """One entry's bytes: the file's SHA-256, the record's schema kind and JSON data
    (None when it did not validate) and its problems as ``(code, detail, field)``."""
    return json.dumps({"f": _ENTRY_FORMAT, "sha256": sha256, "kind": kind, "record": record,
                       "problems": [list(p) for p in problems]},
                      separators=(",", ":"), ensure_ascii=True).encode()


def decode_entry(value: bytes) -> tuple[str, str | None, Any,
                                        list[tuple[str, str, str | None]]] | None:
    """An entry's ``(sha256, kind, record data, problems)``, or None when the bytes are not
    an entry of this format (a miss)."""
    try:  # orjson: an integer beyond 64 bits or a nesting past 1024 reads as a miss
        obj = orjson.loads(value)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or obj.get("f") != _ENTRY_FORMAT:
        return None
    sha, kind, rec, probs = obj.get("sha256"), obj.get("kind"), obj.get("record"), \
        obj.get("problems")
    if not (isinstance(sha, str) and _SHA256_RE.fullmatch(sha) and isinstance(probs, list)):
        return None
    if (kind is None) != (rec is None) or (kind is not None and not isinstance(kind, str)):
        return None
    out: list[tuple[str, str, str | None]] = []
    for p in probs:
        if not (isinstance(p, list) and len(p) == 3 and isinstance(p[0], str)
                and isinstance(p[1], str) and (p[2] is None or isinstance(p[2], str))):
            return None
        out.append((p[0], p[1], p[2]))
    if rec is not None and (out or not isinstance(rec, dict)):
        return None
    if rec is None and not out:
        return None
    return sha, kind, rec, out


def place_of(path: str, model: type[BaseModel]) -> str:
    """The parse a path's place gets besides its bytes: parser (by suffix) and model."""
    parser = "json" if path.endswith(".json") else "yaml"
    return f"{parser}:{model.__module__}.{model.__qualname__}"


def entry_of(sha: str, rec: BaseModel | None, problems: list[Problem],
             path: str) -> bytes | None:
    """The cache entry for one parse, or None when it would not read back the same: a
    problem naming another path, or a record whose JSON form validates to anything but an
    equal record with the same fields set."""
    if any(p.path != path for p in problems) or (rec is None) == (not problems):
        return None
    if rec is None:
        return encode_entry(sha, None, None, [(p.code, p.detail, p.field) for p in problems])
    try:
        data = rec.model_dump(mode="json", by_alias=True, exclude_unset=True)
        back = type(rec).model_validate(json.loads(json.dumps(data)))
    except (ValueError, TypeError, RecursionError):
        return None
    if back != rec or back.model_fields_set != rec.model_fields_set:
        return None
    return encode_entry(sha, rec.SCHEMA_KIND, data, [])  # type: ignore[attr-defined]


def read_entry(value: bytes, path: str,
               model: type[R]) -> tuple[str, R | None, list[Problem]] | None:
    """An entry read back as ``(sha256, record or None, problems)``, the record validated
    again by its model; None (a miss) for anything that is not a well-formed entry whose
    record this place's model (or a version it reads, D-34) accepts."""
    got = decode_entry(value)
    if got is None:
        return None
    sha, kind, data, found = got
    problems = [Problem(code, detail, path, fld) for code, detail, fld in found]
    if kind is None:
        return sha, None, problems
    final: Any = model
    if kind != model.SCHEMA_KIND:  # type: ignore[attr-defined]
        final = next((k for k in m.SAME_PLACE.get(model.SCHEMA_KIND, ())  # type: ignore[attr-defined]
                      if k.SCHEMA_KIND == kind), None)
        if final is None:
            return None
    if not isinstance(data, dict) or data.get("schema") != kind:
        return None
    try:
        return sha, final.model_validate(data), []
    except (ValidationError, ValueError, TypeError, RecursionError):
        return None
