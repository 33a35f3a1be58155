"""The frontier's query form: predicates over any field of a frontier entry (D-25, D-28
list_frontier "filterable on every field"; issue 18).

A predicate is one text ``<field><op><value>``:

* ``<field>`` is an entry field of ``frontier/v2`` (``attempts``, ``origin``,
  ``claim_holders`` ...), or a dotted path into an object field
  (``failure_classes.missing-library``, ``literature.status``). A class absent from the
  ``failure_classes`` histogram counts 0, so D-25's own example, "no missing-library
  failures", is ``failure_classes.missing-library=0``.
* ``<op>`` is ``=``, ``!=``, ``<``, ``>``, ``<=`` or ``>=``.
* ``<value>`` is read by the type of what it is compared with: ``true``/``false`` for a
  boolean, a number for a number, ``null`` for an absent value, text otherwise (dates
  compare as text: ``ready_since<2026-10-01``). On a list field ``=`` means "contains" and
  ``!=`` "does not contain"; ``<`` and ``>`` are refused there.

An entry is kept when every predicate holds; nothing is ranked. The plain route takes
predicates as repeated ``where`` query parameters (``/frontier.json?where=attempts<3``)
and, as before, any other parameter ``k=v`` as the predicate ``k=v``; the MCP tool takes
the same texts as ``where`` and the same equalities as ``filters``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from network.errors import LemmataError, define

define("frontier-filter-malformed", None, 422,
       "A frontier predicate is not `<field><op><value>` with op =, !=, <, >, <= or >=, or "
       "its value cannot be compared with the field (a number expected, `<` on a list).",
       "Write e.g. `attempts<3`, `origin!=variant` or `failure_classes.missing-library=0` "
       "(docs/api.md, the frontier's query form).")
define("frontier-filter-unknown-field", None, 422,
       "A frontier predicate names a field no frontier entry has (frontier/v2).",
       "Use a field of the frontier/v2 entry (get_schema('frontier', 'v2')), or a dotted "
       "path into an object field such as failure_classes.")

Op = Literal["=", "!=", "<", ">", "<=", ">="]
_OPS: tuple[Op, ...] = ("!=", "<=", ">=", "=", "<", ">")
_FIELD = re.compile(r"^[a-z_][a-z0-9_]*(\.[A-Za-z0-9_.:-]+)?$")
#: At most this many predicates per query, each at most :data:`MAX_TEXT` characters (a
#: query costs one pass per predicate over the frontier; distinct queries are cached).
MAX_PREDICATES = 20
MAX_TEXT = 200
#: Object fields that are count histograms: an absent key counts 0 (D-13's failure_class).
HISTOGRAMS = frozenset({"failure_classes"})


@dataclass(frozen=True)
class Predicate:
    """One parsed predicate: the field path, the operator and the value's text."""

    path: tuple[str, ...]
    op: Op
    value: str

    @property
    def text(self) -> str:
        """The predicate as written: ``field<op>value``."""
        return ".".join(self.path) + self.op + self.value


@cache
def entry_fields() -> frozenset[str]:
    """The fields of a frontier/v2 entry (its schema's properties: the product's and the
    service overlay's)."""
    from network.record import schemas

    return frozenset(schemas.load("frontier/v2")["$defs"]["entry"]["properties"])


def parse(text: str) -> Predicate:
    """``field<op>value`` → :class:`Predicate`.

    Raises:
        LemmataError: ``frontier-filter-malformed`` (no operator, a bad field path);
            ``frontier-filter-unknown-field`` (the first segment is no entry field).
    """
    at = min((i for i in (text.find(c) for c in "!<>=") if i >= 0), default=-1)
    if at <= 0:
        raise LemmataError("frontier-filter-malformed", f"{text[:80]!r} has no operator",
                           field="where")
    field, rest = text[:at], text[at:]
    op = next((o for o in _OPS if rest.startswith(o)), None)
    if op is None or not _FIELD.match(field):
        raise LemmataError("frontier-filter-malformed", f"{text[:80]!r} is not "
                           "<field><op><value>", field="where")
    path = tuple(field.split(".", 1))
    if path[0] not in entry_fields():
        raise LemmataError("frontier-filter-unknown-field", f"no frontier field {path[0]!r}",
                           field="where")
    return Predicate(path, op, rest[len(op):])


