"""One Formal Conjectures file read on its own (D-6, D-9, D-10): its statements (theorems
and lemmas with their Formal Conjectures ``category``, AMS and ``formal_proof``
attributes read off and kept as provenance), definitions, preamble, imports, module doc
references and formalisation notes. A file that cannot be read is that file's line in the
report, never the run's end. :mod:`network.importers.formal_conjectures` re-exports every
public name here.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from network.errors import LemmataError
from network.gate.screens import lean_lex
from network.gate.screens.lean_commands import DECL, PREAMBLE, Command, read_commands
from network.importers.lean_text import (
    DEF_KEYWORDS,
    THEOREM_KEYWORDS,
    TheoremParts,
    is_question,
    mask,
    theorem_parts,
    unhedged_answer,
)

OPEN, CALIBRATION, TEST, SKIP = "open", "calibration", "test", "skip"
_CALIBRATION_CATEGORIES = ("research solved", "research formally solved", "textbook",
                           "undergraduate", "graduate", "high_school")
_FC_ATTRS = ("category", "AMS", "formal_proof", "conditional")
_FC_IMPORT_RE = re.compile(r"^import\s+FormalConjectures", re.MULTILINE)


# --- reading one file ------------------------------------------------------------------


@dataclass
class Statement:
    """One theorem of a problem file that carries a category, classified.

    Attributes:
        cmd: the command as read.
        parts: its binders, conclusion and body.
        category: the Formal Conjectures category text (``research open``), or None.
        ams: AMS subject codes from the ``AMS`` attribute.
        kept_attrs: attribute entries that are not Formal Conjectures bookkeeping.
        formal_proofs: ``{"using": …, "at": URL}`` for each ``formal_proof`` attribute.
        question: whether it contains ``answer(sorry)``.
        unhedged: the answer term when ``answer(T)`` copies the other side, else None.
        target: the target id it belongs to (set when the file is classified).
        node: its node id in that target (``root`` or ``variant-…``).
        variant: True when it is a variant of the target's root.
    """

    cmd: Command
    parts: TheoremParts
    category: str | None
    ams: list[str]
    kept_attrs: list[str]
    formal_proofs: list[dict[str, str]]
    question: bool
    unhedged: str | None
    target: str = ""
    node: str = ""
    variant: bool = False
    promoted: str | None = None

    @property
    def declaration(self) -> str:
        """The full Lean name, e.g. ``Erdos242.erdos_242.variants.known_result``."""
        return self.cmd.full_name

    @property
    def name(self) -> str:
        """The name as declared, without ``_root_.``."""
        return (self.cmd.name or "").removeprefix("_root_.")

    @property
    def kind(self) -> str:
        """OPEN, CALIBRATION, TEST or SKIP, from the category."""
        return category_kind(self.category)


@dataclass
class ProblemFile:
    """A parsed problem file.

    Attributes:
        number: the Erdős problem number, or None outside the Erdős collection.
        path: the file's path in the checkout.
        imports: its ``import`` lines, verbatim.
        title: the module doc's ``#`` heading, or ``Erdős Problem <N>`` / the file stem.
        reference: the module doc's references block (any heading), or None.
        erdos_page: the erdosproblems.com page the module doc links, or None.
        authors: from the header's copyright line or an ``Authors:`` line.
        licence: ``Apache-2.0`` when the header says so, else None.
        preamble: the commands whose effect reaches later declarations in their scope
            (``open``, ``variable``, ``universe``, ``include``, ``omit``, ``set_option``,
            ``attribute``, ``export``; not those scoped to one command by ``in``).
        defs: definition commands (def, abbrev, structure, inductive, class, instance).
        statements: every theorem or lemma that could be read, in file order.
        others: ``(declaration, why)`` for declarations that are skipped while reading.
        notes: ``{"line", "text"}`` column-0 comments and formalisation notes (D-9).
        uses_fc: whether the file imports Formal Conjectures modules.
        base_id: the id of the file's main target.
        decl_count: how many declarations the file holds.
        commands: every command of the file, as :mod:`network.gate.screens.lean_commands`
            reads it (the landed files are cut from these, issue 28).
        unknown: ``(line, why)`` for each command the importer cannot land; a file with
            any is held for a curator (``import-command-unknown``).
        text: the file's text.
    """

    number: str | None
    path: str
    imports: list[str]
    title: str
    reference: str | None
    erdos_page: str | None
    authors: list[str]
    licence: str | None
    preamble: list[Command]
    defs: list[Command]
    statements: list[Statement]
    others: list[tuple[str, str]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    uses_fc: bool = False
    base_id: str = ""
    decl_count: int = 0
    commands: list[Command] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)
    text: str = ""


def category_kind(category: str | None) -> str:
    """Map a Formal Conjectures category to OPEN, CALIBRATION, TEST or SKIP (D-6 on-ramp)."""
    if category is None:
        return SKIP
    c = " ".join(category.split())
    if c == "research open":
        return OPEN
    if c.startswith(_CALIBRATION_CATEGORIES):
        return CALIBRATION
    if c == "test":
        return TEST
    return SKIP


def _split_attr(inside: str) -> list[str]:
    """Top-level comma-separated entries of an attribute block's inside text."""
    masked = mask(inside)
    out, start, depth = [], 0, 0
    for k, c in enumerate(masked):
        if c in "([{⦃":
            depth += 1
        elif c in ")]}⦄":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(inside[start:k].strip())
            start = k + 1
    out.append(inside[start:].strip())
    return [e for e in out if e]


