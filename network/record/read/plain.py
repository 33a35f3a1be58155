"""Whether a record's text is plain data, read without building it (issue 9).

A record is a few levels of mappings, lists and scalars. YAML aliases let a few bytes
expand to gigabytes in every later reader, an alias to a node that holds it is a cycle,
and deep nesting exhausts recursive parsers: :func:`shape_problem` finds each of these
from the parse events alone, so the gate's step 2 refuses such a record before it can
merge and the loader refuses one already on main instead of expanding it.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from network.errors import Problem
from network.record import layout

try:  # the C parser; PyYAML ships it on every platform we target
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

#: how deeply a record's mappings and lists may nest (records are a few levels deep)
RECORD_MAX_DEPTH = 32


def shape_problem(path: str, text: str) -> Problem | None:
    """Why a record's text is not plain data, before it is built: YAML aliases (``*a``)
    that expand to more than :data:`~network.record.layout.RECORD_MAX_BYTES` characters
    (a few bytes every later reader would multiply), an alias to a node still open (a
    cycle), or nesting deeper than :data:`RECORD_MAX_DEPTH` (which would exhaust a
    recursive parser); None when plain. Read without recursion: YAML by its parse events,
    JSON by its brackets outside strings. Codes ``invalid-record``, ``malformed-yaml`` (issue 9: nothing merged
    may break a later reader)."""
    depth = deepest = 0
    if path.endswith(".json"):
        in_str = escaped = False
        for ch in text:
            if in_str:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "]}":
                depth -= 1
    else:
        sizes: dict[str, int] = {}  # anchor -> expanded size of its node
        frames: list[list[Any]] = [[None, 0]]  # open nodes: [anchor, expanded size]
        total = 0
        try:
            for ev in yaml.parse(text, Loader=_Loader):
                add = 0
                if isinstance(ev, yaml.AliasEvent):
                    if ev.anchor not in sizes:
                        return Problem("invalid-record", "a YAML alias to a node that "
                                          "holds it", path)
                    add = sizes[ev.anchor]
                elif isinstance(ev, yaml.ScalarEvent):
                    add = len(ev.value) + 1
                    if ev.anchor is not None:
                        sizes[ev.anchor] = add
                elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                    frames.append([ev.anchor, 0])
                    deepest = max(deepest, len(frames) - 1)
                    if deepest > RECORD_MAX_DEPTH:
                        break
                    add = 1
                elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                    anchor, size = frames.pop()
                    if anchor is not None:
                        sizes[anchor] = size
                    frames[-1][1] += size
                    continue
                frames[-1][1] += add
                total += add
                if total > layout.RECORD_MAX_BYTES:
                    return Problem("invalid-record", "its YAML aliases expand past "
                                      f"{layout.RECORD_MAX_BYTES} characters", path)
        except yaml.YAMLError as exc:  # e.g. libyaml's own nesting limit
            return Problem("malformed-yaml", str(exc).splitlines()[0], path)
    if deepest > RECORD_MAX_DEPTH:
        return Problem("invalid-record", f"nested {deepest} levels deep; a record holds "
                          f"at most {RECORD_MAX_DEPTH}", path)
    return duplicate_key_problem(path, text)


class _Duplicate(Exception):
    """A mapping names one key twice."""


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


def duplicate_key_problem(path: str, text: str) -> Problem | None:
    """A mapping that names one key twice (``contributor: curator`` then ``contributor:
    alice``): parsers keep the last, a reader of the text may see the first, so a record
    that says two things is refused (``invalid-record``); None when every key is unique.
    YAML is read by its parse events (no construction), JSON with a pairs hook."""
    if path.endswith(".json"):
        try:
            json.loads(text, object_pairs_hook=_pairs_once)
        except _Duplicate as dup:
            return Problem("invalid-record", f"the key {str(dup)[:80]!r} appears twice", path)
        except (ValueError, RecursionError):
            return None  # not JSON at all: the parser's own problem names it
        return None
    frames: list[tuple[set[str], list[bool]] | None] = []  # per open node: keys, expect-key
    try:
        for ev in yaml.parse(text, Loader=_Loader):
            starts = isinstance(ev, (yaml.ScalarEvent, yaml.AliasEvent,
                                     yaml.MappingStartEvent, yaml.SequenceStartEvent))
            if starts and frames and frames[-1] is not None:
                keys, expect = frames[-1]
                if expect[0] and isinstance(ev, yaml.ScalarEvent):
                    if ev.value in keys:
                        return Problem("invalid-record",
                                       f"the key {ev.value[:80]!r} appears twice", path)
                    keys.add(ev.value)
                expect[0] = not expect[0]
            if isinstance(ev, yaml.MappingStartEvent):
                frames.append((set(), [True]))
            elif isinstance(ev, yaml.SequenceStartEvent):
                frames.append(None)
            elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                frames.pop()
    except yaml.YAMLError:
        return None  # the parser's own problem names it
    return None
