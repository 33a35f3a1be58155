"""Import statements from a Formal Conjectures checkout as listed targets (D-6, D-9, D-10,
D-30; DESIGN.md "Importing from public registries"; Foundation ruling 13).

A run imports one *collection*: a folder of the checkout (default
``FormalConjectures/ErdosProblems``; ``--collection FormalConjectures/Wikipedia`` and so
on). Each ``.lean`` file of it is read on its own: a file that cannot be read is that
file's line in the report (``report["files"]``), never the run's end, and every
declaration of every file read is accounted for (``report["declarations"]``): imported as a
root, a variant or a definition, or skipped with its reason.

What a file's declarations become is read from the file itself, not from a list of names:

- a *statement* is a theorem or lemma carrying a Formal Conjectures ``category`` that is
  imported (``research open`` → an open-problem target; ``research solved``, ``textbook``,
  ``undergraduate``, ``graduate``, ``high_school`` → a calibration candidate; ``test`` only
  with ``include_test``); ``API``, unknown categories and lemmas without a category are
  skipped with that reason;
- a statement whose name extends another statement's name (``erdos_1.variants.weak``,
  ``erdos_160.better_upper`` under ``erdos_160``, ``erdos_9.varaints.x``) is a variant of
  that statement's target: node ``variant-<rest>``, relation ``related`` until a relation
  proof is supplied (D-30); a leading ``variants``/``variant`` segment is dropped from
  ``<rest>``;
- every other statement is the root of its own target, including ``.parts.<p>`` (always a
  target of its own), lettered statements (``erdos_18a``) and roots under other names
  (``HadwigerNelsonProblem``). The file's *main* root (the one named ``erdos_<N>`` in the
  Erdős collection, or the only root) gets the file's id (``erdos-N``); the others
  ``<file id>-<suffix>``;
- a ``.variants.`` statement whose named root the file does not state (or does not import)
  is a variant of the file's main root when there is one, else a target of its own; either
  way the curator is told (``variant-without-root``);
- ids that collide after slugging (case, a prime ``'`` is written ``-prime``) stay
  distinct: the first in file order keeps the plain id, each later one gets ``-`` and six hex
  digits of its declaration's SHA-256, so the same source always gives the same ids;
- definitions (``def``, ``abbrev``, ``structure``, ``instance`` — anonymous ones too) go
  to each imported target's defs/ tier (D-3, D-9).

Target ids come from paths: ``erdos-<N>`` for ``ErdosProblems/<N>.lean``; elsewhere
``<collection>-<relative path>`` slugged (``wikipedia-goldbach``), cut to the id length
with a hash when long; names that are not plain portable names are refused (that file's
line); only :mod:`network.ids` turns ids into graph paths.

Kept from the source: the statement verbatim up to ``:= by sorry``, its docstring, the
file's imports, namespace and scoped commands; the Formal Conjectures attributes are
removed from the Lean text and recorded instead: category and AMS in the provenance,
``formal_proof using X at "URL"`` in META's provenance (``formal_proofs``) and as a
prior-art reference; column-0 comments and the module doc's formalisation notes in META's
provenance (``source_notes``), so the fidelity review (D-9) sees them; the module doc's
references block, whatever its heading (``*Reference:*``, ``*References:*``, ``Ref:``).
Erdős-specific parts (the erdosproblems.com link, the problem number) apply where they fit.
A hidden character in a comment (a soft hyphen, a bidi control: what step 2 refuses as
``lean-format-character``, issue 37) is taken out where no Lean token changes, said in the
file's ``warning`` and as ``hidden-character-removed``; one in code, or a look-alike name
in a file the import writes (``lean-mixed-script-identifier``,
``lean-confusable-identifier``), refuses the file.

Questions: a statement containing ``answer(sorry)`` is a question, imported with
``answer_question: true``; its root is held and not provable as written, and progress comes
through variants that fix a value.

Pins: toolchain and Mathlib from the checkout's ``lean-toolchain``/``lake-manifest.json``,
else the graph's common pins, else :data:`DEFAULT_TOOLCHAIN`/:data:`DEFAULT_MATHLIB` (the
report says which). A target whose statements import Formal Conjectures modules pins the
Formal Conjectures commit as a lake package beside Mathlib, whether the target is new or
already in the graph (an existing gate-spec without the pin gains it).

No steward record is written (ruling 13): an open-problem target stays listed and refuses
claims until a real steward signs up. Everything is read from the checkout's HEAD commit,
never from its work tree, so the recorded commit is exactly what was imported.

The checkout and its files are :mod:`network.importers.fc_checkout`'s, reading one file
:mod:`network.importers.fc_source`'s, and which statement is which target's root or variant
:mod:`network.importers.fc_naming`'s; this module holds the pins, the rendering of a
target's files and the plan, and re-exports every public name of the three (issue 17).
"""

