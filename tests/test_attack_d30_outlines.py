"""Attacks on the pertinence signatures (D-30 v3.12), the outlines (D-3 v3.30) and the
node-path table (attack18). Each test is a hostile input; the ones that broke main are
fixed and kept.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from network.gate.artifacts import node_path_rule, statement_command_findings
from network.gate.lean import lean_toolchain as lt
from network.gate.lean.toolchain import OutlineResult, OutlineStep
from network.gate.postmerge.outline import (
    OUTLINE_MAX_BYTES,
    outline_path,
    outline_record,
    printing_problem,
)
from network.record import models as m
from network.record import outlines
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit
from tests.test_gate_actors import gate
from tests.test_outline import signed_outline
from tests.test_pertinence import (
    OTHER_SENTENCE,
    SENTENCE,
    T,
    _file,
    _record,
    _state,
    _variant,
    repo,
)

__all__ = ["repo"]  # the fixture, imported

PIN = "leanprover/lean4:v4.34.0"
DECL = "Demo.main"


def _step(i: int, claim: str = "n + 0 = n") -> OutlineStep:
    return OutlineStep(DECL, i, "have", name=f"h{i}", lean_only=False, claim=claim,
                       goal=claim, constants=("Nat.add_zero",))


def _result(steps: list[OutlineStep]) -> OutlineResult:
    return OutlineResult(True, None, "Lemmata.demo.root.Proof", (DECL,), tuple(steps))


def _rec(res: OutlineResult, proof_bytes: bytes = b"x", **kw: Any) -> m.Outline | None:
    return outline_record(res, target="demo", node="root",
                          proof="targets/demo/nodes/root/Proof.lean", proof_bytes=proof_bytes,
                          declarations=[DECL], merge_seq=1, toolchain=PIN, **kw)


# --- outlines: huge reports ------------------------------------------------------------------


@pytest.mark.parametrize("steps", [
    [_step(i) for i in range(1, 5002)],          # more steps than an outline/v1 may hold
    [_step(1, "1 + " * 40_000 + "1 = 40001")],   # one claim longer than a LongText
    [_step(i, "a" * 900) for i in range(1, 400)],  # valid, but over the record's bytes
], ids=["5001-steps", "huge-claim", "over-record-bytes"])
def test_a_huge_outline_is_not_written_and_does_not_crash_the_post_merge_job(
        steps: list[OutlineStep]) -> None:
    """A legal proof of 5001 `have`s, or one whose claim prints to 160 000 characters, made
    ``m.Outline(...)`` raise a ValidationError inside the post-merge job (nothing caught
    it), and a valid outline of 800 kB was written though its path table row is a
    record's (262 144 bytes; one over the policy's max_file_bytes is refused by the
    loader, file-too-large, leaving main's graph invalid). Now none is written."""
    assert _rec(_result(steps)) is None


def test_an_outline_within_the_limits_is_still_written() -> None:
    rec = _rec(_result([_step(i) for i in range(1, 200)]))
    assert rec is not None and len(rec.steps) == 199
    size = len(json.dumps(rec.model_dump(by_alias=True, exclude_none=True), indent=2))
    assert size <= OUTLINE_MAX_BYTES


# --- outlines: stale bytes -------------------------------------------------------------------


def _graph_with_outline(tmp_path: Path, outline_bytes: bytes, *, node: str = "root",
                        named_node: str | None = None, sign: str | None = "gate",
                        tamper: bool = False, merge_seq: int = 1) -> Any:
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target("demo")
    proof_text = "theorem Demo.main (n : Nat) : n + 0 = n := by\n  have h : n + 0 = n := rfl\n  exact h\n"
    b.node("demo", node, declaration=DECL, proof=proof_text)
    proof = f"targets/demo/nodes/{node}/Proof.lean"
    b.merge([proof])
    rec = outline_record(_result([_step(1)]), target="demo", node=named_node or node,
                         proof=proof, proof_bytes=outline_bytes, declarations=[DECL],
                         merge_seq=merge_seq, toolchain=PIN)
    assert rec is not None
    text = (rec.model_dump_json(by_alias=True, exclude_none=True) + "\n" if sign is None
            else signed_outline(b, rec, kind=sign))
    if tamper:  # a step's claim changed after the gate signed
        doc = json.loads(text)
        doc["steps"][0]["claim"] = "False"
        text = json.dumps(doc) + "\n"
    b.write(outline_path(proof), text)
    git_commit(b.root, "graph")
    return b, proof_text.encode()