_FORMAL_PROOF_RE = re.compile(r'formal_proof\s+using\s+(\S+)\s+at\s+"([^"\s]{1,500})"', re.DOTALL)


def _category(attrs: list[str]) -> tuple[str | None, list[str], list[str]]:
    category, ams, kept, _ = _attributes(attrs)
    return category, ams, kept


def _code_only(entry: str) -> str:
    """An attribute entry without its comments (``category research open /- note -/`` →
    ``category research open``): its code tokens, joined by one space where a comment or
    a line break stood; the entry as written when it holds no comment (issue 28: a comment
    read as part of a category dropped an open problem, and a kept attribute's trailing
    line comment swallowed the rendered ``]``). Text the lexer cannot place is kept as
    written, for the round trip to refuse."""
    lexed = lean_lex.lex(entry)
    if not any(t.kind in ("comment", "doc") for t in lexed.tokens):
        return entry
    return " ".join(t.text for t in lexed.code_tokens())


def _attributes(attrs: list[str]) -> tuple[str | None, list[str], list[str],
                                           list[dict[str, str]]]:
    """Category, AMS codes, kept attributes and ``formal_proof`` citations of a declaration."""
    category: str | None = None
    ams: list[str] = []
    kept: list[str] = []
    proofs: list[dict[str, str]] = []
    for block in attrs:
        for entry in map(_code_only, _split_attr(block)):
            head = entry.split(None, 1)
            word, rest = head[0], (head[1] if len(head) > 1 else "")
            if word == "category":
                category = " ".join(rest.split())
            elif word == "AMS":
                ams.extend(t for t in rest.split() if re.fullmatch(r"[0-9]{1,2}[A-Z0-9]*", t))
            elif word == "formal_proof" or (word == "conditional" and
                                            rest.split(None, 1)[:1] == ["formal_proof"]):
                mt = _FORMAL_PROOF_RE.search(entry)
                proof = ({"using": mt.group(1)[:100], "at": mt.group(2)} if mt else
                         {"text": " ".join(entry.split())[:500]})
                if word == "conditional":  # a deduction from named assumptions (FC util)
                    proof["conditional"] = "true"
                    assumed = re.search(r"\bassuming\s+(.+)$", entry, re.DOTALL)
                    if assumed:
                        proof["assuming"] = " ".join(assumed.group(1).split())[:500]
                proofs.append(proof)
            elif word not in _FC_ATTRS:
                kept.append(entry)
    return category, ams, kept, proofs


