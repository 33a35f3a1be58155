"""Import statements from a Formal Conjectures checkout as listed targets (D-6, D-10, D-30;
DESIGN.md "Importing from public registries"; Foundation ruling 13).

For each chosen ``FormalConjectures/ErdosProblems/<N>.lean`` the importer takes:

- the statement: the main theorem ``erdos_N`` (and each ``erdos_N.parts.<p>``) becomes
  the root of a listed target ``erdos-N`` (``erdos-N-<p>``); its Statement.lean keeps the
  file's imports and namespace, the docstring and the theorem verbatim up to ``:= by sorry``,
  with the Formal Conjectures attributes ``category``/``AMS``/``formal_proof`` removed (they
  are recorded in the provenance instead);
- the ``answer(…)`` convention: a statement containing ``answer(sorry)`` is a question,
  imported with ``answer_question: true``; its root is held and not provable as written,
  and progress comes through variants that fix a value;
- each variant ``erdos_N.variants.<name>`` as a node ``variant-<name>`` of origin variant,
  relation ``related`` until a relation proof is supplied (D-30);
- the file's definitions into the target's defs/ tier (D-3, D-9);
- provenance (repository, commit from the checkout's git HEAD, file, declaration, authors
  from the header, category, AMS) and the gate-spec pins: toolchain and Mathlib from the
  checkout's ``lean-toolchain``/``lake-manifest.json``, else the graph's common pins, else
  :data:`DEFAULT_TOOLCHAIN`/:data:`DEFAULT_MATHLIB` (the report says which), with the
  Formal Conjectures commit as a lake package beside Mathlib.

Categories: ``research open`` → an open-problem target; ``research solved`` (also
"formally solved"), ``textbook``, ``undergraduate``, ``graduate``, ``high_school`` → a
calibration candidate (class calibration, ``calibration: true``, never labelled open);
``test`` only with ``include_test``; ``API`` and anything unknown are skipped and reported.

No steward record is written (ruling 13): an open-problem target stays listed and refuses
claims until a real steward signs up. Everything is read from the checkout's HEAD commit,
never from its work tree, so the recorded commit is exactly what was imported.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2
from pydantic import TypeAdapter, ValidationError

from network import ids
from network.errors import LemmataError
from network.importers import (
    Attention,
    GraphView,
    ImportPlan,
    json_bytes,
    record_dict,
    yaml_bytes,
)
from network.importers.lean_text import (
    DEF_KEYWORDS,
    THEOREM_KEYWORDS,
    Command,
    TheoremParts,
    commands,
    is_question,
    mask,
    matching,
    theorem_parts,
    unhedged_answer,
)
from network.record import models as m
from network.record.loader import sha256_hex
from network.record.source import CommitSource, Source

FC_REPOSITORY = "https://github.com/google-deepmind/formal-conjectures"
FC_PACKAGE = "formal_conjectures"
ERDOS_DIR = "FormalConjectures/ErdosProblems"
DEFAULT_TOOLCHAIN = "leanprover/lean4:v4.34.0"
DEFAULT_MATHLIB = m.LakePackage(name="mathlib",
                                url="https://github.com/leanprover-community/mathlib4",
                                rev="5ed2965256430c3649e86755f9576b54eca72435")
OPEN, CALIBRATION, TEST, SKIP = "open", "calibration", "test", "skip"
_CALIBRATION_CATEGORIES = ("research solved", "research formally solved", "textbook",
                           "undergraduate", "graduate", "high_school")
_NAME_RE = re.compile(
    r"erdos_(?P<n>[0-9]+)(?:\.parts\.(?P<part>[A-Za-z0-9_']+))?"
    r"(?:\.variants\.(?P<variant>[A-Za-z0-9_'.]+))?")
_PROBLEM_ID_RE = re.compile(r"[0-9]{1,6}")
_SAFE_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_FC_ATTRS = ("category", "AMS", "formal_proof")
MAX_LEAN_BYTES = 1_000_000


# --- the checkout ----------------------------------------------------------------------


@dataclass
class Checkout:
    """A Formal Conjectures–style git checkout, read at its HEAD commit.

    Attributes:
        repo: the pygit2 repository.
        commit: HEAD's commit id, 40 hex.
        date: HEAD's committer date, ``YYYY-MM-DD`` (UTC): the import's ``listed`` date.
        tree: the tree of the checkout's folder at HEAD.
        repository: the https URL recorded as provenance and lake package URL.
    """

    repo: pygit2.Repository
    commit: str
    date: str
    tree: pygit2.Tree
    repository: str

    def entry(self, path: str) -> pygit2.Object | None:
        """The object at ``path`` (a tree or blob), or None."""
        try:
            return self.repo.get(self.tree[path].id)
        except KeyError:
            return None

    def read(self, path: str) -> bytes | None:
        """A file's bytes at HEAD, or None when absent.

        Raises:
            LemmataError: ``import-hostile-path`` when the path is a symbolic link or a
                submodule; ``file-too-large`` past :data:`MAX_LEAN_BYTES`.
        """
        try:
            ent = self.tree[path]
        except KeyError:
            return None
        if ent.filemode in (pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT):
            raise LemmataError("import-hostile-path", "a symbolic link or submodule", path=path)
        blob = self.repo.get(ent.id)
        if not isinstance(blob, pygit2.Blob):
            return None
        if blob.size > MAX_LEAN_BYTES:
            raise LemmataError("file-too-large", f"{blob.size} bytes", path=path)
        return bytes(blob.data)


def open_checkout(path: str | Path, repository: str | None = None) -> Checkout:
    """Open a checkout and resolve its HEAD commit (provenance, D-10).

    Args:
        path: the checkout's root folder (or a folder of it holding FormalConjectures/).
        repository: the https URL to record; default: the ``origin`` remote when it is an
            https URL, else :data:`FC_REPOSITORY`.

    Raises:
        LemmataError: ``import-source-invalid`` when ``path`` is not inside a git
            repository with a commit, or has no ``FormalConjectures/ErdosProblems`` folder.
    """
    p = Path(path)
    found = pygit2.discover_repository(str(p)) if p.is_dir() else None
    if found is None:
        raise LemmataError("import-source-invalid", f"{p} is not inside a git checkout")
    repo = pygit2.Repository(found)
    try:
        head = repo.head.peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise LemmataError("import-source-invalid", f"{p} has no HEAD commit: {exc}") from exc
    tree = head.tree
    if repo.workdir is not None:
        rel = p.resolve().relative_to(Path(repo.workdir).resolve()).as_posix()
        if rel != ".":
            sub = repo.get(tree[rel].id) if rel in tree else None
            if not isinstance(sub, pygit2.Tree):
                raise LemmataError("import-source-invalid", f"{rel} is not committed at HEAD")
            tree = sub
    url = repository or _origin_url(repo) or FC_REPOSITORY
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+(/[A-Za-z0-9_.-]+)+", url):
        raise LemmataError("import-source-invalid", f"repository URL {url!r} is not plain https")
    date = dt.datetime.fromtimestamp(head.commit_time, dt.UTC).strftime("%Y-%m-%d")
    co = Checkout(repo, str(head.id), date, tree, url)
    if not isinstance(co.entry(ERDOS_DIR), pygit2.Tree):
        raise LemmataError("import-source-invalid", f"no {ERDOS_DIR}/ folder at HEAD {co.commit}")
    return co


def _origin_url(repo: pygit2.Repository) -> str | None:
    try:
        url = repo.remotes["origin"].url or ""
    except (KeyError, ValueError):
        return None
    url = url.removesuffix(".git")
    return url if url.startswith("https://") else None


def problem_files(co: Checkout, problems: list[str] | None) -> list[tuple[str, str]]:
    """The ``(problem id, path)`` pairs to import, in numeric order.

    Args:
        co: the checkout.
        problems: ids to import (plain numbers), or None for every ``<N>.lean``.

    Raises:
        LemmataError: ``import-hostile-path`` for an id that is not a plain number, or a
            folder entry that is a link, a submodule or not a portable name;
            ``import-problem-not-found`` for an id with no file.
    """
    folder = co.entry(ERDOS_DIR)
    assert isinstance(folder, pygit2.Tree)
    present: dict[str, str] = {}
    for ent in folder:
        name = ent.name or ""
        if not _SAFE_NAME_RE.fullmatch(name) or ".." in name:
            raise LemmataError("import-hostile-path", "not a plain portable name",
                               path=f"{ERDOS_DIR}/{name!r}")
        if ent.filemode in (pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT):
            raise LemmataError("import-hostile-path", "a symbolic link or submodule",
                               path=f"{ERDOS_DIR}/{name}")
        mt = re.fullmatch(r"([0-9]+)\.lean", name)
        if mt and ent.filemode != pygit2.enums.FileMode.TREE:
            present[mt.group(1)] = f"{ERDOS_DIR}/{name}"
    if problems is None:
        chosen = sorted(present, key=int)
    else:
        chosen = []
        for pid in problems:
            if not _PROBLEM_ID_RE.fullmatch(pid):
                raise LemmataError("import-hostile-path", f"problem id {pid!r} is not a number")
            if pid not in present:
                raise LemmataError("import-problem-not-found", f"no {ERDOS_DIR}/{pid}.lean")
            chosen.append(pid)
    return [(pid, present[pid]) for pid in chosen]


# --- reading one file ------------------------------------------------------------------


@dataclass
class Statement:
    """One theorem of a problem file, classified.

    Attributes:
        cmd: the command as read.
        parts: its binders, conclusion and body.
        category: the Formal Conjectures category text (``research open``), or None.
        ams: AMS subject codes from the ``AMS`` attribute.
        kept_attrs: attribute entries that are not Formal Conjectures bookkeeping.
        target_key: ``(N, part or None)`` — which target it belongs to.
        variant: the variant name after ``.variants.``, or None for a target's root.
        question: whether it contains ``answer(sorry)``.
        unhedged: the answer term when ``answer(T)`` copies the other side, else None.
    """

    cmd: Command
    parts: TheoremParts
    category: str | None
    ams: list[str]
    kept_attrs: list[str]
    target_key: tuple[str, str | None]
    variant: str | None
    question: bool
    unhedged: str | None

    @property
    def declaration(self) -> str:
        """The full Lean name, e.g. ``Erdos242.erdos_242.variants.known_result``."""
        return self.cmd.full_name

    @property
    def kind(self) -> str:
        """OPEN, CALIBRATION, TEST or SKIP, from the category."""
        return category_kind(self.category)


@dataclass
class ProblemFile:
    """A parsed problem file.

    Attributes:
        number: the problem id (the file's stem).
        path: the file's path in the checkout.
        imports: its ``import`` lines, verbatim.
        title: the module doc's ``#`` heading, or ``Erdős Problem <N>``.
        reference: the module doc's ``*Reference:*`` line, or None.
        authors: from the header's copyright line or an ``Authors:`` line.
        licence: ``Apache-2.0`` when the header says so, else None.
        preamble: ``open``/``variable``/``universe`` commands outside declarations.
        defs: definition commands (def, abbrev, structure, inductive, class, instance).
        statements: every theorem named after the problem, in file order.
        others: ``(name, why)`` for theorems and lemmas that are not imported.
    """

    number: str
    path: str
    imports: list[str]
    title: str
    reference: str | None
    authors: list[str]
    licence: str | None
    preamble: list[Command]
    defs: list[Command]
    statements: list[Statement]
    others: list[tuple[str, str]] = field(default_factory=list)


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


def _category(attrs: list[str]) -> tuple[str | None, list[str], list[str]]:
    category: str | None = None
    ams: list[str] = []
    kept: list[str] = []
    for block in attrs:
        for entry in _split_attr(block):
            head = entry.split(None, 1)
            word, rest = head[0], (head[1] if len(head) > 1 else "")
            if word == "category":
                category = " ".join(rest.split())
            elif word == "AMS":
                ams.extend(t for t in rest.split() if re.fullmatch(r"[0-9]{1,2}[A-Z0-9]*", t))
            elif word not in _FC_ATTRS:
                kept.append(entry)
    return category, ams, kept


def parse_problem_file(number: str, path: str, data: bytes) -> ProblemFile:
    """Read one problem file into its parts (no elaboration; see lean_text).

    Raises:
        LemmataError: ``not-utf8``; ``import-malformed-lean`` (unterminated comment or
            string, a theorem without ``:`` or ``:=``); ``import-no-theorem`` when no
            theorem is named ``erdos_<N>…``.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LemmataError("not-utf8", f"byte {exc.start}", path=path) from exc
    try:
        cmds = commands(text)
    except LemmataError as exc:
        raise LemmataError(exc.code, exc.detail, path=path) from exc
    imports = [c.text for c in cmds if c.kind == "import"]
    title, reference = f"Erdős Problem {number}", None
    for c in cmds:
        if c.kind == "moddoc":
            h = re.search(r"^#\s+(.+)$", c.text, re.MULTILINE)
            r = re.search(r"^\*Reference:\*.*$", c.text, re.MULTILINE)
            title = h.group(1).strip()[:200] if h else title
            reference = r.group(0).strip() if r else reference
            break
    header = next((c.text for c in cmds if c.kind == "comment"), "")
    authors = [a.strip().rstrip(".") for a in re.findall(r"Copyright\s+\d{4}\s+(.+)", header)]
    for c in cmds:
        if c.kind in ("comment", "moddoc"):
            for line in re.findall(r"^\s*Authors?:\s*(.+)$", c.text, re.MULTILINE):
                authors += [a.strip().rstrip(".") for a in line.split(",") if a.strip()]
    licence = "Apache-2.0" if "Apache License" in header else None
    pf = ProblemFile(number, path, imports, title, reference, authors[:20], licence, [], [], [])
    for c in cmds:
        if c.kind in ("open", "variable", "universe"):
            pf.preamble.append(c)
        elif c.kind in DEF_KEYWORDS:
            pf.defs.append(c)
        elif c.kind in THEOREM_KEYWORDS and c.name:
            st = _statement(c, path)
            if st is None:
                pf.others.append((c.full_name, "not named erdos_<N>, .parts. or .variants."))
            else:
                pf.statements.append(st)
        elif c.kind in THEOREM_KEYWORDS | {"example", "axiom"}:
            pf.others.append((c.name or c.kind, f"{c.kind} not imported"))
    if not any(s.variant is None for s in pf.statements):
        raise LemmataError("import-no-theorem",
                           f"no theorem named erdos_{number} (or erdos_{number}.parts.<p>)",
                           path=path)
    return pf


def _statement(c: Command, path: str) -> Statement | None:
    assert c.name is not None
    mt = _NAME_RE.fullmatch(c.name)
    if mt is None:
        return None
    try:
        parts = theorem_parts(c)
        category, ams, kept = _category(c.attrs)
        question = is_question(parts.conclusion)
        unhedged = unhedged_answer(parts.conclusion)
    except LemmataError as exc:
        raise LemmataError(exc.code, exc.detail, path=path) from exc
    return Statement(c, parts, category, ams, kept, (mt.group("n"), mt.group("part")),
                     mt.group("variant"), question, unhedged)


# --- rendering -------------------------------------------------------------------------


def target_id(key: tuple[str, str | None]) -> str:
    """``erdos-<N>`` for a problem's main theorem, ``erdos-<N>-<part>`` for a part.

    Raises:
        LemmataError: ``bad-target-id`` when the part name cannot make a valid id.
    """
    n, part = key
    return ids.check_target_id(f"erdos-{n}" + (f"-{_slug(part)}" if part else ""))


def variant_node_id(name: str) -> str:
    """``variant-<slug>`` for ``erdos_N.variants.<name>`` (D-30 node ids take a named
    first segment). Raises: LemmataError ``bad-node-id``."""
    return ids.check_node_id(f"variant-{_slug(name)}")


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "")).strip("-")
    return re.sub(r"-+", "-", s) or "x"


