"""The site's trainer status page (issue 14, "Status"; seed 004): ``lemmata site build
--trainer-history PATH`` renders ``trainer.html`` from one history.json. Loss is labelled
loss and never a rate; every pass rate names its k and budget, beside the base control;
a run with only a loss says it measured no learning; a history that mislabels either is
refused before anything is written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from network.errors import LemmataError
from network.site.linkcheck import check_links
from network.trainer import history as H
from tests.site_support import REPO, build, require_dot
from tests.sitegraph import build_rich_graph

HW = {"device": "cpu", "cpus": 2, "machine": "x86_64", "python": "3.11.9",
      "torch": "2.13.0+cpu"}
BUDGET = "2 samples/item, 16 tokens/sample, 8 verification calls"


def _history(path: Path) -> Path:
    doc = H.empty()
    ident = {"base_model": {"name": "tiny", "revision": "sha256:" + "ab" * 32},
             "data": {"graph_commit": "c0ffee" * 6}, "lora": {"r": 4}, "seed": 7}
    H.add_loss(doc, "run-a" * 4, hardware=HW, identity=ident,
               points=[(1, 5.5671), (2, 5.5444)])
    for cond, value in (("policy", 0.25), ("base", 0.0)):
        s = H.pass_rate_series(doc, "run-a" * 4, kind="sft", hardware=HW, condition=cond,
                               metric="pass@1", k=1, budget=BUDGET,
                               label=f"pass rate pass@1 (k=1; {BUDGET})")
        s["points"].append([2, value, 0.0, 0.5])
    H.add_loss(doc, "run-b" * 4, hardware=HW, identity=None, points=[(1, 4.0)])
    H.add_loss(doc, "run-c" * 4, hardware=HW, identity=None, kind="grpo",
               points=[(1, -0.0758)])
    H.add_reward(doc, "run-c" * 4, hardware=HW, k=2, budget="2 completions/prompt",
                 points=[(1, 0.625), (2, None)])
    H.event(doc, "run-a" * 4, "admitted", changed=1, probes=3)
    H.save(path, doc)
    return path


@pytest.fixture()
def graph(tmp_path: Path) -> Path:
    require_dot()
    g = tmp_path / "graph"
    build_rich_graph(g)
    return g


def test_the_page_labels_loss_as_loss_and_rates_with_k_and_budget(graph: Path,
                                                                  tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(graph, out, trainer_history=_history(tmp_path / "history.json"))
    html = (out / "trainer.html").read_text("utf-8")
    text = re.sub(r"<[^>]+>", " ", html)
    assert "policy: loss (not a pass rate)" in " ".join(text.split())
    assert "5.5671" in html and "5.5444" in html
    assert html.count(f"budget: {BUDGET}") == 2 and "Pass rate with k = 1" in html
    assert "the untrained base: the control" in html
    assert "[0.000, 0.500]" in html
    # the loss-only run says so; no loss is ever put in a pass-rate table
    assert "No pass rate was measured for this run" in html
    for table in re.findall(r'<table class="trainer-rates">.*?</table>', html, re.DOTALL):
        assert "5.5" not in table and "4.000" not in table
    assert "Identity: base model <code>tiny</code>" in html and "admitted" in html
    # a GRPO run's reward is labelled reward, with k and budget, in its own table
    assert "Run <code>run-crun-cru</code> (grpo)" in html
    [reward] = re.findall(r'<table class="trainer-reward">.*?</table>', html, re.DOTALL)
    assert "0.625" in reward and "not judged" in reward and "Reward (k = 2)" in reward
    assert "reward: rate of gate passes among judged completions (k=2; 2 completions/prompt)" \
        in html and "accuracy" not in html.lower()
    for table in re.findall(r'<table class="trainer-rates">.*?</table>', html, re.DOTALL):
        assert "0.625" not in table
    assert check_links(out) == []


def test_without_a_history_there_is_no_page(graph: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(graph, out)
    assert not (out / "trainer.html").exists()


def test_a_history_that_dresses_loss_as_a_rate_is_refused(graph: Path, tmp_path: Path) -> None:
    path = _history(tmp_path / "history.json")
    doc = json.loads(path.read_text())
    doc["runs"]["run-a" * 4]["conditions"]["policy"]["series"]["loss"]["label"] = "pass rate"
    path.write_text(json.dumps(doc))
    with pytest.raises(LemmataError) as e:
        build(graph, tmp_path / "site", trainer_history=path)
    assert e.value.code == "trainer-history-malformed"
    assert not list((tmp_path / "site").rglob("*.html"))  # refused before any page
    doc["runs"]["run-a" * 4]["conditions"]["policy"]["series"]["loss"]["label"] = "loss"
    doc["runs"]["run-a" * 4]["conditions"]["base"]["series"]["pass@1"]["budget"] = None
    path.write_text(json.dumps(doc))  # a pass rate without its budget
    with pytest.raises(LemmataError) as e:
        build(graph, tmp_path / "site2", trainer_history=path)
    assert e.value.code == "trainer-history-malformed"


def test_the_cli_takes_the_history(graph: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "network.cli", "site", "build", str(graph),
                          str(out), "--trainer-history", str(_history(tmp_path / "h.json"))],
                         capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    assert "Trainer status" in (out / "trainer.html").read_text("utf-8")
