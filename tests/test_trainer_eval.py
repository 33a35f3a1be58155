"""Kernel-judged evaluation (issue 14): sealed items under one fixed budget (samples,
tokens, verification calls), judged by the gate's verdict (the recorded stand-in), pass@k
with bootstrap intervals, failures as step and code only, tokens per solved item, and the
untrained base as a mandatory control. Engines here are scripted: what is under test is
the judging and the report, not the model."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.gate.sandbox.sandbox import Sandbox
from network.trainer.engines import Generation, Serving
from network.trainer.evaluate import Budget, GraphVerifier, bootstrap_ci, evaluate, pass_at_k
from tests.gate_scenarios import PROOF_MID, T, base_repo

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

SORRY = PROOF_MID.replace("simpa using Demo.base_lemma n", "sorry")


@dataclass
class Scripted:
    """An engine that answers each prompt with fixed texts (one per sample)."""

    texts: dict[str, list[str]]
    version: int | None = None

    def serving(self) -> Serving:
        return Serving("sha256:test", None if self.version is None else f"v{self.version}",
                       self.version, None)

    def sync(self, adapter_dir: str | Path, version: int) -> Serving:
        raise NotImplementedError

    def generate(self, prompts: Sequence[str], *, samples: int, max_new_tokens: int,
                 temperature: float, seed: int) -> list[list[Generation]]:
        return [[Generation(t, len(t.split())) for t in self.texts[p][:samples]]
                for p in prompts]


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> GraphVerifier:
    b, base = base_repo(tmp_path_factory.mktemp("g") / "g")
    return GraphVerifier(b.root, base, RecordedToolchain, Sandbox())


ROWS = [{"item": f"graph:{T}/mid", "id": "r-mid", "prompt": "P-mid", "source": "graph"},
        {"item": "minif2f:Test/x", "id": "r-x", "prompt": "P-x", "source": "minif2f-test"}]


def test_pass_at_k_and_its_interval() -> None:
    assert pass_at_k(2, 1, 1) == 0.5 and pass_at_k(2, 1, 2) == 1.0 and pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    lo, hi = bootstrap_ci([0.0, 1.0, 1.0, 0.0], seed=0)
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert bootstrap_ci([1.0, 1.0], seed=0) == [1.0, 1.0]


def test_a_report_with_the_base_control(judge: GraphVerifier) -> None:
    policy = Scripted({"P-mid": [PROOF_MID, SORRY]}, version=1)
    base = Scripted({"P-mid": [SORRY, SORRY]})
    rep = evaluate(ROWS, {"base": base, "policy": policy}, judge,
                   Budget(samples=2, max_new_tokens=32, verification_calls=8), ks=(1, 2))
    assert rep["control"] == "base" and rep["items"] == [f"graph:{T}/mid"]
    assert rep["not_judged"] == {"minif2f-test": 1}
    p, b = rep["conditions"]["policy"], rep["conditions"]["base"]
    assert p["rates"]["pass@1"]["value"] == 0.5 and p["rates"]["pass@2"]["value"] == 1.0
    assert b["rates"]["pass@1"]["value"] == 0.0 and b["solved"] == 0
    assert "k=1" in p["rates"]["pass@1"]["label"] and "2 samples/item" in p["rates"]["pass@1"]["label"]
    assert p["solved"] == 1 and p["tokens_per_solved"] == sum(len(t.split()) for t in (PROOF_MID, SORRY))
    assert b["tokens_per_solved"] is None
    assert b["failures"] == {"step 5: sorry-used": 2} and p["failures"] == {"step 5: sorry-used": 1}
    assert [a["verdict"] for a in p["attempts"]] == ["pass", "fail"]
    assert b["serving"]["version"] is None and p["serving"]["version"] == 1
    # no Lean text anywhere in the report: only steps and codes
    text = json.dumps(rep)
    assert "Demo.base_lemma" not in text and "theorem" not in text
    assert len(rep["report_sha256"]) == 64


def test_the_verification_budget_is_fixed(judge: GraphVerifier) -> None:
    policy = Scripted({"P-mid": [SORRY, PROOF_MID]}, version=1)
    base = Scripted({"P-mid": [SORRY, PROOF_MID]})
    rep = evaluate(ROWS, {"base": base, "policy": policy}, judge,
                   Budget(samples=2, verification_calls=1))
    for c in rep["conditions"].values():
        assert c["verification_calls"] == 1 and c["solved"] == 0
        assert [a["code"] for a in c["attempts"]] == ["sorry-used", "budget-exhausted"]


def test_no_toolchain_is_not_a_pass(judge: GraphVerifier) -> None:
    """A sample the stand-in never saw: toolchain-missing, not judged, never a pass."""
    odd = PROOF_MID + "-- a policy's sample\n"
    rep = evaluate(ROWS, {"base": Scripted({"P-mid": [odd]})}, judge, Budget(samples=1))
    c = rep["conditions"]["base"]
    assert c["solved"] == 0 and c["attempts"][0]["verdict"] == "not-judged"
    assert c["attempts"][0]["code"] == "toolchain-missing"


@pytest.mark.parametrize("conds", ["none", "adapter-as-base"])
def test_there_is_always_an_untrained_base_control(judge: GraphVerifier, conds: str) -> None:
    policy = Scripted({"P-mid": [PROOF_MID]}, version=1)
    given: dict[str, Any] = {"policy": policy} if conds == "none" else \
        {"base": policy, "policy": policy}
    with pytest.raises(LemmataError) as exc:
        evaluate(ROWS, given, judge, Budget(samples=1))
    assert exc.value.code == "trainer-eval-no-control"


@pytest.mark.parametrize("budget,ks", [(Budget(samples=1), (2,)), (Budget(samples=0), (1,)),
                                       (Budget(max_new_tokens=0), (1,)), (Budget(), ())])
def test_a_budget_out_of_range_is_refused(judge: GraphVerifier, budget: Budget,
                                          ks: tuple[int, ...]) -> None:
    with pytest.raises(LemmataError) as exc:
        evaluate(ROWS, {"base": Scripted({})}, judge, budget, ks=ks)
    assert exc.value.code == "trainer-config-invalid"


# --- miniF2F items, judged by the same gate (a scratch node each) ------------------------


@pytest.fixture(scope="module")
def minif2f_world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from network.trainer.evaluate import sealed_rows
    from network.trainer.minif2f_judge import MiniF2FVerifier
    from tests.trainer_support import MINIF2F, compiled_dataset

    graph, ds, sha = compiled_dataset(tmp_path_factory.mktemp("mf"))
    rows = [r for r in sealed_rows(ds) if r["source"] == "minif2f-test"][:2]
    judge = MiniF2FVerifier(graph, sha, [MINIF2F], RecordedToolchain, Sandbox())
    return {"graph": graph, "ds": ds, "sha": sha, "rows": rows, "judge": judge}


def _minif2f_texts(judge: Any, row: dict[str, Any]) -> dict[str, str]:
    stmt = judge._statements[row["item"]]
    proof = stmt.replace("sorry", "simp")
    return {"proof": proof, "axiom": "axiom cheat : False\n\n" + proof}


def test_minif2f_items_are_judged_with_the_base_control(minif2f_world: dict[str, Any],
                                                        judge: GraphVerifier) -> None:
    """A user axiom is refused at step 2 with no Lean; a plain proof needs Lean, which the
    stand-in does not have for these bytes: not judged, never a pass. The rates carry
    their k, budget and bootstrap interval like a graph item's."""
    from network.trainer.minif2f_judge import CombinedVerifier

    mf, rows = minif2f_world["judge"], minif2f_world["rows"]
    t = {r["prompt"]: _minif2f_texts(mf, r) for r in rows}
    policy = Scripted({p: [x["axiom"], x["proof"]] for p, x in t.items()}, version=1)
    base = Scripted({p: [x["proof"], x["proof"]] for p, x in t.items()})
    rep = evaluate(rows, {"base": base, "policy": policy}, CombinedVerifier((judge, mf)),
                   Budget(samples=2, verification_calls=8), ks=(1, 2))
    assert rep["items"] == sorted(r["item"] for r in rows) and rep["not_judged"] == {}
    p, b = rep["conditions"]["policy"], rep["conditions"]["base"]
    assert p["failures"] == {"step 2: axiom-declared": 2, "step 3: toolchain-missing": 2}
    assert [a["verdict"] for a in p["attempts"]] == ["fail", "not-judged"] * 2
    assert {a["verdict"] for a in b["attempts"]} == {"not-judged"} and b["solved"] == 0
    r1 = p["rates"]["pass@1"]
    assert r1["value"] == 0.0 and r1["ci95"] == [0.0, 0.0] and "k=1" in r1["label"]
    assert "MiniF2F" not in json.dumps(rep) and "theorem" not in json.dumps(rep)


