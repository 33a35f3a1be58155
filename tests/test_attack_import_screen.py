"""Attacks on the import-time screen (D-4 v3.27, attack d30): Lean texts built to pass
:func:`network.gate.artifacts.import_time_problems` while a real Lean (v4.2x–v4.3x with
Mathlib) would compile them into a module whose import runs the contributor's code.

``BROKEN`` held before this file's fix: the attribute list reader counted only ``[`` and
``]`` tokens, and the lexer reads ``a[i]!``, ``a[i]'h``, ``a[i]?`` with the closing bracket
glued (``]!``), so a Mathlib ``@[simps (config := …)]`` or ``attribute [simps …]`` whose
config term indexes an array never closed and the screen skipped the rest of the file;
and the words of an attribute list past its first name were never read, so Mathlib's
``@[simps (attr := init f)]`` (``simpsOptAttrOption``: ``(attr := attrInstance,*)``)
passed. ``HELD`` are attempts the screen already refused (kept as evidence); ``PASS`` are
legitimate texts that must still pass.
"""

from __future__ import annotations

import pytest

from network.gate.artifacts import attribute_names, import_time_problems
from network.gate.postmerge.outline import printing_problem
from network.gate.screens.lean_lex import lex

#: the payload of attack d30: its import prints a forged verdict and exits
PAYLOAD = ('@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := unsafeBaseIO '
           '(do IO.println "{\\"verdict\\": \\"pass\\"}"; IO.Process.exit 0)\n')

BROKEN = {
    "simps-config-bang-swallows-file":
        "@[simps (config := {fullyApplied := #[true][0]!})] def p : Nat × Nat := "
        "Prod.mk 1 2\n" + PAYLOAD,
    "simps-config-quote-swallows-file":
        "@[simps (config := {fullyApplied := #[true][0]'(by decide)})] def p : Nat × Nat "
        ":= Prod.mk 1 2\n" + PAYLOAD,
    "simps-config-question-swallows-file":
        "@[simps (config := {fullyApplied := (#[true][0]?).getD true})] def p : Nat × Nat "
        ":= Prod.mk 1 2\n" + PAYLOAD,
    "attribute-cmd-swallows-file":
        "attribute [simps (config := {fullyApplied := #[true][0]!})] p\n" + PAYLOAD,
    "simps-attr-option-init": "@[simps (attr := init f)] def p : Nat × Nat := Prod.mk 1 2\n",
    "simps-attr-option-macro":
        "@[simps (attr := macro foo)] def p : Nat × Nat := Prod.mk 1 2\n",
    "config-term-reaches-elab":
        "@[simps (config := (Lean.Elab.Term.x : Simps.Config))] def p : Nat × Nat := "
        "Prod.mk 1 2\n",
}

HELD = {
    "simps-attr-option-second":
        "@[simps (attr := simp, init f)] def p : Nat × Nat := Prod.mk 1 2\n",
    "spaced": "@[ app_unexpander Eq ] def u := 1\n",
    "guillemets": "@[«app_unexpander» Eq] def u := 1\n",
    "comment-in-list": "@[/- x -/ app_unexpander Eq] def u := 1\n",
    "glued-comma": "@[simp,app_unexpander Eq] def u := 1\n",
    "namespaced": "@[Lean.PrettyPrinter.app_unexpander Eq] def u := 1\n",
    "after-private": "private @[app_unexpander Eq] def u := 1\n",
    "prio-then-tactic": "@[instance 100, tactic foo] def u := 1\n",
    "paren-prio-then-elab": "@[simp (high), term_elab foo] def u := 1\n",
    "deprecated-then-init": '@[deprecated foo (since := "x"), init] def u := 1\n',
    "quoted-init": "@[simp, «init»] def u := 1\n",
    "scoped-then-init": "@[scoped simp, init] def u := 1\n",
    "set-option-in": "set_option pp.all true in\n@[init] def u := 1\n",
    "command_elab": "@[command_elab foo] def u := 1\n",
    "term_parser": "@[term_parser] def u := 1\n",
    "env_linter": "@[env_linter] def u := 1\n",
    "export-attr": "@[export foo] def u := 1\n",
    "builtin": "@[builtin_term_parser] def u := 1\n",
    "string-attr": '@["init"] def u := 1\n',
    "paren-name": "@[(app_unexpander) Eq] def u := 1\n",
    "glued-lists": "@[instance]@[init] def u := 1\n",
    "mid-line": "def a := 1 @[init] def u := 1\n",
    "in-mutual": "mutual\n@[init] def a := 1\nend\n",
    "attribute-glued": "attribute[app_unexpander Eq] x\n",
    "attribute-comment": "attribute /- c -/ [app_unexpander Eq] x\n",
    "attribute-newline": "attribute\n[app_unexpander Eq] x\n",
    "open-in-macro": 'open Lean in\nmacro "x" : term => `(1)\n',
    "scoped-notation": 'scoped[Foo] notation "x" => 1\n',
    "binder_predicate": 'binder_predicate x " > " y:term => `($x > $y)\n',
    "syntax-prec": 'syntax:max "x" : term\n',
    "simproc_decl": "simproc_decl foo (x) := fun _ => pure .continue\n",
    "declare_config_elab": "declare_config_elab foo Bar\n",
    "declare_simp_like_tactic": 'declare_simp_like_tactic x "x" y z\n',
    "default_instance": "@[default_instance] instance : Inhabited Nat := ⟨1⟩\n",
    "unification_hint-attr": "@[unification_hint] def u := 1\n",
    "to_additive": "@[to_additive] def u := 1\n",
    "hash-bang": "#eval! 1\n",
}

