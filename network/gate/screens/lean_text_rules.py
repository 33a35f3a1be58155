"""Lean text rules that need no elaboration, read from the token stream of
:mod:`network.gate.screens.lean_lex` (D-3 v3.25, v3.28; D-12 v3.44; D-31 v3.12).

Step 2 and the service's checks hold a submitted file to these before anything is built:
a statement holds only imports, open/namespace/end, doc comments and declarations
(:func:`statement_command_findings`, ``statement-command-refused``); no option or header
weakens checking and no axiom is declared (:func:`forbidden_option_findings`); use lines
import only the target's definition modules and merged proofs (:func:`use_findings`); a
partial carries its approach, licence, label and claim lines
(:func:`partial_label_findings`); a skeleton cites only annexes on its node
(:func:`annex_citation_findings`). :func:`import_lines`, :func:`line_comments` and
:func:`strip_comments` read a file the way Lean's tokenizer does, so a comment or a string
can neither fake nor hide a command. What an import would evaluate is the screen of
:mod:`network.gate.screens.import_screen`. :mod:`network.gate.artifacts` re-exports every name
here (issue 17).
"""

from __future__ import annotations

import re

from network import ids
from network.errors import define
from network.gate.result import Diagnostic
from network.gate.screens import lean_lex
from network.gate.screens.import_screen import (
    INERT_ATTRIBUTES,
    _glued_to_dot,
    attribute_names,
    hash_command_at,
)
from network.record.read.loader import Graph

define("statement-command-refused", 2, 422,
       "A proposed statement holds a command other than imports, open/namespace/end, doc "
       "comments and declarations (D-3 v3.28).",
       "Remove the command; nothing in a statement may run code when it is loaded.")
define("use-unusable", 2, 422,
       "A use line imports something that is neither a definition module of the target nor "
       "the merged proof of another node of it (D-3 v3.25).",
       "Import only defs modules on the graph or merged proofs of the same target.")
define("partial-unlabelled", 2, 422,
       "A partial lacks its approach, licence, label or claim lines (D-12 v3.44).",
       "Add `-- approach:` before the first hole, `-- licence:`, and `-- label:` and "
       "`-- claim: $…$` above each hole's have.")
define("annex-not-found", 2, 422,
       "A skeleton's `-- annex: <sha256>` line names an annex that is neither on the node "
       "nor added by the same pull request (D-31 v3.12).",
       "Submit the annex first (submit_informal_annex) or in the same pull request, and "
       "cite it by the SHA-256 of its .md bytes.")
define("axiom-declared", 2, 422,
       "A submitted Lean file declares an axiom.",
       "Prove it instead: a submission may use only the axioms its gate-spec allows, which "
       "Lean itself declares; an axiom of your own is refused whatever its name (D-4 "
       "step 5).")
define("forbidden-option", 2, 422,
       "A submitted Lean file sets an option that weakens checking (debug.skipKernelTC, "
       "`prelude`).",
       "Remove the option; the kernel must check everything.")


# --- Lean text rules that need no elaboration (D-3 v3.25, v3.28; D-12 v3.44) ---------

_ALLOWED_STATEMENT_COMMANDS = re.compile(
    r"(import|open|namespace|end|section|noncomputable\s+section|variable|universe|"
    r"theorem|lemma|def|abbrev|structure|inductive|class|instance|noncomputable\s+def|"
    r"@\[[^\]]*\]\s*(theorem|lemma|def|abbrev))\b"
)
#: options whose ``set_option`` weakens checking (LEAN_NOTES "Pitfalls the gate must close")
FORBIDDEN_OPTIONS = frozenset({"debug.skipKernelTC"})
#: what no code or string token of a submitted file may hold, however the option is named
_FORBIDDEN_WORDS = ("skipKernelTC",)
#: command keywords a statement may not hold anywhere, even after another command on the
#: same line (D-3 v3.28: Lean needs no newline between commands)
_STATEMENT_DENIED_WORDS = frozenset({
    "set_option", "run_cmd", "run_elab", "run_meta", "elab", "elab_rules", "macro",
    "macro_rules", "syntax", "initialize", "builtin_initialize", "declare_syntax_cat",
    "attribute", "notation", "infix", "infixl", "infixr", "prefix", "postfix",
})