def test_a_minif2f_row_cannot_bring_its_own_statement(minif2f_world: dict[str, Any]) -> None:
    mf = minif2f_world["judge"]
    row = dict(minif2f_world["rows"][0])
    assert mf.can_judge(row)
    forged = {**row, "statement_sha256": "0" * 64}
    assert not mf.can_judge(forged) and mf(forged, "x").reward is None
    assert not mf.can_judge({**row, "item": "minif2f:Test/no_such_problem"})


def test_eval_run_refuses_an_archive_the_dataset_never_named(minif2f_world: dict[str, Any],
                                                             tmp_path: Path) -> None:
    from network.trainer.pipeline import eval_run

    other = tmp_path / "other.tar.gz"
    other.write_bytes(b"not the archive")
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(LemmataError) as exc:
        eval_run(minif2f_world["ds"], minif2f_world["graph"], tmp_path / "base", run,
                 Budget(samples=1), toolchain=RecordedToolchain, sandbox=Sandbox(),
                 history=tmp_path / "h.json", sealed=("minif2f-test",), minif2f=(other,))
    assert exc.value.code == "trainer-source-malformed"  # before the (missing) admission
    from tests.trainer_support import MINIF2F

    with pytest.raises(LemmataError) as exc:  # the dataset's own archive passes that check
        eval_run(minif2f_world["ds"], minif2f_world["graph"], tmp_path / "base", run,
                 Budget(samples=1), toolchain=RecordedToolchain, sandbox=Sandbox(),
                 history=tmp_path / "h.json", sealed=("minif2f-test",), minif2f=(MINIF2F,))
    assert exc.value.code == "trainer-policy-not-admitted"
