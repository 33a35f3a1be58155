"""Unicode text as a person reads it: TR39 skeletons, scripts, and the characters that change
what a reader is shown without being seen (issue 16 for pseudonyms; D-4 step 2, issue 37
for Lean files).

Shared by the service's look-alike pseudonyms (:mod:`network.api.identity.confusables`) and the
gate's Unicode screen (:mod:`network.gate.screens.unicode_screen`), which may not import the
service; nothing here reads the record or the environment.

- :func:`skeleton` is TR39's (Unicode Security Mechanisms, section 4):
  ``skeleton(X) = NFD(map(NFD(X)))``, where ``map`` replaces every code point by its
  prototype from Unicode's ``confusables.txt``. The data comes from the pure-Python
  ``confusable_homoglyphs`` package, which ships ``confusables.txt`` as JSON with every
  ``source → prototype`` line stored in both directions; :func:`_prototypes` turns it back
  into a mapping: a code point listed against a multi-character prototype maps to it
  (``m → rn``); single code points listed against each other are one class, named by its
  member with the most entries (``I``, ``1``, ``|`` → ``l``; ``0`` → ``O``).
- :func:`script_of` is a code point's Unicode ``Script`` property (``LATIN``, ``GREEK``,
  ``CYRILLIC``, ``COMMON``, ``INHERITED``, …), from the same package's ``categories.json``
  (Unicode 15.0).
- :func:`hidden_characters` lists the characters that reorder or hide text (Trojan Source,
  CVE-2021-42574): format characters, line and paragraph separators, controls, default
  ignorables and unassigned code points.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from importlib import resources

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


def prototype(ch: str) -> str:
    """The TR39 prototype of one code point (itself when ``confusables.txt`` lists none):
    ``а`` (Cyrillic) → ``a``, ``m`` → ``rn``."""
    return _prototypes().get(ch, ch)


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, every code point to its prototype, NFD again
    (``aIice`` → ``alice``, ``rn`` and ``m`` → ``rn``, ``b0b`` → ``bOb``)."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


# --- scripts ---------------------------------------------------------------------------


@functools.cache
def _script_table() -> tuple[list[int], list[tuple[int, str]]]:
    """(range starts, (range end, script name)) of ``categories.json``, sorted."""
    raw = json.loads(resources.files("confusable_homoglyphs")
                     .joinpath("categories.json").read_text(encoding="utf-8"))
    names: list[str] = raw["iso_15924_aliases"]
    rows = sorted(raw["code_points_ranges"])
    return [r[0] for r in rows], [(r[1], names[r[2]]) for r in rows]


def script_of(ch: str) -> str:
    """The Unicode ``Script`` value of one code point, upper case with underscores
    (``LATIN``, ``GREEK``, ``CYRILLIC``, ``COMMON``, ``INHERITED``, ``HAN``); ``UNKNOWN``
    for a code point the table (Unicode 15.0) does not assign."""
    starts, rows = _script_table()
    i = bisect.bisect_right(starts, ord(ch)) - 1
    if i < 0 or rows[i][0] < ord(ch):
        return "UNKNOWN"
    return rows[i][1]


# --- characters that hide or reorder text ----------------------------------------------

#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt, 15.1) as ranges:
#: code points a renderer draws as nothing, whatever their category (the Hangul fillers,
#: variation selectors, the combining grapheme joiner and the tag block among them)
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_IGNORABLE_STARTS = [a for a, _ in DEFAULT_IGNORABLE]

#: names unicodedata does not give (controls have none) or that say too little
_NAMES = {"\x00": "NULL", "\t": "CHARACTER TABULATION", "\n": "LINE FEED",
          "\x0b": "LINE TABULATION", "\x0c": "FORM FEED",
          "\r": "CARRIAGE RETURN (not followed by a line feed)", "\x1c": "FILE SEPARATOR",
          "\x1d": "GROUP SEPARATOR", "\x1e": "RECORD SEPARATOR", "\x7f": "DELETE",
          "\x85": "NEXT LINE"}

#: every character outside printable ASCII, and the ASCII controls but tab and line feed
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")


def _default_ignorable(cp: int) -> bool:
    i = bisect.bisect_right(_IGNORABLE_STARTS, cp) - 1
    return i >= 0 and cp <= DEFAULT_IGNORABLE[i][1]


def is_hidden(ch: str) -> bool:
    """Whether one code point changes or hides what a reader is shown without being seen
    itself (D-4 step 2, issue 37: Trojan Source, CVE-2021-42574):

    - a format character (general category ``Cf``: the bidirectional embeddings,
      overrides and isolates U+202A–202E and U+2066–2069, LRM/RLM/ALM, the zero-width
      space, joiners and word joiner, U+2060–2064, the BOM U+FEFF, the soft hyphen U+00AD,
      the tag characters …);
    - a line or paragraph separator (``Zl``/``Zp``: U+2028, U+2029), which editors and
      viewers break lines at while Lean does not (a ``--`` comment would seem to end);
    - a control (``Cc``) other than tab and line feed (a carriage return is judged by
      :func:`hidden_characters`, which admits it before a line feed): vertical tab, form
      feed, NEXT LINE U+0085 and the separators U+001C–001E break lines in some viewers;
    - a default-ignorable code point (:data:`DEFAULT_IGNORABLE`), drawn as nothing;
    - a code point unassigned in this Python's Unicode tables (``Cn``, the noncharacters
      included): a later Unicode may make it a format character, so it fails closed.

    Private-use characters and spaces other than U+0020 (no-break space, thin space) are
    not hidden: they are drawn, and in Lean code outside comments and literals they do not
    parse."""
    if ch in "\t\n":
        return False
    cat = unicodedata.category(ch)
    return (cat in ("Cf", "Zl", "Zp", "Cc", "Cn") or _default_ignorable(ord(ch)))


def hidden_characters(text: str) -> list[int]:
    """The offsets (0-based, in code points) of every :func:`is_hidden` character of
    ``text``, in order; a carriage return directly before a line feed (a CRLF line end) is
    not one, a lone one is. Linear in ``len(text)``; pure ASCII text costs one regular
    expression scan."""
    out: list[int] = []
    for mt in _CANDIDATE.finditer(text):
        i = mt.start()
        ch = text[i]
        if ch == "\r" and text[i + 1:i + 2] == "\n":
            continue
        if is_hidden(ch):
            out.append(i)
    return out


def char_label(ch: str) -> str:
    """``U+XXXX NAME`` for one code point (``U+202E RIGHT-TO-LEFT OVERRIDE``); controls get
    their conventional names, an unassigned code point ``<unassigned>``."""
    name = _NAMES.get(ch) or unicodedata.name(ch, "")
    if not name:
        name = {"Cn": "<unassigned>", "Cc": "<control>"}.get(unicodedata.category(ch),
                                                           "<unnamed>")
    return f"U+{ord(ch):04X} {name}"


def shown(text: str, limit: int = 60) -> str:
    """``text`` safe to put in a message: every :func:`is_hidden` character written as
    ``<U+XXXX>`` (a message must not reorder the report it is read in), cut to ``limit``
    characters with ``…``."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    return "".join(f"<U+{ord(c):04X}>" if is_hidden(c) or c in "\t\n" else c for c in cut)