def _lex_findings(lexed: lean_lex.Lexed, path: str) -> list[Diagnostic]:
    return [Diagnostic("lean-lex-ambiguous", why, path, line)
            for line, why in lexed.ambiguities]


def strip_comments(text: str) -> str:
    """Lean text with block comments, doc comments and line comments blanked to spaces,
    as Lean's tokenizer reads them (:mod:`network.gate.screens.lean_lex`): a ``-/`` inside a
    string or a nested comment ends nothing early. Line structure is kept so line numbers
    still match."""
    return lean_lex.lex(text).blanked()


def _dotted_name(code: list[lean_lex.Token], i: int) -> tuple[str, int]:
    """The identifier starting at ``code[i]``: glued name parts and dots (no space
    between, as Lean's ``identFn`` reads them), with «» quoting removed; and the index
    after it."""
    parts: list[str] = []
    j = i
    while j < len(code):
        tok = code[j]
        glued = j == i or code[j - 1].start + len(code[j - 1].text) == tok.start
        if not glued:
            break
        if tok.kind == "name" or (tok.kind == "keyword" and parts and parts[-1] == "."):
            parts.append(_unquote(tok.text))
        elif tok.text == "." and parts and parts[-1] != ".":
            parts.append(".")
        else:
            break
        j += 1
    if parts and parts[-1] == ".":
        parts.pop()
        j -= 1
    return "".join(parts), j


def statement_command_findings(text: str, path: str) -> list[Diagnostic]:
    """D-3 v3.28: a proposed Statement/Context holds only imports, open/namespace/end lines,
    doc comments and declarations.

    Commands are read from the token stream of :mod:`network.gate.screens.lean_lex`: each code
    token that starts a line begins a command, and the allowlist is held against that line
    with comments blanked (fail closed: anything not on it is refused). A hash command
    (``#eval``) or a command keyword of :data:`_STATEMENT_DENIED_WORDS` anywhere else in
    the code, after another command on the same line, is refused too, and so is an
    ``@[…]`` naming an attribute outside :data:`INERT_ATTRIBUTES` (``@[app_unexpander]``,
    ``@[delab]``, ``@[term_elab]``, ``@[implemented_by]``: the checkers' import evaluates
    such entries, and the printer runs them). Text the lexer cannot place is
    ``lean-lex-ambiguous``.
    """
    lexed = lean_lex.lex(text)
    out = _lex_findings(lexed, path)
    lines = lexed.blanked().splitlines()
    code = lexed.code_tokens()
    flagged: set[int] = set()
    for i, tok in enumerate(code):
        at_col0 = tok.start == 0 or text[tok.start - 1] == "\n"
        # an attribute that registers code or a printer is refused wherever it stands
        code_attribute = tok.text == "@[" and any(
            a.text.strip("«»") not in INERT_ATTRIBUTES for a in attribute_names(code, i)[0])
        if at_col0 and tok.kind not in ("string", "raw", "char"):
            line = lines[tok.line - 1]
            if (not _ALLOWED_STATEMENT_COMMANDS.match(line) or code_attribute) and (
                    tok.line not in flagged):
                flagged.add(tok.line)
                out.append(Diagnostic("statement-command-refused", line.strip()[:80], path,
                                      tok.line))
            continue
        hash_command = hash_command_at(code, i)
        denied = (tok.kind in ("name", "keyword") and tok.text in _STATEMENT_DENIED_WORDS
                  and not _glued_to_dot(code, i)) or code_attribute
        if (hash_command or denied) and tok.line not in flagged:
            flagged.add(tok.line)
            out.append(Diagnostic("statement-command-refused",
                                  lines[tok.line - 1].strip()[:80], path, tok.line))
    return sorted(out, key=lambda d: (d.line or 0, d.code))