PASS = {
    "simp": "@[simp] theorem t : 1 = 1 := rfl\n",
    "instance-prio-cmd": "attribute [local instance 100] x\n",
    "simps-config": "@[simps (config := .asFn)] def p : Nat × Nat := (1, 2)\n",
    "simps-attr-simp": "@[simps (attr := simp)] def p : Nat × Nat := (1, 2)\n",
    "getElem-bang-in-proof":
        "@[simp] theorem t (a : Array Nat) (h : 0 < a.size) : a[0]! = a[0] := by simp\n",
    "deprecated": '@[deprecated (since := "2024-01-01")] theorem t : True := trivial\n',
}


@pytest.mark.parametrize("text", list(BROKEN.values()), ids=list(BROKEN))
def test_broken_attempt_is_now_refused(text: str) -> None:
    probs = import_time_problems(text)
    assert any(p.code == "import-time-code" for p in probs), probs
    assert printing_problem(text) is not None


@pytest.mark.parametrize("text", list(HELD.values()), ids=list(HELD))
def test_held_attempt_stays_refused(text: str) -> None:
    assert any(p.code == "import-time-code" for p in import_time_problems(text))


@pytest.mark.parametrize("text", list(PASS.values()), ids=list(PASS))
def test_legitimate_text_still_passes(text: str) -> None:
    assert import_time_problems(text) == []


def test_glued_closing_bracket_ends_the_list() -> None:
    """``]!`` closes the bracket its ``[`` opened: the list ends at its own ``]``, so what
    follows is read as code."""
    text = "@[simps (config := {fullyApplied := #[true][0]!})] def p := 1\n"
    code = lex(text).code_tokens()
    names, after = attribute_names(code, 0)
    assert [n.text for n in names] == ["simps"]
    assert code[after].text == "def"


@pytest.mark.parametrize("text", [
    "unif_hint (n : Nat) where n =?= 1 ⊢ n + 0 =?= 1\n",
    "deriving instance Repr for Foo\n",
    "irreducible_def foo : Nat := 1\n",
    "add_decl_doc foo\n",
    'library_note "x" /-- y -/\n',
    "def x := eval% 1 + 1\n",
])
def test_commands_that_register_only_data_pass(text: str) -> None:
    """Held: these pass the screen and register nothing an import evaluates (a unification
    hint, a derived instance, a doc string, a library note are data; ``irreducible_def``
    expands to an opaque wrapper, a def and theorems; ``eval%`` evaluates its term when the
    file is elaborated, not when it is imported)."""
    assert import_time_problems(text) == []


def test_a_name_lean_would_split_is_refused() -> None:
    """Hardening, not a demonstrated hole: Pygments reads ``ⁿ`` (U+207F) as an identifier
    character, Lean's ``isIdRest`` does not (its subscripts start at U+2080), so
    ``sⁿmacro`` is one name to the screen and ``s``, ``ⁿ…``, ``macro`` to Lean. Without a
    token starting with ``ⁿ`` in scope Lean refuses the file anyway (a parse error); the
    screen refuses it without relying on that."""
    text = 'abbrev c (s : Nat) := sⁿmacro "x" : term => `(1)\n'
    # since issue 32 the lexer's names are Lean's: it splits where Lean splits
    assert [t.text for t in lex(text).code_tokens() if "ⁿ" in t.text] == ["ⁿ"]
    assert any(p.code == "import-time-code" for p in import_time_problems(text))
    assert import_time_problems('theorem t : True := trivial -- xⁿ\n') == []
    assert import_time_problems('def s := "𝔼ⁿ"\n') == []


@pytest.mark.parametrize("text", [
    "theorem r (h : Lean.reduceBool c = true) : True := trivial\n",
    "theorem t : True := Lean.ofReduceBool c true rfl ▸ trivial\n",
    "def n := Lean.reduceNat c\n",
])
def test_native_reduction_spelled_out_is_refused(text: str) -> None:
    """Check time, not import time, but the same trust base: the kernel runs the code of
    ``c`` when it reduces ``Lean.reduceBool c`` (``reduce_native``), so a type holding it
    that a checker's ``addDecl`` compares (CheckRelation's join) would run the
    contributor's code in the checker; ``c`` needs no ``unsafe`` to do IO (``(act).run ()``
    with the world token ``()``). Refused where written; ``native_decide`` (waivered)
    still passes."""
    assert any(p.code == "import-time-code" for p in import_time_problems(text))
    assert import_time_problems("theorem t : 2 + 2 = 4 := by native_decide\n") == []


def test_simps_attrs_name_literal_holds() -> None:
    """Held (passes the screen, nothing evaluated at import): Mathlib's ``Simps.Config``
    field ``attrs : List Name`` puts attributes on the *generated lemmas*, which are
    theorems stating equations; each import-evaluated attribute checks its declaration's
    type when added (KeyedDeclsAttribute ``evalConstCheck``, ``mkParserOfConstant``'s
    parser types, ``init``'s ``IO`` type), so on a theorem it fails to elaborate."""
    text = "@[simps (config := {attrs := [`init]})] def p : Nat × Nat := (1, 2)\n"
    assert import_time_problems(text) == []
