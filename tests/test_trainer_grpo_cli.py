"""``lemmata trainer grpo`` and miniF2F Valid items in expert iteration (issue 14,
"Training", "Ray orchestration", "Status").

* GRPO resumes from its own checkpoint into the same identity only, and its saved adapter
  goes through the same saved-policy admission as SFT's; an adapter GRPO did not move is
  refused as inert. Its history series are labelled loss and reward (with k and budget),
  never accuracy.
* The expert-iteration pool takes the compiled dataset's miniF2F Valid train rows when the
  archive is given; a Test item is sealed and never enters, even when a dataset labels it
  train; a pass on a Valid item trains as a row.

The judge is the recorded stand-in; no test reaches a hub (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.gate.sandbox.sandbox import Sandbox
from network.trainer import history as H
from network.trainer.dataset import canonical_json, sha256_text
from network.trainer.engines import files_sha256
from network.trainer.orchestrate import (
    IterationConfig,
    LocalExecutor,
    derived_dataset,
    expert_iteration,
    record_pool,
)
from network.trainer.reward import Reward
from tests.trainer_doubles import VersionedEngine
from tests.trainer_support import MINIF2F, compiled_dataset

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

HW = {"device": "cpu", "cpus": 2, "machine": "x86_64", "python": "3", "torch": "2"}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("grpo-cli")
    graph, ds, _sha = compiled_dataset(root)
    return {"root": root, "graph": graph, "ds": ds}


def _rows(ds: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (ds / name).read_text("utf-8").splitlines() if x]


# --- the history: reward labelled reward, never accuracy --------------------------------


def test_a_reward_series_is_labelled_reward_with_k_and_budget(tmp_path: Path) -> None:
    doc = H.empty()
    H.add_loss(doc, "g" * 16, hardware=HW, identity=None, kind="grpo", points=[(1, -0.07)])
    H.add_reward(doc, "g" * 16, hardware=HW, k=2, budget="2 completions/prompt",
                 points=[(1, 0.5), (2, None)])
    H.save(tmp_path / "h.json", doc)
    text = H.render_status(H.load(tmp_path / "h.json"))
    assert "run gggggggggggg (grpo)" in text and "policy: loss (not a pass rate)" in text
    assert "reward: rate of gate passes among judged completions (k=2; 2 completions/prompt)" \
        " (not a pass rate): step 1 0.500, step 2 not judged" in text
    assert "accuracy" not in text


@pytest.mark.parametrize("forge", ["reward-as-accuracy", "reward-without-k",
                                   "reward-without-budget", "rate-as-accuracy"])
def test_a_history_calling_a_reward_accuracy_is_refused(tmp_path: Path, forge: str) -> None:
    doc = H.empty()
    H.add_reward(doc, "g" * 16, hardware=HW, k=2, budget="b", points=[(1, 1.0)])
    s = doc["runs"]["g" * 16]["conditions"]["policy"]["series"]["reward"]
    if forge == "reward-as-accuracy":
        s["label"] = "reward accuracy"
    elif forge == "reward-without-k":
        s["k"] = None
    elif forge == "reward-without-budget":
        s["budget"] = ""
    else:
        H.pass_rate_series(doc, "g" * 16, kind="grpo", hardware=HW, condition="policy",
                           metric="pass@1", k=1, budget="b", label="pass accuracy (k=1)")
    with pytest.raises(LemmataError) as exc:
        H.save(tmp_path / "h.json", doc)
    assert exc.value.code == "trainer-history-malformed" and not (tmp_path / "h.json").exists()


# --- miniF2F Valid in the pool; Test never ----------------------------------------------


def test_minif2f_valid_joins_the_pool_only_with_the_archive_and_test_never(
        src: dict[str, Path]) -> None:
    plain, _ = record_pool(src["ds"])
    pool, _ = record_pool(src["ds"], minif2f_valid=True)
    valid = [r for r in pool if r["item"].startswith("minif2f:")]
    assert not any(r["item"].startswith("minif2f:") for r in plain)
    want = {r["item"] for r in _rows(src["ds"], "statements.jsonl")
            if r["source"] == "minif2f-valid" and r["split"] == "train"}
    assert valid and {r["item"] for r in valid} == want
    assert all(r["item"].startswith("minif2f:Valid/") and r["split"] == "train" for r in valid)
    tests = {r["item"] for r in _rows(src["ds"], "sealed.jsonl")
             if r["item"].startswith("minif2f:Test/")}
    assert tests and not tests & {r["item"] for r in pool}


def _forge_test_as_train(ds: Path, out: Path) -> str:
    """Copy ``ds`` with one miniF2F Test row moved into statements.jsonl as ``train``, its
    row digest and the manifest recomputed, so the dataset verifies: only the split rule
    can keep it out."""
    import shutil

    shutil.copytree(ds, out)
    [sealed] = [r for r in _rows(ds, "sealed.jsonl") if r["item"].startswith("minif2f:Test/")][:1]
    row = {k: v for k, v in sealed.items() if k not in ("id", "sealed")}
    row["split"] = "train"
    row["id"] = sha256_text(canonical_json({"kind": "statement", **row}))
    rows = _rows(ds, "statements.jsonl") + [row]
    data = "".join(canonical_json(r) + "\n" for r in rows).encode("utf-8")
    (out / "statements.jsonl").write_bytes(data)
    man = json.loads((out / "manifest.json").read_text("utf-8"))
    man["files"]["statements.jsonl"] = {"sha256": hashlib.sha256(data).hexdigest(),
                                        "rows": [r["id"] for r in rows]}
    (out / "manifest.json").write_text(json.dumps(man), "utf-8")
    return str(row["item"])


def test_a_minif2f_test_item_labelled_train_never_enters_the_pool(
        src: dict[str, Path], tmp_path: Path) -> None:
    from network.trainer.dataset import verify_dataset

    item = _forge_test_as_train(src["ds"], tmp_path / "forged")
    verify_dataset(tmp_path / "forged")  # the forgery passes the digest checks
    for flag in (False, True):
        with pytest.raises(LemmataError) as exc:
            record_pool(tmp_path / "forged", minif2f_valid=flag)
        assert exc.value.code == "trainer-split-contaminated" and item in str(exc.value)
    # and a pass on it is never trained either
    with pytest.raises(LemmataError) as exc:
        derived_dataset(src["ds"], tmp_path / "d", [{"row": {"item": item, "split": "train"},
                                                     "text": "x"}], round_=1)
    assert exc.value.code == "trainer-split-contaminated"


class _DerivingTrainer:
    """Builds the round's dataset from the passes, as TrainerWorker does, and an adapter
    folder that names them (no SFT: the row is what is tested)."""

    made: ClassVar[list[Path]] = []

    def __init__(self, ds: str, work: str) -> None:
        self.ds, self.work = Path(ds), Path(work)

    def train(self, round_: int, passes: list[dict[str, Any]]) -> dict[str, Any]:
        root = self.work / f"round-{round_}"
        _DerivingTrainer.made.append(derived_dataset(self.ds, root / "data", passes,
                                                     round_=round_))
        (root / "adapter").mkdir(parents=True)
        (root / "adapter" / "passes.json").write_text(json.dumps([p["text"] for p in passes]))
        return {"version": round_, "adapter_dir": str(root / "adapter"),
                "adapter_sha256": files_sha256(root / "adapter"), "run_id": f"d-{round_}",
                "identity": None, "losses": [[1, 0.5]], "admission": {"changed": 1}}


def test_a_pass_on_a_valid_item_trains_as_a_row(src: dict[str, Path], tmp_path: Path) -> None:
    """The Valid row is routed to MiniF2FVerifier through CombinedVerifier (a user axiom is
    refused at step 2, no Lean). A proof the recorded stand-in cannot judge is not a pass,
    so the pass is a judge double's, for exactly one text: that pass trains as a
    ``train`` row of the round's dataset, origin expert-iteration."""
    from network.trainer.pipeline import dataset_verifier

    pool, _ = record_pool(src["ds"], minif2f_valid=True)
    [v] = [r for r in pool if r["item"].startswith("minif2f:Valid/")][:1]
    judge = dataset_verifier(src["ds"], src["graph"], RecordedToolchain, Sandbox(), (MINIF2F,))
    assert judge.can_judge(v)
    refused = judge(v, "axiom cheat : False\n\ntheorem x : False := cheat\n")
    assert (refused.reward, refused.first_failing_step, refused.code) == \
        (0.0, 2, "axiom-declared")
    good = "theorem valid_pass : True := trivial\n-- " + v["id"]

    class PassOne:
        def can_judge(self, row: Any) -> bool:
            return bool(judge.can_judge(row))

        def __call__(self, row: Any, text: str) -> Reward:
            if row["id"] == v["id"] and text == good:
                return Reward(1.0, "pass", None, None, ())
            return Reward(0.0, "fail", 3, "lean-error", ())

    name = v["item"].split("/", 1)[1]
    _DerivingTrainer.made = []
    (r1,) = expert_iteration(
        LocalExecutor(), [v], engine_factory=lambda: VersionedEngine(
            {0: {("minif2f", name): good}}),
        verifier_factory=PassOne,
        trainer=(_DerivingTrainer, (str(src["ds"]), str(tmp_path / "work"))),
        config=IterationConfig(rounds=1, samples=1, temperature=0.0))
    assert r1.passes == 1 and r1.new_passes == 1 and r1.trained is not None
    [data] = _DerivingTrainer.made
    new = [r for r in _rows(data, "sft.jsonl") if r.get("origin") == "expert-iteration"]
    assert [(r["item"], r["split"], r["completion"]) for r in new] == \
        [(v["item"], "train", good)]