_REF_HEAD_RE = re.compile(r"^[*_ ]*(?:References?|Refs?)[*_ ]*:?[*_ ]*(?::|$|\s)", re.MULTILINE)
_NOTE_RE = re.compile(r"formali[sz]ation\s+notes?", re.IGNORECASE)


def _references_block(moddoc: str) -> str | None:
    """The module doc's references: from a references heading to the next blank line."""
    mt = _REF_HEAD_RE.search(moddoc)
    if mt is None:
        return None
    lines: list[str] = []
    for line in moddoc[mt.start():].splitlines():
        if not line.strip() or line.strip() == "-/":
            break
        lines.append(line.rstrip())
    block = "\n".join(lines).removesuffix("-/").rstrip()
    return block[:2000] or None


def _moddoc_notes(moddoc: str, line0: int) -> list[dict[str, Any]]:
    """Formalisation-note paragraphs or sections of a module doc, with their line."""
    out: list[dict[str, Any]] = []
    lines = moddoc.splitlines()
    k = 0
    while k < len(lines):
        if _NOTE_RE.search(lines[k]):
            j = k + 1
            heading = lines[k].lstrip().startswith("#")
            while j < len(lines) and lines[j].strip() != "-/" and not (
                    lines[j].lstrip().startswith("#") or (not heading and not lines[j].strip())):
                j += 1
            out.append({"line": line0 + k, "text": "\n".join(lines[k:j]).strip()[:4000]})
            k = j
        else:
            k += 1
    return out


