"""What a landed Lean file holds of its source (issue 28; D-9, D-10): the source's
commands that a set of declarations needs, in source order, and nothing else.

A declaration needs the scopes it sits in (each ``namespace``/``section`` that is open at
it, opened and closed by the source's own commands, ``noncomputable section`` included),
the scoped commands written before it (``open … in``, ``variable … in``, ``omit … in``,
``include … in``, ``set_option … in``: they scope that declaration only), and every
command in effect at it: an ``open``, ``variable``, ``universe``, ``include``, ``omit``,
``set_option``, ``attribute`` or ``export`` before it whose scope is still open there. A
section's variables end with the section; a later ``variable`` is not in effect at an
earlier declaration.

:func:`selection` says which commands a landed file holds; :func:`render` writes them;
:func:`closure` adds the lemmas a landed definition or statement refers to (an API lemma
or a test theorem a definition's body, an instance or a termination proof calls) and says
what cannot be carried: a notation, an infix or a macro a landed declaration uses (the
gate refuses them in a module of record, D-3 v3.28), or a lemma whose proof is ``sorry``.
:mod:`network.importers.fc_roundtrip` checks the result against the source without Lean.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from network.errors import define
from network.gate.screens.lean_commands import (
    DECL,
    PREAMBLE,
    SCOPE,
    SYNTAX,
    Command,
    declaration_parts,
    name_end,
)
from network.gate.screens.lean_lex import Token
from network.importers.lean_text import SORRY_VALUES

define("import-closure-missing", None, 422,
       "A declaration the import would land refers to a lemma of its file whose proof is "
       "sorry: carried into the definitions module it would assume what nobody proved, and "
       "left out the landed declaration does not compile. The file is held for a curator.",
       "A curator decides how the statement lands (the lemma proved, or the statement "
       "imported by hand); never land it without the lemma.")

OPEN, END, PRE, DECLARATION = "open", "end", "preamble", "decl"


def in_effect(pre: Command, decl: Command) -> bool:
    """Whether the preamble command ``pre`` is in effect at ``decl``: written before it, in
    a scope still open there."""
    n = len(pre.frames)
    return pre.index < decl.index and decl.frames[:n] == pre.frames


def effective_preamble(cmds: Sequence[Command], decl: Command) -> list[Command]:
    """The preamble commands in effect at ``decl``, in source order (scoped ``… in``
    commands are its prefix, not preamble)."""
    return [c for c in cmds[:decl.index] if c.cls == PREAMBLE and not c.in_scoped
            and in_effect(c, decl)]


def selection(cmds: Sequence[Command], keep: Iterable[int]) -> list[tuple[str, Command]]:
    """The commands a file landing the declarations ``keep`` (indices into ``cmds``) holds,
    in source order, each with its role: :data:`OPEN` (a scope a kept declaration sits
    in), :data:`END` (the source's ``end`` of such a scope), :data:`PRE` (a preamble
    command in effect at a kept declaration) or :data:`DECLARATION`.

    Implements D-9's fidelity for D-10 imports (issue 28).
    """
    kept = sorted(set(keep))
    decls = [cmds[i] for i in kept]
    frames = {f for d in decls for f in d.frames}
    for c in cmds:  # `end A.B` closes two scopes at once: landing it opens both
        if c.cls == SCOPE and c.closes and any(f in frames for f in c.closes):
            frames |= set(c.closes)
    needed = {c.index for d in decls for c in effective_preamble(cmds, d)}
    opened: set[int] = set()
    out: list[tuple[str, Command]] = []
    for c in cmds:
        if c.cls == SCOPE and c.opens and any(f in frames for f in c.opens):
            out.append((OPEN, c))
            opened.add(c.index)
        elif c.cls == SCOPE and c.closes and any(f in frames for f in c.closes):
            out.append((END, c))
        elif c.index in needed:
            out.append((PRE, c))
        elif c.index in kept:
            out.append((DECLARATION, c))
    return out


def render(cmds: Sequence[Command], keep: Iterable[int],
           decl_text: Callable[[Command], str]) -> str:
    """The Lean text of :func:`selection`: scopes and preamble verbatim (with their own
    scoped prefixes), each kept declaration as ``decl_text`` writes it; a blank line
    between commands."""
    parts: list[str] = []
    for role, c in selection(cmds, keep):
        if role == DECLARATION:
            parts.append(decl_text(c).rstrip())
        else:
            parts.append("\n".join([*c.prefix, c.text]))
    return "\n\n".join(parts) + ("\n" if parts else "")


# --- what a landed declaration refers to ------------------------------------------------

#: Formal Conjectures attribute entries the import removes and records in the provenance
#: (``FormalConjecturesUtil/Attributes/Basic.lean``: ``category``, ``AMS``, and
#: ``formal_proof`` with an optional ``conditional`` before it)
FC_ATTRIBUTES = ("category", "AMS", "formal_proof")


def is_fc_attribute(entry: Sequence[str]) -> bool:
    """Whether an attribute entry (its token texts) is Formal Conjectures bookkeeping."""
    return bool(entry) and (entry[0] in FC_ATTRIBUTES or (
        entry[0] == "conditional" and entry[1:2] == ["formal_proof"]))


def attribute_entries(cmd: Command) -> list[list[Token]]:
    """Each entry of each ``@[…]`` list of ``cmd`` as its tokens (split at commas outside
    any inner bracket), Formal Conjectures bookkeeping entries left out."""
    out: list[list[Token]] = []
    for blk in cmd.attr_tokens:
        cur: list[Token] = []
        depth = 0
        for t in blk[1:-1] if len(blk) >= 2 else []:
            if t.text == "," and depth == 0:
                out.append(cur)
                cur = []
                continue
            depth += sum(t.text.count(c) for c in "([{⟨") - sum(t.text.count(c) for c in ")]}⟩")
            cur.append(t)
        out.append(cur)
    return [e for e in out if e and not is_fc_attribute([t.text for t in e])]


def referenced_names(cmd: Command, text: str, *, signature_only: bool = False) -> set[str]:
    """Every name a command's code refers to, dotted names as written (``Foo.bar``,
    ``h.foo``), its scoped prefix's included and its own declared name left out; with
    ``signature_only``, a declaration's value (a statement's proof, which is not landed)
    left out too."""
    out: set[str] = set()
    for c in [*cmd.scoped, cmd]:
        attr = [t for e in attribute_entries(c) for t in e]
        toks = attr + c.tokens
        skip: range = range(0)
        if c.cls == DECL:
            parts = declaration_parts(c, text)
            skip = range(len(attr) + parts.keyword, len(attr) + parts.name_end)
            if signature_only:
                toks = toks[:len(attr) + parts.body]
        k = 0
        while k < len(toks):
            if toks[k].kind != "name" or k in skip:
                k += 1
                continue
            j = name_end(toks, k)
            out.add("".join(t.text for t in toks[k:j]))
            k = j
    return out


def _resolves(ref: str, decl: Command, user: Command, opens: Sequence[str]) -> bool:
    """Whether the reference ``ref`` written in ``user`` may name ``decl``: its full name,
    the name relative to an enclosing or opened namespace, or (field notation
    ``h.foo``) the same last component."""
    full = decl.full_name
    if ref == full:
        return True
    ns = user.namespace.split(".") if user.namespace else []
    for n in range(len(ns), 0, -1):
        if ".".join(ns[:n]) + "." + ref == full:
            return True
    if any(f"{o}.{ref}" == full for o in opens):
        return True
    last = ref.rsplit(".", 1)[-1]
    return "." in ref and "_" in last and last == full.rsplit(".", 1)[-1]


def _opens(cmds: Sequence[Command], user: Command) -> list[str]:
    out: list[str] = []
    for c in [*effective_preamble(cmds, user), *user.scoped]:
        if c.kind == "open":
            out += [w for w in c.masked.split()[1:] if re.fullmatch(r"[\w.'«»]+", w)
                    and w not in ("in", "scoped", "hiding", "renaming")]
    return out


def _string_atoms(cmd: Command) -> list[str]:
    """String literal tokens of ``cmd`` joined: the lexer gives ``"``, body, ``"``."""
    out: list[str] = []
    cur: list[str] | None = None
    for t in cmd.tokens:
        if t.kind == "string" and t.text == '"':
            if cur is None:
                cur = []
            else:
                out.append("".join(cur))
                cur = None
        elif cur is not None:
            cur.append(t.text)
        elif t.text == "=>":
            break
    return out


def _code(user: Command, text: str, signature_only: bool) -> list[Token]:
    """The code tokens of ``user`` and its scoped prefix (a statement's value left out
    with ``signature_only``)."""
    toks = [t for c in user.scoped for t in c.tokens]
    if signature_only and user.cls == DECL:
        return toks + user.tokens[:declaration_parts(user, text).body]
    return toks + [t for e in attribute_entries(user) for t in e] + user.tokens


def uses_syntax(syntax: Command, code: Sequence[Token]) -> bool:
    """Whether ``code`` uses what ``syntax`` (a notation, infix, macro, … command) adds: a
    name token equal to an identifier-like atom of it, or a symbol atom anywhere in the
    code (spaces aside). Fails closed: a ``syntax``/``elab``/``macro_rules`` command, or
    one without atoms, is taken as used."""
    atoms = [a.strip() for a in _string_atoms(syntax)]
    atoms = [a for a in atoms if a]
    if syntax.kind in ("macro_rules", "elab_rules", "syntax", "elab") or not atoms:
        return True
    joined = "".join("".join(t.text for t in code).split())
    names = {t.text for t in code if t.kind == "name"}
    for a in atoms:
        if re.fullmatch(r"[\w'.!?]+", a):
            if a in names:
                return True
        elif "".join(a.split()) in joined:
            return True
    return False


@dataclass(frozen=True)
class Closure:
    """What the declarations a file lands need beyond themselves.

    Attributes:
        lemmas: indices of theorems and lemmas to carry into the definitions module (they
            have proofs), in source order; a landed statement another landed declaration
            refers to is one too (a statement's own module is not imported by another).
        missing: ``(name, why)`` for each needed command that cannot be carried.
    """

    lemmas: list[int]
    missing: list[tuple[str, str]]


def closure(cmds: Sequence[Command], text: str, keep: Iterable[int]) -> Closure:
    """The file's lemmas and syntax the declarations ``keep`` refer to, transitively.

    Args:
        cmds: the file's commands (:func:`~network.gate.screens.lean_commands.read_commands`).
        text: the file's text.
        keep: indices of the declarations the import lands (statements and definitions).

    Returns:
        A :class:`Closure`: lemmas with a proof to carry, and what cannot be carried (a
        notation, infix, macro or syntax command a landed declaration or its preamble
        uses, a needed lemma whose proof is ``sorry``, a file's ``axiom`` it uses).

    Implements D-9's fidelity for D-10 imports (issue 28: closure).
    """
    kept = set(keep)
    lemmas: set[int] = set()
    missing: list[tuple[str, str]] = []
    theorems = [c for c in cmds if c.cls == DECL and c.kind in ("theorem", "lemma", "axiom")
                and c.name is not None]
    queue = sorted(kept)
    seen: set[int] = set()
    carried: set[int] = set()
    while queue:
        user = cmds[queue.pop()]
        statement = user.kind in ("theorem", "lemma") and user.index not in carried
        refs = referenced_names(user, text, signature_only=statement).union(
            *(referenced_names(u, text) for u in effective_preamble(cmds, user)))
        opens = _opens(cmds, user)
        for th in theorems:
            if th.index in seen or th.index == user.index:
                continue
            if any(_resolves(r, th, user, opens) for r in refs):
                seen.add(th.index)
                if th.kind == "axiom":  # never landed: the gate allows no new axiom (D-4)
                    missing.append((th.full_name, "an axiom a landed declaration uses"))
                    continue
                if _sorry_proof(th, text):
                    why = "a lemma a landed declaration uses, whose proof is sorry"
                    missing.append((th.full_name, why))
                    continue
                lemmas.add(th.index)
                carried.add(th.index)
                queue.append(th.index)
    for syn in (c for c in cmds if c.cls == SYNTAX):
        for i in sorted(kept | lemmas):
            d = cmds[i]
            statement = d.kind in ("theorem", "lemma") and i not in carried
            code = _code(d, text, statement) + [
                t for p in effective_preamble(cmds, d) for t in _code(p, text, False)]
            if syn.index < d.index and uses_syntax(syn, code):
                what = " ".join(syn.text.split())[:60]
                why = (f"uses `{what}` (line {syn.line}), a {syn.kind} command the "
                       "importer cannot land")
                missing.append((d.full_name, why))
                break
    return Closure(sorted(lemmas), missing)


def _sorry_proof(cmd: Command, text: str) -> bool:
    parts = declaration_parts(cmd, text)
    rest = [t.text for t in cmd.tokens[parts.body:]]
    return rest in SORRY_VALUES or "sorry" in rest