def forbidden_option_findings(text: str, path: str) -> list[Diagnostic]:
    """Options and headers that weaken checking: ``set_option`` of an option in
    :data:`FORBIDDEN_OPTIONS` (comments between ``set_option`` and the name, as Lean
    allows, and «»-quoted name parts are seen through), ``prelude`` as code, and any code
    or string token naming ``skipKernelTC`` some other way (a name literal, a string an
    elaborator could turn into the option's name); plus ``lean-lex-ambiguous`` for text
    the lexer cannot place (LEAN_NOTES "Pitfalls the gate must close"). A word in a
    comment is nothing, and ``prelude`` in a string is data. These bans are defence in
    depth: kernel replay judges the verdict (D-4 v3.27).
    """
    lexed = lean_lex.lex(text)
    out = _lex_findings(lexed, path)
    code = lexed.code_tokens()
    i = -1
    while i + 1 < len(code):
        i += 1
        tok = code[i]
        if tok.kind == "keyword" and tok.text == "set_option" and not _glued_to_dot(code, i):
            name, after = _dotted_name(code, i + 1)
            if name in FORBIDDEN_OPTIONS:
                out.append(Diagnostic("forbidden-option", f"set_option {name}", path,
                                      tok.line))
                i = after - 1  # the option's name is this finding, not another
        elif tok.kind == "name" and tok.text == "prelude" and not _glued_to_dot(code, i):
            out.append(Diagnostic("forbidden-option", "prelude", path, tok.line))
        elif tok.kind == "keyword" and tok.text == "axiom" and not _glued_to_dot(code, i):
            # defence in depth for step 5: an axiom of the contributor's own can carry an
            # allowed or a `_native` name; none is ever needed in a submission
            out.append(Diagnostic("axiom-declared", "axiom", path, tok.line))
        elif any(word in tok.text for word in _FORBIDDEN_WORDS):
            # the option named outside `set_option`: a name literal, a string, an
            # identifier (`Options.setBool `debug.skipKernelTC`, `"skipKernelTC"`)
            out.append(Diagnostic("forbidden-option", f"names {tok.text[:60]!r}", path,
                                  tok.line))
    return out


def import_lines(text: str) -> list[str]:
    """The modules a Lean file imports, in order (its header: the ``import`` commands at
    the top, read from the token stream so a comment or string cannot fake or hide one).
    Names are returned as written («» quoting kept)."""
    code = lean_lex.lex(text).code_tokens()
    mods: list[str] = []
    i = 1 if code and code[0].text == "module" else 0  # the module system's header
    while i < len(code):
        if code[i].text in ("public", "private", "meta") and i + 1 < len(code):
            i += 1  # `public import`, `meta import` (Lean's module system)
        if not (code[i].kind == "keyword" and code[i].text == "import"):
            break
        i += 1
        if i < len(code) and code[i].text == "all":
            i += 1
        while i < len(code) and code[i].kind == "name" and not (
                code[i].text in ("public", "private", "meta") and i + 1 < len(code)
                and code[i + 1].text == "import"):
            j = i
            while j < len(code) and (j == i or code[j - 1].start + len(code[j - 1].text)
                                     == code[j].start) and (
                    code[j].kind == "name" or code[j].text == "."):
                j += 1
            mods.append(text[code[i].start:code[j - 1].start + len(code[j - 1].text)])
            i = j
    return mods


def line_comments(text: str) -> dict[int, str]:
    """1-based line → text of each ``--`` line comment that is the first thing on its line
    (read from the token stream: a ``--`` inside a string or a block comment is none)."""
    out: dict[int, str] = {}
    for tok in lean_lex.lex(text).tokens:
        if tok.kind != "comment" or not tok.text.startswith("--"):
            continue
        line_start = text.rfind("\n", 0, tok.start) + 1
        if not text[line_start:tok.start].strip():
            out[tok.line] = tok.text
    return out


def use_findings(statement: str, artifact: str, base: Graph, target: str, path: str
                 ) -> list[Diagnostic]:
    """D-3 v3.25: the artifact's imports are the statement's, then use lines each naming a
    definition module of the target or the merged proof of another node of it."""
    stmt_imports = import_lines(statement)
    art_imports = import_lines(artifact)
    if art_imports[: len(stmt_imports)] != stmt_imports:
        return [Diagnostic("use-unusable", "the artifact must keep the statement's imports "
                           "first, unchanged", path, 1)]
    usable: set[str] = set()
    t = base.targets[target]
    for stem in t.defs:
        usable.add(_unquote(ids.defs_module_name(target, stem)))
    for nid, node in t.nodes.items():
        if "Proof" in node.files:
            usable.add(_unquote(ids.module_name(target, nid, "Proof")))
    return [
        Diagnostic("use-unusable", f"{mod} is not usable here", path)
        for mod in art_imports[len(stmt_imports):]
        if _unquote(mod) not in usable
    ]