def parse_problem_file(number: str | None, path: str, data: bytes, *,
                       base_id: str | None = None) -> ProblemFile:
    """Read one problem file into its parts (no elaboration; see lean_text).

    Args:
        number: the Erdős problem number, or None outside the Erdős collection.
        path: the file's path in the checkout.
        data: its bytes.
        base_id: the id of its main target (default ``erdos-<number>``).

    Raises:
        LemmataError: ``not-utf8``; ``import-malformed-lean`` (text the lexer cannot place,
            brackets that do not balance, an ``end`` that closes no scope). A theorem whose
            parts cannot be found is listed in ``others`` with the reason, not raised; a
            command the reader does not know is in ``unknown``.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LemmataError("not-utf8", f"byte {exc.start}", path=path) from exc
    try:
        read = read_commands(text)
    except LemmataError as exc:
        raise LemmataError(exc.code, exc.detail, path=path) from exc
    cmds = read.commands
    imports = [c.text for c in cmds if c.kind == "import"]
    stem = path.rsplit("/", 1)[-1].removesuffix(".lean")
    title = f"Erdős Problem {number}" if number else stem
    reference: str | None = None
    notes: list[dict[str, Any]] = []
    moddocs = [c for c in cmds if c.kind == "moddoc"]
    for c in moddocs[:1]:
        h = re.search(r"^#\s+(.+)$", c.text, re.MULTILINE)
        title = h.group(1).strip()[:200] if h else title
        reference = _references_block(c.text)
    for c in moddocs:
        notes += _moddoc_notes(c.text, c.line)
    pages = [mt for c in moddocs for mt in re.finditer(
        r"https?://(?:www\.)?erdosproblems\.com/([0-9]{1,6})\b", c.text)]
    # The Erdős collection's file N.lean is problem N (a link's URL can be a typo upstream:
    # 67.lean links .../66); elsewhere the module doc's first erdosproblems.com link, if any.
    page = f"https://www.erdosproblems.com/{number}" if number else \
        (pages[0].group(0) if pages else None)
    comments = [c for c in cmds if c.kind == "comment"]
    header = comments[0].text if comments and comments[0].line <= 3 else ""
    authors = [a.strip().rstrip(".") for a in re.findall(r"Copyright\s+\d{4}\s+(.+)", header)]
    for c in comments + moddocs:
        for line in re.findall(r"^\s*Authors?:\s*(.+)$", c.text, re.MULTILINE):
            authors += [a.strip().rstrip(".") for a in line.split(",") if a.strip()]
    licence = "Apache-2.0" if "Apache License" in header else None
    for c in comments:
        if c.text != header:
            notes.append({"line": c.line, "text": c.text[:4000]})
    notes = _merge_line_comments(sorted(notes, key=lambda n: int(n["line"])))
    pf = ProblemFile(number, path, imports, title, reference, page, authors[:20], licence, [], [], [],
                     notes=notes[:200], uses_fc=any(_FC_IMPORT_RE.match(i) for i in imports),
                     base_id=base_id or f"erdos-{number}", commands=cmds,
                     unknown=list(read.unknown), text=text)
    for c in cmds:
        if c.cls == DECL:
            pf.decl_count += 1
        if c.cls == PREAMBLE and not c.in_scoped:
            pf.preamble.append(c)
        elif c.cls == DECL and c.kind in DEF_KEYWORDS | {"coinductive"}:
            kind = local_attribute(c)
            if kind is not None:  # in force in this file only (issue 28)
                why = (f"{c.kind} {c.name or '(anonymous)'} is `{kind}`: in force only in "
                       "the file that declares it, so in a definitions module it would no "
                       "longer apply to the statement")
                pf.unknown.append((c.line, why))
            pf.defs.append(c)
        elif c.kind in THEOREM_KEYWORDS and c.name:
            try:
                pf.statements.append(_statement(c, path, text))
            except LemmataError as exc:
                pf.others.append((c.full_name, f"could not be read ({exc.code}): {exc.detail}"))
        elif c.cls == DECL:
            pf.others.append((c.full_name, f"{c.kind} not imported"))
        elif c.kind == "proof_wanted":  # a statement with no proof: accounted for, shown
            pf.decl_count += 1
            name = next((t.text for t in c.tokens[1:] if t.kind == "name"), "(unnamed)")
            why = ("proof_wanted not imported: a statement stated without a proof "
                   "(Mathlib's command); a curator imports it by hand as a theorem := by sorry")
            pf.others.append((name, why))
    return pf


def local_attribute(c: Command) -> str | None:
    """``local`` or ``scoped`` when a declaration is one (``local instance``, ``scoped
    notation``) or carries such an attribute (``@[local instance]``, ``@[scoped simp]``):
    Lean's ``attrKind``, in force only in its file (or while its namespace is open); else
    None."""
    for kind in ("local", "scoped"):
        if kind in c.modifiers:
            return kind
    for block in c.attr_tokens:
        for prev, tok in itertools.pairwise(block):
            if prev.text in ("@[", ",") and tok.text in ("local", "scoped"):
                return tok.text
    return None


def _merge_line_comments(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join runs of ``--`` comments on consecutive lines into one note."""
    out: list[dict[str, Any]] = []
    for n in notes:
        prev = out[-1] if out else None
        if (prev is not None and str(n["text"]).startswith("--")
                and str(prev["text"]).startswith("--")
                and int(prev["line"]) + str(prev["text"]).count("\n") + 1 == int(n["line"])):
            prev["text"] = f"{prev['text']}\n{n['text']}"[:4000]
        else:
            out.append(dict(n))
    return out


def _statement(c: Command, path: str, text: str) -> Statement:
    try:
        parts = theorem_parts(c, text)
        category, ams, kept, proofs = _attributes(c.attrs)
        question = is_question(parts.conclusion)
        unhedged = unhedged_answer(parts.conclusion)
    except LemmataError as exc:
        raise LemmataError(exc.code, exc.detail, path=path) from exc
    return Statement(c, parts, category, ams, kept, proofs, question, unhedged)
