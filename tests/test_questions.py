"""Questions are questions (issue 12; D-10, D-4 step 6; DESIGN.md "Importing from public
registries"): an ``answer(sorry)`` statement is held and refuses claims, and a variant
filling the answer is refused at step 6 when the answer restates what it answers (Formal
Conjectures issue #4923), syntactically without Lean and definitionally through the
toolchain's ``defeq``.

Every statement below is real: taken from the Formal Conjectures snapshot
``tests/fixtures/registries/formal-conjectures-488aade-erdos.tar.gz`` (commit 488aade),
file named beside it; a restated answer is that statement with its ``answer(sorry)``
filled the way #4923 describes.
"""

from __future__ import annotations

import shutil
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from network.errors import CATALOG
from network.gate.lean.answers import (
    answer_echoes,
    definitional_echo,
    echo_probe_text,
    syntactic_findings,
)
from network.gate.lean.toolchain import DefEqResult, MissingToolchain, TermRef
from network.importers import write_files
from network.importers.formal_conjectures import plan_formal_conjectures_import
from network.record import derive
from network.record import models as m
from network.record.products import products
from network.record.read.loader import Graph, load_graph, sha256_hex
from tests.importfixtures import FIXTURES, commit_all, graph_copy

sys.path.insert(0, str(Path(__file__).parent))
from test_gate_codes import assert_refused, pull_request, refusals

from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from tests.gate_scenarios import ND, T, precheck_raw

SNAPSHOT = FIXTURES / "formal-conjectures-488aade-erdos.tar.gz"
ERDOS = "FormalConjectures/ErdosProblems"

# --- real statements (the theorem text exactly as in the snapshot) ----------------------

#: 321.lean, `Erdos321.erdos_321` (research open): a question asking for R N.
FC_321 = ("theorem erdos_321 (N : ℕ) :\n"
          "    R N = answer(sorry) := by\n  sorry\n")
#: 506.lean, `Erdos506.erdos_506.variants.large_n` (research solved): an answered variant.
FC_506_LARGE = ("theorem erdos_506.variants.large_n (n : ℕ) (hn : 393 < n) :\n"
                "    IsLeast { k : ℕ | ∃ P : Finset ℝ²,\n"
                "        P.card = n ∧ ¬ Collinear ℝ (P : Set ℝ²) ∧ ¬ Cospherical (P : Set ℝ²) ∧\n"
                "        numCircles (P : Set ℝ²) = k }\n"
                "      answer((n - 1).choose 2 + 1 - (n - 1) / 2) := by\n  sorry\n")
#: 1008.lean, `Erdos1008.erdos_1008` and `.variants.three_quarters`: answered with True/False.
FC_1008 = ("theorem erdos_1008 : answer(True) ↔\n"
           "    ∃ c > (0 : ℝ), ∀ (V : Type) [Fintype V] (G : SimpleGraph V),\n"
           "      ∃ H ≤ G, (cycleGraph 4).Free H ∧\n"
           "        c * (G.edgeSet.ncard : ℝ) ^ (2 / 3 : ℝ) ≤ (H.edgeSet.ncard : ℝ) := by\n"
           "  sorry\n")
FC_1008_34 = ("theorem erdos_1008.variants.three_quarters : answer(False) ↔\n"
              "    ∃ c > (0 : ℝ), ∀ (V : Type) [Fintype V] (G : SimpleGraph V),\n"
              "      ∃ H ≤ G, (cycleGraph 4).Free H ∧\n"
              "        c * (G.edgeSet.ncard : ℝ) ^ (3 / 4 : ℝ) ≤ (H.edgeSet.ncard : ℝ) := by\n"
              "  sorry\n")
#: 699.lean, `Erdos699.erdos_699` (research open): a yes/no question.
FC_699_RHS = ("∀ n i j : ℕ,\n      1 ≤ i →\n      i < j →\n      j ≤ n / 2 →\n"
              "      ∃ p : ℕ, p.Prime ∧ i ≤ p ∧ p ∣ Nat.gcd (Nat.choose n i) (Nat.choose n j)")
FC_699 = f"theorem erdos_699 : answer(sorry) ↔\n    {FC_699_RHS} := by\n  sorry\n"


