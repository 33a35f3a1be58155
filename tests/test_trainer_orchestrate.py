"""Expert iteration (issue 14, "Ray orchestration"): sample → verify → SFT on new passes.

The loop's logic runs here without Ray, on :class:`LocalExecutor` (the same interface as
:class:`RayExecutor`). The verification pool is the gate in-process
(:class:`~network.trainer.evaluate.GraphVerifier` over tests/api_flow_support's graph,
the recorded stand-in judging): PROOF_MID passes demo/mid; the statement itself (sorry)
and a user axiom score 0; a text the stand-in has no recording of is ``toolchain-missing``
and never a pass. Engines and the trainer are doubles here (tests/trainer_doubles.py);
the integration test at the end runs the real tiny model's SFT and admission in Ray
actors (``ray.init(num_cpus=2)``), skipped where ray is not installed.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

import pygit2
import pytest

from network.errors import LemmataError
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph
from network.trainer import history as H
from network.trainer.dataset import verify_dataset
from network.trainer.engines import files_sha256
from network.trainer.evaluate import GraphVerifier
from network.trainer.orchestrate import (
    IterationConfig,
    LocalExecutor,
    RolloutWorker,
    derived_dataset,
    expert_iteration,
    statement_row,
)
from network.trainer.prompts import bundle_from_graph
from tests.api_flow_support import PROOF_MID, build_flow_graph
from tests.trainer_doubles import VersionedEngine

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

SORRY = "theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  sorry\n"
AXIOM = "axiom cheat : False\ntheorem Demo.p : False := cheat\n"
UNRECORDED = PROOF_MID + "-- a comment the stand-in has no recording of\n"


class FakeTrainer:
    """Writes an adapter folder holding the passes it was given; records each call."""

    calls: ClassVar[list[list[dict[str, Any]]]] = []

    def __init__(self, work: str) -> None:
        self.work = Path(work)

    def train(self, round_: int, passes: list[dict[str, Any]]) -> dict[str, Any]:
        FakeTrainer.calls.append(list(passes))
        out = self.work / f"round-{round_}" / "adapter"
        out.mkdir(parents=True)
        (out / "passes.json").write_text(json.dumps([p["text"] for p in passes]))
        return {"version": round_, "adapter_dir": str(out), "adapter_sha256": files_sha256(out),
                "run_id": f"fake-{round_}", "identity": None, "losses": [[1, 0.5]],
                "admission": {"changed": 1, "probes": 3}}


def _verifier(graph: Path, commit: str) -> GraphVerifier:
    return GraphVerifier(graph, commit, RecordedToolchain, Sandbox())


def _setup(tmp: Path) -> tuple[Path, str, list[dict[str, Any]]]:
    graph = build_flow_graph(tmp / "graph")
    commit = str(pygit2.Repository(str(graph)).head.target)
    g = load_graph(graph, commit=commit)
    rows = [statement_row(bundle_from_graph(g, "demo", n), item=f"graph:demo/{n}")
            for n in ("mid", "p")]
    return graph, commit, rows


def _run(tmp: Path, answers: dict[int, dict[tuple[str, str], str]], *, stale: bool = False,
         **cfg: Any) -> tuple[list[Any], Path]:
    graph, commit, rows = _setup(tmp)
    FakeTrainer.calls = []
    history = tmp / "history.json"
    recs = expert_iteration(
        LocalExecutor(), rows,
        engine_factory=lambda: VersionedEngine(answers, stale=stale),
        verifier_factory=lambda: _verifier(graph, commit),
        trainer=(FakeTrainer, (str(tmp / "work"),)),
        config=IterationConfig(**{"rounds": 2, "samples": 2, "temperature": 0.0, **cfg}),
        history=history)
    return recs, history


def test_new_passes_train_once_and_every_worker_serves_the_new_version(tmp_path: Path) -> None:
    answers = {0: {("demo", "mid"): PROOF_MID, ("demo", "p"): AXIOM},
               1: {("demo", "mid"): PROOF_MID, ("demo", "p"): AXIOM}}
    (r1, r2), history = _run(tmp_path, answers, rollout_workers=2, verify_workers=2)
    assert (r1.candidates, r1.judged, r1.passes, r1.new_passes) == (4, 4, 2, 1)
    assert r1.items_solved == 1 and r1.items == 2
    assert r1.trained is not None and r1.trained["version"] == 1
    assert sum(r1.failures.values()) == 2 and all("step" in k for k in r1.failures)
    # round 2 samples from v1; the same pass is not new, so nothing trains again
    assert r2.served_version == 1 and r2.new_passes == 0 and r2.trained is None
    assert len(FakeTrainer.calls) == 1
    [[p]] = FakeTrainer.calls
    assert p["text"] == PROOF_MID and p["reward"] == 1.0 and p["row"]["item"] == "graph:demo/mid"
    doc = H.load(history)
    H.check(doc)
    [ei] = [r for r in doc["runs"].values() if r["kind"] == "expert-iteration"]
    [s] = ei["conditions"]["rollout"]["series"].values()
    assert s["kind"] == "pass-rate" and s["k"] == 2 and "verification calls" in s["budget"]
    assert [pt[1] for pt in s["points"]] == [0.5, 0.5]
    assert doc["runs"]["fake-1"]["conditions"]["policy"]["series"]["loss"]["label"] == "loss"
    assert [e["event"] for e in doc["events"]] == ["round", "round"]


def test_sorry_an_axiom_and_an_unjudged_text_never_train(tmp_path: Path) -> None:
    answers = {0: {("demo", "mid"): SORRY, ("demo", "p"): AXIOM}}
    (r1, _r2), _ = _run(tmp_path, answers)
    # the axiom is refused at step 2; the sorry needs Lean to see it, and the stand-in
    # has no recording of it: toolchain-missing, not judged, never a pass
    assert r1.passes == 0 and r1.trained is None
    assert r1.failures == {"step 2: axiom-declared": 2} and r1.not_judged == 2
    assert FakeTrainer.calls == []
    (u1, _u2), _ = _run(tmp_path / "u", {0: {("demo", "mid"): UNRECORDED}})
    assert u1.not_judged == 2 and u1.passes == 0 and u1.trained is None  # None is no pass
    assert FakeTrainer.calls == []


def test_candidates_past_the_verification_budget_are_not_judged(tmp_path: Path) -> None:
    answers = {0: {("demo", "mid"): PROOF_MID, ("demo", "p"): AXIOM}}
    (r1,), _ = _run(tmp_path, answers, rounds=1, verification_calls=1)
    assert r1.judged == 2 and r1.budget_exhausted == 2  # two distinct texts, one call


def test_a_sync_that_leaves_the_old_adapter_serving_is_refused(tmp_path: Path) -> None:
    answers = {0: {("demo", "mid"): PROOF_MID}}
    with pytest.raises(LemmataError) as e:
        _run(tmp_path, answers, stale=True)
    assert e.value.code == "trainer-adapter-sync-failed"


def test_held_out_items_never_enter_the_loop_or_the_training_set(tmp_path: Path) -> None:
    from tests.trainer_support import compiled_dataset

    graph, commit, rows = _setup(tmp_path)
    sealed_row = {**rows[0], "split": "sealed"}
    with pytest.raises(LemmataError) as e:
        expert_iteration(LocalExecutor(), [sealed_row],
                         engine_factory=lambda: VersionedEngine({}),
                         verifier_factory=lambda: _verifier(graph, commit),
                         trainer=(FakeTrainer, (str(tmp_path / "w"),)),
                         config=IterationConfig(rounds=1))
    assert e.value.code == "trainer-split-contaminated"
    _g, ds, _sha = compiled_dataset(tmp_path / "src")
    man = verify_dataset(ds)
    sealed_item = man["split"]["sealed"][0]
    forged = {"row": {**rows[0], "item": sealed_item}, "text": PROOF_MID}  # says train
    with pytest.raises(LemmataError) as e:
        derived_dataset(ds, tmp_path / "d1", [forged], round_=1)
    assert e.value.code == "trainer-split-contaminated"
    ok = derived_dataset(ds, tmp_path / "d2", [{"row": rows[0], "text": PROOF_MID}], round_=1)
    got = verify_dataset(ok)
    assert got["derived"]["round"] == 1 and len(got["derived"]["passes"]) == 1
    new = [json.loads(x) for x in (ok / "sft.jsonl").read_text().splitlines()
           if json.loads(x).get("origin") == "expert-iteration"]
    assert [r["completion"] for r in new] == [PROOF_MID] and new[0]["split"] == "train"


def test_a_budget_below_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LemmataError) as e:
        _run(tmp_path, {}, samples=0)
    assert e.value.code == "trainer-config-invalid"


# --- the integration test: Ray actors, the real tiny model's SFT and admission ----------


def _tiny_engine(base: str) -> Any:
    from network.trainer.engines import HFEngine

    return HFEngine(base)


class _TinyThenRecorded:
    """The tiny model's engine, but round 1's sample for demo/mid is the recorded pass (a
    stand-in for a policy that finds it), so the real SFT, admission and sync run."""

    def __init__(self, base: str) -> None:
        from network.trainer.engines import HFEngine

        self.hf = HFEngine(base)

    def serving(self) -> Any:
        return self.hf.serving()

    def sync(self, adapter_dir: Any, version: int) -> Any:
        return self.hf.sync(adapter_dir, version)

    def generate(self, prompts: Any, **kw: Any) -> Any:
        got = self.hf.generate(prompts, **kw)
        if self.hf.serving().version is None:
            from network.trainer.engines import Generation

            got = [[Generation(PROOF_MID, 40)] * len(g) if "Node: mid" in p else g
                   for p, g in zip(prompts, got, strict=True)]
        return got


@pytest.mark.slow
def test_expert_iteration_on_ray_actors(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from network.trainer.orchestrate import RayExecutor, TrainerWorker
    from network.trainer.sft import LoraSettings, SFTConfig
    from tests.trainer_support import compiled_dataset, tiny_base

    graph, commit, rows = _setup(tmp_path)
    _g, ds, _sha = compiled_dataset(tmp_path / "src")
    base = tiny_base(tmp_path / "base")
    root = str(Path(__file__).resolve().parents[1])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {
                 "PYTHONPATH": os.pathsep.join([root, str(Path(__file__).parent)]),
                 "HF_HUB_OFFLINE": "1"}})
    try:
        recs = expert_iteration(
            RayExecutor(num_cpus=0.5), rows,
            engine_factory=functools.partial(_TinyThenRecorded, str(base)),
            verifier_factory=functools.partial(_verifier, graph, commit),
            trainer=(TrainerWorker, (str(base), str(ds), str(tmp_path / "work"),
                                     SFTConfig(steps=2, max_length=256, tasks=("proof",),
                                               learning_rate=1e-2,
                                               lora=LoraSettings(r=4, alpha=8)))),
            config=IterationConfig(rounds=2, samples=1, max_new_tokens=16, temperature=0.0,
                                   rollout_workers=2, verify_workers=1),
            history=tmp_path / "history.json")
        # a catalog error raised in an actor comes back with its code
        ex = RayExecutor(num_cpus=0.5)
        w = ex.actor(RolloutWorker, functools.partial(_TinyThenRecorded, str(base)))
        with pytest.raises(LemmataError) as e:
            ex.get([ex.call(w, "sync", str(tmp_path / "work" / "round-1" / "run" / "adapter"),
                            0)])
        assert e.value.code == "trainer-adapter-version-stale"
    finally:
        ray.shutdown()
    r1, r2 = recs
    assert r1.new_passes == 1 and r1.trained is not None and r1.trained["version"] == 1
    assert r1.trained["admission"]["changed"] >= 1
    assert r2.served_version == 1 and r2.passes == 0  # the tiny model's own samples fail
    run = tmp_path / "work" / "round-1" / "run"
    assert (run / "admission.json").is_file() and (run / "run.json").is_file()
    H.check(H.load(tmp_path / "history.json"))


# --- the pool from the record: proved nodes, judged as alternates ------------------------


def test_the_record_pool_marks_proved_nodes_and_knows_their_proofs(tmp_path: Path) -> None:
    from network.trainer.orchestrate import record_pool
    from tests.trainer_support import SECRET_TACTIC, compiled_dataset

    _g, ds, _sha = compiled_dataset(tmp_path / "src")
    pool, known = record_pool(ds)
    man = verify_dataset(ds)
    assert pool and all(r["split"] == "train" for r in pool)
    assert not {r["item"] for r in pool} & set(man["split"]["sealed"])
    by_item = {r["item"]: r for r in pool}
    calib = by_item["graph:calib/root"]
    assert calib["judge_as"] == "alternate"
    texts = sorted(k["text"] for k in known if k["row"]["item"] == "graph:calib/root")
    # the merged proof and the verified alternate, both known, from the record
    assert len(texts) == 2 and any(SECRET_TACTIC in t for t in texts)
    assert all(k["origin"] == "record" and k["reward"] == 1.0 for k in known)
    # a node without a verified merged proof is judged as a proof, and knows nothing
    for item, r in by_item.items():
        if "judge_as" not in r:
            assert not [k for k in known if k["row"]["item"] == item]


def test_a_proved_node_is_judged_as_an_alternate_not_a_replacement(tmp_path: Path) -> None:
    """On the gate scenarios' graph aux is proved: a new Proof.lean for it is refused at
    step 2 whatever it holds; judged as an alternate, the gate reads it beside the merged
    proof (a copy of the merged proof is copy-of-merged-proof; a native_decide alternate
    without a signed-off waiver is native-code-used at step 5, a real judgement)."""
    from tests.gate_scenarios import NATIVE_STEP, P_AUX, PROOF_MID, base_repo

    b, base = base_repo(tmp_path / "g")
    g = load_graph(b.root, commit=base)
    judge = _verifier(b.root, base)
    aux = statement_row(bundle_from_graph(g, "demo", "aux"), item="graph:demo/aux")
    as_proof = judge(aux, P_AUX)
    assert as_proof.reward == 0.0 and as_proof.first_failing_step == 2
    alt = {**aux, "judge_as": "alternate"}
    copy = judge(alt, P_AUX)
    assert (copy.reward, copy.code) == (0.0, "copy-of-merged-proof")
    native = P_AUX.replace("simp", NATIVE_STEP.replace("1 + 1 = 2", "0 + 0 = 0") + "simp")
    got = judge(alt, native)
    assert (got.reward, got.first_failing_step, got.code) == (0.0, 5, "native-code-used")
    mid = statement_row(bundle_from_graph(g, "demo", "mid"), item="graph:demo/mid")
    assert judge(mid, PROOF_MID).reward == 1.0  # an open node is still judged as a proof
    assert judge({**mid, "judge_as": "partial"}, PROOF_MID).reward == 0.0  # no other kinds


class _AlternateJudge:
    """A verifier double: passes ``NEW_ALT`` only when asked to judge it as an alternate,
    and records what it was asked (the real gate's alternate path is tested above)."""

    asked: ClassVar[list[tuple[str, str | None]]] = []

    def can_judge(self, row: Any) -> bool:
        return True

    def __call__(self, row: Any, text: str) -> Any:
        from network.trainer.reward import Reward

        _AlternateJudge.asked.append((text, row.get("judge_as")))
        if text == NEW_ALT and row.get("judge_as") == "alternate":
            return Reward(1.0, "pass", None, None, ())
        return Reward(0.0, "fail", 2, "copy-of-merged-proof", ())


NEW_ALT = "theorem Calib.main : 2 + 2 = 4 := by\n  decide\n"


def test_expert_iteration_on_the_record_pool_trains_alternates_beside_the_proof(
        tmp_path: Path) -> None:
    from network.trainer.orchestrate import record_pool
    from tests.trainer_support import SECRET_TACTIC, compiled_dataset

    _g, ds, _sha = compiled_dataset(tmp_path / "src")
    pool, known = record_pool(ds)
    merged = next(k["text"] for k in known if SECRET_TACTIC in k["text"])
    FakeTrainer.calls, _AlternateJudge.asked = [], []
    answers = {0: {("calib", "root"): merged}, 1: {("calib", "root"): NEW_ALT}}
    rows = [r for r in pool if r["item"] == "graph:calib/root"]
    # round 1 samples the merged proof again: known, not new, nothing trains
    (r1,) = expert_iteration(LocalExecutor(), rows,
                             engine_factory=lambda: VersionedEngine(answers),
                             verifier_factory=_AlternateJudge,
                             trainer=(FakeTrainer, (str(tmp_path / "w1"),)),
                             config=IterationConfig(rounds=1, samples=1), known=known)
    assert r1.new_passes == 0 and r1.trained is None and FakeTrainer.calls == []
    # a policy at v1 samples a new alternate: judged as one, and it alone trains
    answers[0] = answers[1]
    (r2,) = expert_iteration(LocalExecutor(), rows,
                             engine_factory=lambda: VersionedEngine(answers),
                             verifier_factory=_AlternateJudge,
                             trainer=(FakeTrainer, (str(tmp_path / "w2"),)),
                             config=IterationConfig(rounds=1, samples=1), known=known)
    assert r2.new_passes == 1 and r2.trained is not None
    assert {j for _t, j in _AlternateJudge.asked} == {"alternate"}
    [[p]] = FakeTrainer.calls  # the record's positives are not handed over again
    assert p["text"] == NEW_ALT
    # the round's dataset keeps the merged proof and adds the alternate beside it
    d = derived_dataset(ds, tmp_path / "d", [p], round_=1)
    sft = [json.loads(x) for x in (d / "sft.jsonl").read_text().splitlines()]
    root = [r for r in sft if r["item"] == "graph:calib/root" and r["task"] == "proof"]
    assert any(SECRET_TACTIC in r["completion"] for r in root)
    [new] = [r for r in root if r.get("origin") == "expert-iteration"]
    assert new["completion"] == NEW_ALT and new["artifact_kind"] == "alternate"


@pytest.mark.slow
def test_the_iterate_path_runs_on_the_record_pool(tmp_path: Path) -> None:
    """``lemmata trainer iterate``'s function: the record pool, the tiny model sampling,
    the gate judging at the dataset's commit (the stand-in). The random model finds
    nothing, so nothing trains; every candidate is counted once as judged or not."""
    from network.trainer.orchestrate import record_pool
    from network.trainer.pipeline import iterate
    from network.trainer.sft import SFTConfig
    from tests.trainer_support import compiled_dataset, tiny_base

    graph, ds, _sha = compiled_dataset(tmp_path / "src")
    base = tiny_base(tmp_path / "base")
    pool, _known = record_pool(ds)
    (r1,) = iterate(ds, graph, base, tmp_path / "work",
                    IterationConfig(rounds=1, samples=1, max_new_tokens=4, temperature=0.0),
                    SFTConfig(steps=1), toolchain=RecordedToolchain, sandbox=Sandbox(),
                    history=tmp_path / "history.json")
    assert r1.items == len(pool) and r1.candidates == len(pool)
    assert r1.passes == 0 and r1.trained is None
    assert r1.judged + r1.not_judged + r1.budget_exhausted == r1.candidates
    doc = H.load(tmp_path / "history.json")
    assert [e["event"] for e in doc["events"]] == ["round"]