def test_an_outline_of_other_bytes_is_not_shown_as_the_proofs(tmp_path: Path) -> None:
    """The post-merge job never deletes an outline, and writes none when it cannot rebuild
    one; a tutorial node's Proof.lean is re-merged in place (D-27). An outline whose
    proof_sha256 is not the file's bytes now was shown as the outline of the new proof (on
    the node page and in get_node). Now only an outline of the current bytes is."""
    b, _current = _graph_with_outline(tmp_path, b"the bytes of an earlier proof")
    g = load_graph(b.root)
    n = g.targets["demo"].nodes["root"]
    assert len(n.outlines) == 1  # the file is on the record
    assert outlines.current(n, g) == []
    assert outlines.for_file(n, g, "targets/demo/nodes/root/Proof.lean") is None


def test_an_outline_of_the_current_bytes_is_shown(tmp_path: Path) -> None:
    _b, current = _graph_with_outline(tmp_path / "a", b"")
    # rebuild with the right bytes
    b2, _ = _graph_with_outline(tmp_path / "b", current)
    g = load_graph(b2.root)
    n = g.targets["demo"].nodes["root"]
    assert [rf.record.proof for rf in outlines.current(n, g)] == [
        "targets/demo/nodes/root/Proof.lean"]


@pytest.mark.parametrize("how", ["unsigned", "approval-key", "tampered", "no-merge",
                                 "key-not-yet-valid"])
def test_an_outline_the_gate_did_not_sign_is_not_shown(tmp_path: Path, how: str) -> None:
    """outline/ is a gate-only path, but the page and get_node showed any file there as the
    gate's outline, signed or not. Now only an outline whose gate signature verifies with a
    gate key valid on the date of its merge is shown (ruling 14): not one with no
    signature, one signed by the approval key, one changed after signing, one naming a
    merge the graph does not hold, or one whose key was valid only after its merge."""
    _b, current = _graph_with_outline(tmp_path / "a", b"")
    b, _ = _graph_with_outline(tmp_path / "b", current,
                               sign=None if how == "unsigned" else
                               "approval" if how == "approval-key" else "gate",
                               tamper=how == "tampered",
                               merge_seq=7 if how == "no-merge" else 1)
    if how == "key-not-yet-valid":
        key = json.loads((b.root / "keys/builder-gate.json").read_text())
        key["valid_from"] = "2027-01-01"
        (b.root / "keys/builder-gate.json").write_text(json.dumps(key))
    git_commit(b.root, how)
    g = load_graph(b.root)
    n = g.targets["demo"].nodes["root"]
    assert len(n.outlines) == 1
    assert outlines.current(n, g) == []


def test_an_outline_naming_another_node_is_not_shown(tmp_path: Path) -> None:
    _b0, current = _graph_with_outline(tmp_path / "a", b"")
    b, _ = _graph_with_outline(tmp_path / "b", current, named_node="other")
    g = load_graph(b.root)
    n = g.targets["demo"].nodes["root"]
    assert outlines.current(n, g) == []


def test_get_node_leaves_out_a_stale_outline(tmp_path: Path) -> None:
    from tests.api_support import make_api

    gen = make_api(tmp_path)
    api = next(gen)
    try:
        path = "targets/demo/nodes/root/outline/Proof.json"
        rec = _rec(_result([_step(1)]), proof_bytes=b"bytes no file of root holds")
        assert rec is not None
        api.graph.write(path, signed_outline(api.graph, rec))
        git_commit(api.graph.root, "stale outline")
        body = api.client.get("/targets/demo/nodes/root?include=outline").json()
        assert not body.get("outline")
    finally:
        gen.close()


# --- outlines: contributor-controlled printing -----------------------------------------------

UNEXPANDER = """import Mathlib
open Lean PrettyPrinter in
@[app_unexpander Eq] def shown : Unexpander
  | _ => `(the_conjecture_is_proved)

theorem Demo.main (n : Nat) : n + 0 = n := by
  have h : n + 0 = n := rfl
  exact h
"""