def _snapshot_text(number: str) -> str:
    with tarfile.open(SNAPSHOT) as tf:
        member = next(n for n in tf.getnames() if n.endswith(f"{ERDOS}/{number}.lean"))
        f = tf.extractfile(member)
        assert f is not None
        return f.read().decode("utf-8")


@pytest.mark.parametrize(("number", "text"), [
    ("321", FC_321), ("506", FC_506_LARGE), ("1008", FC_1008), ("1008", FC_1008_34),
    ("699", FC_699)])
def test_the_statements_here_are_the_snapshots(number: str, text: str) -> None:
    """Nothing here is invented: each statement stands verbatim in its snapshot file."""
    assert text.rstrip() in _snapshot_text(number)


# --- derive: the question root is held --------------------------------------------------


@pytest.fixture(scope="module")
def fc_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real Formal Conjectures files 1119 (a research-solved question, so a calibration
    target), 390 and 321 (research-open questions) imported into the starting graph."""
    tmp = tmp_path_factory.mktemp("fc")
    co = tmp / "fc"
    (co / ERDOS).mkdir(parents=True)
    for n in ("1119", "390", "321"):
        (co / ERDOS / f"{n}.lean").write_text(_snapshot_text(n), encoding="utf-8")
    commit_all(co)
    g = graph_copy(tmp)
    write_files(g, plan_formal_conjectures_import(co, g, problems=["1119", "390", "321"]).files)
    return g


@pytest.fixture(scope="module")
def fc_graph(fc_dir: Path) -> Graph:
    return load_graph(fc_dir)


@pytest.mark.parametrize(("tid", "cls"), [
    ("erdos-1119", "calibration"), ("erdos-390", "open-problem"), ("erdos-321", "open-problem")])
def test_an_answer_sorry_root_is_a_held_question(fc_graph: Graph, tid: str, cls: str) -> None:
    """The root is open, flagged a question and refused as a claim with
    claim-node-question, before any other reason (a calibration target needs no steward,
    so without the question rule 1119's root would be claimable as a proposition)."""
    t = fc_graph.targets[tid]
    assert t.record.answer_question is True and t.record.target_class == cls
    assert derive.is_question(fc_graph, tid, "root")
    assert derive.node_status(fc_graph, tid, "root") == "open"
    assert derive.node_flags(fc_graph, tid, "root").question is True
    assert derive.claimable(fc_graph, tid, "root") == (False, "claim-node-question")
    entry = derive.frontier_entry(fc_graph, tid, "root")
    assert entry["question"] is True and entry["claimable"] is False
    assert entry["claimable_reason"] == "claim-node-question"
    assert CATALOG["claim-node-question"].http_status == 409


def test_variants_of_a_question_are_where_work_goes(fc_graph: Graph) -> None:
    """1119's variants state propositions (no answer(…)): they are not questions, and on a
    calibration target they are claimable at once."""
    t = fc_graph.targets["erdos-1119"]
    variants = [nid for nid in t.nodes if nid != "root"]
    assert variants
    for nid in variants:
        assert not derive.is_question(fc_graph, "erdos-1119", nid)
        assert derive.claimable(fc_graph, "erdos-1119", nid) == (True, None)


def test_the_products_show_the_question(fc_graph: Graph) -> None:
    """frontier.json lists the held root with question: true (so an agent sees where to
    propose an answer), and graph.json carries the flag and the refusal."""
    front = products.frontier_json(fc_graph)["nodes"]
    roots = {(e["target"], e["node"]): e for e in front}
    for tid in ("erdos-1119", "erdos-390", "erdos-321"):
        e = roots[(tid, "root")]
        assert (e["question"], e["claimable"], e["claimable_reason"]) == (
            True, False, "claim-node-question")
    view = derive.node_view(fc_graph, "erdos-1119", "root")
    assert view["flags"]["question"] is True
    assert view["claimable_reason"] == "claim-node-question"


def test_a_variant_whose_meta_says_answer_question_is_held(fc_dir: Path,
                                                           tmp_path: Path) -> None:
    """The importer also marks a variant written with answer(sorry) (META provenance
    answer_question: true): that node is a question too, whatever its target says."""
    g = tmp_path / "g"
    shutil.copytree(fc_dir, g)
    t = load_graph(g).targets["erdos-1119"]
    nid = min(n for n in t.nodes if n != "root")
    path = g / t.nodes[nid].ref.dir / "META.yaml"
    meta = yaml.safe_load(path.read_text("utf-8"))
    meta["provenance"]["answer_question"] = True
    path.write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), "utf-8")
    graph = load_graph(g)
    assert derive.claimable(graph, "erdos-1119", nid) == (False, "claim-node-question")
    assert derive.claimable(graph, "erdos-1119", "root") == (False, "claim-node-question")