def _docstring_text(doc: str | None) -> str | None:
    if not doc:
        return None
    inner = doc[3:-2]
    return textwrap.dedent(inner).strip() or None


def _witness_statement(binders: str) -> tuple[str, bool]:
    """The witness proposition for a statement's binders and whether its proof is complete.

    No binders: ``True`` (proved by ``trivial``). Otherwise ``∃ <binders as explicit>,
    True``, whose proof is left to the curator (D-4 step 7, D-6 item 5).
    """
    if not binders.strip():
        return "True", True
    masked = mask(binders)
    groups: list[str] = []
    k = 0
    while k < len(masked):
        c = masked[k]
        if c.isspace():
            k += 1
            continue
        if c not in "([{⦃":
            return "True", False
        end = matching(masked, k)
        inner = binders[k + 1:end - 1].strip()
        if c == "{" and inner.startswith("{"):
            inner = inner[1:-1].strip()
        if ":" not in mask(inner):
            inner = f"_ : {inner}"
        groups.append(f"({inner})")
        k = end
    return f"∃ {' '.join(groups)}, True", False


@dataclass
class _Pins:
    toolchain: str
    mathlib: m.LakePackage | None
    source: str


def read_pins(co: Checkout, graph: GraphView) -> _Pins:
    """Toolchain and Mathlib pins: the checkout's ``lean-toolchain`` and
    ``lake-manifest.json``, else the graph's common pins, else the module defaults."""
    raw = co.read("lean-toolchain")
    toolchain = raw.decode("utf-8", "replace").strip() if raw else ""
    mathlib: m.LakePackage | None = None
    manifest = co.read("lake-manifest.json")
    if manifest:
        try:
            for pkg in json.loads(manifest).get("packages", []):
                if isinstance(pkg, dict) and pkg.get("name") == "mathlib":
                    mathlib = m.LakePackage(name="mathlib", url=str(pkg.get("url", "")).removesuffix(".git"),
                                            rev=str(pkg.get("rev", "")))
        except (ValueError, AttributeError):
            mathlib = None
    ok_tc = bool(re.fullmatch(
        r"leanprover/lean4:(v\d+\.\d+\.\d+(-rc\d+)?|nightly-\d{4}-\d{2}-\d{2})", toolchain))
    if ok_tc and mathlib is not None:
        return _Pins(toolchain, mathlib, "checkout")
    common = graph.common_pins()
    if common is not None:
        return _Pins(common[0], common[1], "graph")
    return _Pins(DEFAULT_TOOLCHAIN, DEFAULT_MATHLIB, "default")