from __future__ import annotations

import datetime as dt
import re
import textwrap
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from network import ids
from network.errors import LemmataError
from network.gate.kernels import known_unsound
from network.gate.unicode_screen import (
    HiddenCharacter,
    identifier_problems,
    strip_comment_hidden_characters,
)
from network.importers import (
    Attention,
    GraphView,
    ImportPlan,
    json_bytes,
    record_dict,
    yaml_bytes,
)
from network.importers.fc_checkout import (
    ERDOS_DIR,
    FC_REPOSITORY,
    MAX_FILES,
    MAX_LEAN_BYTES,
    Checkout,
    Collection,
    SourceFile,
    collection_of,
    open_checkout,
    problem_files,
)
from network.importers.fc_naming import (
    _imported,
    _root_suffix,
    _slug,
    classify,
    target_id,
    variant_node_id,
)
from network.importers.fc_pins import (
    _PIN_WORDS,
    DEFAULT_MATHLIB,
    DEFAULT_TOOLCHAIN,
    _Pins,
    read_pins,
)
from network.importers.fc_source import (
    CALIBRATION,
    OPEN,
    SKIP,
    TEST,
    ProblemFile,
    Statement,
    _category,
    category_kind,
    parse_problem_file,
)
from network.importers.lean_text import mask, matching
from network.record import models as m
from network.record.loader import sha256_hex
from network.record.source import CommitSource, Source

__all__ = [
    "CALIBRATION",
    "DEFAULT_MATHLIB",
    "DEFAULT_TOOLCHAIN",
    "ERDOS_DIR",
    "FC_PACKAGE",
    "FC_REPOSITORY",
    "MAX_FILES",
    "MAX_LEAN_BYTES",
    "OPEN",
    "SKIP",
    "TEST",
    "Checkout",
    "Collection",
    "ProblemFile",
    "SourceFile",
    "Statement",
    "category_kind",
    "classify",
    "collection_of",
    "open_checkout",
    "parse_problem_file",
    "plan_formal_conjectures_import",
    "problem_files",
    "read_pins",
    "target_id",
    "variant_node_id",
]

FC_PACKAGE = "formal_conjectures"



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


