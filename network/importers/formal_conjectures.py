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

Fidelity (D-9, issue 28): a file is read by the token reader of
:mod:`network.gate.screens.lean_commands`; each landed Lean file is cut from the source's own
commands (:mod:`network.importers.fc_project`: the scopes and preamble a declaration needs,
``… in`` commands scoping only their declaration, the lemmas a landed declaration calls)
and checked against the source without Lean (:mod:`network.importers.fc_roundtrip`): any
difference refuses the file (``import-round-trip-differs``). A file holding a command the
reader does not know, or a notation, infix or macro a landed declaration uses, is *held*
(report ``status: held``, ``import-command-unknown``), as is one whose declarations need a
lemma proved by ``sorry`` (``import-closure-missing``): nothing of it lands and the curator
is told why; it is never truncated.

The checkout and its files are :mod:`network.importers.fc_checkout`'s, reading one file
:mod:`network.importers.fc_source`'s, which statement is which target's root or variant
:mod:`network.importers.fc_naming`'s, and the files a target gets
:mod:`network.importers.fc_render`'s; this module holds the plan, and re-exports every
public name of those (issue 17).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from network import ids
from network.errors import LemmataError
from network.gate.lean.kernels import known_unsound
from network.gate.screens.unicode_screen import (
    HiddenCharacter,
    identifier_problems,
    strip_comment_hidden_characters,
)
from network.importers import Attention, GraphView, ImportPlan, json_bytes, record_dict
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
from network.importers.fc_naming import _imported, classify, target_id, variant_node_id
from network.importers.fc_pins import (
    _PIN_WORDS,
    DEFAULT_MATHLIB,
    DEFAULT_TOOLCHAIN,
    _Pins,
    read_pins,
)
from network.importers.fc_project import closure
from network.importers.fc_render import FC_PACKAGE, _Render
from network.importers.fc_roundtrip import round_trip_differences
from network.importers.fc_source import (
    CALIBRATION,
    OPEN,
    SKIP,
    TEST,
    ProblemFile,
    Statement,
    category_kind,
    parse_problem_file,
)
from network.record import models as m
from network.record.read.source import CommitSource, Source

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

#: what holds a file for a curator rather than refusing it: the source is readable, but
#: what it says cannot be landed exactly (issue 28)
HELD_CODES = frozenset({"import-command-unknown", "import-closure-missing"})


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
    keys = ("declarations", "imported", "skipped", "held", "roots", "variants", "definitions")
    out = {k: sum(int(f.get(k, 0)) for f in lines) for k in keys}
    out["files"] = len(lines)
    out["files_refused"] = sum(1 for f in lines if f["status"] == "refused")
    out["files_held"] = sum(1 for f in lines if f["status"] == "held")
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
    pf: ProblemFile | None = None
    try:
        data = co.read(sf.path)
        if data is None:
            raise LemmataError("import-problem-not-found", "not a file at HEAD", path=sf.path)
        data, removed = _without_comment_hidden_characters(data, sf.path)
        pf = parse_problem_file(sf.number, sf.path, data, base_id=sf.base_id)
        if pf.unknown:
            raise LemmataError("import-command-unknown", "; ".join(
                f"line {n}: {why}" for n, why in pf.unknown[:5]), path=sf.path)
        _plan_file(sub, view, co, pf, pins, curator, include_test, used)
    except LemmataError as exc:
        line["code"], line["detail"] = exc.code, exc.detail
        if exc.code in HELD_CODES and pf is not None:
            _hold(plan, line, pf, sf)
        return
    if removed:
        line["warning"] = _removed_words(removed)
        sub.attention.extend(Attention("hidden-character-removed", t["id"], None,
                                       line["warning"]) for t in sub.report["targets"])
    decls = sub.report["declarations"]
    imported = [d for d in decls if d["outcome"] not in ("skipped", "held")]
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


