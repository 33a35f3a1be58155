"""The files one Formal Conjectures source file lands in a target (D-3, D-6, D-9, D-10):
Statement.lean and Witness.lean of each node, the definitions module, target.yaml,
gate-spec.json and META.yaml. Every Lean file is cut from the source's own commands
(:mod:`network.importers.fc_project`: the scopes and the preamble a declaration needs, in
source order), so what lands is what the source says; split from
:mod:`network.importers.formal_conjectures` (issue 17's size rule, issue 28).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from network import ids
from network.gate.screens.lean_commands import Command
from network.importers import Attention, json_bytes, record_dict, yaml_bytes
from network.importers.fc_checkout import Checkout
from network.importers.fc_naming import _root_suffix, _slug
from network.importers.fc_pins import _PIN_WORDS, _Pins
from network.importers.fc_project import render
from network.importers.fc_source import OPEN, ProblemFile, Statement, _category
from network.importers.lean_text import mask, matching
from network.record import models as m
from network.record.read.loader import sha256_hex

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

    def __init__(self, co: Checkout, pf: ProblemFile, pins: _Pins, curator: str,
                 defs_keep: list[int] | None = None) -> None:
        self.co, self.pf, self.pins, self.curator = co, pf, pins, curator
        #: indices of the commands the definitions module lands (definitions, and the
        #: lemmas they need), in source order
        self.defs_keep = sorted(defs_keep if defs_keep is not None
                                else [d.index for d in pf.defs])

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

    def _imports(self, with_defs: bool, tid: str) -> str:
        lines = list(self.pf.imports)
        if with_defs and self.defs_module(tid):
            lines.append(f"import {self.defs_module(tid)}")
        return "\n".join(lines) + "\n"

    def defs_module(self, tid: str) -> str | None:
        """The Lean module of the target's definitions, when the file lands any."""
        return ids.defs_module_name(tid, self.defs_stem()) if self.defs_keep else None

    def _statement_text(self, st: Statement) -> Callable[[Command], str]:
        def text(c: Command) -> str:
            body = c.text if st.parts.sorry_body else f"{st.parts.signature} := by\n  sorry"
            return "\n".join([*c.prefix, *([c.doc] if c.doc else []),
                              *([f"@[{', '.join(st.kept_attrs)}]"] if st.kept_attrs else []),
                              body])
        return text

    def statement(self, st: Statement, tid: str) -> bytes:
        """Statement.lean: the file's imports, a header, and the statement in the scopes and
        preamble it needs (:func:`~network.importers.fc_project.render`), attributes
        recorded in the provenance removed and an upstream proof replaced by ``sorry``."""
        what = f"declaration `{st.declaration}`, statement only"
        src = (self._imports(True, tid) + "\n" + self.header(self.pf.title, what) + "\n"
               + render(self.pf.commands, [st.cmd.index], self._statement_text(st)))
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
        src = (self._imports(True, tid) + "\n/-!\n" + what + "\n-/\n\n"
               + render(self.pf.commands, [st.cmd.index],
                        lambda c: "\n".join([*c.prefix, body])))
        return src.encode("utf-8"), complete

    def defs(self, tid: str) -> bytes:
        """The definitions module: every definition of the file and the lemmas they (or the
        statements) need (:func:`~network.importers.fc_project.closure`), in the scopes
        and preamble they need, ``private`` dropped (another module reads them)."""
        def text(c: Command) -> str:
            body = re.sub(r"^((?:protected|noncomputable|nonrec|unsafe|partial)\s+)*private\s+",
                          r"\1", c.text)
            _, _, kept = _category(c.attrs)
            return "\n".join([*c.prefix, *([c.doc] if c.doc else []),
                              *([f"@[{', '.join(kept)}]"] if kept else []), body])
        cmds = self.pf.commands
        names = ", ".join(f"`{cmds[i].full_name}`" for i in self.defs_keep if cmds[i].name)
        out = self._imports(False, tid) + "\n" + self.header(
            f"{self.pf.title}: definitions", f"the definitions {names}")
        return (out + "\n" + render(cmds, self.defs_keep, text)).encode("utf-8")

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
