"""Text a person reads as Lean reads it: step 2's Unicode screen (D-4 step 2, issue 37).

A reviewer, the site and a diff show a Lean file through Unicode's rendering rules; Lean
reads its code points as written. Two kinds of text make the two differ, and step 2
refuses both before any Lean runs:

- *hidden characters* anywhere in a submitted Lean file (comments, doc comments and
  literals included): a U+202E in a comment reorders what the reviewer sees while Lean
  reads the bytes in order (Trojan Source, CVE-2021-42574); a zero-width character, a BOM
  or a soft hyphen is drawn as nothing; a U+2028 or a lone carriage return breaks a line
  where Lean does not. :func:`format_character_findings` refuses the first one of a file
  (``lean-format-character``, with its byte offset, line and column, and how many more
  there are); what counts as hidden is :func:`network.unicode_text.is_hidden`.
- *look-alike identifiers* in every file that states something a person reads as the
  claim (:func:`statement_bearing`): an identifier component that mixes scripts
  (``lean-mixed-script-identifier``), and one that looks like a different name
  (``lean-confusable-identifier``): another identifier of the same file with the same
  :func:`lean_skeleton`, an ASCII name it imitates, or its own normal form C (Lean does not
  normalise: ``é`` precomposed and ``e`` + U+0301 are different names).

Identifiers are read from :mod:`network.gate.screens.lean_lex`'s tokens, never from comments, doc
comments, strings or char literals, with Lean's own identifier rules
(``src/Init/Meta/Defs.lean``: ``isLetterLike``, ``isSubScriptAlnum``, ``isIdFirst``,
``isIdRest``; ``«…»`` quoted components; ``.`` between components), widened to every
Unicode letter, combining mark and digit so that a letter Lean would refuse to read still
shows in the name it was glued to (:func:`identifiers`).

The importer reads the same rules (:func:`strip_comment_hidden_characters`): a registry's
comment may lose its hidden characters where that leaves Lean's code unchanged.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from network.errors import LemmataError, define
from network.gate.result import Diagnostic
from network.gate.screens import lean_lex
from network.record import layout
from network.unicode_text import (
    char_label,
    hidden_characters,
    prototype,
    script_of,
    shown,
    skeleton,
)

define("lean-format-character", 2, 422,
       "A submitted Lean file holds a character that changes or hides what a reader is "
       "shown without being seen (a bidirectional override or isolate, a zero-width "
       "character, a byte order mark, a soft hyphen, a line or paragraph separator, a "
       "control other than tab, line feed and CRLF, a default-ignorable or unassigned "
       "code point), in code, a comment or a literal alike: a reviewer would not read the "
       "text Lean reads (Trojan Source, CVE-2021-42574).",
       "Delete the character the message names (it is at the byte offset given); write a "
       "character a string needs as an escape such as `\\u{200B}`.")
define("lean-confusable-delimiter", 2, 422,
       "A submitted Lean file holds a character drawn like a comment delimiter's `-` or `/` "
       "(a non-breaking hyphen, a minus sign, a division slash…) beside a `-`, a `/` or "
       "another such character: a reader sees a comment open or close (`‑/`, `/‑`, `−-`) "
       "where Lean reads none, so the statement a person reads is not the one Lean checks.",
       "Write the comment delimiters `--`, `/-` and `-/` in ASCII, and the look-alike as "
       "the ASCII character it stands for, or apart from any `-` or `/`.")
define("lean-mixed-script-identifier", 2, 422,
       "An identifier in a file that states something (a statement, witness, relation, "
       "definition module or a partial's holes) mixes scripts in one component: Latin with "
       "Cyrillic, Armenian, Cherokee and the like, or a Latin word holding a Greek letter "
       "drawn as a Latin one. Greek and letterlike mathematical letters beside Latin are "
       "ordinary.",
       "Write each name part in one script: use the Latin letter you meant, or a Greek "
       "letter a reader can tell from every Latin one.")
define("lean-confusable-identifier", 2, 422,
       "An identifier in a file that states something looks like a different Lean name: "
       "another identifier of the same file has the same Unicode TR39 skeleton, or it "
       "reads as an ASCII name it is not, or it is not in Unicode normal form C (Lean does "
       "not normalise, so the precomposed and the decomposed `é` are two names).",
       "Rename one of the two so that they read differently, or write the name the other "
       "one already is.")


# --- hidden characters -----------------------------------------------------------------


@dataclass(frozen=True)
class HiddenCharacter:
    """One hidden character of a text.

    Attributes:
        char: the code point.
        offset: its 0-based offset in the text, in code points.
        byte: its 0-based offset in the text's UTF-8 bytes.
        line: its 1-based line (lines end at a line feed, as Lean counts them).
        column: its 1-based column on that line, in code points.
    """

    char: str
    offset: int
    byte: int
    line: int
    column: int

    def where(self) -> str:
        """``U+202E RIGHT-TO-LEFT OVERRIDE at byte 120 (line 4, column 7)``."""
        return (f"{char_label(self.char)} at byte {self.byte} "
                f"(line {self.line}, column {self.column})")


def hidden_in(text: str) -> list[HiddenCharacter]:
    """Every hidden character of ``text`` (:func:`network.unicode_text.hidden_characters`)
    with its byte offset, line and column; [] for clean text. Linear in ``len(text)``."""
    out: list[HiddenCharacter] = []
    line, line_start, byte, done = 1, 0, 0, 0
    for i in hidden_characters(text):
        chunk = text[done:i]
        byte += len(chunk.encode("utf-8"))
        nl = chunk.count("\n")
        if nl:
            line += nl
            line_start = done + chunk.rindex("\n") + 1
        out.append(HiddenCharacter(text[i], i, byte, line, i - line_start + 1))
        done = i
    return out


def format_character_findings(text: str, path: str) -> list[Diagnostic]:
    """Step 2's ``lean-format-character`` finding for one submitted Lean file.

    Args:
        text: the file's text (decoded UTF-8; a BOM is kept as U+FEFF, so one at the start
            is refused like any other).
        path: its graph path.

    Returns:
        [] when the file holds no hidden character, else one finding naming the first
        (code point, Unicode name, byte offset, line and column) and how many more the file
        holds: a file is reported once. Needs no toolchain.

    Implements D-4 step 2, issue 37 (every ``.lean`` path a pull request adds or changes:
    statements, proofs, witnesses, relations, partials, alternates, reductions).
    """
    found = hidden_in(text)
    if not found:
        return []
    more = len(found) - 1
    tail = f"; {more} more in this file" if more else ""
    return [Diagnostic("lean-format-character", found[0].where() + tail, path,
                       found[0].line)]


def _delimiter_like(ch: str) -> bool:
    """A non-ASCII character TR39 draws as ``-`` or ``/`` (U+2011, U+2212, U+2215 …)."""
    return not ch.isascii() and skeleton(ch) in ("-", "/")


def delimiter_lookalike_findings(text: str, path: str) -> list[Diagnostic]:
    """Step 2's ``lean-confusable-delimiter`` finding for one submitted Lean file (review of
    issue 37): a character drawn as ``-`` or ``/`` standing right beside a ``-``, a ``/`` or
    another such character, where a reader sees a comment delimiter (``‑/`` closes nothing
    for Lean's ``finishCommentBlock``). A look-alike beside anything else (an en dash in
    ``605–652``) is prose and passes. One finding per file, at the first; [] when clean.
    Needs no toolchain."""
    for i, ch in enumerate(text):
        if not _delimiter_like(ch):
            continue
        near = text[i - 1:i] + text[i + 1:i + 2]
        if any(c in "-/" or _delimiter_like(c) for c in near):
            line = text.count("\n", 0, i) + 1
            byte = len(text[:i].encode("utf-8"))
            return [Diagnostic("lean-confusable-delimiter",
                               f"{char_label(ch)} at byte {byte} (line {line}) beside "
                               f"{near!r}: drawn as a comment delimiter Lean does not read",
                               path, line)]
    return []


def strip_comment_hidden_characters(text: str, path: str | None = None
                                    ) -> tuple[str, list[HiddenCharacter]]:
    """``text`` with every hidden character that stands in a comment or doc comment taken
    out, for an importer copying a registry's file (D-9, issue 37): a separator or control
    becomes a space, anything else is deleted.

    Args:
        text: a Lean source (decoded UTF-8).
        path: the file's path, for the error.

    Returns:
        (the new text, the characters taken out); ``text`` itself and [] when it holds none.

    Raises:
        LemmataError: ``lean-format-character`` when a hidden character stands in code or
            a literal, when the lexer cannot place the file's comments
            (:attr:`network.gate.screens.lean_lex.Lexed.ambiguities`), or when taking the
            characters out would change a token Lean parses (``-<U+00AD>/`` inside a block
            comment would become its end): nothing but comment text may change.
    """
    found = hidden_in(text)
    if not found:
        return text, []
    lexed = lean_lex.lex(text)
    if lexed.ambiguities:
        raise LemmataError("lean-format-character", f"{found[0].where()}; the lexer cannot "
                           "place this file's comments, so it is not taken out", path=path)
    starts = [t.start for t in lexed.tokens]
    for h in found:
        tok = lexed.tokens[bisect.bisect_right(starts, h.offset) - 1]
        if tok.kind not in ("comment", "doc"):
            raise LemmataError("lean-format-character", f"{h.where()}, in Lean code or a "
                               "literal, where taking it out would change what Lean reads",
                               path=path)
    out, done = [], 0
    for h in found:
        out.append(text[done:h.offset])
        if unicodedata.category(h.char) in ("Zl", "Zp", "Cc"):
            out.append(" ")
        done = h.offset + 1
    out.append(text[done:])
    new = "".join(out)
    after = lean_lex.lex(new)
    if after.ambiguities or [t.text for t in after.code_tokens()] != [
            t.text for t in lexed.code_tokens()]:
        raise LemmataError("lean-format-character", f"{found[0].where()}; taking it out "
                           "of its comment would change what Lean reads", path=path)
    return new, found


# --- Lean identifiers ------------------------------------------------------------------


def is_letter_like(ch: str) -> bool:
    """Lean's ``isLetterLike`` (``src/Init/Meta/Defs.lean``): the code point ranges of
    :data:`network.gate.screens.lean_lex.LETTER_LIKE`, the one table the lexer's names use too."""
    v = ord(ch)
    return any(a <= v <= b for a, b in lean_lex.LETTER_LIKE)