@pytest.mark.parametrize("text", [
    UNEXPANDER,
    "@[delab app.Eq] def d : Lean.PrettyPrinter.Delaborator.Delab := failure\n",
    "@[simp, app_unexpander Eq] def u := 1\n",
    "@[«app_unexpander» Eq] def u := 1\n",
    "attribute [coe] Demo.f\n",
    "@[coe] def Demo.f (n : Nat) : Nat := n + 1\n",
    'notation "Fermat" => (1 = 1)\n',
    "infixl:65 \" ⊕⊕ \" => Nat.add\n",
    'macro "x" : term => `(1)\n',
    "theorem t : True := by run_tac pure ()\n",
    "#eval 1\n",
    "theorem t : True := by_elab pure (Lean.mkConst ``True.intro)\n",
], ids=["app_unexpander", "delab", "attr-list", "quoted-attr", "attribute-cmd",
        "coe", "notation", "infixl", "macro", "run_tac", "hash-eval", "by_elab"])
def test_a_module_that_registers_printing_is_not_print_inert(text: str) -> None:
    """Outline.lean imports the contributor's module with its extension entries
    (Common.loadEnv: importModules (loadExts := true)); Lean's KeyedDeclsAttribute
    (src/Lean/KeyedDeclsAttribute.lean, ofOLeanEntry) evaluates every imported
    app_unexpander / delab entry with evalConstCheck, and ppExpr's delabApp then runs it.
    So a proof carrying ``@[app_unexpander Eq]`` made every `have h : _ = _` print as the
    contributor's text (here `the_conjecture_is_proved`), and the outline labelled it the
    kernel-checked claim."""
    assert printing_problem(text) is not None


@pytest.mark.parametrize("text", [
    "theorem Demo.main (n : Nat) : n + 0 = n := by\n  have h : n + 0 = n := rfl\n  exact h\n",
    "@[simp] theorem Demo.aux (n : Nat) : n + 0 = n := rfl\n",
    "@[category research open, AMS 11]\ntheorem Demo.root : True := by\n  sorry\n",
    "-- notation in a comment, @[app_unexpander] too\ntheorem t : True := trivial\n",
    'theorem t : "notation" = "notation" := rfl\n',
])
def test_a_plain_proof_is_print_inert(text: str) -> None:
    assert printing_problem(text) is None


def test_an_outline_of_a_printing_module_shows_no_claim() -> None:
    rec = _rec(_result([_step(1, "the_conjecture_is_proved")]),
               printing="Lemmata.demo.root.Proof: app_unexpander (line 3)")
    assert rec is not None
    [st] = rec.steps
    assert st.lean_only and st.claim is None and st.goal is None
    assert st.why == "printing-extension"
    assert st.constants == ["Nat.add_zero"]  # facts of the term are kept


def test_the_post_merge_outline_reads_every_contributed_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """proof_outline holds every module of the proof's workspace a contributor wrote (the
    proof and the statement it proves) to printing_problem, and a module that prints its
    own way leaves every step of the written outline Lean only."""
    from network.gate.postmerge import outline as ol
    from tests.test_outline import MID_OUTLINE, _merged, _Vouching

    seen: list[str] = []

    def printing(text: str) -> str | None:
        seen.append(text)
        # the statement prints as Lean does; the proof (no sorry) registers its own
        return None if "sorry" in text else "app_unexpander (line 3)"

    monkeypatch.setattr(ol, "printing_problem", printing)
    _Vouching.asked = []
    pm, _root = _merged(tmp_path, _Vouching)
    assert len(seen) >= 2 and any("sorry" in t for t in seen)  # statement, then proof
    rec = m.Outline.model_validate_json(pm.files[MID_OUTLINE])
    assert [(s.lean_only, s.claim, s.why) for s in rec.steps] == [
        (True, None, "printing-extension")]


ATTACK_PAYLOAD = ('@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := '
                  'unsafeBaseIO (do IO.println "{\\"verdict\\": \\"pass\\"}"; '
                  'IO.Process.exit 0)\n'
                  'theorem stmt_root : True := trivial\n')


