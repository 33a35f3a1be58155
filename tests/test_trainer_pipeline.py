"""The trainer end to end on CPU (issue 14, "Done when" 1-4) and its status (one
history.json: series per run and condition, events, hardware; loss labelled loss, pass
rates with their k and budget). The judge is the recorded stand-in toolchain; no test
reaches a hub (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.gate.sandbox.sandbox import Sandbox
from network.trainer import history as H
from network.trainer.evaluate import Budget
from network.trainer.pipeline import eval_run
from tests.trainer_support import (
    MINIF2F,
    build_trainer_graph,
    random_adapter,
    tiny_base,
)

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain


def _cli(*args: Any) -> Any:
    res = CliRunner().invoke(main, ["trainer", *map(str, args)])
    return res


@pytest.mark.slow
def test_compile_train_admit_evaluate_with_the_base_control(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    build_trainer_graph(graph)
    ds, base, run = tmp_path / "ds", tmp_path / "base", tmp_path / "run"
    # 1. the dataset, from the fixture graph and the miniF2F archive
    res = _cli("compile", graph, ds, "--minif2f", MINIF2F)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["rows"]["sft.jsonl"] > 0
    # 2-3. two SFT steps on the tiny model, then saved-policy admission
    tiny_base(base)
    res = _cli("sft", ds, base, run, "--steps", 2, "--lr", 0.01, "--max-length", 768)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["admitted"] and out["steps"] == 2 and [s for s, _ in out["losses"]] == [1, 2]
    assert (run / "run.json").is_file() and (run / "admission.json").is_file()
    # 4. sealed items, one budget, the policy beside the untrained base
    budget = Budget(samples=1, max_new_tokens=16, verification_calls=8, temperature=1.0)
    rep = eval_run(ds, graph, base, run, budget, toolchain=RecordedToolchain,
                   sandbox=Sandbox(), history=run / "history.json")
    frontier = {json.loads(x)["item"] for x in (ds / "sealed.jsonl").read_text().splitlines()
                if json.loads(x)["sealed"] == "frontier"}
    assert set(rep["conditions"]) == {"base", "policy"} and set(rep["items"]) == frontier
    sealed = {json.loads(x)["item"] for x in (ds / "sealed.jsonl").read_text().splitlines()}
    assert set(rep["items"]) <= sealed
    for name, c in rep["conditions"].items():
        assert len(c["attempts"]) == len(frontier) and c["verification_calls"] == 6, name
        assert all(a["code"] for a in c["attempts"] if a["verdict"] != "pass")
        assert c["rates"]["pass@1"]["k"] == 1
    assert rep["conditions"]["base"]["serving"]["version"] is None
    assert rep["conditions"]["policy"]["serving"]["adapter_sha256"] == \
        json.loads((run / "admission.json").read_text())["adapter_sha256"]
    # the status reads the one history.json
    res = _cli("status", run / "history.json")
    assert res.exit_code == 0, res.output
    assert "policy: loss (not a pass rate): step 1" in res.output
    assert "base: pass rate pass@1 (k=1; 1 samples/item, 16 tokens/sample, 8 verification " \
           "calls)" in res.output
    assert "admitted" in res.output and "evaluated" in res.output and "cpus" in res.output
    # the same run folder refuses another identity (seed 000)
    res = _cli("sft", ds, base, run, "--steps", 3)
    assert res.exit_code == 1 and "trainer-run-identity-mismatch" in res.output
    # an adapter swapped after admission is no admitted policy
    import shutil
    shutil.rmtree(run / "adapter")
    random_adapter(base, run / "adapter", seed=3)
    with pytest.raises(LemmataError) as exc:
        eval_run(ds, graph, base, run, budget, toolchain=RecordedToolchain, sandbox=Sandbox(),
                 history=run / "history.json")
    assert exc.value.code == "trainer-policy-not-admitted"


def test_an_unadmitted_run_is_not_evaluated(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    res = _cli("eval", tmp_path / "ds", tmp_path / "g", tmp_path / "b", tmp_path / "run")
    assert res.exit_code == 1 and "trainer-policy-not-admitted" in res.output


def _doc() -> dict[str, Any]:
    doc = H.empty()
    hw = {"device": "cpu", "cpus": 2, "machine": "x86_64", "torch": "2.13.0+cpu"}
    H.add_loss(doc, "r" * 64, hardware=hw, identity=None, points=[(1, 5.5), (2, 5.25)])
    report = {"budget_label": "2 samples/item", "report_sha256": "0" * 64, "items": ["a"],
              "conditions": {c: {"solved": 0, "rates": {"pass@1": {
                  "label": "pass rate pass@1 (k=1; 2 samples/item)", "k": 1, "value": 0.25,
                  "ci95": [0.0, 0.5]}}} for c in ("base", "policy")}}
    H.add_report(doc, "r" * 64, report, hardware=hw, step=2)
    return doc


def test_status_labels_loss_as_loss_and_rates_with_k_and_budget(tmp_path: Path) -> None:
    H.save(tmp_path / "h.json", _doc())
    text = H.render_status(H.load(tmp_path / "h.json"))
    assert "run rrrrrrrrrrrr (sft) on cpu: 2 cpus, x86_64, torch 2.13.0+cpu" in text
    assert "policy: loss (not a pass rate): step 1 5.5000, step 2 5.2500" in text
    assert "base: pass rate pass@1 (k=1; 2 samples/item): 0.250 [0.000, 0.500] at step 2" in text
    assert H.load(tmp_path / "missing.json") == H.empty()


@pytest.mark.parametrize("forge", ["loss-as-accuracy", "rate-without-k", "rate-without-budget",
                                   "unknown-kind", "not-a-history"])
def test_a_history_that_dresses_loss_up_is_refused(tmp_path: Path, forge: str) -> None:
    doc: Any = _doc()
    conds = doc["runs"]["r" * 64]["conditions"]
    if forge == "loss-as-accuracy":
        conds["policy"]["series"]["loss"]["label"] = "accuracy"
    elif forge == "rate-without-k":
        conds["base"]["series"]["pass@1"]["k"] = None
    elif forge == "rate-without-budget":
        conds["base"]["series"]["pass@1"]["budget"] = ""
    elif forge == "unknown-kind":
        conds["base"]["series"]["pass@1"]["kind"] = "score"
    else:
        doc = {"runs": []}
    (tmp_path / "h.json").write_text(json.dumps(doc))
    with pytest.raises(LemmataError) as exc:
        H.load(tmp_path / "h.json")
    assert exc.value.code == "trainer-history-malformed"
    with pytest.raises(LemmataError):
        H.save(tmp_path / "other.json", doc)
    assert not (tmp_path / "other.json").exists()
    res = _cli("status", tmp_path / "h.json")
    assert res.exit_code == 1 and "trainer-history-malformed" in res.output