def is_subscript_alnum(ch: str) -> bool:
    """Lean's ``isSubScriptAlnum`` (``x₀``, ``aᵢ``, ``ⱼ``):
    :data:`network.gate.screens.lean_lex.SUBSCRIPT_ALNUM`."""
    v = ord(ch)
    return any(a <= v <= b for a, b in lean_lex.SUBSCRIPT_ALNUM)


def is_id_first(ch: str) -> bool:
    """Lean's ``isIdFirst``: an ASCII letter, ``_`` or :func:`is_letter_like`."""
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ch == "_" or is_letter_like(ch)


def is_id_rest(ch: str) -> bool:
    """Lean's ``isIdRest``: :func:`is_id_first`, an ASCII digit, ``'``, ``!``, ``?`` or
    :func:`is_subscript_alnum`."""
    return is_id_first(ch) or ("0" <= ch <= "9") or ch in "'!?" or is_subscript_alnum(ch)


#: letters that are Lean tokens of their own, never part of a name
_TOKEN_LETTERS = frozenset("λΠΣ")


def _word_first(ch: str) -> bool:
    """Starts a name as the screen reads it: Lean's ``isIdFirst``, or any other letter
    Lean would refuse to read there (category L but Lm: a modifier letter such as ``ᵀ``,
    ``ᶜ`` or ``ˣ`` is a notation token of Mathlib's)."""
    if is_id_first(ch):
        return True
    return ch.isalpha() and ch not in _TOKEN_LETTERS and unicodedata.category(ch) != "Lm"