def test_no_checker_loads_the_contributors_extension_entries(repo: Any) -> None:
    """attack18 (was xfail): every checker (Common.loadEnv) imports the contributor's
    modules with ``importModules … (loadExts := true)``, so Lean's
    ``finalizePersistentExtensions`` runs each extension's ``addImportedFn``, and
    KeyedDeclsAttribute's ``ofOLeanEntry`` ``evalConstCheck``-s every imported macro,
    elab, delab and unexpander entry: a constant-valued one (``unsafeBaseIO …``) ran its
    body at import, in step 4's checkers too, against D-4 v3.27's "executes none of their
    code". Now step 2 refuses such a module (``import-time-code``) before anything is
    built or imported, with or without a toolchain.

    Note: Common.loadEnv still loads the extension entries of the modules it imports.
    The defence is the step-2 screen (network.gate.artifacts.import_time_problems), which
    keeps every entry Lean evaluates at import out of a contributor's olean; the
    follow-up is importing with the contributor modules' entries dropped (or
    ``loadExts := false`` and every checker's MetaM use re-checked against that
    environment), which needs a compiler to verify.
    """
    from network.gate.diff import diff_commits
    from network.gate.steps.step2 import run_steps_1_2

    b, base = repo
    path = b.proof(T, "root", ATTACK_PAYLOAD)
    head = git_commit(b.root, "the attack")
    r = run_steps_1_2(diff_commits(b.root, base, head), load_graph(b.root, commit=base),
                      "alice")
    assert not r.step2.ok
    assert ("import-time-code", path) in {(d.code, d.path) for d in r.step2.diagnostics}
    common = (Path(lt.__file__).parent / "Common.lean").read_text("utf-8")
    # the screen is what stands between the payload and the import this still does
    assert "(loadExts := true)" in re.sub(r"/-.*?-/", "", common, flags=re.DOTALL)


# --- the node-path table ---------------------------------------------------------------------


@pytest.mark.parametrize("path", [
    "targets/demo/nodes/root/outline/Proof.json",
    "targets/demo/nodes/root/outline/20260101T000000Z-alice-alternate.json",
    "targets/demo/nodes/root/outline/20260101T000000Z.0a0b0c0d-alice-partial.json",
])
def test_every_outline_spelling_the_table_admits_is_gate_only(path: str) -> None:
    rule = node_path_rule(path)
    assert rule is not None and rule.kind is None and rule.fixed is not None
    assert rule.fixed[0] == "gate-only-path"


@pytest.mark.parametrize("path", [
    "targets/demo/nodes/root/Outline/Proof.json",
    "targets/demo/nodes/root/outline/proof.json",
    "targets/demo/nodes/root/outline/Proof.JSON",
    "targets/demo/nodes/root/outline/Proof.json/x.json",
    "targets/demo/nodes/root/outline/sub/Proof.json",
    "targets/demo/nodes/root/outline/20260101T000000Z-alice-postmortem.json",
    "targets/demo/nodes/root/outline/٢٠٢٦٠١٠١T000000Z-alice-alternate.json",
    "targets/demo/nodes/root/pertinence/٢٠٢٦٠١٠١T000000Z-alice.yaml",
    "targets/demo/nodes/root/Pertinence/20260101T000000Z-alice.yaml",
    "targets/demo/nodes/root/pertinence/20260101T000000Z-alice.yml",
    "targets/demo/nodes/root/pertinence/20260101T000000Z-alice.json",
    "targets/demo/nodes/Root/pertinence/20260101T000000Z-alice.yaml",
])
def test_hostile_spellings_classify_into_no_artifact(path: str) -> None:
    """Case, an extension, nesting, another kind's suffix, Unicode digits (Python's \\d
    matches them) and a node id in capitals: none is a row of the table, so step 2 refuses
    each (path-not-permitted) and none reaches a record kind."""
    rule = node_path_rule(path)
    assert rule is None or rule.kind is None


def test_unicode_digits_in_a_timestamp_are_refused_by_the_tree_screen() -> None:
    """layout's ``\\d`` would match Arabic-Indic digits; the diff's name screen refuses any
    character outside [A-Za-z0-9_.@-] before the table is read."""
    from network.gate.diff import name_finding

    d = name_finding("٢٠٢٦٠١٠١T000000Z-alice.yaml".encode(), "x")
    assert d is not None and d.code == "path-not-portable"