_PIN_WORDS = {
    "checkout": "read from the checkout's lean-toolchain and lake-manifest.json",
    "graph": "not readable from the checkout; taken from the pins the graph's targets use",
    "default": "not readable from the checkout and none in the graph; the importer's defaults",
}


class _Render:
    """Builds one problem file's graph files (bytes) for one checkout."""

    def __init__(self, co: Checkout, pf: ProblemFile, pins: _Pins, curator: str) -> None:
        self.co, self.pf, self.pins, self.curator = co, pf, pins, curator

    @property
    def file_url(self) -> str:
        return f"{self.co.repository}/blob/{self.co.commit}/{self.pf.path}"

    def defs_stem(self) -> str:
        ns = next((d.namespace for d in self.pf.defs if d.namespace), "")
        stem = ns.split(".")[0] if ns else f"Erdos{self.pf.number}Defs"
        return re.sub(r"[^A-Za-z0-9_]", "_", stem)

    def header(self, heading: str, what: str) -> str:
        ref = f"\n{self.pf.reference}\n" if self.pf.reference else ""
        lic = f" ({self.pf.licence}" + (f"; © {', '.join(self.pf.authors)}" if self.pf.authors
                                        else "") + ")" if self.pf.licence else ""
        body = textwrap.fill(
            f"Imported from {self.co.repository.removeprefix('https://github.com/')}, "
            f"`{self.pf.path}`{lic}: {what}. Formal Conjectures attributes (category, AMS) "
            "are removed here and recorded in the provenance; the source commit is pinned "
            "in gate-spec.json and recorded in META.yaml.", 90)
        return f"/-!\n# {heading}\n{ref}\n{body}\n-/\n"

    def _preamble(self, before_line: int, namespace: str) -> tuple[list[str], list[str]]:
        outside, inside = [], []
        for c in self.pf.preamble:
            if c.line >= before_line:
                continue
            if not c.namespace:
                outside.append(c.text)
            elif namespace and (namespace == c.namespace or namespace.startswith(c.namespace + ".")):
                inside.append(c.text)
        return outside, inside

    def _imports(self, with_defs: bool, tid: str) -> str:
        lines = list(self.pf.imports)
        if with_defs and self.pf.defs:
            lines.append(f"import {ids.defs_module_name(tid, self.defs_stem())}")
        return "\n".join(lines) + "\n"

    def _wrap(self, namespace: str, outside: list[str], inside: list[str], body: str) -> str:
        out = ""
        if outside:
            out += "\n".join(outside) + "\n\n"
        if namespace:
            out += f"namespace {namespace}\n\n"
        if inside:
            out += "\n".join(inside) + "\n\n"
        out += body.rstrip() + "\n"
        if namespace:
            out += f"\nend {namespace}\n"
        return out

    def statement(self, st: Statement, tid: str) -> bytes:
        c = st.cmd
        text = c.text if st.parts.sorry_body else f"{st.parts.signature} := by\n  sorry"
        pieces = list(c.prefix)
        if c.doc:
            pieces.append(c.doc)
        if st.kept_attrs:
            pieces.append(f"@[{', '.join(st.kept_attrs)}]")
        pieces.append(text)
        outside, inside = self._preamble(c.line, c.namespace)
        what = f"declaration `{st.declaration}`, statement only"
        src = (self._imports(True, tid) + "\n" + self.header(self.pf.title, what) + "\n"
               + self._wrap(c.namespace, outside, inside, "\n".join(pieces)))
        return src.encode("utf-8")

    def witness(self, st: Statement, tid: str) -> tuple[bytes, bool]:
        prop, complete = _witness_statement(st.parts.binders)
        name = st.cmd.name or ""
        what = textwrap.fill(
            f"non-vacuity witness for `{st.declaration}` (D-4 step 7): its hypotheses are "
            "satisfiable" + ("; it has none" if complete else
                             "; the curator proves this before the import merges"), 90)
        body = f"theorem {name}.witness : {prop} :=\n  trivial" if complete else \
            f"theorem {name}.witness : {prop} := by\n  sorry"
        outside, inside = self._preamble(st.cmd.line, st.cmd.namespace)
        src = (self._imports(True, tid) + "\n/-!\n" + what + "\n-/\n\n"
               + self._wrap(st.cmd.namespace, outside, inside, body))
        return src.encode("utf-8"), complete

    def defs(self, tid: str) -> bytes:
        blocks: list[tuple[str, list[str]]] = []
        for d in self.pf.defs:
            text = re.sub(r"^((?:protected|noncomputable|nonrec|unsafe|partial)\s+)*private\s+",
                          r"\1", d.text)
            text = re.sub(r"^private\s+", "", text)
            pieces = list(d.prefix) + ([d.doc] if d.doc else [])
            _, _, kept = _category(d.attrs)
            if kept:
                pieces.append(f"@[{', '.join(kept)}]")
            pieces.append(text)
            if blocks and blocks[-1][0] == d.namespace:
                blocks[-1][1].append("\n".join(pieces))
            else:
                blocks.append((d.namespace, ["\n".join(pieces)]))
        names = ", ".join(f"`{d.full_name}`" for d in self.pf.defs if d.name)
        out = self._imports(False, tid) + "\n" + self.header(
            f"{self.pf.title}: definitions", f"the definitions {names}")
        outside, _ = self._preamble(10**9, "")
        if outside:
            out += "\n" + "\n".join(outside) + "\n"
        for ns, items in blocks:
            _, inside = self._preamble(10**9, ns)
            out += "\n" + self._wrap(ns, [], inside, "\n\n".join(items))
        return out.encode("utf-8")

    def gate_spec(self) -> bytes:
        fc = m.LakePackage(name=FC_PACKAGE, url=self.co.repository, rev=self.co.commit)
        spec = m.GateSpec(lean_toolchain=self.pins.toolchain, mathlib=self.pins.mathlib,
                          packages=[fc])
        return json_bytes(record_dict(spec))

    def provenance(self, st: Statement) -> m.Provenance:
        return m.Provenance(
            source="formal-conjectures", repository=self.co.repository, commit=self.co.commit,
            file=self.pf.path, declaration=st.declaration,
            authors=[f"{a} (copyright line of the file)" for a in self.pf.authors],
            adversarially_reviewed=False, category=(st.category or "")[:100] or None,
            ams=st.ams)

    def target(self, st: Statement, tid: str) -> bytes:
        calibration = st.kind != OPEN
        informal = _docstring_text(st.cmd.doc) or (
            f"The source gives no docstring for `{st.declaration}`; see "
            f"{self.pf.reference or 'the problem page on erdosproblems.com'}.")
        if st.question:
            informal += "\n\n" + textwrap.fill(
                "This statement asks for a value: it is written with `answer(sorry)`, so its "
                "root is a question, held and not provable as written. Progress comes through "
                "variants that fix a value.", 90)
        refs = [m.Reference(title=f"Formal Conjectures: {self.pf.path}", url=self.file_url,
                            note=f"{st.declaration} is tagged `{st.category}` at this commit.")]
        page = re.search(r"https?://(?:www\.)?erdosproblems\.com/[0-9]+", self.pf.reference or "")
        if page:
            refs.append(m.Reference(title=f"Erdős Problem #{self.pf.number} (erdosproblems.com)",
                                    url=page.group(0)))
        summary = (
            "Prior-art check required (D-6 item 1); none has been made. Formal Conjectures "
            f"(commit {self.co.commit}) tags `{st.declaration}` as `{st.category}`: that is "
            "the registry's word, recorded with its date, not evidence about whether the "
            "problem is open. "
            + ("The category says it is solved or a known result, so the target is a "
               "calibration candidate and is never labelled open." if calibration else
               "A curator checks the literature and the erdosproblems database before "
               "relying on it; a later finding that it is solved relabels the target a "
               "known result (D-6)."))
        coverage = (
            "Not assessed at import (D-6 item 2). Pins "
            f"{_PIN_WORDS[self.pins.source]}: {self.pins.toolchain}, Mathlib "
            f"{self.pins.mathlib.rev if self.pins.mathlib else 'unpinned'}, with Formal "
            f"Conjectures {self.co.commit} as a lake package beside Mathlib.")
        intake = m.Intake(
            prior_art=m.PriorArt(summary=summary, checked_on=self.co.date, references=refs),
            library_coverage=m.LibraryCoverage(summary=coverage),
            provenance=self.provenance(st),
            witness=f"{ids.node_dir(tid, ids.ROOT)}/Witness.lean",
            curator=self.curator)
        title = self.pf.title if st.target_key[1] is None else \
            f"{self.pf.title} (part {st.target_key[1]})"
        rec = m.TargetRecord.model_validate({
            "id": tid, "title": title[:200],
            "class": "calibration" if calibration else "open-problem",
            "calibration": calibration, "informal_statement": informal,
            "listed": self.co.date, "intake": intake, "answer_question": st.question})
        return yaml_bytes(record_dict(rec))

    def meta(self, st: Statement, tid: str, node: str, statement: bytes,
             attention: list[Attention]) -> bytes:
        prov: dict[str, Any] = self.provenance(st).model_dump(mode="json", exclude_defaults=True)
        if st.question:
            prov["answer_question"] = True
        if not st.parts.sorry_body:
            prov["upstream_proof"] = True
        if attention:
            prov["curator_attention"] = [{"code": a.code, "detail": a.detail} for a in attention]
        variant = None
        if st.variant is not None:
            variant = m.VariantOf(
                of=ids.ROOT, relation="related",
                pertinence=f"Imported from Formal Conjectures as `{st.declaration}`; no "
                           "relation proof supplied, so the relation is related (D-30).")
        meta = m.Meta(id=node, target=tid, declaration=st.declaration,
                      statement_hash=sha256_hex(statement),
                      origin="variant" if variant else "authored", provenance=prov,
                      variant=variant)
        return yaml_bytes(record_dict(meta, exclude_defaults=True))


