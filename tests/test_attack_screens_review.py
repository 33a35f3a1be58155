"""A security review of step 2's static Lean text screens (issues 32 and 37), kept as
regression tests: each test is an input Lean reads as code the screens passed. Each failed
on the code it was written against (ba83b7e); the docstring of each says what it showed, and
the screens now refuse it.

Lean's facts these rest on (leanprover/lean4 ``src/Lean/Parser/Basic.lean``):
``whitespace`` looks for ``--`` and ``/-`` only *between* tokens, and ``tokenFnAux`` takes
the longest token of the token table (``c.tokens.matchPrefix``), so a comment marker that
starts inside a multi-character token is no comment; ``//`` is core's subtype token
(``{ x : α // p x }``).
"""

from __future__ import annotations

import pytest

from network.gate.screens.import_screen import import_time_problems
from network.gate.screens.lean_text_rules import forbidden_option_findings
from network.gate.screens.unicode_screen import identifier_findings

MACRO = ('@[macro Lean.Parser.Term.app] def evil : Lean.Macro := fun _ => '
         'Lean.Macro.throwUnsupported')


def test_subtype_token_glued_to_minus_is_no_block_comment() -> None:
    """``{n : Int //-1 < n}`` is core's subtype with the negative literal ``-1``: Lean's
    tokenizer takes ``//`` (the longest token at the first ``/``) and then ``-1``; no
    comment opens. The gate's lexer has no ``//`` token: it reads ``/`` and then ``/-``,
    a block comment, which hides every line up to a ``-/`` that Lean reads inside a line
    comment. The ``@[macro …]`` between passes the import-time screen (and a Lean build of
    this text succeeds: ``S`` is a type, the macro a command)."""
    text = "def S := {n : Int //-1 < n}\n" + MACRO + "  -- -/\n"
    assert import_time_problems(text), "a macro Lean registers passed the screen"


def test_subtype_block_comment_hides_a_forbidden_option() -> None:
    """The same ``//-`` hides ``set_option debug.skipKernelTC true`` from
    ``forbidden_option_findings`` (Lean reads the option; the lexer reads a comment)."""
    text = ("def S := {n : Int //-1 < n}\n"
            "set_option debug.skipKernelTC true  -- -/\n"
            "theorem t : True := trivial\n")
    assert forbidden_option_findings(text, "P.lean"), "the option passed"


def test_subtype_block_comment_hides_look_alike_names_in_a_statement() -> None:
    """And from the identifier screen: a Cyrillic ``а`` in a name in a statement-bearing
    file is ``lean-mixed-script-identifier``, but not when the ``//-`` pseudo-comment
    covers it (Lean reads the name as code)."""
    text = ("def S := {n : Int //-1 < n}\n"
            "theorem fооbar : True := trivial  -- -/\n")  # Cyrillic о о
    assert identifier_findings(text, "Statement.lean"), "the look-alike name passed"


def test_hash_command_after_simp_at_wildcard_is_a_command() -> None:
    """``TERM_BEFORE`` assumes a token such as ``*`` is always followed by a term, so a
    ``#`` glued to a name after it is card notation. But ``simp at *`` *ends* a tactic
    block with ``*``: the next line is at command position, and Lean reads ``#eval!``
    (a core command token; the lexer's ``#eval`` keyword does not match before ``!``) as
    the command, which runs arbitrary ``CommandElabM`` code during the build and may add
    what an import then evaluates. The screen passes it."""
    text = ("theorem t (h : 1 = 1) : True := by simp at *\n"
            "#eval! IO.println \"runs\"\n")
    assert import_time_problems(text), "the hash command #eval! passed the screen"


def test_look_alike_comment_closer_changes_what_a_statement_reads() -> None:
    """A comment closer written with U+2011 NON-BREAKING HYPHEN (``‑/``, drawn as ``-/``)
    is no closer to Lean: ``finishCommentBlock`` reads on to the real ``-/``, which the
    reader takes for part of a ``--`` line comment. A reviewer of this Statement.lean reads
    ``theorem t : 1 = 1 ∧ 2 = 3`` and Lean proves ``1 = 1``. The character is neither
    hidden (``is_hidden``) nor in a name, so no Unicode finding is made; issue 37's screen
    exists so that the text a person reads is the text Lean reads."""
    from network.gate.screens.unicode_screen import (
        delimiter_lookalike_findings,
        format_character_findings,
    )
    text = ("theorem t : 1 = 1 /- the easy half \u2011/ ∧ 2 = 3 -- -/\n"
            "  := rfl\n")
    found = (format_character_findings(text, "Statement.lean")
             + identifier_findings(text, "Statement.lean")
             + delimiter_lookalike_findings(text, "Statement.lean"))
    assert found, "a look-alike comment closer passed the Unicode screen"
    assert [d.code for d in found] == ["lean-confusable-delimiter"]
    for prose in ("-- pages 605\u2013652\n", "-- $n \u2212 1$ and $a\u2215b$\n"):
        assert delimiter_lookalike_findings(prose, "Statement.lean") == []
    for closer in ("/- x \u2212/ y -/\n", "/\u2011 x -/\n", "x \u2010- y\n"):
        assert delimiter_lookalike_findings(closer, "Statement.lean")


@pytest.mark.parametrize("number", ["0x1", "0b1", "0o7"])
def test_raw_string_glued_to_a_prefixed_number_is_vouched_for(number: str) -> None:
    """Low severity (the lexer's own contract): Lean's ``numberFnAux`` ends ``0x1`` before
    ``r``, and ``tokenFnAux`` then opens the raw string ``r#"\\"#`` (a backslash, closed by
    ``"#``). The lexer reads the number ``0``, the name ``x1r``, ``#`` and an ordinary
    string whose ``\\"`` is an escape, so it runs past Lean's end and swallows the
    ``macro`` line. ``_literal_after_number`` looks back two tokens from a quote, and the
    ``#`` is a third; the ``r``-glued-to-a-string rule wants the name to be ``r`` alone.
    No accepting Lean parse was found (an application argument needs a space before it), so
    this is a gap in the lexer's promise to fail closed, not a working bypass."""
    text = (f'def x := g {number}r#"\\"#\n'
            'macro "a" : term => `(1)\n-- "\n')
    assert import_time_problems(text), "the lexer vouched for a raw string it misread"