# --- statements (D-3 v3.28) ------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := fun _ => failure\n",
    "@[delab app.Eq] def d : Lean.PrettyPrinter.Delaborator.Delab := failure\n",
    "@[implemented_by g] def f (n : Nat) : Nat := n\n",
    "@[term_elab foo] def e : Lean.Elab.Term.TermElab := fun _ _ => failure\n",
    "@[coe] def f (n : Nat) : Nat := n\n",
    "@[simp, «app_unexpander» Eq] def u := 1\n",
    "theorem t : True := trivial @[app_unexpander Eq] def u := 1\n",
], ids=["app_unexpander", "delab", "implemented_by", "term_elab", "coe", "in-a-list",
        "mid-line"])
def test_a_statement_may_not_carry_a_code_or_printer_attribute(text: str) -> None:
    """D-3 v3.28: nothing in a module of record runs code when it is loaded. The allowlist
    read `@[...] def` as a declaration whatever the attribute, so a proposed variant's
    Statement.lean could register an unexpander or delaborator that every checker's import
    evaluates (KeyedDeclsAttribute.ofOLeanEntry) and the outline's printer runs."""
    assert [d.code for d in statement_command_findings(text, "S.lean")] == [
        "statement-command-refused"]


@pytest.mark.parametrize("text", [
    "@[simp] theorem Demo.aux (n : Nat) : n + 0 = n := rfl\n",
    "@[reducible] def Demo.f (n : Nat) : Nat := n\n",
    "@[simp, reducible] def Demo.g (n : Nat) : Nat := n\n",
])
def test_a_statement_keeps_its_inert_attributes(text: str) -> None:
    assert statement_command_findings(text, "S.lean") == []


# --- pertinence signatures (D-30 v3.12) ------------------------------------------------------



def test_a_signature_filed_with_an_edit_of_its_sentence_is_refused(
        repo: Any, tmp_path: Path) -> None:
    """One pull request rewrites rel's sentence and signs the new one: META.yaml is fixed
    (meta-changed) and the signature is judged against the base's sentence
    (pertinence-sentence-mismatch)."""
    b, base = repo
    _variant(b, "rel", sentence=OTHER_SENTENCE)
    _file(b, T, "rel", "steve", _record(T, "rel", "steve", sentence=OTHER_SENTENCE))
    code, codes = gate(b, base, "steve", tmp_path)
    assert code == 1 and "meta-changed" in codes and "pertinence-sentence-mismatch" in codes


def test_a_signature_filed_with_a_relation_change_is_refused(repo: Any, tmp_path: Path) -> None:
    """Turning the resolves variant into a related one in the pull request that signs it."""
    b, base = repo
    _variant(b, "res", relation="related", sentence=SENTENCE)
    _file(b, T, "res", "steve", _record(T, "res", "steve"))
    code, codes = gate(b, base, "steve", tmp_path)
    assert code == 1 and "meta-changed" in codes and "pertinence-not-related" in codes


@pytest.mark.parametrize("who", ["steve", "alice"])
def test_only_a_curator_withdraws_a_signature(repo: Any, tmp_path: Path, who: str) -> None:
    """A steward (even the target's) or anyone else withdrawing the signature that makes
    the variant pertinent is refused; the variant stays pertinent."""
    b, _ = repo
    path = _file(b, T, "rel", "curator", _record(T, "rel", "curator"))
    base = git_commit(b.root, "signed")
    b.withdrawal(T, "rel", "20260107T000000Z", who, path)
    code, codes = gate(b, base, who, tmp_path)
    assert code == 1 and "role-key-unbound" in codes
    from network.record import derive

    g = load_graph(b.root, base)
    assert path not in derive.withdrawn(g)


def test_rewriting_a_merged_signature_is_refused(repo: Any, tmp_path: Path) -> None:
    b, _ = repo
    path = _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    base = git_commit(b.root, "signed")
    _file(b, T, "rel", "steve", _record(T, "rel", "steve", sentence=OTHER_SENTENCE))
    assert path.endswith("-steve.yaml")
    assert gate(b, base, "steve", tmp_path) == (1, ["record-deleted"])