def test_a_target_without_the_flag_is_no_question(fc_graph: Graph) -> None:
    """Nothing else changes: a root of a target that asks nothing is not a question."""
    for tid, t in fc_graph.targets.items():
        if not t.record.answer_question:
            for nid, node in t.nodes.items():
                if (node.meta.provenance or {}).get("answer_question"):
                    continue  # a variant that itself asks for a value (erdos-340's)
                assert not derive.is_question(fc_graph, tid, nid)
                assert derive.claimable(fc_graph, tid, nid)[1] != "claim-node-question"


# --- step 6, syntactic layer: no Lean ---------------------------------------------------


def _filled(text: str, answer: str) -> str:
    assert text.count("answer(sorry)") == 1
    return text.replace("answer(sorry)", answer)


#: erdos_321's answer filled with R N itself, as #4923 found: each passes by rfl/le_rfl.
RESTATED = [
    _filled(FC_321, "answer(R N)"),
    _filled(FC_321, "answer(  R /- the same -/ N )"),       # whitespace and a comment
    _filled(FC_321, "answer(((R N)))"),                      # parentheses
    _filled(FC_321, "answer(answer(R N))"),                  # a nested answer
    FC_321.replace("R N = answer(sorry)", "answer(R N) = R N"),   # sides swapped
    FC_321.replace("R N = answer(sorry)", "R N ≥ answer(R N)"),   # ≥ for =
    FC_321.replace("R N = answer(sorry)", "answer(R N) ≤ R N"),   # ≤, swapped
    FC_321.replace("(N : ℕ) :\n    R N = answer(sorry)",
                   ":\n    ∀ N : ℕ, 0 < N → R N = answer(R N)"),  # binders in the type
    _filled(FC_699, f"answer({FC_699_RHS})"),                # a yes/no question echoed
    _filled(FC_321, "answer(R N) ∧ True"),                   # a conjunct beside it
    FC_321.replace("R N = answer(sorry)", "True ∧ (answer(R N) = R N)"),
    FC_321.replace("R N = answer(sorry)", "R N = answer(R N) → R N = R N"),  # a hypothesis
    FC_321.replace("R N = answer(sorry)", "∃ c : ℕ, c = answer(c)"),
    FC_321.replace("R N = answer(sorry)", "¬ ¬ (R N = answer(R N))"),
    _filled(FC_699, f"(answer({FC_699_RHS}))").replace("↔", "<->"),  # ASCII iff, parens
    FC_321.replace("R N = answer(sorry)", "Eq (R N) (answer(R N))"),  # = as a function
    FC_321.replace("R N = answer(sorry)", "HEq (answer(R N)) (R N)"),
    FC_321.replace("R N = answer(sorry)", "R N ∣ answer(R N)"),   # reflexive relations
    FC_321.replace("R N = answer(sorry)", "{R N} ⊆ answer({R N})"),
    f"theorem erdos_699 : Iff (answer({FC_699_RHS})) ({FC_699_RHS}) := by\n  sorry\n",
]


@pytest.mark.parametrize("text", RESTATED)
def test_a_restated_answer_is_refused_without_lean(text: str) -> None:
    [d] = syntactic_findings(text, "targets/erdos-321/nodes/v/Statement.lean")
    assert d.code == "answer-restates-target"
    assert CATALOG["answer-restates-target"].step == 6


@pytest.mark.parametrize("text", [FC_506_LARGE, FC_1008, FC_1008_34,
                                  _filled(FC_321, "answer(N / 2)"),
                                  _filled(FC_699, "answer(True)")])