def _hold(plan: ImportPlan, line: dict[str, Any], pf: ProblemFile, sf: SourceFile) -> None:
    """Hold a readable file whose declarations cannot be landed as the source says (issue
    28): its report line says ``held`` with the code, every declaration is accounted for as
    ``held``, and the curator is told; nothing of it lands."""
    names = [c.full_name for c in pf.commands if c.cls == "declaration"]
    line.update({"status": "held", "declarations": pf.decl_count, "held": len(names)})
    for name in names:
        plan.report["declarations"].append({"declaration": name, "file": pf.path,
                                            "outcome": "held", "reason": line["code"]})
    plan.attention.append(Attention(
        line["code"], sf.base_id, None,
        f"{pf.path} is held, nothing of it imported: {line['detail']}. A curator reads the "
        "file and imports what it states by hand, exactly as it says."))


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
            (:func:`network.gate.screens.unicode_screen.strip_comment_hidden_characters`).
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
            problems = _identifier_problems(data)
            if problems:
                raise LemmataError(problems[0].code, f"{gpath}: {problems[0].why}", path=path)


_SCREENED: dict[bytes, list[Any]] = {}


def _identifier_problems(data: bytes) -> list[Any]:
    """:func:`identifier_problems` of a landed file, remembered by its bytes (a file's
    definitions module is the same for each of its targets)."""
    if data not in _SCREENED:
        if len(_SCREENED) > 256:
            _SCREENED.clear()
        _SCREENED[data] = identifier_problems(data.decode("utf-8"))
    return _SCREENED[data]


def _check_round_trip(files: dict[str, bytes], pf: ProblemFile, r: _Render, tid: str) -> None:
    """Hold every Lean file a target would land to its source (issue 28,
    :func:`~network.importers.fc_roundtrip.round_trip_differences`); the witness is the
    importer's own theorem and is not a source declaration.

    Raises:
        LemmataError: ``import-round-trip-differs`` naming the graph file and the first
            differences.
    """
    for gpath, data in sorted(files.items()):
        if not gpath.endswith(".lean") or gpath.endswith("/Witness.lean"):
            continue
        in_defs = "/defs/" in gpath
        diffs = round_trip_differences(
            pf.text, data.decode("utf-8"), defs_import=None if in_defs else r.defs_module(tid),
            proof_dropped_ok=not in_defs, private_dropped_ok=in_defs)
        if diffs:
            raise LemmataError("import-round-trip-differs", f"{gpath}: " + "; ".join(diffs[:3]),
                               path=pf.path)


def _skip(plan: ImportPlan, decl: str, why: str, path: str = "") -> None:
    plan.report["skipped"].append({"declaration": decl, "reason": why, "file": path})
    plan.report["declarations"].append({"declaration": decl, "file": path,
                                        "outcome": "skipped", "reason": why})


def _plan_file(plan: ImportPlan, view: GraphView, co: Checkout, pf: ProblemFile,
               pins: _Pins, curator: str, include_test: bool, used: set[str]) -> None:
    """Plan one parsed file's targets.

    Raises:
        LemmataError: ``import-closure-missing`` / ``import-command-unknown`` when a landed
            declaration needs what cannot be carried (the file is held);
            ``import-round-trip-differs``; the look-alike name codes.
    """
    groups = classify(pf, include_test, used)
    landed = [st.cmd.index for g in groups for st in g]
    carried: list[int] = []
    if groups:
        need = closure(pf.commands, pf.text, landed + [d.index for d in pf.defs])
        if need.missing:
            code = "import-closure-missing" if all(
                "sorry" in why or "axiom" in why for _, why in need.missing
            ) else "import-command-unknown"
            raise LemmataError(code, "; ".join(f"`{n}` {why}" for n, why in need.missing[:3]),
                               path=pf.path)
        carried = need.lemmas
    r = _Render(co, pf, pins, curator, [d.index for d in pf.defs] + carried)
    for name, reason in pf.others:
        _skip(plan, name, reason, pf.path)
    for st in pf.statements:
        why = _imported(st, include_test)
        if why is not None and st.cmd.index not in carried:
            _skip(plan, st.declaration, why, pf.path)
    decls = plan.report["declarations"]
    for i in r.defs_keep:
        d = pf.commands[i]
        if groups:
            decls.append({"declaration": d.full_name, "file": pf.path, "outcome": "definition",
                          "targets": [g[0].target for g in groups],
                          **({"carried": "a lemma the landed declarations use"}
                             if i in carried else {})})
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
        if r.defs_keep:
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
        _check_round_trip(files, pf, r, tid)
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
