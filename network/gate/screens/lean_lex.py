"""Lean 4 source as a token stream, for the gate's static scan (D-4 step 2, issue 9).

The scan that looks for options weakening checking, a proposed statement's commands and a
file's imports must see Lean's own boundaries between code, comments and literals: a
regular expression is fooled by a comment inside a comment, a ``-/`` inside a string or
a ``"`` inside a char literal. :func:`lex` reads the text with Pygments' Lean 4 lexer
(``pygments.lexers.Lean4Lexer``, alias ``lean4``), corrected where it differs from Lean's
tokenizer (``Lean/Parser/Basic.lean``, ``finishCommentBlock``, ``charLitFnAux``,
``rawStrLitFnAux``) in ways an attacker could use:

- a doc comment ``/-- … -/`` nests like any block comment (Lean's ``commentBody`` is
  ``finishCommentBlock 1``; Pygments ends it at the first ``-/``);
- a char literal ``'c'``, ``'\\n'``, ``'\\x41'``, ``'\\u03bb'`` is one token (Pygments
  reads ``'"'`` as the start of a string);
- a raw string ``r"…"``, ``r#"…"#`` is one token (Pygments ends it at the first ``"``),
  and opens only where Lean starts a token at the ``r``: never after a dot, where ``x.r``
  is a name and the quote opens an ordinary string (attack 3);
- a ``«…»``-quoted name part is one name token (Pygments lexes what is inside as code,
  so ``«x"»`` would open a string);
- any escape in a string is one token (Pygments reports ``\\t`` as an error token);
- a keyword is a keyword only as a whole identifier (Pygments reads ``prefix'`` as the
  keyword ``prefix``).

Where the lexer vouches for a text, it classes every character (code, comment, literal)
as a scanner written from those Lean rules does: ``tests/test_lean_lex.py`` holds that as
a property over generated texts (tokens such as ``]'`` and ``\\/`` are read as Lean
reads them, longest match first).

Whatever is still unclear fails closed (:attr:`Lexed.ambiguities`, catalog code
``lean-lex-ambiguous``): an error token, a comment, literal or ``«`` not closed at the
end of the file, a comment region whose nesting Lean would close elsewhere, an interpolated
string ``s!"…{…}…"`` (its holes hold terms, which may hold strings), or any string whose
``{…}`` holds a quote, an apostrophe, a backslash, «», a backquote or a comment marker, or
does not close: Lean's ``interpolatedStr`` also stands after words with no ``!``
(``dbg_trace``, ``throwError``, ``throwErrorAt ref``, a library's parser), so no word
before a string tells whether its braces hold a term (attack 3). The bans found this
way are defence in depth; the verdict still rests on the kernel (D-4 v3.27).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar, Literal

from pygments.lexer import words
from pygments.lexers import Lean4Lexer
from pygments.token import Comment, Error, Keyword, Name, String, Whitespace, _TokenType

from network.errors import define

define("lean-lex-ambiguous", 2, 422,
       "A Lean file holds text the gate's lexer cannot place with certainty (an unclosed "
       "comment or literal, an interpolated string with a hole, an unknown character "
       "sequence), so the static scan refuses it rather than pass what it cannot read.",
       "Close every comment and literal; write the string without `{…}` interpolation.")

TokenKind = Literal["comment", "doc", "string", "raw", "char", "symbol", "name", "keyword",
                    "space", "other"]

#: Lean's ``isLetterLike`` (src/Init/Meta/Defs.lean) as code point ranges: Greek but λ,
#: Π and Σ, Coptic, polytonic Greek, the letterlike block, the mathematical script,
#: double-struck and Fraktur letters, and (current Lean) Latin-1 and Latin Extended-A
#: letters but × and ÷. Where an older pin does not read a Latin-1 letter as a name, Lean
#: stops there with an error, so reading more as a name never passes what Lean refuses.
LETTER_LIKE: tuple[tuple[int, int], ...] = (
    (0x3B1, 0x3BA), (0x3BC, 0x3C9), (0x391, 0x39F), (0x3A1, 0x3A2), (0x3A4, 0x3A9),
    (0x3CA, 0x3FB), (0x1F00, 0x1FFE), (0x2100, 0x214F), (0x1D49C, 0x1D59F),
    (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0xFF), (0x100, 0x17F))
#: Lean's ``isSubScriptAlnum``: subscript digits and letters (``x₀``, ``aᵢ``, ``ⱼ``)
SUBSCRIPT_ALNUM: tuple[tuple[int, int], ...] = (
    (0x2080, 0x2089), (0x2090, 0x209C), (0x1D62, 0x1D6A), (0x2C7C, 0x2C7C))


def _class(ranges: tuple[tuple[int, int], ...], extra: str = "") -> str:
    return "[" + extra + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]"


#: Lean's ``isIdFirst`` and ``isIdRest`` as regular-expression classes (issue 32: the
#: lexer's names end exactly where Lean's ``identFnAux`` ends them, so a ``'`` after
#: ``!``, ``?`` or a modifier letter such as ``ᶜ`` or ``ˣ``, which Lean does not read as
#: part of a name, starts a token as it does for Lean)
ID_FIRST = _class(LETTER_LIKE, "A-Za-z_")
ID_REST = _class(LETTER_LIKE + SUBSCRIPT_ALNUM, "A-Za-z_0-9'!?")
_IDENT = ID_FIRST + ID_REST + "*"
#: Lean identifier characters and the suffix characters ``'``, ``!`` and ``?``.
_IDENT_CHAR = re.compile(ID_REST)
_NOT_AFTER_IDENT = r"(?<![\w'!?])"
#: a char literal: ``'`` at a token start not followed by ``'`` (Lean's ``tokenFnAux``
#: checks it before any token), one character, a newline included, or one escape
#: (``quotedCharCoreFn``), then ``'``. Where the lexer's token before it is glued to it and
#: could end in a token of the file's imports holding that ``'`` (``]'``, Mathlib's
#: ``⁻¹'``), :func:`lex` fails closed (:data:`CHAR_SAFE_BEFORE`).
_CHAR_LIT = r"'(?!')(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[^\n])|[^\\'])'"
#: what may stand right before a char literal's ``'`` without making it ambiguous: a line
#: start, whitespace, or an opening bracket or separator of core Lean, after which no
#: token holds a ``'``
CHAR_SAFE_BEFORE = frozenset("([{⟨,;")
#: what may stand right before a comment's ``--`` or ``/-`` without making it ambiguous
#: (besides whitespace and a name's or number's last character): Lean's ``whitespace``
#: opens a comment only *between* tokens, and its tokenizer takes the longest token of the
#: table, so a marker glued to a symbol may be the end of a token (core's ``//`` in
#: ``{n : Int //-1 < n}``, ``<-`` in ``x <--1``): there the lexer would read a comment
#: where Lean reads code (review of issue 37)
COMMENT_SAFE_BEFORE = frozenset("()[]{}⟨⟩,;\"'»")
#: a raw string opens only where Lean starts a token at its ``r``: not after an identifier
#: character, and not after a dot, where Lean's ``identFn`` reads ``x.r`` as a name part
#: and what follows as an ordinary string with escapes (attack 3: ``x.r"\\""`` read as
#: a raw string ended early and hid the code after it); an ``r`` glued to a quote there is
#: ``lean-lex-ambiguous`` (:func:`lex`), since after a number's dot (``2.r"…"``) Lean
#: does open one
_NOT_AFTER_IDENT_OR_DOT = r"(?<![\w'!?.])"
_RAW_STR = _NOT_AFTER_IDENT_OR_DOT + r'r(#*)"(?s:.*?)"\1'
_RAW_START = re.compile(_NOT_AFTER_IDENT_OR_DOT + r'r(#*)"')
#: a «»-quoted name part of at most this many characters is one token; a longer one (no
#: Lean name is) stays unread and fails closed, which keeps each try of the rule bounded
_GUILLEMET_MAX = 256
_GUILLEMET = "«[^»]{0,%s}»" % (_GUILLEMET_MAX,)  # noqa: UP031 - braces are the regex's


def _ident_bounded(rule: object) -> object:
    """A keyword rule whose words match only as whole Lean identifiers: Pygments bounds
    them with ``\\b``, which also ends a word before ``'``, ``!`` or ``?`` (so it reads the
    identifier ``prefix'`` as the keyword ``prefix``)."""
    if isinstance(rule, tuple) and isinstance(rule[0], words) and rule[0].prefix == r"\b":
        return (words(rule[0].words, prefix=_NOT_AFTER_IDENT, suffix=r"(?![\w'!?])"),
                *rule[1:])
    return rule