def _word_rest(ch: str) -> bool:
    """Continues a name as the screen reads it: Lean's ``isIdRest``, any
    :func:`_word_first` letter, a combining mark or a decimal digit of any script."""
    if is_id_rest(ch) or _word_first(ch):
        return True
    return unicodedata.category(ch) in ("Mn", "Mc", "Me", "Nd")


_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]*|0[bB][01_]*|0[oO][0-7_]*"
                     r"|[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Identifier:
    """One identifier of a Lean text, as :func:`identifiers` reads it.

    Attributes:
        parts: its components, ``«»`` taken off (``Foo.«a b».c`` → ``("Foo", "a b",
            "c")``): two identifiers with equal parts are the same Lean name.
        written: the identifier as written.
        line: its 1-based line.
        start: its 0-based offset in the text, in code points.
    """

    parts: tuple[str, ...]
    written: str
    line: int
    start: int

    @property
    def name(self) -> str:
        """The parts joined with ``.``."""
        return ".".join(self.parts)


def code_view(lexed: lean_lex.Lexed) -> str:
    """The lexed text with every comment, doc comment, string, raw string and char literal
    blanked to spaces (line feeds kept): offsets and lines stay those of the text."""
    return "".join(re.sub(r"[^\n]", " ", t.text)
                   if t.kind in ("comment", "doc", "string", "raw", "char") else t.text
                   for t in lexed.tokens)


