"""Attack 3 on the import-time screen (D-4 v3.27): a raw-string opener after a dot.

The gate's lexer (:mod:`network.gate.screens.lean_lex`) read ``r"…"`` as a raw string wherever the
``r`` did not follow an identifier character, a dot included. Lean does not: after
``x.`` its ``identFn`` continues the name with the part ``r`` (``isIdFirst``), so
``x.r"\\""`` is the identifier ``x.r`` followed by the *ordinary* string ``"\\""`` (an
escaped quote inside). A raw string never has escapes, so the lexer ended its "raw
string" at the escaped quote and opened a string at the quote that really closes Lean's;
from there on it read Lean's code as string and Lean's string as code.

Mathlib-free, valid Lean: ``@[deprecated x.r "msg"]`` takes an identifier and then a
string with no space needed (``deprecated (ppSpace ident)? (ppSpace str)?``: ``ppSpace``
is formatting only), so ``@[deprecated x.r"\\""] def y …`` hid every following line from
the screen up to the next quote, which a ``-- "`` after Lean's own string then paired
off. The payload of attack d30 (an ``app_unexpander`` whose value runs IO, evaluated by
every checker's import) passed step 2; so did a hidden ``set_option debug.skipKernelTC``
and a hidden ``axiom``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from network.gate.artifacts import (
    forbidden_option_findings,
    import_time_problems,
    statement_command_findings,
)
from network.gate.screens.lean_lex import lex
from tests.test_gate_import_screen import proof_step2

#: quote-free import-time code (the checkers' import evaluates the unexpander's value)
PAYLOAD = ("@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := fun _ =>\n"
           "  match (IO.Process.exit 0 : IO Unit).run () with | _ => throw ()\n")


def hostile(hidden: str) -> str:
    """A proof whose ``hidden`` lines the old lexer read as the inside of a string."""
    return ("def x.r : Nat := 0\n"
            '@[deprecated x.r"\\""] def y : Nat := 1\n'
            + hidden +
            'def w : String := "-- "\n'
            "theorem stmt_root : True := trivial\n")


def test_lean_reads_the_hidden_lines_as_code() -> None:
    """The lexer now reads what Lean reads or refuses: the payload is code, never a string."""
    text = hostile(PAYLOAD)
    lexed = lex(text)
    hidden_at = text.index("@[app_unexpander")
    inside = [t for t in lexed.tokens if t.start <= hidden_at < t.start + len(t.text)]
    assert lexed.ambiguities or inside[0].kind not in ("string", "raw")


def test_the_hidden_payload_is_refused() -> None:
    problems = import_time_problems(hostile(PAYLOAD))
    assert any(p.code in ("import-time-code", "lean-lex-ambiguous") for p in problems)


@pytest.mark.parametrize("hidden", ["set_option debug.skipKernelTC true\n",
                                    "axiom boom : False\n"])
def test_hidden_options_and_axioms_are_refused(hidden: str) -> None:
    assert forbidden_option_findings(hostile(hidden), "P.lean")


def test_a_statement_cannot_hide_a_command_so() -> None:
    assert statement_command_findings(hostile(PAYLOAD), "S.lean")


def test_step_2_refuses_the_attack(tmp_path: Path) -> None:
    step2, path = proof_step2(tmp_path / "g", hostile(PAYLOAD))
    assert not step2.ok
    assert {d.code for d in step2.diagnostics if d.path == path} & {
        "import-time-code", "lean-lex-ambiguous"}


@pytest.mark.parametrize("text", [
    'def s := r"a\\b"\n',                     # a raw string where Lean opens one
    'def s := (r#"x"y"#, r"\\")\n',
    "def x.r : Nat := 0\ndef z := x.r\n",      # a name part r, no string glued
    'def s := f.r "a"\n',                     # spaced: an ordinary application
])
def test_legitimate_raw_strings_and_names_still_pass(text: str) -> None:
    assert import_time_problems(text) == []
    assert forbidden_option_findings(text, "P.lean") == []


@pytest.mark.parametrize("text", [
    'def s := #[0x1r"\\"] -- "\n',   # Lean: the number 0x1, then a raw string
    "def c := #[2'\"'] -- \"\n",      # Lean: 2, then the char literal '"'
    "def c := #[0x1'\"'] -- \"\n",
])
def test_a_literal_glued_to_a_number_fails_closed(text: str) -> None:
    """Hardening, not a demonstrated hole (Lean's application needs a space, and no
    parser known here takes a number and a literal unspaced): Lean's number literal ends
    where the lexer's does not, so the two would end the literal in different places."""
    assert [a for a in lex(text).ambiguities if "number" in a[1]]
    assert forbidden_option_findings(text, "P.lean")


@pytest.mark.parametrize("text", ["def s := 0x1F + 2\n", "def x := (2, \"a\")\n",
                                  "theorem foo2' : True := trivial\n",
                                  "def s := a[0]'h\n"])
def test_numbers_beside_other_tokens_still_pass(text: str) -> None:
    assert lex(text).ambiguities == []