def test_an_honest_answer_passes_the_syntactic_layer(text: str) -> None:
    """Formal Conjectures' own answered statements (and a value for erdos_321) are not
    echoes; FC_1008's answer True is one side of its ↔ and is still not the other."""
    assert syntactic_findings(text, "x/Statement.lean") == []


def test_a_dotted_formal_conjectures_name_is_read_whole() -> None:
    """FC's variant names are dotted (several tokens): the probe renames the whole name."""
    [e] = answer_echoes(FC_1008_34)
    assert e.decl == "erdos_1008.variants.three_quarters" and e.answer == "False"
    probe = echo_probe_text(FC_1008_34, e, "erdos_1008.variants.three_quarters.answer_probe")
    assert probe.startswith("theorem erdos_1008.variants.three_quarters.answer_probe : "
                            "answer(∃ c > (0 : ℝ),")


@pytest.mark.parametrize("text", [FC_321, FC_699])
def test_a_question_has_no_answer_to_check(text: str) -> None:
    assert answer_echoes(text) == []


@pytest.mark.parametrize("text", [
    _filled(FC_321, "answer(id (R N))"),           # id unfolds
    _filled(FC_321, "answer((R N : ℕ))"),           # a type ascription
    _filled(FC_321, "answer(R N + 0)"),             # computes to R N
    _filled(FC_321, "answer(R (N + 0))"),
])
def test_a_disguised_echo_passes_the_syntax_and_needs_the_definitional_layer(text: str) -> None:
    """What the token comparison cannot see: the answer is found, not called a copy, and
    the probe puts the other side in the answer's place for ``defeq`` to compare."""
    [e] = answer_echoes(text)
    assert not e.restates and e.other == "R N" and e.relation == "="
    probe = echo_probe_text(text, e, "erdos_321.answer_probe")
    assert probe.startswith("theorem erdos_321.answer_probe (N : ℕ) :")
    assert "R N = answer(R N) := by" in probe
    assert syntactic_findings(text, "x") == []


def test_an_answer_in_a_prefix_or_reflexive_relation_is_probed() -> None:
    """``Eq a b`` and ``a ∣ b`` are relations too: a disguised echo there gets its probe
    (before, no echo was found, so neither layer looked at the answer)."""
    for written, other, probed in [
            ("Eq (R N) (answer(id (R N)))", "(R N)", "Eq (R N) (answer((R N)))"),
            ("R N ∣ answer(R N + 0)", "R N", "R N ∣ answer(R N)")]:
        text = FC_321.replace("R N = answer(sorry)", written)
        [e] = answer_echoes(text)
        assert not e.restates and e.other == other, e
        assert f"{probed} := by" in echo_probe_text(text, e, "erdos_321.answer_probe")


def test_every_answer_of_the_statement_is_probed(tmp_path: Path) -> None:
    """Two answers, one honest and one disguised: each gets its own probe, so the
    disguised one cannot hide behind the first."""
    stmt = ("theorem Demo.v (N : Nat) :\n    N * N = answer(4) ∧ "
            "(N + N = answer(id (N + N))) := by\n  sorry\n")
    first, second = _plan_for(tmp_path, stmt).answer_probes
    assert (first.decl, second.decl) == ("Demo.v.answer_probe", "Demo.v.answer_probe_2")
    assert second.source.module == "Lemmata.demo.v.AnswerProbe2"
    assert b"N * N = answer(N * N) \xe2\x88\xa7 (N + N = answer(id (N + N)))" in first.source.data
    assert b"N * N = answer(4) \xe2\x88\xa7 (N + N = answer(N + N))" in second.source.data


def test_a_parenthesised_answer_is_swapped_whole(tmp_path: Path) -> None:
    stmt = "theorem Demo.v (N : Nat) :\n    N * N = ((answer(id (N * N)))) := by\n  sorry\n"
    [probe] = _plan_for(tmp_path, stmt).answer_probes
    assert b"N * N = ((answer(N * N))) := by" in probe.source.data


def test_text_in_strings_and_comments_is_not_read_as_an_answer() -> None:
    text = ('theorem t : "answer(a) = a".length = 13 := by\n'
            '  -- R N = answer(R N)\n  sorry\n')
    assert answer_echoes(text) == []