class _Render:
    """Builds one problem file's graph files (bytes) for one checkout."""

    def __init__(self, co: Checkout, pf: ProblemFile, pins: _Pins, curator: str) -> None:
        self.co, self.pf, self.pins, self.curator = co, pf, pins, curator

    @property
    def file_url(self) -> str:
        return f"{self.co.repository}/blob/{self.co.commit}/{self.pf.path}"

    def defs_stem(self) -> str:
        ns = next((d.namespace for d in self.pf.defs if d.namespace), "")
        fallback = f"Erdos{self.pf.number}Defs" if self.pf.number else \
            "Defs" + "".join(w.capitalize() for w in _slug(self.pf.base_id).split("-"))
        stem = ns.split(".")[0] if ns else fallback
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

    def fc_package(self) -> m.LakePackage:
        return m.LakePackage(name=FC_PACKAGE, url=self.co.repository, rev=self.co.commit)

    def gate_spec(self) -> bytes:
        spec = m.GateSpec(lean_toolchain=self.pins.toolchain, mathlib=self.pins.mathlib,
                          packages=[self.fc_package()] if self.pf.uses_fc else [],
                          network_commit=self.pins.network_commit)
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
            f"{self.pf.erdos_page or self.file_url}.")
        if st.question:
            informal += "\n\n" + textwrap.fill(
                "This statement asks for a value: it is written with `answer(sorry)`, so its "
                "root is a question, held and not provable as written. Progress comes through "
                "variants that fix a value.", 90)
        refs = [m.Reference(title=f"Formal Conjectures: {self.pf.path}", url=self.file_url,
                            note=f"{st.declaration} is tagged `{st.category}` at this commit.")]
        if self.pf.erdos_page:
            num = self.pf.erdos_page.rstrip("/").rsplit("/", 1)[-1]
            refs.append(m.Reference(title=f"Erdős Problem #{num} (erdosproblems.com)",
                                    url=self.pf.erdos_page))
        for fp in st.formal_proofs:
            if re.fullmatch(r"https?://\S{1,490}", fp.get("at", "")):
                refs.append(m.Reference(
                    title=f"Formal proof using {fp['using']}, cited by Formal Conjectures",
                    url=fp["at"], note=f"Cited in `{st.declaration}`'s formal_proof attribute; "
                                       "not checked by this import."))
        summary = (
            "Prior-art check required (D-6 item 1); none has been made. Formal Conjectures "
            f"(commit {self.co.commit}) tags `{st.declaration}` as `{st.category}`: that is "
            "the registry's word, recorded with its date, not evidence about whether the "
            "problem is open. "
            + ("The category says it is solved or a known result, so the target is a "
               "calibration candidate and is never labelled open." if calibration else
               "A curator checks the literature"
               + (" and the erdosproblems database" if self.pf.erdos_page else "")
               + " before relying on it; a later finding that it is solved relabels the "
               "target a known result (D-6)."))
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
        title = self.pf.title if st.target == self.pf.base_id else \
            f"{self.pf.title} ({_root_suffix(st, self.pf)})"
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
        if st.formal_proofs:
            prov["formal_proofs"] = st.formal_proofs
        if self.pf.notes:
            prov["source_notes"] = self.pf.notes
        if attention:
            prov["curator_attention"] = [{"code": a.code, "detail": a.detail} for a in attention]
        variant = None
        if st.variant:
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
    collection: str | None = None, source_commit: str | None = None,
    source_date: str | None = None,
) -> ImportPlan:
    """Compute the file set importing a Formal Conjectures collection into a graph (D-6,
    D-9, D-10, D-30; DESIGN.md "Importing from public registries"; ruling 13).

    Args:
        checkout: the checkout's root folder (read at its git HEAD).
        graph: the graph to compare against (a folder, a Source at main, or None: empty).
        problems: file stems to import (``["242"]``; elsewhere ``["Goldbach"]``); None
            imports every file of the collection.
        include_test: also import statements of category ``test``.
        curator: the pseudonym signing the intake; default: the graph's ``*`` curator.
        repository: the https URL to record; default: origin, else :data:`FC_REPOSITORY`.
        collection: the folder to import, relative to the checkout's root; default
            :data:`ERDOS_DIR`.
        source_commit: the upstream commit the checkout's HEAD is a copy of (40 hex), for
            a snapshot committed into a scratch repository: recorded as the provenance
            commit and the Formal Conjectures pin instead of HEAD (the report keeps HEAD as
            ``read_at``); default: HEAD itself.
        source_date: the upstream commit's date ``YYYY-MM-DD`` (the ``listed`` date);
            default: HEAD's committer date.

    Returns:
        An :class:`ImportPlan`: only new or changed graph files, the report, and the
        curator-attention items. The report's ``files`` has one line per file (``status``
        ``imported``, ``nothing-imported`` or ``refused`` with the catalog ``code``), its
        ``declarations`` one line per declaration read (``outcome`` root, variant,
        definition or skipped, with ``reason``), and ``counts`` the totals, which add up:
        declarations = imported + skipped, per file. A refused file contributes no files
        to the plan. Existing targets keep their target.yaml; an existing node whose
        Statement.lean differs is never overwritten (statements are immutable, D-8) and is
        reported as ``statement-changed-upstream``; an existing gate-spec.json without the
        Formal Conjectures pin gains it when new nodes import Formal Conjectures.

    Raises:
        LemmataError: ``import-source-invalid``, ``import-hostile-path`` (a ``problems``
            entry or ``collection`` that is not a plain name), ``import-problem-not-found``,
            ``import-no-curator``. Problems of one file are that file's report line.
    """
    co = open_checkout(checkout, repository)
    read_at = co.commit
    if source_commit is not None:
        if not re.fullmatch(r"[0-9a-f]{40}", source_commit):
            raise LemmataError("import-source-invalid",
                               f"source commit {source_commit[:60]!r} is not 40 lowercase hex")
        co.commit = source_commit
    if source_date is not None:
        try:
            dt.date.fromisoformat(source_date)
        except ValueError as exc:
            raise LemmataError("import-source-invalid",
                               f"source date {source_date[:40]!r} is not YYYY-MM-DD") from exc
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", source_date):
            raise LemmataError("import-source-invalid", "source date is not YYYY-MM-DD")
        co.date = source_date
    coll = collection_of(co, collection)
    view = graph if isinstance(graph, GraphView) else GraphView(graph)
    who = curator or view.default_curator()
    if who is None:
        raise LemmataError("import-no-curator", "no --curator and no '*' curator in curators.json")
    try:
        TypeAdapter(m.Pseudonym).validate_python(who)
    except ValidationError as exc:
        raise LemmataError("import-no-curator", f"{who!r} is not a pseudonym") from exc
    pins = read_pins(co, view)
    pin_spec = m.GateSpec(lean_toolchain=pins.toolchain, mathlib=pins.mathlib)
    unsound = [b.id for b in known_unsound(pin_spec)]  # issue 37: said, never hidden
    plan = ImportPlan(report={
        "source": "formal-conjectures", "repository": co.repository, "commit": co.commit,
        "date": co.date, "read_at": read_at, "curator": who, "collection": coll.folder,
        "pins": {"lean_toolchain": pins.toolchain,
                 "mathlib": pins.mathlib.rev if pins.mathlib else None,
                 "formal_conjectures": co.commit, "source": pins.source,
                 "explanation": _PIN_WORDS[pins.source],
                 "known_unsound": unsound,
                 **({"warning": f"{pins.toolchain} is known unsound ({', '.join(unsound)}): "
                                "the gate refuses every proof on these targets "
                                "(toolchain-known-unsound) until each is re-pinned with "
                                "`lemmata target repin`"} if unsound else {})},
        "targets": [], "skipped": [], "files": [], "declarations": []})
    taken: set[str] = set()
    for sf in problem_files(co, problems, coll):
        _plan_one_file(plan, view, co, sf, pins, who, include_test, taken)
    plan.report["counts"] = _counts(plan.report["files"])
    return plan