# --- the plan --------------------------------------------------------------------------


def plan_formal_conjectures_import(
    checkout: str | Path, graph: str | Path | Source | CommitSource | GraphView | None, *,
    problems: list[str] | None = None, include_test: bool = False,
    curator: str | None = None, repository: str | None = None,
) -> ImportPlan:
    """Compute the file set importing a Formal Conjectures checkout into a graph (D-6, D-10,
    D-30; DESIGN.md "Importing from public registries"; ruling 13).

    Args:
        checkout: the checkout's root folder (read at its git HEAD).
        graph: the graph to compare against (a folder, a Source at main, or None: empty).
        problems: problem ids to import (``["242"]``); None imports every file.
        include_test: also import statements of category ``test``.
        curator: the pseudonym signing the intake; default: the graph's ``*`` curator.
        repository: the https URL to record; default: origin, else :data:`FC_REPOSITORY`.

    Returns:
        An :class:`ImportPlan`: only new or changed graph files, the report, and the
        curator-attention items. Existing targets keep their target.yaml and gate-spec.json;
        an existing node whose Statement.lean differs is never overwritten (statements are
        immutable, D-8) and is reported as ``statement-changed-upstream``.

    Raises:
        LemmataError: ``import-source-invalid``, ``import-hostile-path``,
            ``import-problem-not-found``, ``import-no-theorem``, ``import-malformed-lean``,
            ``import-no-curator``, ``not-utf8``, ``file-too-large``, ``bad-target-id``.
    """
    co = open_checkout(checkout, repository)
    view = graph if isinstance(graph, GraphView) else GraphView(graph)
    who = curator or view.default_curator()
    if who is None:
        raise LemmataError("import-no-curator", "no --curator and no '*' curator in curators.json")
    try:
        TypeAdapter(m.Pseudonym).validate_python(who)
    except ValidationError as exc:
        raise LemmataError("import-no-curator", f"{who!r} is not a pseudonym") from exc
    pins = read_pins(co, view)
    plan = ImportPlan(report={
        "source": "formal-conjectures", "repository": co.repository, "commit": co.commit,
        "date": co.date, "curator": who,
        "pins": {"lean_toolchain": pins.toolchain,
                 "mathlib": pins.mathlib.rev if pins.mathlib else None,
                 "formal_conjectures": co.commit, "source": pins.source,
                 "explanation": _PIN_WORDS[pins.source]},
        "targets": [], "skipped": []})
    for pid, path in problem_files(co, problems):
        data = co.read(path)
        if data is None:
            raise LemmataError("import-problem-not-found", "not a file at HEAD", path=path)
        pf = parse_problem_file(pid, path, data)
        _plan_file(plan, view, co, pf, pins, who, include_test)
    return plan