def test_the_probe_refuses_an_odd_name() -> None:
    [e] = answer_echoes(_filled(FC_321, "answer(id (R N))"))
    with pytest.raises(ValueError):
        echo_probe_text(_filled(FC_321, "answer(id (R N))"), e, "x; #eval 1")


# --- step 6, definitional layer: through Toolchain.defeq ---------------------------------


@dataclass
class _DefEqAnswers:
    """Answers only ``defeq``, with a declared result: what Lean's ``isDefEq`` at default
    transparency returns for the two types named (see each test)."""

    result: DefEqResult
    spec: Any = None

    def defeq(self, workspace: Any, left: TermRef, right: TermRef, sandbox: Any,
              caps: Any) -> DefEqResult:
        self.asked = (left, right)
        return self.result


STMT = TermRef("Lemmata.erdos_321.v.Statement", "Erdos321.erdos_321.variants.v")
PROBE = TermRef("Lemmata.erdos_321.v.AnswerProbe", "Erdos321.erdos_321.variants.v.probe")


def test_without_a_toolchain_the_definitional_layer_fails_closed(tmp_path: Path) -> None:
    spec = m.GateSpec.model_validate({"lean_toolchain": "leanprover/lean4:v4.22.0"})
    [d] = definitional_echo(MissingToolchain(spec), None, STMT, PROBE, None,  # type: ignore[arg-type]
                            m.Caps(), "x/Statement.lean")
    assert d.code == "toolchain-missing"


def test_an_answer_definitionally_the_other_side_is_refused() -> None:
    """``R N = id (R N)`` against ``R N = R N``: ``id`` unfolds, isDefEq answers true."""
    tc = _DefEqAnswers(DefEqResult(True, None, True, True))
    [d] = definitional_echo(tc, None, STMT, PROBE, None, m.Caps(),  # type: ignore[arg-type]
                            "x/Statement.lean", 2)
    assert d.code == "answer-defeq-target" and d.line == 2
    assert tc.asked == (STMT, PROBE)
    assert CATALOG["answer-defeq-target"].step == 6


def test_an_answer_that_is_a_value_passes_the_definitional_layer() -> None:
    """``R N = N / 2`` against ``R N = R N``: R is an sSup, not N / 2; isDefEq is false."""
    assert definitional_echo(_DefEqAnswers(DefEqResult(True, None, False, True)), None,  # type: ignore[arg-type]
                             STMT, PROBE, None, m.Caps(), "x") == []


def test_an_incomparable_probe_fails_closed() -> None:
    res = DefEqResult(True, None, None, False, "constants differ")
    [d] = definitional_echo(_DefEqAnswers(res), None, STMT, PROBE, None,  # type: ignore[arg-type]
                            m.Caps(), "x")
    assert d.code == "checker-failed"


# --- the gate, end to end ----------------------------------------------------------------


def _variant(nid: str, decl: str, stmt: str) -> dict[str, bytes | str | None]:
    d = f"{ND}/{nid}"
    meta = {"schema": "meta/v1", "id": nid, "target": T, "declaration": decl,
            "statement_hash": sha256_hex(stmt.encode()), "origin": "variant",
            "author": "alice",
            "variant": {"of": "root", "relation": "related",
                        "pertinence": "fixes the answer"}}
    return {f"{d}/META.yaml": yaml.safe_dump(meta, sort_keys=False).encode(),
            f"{d}/Statement.lean": stmt,
            f"{d}/Witness.lean": f"theorem {decl}.witness : True := trivial\n"}


#: erdos_321 filled with its own left side, under the demo's names.
ECHO_STMT = "theorem Demo.v (N : Nat) :\n    N * N = answer(N /- again -/ * N) := by\n  sorry\n"


def test_the_gate_refuses_a_restated_answer_at_step_6(tmp_path: Path) -> None:
    """A variant proposal whose answer restates its other side is refused at step 6
    before any build (the recorded stand-in is never asked to build it)."""
    out = pull_request(tmp_path, _variant("v", "Demo.v", ECHO_STMT))
    assert_refused(out, "answer-restates-target")
    [run] = out.runs
    assert [s.step for s in run.steps][:2] == [2, 6]
    assert 3 not in [s.step for s in run.steps]