def _tokens_table(raw_strings: bool = True) -> dict[str, list[object]]:
    """Lean4Lexer's rule table with the corrections listed in the module docstring
    (without the raw-string rule when ``raw_strings`` is False)."""
    table: dict[str, list[object]] = {k: list(v) for k, v in Lean4Lexer.tokens.items()}
    extra: list[object] = [
        *([(_RAW_STR, String.Raw)] if raw_strings else []),
        (_CHAR_LIT, String.Char),
        (_GUILLEMET, Name.Quoted),
    ]
    for state in ("root", "expression"):  # `\\b` ends a keyword inside `prefix'`, `end?`
        table[state] = [_ident_bounded(rule) for rule in table[state]]
    # names exactly as Lean's identFnAux reads them (isIdFirst isIdRest*), and name
    # literals (`` `a.b ``) of such parts (issue 32)
    table["expression"] = [
        (_IDENT, Name) if isinstance(rule, tuple) and rule[1] is Name and
        isinstance(rule[0], str) else
        (rf"``?{_IDENT}(?:\.{_IDENT})*", String.Symbol)
        if isinstance(rule, tuple) and rule[1] is String.Symbol and isinstance(rule[0], str)
        else rule for rule in table["expression"]]
    expr = table["expression"]
    at = next(i for i, rule in enumerate(expr)
              if isinstance(rule, tuple) and rule[1] is Name.Builtin.Pseudo)
    table["expression"] = expr[:at] + extra + expr[at:]
    table["docstring"] = [
        (r"[^/-]+", String.Doc),
        (r"/-", String.Doc, "#push"),
        (r"-/", String.Doc, "#pop"),
        (r"[/-]", String.Doc),
    ]
    table["string"] = [
        (r'[^\\"]+', String.Double),
        (r"\\(?s:.)", String.Escape),
        ('"', String.Double, "#pop"),
    ]
    return table


