"""GRPO (issue 14, "Training"): TRL's GRPOTrainer with a LoRA adapter, the gate's verdict as
the binary reward (seed 004). The reward function TRL calls is judged here with the
recorded stand-in over the gate scenarios' graph: PROOF_MID passes demo/mid; a `sorry`,
a user axiom and an echoed answer(…) score 0; bytes the stand-in never saw are None
(nothing judged), never a pass. Two short runs on the tiny model show the reward is what
moves the adapter: a group holding a pass changes it, a group of refusals leaves it as it
was. No test reaches a hub (HF_HUB_OFFLINE=1); skipped where trl is not installed."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import sys
from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph
from network.trainer.evaluate import GraphVerifier
from network.trainer.grpo import GateRewardFunc, GRPOSettings, run_grpo
from network.trainer.orchestrate import statement_row
from network.trainer.prompts import bundle_from_graph
from network.trainer.reward import Reward, gate_reward
from network.trainer.sft import LoraSettings
from tests.gate_scenarios import PROOF_MID, T, base_repo

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain
from test_questions import ECHO_STMT, _variant

SORRY = PROOF_MID.replace("simpa using Demo.base_lemma n", "sorry")
AXIOM = "axiom Demo.cheat : False\n\n" + PROOF_MID
UNRECORDED = PROOF_MID + "-- a policy's sample\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("grpo")
    b, base = base_repo(root / "g")
    graph = load_graph(b.root, commit=base)
    row = statement_row(bundle_from_graph(graph, T, "mid"), item=f"graph:{T}/mid")
    return {"root": root, "repo": b.root, "commit": base, "row": row,
            "judge": GraphVerifier(b.root, base, RecordedToolchain, Sandbox())}


def _reward(judge: Any, row: dict[str, Any], texts: list[str]) -> tuple[list[Any], Any]:
    f = GateRewardFunc(judge)
    got = f([row["prompt"]] * len(texts), texts, item=[row["item"]] * len(texts),
            row_id=[row["id"]] * len(texts))
    return got, f.tally


def test_the_reward_is_the_gate_verdict(world: dict[str, Any]) -> None:
    got, tally = _reward(world["judge"], world["row"], [PROOF_MID, SORRY, AXIOM, UNRECORDED])
    assert got == [1.0, 0.0, 0.0, None]
    assert tally == {"pass": 1, "fail 5:sorry-used": 1, "fail 2:axiom-declared": 1,
                     "not-judged toolchain-missing": 1}
    # a row the verifier has no node for is not judged (None), whatever the text
    other = {**world["row"], "item": "minif2f:Test/x"}
    assert _reward(world["judge"], other, [PROOF_MID])[0] == [None]


def test_an_echoed_answer_scores_zero_through_the_same_function(world: dict[str, Any]) -> None:
    """Formal Conjectures #4923: a variant whose answer(…) restates its other side. The
    completion is the variant's Statement.lean; the gate refuses it at step 6."""
    files = {p: (d.decode() if isinstance(d, bytes) else d)
             for p, d in _variant("v", "Demo.v", ECHO_STMT).items() if d is not None}
    stmt_path = next(p for p in files if p.endswith("/Statement.lean"))

    class VariantJudge:
        def can_judge(self, row: Any) -> bool:
            return True

        def __call__(self, row: Any, text: str) -> Reward:
            return gate_reward(world["repo"], world["commit"], {**files, stmt_path: text},
                               target=T, node="v", toolchain=RecordedToolchain,
                               sandbox=Sandbox(), submitter="alice")

    row = {**world["row"], "item": f"graph:{T}/v"}
    got, tally = _reward(VariantJudge(), row, [ECHO_STMT])
    assert got == [0.0] and tally == {"fail 6:answer-restates-target": 1}