def test_without_a_toolchain_the_restated_answer_is_still_reported(tmp_path: Path) -> None:
    """No Lean installed: the syntactic finding is listed beside toolchain-missing, and
    the verdict is the refusal, never a pass."""
    from tests.gate_scenarios import base_repo
    from tests.graphs import git_commit
    b, base = base_repo(tmp_path / "g")
    for path, data in _variant("v", "Demo.v", ECHO_STMT).items():
        assert data is not None
        b.write(path, data)
    head = git_commit(b.root, "pull request")
    out = run_gate(b.root, base, head, toolchain=MissingToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter="alice")
    assert out.verdict == "fail" and out.exit_code == 1
    found = refusals(out)
    assert (6, "answer-restates-target") in found and (1, "toolchain-missing") in found


# --- the definitional layer inside the gate: plan and step 6 ---------------------------


DISGUISED_STMT = "theorem Demo.v (N : Nat) :\n    N * N = answer(id (N * N)) := by\n  sorry\n"


def _plan_for(tmp_path: Path, stmt: str) -> Any:
    from network.gate.artifacts import Artifact, Kind
    from network.gate.run import plan_workspace
    from tests.gate_scenarios import base_repo
    b, _ = base_repo(tmp_path / "g")
    files = _variant("v", "Demo.v", stmt)
    head = {p: (d.encode() if isinstance(d, str) else d) for p, d in files.items()
            if d is not None}
    art = Artifact(Kind.VARIANT, T, "v", sorted(head), f"{ND}/v/Statement.lean")
    return plan_workspace(load_graph(b.root), head, art)


def test_a_filled_answer_adds_the_probe_to_the_contributed_build(tmp_path: Path) -> None:
    """The probe is the statement with the other side in the answer's place, renamed
    Demo.v.answer_probe, built with the statement in the contributor's scratch domain."""
    plan = _plan_for(tmp_path, DISGUISED_STMT)
    [probe] = plan.answer_probes
    assert probe.decl == "Demo.v.answer_probe" and probe.line == 2
    assert probe.source.module == "Lemmata.demo.v.AnswerProbe"
    assert probe.source.data == (b"theorem Demo.v.answer_probe (N : Nat) :\n"
                                 b"    N * N = answer(N * N) := by\n  sorry\n")
    assert probe.source.module in plan.contributed
    assert probe.source in plan.sources and probe.source not in plan.base_sources


@pytest.mark.parametrize("stmt", [
    "theorem Demo.v (N : Nat) : N * N = N * N := by\n  sorry\n",       # no answer(…)
    ECHO_STMT,                                                        # refused statically
    "theorem Demo.v (N : Nat) :\n    N * N = answer(sorry) := by\n  sorry\n",  # a question
])
def test_no_probe_where_there_is_nothing_to_compare(tmp_path: Path, stmt: str) -> None:
    """Every workspace without a filled, unrefused answer is exactly what it was (the
    recordings of every other scenario stay as they are)."""
    plan = _plan_for(tmp_path, stmt)
    assert plan.answer_probes == []
    assert [s.module for s in plan.sources if s.module.endswith("AnswerProbe")] == []


@dataclass
class _Step6Answers(_DefEqAnswers):
    """Step 6's two Lean calls: the hazard checkers find nothing in ``N * N = id (N * N)``
    (no subtraction, division, cast or range in it) and ``defeq`` answers as declared."""

    def hazards(self, *args: Any) -> Any:
        from network.gate.lean.toolchain import HazardsResult
        return HazardsResult(True, None, ())