class _LeanLexer(Lean4Lexer):  # type: ignore[misc]
    """Pygments' Lean 4 lexer with the corrections of :func:`_tokens_table`."""

    name = "Lean4 (gate)"
    aliases: ClassVar[list[str]] = []
    tokens = _tokens_table()


class _LeanLexerNoRaw(Lean4Lexer):  # type: ignore[misc]
    """The same without the raw-string rule: for a text holding a raw-string opener that
    nothing closes, where every try of that rule would scan to the end of the text (a
    quadratic read); each raw string in its code then fails closed."""

    name = "Lean4 (gate, no raw strings)"
    aliases: ClassVar[list[str]] = []
    tokens = _tokens_table(raw_strings=False)


@lru_cache(maxsize=2)
def _lexer(raw_strings: bool = True) -> Lean4Lexer:
    cls = _LeanLexer if raw_strings else _LeanLexerNoRaw
    return cls(stripnl=False, ensurenl=False)


def _raw_opener_unclosed(text: str) -> bool:
    """Whether some ``r#…#"`` opener of ``text`` has no ``"#…#`` after it (read once, in
    linear time: the last closer of each length is found once)."""
    last: dict[int, int] = {}
    for mt in _RAW_START.finditer(text):
        h = len(mt.group(1))
        if h not in last:
            last[h] = text.rfind('"' + "#" * h)
        if last[h] < mt.end():
            return True
    return False


@dataclass(frozen=True)
class Token:
    """One lexeme: its kind, exact text, 0-based character offset and 1-based line."""

    kind: TokenKind
    text: str
    start: int
    line: int

    @property
    def code(self) -> bool:
        """True for what Lean parses as code: not a comment, a doc comment or space."""
        return self.kind not in ("comment", "doc", "space")


@dataclass
class Lexed:
    """A Lean text as tokens.

    Attributes:
        text: the source.
        tokens: every lexeme in order; their texts concatenate to ``text``.
        ambiguities: (1-based line, why) for each place the lexer cannot vouch for.
    """

    text: str
    tokens: list[Token]
    ambiguities: list[tuple[int, str]] = field(default_factory=list)

    def code_tokens(self) -> list[Token]:
        """The tokens Lean parses (comments, doc comments and whitespace left out)."""
        return [t for t in self.tokens if t.code]

    def blanked(self) -> str:
        """The text with comments and doc comments replaced by spaces, newlines kept."""
        return "".join(re.sub(r"[^\n]", " ", t.text) if t.kind in ("comment", "doc")
                       else t.text for t in self.tokens)


