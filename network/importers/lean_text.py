"""Reading a Formal Conjectures–style Lean file without elaborating it (D-10).

The file's commands come from the token reader of :mod:`network.gate.screens.lean_commands`
(Lean's command keywords, bracket depth and layout rule; issue 28); this module keeps the
text helpers the importers share (masking comments and strings, bracket matching, the
``answer(…)`` convention). What it cannot read it refuses with a catalog code; it never
guesses what a statement means. The gate (D-4) is what compiles.

Shapes: offsets are indices into the ``str`` text; every returned text is a slice of the
original file, so imported statements keep the upstream bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from network.errors import LemmataError
from network.gate.screens.lean_commands import Command, declaration_parts, read_commands

_OPEN = {"(": ")", "[": "]", "{": "}", "⦃": "⦄"}
_CLOSE = {v: k for k, v in _OPEN.items()}
DEF_KEYWORDS = frozenset({"def", "abbrev", "instance", "structure", "inductive", "class",
                          "opaque"})
THEOREM_KEYWORDS = frozenset({"theorem", "lemma"})


def mask(text: str) -> str:
    """``text`` with every comment and string literal blanked to spaces (newlines kept).

    Lean block comments nest (``/- /- -/ -/``); doc comments ``/--`` and module docs
    ``/-!`` are block comments. The result has the same length as ``text``.

    Raises:
        LemmataError: ``import-malformed-lean`` on an unterminated comment or string.
    """
    out = list(text)
    i, n, depth = 0, len(text), 0

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    start = 0
    while i < n:
        if depth:
            if text.startswith("/-", i):
                depth += 1
                i += 2
            elif text.startswith("-/", i):
                depth -= 1
                i += 2
                if not depth:
                    blank(start, i)
            else:
                i += 1
        elif text.startswith("/-", i):
            depth, start = 1, i
            i += 2
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise LemmataError("import-malformed-lean",
                                   f"unterminated string at line {text.count(chr(10), 0, i) + 1}")
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    if depth:
        raise LemmataError("import-malformed-lean",
                           f"unterminated comment opened at line {text.count(chr(10), 0, start) + 1}")
    return "".join(out)


def matching(masked: str, i: int) -> int:
    """Index just past the bracket closing the one at ``masked[i]``.

    Raises:
        LemmataError: ``import-malformed-lean`` when brackets do not balance.
    """
    stack: list[str] = []
    for k in range(i, len(masked)):
        c = masked[k]
        if c in _OPEN:
            stack.append(_OPEN[c])
        elif c in _CLOSE:
            if not stack or stack.pop() != c:
                break
            if not stack:
                return k + 1
    raise LemmataError("import-malformed-lean", f"unbalanced bracket at offset {i}")


def commands(text: str) -> list[Command]:
    """Split a Lean file into its top-level commands, in file order: the token reader of
    :mod:`network.gate.screens.lean_commands` (issue 28), which starts a command only at a
    command keyword (or a doc comment, attribute or modifier before one) at bracket depth
    0, never because a line starts in column 0.

    Returns:
        Every command; ``doc``/``attrs``/``prefix`` attached to the declaration they
        precede; comments between commands as ``comment``/``moddoc`` commands.

    Raises:
        LemmataError: ``import-malformed-lean`` (:func:`read_commands`).
    """
    return read_commands(text).commands


#: the values a statement is stated with, as code tokens (``:= sorry``, ``:= by sorry``)
SORRY_VALUES = ([":=", "sorry"], [":=", "by", "sorry"])


@dataclass(frozen=True)
class TheoremParts:
    """A theorem split at its top-level ``:`` and its value.

    Attributes:
        binders: the text between the name and the ``:`` (may be empty).
        conclusion: the text between ``:`` and the value.
        signature: everything before the value, trailing whitespace removed.
        body: the value: what follows ``:=``, stripped, or the whole ``where …`` /
            ``| …`` part of a theorem proved by structure fields or equations.
        sorry_body: whether the value is exactly ``:= sorry`` or ``:= by sorry``.
    """

    binders: str
    conclusion: str
    signature: str
    body: str
    sorry_body: bool


def theorem_parts(cmd: Command, source: str | None = None) -> TheoremParts:
    """Split a theorem command into binders, conclusion and body, on its tokens
    (:func:`~network.gate.screens.lean_commands.declaration_parts`): a ``where`` proof or a
    column-0 line of the statement stays where Lean puts it (issue 28).

    Args:
        cmd: the command, as :func:`commands` reads it.
        source: the file it was read from (default: the command's own text, read alone).

    Raises:
        LemmataError: ``import-malformed-lean`` when no top-level ``:`` or value is found.
    """
    if cmd.name is None:
        raise LemmataError("import-malformed-lean", f"line {cmd.line}: not a named theorem")
    if source is None or not cmd.tokens:
        alone = read_commands(cmd.text).commands
        decl = next((c for c in alone if c.cls == "declaration"), None)
        if decl is None:
            raise LemmataError("import-malformed-lean", f"line {cmd.line}: not a theorem")
        cmd, source = decl, cmd.text
    parts = declaration_parts(cmd, source)
    toks, base = cmd.tokens, cmd.body_start
    if parts.body >= len(toks):
        raise LemmataError("import-malformed-lean",
                           f"line {cmd.line}: theorem {cmd.name} has no ':=' body")
    if parts.colon < 0:
        raise LemmataError("import-malformed-lean",
                           f"line {cmd.line}: theorem {cmd.name} has no ':' before its type")
    name_at = toks[parts.name_end].start - base if parts.name_end < len(toks) else len(cmd.text)
    colon = toks[parts.colon].start - base
    value = toks[parts.body]
    at = value.start - base
    after = at + len(value.text) if value.text == ":=" else at
    rest = [t.text for t in toks[parts.body + 1:]]
    # the signature ends with its last code token: a line comment after it (`… = 1 -- the
    # statement`, then `:= by` on the next line) would swallow what is written after it
    last = toks[parts.body - 1]
    sig_end = last.start + len(last.text) - base
    return TheoremParts(
        binders=cmd.text[name_at:colon].strip(),
        conclusion=cmd.text[colon + 1:sig_end].strip(),
        signature=cmd.text[:sig_end],
        body=cmd.text[after:].strip(),
        sorry_body=[value.text, *rest] in SORRY_VALUES,
    )


# --- the answer(...) convention --------------------------------------------------------

_ANSWER_RE = re.compile(r"\banswer\s*\(")


def answer_terms(conclusion: str) -> list[str]:
    """The inside text of every ``answer(…)`` in a conclusion, whitespace-stripped.

    Raises:
        LemmataError: ``import-malformed-lean`` when an ``answer(`` is not closed.
    """
    masked = mask(conclusion)
    out = []
    for m in _ANSWER_RE.finditer(masked):
        open_at = m.end() - 1
        close = matching(masked, open_at)
        out.append(conclusion[open_at + 1:close - 1].strip())
    return out


def is_question(conclusion: str) -> bool:
    """Whether the statement asks for a value: it contains ``answer(sorry)`` (D-10)."""
    return any(t == "sorry" for t in answer_terms(conclusion))


def unhedged_answer(conclusion: str) -> str | None:
    """The answer term, when the statement's ``answer(…)`` is an unhedged copy of the other
    side of a relation its conclusion is built from; None otherwise (D-4 step 6, D-10;
    Formal Conjectures issue #4923).

    The rule is step 6's own (:func:`network.gate.lean.answers.restated_answer`, issue 28: one
    parser for the importer's flag and the gate's refusal): the conclusion is read on
    Lean's tokens and taken apart as its precedences nest it (a binder reaches to the end,
    then ``↔``, ``→``, ``∨``, ``∧``, ``¬``, down to each relation); where one side of a
    relation is ``answer(T)`` with ``T`` not ``sorry`` and ``T`` is the other side token
    for token (redundant parentheses aside), ``T`` as written is returned. A copy nested
    inside a term, or equal only up to unfolding, notation or type ascription, is not
    detected here (the gate's definitional layer is).
    """
    from network.gate.lean.answers import restated_answer

    return restated_answer(conclusion)
