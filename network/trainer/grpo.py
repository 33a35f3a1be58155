"""GRPO with the gate's verdict as the binary reward (issue 14, "Training"; seed 004, "a
reward computed by a program").

The trainer is TRL's ``GRPOTrainer`` (``trl>=1.16,<2``, the ``trainer`` extra) with a peft
LoRA adapter; nothing of the policy-gradient step is written here. What this module owns
is what TRL cannot know:

* **The reward** (:class:`GateRewardFunc`) is a TRL reward function (``prompts``,
  ``completions`` and the dataset's columns in, one value per completion out) that asks a
  :class:`~network.trainer.evaluate.Verifier` (the gate in-process with the service's
  sandbox, :class:`~network.trainer.evaluate.GraphVerifier`) for its verdict on the
  completion's text, and nothing else: 1.0 only for a gate pass, 0.0 for any refusal
  (``sorry``, a user axiom, ``native_decide`` without a waiver, an echoed answer, a
  statement edit), and None where nothing was judged (``toolchain-missing``, or a row the
  verifier has nowhere to judge). TRL treats None as "no reward for this sample": it is
  left out of the group's baseline and its advantage is 0, so an unjudged text never
  pays and never pulls its group down. No judge model ever scores.
* **The pool**: ``statements.jsonl``-shaped rows of the ``train`` split only; a held-out
  row is refused before anything loads (``trainer-split-contaminated``).
* **Run identity** (``run.json``), written before the first step, as for SFT: the config
  and its digest, the pool's row ids and digest, the source tree, the base model and its
  revision, the LoRA settings and the seed. A folder holding another identity is refused
  (``trainer-run-identity-mismatch``); a finished run is not run again
  (``trainer-out-not-empty``). TRL saves a checkpoint each step (``RUN_DIR/trl``); a run
  interrupted in a folder holding its own identity resumes from the latest checkpoint
  (optimizer, scheduler and adapter), never from another identity's.
* **The start**: the base with a fresh LoRA adapter, or an admitted SFT adapter
  (``init_adapter``, trained on from its tensors); the start's tensor digest is part of
  the identity.
* **The outcome** (``trained.json``): the adapter's tensor digest before and after, the
  per-step loss and mean reward TRL logged, and the tally of verdicts; the adapter is saved
  in ``RUN_DIR/adapter`` (peft's format), so an engine syncs it like an SFT adapter.

vLLM generation (TRL's ``use_vllm``) is a setting, off by default and on CPU. Every ML
import is inside a function.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from network.errors import LemmataError
from network.trainer.dataset import canonical_json, sha256_text
from network.trainer.engines import base_revision, load_base, tensors_sha256
from network.trainer.evaluate import Verifier
from network.trainer.sft import CONFIG_INVALID, LoraSettings, source_tree_sha256

GRPO_RUN_SCHEMA = "trainer-grpo-run/v1"


@dataclass(frozen=True)
class GRPOSettings:
    """One GRPO run's settings (all part of its identity).

    Attributes:
        steps: optimizer steps (TRL's ``max_steps``).
        num_generations: completions per prompt (the group GRPO's baseline is taken over);
            at least 2, or every advantage is 0.
        prompts_per_step: distinct prompts per step (the per-device batch is
            ``prompts_per_step * num_generations`` completions).
        max_completion_length: new tokens per completion.
        learning_rate, beta (the KL coefficient; 0 loads no reference model),
        temperature, seed: as TRL's ``GRPOConfig`` names them.
        use_vllm: TRL's vLLM generation (a GPU machine with the ``gpu`` extra).
        lora: the adapter's shape.

    Raises (from :meth:`check`):
        LemmataError: ``trainer-config-invalid``.
    """

    steps: int = 2
    num_generations: int = 2
    prompts_per_step: int = 1
    max_completion_length: int = 64
    learning_rate: float = 1e-3
    beta: float = 0.0
    temperature: float = 1.0
    seed: int = 0
    use_vllm: bool = False
    lora: LoraSettings = field(default_factory=LoraSettings)

    def check(self) -> None:
        """Refuse out-of-range settings with ``trainer-config-invalid``."""
        if self.steps < 1 or self.num_generations < 2 or self.prompts_per_step < 1 or \
                self.max_completion_length < 1 or not 0 < self.learning_rate <= 1 or \
                self.beta < 0 or self.temperature <= 0 or self.lora.r < 1:
            raise LemmataError(CONFIG_INVALID.code, json.dumps(asdict(self)))


class GateRewardFunc:
    """The reward TRL's GRPOTrainer calls: the gate's verdict on each completion.

    ``__call__(prompts, completions, *, item, row_id, **columns)`` returns one value per
    completion: 1.0 (the gate passed it), 0.0 (refused), or None (nothing judged:
    ``toolchain-missing``, or a row the verifier cannot place). ``tally`` counts verdicts
    as ``pass``, ``fail <step>:<code>`` and ``not-judged <code>``. The text judged is the
    completion alone (TRL decodes the generated tokens only), never the prompt.

    Raises:
        LemmataError: ``trainer-config-invalid`` for a conversational completion (the
            prompt contract is plain text).
    """

    __name__ = "gate_verdict"  # TRL names the logged reward after the function

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self.tally: Counter[str] = Counter()

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], *,
                 item: Sequence[str], row_id: Sequence[str],
                 **_columns: Any) -> list[float | None]:
        """One reward per completion, in order (see the class)."""
        out: list[float | None] = []
        for prompt, text, it, rid in zip(prompts, completions, item, row_id, strict=True):
            if not isinstance(text, str):
                raise LemmataError(CONFIG_INVALID.code,
                                   "GRPO completions must be plain text (prompt contract)")
            row = {"item": it, "id": rid, "prompt": prompt}
            if not self.verifier.can_judge(row):
                self.tally["not-judged no-node"] += 1
                out.append(None)
                continue
            r = self.verifier(row, text)
            if r.reward == 1.0:
                self.tally["pass"] += 1
                out.append(1.0)
            elif r.reward is None:
                self.tally[f"not-judged {r.code}"] += 1
                out.append(None)
            else:
                self.tally[f"fail {r.first_failing_step}:{r.code}"] += 1
                out.append(0.0)
        return out


def grpo_identity(settings: GRPOSettings, rows: Sequence[Mapping[str, Any]],
                  base_dir: str | Path, init: Mapping[str, Any] | None = None
                  ) -> dict[str, Any]:
    """The run's identity (``run.json``), ``run_id`` the SHA-256 of the rest. ``init``
    names the adapter the run starts from (``{run_id, adapter_sha256}``), None for a fresh
    adapter on the base.

    Raises:
        LemmataError: ``trainer-model-missing``.
    """
    cfg = json.loads(canonical_json(asdict(settings)))
    ids = [str(r["id"]) for r in rows]
    ident = {"schema": GRPO_RUN_SCHEMA, "method": "grpo", "config": cfg,
             "config_sha256": sha256_text(canonical_json(cfg)),
             "pool": {"rows": ids, "sha256": sha256_text(canonical_json(
                 [[str(r["id"]), str(r["prompt"])] for r in rows]))},
             "source_tree_sha256": source_tree_sha256(),
             "base_model": {"name": Path(base_dir).resolve().name,
                            "revision": base_revision(base_dir)},
             "lora": cfg["lora"], "seed": settings.seed, "reward": "gate-precheck-verdict",
             "init": dict(init) if init else None}
    return {**ident, "run_id": sha256_text(canonical_json(ident))}


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class GRPOResult:
    """A finished run: its identity, the adapter folder, the adapter's tensor digest
    before and after training, TRL's per-step loss and mean reward, the verdicts, and the
    checkpoint step it resumed from (0: a fresh start)."""

    identity: dict[str, Any]
    adapter_dir: Path
    initial_sha256: str
    adapter_sha256: str
    steps: tuple[dict[str, Any], ...]
    verdicts: dict[str, int]
    resumed_from_step: int = 0


def run_grpo(rows: Sequence[Mapping[str, Any]], base_dir: str | Path, run_dir: str | Path,
             settings: GRPOSettings, verifier: Verifier, *,
             rollout_func: Callable[[list[Any], Any], dict[str, Any]] | None = None,
             init_adapter: str | Path | None = None,
             init: Mapping[str, Any] | None = None) -> GRPOResult:
    """GRPO on the pool's prompts with :class:`GateRewardFunc` over ``verifier``.

    Args:
        rows: the pool, ``statements.jsonl``-shaped rows (``id``, ``item``, ``prompt``,
            ``split``); every one must be ``train``.
        base_dir: the local base model folder.
        run_dir: a new or empty folder (or one holding this identity, unfinished).
        settings: :class:`GRPOSettings`.
        verifier: the gate's judge (:class:`~network.trainer.evaluate.GraphVerifier`).
        rollout_func: TRL's experimental ``rollout_func`` (a generation backend of one's
            own); None lets TRL generate with the model (or vLLM, ``use_vllm``).
        init_adapter: a peft adapter folder to start from (an admitted SFT adapter; its
            own LoRA shape wins over ``settings.lora``), None for a fresh adapter.
        init: the identity's record of that start (``{run_id, adapter_sha256}``).

    Raises:
        LemmataError: ``trainer-config-invalid``; ``trainer-split-contaminated``;
            ``trainer-no-training-rows``; ``trainer-run-identity-mismatch``;
            ``trainer-out-not-empty``; ``trainer-model-missing``.
    """
    settings.check()
    pool = sorted((dict(r) for r in rows), key=lambda r: str(r["id"]))
    if not pool:
        raise LemmataError("trainer-no-training-rows", "the GRPO pool is empty")
    held_out = [r.get("item") for r in pool if r.get("split") != "train"]
    if held_out:
        raise LemmataError("trainer-split-contaminated",
                           f"the GRPO pool holds held-out items: {held_out[:3]}")
    run = Path(run_dir)
    ident = grpo_identity(settings, pool, base_dir, init)
    ident_path = run / "run.json"
    if ident_path.is_file():
        old = json.loads(ident_path.read_text("utf-8"))
        if old != ident:
            raise LemmataError("trainer-run-identity-mismatch",
                               f"{run}: the run folder holds {str(old.get('run_id'))[:12]}, "
                               f"this is {ident['run_id'][:12]}")
        if (run / "trained.json").is_file():
            raise LemmataError("trainer-out-not-empty", f"{run}: this run is finished")
    elif run.exists() and any(run.iterdir()):
        raise LemmataError("trainer-out-not-empty", f"{run} holds something that is no run")
    run.mkdir(parents=True, exist_ok=True)
    _write_json(ident_path, ident)  # the identity before the first step

    import torch
    from datasets import Dataset
    from peft import LoraConfig, PeftModel, get_peft_model_state_dict
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

    model, tok = load_base(base_dir)
    tok.padding_side = "left"  # TRL's generation needs left padding
    data = Dataset.from_list([{"prompt": str(r["prompt"]), "item": str(r["item"]),
                               "row_id": str(r["id"])} for r in pool])
    s, lc = settings, settings.lora
    args = GRPOConfig(
        output_dir=str(run / "trl"), max_steps=s.steps,
        per_device_train_batch_size=s.prompts_per_step * s.num_generations,
        num_generations=s.num_generations, max_completion_length=s.max_completion_length,
        learning_rate=s.learning_rate, beta=s.beta, temperature=s.temperature, seed=s.seed,
        use_vllm=s.use_vllm, use_cpu=not torch.cuda.is_available(),
        gradient_checkpointing=False, report_to="none", logging_steps=1,
        save_strategy="steps", save_steps=1, disable_tqdm=True, dataloader_num_workers=0)
    reward = GateRewardFunc(verifier)
    peft_config = None
    if init_adapter is not None:
        model = PeftModel.from_pretrained(model, str(init_adapter), is_trainable=True)
    else:
        peft_config = LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout,
                                 target_modules=list(lc.target_modules), task_type="CAUSAL_LM")
    trainer = GRPOTrainer(
        model=model, reward_funcs=reward, args=args, train_dataset=data,
        processing_class=tok, rollout_func=rollout_func, peft_config=peft_config)
    initial = tensors_sha256(get_peft_model_state_dict(trainer.model))
    ckpts = sorted((p for p in (run / "trl").glob("checkpoint-*") if p.is_dir()),
                   key=lambda p: int(p.name.rsplit("-", 1)[1]))
    resumed = int(ckpts[-1].name.rsplit("-", 1)[1]) if ckpts else 0
    trainer.train(resume_from_checkpoint=str(ckpts[-1]) if ckpts else None)
    held = tensors_sha256(get_peft_model_state_dict(trainer.model))
    adapter = run / "adapter"
    peft_model: Any = trainer.model  # a peft PeftModel (peft_config above)
    peft_model.save_pretrained(str(adapter))
    # TRL logs the step's mean reward as None when no completion was judged
    steps = tuple({"step": int(h["step"]), "loss": float(h["loss"]),
                   "reward": None if h["reward"] is None else float(h["reward"])}
                  for h in trainer.state.log_history if "loss" in h and "reward" in h)
    verdicts = dict(sorted(reward.tally.items()))
    _write_json(run / "trained.json", {
        "run_id": ident["run_id"], "method": "grpo", "steps": s.steps,
        "initial_adapter_sha256": initial, "adapter_sha256": held,
        "resumed_from_step": resumed, "log": list(steps), "verdicts": verdicts})
    return GRPOResult(ident, adapter, initial, held, steps, verdicts, resumed)