def identifiers(text: str) -> list[Identifier]:
    """Every identifier of a Lean text's code, in order (keywords included: they read as
    names too).

    Read from :func:`code_view` of :func:`network.gate.screens.lean_lex.lex` (comments, doc
    comments, strings and char literals are no code), by Lean's ``identFn``: a component
    is ``«…»`` or a :func:`_word_first` character followed by :func:`_word_rest` ones; a
    ``.`` followed by a component's start continues the name (``x.1`` ends it). Numbers
    are skipped as Lean's number literals (``2x`` is ``2`` and ``x``). A ``«`` that does
    not close ends the read (the lexer refuses that file as ``lean-lex-ambiguous``).
    Where the lexer cannot vouch for the text at all, every character is read as code
    (fail closed: a region the lexer takes for a comment may be code to Lean).
    """
    lexed = lean_lex.lex(text)
    view = text if lexed.ambiguities else code_view(lexed)
    newlines = [i for i, c in enumerate(view) if c == "\n"]
    out: list[Identifier] = []
    i, n = 0, len(view)
    while i < n:
        ch = view[i]
        if ch == "«" or _word_first(ch):
            start, parts = i, []
            while True:
                if view[i] == "«":
                    j = view.find("»", i + 1)
                    if j < 0:
                        return out
                    parts.append(view[i + 1:j])
                    i = j + 1
                else:
                    j = i + 1
                    while j < n and _word_rest(view[j]):
                        j += 1
                    parts.append(view[i:j])
                    i = j
                if i + 1 < n and view[i] == "." and (view[i + 1] == "«"
                                                     or _word_first(view[i + 1])):
                    i += 1
                    continue
                break
            out.append(Identifier(tuple(parts), view[start:i],
                                  bisect.bisect_left(newlines, start) + 1, start))
        elif "0" <= ch <= "9":
            mt = _NUMBER.match(view, i)
            i = mt.end() if mt else i + 1
        else:
            i += 1
    return out


# --- skeletons and scripts ---------------------------------------------------------------

#: Greek letters Lean reads in names whose TR39 prototype is an ASCII letter but which every
#: math and code font draws apart from it, and which mathematics writes beside that letter
#: (``a : α``, ``i : ι``, a prime ``p`` beside a density ``ρ``, ``y`` beside ``γ``, ``v``
#: beside a measure ``ν``): kept as themselves by :func:`lean_skeleton`. Omicron and the
#: capitals drawn as Latin ones (Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ) are not kept apart.
KEPT_APART_GREEK = frozenset("αγινρσυϱ")


def _styled_math_letter(ch: str) -> bool:
    """A letter of Lean's letterlike block or mathematical alphabets that Unicode marks as
    a styled form of another (``ℝ``, ``𝒜``, ``𝔽``, ``ℓ``: its NFKD differs): the style is
    what a reader sees, so it is kept apart from the plain letter."""
    v = ord(ch)
    return ((0x2100 <= v <= 0x214F or 0x1D49C <= v <= 0x1D59F)
            and unicodedata.normalize("NFKD", ch) != ch)


