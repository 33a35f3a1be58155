"""The import-time screen: what a contributor Lean file may not hold because the
checkers' import would evaluate it (D-4 v3.27, attack d30; D-3 v3.28).

The gate's checkers import every contributed module with its environment extensions
(``Common.lean``'s ``loadExts := true``), and an import runs what a module registered:
attributes outside :data:`INERT_ATTRIBUTES`, notation, syntax, macros, elaborators,
printers, parsers, initializers, simprocs. :func:`import_time_problems` reads a file's
token stream (:mod:`network.gate.screens.lean_lex`, fail closed) and lists each such construct;
:func:`import_time_findings` turns them into step 2's ``import-time-code`` findings.
The attribute reader (:func:`attribute_names`) and the dotted-name test are shared with
the statement rules of :mod:`network.gate.screens.lean_text_rules`. :mod:`network.gate.artifacts`
re-exports every name here (issue 17).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from network.errors import define
from network.gate.result import Diagnostic
from network.gate.screens import lean_lex

define("import-time-code", 2, 422,
       "A submitted Lean file registers something that runs code when the module is "
       "imported (an attribute outside the inert list, notation, syntax, a macro, an "
       "elaborator, a printer, a parser, an initializer, a simproc, a hash command, "
       "`unsafe` code, or a name reaching Lean's elaborator, printer or environment "
       "extension internals); the gate's checkers import your module.",
       "Use a plain definition, lemma or theorem instead: write the proof with the "
       "tactics and lemmas the pinned libraries already have, and nothing that "
       "registers syntax, printing or code of its own.")


# --- attributes and dotted names (the statement rules read them too) ---------------

#: attributes a module of record may carry (D-3 v3.28: nothing in it runs code when it is
#: loaded): none registers a printer, an elaborator or code an import evaluates
#: (``app_unexpander``, ``delab``, ``term_elab``, ``implemented_by``, ``coe``, ``init`` …
#: are outside it; attack18). ``category``, ``AMS``, ``formal_proof`` (and its
#: ``conditional`` prefix) are Formal Conjectures' (FormalConjecturesUtil/Attributes):
#: tags kept in a ``registerSimplePersistentEnvExtension``, whose import folds the tags
#: as data and evaluates nothing
INERT_ATTRIBUTES = frozenset({
    "simp", "reducible", "irreducible", "semireducible", "inline", "noinline", "instance",
    "ext", "norm_cast", "push_cast", "simps", "elab_as_elim", "induction_eliminator",
    "cases_eliminator", "nolint", "deprecated", "grind", "category", "AMS", "local",
    "scoped", "specialize", "formal_proof", "conditional"})


def attribute_names(code: list[lean_lex.Token], i: int) -> tuple[list[lean_lex.Token], int]:
    """The attribute names of the ``@[…]`` list whose ``@[`` is ``code[i]`` (each entry's
    first word after ``local``/``scoped``, «» kept), and the index after its ``]``.

    Read fail closed (attack-screen): the list ends at the ``]`` that balances its ``@[``,
    counting every ``[`` and ``]`` inside a code token (the lexer reads ``a[i]!``,
    ``a[i]'h`` and ``a[i]?`` with the bracket glued to the next character, ``]!``, and
    Lean still closes a bracket there: a list that skipped them would swallow the rest of
    the file); a word after any ``,`` in the list, and after ``attr :=`` (Mathlib's
    ``@[simps (attr := …)]`` applies those attributes), is read as an attribute name.
    """
    names: list[lean_lex.Token] = []
    depth, start, j = 1, True, i + 1
    while j < len(code) and depth:
        t = code[j]
        if t.kind in ("other", "keyword") and ("[" in t.text or "]" in t.text):
            depth += t.text.count("[") - t.text.count("]")
        elif t.text == "," or (t.text == ":=" and code[j - 1].text == "attr"):
            start = True
        elif start and t.kind in ("name", "keyword"):
            names.append(t)
            start = t.text in ("local", "scoped")
        j += 1
    return names, j


def _glued_to_dot(code: list[lean_lex.Token], i: int) -> bool:
    """Whether ``code[i]`` is a part of a dotted name (a glued ``.`` before or after)."""
    tok = code[i]
    before = i > 0 and code[i - 1].text == "." and (
        code[i - 1].start + 1 == tok.start)
    after = i + 1 < len(code) and code[i + 1].text == "." and (
        tok.start + len(tok.text) == code[i + 1].start)
    return before or after


# --- the import-time screen (D-4 v3.27, attack d30) ----------------------------------

#: command and term words that register syntax, macros, elaborators, parsers, printers,
#: simprocs or initializers, run code at elaboration, or declare code outside the kernel's
#: reach; refused as a whole token (a part of a dotted name, ``Foo.macro``, is a name:
#: Lean's ``identFn`` reads ``Foo.macro`` as one identifier, which starts no command).
#: ``export`` is here though its alias entries are data: no proof needs it, and an alias
#: changes what a name in a claim resolves to.
IMPORT_TIME_WORDS = frozenset({
    "notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "syntax",
    "macro", "macro_rules", "elab", "elab_rules", "delab", "app_unexpander", "app_delab",
    "binder_predicate", "run_cmd", "run_elab", "run_meta", "run_tac", "by_elab",
    "initialize", "builtin_initialize", "declare_syntax_cat", "unsafe", "implemented_by",
    "extern", "export", "simproc", "dsimproc", "simproc_decl", "dsimproc_decl",
    # issue 32: `simproc_pattern% (_ + _ : Nat) => f` makes a plain `f` a simproc, which
    # the inert `attribute [simp] f` then registers (src/Init/Simproc.lean: the tokens
    # `simproc_pattern% `, `cbv_simproc_pattern% `, `cbv_simproc_decl `, the attribute
    # `cbv_simproc`; the lexer reads the word before `%`)
    "simproc_pattern", "dsimproc_pattern", "cbv_simproc_pattern", "cbv_simproc_decl",
    "cbv_simproc", "grind_propagator",
    "register_option", "register_simp_attr", "initialize_simps_projections",
    "add_aesop_rules", "declare_aesop_rule_sets"})
#: word prefixes refused the same way (``register_label_attr``, ``declare_config_elab``,
#: ``builtin_simproc``, ``initialize_simps_projections``): Lean's and Mathlib's commands
#: that register an extension or an attribute are named so
IMPORT_TIME_PREFIXES = ("register_", "declare_", "builtin_", "initialize")
#: substrings of a name component that reach Lean's printer, elaborator, parser,
#: evaluator or environment-extension internals (``Lean.PrettyPrinter.Unexpander``,
#: ``Lean.Elab.Command``, ``Lean.modifyEnv``, ``unsafeBaseIO``); matched in every part of
#: a dotted name, glued or not
IMPORT_TIME_NAME_PARTS = (
    "PrettyPrinter", "Delaborator", "Unexpander", "Parenthesizer", "Formatter", "Elab",
    "evalConst", "KeyedDeclsAttribute", "modifyEnv", "setEnv", "addEntry",
    "EnvExtension", "registerBuiltinAttribute", "registerSimproc", "Simproc", "unsafe",
    "CoreM", "MetaM", "TacticM", "AttrM", "ImportM", "MacroM", "ParserDescr",
    "TrailingParser", "enableInitializersExecution",
    # the kernel evaluates ``Lean.reduceBool c`` / ``Lean.reduceNat c`` by running ``c``'s
    # compiled code (src/kernel/type_checker.cpp ``reduce_native``, ``run_boxed_kernel``)
    # in whatever process type-checks a term holding it: a checker's ``addDecl``
    # included. ``native_decide`` never needs the names spelled out (attack-screen)
    "reduceBool", "reduceNat", "ReduceBool", "ReduceNat")


@dataclass(frozen=True)
class ImportTimeProblem:
    """One thing :func:`import_time_problems` refuses: its 1-based ``line``, its catalog
    ``code`` (``import-time-code``, or ``lean-lex-ambiguous`` for text the lexer cannot
    place) and ``why`` (the token or construct, for a contributor)."""

    line: int
    code: str
    why: str


def _name_parts(text: str) -> list[str]:
    return [p.strip("«»") for p in text.split(".") if p]


def _denied_word(word: str) -> bool:
    return word in IMPORT_TIME_WORDS or word.startswith(IMPORT_TIME_PREFIXES)


#: code tokens after which Lean's parser expects a term: a ``#`` glued to a name there is
#: Mathlib's card notation (``{s // #s = k}``, ``(∃ s, #s = c ∧ …)``, issue 32's false
#: positives in Formal Conjectures), never a command. A command word written there is no
#: term: Lean stops with a parse error, the build fails and nothing is carried to a check.
TERM_BEFORE = frozenset({
    "(", "[", "{", "⟨", ",", "//", "=", "≠", "∧", "∨", "¬", "<", ">", "≤", "≥", "+", "-",
    "/", "•", "∣", "^", "∈", "∉", "→", "↔", "∑", "∏", "≃", "≅", "⊆", "⊂", "∩", "∪", ":",
    ":=", "↦", "=>", "show"})
# never `*` (`simp at *` ends a command), `|`, `⊢` (`at h ⊢`) or a closing bracket


def hash_command_at(code: list[lean_lex.Token], i: int) -> bool:
    """Whether ``code[i]`` starts a hash command: a keyword token ``#eval``, ``#check`` …
    (the lexer's list), or ``#`` glued to a name that begins with a lower-case ASCII
    letter or ``_`` (``#print``, ``#guard_msgs``: every hash command of Lean, Mathlib and
    Formal Conjectures is spelled so) where a command may stand: not right after a token
    of :data:`TERM_BEFORE`. ``#`` glued to another name is Mathlib's card
    notation (``#A``, ``#α``, ``#S₁``), and ``#(…)``, ``#[…]`` are terms. Lean's tokenizer
    reads the longest token of its table, so ``#eval`` is one token and ``# eval`` is
    not the command."""
    tok = code[i]
    if tok.kind == "keyword" and tok.text.startswith("#"):
        return True
    if tok.text != "#" or i + 1 >= len(code):
        return False
    nxt = code[i + 1]
    if i > 0 and code[i - 1].text in TERM_BEFORE:
        return False  # a term: card notation (see TERM_BEFORE)
    return (nxt.kind in ("name", "keyword") and nxt.start == tok.start + 1
            and re.match(r"[a-z_]", nxt.text.lstrip("«")) is not None)


def import_time_problems(text: str) -> list[ImportTimeProblem]:
    """Everything in a contributor's Lean text that could put an import-time-evaluated
    extension entry into its module's olean, or run code when the module is loaded or
    elaborated (D-4 v3.27: the checkers execute none of the contributor's code; attack
    d30). The one screen of step 2 (:func:`import_time_findings`) and of the outline
    (:func:`network.gate.postmerge.outline.printing_problem`).

    Why it is needed: every checker (network/gate/lean/Common.lean ``loadEnv``) imports the
    contributor's module with ``importModules … (loadExts := true)``. In Lean
    (leanprover/lean4 ``src/Lean/Environment.lean``) ``finalizeImport`` then runs
    ``finalizePersistentExtensions``, which calls each persistent extension's
    ``addImportedFn`` on the imported entries (and ``runInitAttrs`` after
    ``Lean.regularInitAttr``). ``src/Lean/ScopedEnvExtension.lean`` ``addImportedFn``
    calls the descriptor's ``ofOLeanEntry`` on every global *and* scoped entry;
    ``src/Lean/KeyedDeclsAttribute.lean`` ``init`` sets ``ofOLeanEntry`` to
    ``ctx.env.evalConstCheck γ … entry.declName``, so every imported macro, elab, delab,
    unexpander and tactic entry is *evaluated* at import (a constant-valued one,
    ``unsafeBaseIO (…)``, runs its body there); ``src/Lean/Parser/Extension.lean``
    ``ParserExtension.OLeanEntry.toEntry`` calls ``mkParserOfConstant`` (``evalConst`` of
    the parser or ``ParserDescr``) on every imported parser entry, and
    ``src/Lean/Meta/Tactic/Simp/Simproc.lean`` ``getSimprocFromDeclImpl``
    ``evalConstCheck``-s every imported simproc. A ``local`` attribute's entry is not
    exported (``ScopedEnvExtension.addLocalEntry`` writes no ``newEntries``), but the
    screen refuses a non-inert name whatever its prefix.

    Read from :mod:`network.gate.screens.lean_lex`'s code tokens (a word in a comment or a string
    is nothing), fail closed:

    - an attribute outside :data:`INERT_ATTRIBUTES`, written ``@[…]`` (``local``/``scoped``
      prefixes seen through) or in an ``attribute […] name`` command (``local``,
      ``scoped`` and erasing ``-`` seen through: ``attribute [local simp] foo`` passes);
      every name after a ``,`` of the list or after ``attr :=`` (``@[simps (attr := …)]``)
      is held to the list, and the list's other words (arguments, a ``config`` term) to
      the rules below (:func:`attribute_names`; attack-screen);
    - a whole token of :data:`IMPORT_TIME_WORDS` or starting with one of
      :data:`IMPORT_TIME_PREFIXES`, not glued to a dot (the ``unsafe`` modifier, the
      ``notation`` command …);
    - any name component holding one of :data:`IMPORT_TIME_NAME_PARTS`;
    - a hash command (``#eval``, ``#check``, or ``#`` glued to a name: without the
      toolchain's token table the gate cannot tell ``#foo`` from Mathlib's card notation
      ``#s``, so both are refused; ``#(s)`` and ``#[…]`` pass);
    - text the lexer cannot place (``lean-lex-ambiguous``).

    Out of scope: a target's ``defs/`` modules, which curators write at intake (no pull
    request may add one: :func:`classify` refuses the path).

    Returns:
        the problems in line order, at most one ``import-time-code`` per (line, why).
    """
    lexed = lean_lex.lex(text)
    out = [ImportTimeProblem(line, "lean-lex-ambiguous", why)
           for line, why in lexed.ambiguities]
    seen: set[tuple[int, str]] = set()

    def refuse(line: int, why: str) -> None:
        if (line, why) not in seen:
            seen.add((line, why))
            out.append(ImportTimeProblem(line, "import-time-code", why))

    code = lexed.code_tokens()
    judged: set[int] = set()
    i = 0
    while i < len(code):
        tok = code[i]
        if tok.kind in ("string", "raw", "char") or tok.start in judged:
            i += 1
            continue
        if tok.text == "@[" or (tok.text == "attribute" and tok.kind in ("keyword", "name")
                                and i + 1 < len(code) and code[i + 1].text == "["):
            at = i if tok.text == "@[" else i + 1
            names = attribute_names(code, at)[0]
            for a in names:
                if a.text.strip("«»") not in INERT_ATTRIBUTES:
                    refuse(a.line, f"the attribute {a.text}")
            if not names:
                refuse(tok.line, "an attribute list with no name the gate can read")
            # the list's other words (arguments, a config term) are held to the word
            # and name-part rules below like any code; its names are judged already
            judged.update(a.start for a in names)
            i = at + 1
            continue
        if hash_command_at(code, i):
            shown = tok.text if tok.text != "#" else "#" + code[i + 1].text
            refuse(tok.line, f"the command {shown}")
            i += 1
            continue
        if tok.kind in ("name", "keyword"):
            word = tok.text.strip("«»")
            if tok.text == "attribute":
                refuse(tok.line, "an attribute command the gate cannot read")
            elif "." not in tok.text and _denied_word(word) and not _glued_to_dot(code, i):
                refuse(tok.line, word)
            for part in _name_parts(tok.text):
                if any(p in part for p in IMPORT_TIME_NAME_PARTS):
                    refuse(tok.line, tok.text)
                    break
        i += 1
    return sorted(out, key=lambda p: (p.line, p.code))


def import_time_findings(text: str, path: str) -> list[Diagnostic]:
    """:func:`import_time_problems` of a contributor's Lean file as step-2 findings
    (``import-time-code``; ``lean-lex-ambiguous`` too, so this check fails closed on its
    own). Needs no toolchain: the finding is reported whether or not Lean is installed."""
    return [Diagnostic(p.code, p.why[:80], path, p.line)
            for p in import_time_problems(text)]
