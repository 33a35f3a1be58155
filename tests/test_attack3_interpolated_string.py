"""Attack 3 on the import-time screen (D-4 v3.27): an interpolated string with no ``!``.

The gate's lexer (:mod:`network.gate.screens.lean_lex`) refused a string with a ``{…}`` hole only
after a name ending in ``!`` (``s!``, ``m!``, ``f!``). Lean's ``interpolatedStr`` parser
stands in more places: core's ``dbg_trace`` (term and ``do`` element, ``"dbg_trace " >>
(interpolatedStr termParser <|> termParser)``), ``throwError``, ``throwErrorAt ref``,
``trace[cls]``, and any library's own parser built on it, where the word before the
string can be anything. Inside such a string ``{`` opens a *term*, so
``dbg_trace "{'"'}"`` is a string holding the char literal ``'"'``: Lean's string ends at
the last quote, the lexer's at the second, and every line after it (up to a quote that a
``-- "`` after Lean's own string pairs off) was a string to the screen and code to Lean:
the payload of attack d30 and an ``axiom`` passed step 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from network.gate.artifacts import (
    forbidden_option_findings,
    import_time_problems,
    statement_command_findings,
)
from tests.test_gate_import_screen import proof_step2

PAYLOAD = "@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := fun _ => throw ()\n"


def hostile(hidden: str, opener: str = 'dbg_trace "{\'"\'}"') -> str:
    """A proof whose ``hidden`` lines the old lexer read as the inside of a string."""
    return ("def f : IO Unit := do\n"
            f"  {opener}\n"
            "  pure ()\n"
            + hidden +
            'def w : String := "-- "\n'
            "theorem stmt_root : True := trivial\n")


@pytest.mark.parametrize("opener", [
    'dbg_trace "{\'"\'}"',                 # a char literal holding a quote
    'dbg_trace "{("" : String)}{"\\""}"',  # strings inside the hole
    'dbg_trace "{1 -- }"\n  }"',            # a comment inside the hole
    'dbg_trace "{1 /- }" -/ }"',
])
def test_a_hidden_payload_is_refused(opener: str) -> None:
    problems = import_time_problems(hostile(PAYLOAD, opener))
    assert any(p.code in ("import-time-code", "lean-lex-ambiguous") for p in problems)


def test_a_hidden_axiom_is_refused() -> None:
    assert forbidden_option_findings(hostile("axiom boom : False\n"), "P.lean")


def test_a_statement_cannot_hide_a_command_so() -> None:
    assert statement_command_findings(hostile(PAYLOAD), "S.lean")


def test_step_2_refuses_the_attack(tmp_path: Path) -> None:
    step2, path = proof_step2(tmp_path / "g", hostile(PAYLOAD))
    assert not step2.ok
    assert {d.code for d in step2.diagnostics if d.path == path} & {
        "import-time-code", "lean-lex-ambiguous"}


@pytest.mark.parametrize("text", [
    'def s (n : Nat) : IO Unit := do\n  dbg_trace "n = {n + 1}, {toString [n, 2]}"\n',
    'def s := "a set {x | x > 1} and \\{ an escaped brace"\n',
    'def s := "no hole at all: }"\n',
    'def s := "{ {a := 1}.a }"\n',
    'def s := "{n - 1} and {n / 2}"\n',
])
def test_plain_holes_and_braces_still_pass(text: str) -> None:
    assert import_time_problems(text) == []
    assert forbidden_option_findings(text, "P.lean") == []