@pytest.mark.parametrize(("defeq", "codes"), [
    (DefEqResult(True, None, True, True), ["answer-defeq-target"]),   # id unfolds: an echo
    (DefEqResult(False, "toolchain-missing", detail="no Lean"), ["toolchain-missing"]),
    (DefEqResult(True, None, None, False, "constants differ"), ["checker-failed"]),
])
def test_step_6_refuses_an_answer_definitionally_the_other_side(
        tmp_path: Path, defeq: DefEqResult, codes: list[str]) -> None:
    """The disguised echo the syntax let through is refused at step 6 by the definitional
    layer; a test that did not run refuses too (fail closed), never a pass."""
    from types import SimpleNamespace

    from network.gate.run import _step6
    plan = _plan_for(tmp_path, DISGUISED_STMT)
    spec = m.GateSpec.model_validate({"lean_toolchain": "leanprover/lean4:v4.22.0"})
    tc = _Step6Answers(defeq, spec)
    meta = m.Meta.model_validate(yaml.safe_load(_variant("v", "Demo.v", DISGUISED_STMT)[
        f"{ND}/v/META.yaml"]))  # type: ignore[arg-type]
    res = _step6(SimpleNamespace(sandbox=None), tc, None, plan, m.Caps(), meta,  # type: ignore[arg-type]
                 f"{ND}/v/Statement.lean")
    assert not res.ok and [d.code for d in res.diagnostics] == codes
    assert tc.asked == (TermRef(plan.statement_module, "Demo.v"),
                        TermRef("Lemmata.demo.v.AnswerProbe", "Demo.v.answer_probe"))


def test_step_6_passes_an_answer_that_is_a_value(tmp_path: Path) -> None:
    """``N * N = 4`` against ``N * N = N * N``: not definitionally equal for a variable N."""
    from types import SimpleNamespace

    from network.gate.run import _step6
    stmt = "theorem Demo.v (N : Nat) :\n    N * N = answer(4) := by\n  sorry\n"
    plan = _plan_for(tmp_path, stmt)
    spec = m.GateSpec.model_validate({"lean_toolchain": "leanprover/lean4:v4.22.0"})
    meta = m.Meta.model_validate(yaml.safe_load(_variant("v", "Demo.v", stmt)[
        f"{ND}/v/META.yaml"]))  # type: ignore[arg-type]
    res = _step6(SimpleNamespace(sandbox=None),  # type: ignore[arg-type]
                 _Step6Answers(DefEqResult(True, None, False, True), spec), None, plan,
                 m.Caps(), meta, f"{ND}/v/Statement.lean")
    assert res.ok


# --- the service: claim refuses the question with its code ------------------------------

#: 1119.lean, `Erdos1119.erdos_1119` (research solved: a calibration target, which needs no
#: steward, so nothing but the question rule stands between it and a claim).
FC_1119 = ("theorem erdos_1119 : answer(sorry) ↔\n"
           "    ∀ (m : Cardinal.{0}), ℵ₀ < m → m < 𝔠 →\n"
           "    ∀ F : Set (ℂ → ℂ), (∀ f ∈ F, Differentiable ℂ f) →\n"
           "      (∀ z₀ : ℂ, #{y : ℂ | ∃ f ∈ F, f z₀ = y} ≤ m) →\n"
           "      #F ≤ m := by\n  sorry\n")


def test_the_1119_statement_is_the_snapshots() -> None:
    assert FC_1119.rstrip() in _snapshot_text("1119")


def test_the_service_refuses_a_claim_on_a_question(tmp_path: Path) -> None:
    """POST /claims on the held root answers 409 claim-node-question (derive.claimable's
    code, nothing of the service's own); the same target's proposition variant is claimable."""
    from tests.api_support import auth, make_api
    from tests.graphs import git_commit
    it = make_api(tmp_path)
    api = next(it)
    try:
        b = api.graph
        b.target("erdos-1119", cls="calibration", calibration=True, steward=None,
                 answer_question=True)
        b.node("erdos-1119", "root", statement=FC_1119, declaration="Erdos1119.erdos_1119",
               provenance={"source": "formal-conjectures", "answer_question": True})
        b.node("erdos-1119", "variant-easy-case", declaration="Erdos1119.erdos_1119.variants.easy_case")
        git_commit(b.root, "a question")
        tok = api.token("alice")["token"]
        r = api.client.post("/claims", json={"target": "erdos-1119", "node": "root"},
                            headers=auth(tok))
        assert (r.status_code, r.json()["code"]) == (409, "claim-node-question")
        ok = api.client.post("/claims", json={"target": "erdos-1119",
                                              "node": "variant-easy-case"}, headers=auth(tok))
        assert ok.status_code == 201, ok.text
    finally:
        it.close()


# --- step 9: a person judges a resolving answer ------------------------------------------

#: 1119's question answered "no" as a resolving variant (what erdos_1119.variants would
#: state if ZFC decided it; the statement's truth does not matter to step 9's basis).
FC_1119_NO = FC_1119.replace("theorem erdos_1119 : answer(sorry)",
                             "theorem erdos_1119.variants.no : answer(False)")