def test_a_duplicate_key_cannot_smuggle_a_second_hash(repo: Any, tmp_path: Path) -> None:
    """``sentence_sha256`` twice (the signed hash first, another last): the record loader
    refuses duplicate keys, so no reading of the file picks the other one."""
    b, base = repo
    rec = b.signed(m.Pertinence, _record(T, "rel", "steve"), "steve")
    text = Path(b.root / _file(b, T, "rel", "steve", rec)).read_text("utf-8")
    other = "0" * 64
    text += f"sentence_sha256: '{other}'\n"
    (b.root / f"targets/{T}/nodes/rel/pertinence/20260105T000000Z-steve.yaml").write_text(
        text, "utf-8")
    code, codes = gate(b, base, "steve", tmp_path)
    assert code == 1 and codes and "pertinence-already-signed" not in codes


def test_an_extra_field_is_refused(repo: Any, tmp_path: Path) -> None:
    """A field the signature does not cover (``relation: resolves``) is no part of a
    pertinence/v1 record."""
    b, base = repo
    rec = b.signed(m.Pertinence, _record(T, "rel", "steve"), "steve")
    _file(b, T, "rel", "steve", {**rec, "relation": "resolves"}, signed=False)
    code, codes = gate(b, base, "steve", tmp_path)
    assert code == 1 and codes


def test_the_sentence_hash_does_not_normalise(repo: Any) -> None:
    """NFC and NFD spellings of one displayed sentence are two sentences: a signature on
    one never counts for the other."""
    import unicodedata

    from network.record import pertinence

    s = "Le cas r = 3 : une borne améliorée."
    nfd = unicodedata.normalize("NFD", s)
    assert nfd != s and pertinence.sentence_sha256(nfd) != pertinence.sentence_sha256(s)
    b, _ = repo
    _variant(b, "rel", sentence=nfd)
    _file(b, T, "rel", "steve", _record(T, "rel", "steve", sentence=s))
    assert not _state(b).signed


# --- outlines on the site: markup in a claim ---------------------------------------------------


def test_markup_in_a_claim_or_label_is_escaped_on_the_node_page(tmp_path: Path) -> None:
    """A label or claim the printer gives is text: `<script>` in either never reaches the
    page as markup (jinja2 autoescape for the label; Pygments escapes the claim)."""
    from tests.test_outline import HAVE_DECL, HAVE_MOD, HAVE_REPORT, HAVE_ROW, HAVE_TEXT, _page

    row = {**HAVE_ROW, "name": "«<img src=x onerror=alert(1)>»",
           "claim": "</div><script>alert(1)</script>", "goal": "<b>bold</b>"}
    html = _page(tmp_path, "havestep", HAVE_DECL, HAVE_TEXT,
                 lt.outline_from_report({**HAVE_REPORT, "steps": [row]}, HAVE_MOD,
                                        [HAVE_DECL]))
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    assert "<b>bold</b>" not in html
    assert "alert" in html and "&lt;" in html  # shown, as text


def test_outline_refuses_a_local_that_shadows_a_constant() -> None:
    """ppExpr prints a local by its user name, so a proof `fun False h => by have h2 :
    False := h; exact h2` of `∀ (p : Prop), p → p` was outlined as `have h2 : False`, a
    claim that reads back and names the local the contributor called False. Outline.lean
    now marks a step Lean only (``shadowing-name``) when a local in scope, or the step's
    own label, has the name of a constant (never compiled: read against Lean's
    LocalContext.any, LocalDecl.userName, Environment.contains)."""
    from network.gate.lean.toolchain import OUTLINE_WHY

    src = (Path(lt.__file__).parent / "Outline.lean").read_text("utf-8")
    code = re.sub(r"/-.*?-/", "", src, flags=re.DOTALL)
    assert 'if (← olShadowing) then return .error "shadowing-name"' in code
    assert "(← getLCtx).any fun d => env.contains d.userName" in code
    assert 'pc.data.contains n then some "shadowing-name"' in code
    assert "shadowing-name" in OUTLINE_WHY