def _unquote(module: str) -> str:
    """A module name with «» quoting removed, so quoted and bare spellings compare equal."""
    return module.replace("«", "").replace("»", "")


_APPROACH = re.compile(r"--\s*approach:\s*\S")
_LICENCE = re.compile(r"--\s*licence:\s*\S")


def partial_label_findings(text: str, path: str, hole_lines: list[int] | None = None
                           ) -> list[Diagnostic]:
    """D-12 v3.44: a partial carries ``-- approach:`` before its first hole, ``-- licence:``,
    and ``-- label:`` (≤ 60 characters) and ``-- claim: $…$`` in the comment block directly
    above each hole's ``have``.

    The lines are real line comments, each first on its line (:func:`line_comments`): the
    same words inside a string or a block comment count for nothing.

    Args:
        text: the partial's Lean text.
        path: its graph path, for diagnostics.
        hole_lines: 1-based lines of each hole's ``have``, from the toolchain adapter's
            hole extraction (step 4). None checks only approach and licence (step 2).
    """
    missing: list[Diagnostic] = []
    comments = line_comments(text)
    n_lines = len(text.splitlines())
    first_hole = min(hole_lines) if hole_lines else n_lines + 1
    if not any(_APPROACH.match(c) for ln, c in comments.items() if ln < first_hole):
        missing.append(Diagnostic("partial-unlabelled", "missing `-- approach:` before the "
                                  "first hole", path))
    if not any(_LICENCE.match(c) for c in comments.values()):
        missing.append(Diagnostic("partial-unlabelled", "missing `-- licence:`", path))
    for hl in hole_lines or []:
        block: list[str] = []
        i = hl - 1
        while i >= 1 and i in comments:
            block.append(comments[i].strip())
            i -= 1
        label = [b for b in block if re.match(r"--\s*label:\s*\S", b)]
        claim = [b for b in block if re.match(r"--\s*claim:\s*\$.+\$\s*$", b)]
        if not label:
            missing.append(Diagnostic("partial-unlabelled", "missing `-- label:` above hole",
                                      path, hl))
        elif len(label[0].split(":", 1)[1].strip()) > 60:
            missing.append(Diagnostic("partial-unlabelled", "label longer than 60 characters",
                                      path, hl))
        if not claim:
            missing.append(Diagnostic("partial-unlabelled", "missing `-- claim: $…$` above hole",
                                      path, hl))
    return missing


_ANNEX_CITATION = re.compile(r"--[ \t]*annex:[ \t]*(\S*)")


def annex_citations(text: str) -> list[tuple[str, int]]:
    """The annexes a route's Lean text cites, D-31 v3.12: each ``-- annex: <sha256>``
    line comment first on its line (:func:`line_comments`), as (the named value
    lower-cased, its 1-based line). A route citing one is a skeleton: its holes are
    written with origin ``skeleton-hole``."""
    out: list[tuple[str, int]] = []
    for line, comment in sorted(line_comments(text).items()):
        mt = _ANNEX_CITATION.match(comment)
        if mt is not None:
            out.append((mt.group(1).lower(), line))
    return out


def annex_citation_findings(text: str, path: str, present: set[str]) -> list[Diagnostic]:
    """D-31 v3.12: every annex a skeleton cites is on its node (``present``: the SHA-256
    names of the node's ``annex/*.md`` at base and those the pull request adds), else
    ``annex-not-found``."""
    return [Diagnostic("annex-not-found", f"no annex/{sha or '<empty>'}.md on the node",
                       path, line)
            for sha, line in annex_citations(text)
            if not re.fullmatch(r"[0-9a-f]{64}", sha) or sha not in present]