def _skip(plan: ImportPlan, decl: str, why: str) -> None:
    plan.report["skipped"].append({"declaration": decl, "reason": why})


def _plan_file(plan: ImportPlan, view: GraphView, co: Checkout, pf: ProblemFile,
               pins: _Pins, curator: str, include_test: bool) -> None:
    r = _Render(co, pf, pins, curator)
    for name, why in pf.others:
        _skip(plan, name, why)
    roots: dict[tuple[str, str | None], Statement] = {}
    for st in pf.statements:
        if st.target_key[0] != pf.number:
            _skip(plan, st.declaration, f"named for problem {st.target_key[0]}, "
                                        f"in the file of {pf.number}")
        elif st.variant is None:
            if st.kind == SKIP:
                _skip(plan, st.declaration, f"category {st.category!r} is not imported")
            elif st.kind == TEST and not include_test:
                _skip(plan, st.declaration, "category test (pass --include-test)")
            else:
                roots[st.target_key] = st
    for key, root in roots.items():
        tid = target_id(key)
        base = f"{ids.target_dir(tid)}"
        exists = view.read(f"{base}/target.yaml") is not None
        entry: dict[str, Any] = {"id": tid, "declaration": root.declaration,
                                 "category": root.category, "answer_question": root.question,
                                 "class": "open-problem" if root.kind == OPEN else "calibration",
                                 "existing": exists, "nodes": []}
        plan.report["targets"].append(entry)
        files: dict[str, bytes] = {}
        if not exists:
            files[f"{base}/target.yaml"] = r.target(root, tid)
            files[f"{base}/gate-spec.json"] = r.gate_spec()
        if pf.defs:
            for d in pf.defs:
                if not d.doc:
                    plan.attention.append(Attention(
                        "definition-without-docstring", tid, None,
                        f"`{d.full_name}` has no docstring; definitions are fidelity review "
                        "objects (D-9) and need one."))
            dpath = f"{base}/defs/{r.defs_stem()}.lean"
            dbytes = r.defs(tid)
            old = view.read(dpath)
            if old is None:
                files[dpath] = dbytes
            elif old != dbytes:
                plan.attention.append(Attention(
                    "definitions-changed-upstream", tid, None,
                    f"{dpath} differs from the source; definitions are immutable (D-3): "
                    "a revision (D-8) is needed, the file is left as it is."))
        nodes = [(ids.ROOT, root)] + [
            (variant_node_id(st.variant), st) for st in pf.statements
            if st.variant is not None and st.target_key == key]
        seen: set[str] = set()
        for node, st in nodes:
            if node in seen:
                _skip(plan, st.declaration, f"node id {node} already used in this file")
                continue
            seen.add(node)
            if st.variant is not None and st.kind == SKIP:
                _skip(plan, st.declaration, f"category {st.category!r} is not imported")
                continue
            if st.variant is not None and st.kind == TEST and not include_test:
                _skip(plan, st.declaration, "category test (pass --include-test)")
                continue
            _plan_node(plan, view, r, files, tid, node, st)
            entry["nodes"].append(node)
        plan.files.update(files)