def _question_graph(tmp_path: Path, *, question: bool) -> Graph:
    from tests.graphs import GraphBuilder
    b = GraphBuilder(tmp_path / "q")
    b.base()
    b.target("erdos-1119", cls="calibration", calibration=True, steward=None,
             answer_question=question)
    b.node("erdos-1119", "root", statement=FC_1119, declaration="Erdos1119.erdos_1119")
    b.node("erdos-1119", "variant-no", statement=FC_1119_NO, origin="variant",
           declaration="Erdos1119.erdos_1119.variants.no",
           variant={"of": "root", "relation": "resolves", "pertinence": "answers no"})
    b.node("erdos-1119", "variant-easy", origin="variant",
           declaration="Erdos1119.erdos_1119.variants.easy_case",
           variant={"of": "root", "relation": "related", "pertinence": "the easy case"})
    return load_graph(b.root)


def _proof_of(nid: str) -> Any:
    from network.gate.artifacts import Artifact, Kind
    path = f"targets/erdos-1119/nodes/{nid}/Proof.lean"
    return Artifact(Kind.PROOF, "erdos-1119", nid, [path], path)


def test_a_resolving_answer_waits_on_a_person_even_on_a_calibration_target(
        tmp_path: Path) -> None:
    """A proof of a resolves variant would settle the question: step 9 holds it for a
    non-author's review though the target is calibration (which otherwise asks none)."""
    from network.gate.run import Review, step9_basis
    g = _question_graph(tmp_path, question=True)
    basis, held = step9_basis(g, _proof_of("variant-no"), "alice", None)
    assert (basis.basis, held) == ("awaiting-review", True)
    basis, held = step9_basis(g, _proof_of("variant-no"), "alice", Review("alice"))
    assert (basis.basis, held) == ("awaiting-review", True)       # the author is no reviewer
    basis, held = step9_basis(g, _proof_of("variant-no"), "alice", Review("bob"))
    assert (basis.basis, basis.reviewer, held) == ("review", "bob", False)
    basis, held = step9_basis(g, _proof_of("root"), "alice", None)  # `True ↔ …` as written
    assert (basis.basis, held) == ("awaiting-review", True)


def test_work_that_settles_nothing_and_plain_calibration_keep_their_basis(
        tmp_path: Path) -> None:
    from network.gate.run import step9_basis
    g = _question_graph(tmp_path / "a", question=True)
    assert step9_basis(g, _proof_of("variant-easy"), "alice", None)[0].basis == "calibration"
    plain = _question_graph(tmp_path / "b", question=False)
    assert step9_basis(plain, _proof_of("variant-no"), "alice", None) == (
        m.Step9(basis="calibration"), False)


def test_no_statement_of_the_real_collection_is_called_an_echo() -> None:
    """Over all 610 Erdős files of the snapshot the syntactic layer reads every filled
    answer that is a side of a relation (279 at 488aade) and calls none a copy: Formal
    Conjectures' own answers are values, so the layer refuses nothing honest there."""
    filled, echoes = 0, []
    with tarfile.open(SNAPSHOT) as tf:
        for member in tf.getmembers():
            if f"/{ERDOS.rsplit('/', 1)[1]}/" not in f"/{member.name}" or \
                    not member.name.endswith(".lean"):
                continue
            f = tf.extractfile(member)
            assert f is not None
            text = f.read().decode("utf-8")
            if "answer(" not in text:
                continue
            found = answer_echoes(text)
            filled += len(found)
            echoes += [(member.name, e.decl) for e in found if e.restates]
    assert filled > 250
    assert echoes == []


def test_an_oversized_statement_is_step_2s_and_is_not_read(tmp_path: Path) -> None:
    """A Statement.lean over its size limit is refused at step 2 (file-too-large); the
    anti-echo scan leaves its bytes unread rather than lex a megabyte."""
    big = ECHO_STMT + "-- " + "x" * 1_100_000 + "\n"
    out = pull_request(tmp_path, _variant("v", "Demo.v", big))
    found = refusals(out)
    assert (2, "file-too-large") in found
    assert (6, "answer-restates-target") not in found