def _kind(tt: _TokenType) -> TokenKind:
    if tt in String.Doc:
        return "doc"
    if tt in Comment:
        return "comment"
    if tt in String.Char:
        return "char"
    if tt in String.Raw:
        return "raw"  # one token from `r#"` to its `"#`
    if tt in String.Symbol:
        return "symbol"  # a name literal: `foo.bar, ``foo
    if tt in String:
        return "string"
    if tt in Whitespace:
        return "space"
    if tt in Keyword:
        return "keyword"
    if tt in Name and tt is not Name.Builtin.Pseudo:
        return "name"
    return "other"


def _comment_closes(region: str) -> bool:
    """Whether ``region`` is a run of block comments that Lean's ``finishCommentBlock``
    closes exactly at its end (``/-`` opens a level, ``-/`` closes one)."""
    depth, i, n = 0, 0, len(region)
    while i < n:
        two = region[i:i + 2]
        if depth == 0:
            if two != "/-":
                return False
            depth, i = 1, i + 2
        elif two == "-/":
            depth, i = depth - 1, i + 2
        elif two == "/-":
            depth, i = depth + 1, i + 2
        else:
            i += 1
    return depth == 0


_STRING_RUN = re.compile(r'(?:"(?:[^"\\]|\\(?s:.))*")+')
_ONE_STRING = re.compile(r'"((?:[^"\\]|\\(?s:.))*)"')
#: what may stand between the braces of a string the lexer still vouches for: text in which
#: no token can end or open a literal or a comment (no quote, apostrophe, backslash, «»,
#: backquote, and no `--`, `/-` or `-/`)
_PLAIN_HOLE = re.compile(r"(?:[^\"'\\«»`{}/-]|-(?![-/])|/(?!-))*")


def _hole_unplain(body: str) -> bool:
    """Whether a string's body (between its quotes, escapes kept) holds a ``{`` whose text
    up to its matching ``}`` is not :data:`_PLAIN_HOLE`, or no matching ``}``.

    Where Lean's grammar expects an ``interpolatedStr`` (``s!``, ``m!``, ``f!``, but also
    ``dbg_trace``, ``throwError``, ``throwErrorAt ref``, ``trace[…]`` and any library
    parser built on it: no word before the string tells), a ``{`` opens a *term* that runs
    to its ``}``; a quote, a char literal ``'"'`` or a comment inside it ends or opens
    literals where the lexer, reading a plain string, does not (attack 3:
    ``dbg_trace "{'"'}"`` hid every line after it)."""
    i, n = 0, len(body)
    while i < n:
        if body[i] == "\\":
            i += 2  # `\{` is an escaped brace, no hole
            continue
        if body[i] != "{":
            i += 1
            continue
        depth, j = 1, i + 1
        while j < n and depth:
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            j += 1
        if depth or not _PLAIN_HOLE.fullmatch(body[i + 1:j - 1].replace("{", "").replace(
                "}", "")):
            return True
        i = j
    return False


@lru_cache(maxsize=16)
def lex(text: str) -> Lexed:
    """Tokens of a Lean 4 source, with every place the lexer cannot vouch for.

    Args:
        text: the file's text (decoded UTF-8).

    Returns:
        A :class:`Lexed` (cached for the last few texts: step 2 reads one file with
        several rules; treat it as read-only); it never raises for odd input: what it
        cannot read is listed in ``ambiguities`` and the gate refuses it as
        ``lean-lex-ambiguous``.

    Implements the static scan of D-4 step 2 (LEAN_NOTES "Pitfalls the gate must close").
    """
    tokens: list[Token] = []
    ambiguities: list[tuple[int, str]] = []
    line = 1
    lexer = _lexer(raw_strings=not _raw_opener_unclosed(text))
    for start, tt, value in lexer.get_tokens_unprocessed(text):
        if tt in Error:
            ambiguities.append((line, f"unreadable text {value[:20]!r}"))
        tokens.append(Token(_kind(tt), value, start, line))
        line += value.count("\n")
    _check_regions(text, tokens, ambiguities)
    for tok in tokens:
        if tok.text == "«":  # the «…» rule did not match: no closing »
            ambiguities.append((tok.line, "a «…» name that does not close"))
    _literal_after_number(tokens, ambiguities)
    for k, tok in enumerate(tokens):  # a char literal glued to a token that may hold its `'`
        before = text[tok.start - 1] if tok.start else " "
        if tok.kind == "char" and not before.isspace() and before not in CHAR_SAFE_BEFORE:
            why = f"a char literal glued to a token that may hold its quote (after {before!r})"
            ambiguities.append((tok.line, why))
        opens = tok.kind in ("comment", "doc") and tok.text[:2] in ("--", "/-") and (
            k == 0 or tokens[k - 1].kind not in ("comment", "doc"))
        if opens and not (before.isspace() or before in COMMENT_SAFE_BEFORE
                          or _IDENT_CHAR.fullmatch(before) or before.isdigit()):
            why = ("a comment marker glued to a token that may hold its first character "
                   f"(after {before!r})")
            ambiguities.append((tok.line, why))
    for a, b in itertools.pairwise(tokens):  # `r"…` / `r#"…` the raw rule left
        if a.kind == "name" and a.text == "r" and b.start == a.start + 1 \
                and b.text[:1] in ('"', "#"):
            after_dot = a.start > 0 and text[a.start - 1] == "."
            ambiguities.append((a.line, "a name part `r` glued to a string after a dot"
                                if after_dot else "a raw string literal that does not close"))
    return Lexed(text, tokens, ambiguities)