def lean_skeleton(text: str) -> str:
    """TR39's skeleton (:func:`network.unicode_text.skeleton`) as a reader of Lean sees
    names: NFD, every code point to its prototype but the letters of
    :data:`KEPT_APART_GREEK` and the styled mathematical letters (``ℝ`` stays ``ℝ``, not
    ``R``), NFD again. ``ο`` (omicron) → ``o``, ``Α`` → ``A``, ``а`` (Cyrillic) → ``a``,
    ``α`` → ``α``; the Ohm sign ``Ω`` → ``Ω`` (omega) by the first NFD."""
    mapped = "".join(c if c in KEPT_APART_GREEK or _styled_math_letter(c) else prototype(c)
                     for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


#: scripts that may share one name component (Lean's own letters, and TR39's "highly
#: restrictive" sets for Chinese, Japanese and Korean beside Latin)
SCRIPTS_TOGETHER: tuple[frozenset[str], ...] = (
    frozenset({"LATIN", "GREEK", "COPTIC"}),
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED", "UNKNOWN"})


def scripts_of(component: str) -> frozenset[str]:
    """The scripts of a component's letters, marks and digits, Common and Inherited left
    out (``hε`` → LATIN, GREEK; ``x₀`` → LATIN; ``ℝ`` → none)."""
    return frozenset(s for c in component if c.isalnum() or unicodedata.category(c)[0] == "M"
                     if (s := script_of(c)) not in _NEUTRAL_SCRIPTS)


def _mixed_script_why(component: str) -> str | None:
    """Why ``component`` mixes scripts, or None (the rule of
    ``lean-mixed-script-identifier``)."""
    scripts = scripts_of(component)
    if len(scripts) < 2:
        return None
    if not any(scripts <= allowed for allowed in SCRIPTS_TOGETHER):
        named = " and ".join(s.title() for s in sorted(scripts))
        odd = next(c for c in component if script_of(c) in scripts - {"LATIN"}
                   and (c.isalnum() or unicodedata.category(c)[0] == "M"))
        return f"mixes {named} ({char_label(odd)})"
    if "LATIN" in scripts:
        for c in component:
            if script_of(c) in ("GREEK", "COPTIC") and lean_skeleton(c).isascii():
                return (f"holds {char_label(c)} among Latin letters, drawn as the Latin "
                        f"`{lean_skeleton(c)}`")
    return None


@dataclass(frozen=True)
class IdentifierProblem:
    """One thing :func:`identifier_problems` refuses: its catalog ``code``
    (``lean-mixed-script-identifier`` or ``lean-confusable-identifier``), its 1-based
    ``line`` and ``why`` (both identifiers and their lines, hidden characters escaped)."""

    code: str
    line: int
    why: str


def _first_seen(idents: list[Identifier]) -> tuple[dict[str, Identifier],
                                                   dict[str, Identifier]]:
    """(whole name → its first identifier, component → the first identifier holding it)."""
    names: dict[str, Identifier] = {}
    parts: dict[str, Identifier] = {}
    for ident in idents:
        names.setdefault(ident.name, ident)
        for p in ident.parts:
            parts.setdefault(p, ident)
    return names, parts


def _at(key: str, ident: Identifier) -> str:
    """How a message names one component or name: the key in backquotes with its line,
    and the whole identifier when that is longer (``a in h.a (line 5)``, quoted so)."""
    inside = f" in `{shown(ident.written)}`" if ident.written != key else ""
    return f"`{shown(key)}`{inside} (line {ident.line})"


def identifier_problems(text: str) -> list[IdentifierProblem]:
    """Every look-alike identifier of a Lean text (D-4 step 2, issue 37).

    Read from :func:`identifiers` (code only: a name in a comment or a string is none),
    each distinct component reported once, at its first occurrence:

    1. ``lean-mixed-script-identifier``: its letters' scripts (:func:`scripts_of`) are two
       or more and fit no set of :data:`SCRIPTS_TOGETHER` (Latin with Cyrillic, Armenian,
       Cherokee …), or it mixes Latin with a Greek or Coptic letter whose
       :func:`lean_skeleton` is an ASCII letter (``Nοt`` with an omicron);
    2. ``lean-confusable-identifier`` for each two distinct components, and each two
       distinct whole names (parts joined with ``.``, so ``«a.b»`` meets ``a.b``) that no
       component pair explains, sharing a :func:`lean_skeleton`, unless both are pure
       ASCII (``l`` beside ``I``, ``m`` beside ``rn``: every code font draws ASCII apart
       and Lean's libraries use both; rustc's ``confusable_idents`` lint draws the same
       line). Equal names are never a collision, however written (``«a»`` is ``a``);
    3. ``lean-confusable-identifier`` for a component in no such pair that is not in
       Unicode normal form C (Lean compares code points: the decomposed ``é`` is another
       name than the precomposed one; the Kelvin sign is not ``K``), or that is not ASCII
       but whose :func:`lean_skeleton` is (``«а»`` in Cyrillic, ``ο``, ``ſoo`` read as
       ``a``, ``o``, ``foo``): it imitates a name the file may not hold but a library does.

    Returns:
        the problems in line order; [] for a text of ASCII names, Greek letters Lean reads
        (``hε``, ``α``, ``x₀``) and the mathematical letters (``ℝ``, ``𝒜``).
    """
    names, parts = _first_seen(identifiers(text))
    out: list[IdentifierProblem] = []
    flagged: set[str] = set()
    for part, ident in parts.items():
        why = None if part.isascii() else _mixed_script_why(part)
        if why is not None:
            out.append(IdentifierProblem("lean-mixed-script-identifier", ident.line,
                                         f"{_at(part, ident)} {why}"))
            flagged.add(part)
    reported: set[frozenset[str]] = set()
    out += _collisions([p for p in parts if p not in flagged], parts, reported)
    shapes = {name: ident.parts for name, ident in names.items()}

    def explained(a: str, b: str) -> bool:
        pa, pb = shapes[a], shapes[b]
        return len(pa) == len(pb) and all(
            x == y or frozenset((x, y)) in reported or x in flagged or y in flagged
            for x, y in zip(pa, pb, strict=True))

    out += _collisions(list(names), names, reported, explained)
    in_pair = {k for pair in reported for k in pair}
    for part, ident in parts.items():
        if part.isascii() or part in flagged or part in in_pair:
            continue
        nfc = unicodedata.normalize("NFC", part)
        sk = lean_skeleton(part)
        if nfc != part:
            why = f"is not in normal form C: it reads as `{shown(nfc)}`, another Lean name"
        elif sk.isascii():
            why = f"reads as the ASCII name `{shown(sk)}`, which it is not"
        else:
            continue
        out.append(IdentifierProblem("lean-confusable-identifier", ident.line,
                                     f"{_at(part, ident)} {why}"))
    return sorted(out, key=lambda p: (p.line, p.code, p.why))


def _collisions(keys: list[str], where: dict[str, Identifier], reported: set[frozenset[str]],
                explained: Callable[[str, str], bool] | None = None
                ) -> list[IdentifierProblem]:
    """``lean-confusable-identifier`` for each two of ``keys`` sharing a
    :func:`lean_skeleton`: not both ASCII, not in ``reported`` (added to it) and not
    ``explained``."""
    classes: dict[str, list[str]] = {}
    for k in keys:
        classes.setdefault(lean_skeleton(k), []).append(k)
    out: list[IdentifierProblem] = []
    for sk, members in classes.items():
        for i, x in enumerate(members):
            for y in members[i + 1:]:
                a, b = sorted((x, y), key=lambda k: (where[k].start, k))
                pair = frozenset((a, b))
                if (a.isascii() and b.isascii()) or pair in reported:
                    continue
                if explained is not None and explained(a, b):
                    continue
                reported.add(pair)
                out.append(IdentifierProblem(
                    "lean-confusable-identifier", where[b].line,
                    f"{_at(a, where[a])} and {_at(b, where[b])} are different names that "
                    f"look alike (skeleton `{shown(sk)}`)"))
    return out


def identifier_findings(text: str, path: str) -> list[Diagnostic]:
    """:func:`identifier_problems` of a statement-bearing Lean file as step-2 findings
    (``lean-mixed-script-identifier``, ``lean-confusable-identifier``), each with the
    file's path and the line of the identifier it names. Needs no toolchain.

    Implements D-4 step 2, issue 37 (:func:`statement_bearing` says which files)."""
    return [Diagnostic(p.code, p.why, path, p.line) for p in identifier_problems(text)]


#: the templates of docs/record.md's path table whose files state something a person reads
#: as a claim: a node's statement, witness and relation, a target's definition modules,
#: and a partial's or reduction's file (its holes become nodes' statements) with its hole
#: witnesses
_STATEMENT_TEMPLATES = ("Statement.lean", "Witness.lean", "Relation.lean",
                        "defs/<Stem>.lean", "-partial.lean", "-partial.h<k>.witness.lean",
                        "-reduction.lean", "-reduction.h<k>.witness.lean",
                        "review/candidates/<ts>-<pseudonym>.lean")


@lru_cache(maxsize=1)
def _statement_rules() -> frozenset[str]:
    return frozenset(r.template for r in layout.PATH_TABLE
                     if r.template.endswith(_STATEMENT_TEMPLATES))


def statement_bearing(path: str) -> bool:
    """Whether the graph path ``path`` holds a statement a person reads as a claim (the
    identifier rules of :func:`identifier_findings` apply to it): a node's
    ``Statement.lean``, ``Witness.lean``, ``Relation.lean``, a target's ``defs/*.lean``, an
    attempt's ``partial.lean``/``reduction.lean`` and their ``h<k>.witness.lean``, a
    review's candidate statement (D-9 v3.39); not a
    proof, a refutation, a vacuity proof or an alternate (the kernel checks those against
    the statement, whatever their names read as)."""
    row = layout.match(path)
    return row is not None and row[0].template in _statement_rules()
