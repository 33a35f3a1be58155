"""A node bundle's attempt list, paged and without repeated fields (issue 17 "Bundle
attempt lists are paginated, and repeated fields are dropped"; D-28 get_node).

``GET /targets/{t}/nodes/{n}`` with ``attempts_limit`` (at most :data:`MAX_LIMIT`) or
``attempts_cursor`` answers one page of the attempts, oldest first as the record lists
them, from the one ``attempts_cursor`` names (a cursor's page keeps
:data:`DEFAULT_LIMIT` rows unless ``attempts_limit`` says otherwise). Without either the
whole log is answered, as the MCP tool ``get_node`` answers it: its ``tools/list`` entry
has no room under the byte goal (tests/agent_bytes_support.GOALS) for the two arguments,
and a page it could not follow would hide attempts from an agent. Within a page of two or more rows, a
field with one value on every row is said once under ``attempts_common`` and left out of
each row (an attempt row's field is its own value, else ``attempts_common``'s).
``attempts_page`` ``{total, offset, limit, next_cursor}`` is answered when the attempts do
not fit one page or a page was asked for.

A cursor is opaque (URL-safe base64 of a small JSON object) and names the node it was
made for; anything else, another node's cursor included, is ``bundle-cursor-invalid``;
a limit that is not an integer in range is ``bundle-page-invalid``. Both are 422.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import Any

from network.errors import LemmataError, define

define("bundle-page-invalid", None, 422,
       "A node bundle's `attempts_limit` is not an integer from 1 to the published maximum.",
       "Send e.g. `attempts_limit=20` (docs/api.md, get_node).")
define("bundle-cursor-invalid", None, 422,
       "A node bundle's `attempts_cursor` is not one this service made for this node.",
       "Send back the `attempts_page.next_cursor` of the same node unchanged, or drop it to "
       "start from the first attempt.")

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_CURSOR = 256
_LIMIT_RE = re.compile(r"^[0-9]{1,7}$")


def _node_digest(target: str, node: str) -> str:
    return hashlib.sha256(f"{target}/{node}".encode()).hexdigest()[:16]


def parse_limit(limit: Any) -> int:
    """``attempts_limit`` (text, int or None) → an int in 1..:data:`MAX_LIMIT`.

    Raises:
        LemmataError: ``bundle-page-invalid``.
    """
    if limit is None:
        return DEFAULT_LIMIT
    text = str(limit).strip()
    if isinstance(limit, bool) or not _LIMIT_RE.match(text) or not 1 <= int(text) <= MAX_LIMIT:
        raise LemmataError("bundle-page-invalid", f"attempts_limit {text[:40]!r}: an integer "
                           f"from 1 to {MAX_LIMIT}", field="attempts_limit")
    return int(text)


def make_cursor(target: str, node: str, offset: int) -> str:
    """The opaque cursor of ``target/node``'s attempts from index ``offset``."""
    raw = json.dumps({"v": 1, "n": _node_digest(target, node), "o": offset},
                     separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(cursor: Any, target: str, node: str) -> int:
    """An ``attempts_cursor`` → the offset it resumes at.

    Raises:
        LemmataError: ``bundle-cursor-invalid``.
    """
    bad = LemmataError("bundle-cursor-invalid", "not an attempts cursor of this node",
                       field="attempts_cursor")
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR \
            or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise bad
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise bad from exc
    if not isinstance(data, dict) or set(data) != {"v", "n", "o"} or data["v"] != 1 \
            or data["n"] != _node_digest(target, node) or isinstance(data["o"], bool) \
            or not isinstance(data["o"], int) or not 0 <= data["o"] <= 10**9:
        raise bad
    return data["o"]


def hoist(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows and the fields every row has with one value (two rows at least; a value is
    compared as its JSON text): (rows without those fields, those fields)."""
    if len(rows) < 2:
        return rows, {}

    def text(v: Any) -> str:
        return json.dumps(v, sort_keys=True)

    first = rows[0]
    common = {k: v for k, v in first.items()
              if all(k in r and text(r[k]) == text(v) for r in rows[1:])}
    if not common:
        return rows, {}
    return [{k: v for k, v in r.items() if k not in common} for r in rows], common


def attempts(rows: list[dict[str, Any]], target: str, node: str, limit: Any = None,
             cursor: Any = None) -> dict[str, Any]:
    """The bundle's attempt fields for the attempt ``rows`` (in record order): ``attempts``,
    and ``attempts_common`` / ``attempts_page`` when they say anything (module docstring).

    Raises:
        LemmataError: ``bundle-page-invalid``; ``bundle-cursor-invalid``.
    """
    n = parse_limit(limit) if limit is not None or cursor is not None else len(rows)
    start = 0 if cursor is None else read_cursor(cursor, target, node)
    page = rows[start:start + n]
    end = start + len(page)
    kept, common = hoist(page)
    out: dict[str, Any] = {"attempts": kept}
    if common:
        out["attempts_common"] = common
    if limit is not None or cursor is not None or start > 0 or end < len(rows):
        out["attempts_page"] = {"total": len(rows), "offset": start, "limit": n,
                                "next_cursor": make_cursor(target, node, end)
                                if end < len(rows) else None}
    return out
