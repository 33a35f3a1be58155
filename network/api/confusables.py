"""Look-alike pseudonyms: Unicode TR39 skeletons over the ``confusable_homoglyphs`` table.

TR39 (Unicode Security Mechanisms, section 4) calls two strings confusable when their
*skeletons* are equal: ``skeleton(X) = NFD(map(NFD(X)))``, where ``map`` replaces every
code point by its prototype from Unicode's ``confusables.txt``. The data comes from the
pure-Python ``confusable_homoglyphs`` package, which ships ``confusables.txt`` as JSON
with every ``source → prototype`` line stored in both directions; :func:`_prototypes`
turns it back into a mapping: a code point listed against a multi-character prototype
maps to it (``m → rn``); single code points listed against each other are one class,
named by its member with the most entries (``I``, ``1``, ``|`` → ``l``; ``0`` → ``O``).

TR39 keeps apart what only reads alike to people used to handles, so :data:`ASCII_EXTRA`
adds a short, documented table for ASCII: the digits read as letters (``g4te`` →
``gate``) and the three separators a pseudonym may use, folded together.

:func:`keys` is what the service compares (network/api/pseudonyms.py): two pseudonyms
look alike when their key sets meet. A key is taken of the name as written and of its
case fold and of its upper case, so ``aIice`` (capital I), ``ALICE`` and ``ALlCE`` all
meet ``alice``.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

#: ASCII look-alikes TR39 does not list, applied before the skeleton: digits commonly
#: read as letters, and ``_``/``.`` read as ``-`` (issue 16: ``g4te`` is ``gate``).
ASCII_EXTRA: dict[str, str] = {"4": "a", "3": "e", "5": "s", "7": "t", "_": "-", ".": "-"}

_INVISIBLE = "\u200e\u200f"  # the table wraps right-to-left characters in these marks


@functools.cache
def _prototypes() -> dict[str, str]:
    """Code point → its TR39 prototype (a string), from ``confusable_homoglyphs``' data."""
    raw = json.loads(resources.files("confusable_homoglyphs")
                     .joinpath("confusables.json").read_text(encoding="utf-8"))
    multi: dict[str, str] = {}
    parent: dict[str, str] = {}
    entries: dict[str, int] = {}

    def find(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for key, glyphs in raw.items():
        k = key.strip(_INVISIBLE)
        if len(k) != 1:
            continue  # a multi-character prototype: its sources are keys of their own
        entries[k] = len(glyphs)
        for g in glyphs:
            c = g["c"].strip(_INVISIBLE)
            if len(c) == 1:
                a, b = find(k), find(c)
                if a != b:
                    parent[a] = b
            elif c:
                multi[k] = c
    classes: dict[str, list[str]] = {}
    for c in parent:
        classes.setdefault(find(c), []).append(c)
    out: dict[str, str] = {}
    for members in classes.values():
        name = max(members, key=lambda c: (entries.get(c, 0), -ord(c)))
        for c in members:
            out[c] = name
    out.update(multi)
    return out


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, every code point to its prototype, NFD again
    (``aIice`` → ``alice``, ``rn`` and ``m`` → ``rn``, ``b0b`` → ``bOb``)."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


@functools.lru_cache(maxsize=65536)
def keys(name: str) -> frozenset[str]:
    """The comparison keys of a pseudonym: the case-folded skeleton of the name with
    :data:`ASCII_EXTRA` applied, as written, case-folded and upper-cased first (``ALlCE``
    reads as ``ALICE``). Two names look alike when their key sets meet (cached: a pure
    function of ``name``)."""
    out = set()
    for form in (name, name.casefold(), name.upper()):
        extra = "".join(ASCII_EXTRA.get(c, c) for c in form)
        out.add(skeleton(extra).casefold())
        out.add(skeleton(skeleton(extra).casefold()).casefold())
    return frozenset(out)


def look_alike(a: str, b: str) -> bool:
    """Whether pseudonyms ``a`` and ``b`` look alike (equal without regard to case
    included)."""
    return a.casefold() == b.casefold() or bool(keys(a) & keys(b))