def predicates(filters: dict[str, str] | None, where: Iterable[str] | None) -> list[Predicate]:
    """Equality ``filters`` (each ``k: v`` read as ``k=v``) and ``where`` texts, parsed.

    Raises:
        LemmataError: as :func:`parse`; ``frontier-filter-malformed`` past
            :data:`MAX_PREDICATES` predicates or :data:`MAX_TEXT` characters.
    """
    texts = [f"{k}={v}" for k, v in (filters or {}).items()] + list(where or ())
    if len(texts) > MAX_PREDICATES:
        raise LemmataError("frontier-filter-malformed", f"{len(texts)} predicates: at most "
                           f"{MAX_PREDICATES}", field="where")
    for t in texts:
        if len(t) > MAX_TEXT:
            raise LemmataError("frontier-filter-malformed", f"a predicate of {len(t)} "
                               f"characters: at most {MAX_TEXT}", field="where")
    return [parse(t) for t in texts]



def _resolve(entry: dict[str, Any], path: tuple[str, ...]) -> Any:
    have: Any = entry.get(path[0])
    if len(path) == 1:
        return have
    if not isinstance(have, dict):
        return None
    if path[1] in have:
        return have[path[1]]
    return 0 if path[0] in HISTOGRAMS else None


def _number(p: Predicate) -> float:
    try:
        v = float(p.value)
    except ValueError:
        v = math.nan
    if math.isnan(v):
        raise LemmataError("frontier-filter-malformed", f"{p.text[:80]!r}: a number is "
                           "expected", field="where")
    return v


def _compare(have: Any, op: Op, want: Any) -> bool:
    if op == "=":
        return bool(have == want)
    if op == "!=":
        return bool(have != want)
    if have is None or want is None:
        return False
    if op == "<":
        return bool(have < want)
    if op == ">":
        return bool(have > want)
    if op == "<=":
        return bool(have <= want)
    return bool(have >= want)


def holds(entry: dict[str, Any], p: Predicate) -> bool:
    """Whether ``p`` holds of ``entry``.

    Raises:
        LemmataError: ``frontier-filter-malformed`` (a number expected and not given, an
            order on a list or an object).
    """
    have = _resolve(entry, p.path)
    if p.value == "null" and p.op in ("=", "!="):
        return (have is None) == (p.op == "=")
    if isinstance(have, list):
        if p.op not in ("=", "!="):
            raise LemmataError("frontier-filter-malformed", f"{p.text[:80]!r}: a list field "
                               "takes = (contains) or != only", field="where")
        return (p.value in [str(v).lower() if isinstance(v, bool) else str(v)
                            for v in have]) == (p.op == "=")
    if isinstance(have, dict):
        raise LemmataError("frontier-filter-malformed", f"{p.text[:80]!r}: name a key of "
                           "the object, e.g. failure_classes.missing-library", field="where")
    if isinstance(have, bool):
        if p.value.lower() not in ("true", "false"):
            raise LemmataError("frontier-filter-malformed", f"{p.text[:80]!r}: true or "
                               "false expected", field="where")
        return _compare(int(have), p.op, int(p.value.lower() == "true"))
    if isinstance(have, int | float):
        return _compare(have, p.op, _number(p))
    if have is None:
        # an absent value satisfies only != (and = null, above)
        return p.op == "!="
    return _compare(str(have), p.op, p.value)


def keep(entry: dict[str, Any], preds: list[Predicate]) -> bool:
    """Whether every predicate holds of ``entry`` (see :func:`holds`)."""
    return all(holds(entry, p) for p in preds)