def _counts(lines: list[dict[str, Any]]) -> dict[str, int]:
    keys = ("declarations", "imported", "skipped", "roots", "variants", "definitions")
    out = {k: sum(int(f.get(k, 0)) for f in lines) for k in keys}
    out["files"] = len(lines)
    out["files_refused"] = sum(1 for f in lines if f["status"] == "refused")
    out["files_imported"] = sum(1 for f in lines if f["status"] == "imported")
    return out


def _plan_one_file(plan: ImportPlan, view: GraphView, co: Checkout, sf: SourceFile,
                   pins: _Pins, curator: str, include_test: bool, taken: set[str]) -> None:
    """Plan one file in isolation: its problem is its report line, never the run's end."""
    line: dict[str, Any] = {"path": sf.path, "status": "refused", "declarations": 0,
                            "imported": 0, "skipped": 0}
    plan.report["files"].append(line)
    if sf.refused is not None:
        line["code"], line["detail"] = sf.refused
        return
    sub = ImportPlan(report={"targets": [], "skipped": [], "declarations": []})
    used = set(taken)
    try:
        data = co.read(sf.path)
        if data is None:
            raise LemmataError("import-problem-not-found", "not a file at HEAD", path=sf.path)
        data, removed = _without_comment_hidden_characters(data, sf.path)
        pf = parse_problem_file(sf.number, sf.path, data, base_id=sf.base_id)
        _plan_file(sub, view, co, pf, pins, curator, include_test, used)
    except LemmataError as exc:
        line["code"], line["detail"] = exc.code, exc.detail
        return
    if removed:
        line["warning"] = _removed_words(removed)
        sub.attention.extend(Attention("hidden-character-removed", t["id"], None,
                                       line["warning"]) for t in sub.report["targets"])
    decls = sub.report["declarations"]
    imported = [d for d in decls if d["outcome"] != "skipped"]
    line.update({
        "status": "imported" if any(d["outcome"] == "root" for d in decls) else
        "nothing-imported", "declarations": pf.decl_count, "imported": len(imported),
        "skipped": len(decls) - len(imported),
        "roots": sum(1 for d in decls if d["outcome"] == "root"),
        "variants": sum(1 for d in decls if d["outcome"] == "variant"),
        "definitions": sum(1 for d in decls if d["outcome"] == "definition")})
    if line["status"] == "nothing-imported":
        line["code"] = "import-no-theorem"
    if len(decls) != pf.decl_count:  # the reader lost one: a bug, said, not hidden
        line["status"], line["code"] = "refused", "import-malformed-lean"
        line["detail"] = (f"{pf.decl_count} declarations read but {len(decls)} accounted "
                          "for; nothing of this file is imported")
        return
    taken |= used
    plan.files.update(sub.files)
    plan.attention.extend(sub.attention)
    for key in ("targets", "skipped", "declarations"):
        plan.report[key].extend(sub.report[key])


