"""The import-time screen (D-4 v3.27, attack d30): step 2 refuses, in every Lean file a
contributor writes, anything that could put an import-time-evaluated extension entry into
its module's olean or run code when the module is loaded, before any Lean runs.

Every checker (network/gate/lean/Common.lean ``loadEnv``) imports the contributor's
modules with ``importModules … (loadExts := true)``; Lean's ``finalizePersistentExtensions``
then evaluates every imported macro/elab/delab/unexpander/parser/simproc entry
(KeyedDeclsAttribute ``ofOLeanEntry`` → ``evalConstCheck``). So a proof carrying
``@[app_unexpander Eq] def u : … := unsafeBaseIO (do IO.println "<forged JSON>"; …)`` ran
its code inside step 4's checker. Each form below is refused with ``import-time-code``;
legitimate proofs and the registries' statements pass (false positives are counted).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from network.gate.artifacts import (
    INERT_ATTRIBUTES,
    import_time_findings,
    import_time_problems,
)
from network.gate.diff import diff_commits
from network.gate.lean.toolchain import MissingToolchain
from network.gate.postmerge.outline import printing_problem
from network.gate.result import StepResult
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.step2 import run_steps_1_2
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit, sha256_hex

T = "demo"
ND = f"targets/{T}/nodes"
TS = "20260105T000000Z"
ROOT = Path(__file__).resolve().parents[1]

#: the attacker's payload, as found (attack d30)
ATTACK = ('@[app_unexpander Eq] def u : Lean.PrettyPrinter.Unexpander := unsafeBaseIO '
          '(do IO.println "{\\"verdict\\": \\"pass\\", \\"ok\\": true}"; '
          'IO.Process.exit 0)\n')

REFUSED = {
    "attack-payload": ATTACK,
    "delab": "@[delab app.Eq] def d := 1\n",
    "attr-in-list": "@[simp, term_elab foo] def u := 1\n",
    "quoted-attr": "@[«macro» foo] def u := 1\n",
    "local-keyed-attr": "@[local app_unexpander Eq] def u := 1\n",
    "scoped-keyed-attr": "@[scoped delab app.Eq] def u := 1\n",
    "coe-attr": "@[coe] def f (n : Nat) : Nat := n\n",
    "init-attr": "@[init g] def f : IO Unit := pure ()\n",
    "csimp-attr": "@[csimp] theorem c : @id = @id := rfl\n",
    "attribute-cmd": "attribute [coe] f\n",
    "attribute-local-keyed": "attribute [local app_unexpander Eq] f\n",
    "attribute-scoped-macro": "attribute [scoped macro foo] f\n",
    "attribute-mixed": "attribute [-simp, coe] f\n",
    "attribute-unreadable": "attribute foo\n",
    "unsafe-modifier": "unsafe def f : Nat := 1\n",
    "implemented_by": "@[implemented_by g] def f : Nat := 1\n",
    "extern": "@[extern \"c_f\"] def f : Nat := 1\n",
    "export": "export Nat (add)\n",
    "notation": 'notation "F" => (1 = 1)\n',
    "local-notation": 'local notation "F" => 1\n',
    "notation3": 'notation3 "F" => 1\n',
    "infix": 'infix:65 " ⊕⊕ " => Nat.add\n',
    "infixl": 'infixl:65 " ⊕⊕ " => Nat.add\n',
    "infixr": 'infixr:65 " ⊕⊕ " => Nat.add\n',
    "prefix": 'prefix:max "√√" => Nat.sqrt\n',
    "postfix": 'postfix:max "!!" => Nat.succ\n',
    "syntax": 'syntax "foo" : term\n',
    "macro": 'macro "x" : term => `(1)\n',
    "macro_rules": "macro_rules | `(x) => `(1)\n",
    "elab": 'elab "x" : term => pure (Lean.mkNatLit 1)\n',
    "elab_rules": "elab_rules : term | `(x) => pure (Lean.mkNatLit 1)\n",
    "declare_syntax_cat": "declare_syntax_cat foo\n",
    "initialize": "initialize pure ()\n",
    "builtin_initialize": "builtin_initialize pure ()\n",
    "register_simp_attr": "register_simp_attr foo\n",
    "register_option": "register_option x : Bool := { defValue := true }\n",
    "register_label_attr": "register_label_attr x\n",
    "declare_config_elab": "declare_config_elab elabX X\n",
    "simproc": "simproc foo (Nat.add _ _) := fun _ => pure .continue\n",
    "dsimproc_decl": "dsimproc_decl foo (Nat.add _ _) := fun _ => pure .continue\n",
    "run_cmd": "run_cmd pure ()\n",
    "run_elab": "run_elab pure ()\n",
    "run_meta": "run_meta pure ()\n",
    "run_tac": "theorem t : True := by run_tac pure ()\n",
    "by_elab": "theorem t : True := by_elab pure (Lean.mkConst ``True.intro)\n",
    "hash-eval": "#eval 1\n",
    "hash-print": "#print axioms t\n",
    "hash-glued": "# eval 1\n#check_failure 1\n",
    "hash-after-command": "theorem t : True := trivial #eval IO.println \"x\"\n",
    "elab-internals": "def e := Lean.Elab.Command.elabCommand\n",
    "open-elab": "open Lean Elab in\ntheorem t : True := trivial\n",
    "modifyEnv": "def e := Lean.modifyEnv\n",
    "addEntry": "def e := @Lean.ScopedEnvExtension.addEntry\n",
    "ScopedEnvExtension": "def e := Lean.ScopedEnvExtension\n",
    "PersistentEnvExtension": "def e := Lean.PersistentEnvExtension\n",
    "registerEnvExtension": "def e := @Lean.registerEnvExtension\n",
    "evalConst": "def e := @Lean.Environment.evalConst\n",
    "KeyedDeclsAttribute": "def e := @Lean.KeyedDeclsAttribute.init\n",
    "unsafeBaseIO": "def e : Nat := unsafeBaseIO (pure 1)\n",
    "unsafe-glued": "def e := Foo.unsafeCast\n",
}

PASSES = {
    "plain": "theorem stmt_root : True := trivial\n",
    "tactic-proof": ("theorem stmt_root (n : Nat) : n + 0 = n := by\n"
                     "  have h : n + 0 = n := Nat.add_zero n\n  exact h\n"),
    "attribute-local-simp": "attribute [local simp] Nat.add_comm\ntheorem stmt_root : True := trivial\n",
    "attribute-local-instance": ("attribute [local instance] Classical.propDecidable\n"
                                 "theorem stmt_root : True := trivial\n"),
    "attribute-erase-simp": "attribute [-simp] Nat.add_comm\ntheorem stmt_root : True := trivial\n",
    "inert-attrs": "@[simp, norm_cast] theorem stmt_root : True := trivial\n",
    "fc-attrs": ('@[category research open, AMS 11, formal_proof using lean4 at "https://x"]\n'
                 "theorem stmt_root : True := trivial\n"),
    "comments-strings": ('-- notation macro #eval\n/- @[app_unexpander Eq] unsafe run_cmd -/\n'
                         'theorem stmt_root : "unsafe macro" = "unsafe macro" := rfl\n'),
    "glued-name-parts": ("theorem stmt_root : True := by\n"
                         "  have h := Foo.macro\n  have k := x.syntax\n  trivial\n"),
    "card-notation": "theorem stmt_root (A : Finset Nat) : #A = #A ∧ #(A) = #(A) := ⟨rfl, rfl⟩\n",
    "array-literal": "theorem stmt_root : (#[1]).size = 1 := rfl\n",
    "set-option-in": "set_option maxHeartbeats 400000 in\ntheorem stmt_root : True := trivial\n",
    "partial-def": "partial def f : Nat → Nat := fun n => n\ntheorem stmt_root : True := trivial\n",
}


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    b = GraphBuilder(tmp_path / "g")
    b.base()
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma", proof="theorem stmt_lemma : True := trivial\n")
    b.merge([f"{ND}/lemma/Proof.lean"])
    return b, git_commit(b.root, "base")


def proof_step2(root: Path, text: str) -> tuple[StepResult, str]:
    """Step 2 of a pull request that writes ``text`` as ``demo/root``'s Proof.lean on a
    fresh graph at ``root``: (the step result, the proof's graph path)."""
    b = GraphBuilder(root)
    b.base()
    b.target(T)
    b.node(T, "root")
    base = git_commit(b.root, "base")
    path = b.proof(T, "root", text)
    head = git_commit(b.root, "attack")
    r = run_steps_1_2(diff_commits(b.root, base, head), load_graph(b.root, commit=base),
                      "alice")
    return r.step2, path


def _codes(b: GraphBuilder, base: str) -> list[tuple[str, str]]:
    head = git_commit(b.root, "head")
    r = run_steps_1_2(diff_commits(b.root, base, head), load_graph(b.root, commit=base),
                      "alice")
    return [(d.code, d.path or "") for d in r.step2.diagnostics]


_LABELS = "-- approach: a route\n-- licence: CC-BY-4.0\n"


def _write(b: GraphBuilder, where: str, text: str) -> str:
    """Put ``text`` in one kind of contributor file; returns its path."""
    if where == "proof":
        return b.proof(T, "root", text)
    if where == "refutation":
        return b.proof(T, "root", text, kind="Refutation")
    if where == "vacuity":
        return b.proof(T, "root", text, kind="Vacuity")
    if where == "alternate":
        return b.partial(T, "lemma", TS, "alice", text, kind="alternate")
    if where == "partial":
        return b.partial(T, "root", TS, "alice", _LABELS + text)
    if where == "reduction":
        return b.partial(T, "root", TS, "alice", _LABELS + text, kind="reduction")
    if where == "hole-witness":
        b.partial(T, "root", TS, "alice", _LABELS + "theorem stmt_root : True := trivial\n")
        return b.write(f"{ND}/root/attempts/{TS}-alice-partial.h1.witness.lean", text)
    d = f"{ND}/variant-x"
    stmt = (text if where == "statement" else "theorem v : True := sorry\n").encode()
    b.write(f"{d}/Statement.lean", stmt)
    b.write(f"{d}/Witness.lean", text if where == "witness" else "example : True := trivial\n")
    b.write(f"{d}/Relation.lean", text if where == "relation" else "-- root → variant\n")
    b.write_yaml(f"{d}/META.yaml", {
        "schema": "meta/v1", "id": "variant-x", "target": T, "declaration": "v",
        "statement_hash": sha256_hex(stmt), "origin": "variant",
        "variant": {"of": "root", "relation": "partial"}})
    name = {"statement": "Statement", "witness": "Witness"}.get(where, "Relation")
    return f"{d}/{name}.lean"


KINDS = ["proof", "refutation", "vacuity", "alternate", "partial", "reduction",
         "hole-witness", "statement", "witness", "relation"]


@pytest.mark.parametrize("text", list(REFUSED.values()), ids=list(REFUSED))
def test_every_form_is_refused_by_the_screen(text: str) -> None:
    found = import_time_findings(text, "P.lean")
    # the d30 payload's JSON string holds `{\"…`: where Lean reads an interpolated string
    # that hole is a term (`\` is Mathlib's set difference), so the lexer refuses it too
    # (attack 3); every form is still named by the screen itself
    assert found and {d.code for d in found} - {"lean-lex-ambiguous"} == {
        "import-time-code"}, found
    assert printing_problem(text) is not None  # the outline reads the same screen


@pytest.mark.parametrize("where", KINDS)
@pytest.mark.parametrize("form", ["attack-payload", "attribute-local-keyed", "notation",
                                  "run_cmd", "hash-eval", "unsafe-modifier",
                                  "elab-internals", "simproc"])
def test_each_kind_of_contributor_file_is_screened_at_step_2(
        repo: tuple[GraphBuilder, str], where: str, form: str) -> None:
    b, base = repo
    path = _write(b, where, REFUSED[form])
    assert ("import-time-code", path) in _codes(b, base)


@pytest.mark.parametrize("where", KINDS)
def test_a_plain_file_of_each_kind_passes_the_screen(repo: tuple[GraphBuilder, str],
                                                     where: str) -> None:
    b, base = repo
    _write(b, where, PASSES["attribute-local-simp"])
    assert not [c for c in _codes(b, base) if c[0] == "import-time-code"]


def test_the_attack_is_refused_before_any_lean_runs(repo: tuple[GraphBuilder, str]) -> None:
    """Without a toolchain the gate still reports the step-2 finding, and refuses."""
    b, base = repo
    b.proof(T, "root", ATTACK + "theorem stmt_root : True := trivial\n")
    head = git_commit(b.root, "attack")
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   submitter="alice", mode="precheck")
    assert out.verdict == "fail"
    [run] = out.runs
    step2 = next(s for s in run.steps if s.step == 2)
    assert not step2.ok
    assert {d.code for d in step2.diagnostics} >= {"import-time-code"}
    assert any(d.code == "toolchain-missing" for s in run.steps for d in s.diagnostics)
    assert not any(s.step in (3, 4) for s in run.steps)  # nothing built, nothing imported