def _glued(a: Token, b: Token) -> bool:
    return a.start + len(a.text) == b.start


def _literal_after_number(tokens: list[Token], ambiguities: list[tuple[int, str]]) -> None:
    """A quote or apostrophe glued to a number, or to a name glued to one, fails closed
    (attack 3, hardening): Lean's number ends where the lexer's does not (``0x1r"…"`` is
    the number ``0x1`` and a raw string to Lean, the number ``0`` and the name ``x1r`` to
    the lexer; ``2'"'`` is a char literal to Lean, whose ``'`` the lexer does not start
    after a digit), so the two would place the literal's end differently."""
    for i, tok in enumerate(tokens):
        if tok.kind == "name" and i > 0 and i + 1 < len(tokens) \
                and _glued(tokens[i - 1], tok) and _glued(tok, tokens[i + 1]) \
                and tokens[i - 1].text[:1].isdigit() and tokens[i + 1].text[:1] in ('#', '"'):
            # `0x1r#"…"#`: Lean's number ends before `r` and a raw string opens there
            ambiguities.append((tok.line, "a literal glued to a number"))
            continue
        if tok.text[:1] not in ('"', "'") or tok.kind not in ("string", "char", "other"):
            continue
        j = i
        while j > 0 and i - j < 2 and _glued(tokens[j - 1], tokens[j]) \
                and tokens[j - 1].kind in ("name", "other"):
            j -= 1
            if tokens[j].kind == "other" and tokens[j].text[:1].isdigit():
                ambiguities.append((tok.line, "a literal glued to a number"))
                break


def _check_regions(text: str, tokens: list[Token], ambiguities: list[tuple[int, str]]) -> None:
    """Hold every comment and string region to Lean's own rules (fail closed)."""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind not in ("comment", "doc", "string"):
            i += 1
            continue
        j = i
        # a line comment is a region of its own; a string's pieces never are (`"--"`)
        line_comment = tok.kind == "comment" and tok.text.startswith("--")
        while (not line_comment and j + 1 < len(tokens) and tokens[j + 1].kind == tok.kind
               and not (tok.kind == "comment" and tokens[j + 1].text.startswith("--"))):
            j += 1
        region = text[tok.start:tokens[j].start + len(tokens[j].text)]
        if tok.kind == "comment" and region.startswith("--"):
            pass  # a line comment: `--` to the end of the line, as Lean reads it
        elif tok.kind in ("comment", "doc"):
            if not _comment_closes(region):
                why = "a block comment Lean would close elsewhere or not at all"
                ambiguities.append((tok.line, why))
        elif not _STRING_RUN.fullmatch(region):
            ambiguities.append((tok.line, "a string literal that does not close"))
        elif i > 0 and tokens[i - 1].kind == "name" and tokens[i - 1].text.endswith("!") \
                and "{" in region:
            ambiguities.append((tok.line, "an interpolated string with a hole"))
        elif "{" in region and any(_hole_unplain(mt.group(1))
                                   for mt in _ONE_STRING.finditer(region)):
            why = "a string whose `{…}` Lean may read as a term holding literals"
            ambiguities.append((tok.line, why))
        i = j + 1


def is_ident_char(ch: str) -> bool:
    """Whether ``ch`` may continue a Lean identifier (see ``_IDENT_CHAR``)."""
    return bool(_IDENT_CHAR.fullmatch(ch))