def _without_comment_hidden_characters(data: bytes, path: str
                                       ) -> tuple[bytes, list[HiddenCharacter]]:
    """The source's bytes with every hidden character of its comments taken out (issue 37),
    and those characters; bytes that are not UTF-8 are returned as they are (the parse
    refuses them as ``not-utf8``).

    Why: step 2 refuses a hidden character anywhere in a Lean file
    (``lean-format-character``), since a bidi control or an invisible one shows a reviewer
    text Lean does not read. A registry's comment may hold one by accident (Formal
    Conjectures 488aade ``ErdosProblems/239.lean``: a soft hyphen U+00AD in
    ``Funk<U+00AD>tionen`` of its references block, which the statement's header carries): in a
    comment it changes no Lean token, so the importer deletes it and says so (the file's
    report line ``warning``, and ``hidden-character-removed`` for the curator) rather than
    refuse the file or write a statement a later gate run would refuse. One in code or a
    literal, or one whose removal would change a token, refuses the file.

    Raises:
        LemmataError: ``lean-format-character``
            (:func:`network.gate.unicode_screen.strip_comment_hidden_characters`).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, []
    new, removed = strip_comment_hidden_characters(text, path)
    return (new.encode("utf-8") if removed else data), removed


def _removed_words(removed: list[HiddenCharacter]) -> str:
    more = f" and {len(removed) - 1} more" if len(removed) > 1 else ""
    return (f"{removed[0].where()}{more} taken out of the source's comments: hidden "
            "characters show a reader text Lean does not read (lean-format-character); no "
            "Lean token changed.")


def _screen_names(files: dict[str, bytes], path: str) -> None:
    """Refuse the source file when a statement, witness or definition module it gives holds
    a look-alike name (issue 37): the gate's ``lean-mixed-script-identifier`` and
    ``lean-confusable-identifier`` rules, which step 2 holds every later statement to.

    Raises:
        LemmataError: the first problem's code, naming the graph file and the names.
    """
    for gpath, data in sorted(files.items()):
        if gpath.endswith(".lean"):
            problems = identifier_problems(data.decode("utf-8"))
            if problems:
                raise LemmataError(problems[0].code, f"{gpath}: {problems[0].why}", path=path)


def _skip(plan: ImportPlan, decl: str, why: str, path: str = "") -> None:
    plan.report["skipped"].append({"declaration": decl, "reason": why, "file": path})
    plan.report["declarations"].append({"declaration": decl, "file": path,
                                        "outcome": "skipped", "reason": why})


def _plan_file(plan: ImportPlan, view: GraphView, co: Checkout, pf: ProblemFile,
               pins: _Pins, curator: str, include_test: bool, used: set[str]) -> None:
    r = _Render(co, pf, pins, curator)
    for name, reason in pf.others:
        _skip(plan, name, reason, pf.path)
    for st in pf.statements:
        why = _imported(st, include_test)
        if why is not None:
            _skip(plan, st.declaration, why, pf.path)
    groups = classify(pf, include_test, used)
    decls = plan.report["declarations"]
    for d in pf.defs:
        if groups:
            decls.append({"declaration": d.full_name, "file": pf.path, "outcome": "definition",
                          "targets": [g[0].target for g in groups]})
        else:
            _skip(plan, d.full_name, "no statement of this file is imported", pf.path)
    for group in groups:
        root = group[0]
        tid = root.target
        base = f"{ids.target_dir(tid)}"
        exists = view.read(f"{base}/target.yaml") is not None
        entry: dict[str, Any] = {"id": tid, "declaration": root.declaration, "file": pf.path,
                                 "category": root.category, "answer_question": root.question,
                                 "class": "open-problem" if root.kind == OPEN else "calibration",
                                 "existing": exists, "nodes": []}
        plan.report["targets"].append(entry)
        for st in group:
            if st.promoted:
                plan.attention.append(Attention(
                    "variant-without-root", tid, st.node,
                    f"`{st.declaration}` is named as a variant of `{st.promoted}`, which this "
                    "file does not state (or does not import); it is imported "
                    + (f"as a variant of the file's main statement `{root.declaration}`."
                       if st.variant else "as its own target.")))
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
        new_nodes = False
        for st in group:
            decls.append({"declaration": st.declaration, "file": pf.path,
                          "outcome": "variant" if st.variant else "root", "target": tid,
                          "node": st.node, "category": st.category,
                          "answer_question": st.question})
            new_nodes |= _plan_node(plan, view, r, files, tid, st.node, st)
            entry["nodes"].append(st.node)
        if exists and new_nodes and pf.uses_fc:
            _pin_existing(plan, view, r, files, tid)
        _screen_names(files, pf.path)
        plan.files.update(files)


def _pin_existing(plan: ImportPlan, view: GraphView, r: _Render, files: dict[str, bytes],
                  tid: str) -> None:
    """Pins follow imports: an existing target gaining nodes that import Formal Conjectures
    pins the Formal Conjectures commit in its gate-spec (D-4 step 1)."""
    path = f"{ids.target_dir(tid)}/gate-spec.json"
    spec = view.record(path, m.GateSpec)
    if spec is None:
        plan.attention.append(Attention(
            "gate-spec-unreadable", tid, None,
            f"{path} is missing or invalid, so the Formal Conjectures pin the new nodes need "
            "could not be added; fix it before the import merges."))
        return
    have = [p for p in spec.packages if p.name == FC_PACKAGE]
    if not have:
        fresh = spec.model_copy(update={"packages": [*spec.packages, r.fc_package()]})
        files[path] = json_bytes(record_dict(fresh))
    elif have[0].rev != r.co.commit:
        plan.attention.append(Attention(
            "formal-conjectures-pin-differs", tid, None,
            f"{path} pins Formal Conjectures at {have[0].rev}, the new nodes come from "
            f"{r.co.commit}; the pin is left as it is: check the new nodes build against it."))


def _plan_node(plan: ImportPlan, view: GraphView, r: _Render, files: dict[str, bytes],
               tid: str, node: str, st: Statement) -> bool:
    """Plan one node's files; True when it is new (False: already in the graph)."""
    ndir = f"{ids.node_dir(tid, node)}"
    statement = r.statement(st, tid)
    old = view.read(f"{ndir}/Statement.lean")
    if old is not None:
        if old != statement:
            plan.attention.append(Attention(
                "statement-changed-upstream", tid, node,
                f"{st.declaration} differs from the graph's Statement.lean; statements are "
                "immutable: propose a revision (D-8). Nothing was overwritten."))
        return False
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
    return True