@pytest.mark.parametrize("text", list(PASSES.values()), ids=list(PASSES))
def test_legitimate_text_passes_the_screen(text: str) -> None:
    assert import_time_problems(text) == []
    assert printing_problem(text) is None


def test_text_the_lexer_cannot_place_fails_closed() -> None:
    [p] = import_time_problems("theorem t : True := trivial /- never closed\n")
    assert p.code == "lean-lex-ambiguous"
    assert printing_problem("/- open") == "lean-lex-ambiguous"


def test_local_and_scoped_are_no_attribute_of_their_own() -> None:
    """``local``/``scoped`` are in :data:`INERT_ATTRIBUTES` only as prefixes: the name after
    them is what is held to the list."""
    assert {"local", "scoped"} <= INERT_ATTRIBUTES
    assert import_time_problems("@[local coe] def f := 1\n")
    assert import_time_problems("@[scoped instance] def f : Inhabited Nat := ⟨1⟩\n") == []


def _lean_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.lean"))


def test_every_recorded_lean_file_passes_the_screen() -> None:
    """graph/ and the recorded stand-in sources under tests/fixtures: no false positive
    (the one fixture built to be unreadable is the lexer's, not this screen's). The
    import-fidelity fixtures are registry sources as upstream writes them, some holding a
    notation the importer must hold for a curator (issue 28), so they are not among them."""
    fidelity = ROOT / "tests" / "fixtures" / "import_fidelity"
    files = _lean_files(ROOT / "graph") + [
        p for p in _lean_files(ROOT / "tests" / "fixtures") if fidelity not in p.parents]
    assert len(files) > 50
    flagged = {str(p.relative_to(ROOT)): [x.why for x in probs] for p in files
               if (probs := [x for x in import_time_problems(p.read_text("utf-8"))
                             if x.code == "import-time-code"])}
    assert flagged == {}


