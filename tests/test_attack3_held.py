"""Attack 3: hostile inputs the import-time screen already refused (kept as evidence, so a
later change to the lexer or the screen cannot quietly let one through). Each is valid
Lean (with Mathlib where it names a Mathlib token) whose commands Lean reads where the
lexer might have read a name, a number or a string."""

from __future__ import annotations

import pytest

from network.gate.artifacts import import_time_problems

HELD = {
    # Lean: the scientific literal `2.`, then the `macro` command; the lexer's float is
    # `2.`, so its `macro` is not glued to a lone dot and is read as the word
    "scientific-dot-then-command": 'def a : Float := 2.macro "x" : term => `(1)\n',
    # Lean: the number 2, then the keyword (no space needed between tokens)
    "number-then-command": 'def a := 2macro "x" : term => `(1)\n',
    "number-then-attribute": "def a := 2@[app_unexpander Eq] def u := 1\n",
    "number-then-attribute-cmd": "def a := 2attribute [app_unexpander Eq] a\n",
    # Mathlib's postfix `ᶜ` is no identifier character of Lean's: `s`, `ᶜ`, `macro`
    "postfix-token-then-command": 'def a (s : Set Nat) := sᶜmacro "x" : term => `(1)\n',
    "dot-space-command": 'def a := Foo. macro "x" : term => `(1)\n',
    "hash-after-number": "def a := 2#eval 1\n",
}


@pytest.mark.parametrize("text", list(HELD.values()), ids=list(HELD))
def test_held(text: str) -> None:
    assert any(p.code in ("import-time-code", "lean-lex-ambiguous")
               for p in import_time_problems(text)), text
