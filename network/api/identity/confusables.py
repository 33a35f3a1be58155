"""Look-alike pseudonyms: Unicode TR39 skeletons over the ``confusable_homoglyphs`` table.

TR39 (Unicode Security Mechanisms, section 4) calls two strings confusable when their
*skeletons* are equal: ``skeleton(X) = NFD(map(NFD(X)))``, where ``map`` replaces every
code point by its prototype from Unicode's ``confusables.txt``. The data comes from the
pure-Python ``confusable_homoglyphs`` package; :func:`skeleton` and the table it reads
live in :mod:`network.unicode_text` (the gate's Unicode screen reads them too, and the gate
may not import the service) and are re-exported here.

TR39 keeps apart what only reads alike to people used to handles, so :data:`ASCII_EXTRA`
adds a short, documented table for ASCII: the digits read as letters (``g4te`` →
``gate``).

:func:`fold` is the one name rule (issue 39): case folded and the three separators a
pseudonym may use (:data:`SEPARATORS`: ``_``, ``.``, ``-``) left out, so ``steve.``,
``Steve_``, ``s.teve`` and ``STEVE`` are all ``steve``. The reserved-name check
(network/api/identity/identity.py ``check_pseudonym``) compares folds, and :func:`keys`, what the
look-alike check compares (network/api/identity/pseudonyms.py), is taken over the same fold: two
pseudonyms look alike when their key sets meet. A key is taken of the name as written and
of its case fold and of its upper case, so ``aIice`` (capital I), ``ALICE`` and ``ALlCE``
all meet ``alice``.
"""

from __future__ import annotations

import functools

from network.unicode_text import _prototypes, skeleton

__all__ = ["ASCII_EXTRA", "SEPARATORS", "_prototypes", "fold", "keys", "look_alike",
           "skeleton"]

#: ASCII look-alikes TR39 does not list, applied before the skeleton: digits commonly
#: read as letters (issue 16: ``g4te`` is ``gate``).
ASCII_EXTRA: dict[str, str] = {"4": "a", "3": "e", "5": "s", "7": "t"}

#: The separators a pseudonym may hold (network/ids.py ``PSEUDONYM_RE``), which no reader
#: tells apart from their absence at a glance (issue 39: ``steve.`` is ``steve``).
SEPARATORS = "_.-"
_NO_SEPARATORS = str.maketrans("", "", SEPARATORS)


def fold(name: str) -> str:
    """The one name rule (issue 39): ``name`` case-folded with :data:`SEPARATORS` left
    out (``Steve.`` → ``steve``, ``github_actions`` → ``githubactions``). Reserved names
    are compared by it, and :func:`keys` is taken over it."""
    return name.casefold().translate(_NO_SEPARATORS)


@functools.lru_cache(maxsize=65536)
def keys(name: str) -> frozenset[str]:
    """The comparison keys of a pseudonym: the case-folded skeleton of the name, its
    :data:`SEPARATORS` left out (as :func:`fold` does) and :data:`ASCII_EXTRA` applied,
    as written, case-folded and upper-cased first (``ALlCE`` reads as ``ALICE``). Two
    names look alike when their key sets meet (cached: a pure function of ``name``)."""
    out = set()
    for form in (name, name.casefold(), name.upper()):
        extra = "".join(ASCII_EXTRA.get(c, c) for c in form.translate(_NO_SEPARATORS))
        out.add(skeleton(extra).casefold())
        out.add(skeleton(skeleton(extra).casefold()).casefold())
    return frozenset(out)


def look_alike(a: str, b: str) -> bool:
    """Whether pseudonyms ``a`` and ``b`` look alike (equal under :func:`fold`
    included)."""
    return fold(a) == fold(b) or bool(keys(a) & keys(b))