def _scripted(texts: list[str]) -> Any:
    """A rollout_func (TRL's generation backend hook) answering each prompt slot with
    ``texts[slot % len(texts)]``: a stand-in for a policy that finds (or misses) the
    proof, so the real GRPO step runs on a judged group."""

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        tok = trainer.processing_class
        p_ids = [tok(str(p), add_special_tokens=False)["input_ids"] for p in prompts]
        c_ids = []
        for i in range(len(prompts)):
            ids = tok(texts[i % len(texts)], add_special_tokens=False)["input_ids"]
            assert tok.decode(ids, skip_special_tokens=True) == texts[i % len(texts)]
            c_ids.append(ids + [tok.eos_token_id])
        return {"prompt_ids": p_ids, "completion_ids": c_ids, "logprobs": None}

    return rollout


SETTINGS = GRPOSettings(steps=1, num_generations=2, max_completion_length=8,
                        learning_rate=1e-2, lora=LoraSettings(r=4, alpha=8,
                                                              target_modules=("q_proj",)))


@pytest.mark.slow
def test_a_rewarded_completion_moves_the_adapter_and_refusals_do_not(
        world: dict[str, Any]) -> None:
    pytest.importorskip("trl")
    from tests.trainer_support import tiny_base

    base = tiny_base(world["root"] / "base")
    paid = run_grpo([world["row"]], base, world["root"] / "paid", SETTINGS, world["judge"],
                    rollout_func=_scripted([PROOF_MID, SORRY]))
    assert paid.verdicts == {"pass": 1, "fail 5:sorry-used": 1}
    assert paid.adapter_sha256 != paid.initial_sha256  # the pass moved the adapter
    assert [s["reward"] for s in paid.steps] == [0.5]
    # the saved adapter is what trained: an engine syncs it and holds the same tensors
    from network.trainer.engines import HFEngine

    eng = HFEngine(base)
    assert eng.sync(paid.adapter_dir, 1).adapter_sha256 == paid.adapter_sha256
    # the same run with every completion refused: no advantage, so nothing moves
    unpaid = run_grpo([world["row"]], base, world["root"] / "unpaid", SETTINGS,
                      world["judge"], rollout_func=_scripted([SORRY, AXIOM]))
    assert unpaid.verdicts == {"fail 2:axiom-declared": 1, "fail 5:sorry-used": 1}
    assert unpaid.adapter_sha256 == unpaid.initial_sha256
    assert unpaid.identity["run_id"] == paid.identity["run_id"]  # same settings, pool, base
    # TRL's own generation (no rollout_func): the tiny model's text is nothing the stand-in
    # judged (not judged: toolchain-missing), or junk step 2 refuses with no Lean (a hidden
    # character, issue 37); nothing passes, so no reward is paid and the adapter does not
    # move either
    own = run_grpo([world["row"]], base, world["root"] / "own", SETTINGS, world["judge"])
    assert own.verdicts and all(v == "not-judged toolchain-missing" or v.startswith("fail 2:")
                                for v in own.verdicts), own.verdicts
    assert own.adapter_sha256 == own.initial_sha256
    assert all(s["reward"] in (None, 0.0) for s in own.steps)


def test_a_held_out_pool_and_bad_settings_are_refused(world: dict[str, Any],
                                                      tmp_path: Path) -> None:
    sealed = {**world["row"], "split": "sealed"}
    with pytest.raises(LemmataError) as e:
        run_grpo([sealed], tmp_path / "no-base", tmp_path / "r", SETTINGS, world["judge"])
    assert e.value.code == "trainer-split-contaminated" and not (tmp_path / "r").exists()
    for bad in (GRPOSettings(num_generations=1), GRPOSettings(steps=0),
                GRPOSettings(learning_rate=0.0)):
        with pytest.raises(LemmataError) as e:
            run_grpo([world["row"]], tmp_path / "no-base", tmp_path / "r", bad, world["judge"])
        assert e.value.code == "trainer-config-invalid"
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "notes.txt").write_text("mine")
    from tests.trainer_support import tiny_base

    base = tiny_base(tmp_path / "base")
    with pytest.raises(LemmataError) as e:
        run_grpo([world["row"]], base, tmp_path / "r", SETTINGS, world["judge"])
    assert e.value.code == "trainer-out-not-empty"
