"""What counts as a re-pin of a target's ``gate-spec.json`` (issue 37 "re-pin, the way
out"; D-7: a graph's pins move mid-flight only as a recorded exception).

:func:`repin_problem` is step 2's reading of a changed gate-spec: a re-pin moves the pins and
nothing else, and :mod:`network.gate.artifacts` classifies such a change as a ``repin``
artifact (judged by :mod:`network.gate.repin_judge`); any other change of a gate-spec is
``path-not-permitted`` with the reason this function gives.
"""

from __future__ import annotations

import json

from network.record import models as m
from network.record.read.loader import parse_record
from network.record.read.parse import parse_document

#: the gate-spec fields a re-pin may change (issue 37): the toolchain, Mathlib's revision and
#: each pinned package's revision; nothing else of gate-spec/v1
REPIN_FIELDS = ("lean_toolchain", "mathlib.rev", "packages[].rev")


class _DuplicateKey(ValueError):
    """A JSON object writes one key twice (``args[0]``: the key)."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _DuplicateKey(min({k for k in keys if keys.count(k) > 1}))
    return dict(pairs)


def repin_problem(path: str, old: bytes, new: bytes) -> str | None:
    """Why a change of ``targets/<T>/gate-spec.json`` from ``old`` to ``new`` bytes is not a
    re-pin, or None when it is one (issue 37 "re-pin, the way out"): both valid gate-spec/v1
    records, the new one differing from the old only in :data:`REPIN_FIELDS` (the same
    packages, by name and URL, in the same order) and in at least one of them."""
    try:  # a key written twice reads as its last in Python and its first elsewhere
        json.loads(new.decode("utf-8-sig"), object_pairs_hook=_no_duplicates)
    except _DuplicateKey as exc:
        return f"the new gate-spec writes the key {exc.args[0]!r} twice"
    except ValueError:
        pass  # not JSON, or not UTF-8: the record reader below says which
    old_spec, _ = parse_record(path, old, m.GateSpec)
    new_spec, problems = parse_record(path, new, m.GateSpec)
    if old_spec is None:
        return "the gate-spec on main cannot be read"
    if new_spec is None:
        return "the new gate-spec is not a valid gate-spec/v1: " + "; ".join(
            str(pr) for pr in problems)[:300]
    before, after = parse_document(path, old), parse_document(path, new)
    moved = dict(before, lean_toolchain=after.get("lean_toolchain"))
    if isinstance(before.get("mathlib"), dict) and isinstance(after.get("mathlib"), dict):
        moved["mathlib"] = dict(before["mathlib"], rev=after["mathlib"].get("rev"))
    olds, news = before.get("packages"), after.get("packages")
    if (isinstance(olds, list) and isinstance(news, list) and len(olds) == len(news)
            and all(isinstance(a, dict) and isinstance(b, dict) for a, b in zip(olds, news))):
        moved["packages"] = [dict(a, rev=b.get("rev")) for a, b in zip(olds, news)]
    if moved != after:
        changed = sorted(k for k in set(before) | set(after)
                         if k not in ("lean_toolchain", "mathlib", "packages")
                         and before.get(k) != after.get(k))
        return ("a re-pin changes only " + ", ".join(REPIN_FIELDS) + "; this one also changes "
                + (", ".join(changed) if changed else "a package's name or URL, or "
                   "Mathlib's"))
    if new_spec == old_spec:
        return "it changes no pin"
    return None