def test_iterate_refuses_an_archive_the_dataset_never_named(src: dict[str, Path],
                                                             tmp_path: Path) -> None:
    from network.trainer.pipeline import iterate
    from network.trainer.sft import SFTConfig

    other = tmp_path / "other.tar.gz"
    other.write_bytes(MINIF2F.read_bytes() + b"\0")
    with pytest.raises(LemmataError) as exc:
        iterate(src["ds"], src["graph"], tmp_path / "base", tmp_path / "w", IterationConfig(),
                SFTConfig(), toolchain=RecordedToolchain, sandbox=Sandbox(),
                history=tmp_path / "h.json", minif2f=(other,))
    assert exc.value.code == "trainer-source-malformed"


# --- GRPO: resume, admission, the CLI ---------------------------------------------------


@pytest.mark.slow
def test_grpo_resumes_into_its_identity_and_admits_what_moved(src: dict[str, Path]) -> None:
    """Interrupted after step 1, the run resumes from its checkpoint (the log holds step 1
    from before) and its adapter is admitted: reloaded, and it changes a probe. The same
    folder refuses another identity. A run started from that admitted adapter begins at
    its tensors; a start from a run that was never admitted is refused."""
    pytest.importorskip("trl")
    from network.record.read.loader import load_graph
    from network.trainer.evaluate import GraphVerifier
    from network.trainer.grpo import GRPOSettings, run_grpo
    from network.trainer.orchestrate import statement_row
    from network.trainer.pipeline import grpo_admitted
    from network.trainer.prompts import bundle_from_graph
    from network.trainer.sft import LoraSettings
    from tests.gate_scenarios import PROOF_MID, T, base_repo
    from tests.test_trainer_grpo import SORRY, _scripted
    from tests.trainer_support import tiny_base

    root = src["root"] / "resume"
    b, commit = base_repo(root / "g")
    row = statement_row(bundle_from_graph(load_graph(b.root, commit=commit), T, "mid"),
                        item=f"graph:{T}/mid")
    judge = GraphVerifier(b.root, commit, RecordedToolchain, Sandbox())
    base = tiny_base(root / "base")
    settings = GRPOSettings(steps=2, num_generations=2, max_completion_length=8,
                            learning_rate=5e-2, lora=LoraSettings(r=4, alpha=8,
                                                                  target_modules=("q_proj",
                                                                                  "v_proj")))
    inner, calls = _scripted([PROOF_MID, SORRY]), [0]

    def interrupted(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt("the machine went away")
        return dict(inner(prompts, trainer))

    run = root / "run"
    with pytest.raises(KeyboardInterrupt):
        run_grpo([row], base, run, settings, judge, rollout_func=interrupted)
    assert (run / "run.json").is_file() and not (run / "trained.json").exists()
    assert (run / "trl" / "checkpoint-1").is_dir()
    # another identity never resumes into this folder
    with pytest.raises(LemmataError) as exc:
        grpo_admitted([row], judge, src["ds"], base, run,
                      GRPOSettings(**{**settings.__dict__, "seed": 1}),
                      history=root / "h.json", rollout_func=inner)
    assert exc.value.code == "trainer-run-identity-mismatch"
    out = grpo_admitted([row], judge, src["ds"], base, run, settings,
                        history=root / "h.json", rollout_func=inner)
    assert out["admitted"] and out["resumed_from_step"] == 1
    assert [s["step"] for s in out["log"]] == [1, 2] and out["verdicts"] == \
        {"fail 5:sorry-used": 1, "pass": 1}  # only step 2 was judged in this process
    adm = json.loads((run / "admission.json").read_text("utf-8"))
    assert adm["adapter_sha256"] == out["adapter_sha256"] and any(
        p["changed"] for p in adm["probes"])
    doc = H.load(root / "h.json")
    series = doc["runs"][out["run_id"]]["conditions"]["policy"]["series"]
    assert set(series) == {"loss", "reward"} and series["reward"]["k"] == 2
    assert [p[1] for p in series["reward"]["points"]] == [0.5, 0.5]
    assert [e["event"] for e in doc["events"]] == ["trained", "admitted"]
    # a run started from an admitted adapter trains on from its tensors, named in its identity
    more = grpo_admitted([row], judge, src["ds"], base, root / "more",
                         GRPOSettings(**{**settings.__dict__, "steps": 1}),
                         history=root / "h.json", init_run=run, rollout_func=inner)
    ident = json.loads((root / "more" / "run.json").read_text("utf-8"))
    assert ident["init"] == {"run_id": out["run_id"], "adapter_sha256": out["adapter_sha256"]}
    trained = json.loads((root / "more" / "trained.json").read_text("utf-8"))
    assert trained["initial_adapter_sha256"] == out["adapter_sha256"] != more["adapter_sha256"]
    # a start from a folder with no admitted adapter is refused before anything trains
    with pytest.raises(LemmataError) as exc:
        grpo_admitted([row], judge, src["ds"], base, root / "run2", settings,
                      history=root / "h.json", init_run=root / "g", rollout_func=inner)
    assert exc.value.code == "trainer-policy-not-admitted" and not (root / "run2").exists()


@pytest.mark.slow
def test_the_grpo_command_writes_identity_first_and_refuses_an_inert_adapter(
        src: dict[str, Path]) -> None:
    """``lemmata trainer grpo`` on the tiny model: its text is nothing the gate passes (no
    toolchain here judges it, or Lean refuses it), so no reward moves the adapter and
    admission refuses it as inert; the identity was written first and the refusal is in
    the history, beside a reward series labelled reward. A finished folder is not run
    again; another identity is refused."""
    pytest.importorskip("trl")
    from tests.trainer_support import tiny_base

    root = src["root"] / "cli"
    base = tiny_base(root / "base")
    run = root / "run"
    args = ["trainer", "grpo", str(src["ds"]), str(src["graph"]), str(base), str(run),
            "--steps", "1", "--max-completion-length", "4", "--rank", "4",
            "--minif2f", str(MINIF2F)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1 and "trainer-policy-inert" in res.output, res.output
    ident = json.loads((run / "run.json").read_text("utf-8"))
    assert ident["method"] == "grpo" and ident["init"] is None
    assert any(i.startswith("minif2f:Valid/") for i in [
        r["item"] for r in record_pool(src["ds"], minif2f_valid=True)[0]
        if r["id"] in ident["pool"]["rows"]])
    doc = H.load(run / "history.json")
    assert [e["event"] for e in doc["events"]] == ["trained", "admission-refused"]
    reward = doc["runs"][ident["run_id"]]["conditions"]["policy"]["series"]["reward"]
    assert reward["kind"] == "reward" and reward["label"].startswith("reward") and \
        reward["k"] == 2
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1 and "trainer-out-not-empty" in res.output, res.output
    res = CliRunner().invoke(main, [*args[:-2], "--seed", "3"])
    assert res.exit_code == 1 and "trainer-run-identity-mismatch" in res.output, res.output
    res = CliRunner().invoke(main, ["trainer", "status", str(run / "history.json")])
    assert "reward: rate of gate passes" in res.output and "accuracy" not in res.output
