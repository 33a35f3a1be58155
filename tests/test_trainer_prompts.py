"""The prompt contract (issue 14; seed 000 "Raw trace focus can leak the action"): rendered
from the node bundle the service serves, nothing known only after the action in it, the
D-12 v3.44 hole grammar for partials, repair from structured diagnostics only."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from network.api.app import create_app
from network.api.settings import ServiceSettings
from network.errors import LemmataError
from network.gate.artifacts import partial_label_findings
from network.record import models as m
from network.record.read.loader import load_graph
from network.trainer.prompts import (
    PROMPT_CONTRACT,
    TASKS,
    bundle_from_graph,
    diagnostics_of,
    prompt_input,
    render,
)
from tests.api_support import FakeClock, github_verifier
from tests.graphs import BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID
from tests.trainer_support import SECRET_TACTIC, build_trainer_graph


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("tp")
    _, sha = build_trainer_graph(base / "graph")
    app = create_app(ServiceSettings(data_dir=base / "data", graph=base / "graph"),
                     github_verifier=github_verifier, clock=FakeClock(),
                     keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
    with TestClient(app) as client:
        r = client.get("/targets/calib/nodes/root")
        assert r.status_code == 200, r.text
        yield {"bundle": r.json(), "graph": load_graph(base / "graph", commit=sha)}


def test_the_served_bundle_and_the_graph_render_the_same_prompts(served: dict[str, Any]
                                                                  ) -> None:
    mine = bundle_from_graph(served["graph"], "calib", "root")
    for task in ("proof", "partial"):
        assert render(served["bundle"], task) == render(mine, task)
    assert render(mine, "proof").startswith(f"[lemmata {PROMPT_CONTRACT} task=proof]\n")


def test_nothing_known_only_after_the_action_reaches_the_prompt(served: dict[str, Any]
                                                                ) -> None:
    """The served bundle of a proved node carries its Proof.lean, its alternate, its
    postmortem, its status and its product row; none of it is in any prompt."""
    bundle = served["bundle"]
    assert SECRET_TACTIC in bundle["files"]["Proof"]["text"]  # the bundle does hold it
    assert bundle["state"]["status"] == "proved"
    graph = served["graph"]
    atts = [rf for rf in graph.attestations if rf.record.node == "root"
            and rf.record.target == "calib"]
    for task in ("proof", "partial"):
        text = render(bundle, task)
        assert SECRET_TACTIC not in text and "norm_num" not in text
        assert "proved" not in text and "postmortem" not in text
        for rf in atts:
            assert rf.path not in text and rf.sha256 not in text
            assert rf.record.signature is not None
            assert rf.record.signature.value not in text
        for f in bundle["files"].values():
            if f["path"].endswith("/Statement.lean"):
                continue
            assert f["sha256"] not in text


def _scramble(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _scramble(v) for k, v in obj.items()} | {"leak": "LEAKED"}
    if isinstance(obj, list):
        return [_scramble(v) for v in obj] + ["LEAKED"]
    if isinstance(obj, str):
        return obj + " LEAKED"
    return obj


def test_every_field_but_the_pre_action_ones_is_unread(served: dict[str, Any]) -> None:
    """Every bundle field outside target, node, META's declaration and deps and
    Statement.lean's text is scrambled (proof, attestation, closure, state, claims,
    attempts, product row, prose, the rest of META): every prompt is unchanged."""
    bundle = served["bundle"]
    keep = {"target", "node", "meta", "files"}
    mutated = {k: (copy.deepcopy(v) if k in keep else _scramble(v)) for k, v in bundle.items()}
    mutated |= {"closure": "LEAKED", "attestation": "LEAKED"}
    mutated["meta"] = {k: (v if k in ("declaration", "deps") else _scramble(v))
                       for k, v in bundle["meta"].items()} | {"lemmas": ["LEAKED"]}
    mutated["files"] = {"Statement": {"text": bundle["files"]["Statement"]["text"],
                                      "path": "LEAKED", "sha256": "LEAKED"},
                        "Proof": {"text": "LEAKED", "path": "LEAKED", "sha256": "LEAKED"},
                        "Context": {"text": "LEAKED", "path": "x", "sha256": "y"}}
    for task in ("proof", "partial"):
        assert render(mutated, task) == render(bundle, task)
        assert "LEAKED" not in render(mutated, task)


def test_the_partial_task_states_the_gates_hole_grammar(served: dict[str, Any]) -> None:
    text = render(served["bundle"], "partial")
    for line in ("-- approach:", "-- licence:", "-- label:", "-- claim: $"):
        assert line in text
    # the grammar it teaches is the one the gate reads: an answer written to it passes
    answer = ("-- approach: split the sum\n-- licence: CC-BY-4.0\n"
              "theorem Calib.main : 2 + 2 = 4 := by\n"
              "  -- label: two and two\n  -- claim: $2 + 2 = 4$\n"
              "  have h₁ : 2 + 2 = 4 := sorry\n  exact h₁\n")
    assert partial_label_findings(answer, "x.lean", [6]) == []
    assert partial_label_findings(answer.replace("  -- claim: $2 + 2 = 4$\n", ""), "x.lean",
                                  [5])  # and one missing a line does not


def test_repair_shows_codes_and_the_contributors_own_text_only() -> None:
    steps = [m.StepRecord(step=3, name="build", ok=False, code="lean-build-failed",
                          diagnostics=[{"code": "lean-build-failed", "line": 4,
                                        "message": "unknown identifier 'gate_only_text'"}]),
             m.StepRecord(step=2, name="paths", ok=True)]
    diags = diagnostics_of(steps)
    assert [(d.step, d.code, d.line) for d in diags] == [(3, "lean-build-failed", 4)]
    assert diagnostics_of([s.model_dump() for s in steps]) == diags
    bundle = {"target": "t", "node": "n", "meta": {"declaration": "T.n", "deps": ["a"]},
              "files": {"Statement": {"text": "theorem T.n : True := by\n  sorry\n"}}}
    text = render(bundle, "repair", attempt="theorem T.n : True := by\n  my_try\n",
                  diagnostics=diags)
    assert "my_try" in text and "step 3: lean-build-failed (line 4)" in text
    assert "gate_only_text" not in text and "Declared dependencies: a" in text


@pytest.mark.parametrize("broken", [
    {},
    {"target": "t", "node": "n", "meta": {"declaration": "T.n"}, "files": {}},
    {"target": "t", "node": "n", "meta": {}, "files": {"Statement": {"text": "x"}}},
    {"target": "t", "node": "n", "meta": {"declaration": "T.n", "deps": [1]},
     "files": {"Statement": {"text": "x"}}},
])
def test_an_incomplete_bundle_is_refused(broken: dict[str, Any]) -> None:
    with pytest.raises(LemmataError) as err:
        prompt_input(broken)
    assert err.value.code == "trainer-bundle-incomplete"


def test_an_unknown_task_or_a_repair_without_its_attempt_is_refused() -> None:
    bundle = {"target": "t", "node": "n", "meta": {"declaration": "T.n"},
              "files": {"Statement": {"text": "theorem T.n : True := sorry\n"}}}
    assert set(TASKS) == {"proof", "partial", "repair"}
    for task, kw in (("proof-and-more", {}), ("repair", {})):
        with pytest.raises(LemmataError) as err:
            render(bundle, task, **kw)
        assert err.value.code == "trainer-task-unknown"
    json.dumps(render(bundle, "proof"))  # plain text