def _plan_node(plan: ImportPlan, view: GraphView, r: _Render, files: dict[str, bytes],
               tid: str, node: str, st: Statement) -> None:
    ndir = f"{ids.node_dir(tid, node)}"
    statement = r.statement(st, tid)
    old = view.read(f"{ndir}/Statement.lean")
    if old is not None:
        if old != statement:
            plan.attention.append(Attention(
                "statement-changed-upstream", tid, node,
                f"{st.declaration} differs from the graph's Statement.lean; statements are "
                "immutable: propose a revision (D-8). Nothing was overwritten."))
        return
    notes: list[Attention] = []
    if st.unhedged is not None:
        notes.append(Attention(
            "answer-copies-target", tid, node,
            f"`answer({st.unhedged})` restates the other side of the statement, so it closes "
            "by rfl without answering (Formal Conjectures issue #4923); a person must check "
            "any resolving answer at step 9."))
    if st.question:
        notes.append(Attention(
            "answer-question", tid, node,
            "contains answer(sorry): a question, held with no provable root; variants fixing "
            "a value are the way to progress, and a resolving one is judged at step 9."))
    if not st.parts.sorry_body:
        notes.append(Attention(
            "upstream-proof-dropped", tid, node,
            "the source carries a proof; only the statement was imported (body sorry)."))
    witness, complete = r.witness(st, tid)
    if not complete:
        notes.append(Attention(
            "witness-proof-required", tid, node,
            "Witness.lean states the hypotheses' satisfiability with proof `sorry`; the "
            "curator supplies the proof (D-6 item 5, D-4 step 7) before the import merges."))
    plan.attention.extend(notes)
    files[f"{ndir}/Statement.lean"] = statement
    files[f"{ndir}/Witness.lean"] = witness
    files[f"{ndir}/META.yaml"] = r.meta(st, tid, node, statement, notes)
