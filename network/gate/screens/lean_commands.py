"""Lean 4 commands read from tokens (issue 28; D-9, D-10): the one reader of a registry's
Lean file into its top-level commands, for the importers and for step 6's syntactic checks
(:mod:`network.gate.lean.answers`).

It reads the tokens of :mod:`network.gate.screens.lean_lex` (the lexer the import-time screen
uses; comments, strings, char literals and «» names as Lean's tokenizer reads them) and
keeps bracket depth. A new command starts only at a command keyword, or at a doc comment,
an attribute list, an attribute kind (``local``/``scoped``) or a declaration modifier
written before one, at bracket depth 0 — never because a line starts in column 0. Where
the reader cannot tell a continuation from a command it does not know, it says so
(:data:`UNKNOWN`, catalog code ``import-command-unknown``) and the caller holds the file
for a curator: nothing is silently dropped or truncated.

Where the command words come from (Lean's own grammar, not the files at hand):

- leanprover/lean4 ``src/Lean/Parser/Command.lean``: ``declaration`` is
  ``declModifiers`` (doc comment, ``@[…]``, ``private``/``public``, ``protected``,
  ``meta``/``noncomputable``, ``unsafe``, ``partial``/``nonrec``) then ``abbrev``,
  ``def``, ``theorem``, ``opaque``, ``instance`` (after ``Term.attrKind``: ``local`` /
  ``scoped``), ``axiom``, ``example``, ``inductive``, ``coinductive``, ``class
  inductive`` or ``structure``/``class``; the commands ``deriving instance``,
  ``section`` (after ``@[expose]``, ``public``, ``noncomputable``, ``meta``),
  ``namespace``, ``with_weak_namespace``, ``end``, ``variable``, ``universe``,
  ``set_option``, ``attribute``, ``export``, ``open``, ``mutual``, ``initialize`` /
  ``builtin_initialize``, ``add_decl_doc``, ``register_tactic_tag``,
  ``tactic_extension``, ``recommended_spelling``, ``gen_injective_theorems%``,
  ``include``, ``omit``, ``register_error_explanation``, ``assert_not_exists``,
  ``assert_not_imported``, ``init_quot``, ``docs_to_verso``, the ``#`` commands
  (``#check``, ``#eval``, ``#print``, ``#synth``, ``#exit``, ``#where``, ``#version``,
  …), and the trailing parser ``in`` (``cmd in cmd``: the first command scopes only the
  next one). ``Term.open`` and ``Term.set_option`` (and the tactics of the same names)
  are ``open … in term`` and ``set_option … in term``: the reader tells them from the
  commands by what follows their ``in``.
- ``src/Lean/Parser/Term.lean``: ``argument`` is ``checkWsBefore >> checkColGt >> …``
  (an application's argument must be indented past the saved position), and
  ``whereDecls``, ``matchAlts`` (``| p => e``), ``Termination.suffix``
  (``termination_by``, ``decreasing_by``) continue a declaration, as ``deriving``
  (``optDeriving``) does after ``structure``/``inductive``.
- ``src/Lean/Parser/Module.lean``: the header's ``prelude``, ``module`` and ``import``.
- ``src/Lean/Parser/Syntax.lean``: ``notation``, ``infix``/``infixl``/``infixr``/
  ``prefix``/``postfix`` (``mixfix``, after ``Term.attrKind``), ``syntax``,
  ``declare_syntax_cat``, ``macro``, ``macro_rules``, ``elab``, ``elab_rules``.
- Mathlib's command syntax: ``lemma`` (``Mathlib/Tactic/Lemma.lean``), ``notation3``
  (``Mathlib/Util/Notation3.lean``), ``scoped[NS]`` before a notation
  (``Mathlib/Tactic/ScopedNS.lean``), ``irreducible_def``, ``alias``,
  ``library_note``, ``suppress_compilation``, ``initialize_simps_projections``,
  ``#adaptation_note``. Commands a library adds that are not listed (Mathlib's
  ``name_poly_vars X, Y over k``, ``Mathlib/Tactic/Ring/NamePolyVars``) are unknown.

Shapes: offsets are indices into the ``str`` text; every text a :class:`Command` holds is
a slice of the source, so what the importer writes keeps the upstream bytes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from network.errors import LemmataError, define
from network.gate.screens.lean_lex import Token, lex

define("import-malformed-lean", None, 422,
       "A Lean file of the registry could not be read: an unterminated comment or string, "
       "or a declaration whose parts could not be found.",
       "Fix the file upstream (or pick another commit) and import again.")

define("import-command-unknown", None, 422,
       "A registry Lean file holds a command the importer's reader does not know (a "
       "library's own command such as name_poly_vars, a mutual block), or a notation, "
       "infix or macro a declaration it would land uses; what the file says cannot be "
       "landed exactly, so the file is held for a curator and nothing of it is imported.",
       "A curator reads the file and imports its statements by hand, or the importer "
       "learns the command; never land the file without it.")

#: declaration keywords (``Command.lean`` ``declaration``; Mathlib's ``lemma``)
DECLARATION_KEYWORDS = frozenset({
    "theorem", "lemma", "def", "abbrev", "instance", "structure", "inductive",
    "coinductive", "class", "example", "opaque", "axiom"})
#: commands that open or close a scope (``section`` also after its header words)
SCOPE_KEYWORDS = frozenset({"namespace", "section", "end"})
#: commands whose effect reaches the declarations after them in their scope, carried into
#: a landed file when in effect there (``open``, ``variable``, ``universe``, …)
PREAMBLE_KEYWORDS = frozenset({
    "open", "variable", "universe", "include", "omit", "set_option", "attribute", "export"})
#: commands that add syntax: never landed (the gate refuses them, D-3 v3.28); a file whose
#: landed declaration uses what one adds is held (``import-command-unknown``)
SYNTAX_KEYWORDS = frozenset({
    "notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "syntax",
    "macro", "macro_rules", "elab", "elab_rules", "declare_syntax_cat", "binder_predicate"})
#: commands that change nothing a later declaration reads: skipped, with their reason
INERT_KEYWORDS = frozenset({
    "assert_not_exists", "assert_not_imported", "library_note", "add_decl_doc",
    "recommended_spelling", "register_tactic_tag", "tactic_extension", "proof_wanted",
    "suppress_compilation", "init_quot", "docs_to_verso"})
#: known commands the importer does not land: a file holding one is held, as for an
#: unknown one (what they define cannot be carried faithfully)
UNSUPPORTED_KEYWORDS = frozenset({
    "mutual", "with_weak_namespace", "initialize", "builtin_initialize", "deriving",
    "irreducible_def", "alias", "initialize_simps_projections", "register_option",
    "register_simp_attr", "register_label_attr", "register_error_explanation",
    "gen_injective_theorems%", "run_cmd", "run_elab", "run_meta", "simproc", "dsimproc",
    "simproc_decl", "dsimproc_decl", "grind_pattern", "seal", "unseal",
    "declare_simp_like_tactic", "compile_inductive%"})
#: the module header (``Module.lean``)
HEADER_KEYWORDS = frozenset({"import", "prelude", "module"})
COMMAND_KEYWORDS = (DECLARATION_KEYWORDS | SCOPE_KEYWORDS | PREAMBLE_KEYWORDS
                    | SYNTAX_KEYWORDS | INERT_KEYWORDS | UNSUPPORTED_KEYWORDS
                    | HEADER_KEYWORDS)
#: ``declModifiers`` words, and ``sectionHeader``'s
MODIFIERS = frozenset({"private", "public", "protected", "noncomputable", "meta", "unsafe",
                       "partial", "nonrec"})
#: ``Term.attrKind``
ATTR_KINDS = frozenset({"local", "scoped"})
#: words that continue a declaration whatever column they stand in (``Term.lean``,
#: ``Command.lean``: where-declarations, termination hints, derived instances, match
#: arms' keywords, structure parents)
CONTINUATION_WORDS = frozenset({
    "where", "termination_by", "decreasing_by", "deriving", "extends", "with", "then",
    "else", "at", "from", "using", "in", "generalizing", "by", "fun", "λ", "have", "show",
    "let", "calc", "match", "if", "do", "obtain", "suffices", "nomatch", "nofun"})
#: the hash commands of core Lean and Mathlib the reader knows by name
HASH_COMMANDS = frozenset({
    "#check", "#check_failure", "#eval", "#eval!", "#reduce", "#print", "#synth", "#exit",
    "#where", "#version", "#help", "#guard_msgs", "#guard", "#guard_expr", "#lint",
    "#find", "#simp", "#norm_num", "#conv", "#time", "#min_imports", "#import_path",
    "#check_assertions", "#with_exporting", "#dump_async_env_state", "#adaptation_note",
    "#count_heartbeats", "#explode", "#instances", "#long_names", "#find_home",
    "#print_axioms", "#test", "#sample"})
#: what a command of each class is (:attr:`Command.kind` holds the keyword itself)
DECL, SCOPE, PREAMBLE, SYNTAX, INERT, UNSUPPORTED, HEADER, UNKNOWN, HASH = (
    "declaration", "scope", "preamble", "syntax", "inert", "unsupported", "header",
    "unknown", "hash")

_OPENERS = "([{⦃⟨⟦"
_CLOSERS = ")]}⦄⟩⟧"
#: tokens after which a term is complete: a word on the next line, at the command's column,
#: cannot be the term's argument (``Term.argument``'s ``checkColGt``)
_POSTFIX = frozenset({"!", "⁻¹", "ᶜ", "†", "ᵀ", "ᵒᵈ", "ᵐᵒᵖ", "ᵃᵒᵖ", "'", "°", "‖", "|"})


def _delta(tok: Token) -> int:
    """The bracket depth a code token adds (``@[`` opens, ``]'`` closes, a string none)."""
    if tok.kind not in ("other", "keyword"):
        return 0
    return sum(1 for c in tok.text if c in _OPENERS) - sum(1 for c in tok.text if c in _CLOSERS)


def _word(tok: Token) -> str:
    """The token as a command word: its text for a name or keyword, else ''."""
    return tok.text if tok.kind in ("name", "keyword") else ""


@dataclass(frozen=True)
class Frame:
    """One open ``namespace`` or ``section`` scope.

    Attributes:
        opener: the index of the command that opened it (a ``namespace A.B`` opens two).
        kind: ``namespace``, ``section`` or ``mutual``.
        name: the namespace component or the section's name ("" for an anonymous section).
    """

    opener: int
    kind: str
    name: str


@dataclass
class Command:
    """One top-level command with the doc comment and attributes written before it.

    Attributes:
        kind: the keyword (``theorem``, ``def``, ``namespace``, ``open``, ...);
            ``comment`` for a stand-alone comment, ``moddoc`` for a ``/-!`` module doc,
            ``unknown`` for a command the reader does not know.
        name: the declared name as written (``erdos_242.variants.known_result``), if any.
        namespace: the enclosing namespaces joined by dots ("" at top level).
        doc: the ``/-- … -/`` doc comment text, verbatim, or None.
        attrs: each ``@[…]`` attribute block's inside text, verbatim.
        prefix: the scoped commands (``open … in``, ``variable … in``, ``omit … in``,
            ``set_option … in``, …) written before it, verbatim, each ending with ``in``.
        text: the command itself (from its modifiers or keyword), verbatim, trailing
            whitespace removed.
        masked: ``text`` with comments and strings blanked (same length).
        line: the 1-based line the command's keyword is on.
        modifiers: declaration modifiers and attribute kinds before the keyword.
        cls: the command's class (:data:`DECL`, :data:`PREAMBLE`, :data:`UNKNOWN`, ...).
        index: its position in the file's command list.
        start: offset of its first character (doc comment or prefix included).
        body_start: offset of ``text`` in the source.
        end: offset just past its last code token.
        frames: the scopes open at the command (for ``end``: including the one it closes).
        scoped: the commands of ``prefix``, each a :class:`Command` with ``in_scoped``.
        in_scoped: True for a command ending with a trailing ``in`` (it scopes the next).
        tokens: its code tokens from its first modifier or keyword on (doc comment,
            attributes and scoped prefix excluded).
        attr_tokens: the code tokens of each ``@[…]`` list, brackets included.
        opens: the scopes a ``namespace``/``section`` command opens.
        closes: the scopes an ``end`` closes.
    """

    kind: str
    name: str | None
    namespace: str
    doc: str | None
    attrs: list[str]
    prefix: list[str]
    text: str
    masked: str
    line: int
    modifiers: list[str] = field(default_factory=list)
    cls: str = ""
    index: int = -1
    start: int = 0
    body_start: int = 0
    end: int = 0
    frames: tuple[Frame, ...] = ()
    scoped: list[Command] = field(default_factory=list)
    in_scoped: bool = False
    tokens: list[Token] = field(default_factory=list)
    attr_tokens: list[list[Token]] = field(default_factory=list)
    opens: tuple[Frame, ...] = ()
    closes: tuple[Frame, ...] = ()

    @property
    def full_name(self) -> str:
        """The declaration's full Lean name: namespace-qualified unless ``_root_.``. An
        anonymous declaration (``instance : Foo …``) has none; it is labelled
        ``<anonymous instance, line L>`` so a report can still name it."""
        if self.name is None:
            return f"<anonymous {self.kind}, line {self.line}>"
        if self.name.startswith("_root_."):
            return self.name[len("_root_."):]
        return f"{self.namespace}.{self.name}" if self.namespace else self.name


@dataclass
class ReadFile:
    """A Lean file read into commands.

    Attributes:
        text: the source.
        commands: every command, comments between commands included, in file order.
        unknown: ``(line, why)`` for each command the importer cannot land as the source
            says (:data:`UNKNOWN` and :data:`UNSUPPORTED` commands).
    """

    text: str
    commands: list[Command]
    unknown: list[tuple[int, str]] = field(default_factory=list)


class _Seq:
    """The file's code tokens and doc comments in order, with the depth before each, and
    its other comments apart."""

    def __init__(self, text: str, tokens: Sequence[Token]) -> None:
        self.text = text
        self.items: list[Token] = []
        self.comments: list[Token] = []
        k = 0
        while k < len(tokens):
            t = tokens[k]
            if t.kind not in ("comment", "doc"):
                if t.kind != "space":
                    self.items.append(t)
                k += 1
                continue
            j, depth = k, 0
            while j < len(tokens) and tokens[j].kind == t.kind:
                s = tokens[j].text
                if s.startswith("--"):
                    if j == k:
                        j += 1
                    break
                if s.startswith("/-"):
                    depth += 1
                elif s == "-/":
                    depth -= 1
                j += 1
                if depth <= 0:
                    break
            lump = Token(t.kind, "".join(x.text for x in tokens[k:j]), t.start, t.line)
            (self.items if t.kind == "doc" else self.comments).append(lump)
            k = j
        self.depth: list[int] = []
        d = 0
        for t in self.items:
            self.depth.append(d)
            d += _delta(t)
        self.final_depth = d

    def column(self, i: int) -> int:
        """The 0-based column of item ``i``."""
        start = self.items[i].start
        return start - (self.text.rfind("\n", 0, start) + 1)

    def line_start(self, i: int) -> bool:
        """Whether only whitespace stands before item ``i`` on its line."""
        start = self.items[i].start
        return not self.text[self.text.rfind("\n", 0, start) + 1:start].strip()


def _glued(a: Token, b: Token) -> bool:
    return a.start + len(a.text) == b.start


def _skip_attrs(items: list[Token], j: int, stop: int) -> int:
    """The index after the ``@[…]`` list starting at ``items[j]`` (balanced, ``]'`` read as
    a close)."""
    depth = 0
    while j < stop:
        depth += _delta(items[j])
        j += 1
        if depth <= 0:
            break
    return j


def _head(seq: _Seq, i: int) -> tuple[int, str] | None:
    """If a command head (doc comment, attributes, modifiers, attribute kind, keyword)
    starts at item ``i``, the index of its keyword and the keyword; else None. An unknown
    ``#word`` is returned as ``#``."""
    items, n = seq.items, len(seq.items)
    j = i
    if j < n and items[j].kind == "doc":
        j += 1
    while j < n and items[j].text == "@[":
        j = _skip_attrs(items, j, n)
    while j < n and _word(items[j]) in MODIFIERS:
        j += 1
    if j < n and _word(items[j]) in ATTR_KINDS:
        j += 1
        if j < n and items[j].text == "[" and _glued(items[j - 1], items[j]):  # scoped[NS]
            while j < n and items[j].text != "]":
                j += 1
            j += 1
    if j >= n or (j > 0 and items[j - 1].text.endswith(".") and _glued(items[j - 1], items[j])):
        return None  # `erdos_1.example`: a keyword glued after a dot is a name part
    t = items[j]
    if t.text == "#" and j + 1 < n and _glued(t, items[j + 1]) and items[j + 1].kind == "name":
        word = "#" + items[j + 1].text
        return (j, word) if word in HASH_COMMANDS else (j, "#")
    if t.kind == "keyword" and t.text.startswith("#"):
        return j, t.text
    word = _word(t)
    if word == "deriving":
        nxt = items[j + 1] if j + 1 < n else None
        return (j, "deriving") if nxt is not None and nxt.text == "instance" else None
    if j + 1 < n and items[j + 1].text == "%" and _glued(t, items[j + 1]):
        word += "%"
    if word in COMMAND_KEYWORDS:
        if word == "instance" and j > 0 and _word(items[j - 1]) == "deriving":
            return None
        if word in ("inductive", "abbrev") and j > 0 and _word(items[j - 1]) == "class":
            return None  # `class inductive`, `class abbrev`: one command, its keyword `class`
        return j, word
    return None


def _scoped_in(seq: _Seq, k: int) -> int | None:
    """For an ``open``/``set_option`` at item ``k``: the index of its trailing ``in``, or
    None when it has none (read as Lean's ``openDecl`` and ``optionValue`` are)."""
    items, n = seq.items, len(seq.items)
    j = k + 1
    if _word(items[k]) == "set_option":
        j += 1  # the option's name: glued name parts and dots
        while j < n and (items[j].text == "." or _glued(items[j - 1], items[j])):
            j += 1
        j += 1  # its value
    else:
        while j < n:
            t = items[j]
            if t.text == "in" and t.kind == "keyword":
                break
            if t.text == "(":
                while j < n and items[j].text != ")":
                    j += 1
                j += 1
                continue
            if t.kind == "name" or t.text in (".", "→", "->", ",") or _word(t) in (
                    "scoped", "hiding", "renaming"):
                j += 1
                continue
            break
    return j if j < n and items[j].text == "in" and items[j].kind == "keyword" else None


#: words that never end a term (the term goes on after them), whatever follows
TERM_KEYWORDS = CONTINUATION_WORDS | frozenset({"forall", "exists", "Π", "Σ", "∀", "∃"})


def _complete(tok: Token) -> bool:
    """Whether a term can end at ``tok`` (so that its next token, at the command's column,
    cannot be an argument of it, ``Term.argument``'s ``checkColGt``): a name, a literal, a
    closing bracket, a hole or a postfix operator."""
    if tok.kind in ("name", "string", "char", "raw", "symbol"):
        return tok.text not in TERM_KEYWORDS
    t = tok.text
    if t[-1:] in _CLOSERS or t[:1].isdigit() or t in _POSTFIX or t in ("_", "?_", "·"):
        return True
    if tok.kind == "keyword":
        return t in ("Type", "Prop", "Sort")
    return False


class _Reader:
    """One pass over a file's items: where each command starts, and of which kind."""

    def __init__(self, text: str) -> None:
        lexed = lex(text)
        if lexed.ambiguities:
            line, why = lexed.ambiguities[0]
            raise LemmataError("import-malformed-lean",
                               f"line {line}: {why} (text the lexer cannot place: an "
                               "unterminated comment or literal, or an ambiguous one)")
        self.text = text
        self.tokens = lexed.tokens
        self.starts_at = [t.start for t in lexed.tokens]
        self.seq = _Seq(text, lexed.tokens)
        if self.seq.final_depth != 0:
            raise LemmataError("import-malformed-lean", "brackets do not balance")

    def starts(self) -> list[tuple[int, int, str]]:
        """``(first item, keyword item, keyword, '' for an unknown command)`` of each
        command, in order."""
        seq, items = self.seq, self.seq.items
        out: list[tuple[int, int, str]] = []
        cur_col = 0
        cur: str | None = None  # None: no command yet
        i = 0
        while i < len(items):
            if seq.depth[i] != 0:
                i += 1
                continue
            head = _head(seq, i)
            if head is not None and self._starts_here(i, head, cur, cur_col):
                k, word = head
                out.append((i, k, word))
                cur_col, cur = seq.column(i), word
                i = k + 1
                continue
            if cur is None or self._unknown_here(i, cur_col):
                first = i
                while first > 0 and items[first - 1].kind == "doc" and \
                        seq.depth[first - 1] == 0 and (not out or out[-1][1] < first - 1):
                    first -= 1
                out.append((first, i, ""))
                cur_col, cur = seq.column(i), ""
            i += 1
        return out

    def _at_command_column(self, i: int, cur_col: int) -> bool:
        """Where a command the reader cannot tell by its keyword could stand: the first
        token of its line, not indented past the current command, after a complete term."""
        seq = self.seq
        if i == 0 or not seq.line_start(i) or seq.column(i) > cur_col:
            return False
        prev = seq.items[i - 1]
        return prev.kind == "doc" or _complete(prev)

    def _starts_here(self, i: int, head: tuple[int, str], cur: str | None,
                     cur_col: int) -> bool:
        k, word = head
        if cur is None or cur in HEADER_KEYWORDS:
            return True
        if word.startswith("#"):
            # `#s` is Finset.card notation inside a term: a hash word starts a command only
            # where a command the reader cannot tell by its keyword could
            return self._at_command_column(i, cur_col)
        if word in ("open", "set_option"):
            at = _scoped_in(self.seq, k)
            if at is None or self._at_command_column(i, cur_col):
                return True
            # `open … in` / `set_option … in` before a term or tactic stays in it
            return at + 1 < len(self.seq.items) and _head(self.seq, at + 1) is not None
        return True

    def _unknown_here(self, i: int, cur_col: int) -> bool:
        """Whether item ``i`` can only start a command the reader does not know: a word (or
        an attribute list, a modifier, ``#word``) where :meth:`_at_command_column` says a
        command could stand."""
        items = self.seq.items
        t = items[i]
        word_like = (t.kind in ("name", "keyword") and t.text not in TERM_KEYWORDS) or \
            t.text == "@[" or (t.text == "#" and i + 1 < len(items) and _glued(t, items[i + 1]))
        return word_like and self._at_command_column(i, cur_col)


def _frames_after(frames: list[Frame], cmd: Command, index: int) -> list[Frame]:
    """The scope stack after ``cmd`` (its own frames pushed or popped).

    Raises:
        LemmataError: ``import-malformed-lean`` for an ``end`` that closes nothing or names
            another scope.
    """
    words = cmd.masked.split()
    if cmd.kind == "namespace":
        name = words[1] if len(words) > 1 else ""
        return frames + [Frame(index, "namespace", part) for part in name.split(".")]
    if cmd.kind == "section":
        after = words[words.index("section") + 1:] if "section" in words else []
        return frames + [Frame(index, "section", after[0] if after else "")]
    if cmd.kind == "mutual":
        return frames + [Frame(index, "mutual", "")]
    if cmd.kind == "end":
        name = words[1] if len(words) > 1 else ""
        if not frames:
            raise LemmataError("import-malformed-lean", f"line {cmd.line}: `end` closes nothing")
        if frames[-1].kind == "mutual" and not name:
            return frames[:-1]
        parts = name.split(".") if name else [""]
        top = [f.name for f in frames[-len(parts):]] if len(parts) <= len(frames) else []
        if top != parts:
            raise LemmataError("import-malformed-lean",
                               f"line {cmd.line}: `end {name}` does not close "
                               f"{'.'.join(f.name for f in frames) or 'a scope'}")
        return frames[:-len(parts)]
    return frames


def _namespace(frames: Sequence[Frame]) -> str:
    return ".".join(f.name for f in frames if f.kind == "namespace" and f.name)


def name_end(items: Sequence[Token], j: int) -> int:
    """The index after the name starting at ``items[j]``: glued name parts, dots and the
    ``_``/digit pieces the lexer splits off a name such as ``_22_mem_sub`` (Lean's
    ``identFn`` reads them as one identifier)."""
    k = j + 1
    while k < len(items) and _glued(items[k - 1], items[k]) and (
            items[k].kind in ("name", "keyword") or items[k].text == "."
            or _NAME_PIECE.fullmatch(items[k].text)):
        k += 1
    while k > j + 1 and items[k - 1].text == ".":
        k -= 1
    return k


_NAME_PIECE = re.compile(r"[_0-9]+")


def _decl_name(items: list[Token], k: int) -> str | None:
    """The declared name after the keyword at ``items[k]``, or None for an ``example`` or
    an anonymous ``instance``."""
    word = _word(items[k])
    if word == "example":
        return None
    j = k + 1
    if word == "class" and j < len(items) and items[j].text == "inductive":
        j += 1
    if word == "instance" and j + 1 < len(items) and items[j].text == "(" and \
            items[j + 1].text == "priority":
        while j < len(items) and items[j].text != ")":
            j += 1
        j += 1
    if j >= len(items) or not (items[j].kind == "name" or items[j].text == "_"):
        return None
    return "".join(t.text for t in items[j:name_end(items, j)])


def _mask(text: str, tokens: Sequence[Token], base: int) -> str:
    out = list(text)
    for t in tokens:
        if t.kind in ("comment", "doc", "string", "raw", "char"):
            a, b = t.start - base, t.start - base + len(t.text)
            if b <= 0 or a >= len(out):
                continue
            for x in range(max(a, 0), min(b, len(out))):
                if out[x] != "\n":
                    out[x] = " "
    return "".join(out)


def _classify(word: str) -> str:
    if word in DECLARATION_KEYWORDS:
        return DECL
    if word in SCOPE_KEYWORDS:
        return SCOPE
    if word in PREAMBLE_KEYWORDS:
        return PREAMBLE
    if word in SYNTAX_KEYWORDS:
        return SYNTAX
    if word in INERT_KEYWORDS or word in HASH_COMMANDS:
        return INERT
    if word in UNSUPPORTED_KEYWORDS:
        return UNSUPPORTED
    if word in HEADER_KEYWORDS:
        return HEADER
    return UNKNOWN


def read_commands(text: str) -> ReadFile:
    """Read a Lean file into its top-level commands, in file order (issue 28).

    Args:
        text: the file's text (decoded UTF-8).

    Returns:
        A :class:`ReadFile`: every command with its class, scopes, scoped prefix, doc
        comment and attributes; comments between commands as ``comment``/``moddoc``
        commands; and ``unknown`` listing each command the importer cannot land
        (``(line, why)``), which makes the caller hold the file
        (``import-command-unknown``).

    Raises:
        LemmataError: ``import-malformed-lean`` when the lexer cannot place some text
            (``lean-lex-ambiguous``'s cases), brackets do not balance, or an ``end``
            closes no scope or another one.

    Implements D-10's import reading for D-9's fidelity (issue 28).
    """
    reader = _Reader(text)
    items = reader.seq.items
    starts = reader.starts()
    out: list[Command] = []
    unknown: list[tuple[int, str]] = []
    frames: list[Frame] = []
    pending: list[Command] = []
    for n, (first, k, word) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else len(items)
        cmd = _command(reader, first, k, word, stop, frames)
        cmd.index = len(out)
        last = items[stop - 1]
        if cmd.cls in (PREAMBLE, SYNTAX, INERT, UNSUPPORTED) and last.text == "in" and \
                last.kind == "keyword" and stop < len(items):
            cmd.in_scoped = True
            pending.append(cmd)
            out.append(cmd)
            continue
        cmd.scoped, cmd.prefix, pending = pending, [p.text for p in pending], []
        out.append(cmd)
        if cmd.cls == UNKNOWN:
            what = " ".join(cmd.masked.split())[:80]
            unknown.append((cmd.line, f"a command the importer does not know: {what}"))
        elif cmd.cls == UNSUPPORTED:
            why = f"`{cmd.kind}` is not imported: what it defines cannot be landed exactly"
            unknown.append((cmd.line, why))
        if cmd.cls == SCOPE or cmd.kind == "mutual":
            after = _frames_after(frames, cmd, cmd.index)
            cmd.opens = tuple(after[len(frames):])
            cmd.closes = tuple(frames[len(after):])
            frames = after
    if pending:
        unknown.append((pending[-1].line, "a scoped command (`… in`) that scopes nothing"))
        out.extend(c for c in pending if c not in out)
    out = _with_comments(text, out, reader.seq.comments)
    for n, c in enumerate(out):
        c.index = n
    return ReadFile(text, out, unknown)


def _command(reader: _Reader, first: int, k: int, word: str, stop: int,
             frames: list[Frame]) -> Command:
    """The command whose items are ``items[first:stop]`` and whose keyword is ``items[k]``
    (``word`` '' for an unknown command)."""
    text, items = reader.text, reader.seq.items
    doc = items[first].text if items[first].kind == "doc" else None
    attrs: list[str] = []
    attr_tokens: list[list[Token]] = []
    j = first + (1 if doc is not None else 0)
    while word and j < k and items[j].text == "@[":
        a, j = j, _skip_attrs(items, j, k)
        last = items[j - 1]
        attrs.append(text[items[a].start + 2:last.start + len(last.text) - 1])
        attr_tokens.append(items[a:j])
    body_first = j if word else first + (1 if doc is not None else 0)
    mods = [t.text for t in items[body_first:k]] if word else []
    end_tok = items[stop - 1]
    end = end_tok.start + len(end_tok.text)
    bstart = items[body_first].start
    body = text[bstart:end]
    lo = bisect.bisect_left(reader.starts_at, bstart)
    hi = bisect.bisect_left(reader.starts_at, end)
    masked = _mask(body, reader.tokens[lo:hi], bstart)
    cls = _classify(word) if word and word != "#" else UNKNOWN
    kind = word if cls != UNKNOWN else "unknown"
    name = _decl_name(items, k) if cls == DECL else None
    return Command(kind, name, _namespace(frames), doc, attrs, [], body.rstrip(),
                   masked.rstrip(), items[k].line, mods, cls, -1, items[first].start, bstart,
                   end, tuple(frames), [], False,
                   [t for t in items[body_first:stop] if t.kind != "doc"], attr_tokens)


def _with_comments(text: str, cmds: list[Command], comments: list[Token]) -> list[Command]:
    """The commands with each comment that lies between commands (not inside one) added
    as a ``comment`` or ``moddoc`` command: block comments, and line comments that start a
    line in column 0 (kept for the fidelity review's notes, D-9)."""
    spans = [(c.start, c.end) for c in cmds]
    extra: list[Command] = []
    si = 0
    for cm in comments:
        while si < len(spans) and spans[si][1] <= cm.start:
            si += 1
        if si < len(spans) and spans[si][0] < cm.start:
            continue  # inside a command: part of its text
        line_comment = cm.text.startswith("--")
        if line_comment and not (cm.start == 0 or text[cm.start - 1] == "\n"):
            continue
        kind = "moddoc" if cm.text.startswith("/-!") else "comment"
        body = cm.text.rstrip()
        frames = cmds[si - 1].frames if si else ()
        extra.append(Command(kind, None, _namespace(frames), None, [], [], body,
                             " " * len(body), cm.line, [], "comment", -1, cm.start,
                             cm.start, cm.start + len(body), frames))
    merged = sorted(cmds + extra, key=lambda c: c.start)
    return merged


#: terms that bind with a ``:=`` of their own (Lean's ``Term.let``, ``Term.have`` and their
#: instance forms ``letI``/``haveI``; ``let rec`` starts with ``let``)
BINDING_TERMS = frozenset({"let", "have", "letI", "haveI"})
#: terms whose ``| pattern => value`` alternatives extend greedily (``Term.match``,
#: ``Term.fun`` with ``matchAlts``)
ALTERNATIVE_TERMS = frozenset({"match", "fun", "λ"})


@dataclass(frozen=True)
class DeclParts:
    """Where a declaration's parts are, as indices into its :attr:`Command.tokens`.

    Attributes:
        keyword: the keyword (``theorem``, ``def``, …).
        name_end: the first token after the declared name (after the keyword when none).
        colon: the ``:`` before its type at bracket depth 0, or -1.
        body: the token starting its value (``:=``, ``where``, or a ``|`` that starts a
            line after a complete term: ``declValSimple``, ``whereStructInst``,
            ``declValEqns``), or ``len(tokens)`` when it has none.
    """

    keyword: int
    name_end: int
    colon: int
    body: int


def declaration_parts(cmd: Command, text: str) -> DeclParts:
    """Split a declaration at its type's ``:`` and its value (read on tokens, so a
    ``where`` proof or a column-0 continuation line stays in place).

    Args:
        cmd: a declaration command (:data:`DECL`).
        text: the source the command was read from.

    Raises:
        LemmataError: ``import-malformed-lean`` when ``cmd`` has no declaration keyword.

    Implements D-10's import reading (issue 28).
    """
    toks = cmd.tokens
    kw = next((j for j, t in enumerate(toks) if _word(t) in DECLARATION_KEYWORDS and not (
        j and toks[j - 1].text == "." and _glued(toks[j - 1], t))), -1)
    if kw < 0:
        raise LemmataError("import-malformed-lean", f"line {cmd.line}: not a declaration")
    j = kw + 1
    if _word(toks[kw]) == "class" and j < len(toks) and toks[j].text == "inductive":
        j += 1
    if _word(toks[kw]) == "instance" and j + 1 < len(toks) and toks[j].text == "(" and \
            toks[j + 1].text == "priority":
        while j < len(toks) and toks[j].text != ")":
            j += 1
        j += 1
    if cmd.name is not None and j < len(toks):
        j = name_end(toks, j)
    end_of_name, colon, body, depth = j, -1, len(toks), 0
    # in the type, a depth-0 `let`/`have` takes the next `:=` as its own (Term.let,
    # Term.have: `∀ n, let m := n + 1; n < m`), and after a depth-0 `match` or `fun` every
    # `|` is one more of its alternatives (Term.matchAlts extends greedily), never the
    # start of equations (issue 28: erdos_1105.parts.ii's `let ℓ := …` in its type)
    pending, alternatives = 0, False
    while j < len(toks):
        t = toks[j]
        if depth == 0:
            word = _word(t)
            if colon < 0 and t.text == ":":
                colon = j
            elif colon >= 0 and word in BINDING_TERMS:
                pending += 1
            elif colon >= 0 and word in ALTERNATIVE_TERMS:
                alternatives = True
            elif t.text == ":=" and pending:
                pending -= 1
            elif t.text in (":=", "where") or (
                    t.text == "|" and not alternatives and _line_first(text, t) and (
                        j == 0 or _complete(toks[j - 1]) or toks[j - 1].text == ":=")):
                body = j
                break
        depth += _delta(t)
        j += 1
    return DeclParts(kw, end_of_name, colon, body)


def _line_first(text: str, tok: Token) -> bool:
    return not text[text.rfind("\n", 0, tok.start) + 1:tok.start].strip()