#: ../shared beside the checkout (a worktree sits one level deeper than /work/main)
_SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
                if p.is_dir()), ROOT.parent / "shared")


def _unpack(tmp_path: Path, tarball: Path) -> Path:
    if not tarball.is_file():
        pytest.skip(f"{tarball} is not on this machine")
    out = tmp_path / tarball.stem
    with tarfile.open(tarball) as tf:
        tf.extractall(out, members=[m for m in tf.getmembers() if m.name.endswith(".lean")
                                    and m.isfile()], filter="data")
    return out


def test_minif2f_passes_the_screen(tmp_path: Path) -> None:
    """miniF2F (../shared/datasets): 490 files, statements with ``sorry`` (two without):
    none is flagged."""
    files = [p for p in _shared_glob(tmp_path, "datasets", "minif2f-lean4-*.tar.gz")
             if "MiniF2F" in p.parts]  # not its lakefile
    assert len(files) > 100
    assert [p for p in files if import_time_problems(p.read_text("utf-8"))] == []


def test_formal_conjectures_statements_pass_but_for_their_notation(tmp_path: Path) -> None:
    """Formal Conjectures' Erdős statements (../shared/registries): they use ``@[category
    …]``, ``AMS`` and ``formal_proof`` (``conditional formal_proof``), all data tags, and
    card notation ``#A``. The only ones flagged define their own ``local notation`` or
    ``local macro`` or write card notation of a lower-case name (``#s``, 835:
    the gate cannot tell it from a hash command without Lean's token table). Those are
    refused by ``statement-command-refused`` too. At 488aade: 8 of 610 files, six of them
    ``local notation``/``local macro`` (125, 347, 508, 812, 890; 1142) and two ``#s``
    (70, 835)."""
    files = [p for p in _shared_glob(tmp_path, "registries",
                                     "formal-conjectures-*-erdos.tar.gz")
             if "ErdosProblems" in p.parts]
    assert len(files) > 100
    flagged = {p.stem for p in files if import_time_problems(p.read_text("utf-8"))}
    assert flagged <= {"125", "347", "508", "812", "890", "1142", "70", "835"}, flagged
    assert len(flagged) / len(files) < 0.02


def _shared_glob(tmp_path: Path, sub: str, pattern: str) -> list[Path]:
    tarballs = sorted((_SHARED / sub).glob(pattern)) if (_SHARED / sub).is_dir() else []
    if not tarballs:
        pytest.skip(f"no {pattern} under {_SHARED / sub}")
    return _lean_files(_unpack(tmp_path, tarballs[-1]))
