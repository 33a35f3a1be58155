"""SFT with LoRA, the run's identity, resuming, and saved-policy admission (issue 14,
"Training"; seed 000, "run identity before training", "saved-policy admission").

* **Rows** come from a dataset ``lemmata trainer compile`` wrote, re-verified against its
  manifest first (:func:`network.trainer.dataset.verify_dataset`): ``sft.jsonl``'s
  ``train`` rows, prompt and completion. Sealed and valid rows never train.
* **Completion-only loss**: a row's tokens are its prompt, its completion and an end
  token; the prompt's positions are labelled -100, so the cross-entropy is averaged over
  the completion's tokens only (:func:`encode_row`).
* **Run identity** (``run.json``) is written before the first step: the config and its
  digest, the dataset's manifest digest, graph commit and file digests, the source tree's
  digest, the base model and its revision, the LoRA settings and the seed. A run folder
  resumes only into the same identity (``trainer-run-identity-mismatch``); an interrupted
  run goes on from its last checkpoint (adapter, optimizer state, step) and reaches the
  same adapter an uninterrupted run reaches.
* **Saved-policy admission** (:func:`admit`): the saved adapter is reloaded into a fresh
  engine; the trained in-memory tensors, the saved files and the reloaded engine must hold
  the same tensors (``trainer-policy-mismatch``), and on SHA-ranked probes from the
  training side (never sealed) the adapter must change at least one greedy output
  against the same model with the adapter disabled (``trainer-policy-inert``). Only an
  admitted policy gets ``admission.json``.

Every ML import is inside a function.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import network
from network.errors import LemmataError, define
from network.trainer.dataset import canonical_json, sha256_text, verify_dataset
from network.trainer.engines import (
    HFEngine,
    adapter_file_tensors,
    base_revision,
    load_base,
    tensors_sha256,
)

define("trainer-run-identity-mismatch", None, 409,
       "The run folder holds a run of another identity (config, data, source tree, base "
       "model, LoRA settings or seed differ), and a run resumes only into the same "
       "identity (seed 000).",
       "Use a new run folder for a new identity, or the same inputs to resume.")
define("trainer-no-training-rows", None, 422,
       "The dataset has no training row of the tasks the config names, so there is "
       "nothing to train on.",
       "Compile a dataset whose graph has verified positives, or name their tasks.")
define("trainer-policy-inert", None, 422,
       "Saved-policy admission refused the adapter: reloaded from its files, it changes no "
       "probe's output against the same model with the adapter disabled, so it does not "
       "take part in the policy (seed 000).",
       "Train more steps or with a higher learning rate; an adapter that changes nothing "
       "is not a policy.")
define("trainer-policy-mismatch", None, 500,
       "Saved-policy admission refused the adapter: the trained tensors, the saved files "
       "and the freshly reloaded engine do not hold the same tensors.",
       "A save or load bug: nothing was admitted. Report it with the run folder.")
CONFIG_INVALID = define("trainer-config-invalid", None, 422,
       "A trainer setting is out of range (steps, batch size, learning rate, LoRA rank, "
       "budgets), so the run would not be the run its identity names.",
       "Pass positive steps, batch size, rank and budgets and a learning rate in (0, 1].")

RUN_SCHEMA = "trainer-run/v1"
ADMISSION_SCHEMA = "trainer-admission/v1"
PROBES = 3


@dataclass(frozen=True)
class LoraSettings:
    """The LoRA adapter's shape (peft's LoraConfig)."""

    r: int = 8
    alpha: int = 16
    dropout: float = 0.0
    target_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")


@dataclass(frozen=True)
class SFTConfig:
    """One SFT run's settings; all of them are part of the run's identity.

    Raises (from :meth:`check`):
        LemmataError: ``trainer-config-invalid``.
    """

    steps: int = 2
    batch_size: int = 2
    learning_rate: float = 1e-3
    max_length: int = 1024
    seed: int = 0
    tasks: tuple[str, ...] = ("proof", "partial")
    lora: LoraSettings = field(default_factory=LoraSettings)

    def check(self) -> None:
        """Refuse out-of-range settings with ``trainer-config-invalid``."""
        if self.steps < 1 or self.batch_size < 1 or self.lora.r < 1 or \
                self.max_length < 8 or not 0 < self.learning_rate <= 1 or \
                not 0 <= self.lora.dropout < 1 or not self.tasks:
            raise LemmataError("trainer-config-invalid", json.dumps(asdict(self)))


def source_tree_sha256() -> str:
    """SHA-256 over the ``network`` package's Python files (sorted paths and bytes): the code
    that trains, judges and evaluates."""
    root = Path(network.__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def hardware() -> dict[str, Any]:
    """What this process runs on (the history names it with every run)."""
    import torch

    return {"device": "cuda" if torch.cuda.is_available() else "cpu",
            "cpus": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version(), "torch": torch.__version__}


def run_identity(config: SFTConfig, dataset_dir: str | Path, base_dir: str | Path) -> dict[str, Any]:
    """The run's identity (``run.json``), with ``run_id`` the SHA-256 of the rest.

    Raises:
        LemmataError: ``trainer-source-malformed`` (the dataset disagrees with its
            manifest); ``trainer-model-missing``.
    """
    manifest = verify_dataset(dataset_dir)
    cfg = asdict(config)
    ident = {
        "schema": RUN_SCHEMA,
        "config": cfg, "config_sha256": sha256_text(canonical_json(cfg)),
        "data": {"manifest_sha256": sha256_text(canonical_json(manifest)),
                 "graph_commit": manifest["graph"]["commit"],
                 "prompt_contract": manifest["prompt_contract"],
                 "files": {k: v["sha256"] for k, v in sorted(manifest["files"].items())}},
        "source_tree_sha256": source_tree_sha256(),
        "base_model": {"name": Path(base_dir).resolve().name,
                       "revision": base_revision(base_dir)},
        "lora": asdict(config.lora), "seed": config.seed,
    }
    ident = json.loads(canonical_json(ident))  # tuples as lists: as run.json reads back
    return {**ident, "run_id": sha256_text(canonical_json(ident))}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def training_rows(dataset_dir: str | Path, config: SFTConfig) -> list[dict[str, Any]]:
    """``sft.jsonl``'s train rows of the config's tasks, in row-id order.

    Raises:
        LemmataError: ``trainer-no-training-rows``.
    """
    rows = [r for r in _read_jsonl(Path(dataset_dir) / "sft.jsonl")
            if r["split"] == "train" and r.get("task") in config.tasks]
    if not rows:
        raise LemmataError("trainer-no-training-rows", f"{dataset_dir}: tasks {config.tasks}")
    return sorted(rows, key=lambda r: str(r["id"]))


def encode_row(tokenizer: Any, prompt: str, completion: str,
               max_length: int) -> tuple[list[int], list[int]]:
    """(input ids, labels) for one row: prompt + completion + end token; the prompt's
    labels are -100, so only the completion's tokens carry loss. A row too long is cut
    at ``max_length`` from the completion's end (the prompt is never cut, so what the
    model sees before its answer is the prompt contract's bytes)."""
    p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    c = tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    ids = (p + c)[:max(max_length, len(p) + 1)]
    labels = [-100] * len(p) + ids[len(p):]
    return ids, labels


def collate(tokenizer: Any, encoded: Sequence[tuple[list[int], list[int]]]) -> dict[str, Any]:
    """Right-padded batch tensors: input_ids, attention_mask, labels (pad labels -100)."""
    import torch

    width = max(len(ids) for ids, _ in encoded)
    pad = tokenizer.pad_token_id
    ids = [i + [pad] * (width - len(i)) for i, _ in encoded]
    mask = [[1] * len(i) + [0] * (width - len(i)) for i, _ in encoded]
    labels = [lab + [-100] * (width - len(lab)) for _, lab in encoded]
    return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask),
            "labels": torch.tensor(labels)}


def completion_loss(model: Any, batch: Mapping[str, Any]) -> Any:
    """Mean cross-entropy over the labelled (completion) tokens of a batch."""
    import torch

    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    shift = logits[:, :-1, :].reshape(-1, logits.shape[-1])
    target = batch["labels"][:, 1:].reshape(-1)
    return torch.nn.functional.cross_entropy(shift.float(), target, ignore_index=-100)


def _schedule(n: int, step: int, batch_size: int, seed: int) -> list[int]:
    """Row indices of step ``step`` (0-based): epochs of seeded permutations, so a resumed
    run sees the batches an uninterrupted one would."""
    out: list[int] = []
    start = step * batch_size
    epoch = start // n
    while len(out) < batch_size:
        perm = list(range(n))
        random.Random(f"{seed}:{epoch}").shuffle(perm)
        lo = start - epoch * n if not out else 0
        out += perm[lo:lo + batch_size - len(out)]
        epoch += 1
    return out


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class SFTResult:
    """A run's outcome: its identity, the steps done, each step's loss, and (when all
    steps are done) the saved adapter folder and its tensor digest."""

    identity: dict[str, Any]
    steps_done: int
    losses: tuple[tuple[int, float], ...]
    adapter_dir: Path | None
    adapter_sha256: str | None


def run_sft(dataset_dir: str | Path, base_dir: str | Path, run_dir: str | Path,
            config: SFTConfig, *, stop_after: int | None = None,
            on_step: Callable[[int, float], None] | None = None) -> SFTResult:
    """Train a LoRA adapter on the dataset's training rows (completion-only loss).

    ``run.json`` is written before the first step; a folder holding a run resumes from
    its checkpoint only when its identity is this one. ``stop_after`` ends the process
    after that many steps in total (an interruption, for tests; not part of the identity).
    When every step is done the adapter is saved in ``run_dir/adapter`` and its tensor
    digest in ``run_dir/trained.json``.

    Raises:
        LemmataError: ``trainer-config-invalid``; ``trainer-run-identity-mismatch``;
            ``trainer-out-not-empty`` (a non-empty folder that is no run);
            ``trainer-no-training-rows``; ``trainer-source-malformed``;
            ``trainer-model-missing``.
    """
    import torch
    from peft import (
        LoraConfig,
        get_peft_model,
        get_peft_model_state_dict,
        set_peft_model_state_dict,
    )

    config.check()
    run = Path(run_dir)
    ident = run_identity(config, dataset_dir, base_dir)
    rows = training_rows(dataset_dir, config)
    ident_path = run / "run.json"
    if ident_path.is_file():
        old = json.loads(ident_path.read_text("utf-8"))
        if old != ident:
            diff = sorted(k for k in ident if old.get(k) != ident[k])
            raise LemmataError("trainer-run-identity-mismatch",
                               f"{run}: the run folder holds {old.get('run_id', '?')[:12]}, "
                               f"this is {ident['run_id'][:12]} ({', '.join(diff)} differ)")
    elif run.exists() and any(run.iterdir()):
        raise LemmataError("trainer-out-not-empty", f"{run} holds something that is no run")
    run.mkdir(parents=True, exist_ok=True)
    if not ident_path.is_file():
        _write_json(ident_path, ident)  # the identity before the first step

    torch.manual_seed(config.seed)
    model, tok = load_base(base_dir)
    lc = config.lora
    peft_model = get_peft_model(model, LoraConfig(
        r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout,
        target_modules=list(lc.target_modules), task_type="CAUSAL_LM"))
    params = [p for p in peft_model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=config.learning_rate)
    ckpt = run / "checkpoint"
    losses: list[tuple[int, float]] = []
    start = 0
    if (ckpt / "state.pt").is_file():
        state = torch.load(ckpt / "state.pt", weights_only=True)
        if state["run_id"] != ident["run_id"]:
            raise LemmataError("trainer-run-identity-mismatch", f"{ckpt}: another run's")
        set_peft_model_state_dict(peft_model, state["adapter"])
        opt.load_state_dict(state["optimizer"])
        start = int(state["step"])
        losses = [(int(s), float(v)) for s, v in state["losses"]]
    peft_model.train()
    end = config.steps if stop_after is None else min(config.steps, stop_after)
    for step in range(start, end):
        batch = collate(tok, [encode_row(tok, rows[i]["prompt"], rows[i]["completion"],
                                         config.max_length)
                              for i in _schedule(len(rows), step, config.batch_size,
                                                 config.seed)])
        opt.zero_grad()
        loss = completion_loss(peft_model, batch)
        loss.backward()
        opt.step()
        losses.append((step + 1, float(loss.detach())))
        if on_step is not None:
            on_step(step + 1, float(loss.detach()))
        ckpt.mkdir(exist_ok=True)
        torch.save({"run_id": ident["run_id"], "step": step + 1, "losses": losses,
                    "adapter": get_peft_model_state_dict(peft_model),
                    "optimizer": opt.state_dict()}, ckpt / "state.tmp")
        os.replace(ckpt / "state.tmp", ckpt / "state.pt")
    done = max(start, end)
    if done < config.steps:
        return SFTResult(ident, done, tuple(losses), None, None)
    peft_model.eval()
    held = tensors_sha256(get_peft_model_state_dict(peft_model))
    adapter = run / "adapter"
    peft_model.save_pretrained(str(adapter))
    _write_json(run / "trained.json", {"run_id": ident["run_id"], "steps": config.steps,
                                       "adapter_sha256": held,
                                       "losses": [list(x) for x in losses]})
    return SFTResult(ident, done, tuple(losses), adapter, held)


def probe_prompts(dataset_dir: str | Path, run_id: str, n: int = PROBES) -> list[dict[str, Any]]:
    """``n`` probes from the training side (``statements.jsonl``, train and valid; never
    sealed), ranked by SHA-256 of the run id and the row id."""
    rows = [r for r in _read_jsonl(Path(dataset_dir) / "statements.jsonl")
            if r["split"] in ("train", "valid")]
    rows.sort(key=lambda r: sha256_text(f"{run_id}:{r['id']}"))
    return rows[:n]


def admit(run_dir: str | Path, dataset_dir: str | Path, base_dir: str | Path, *,
          max_new_tokens: int = 16) -> dict[str, Any]:
    """Saved-policy admission: reload ``run_dir/adapter`` into a fresh engine, require the
    trained, saved and reloaded tensors to agree and at least one probe's greedy output to
    change with the adapter enabled; write and return ``admission.json``.

    Raises:
        LemmataError: ``trainer-policy-mismatch``; ``trainer-policy-inert``;
            ``trainer-adapter-sync-failed``; ``trainer-run-identity-mismatch`` (the
            adapter's run is not the folder's).
    """
    run = Path(run_dir)
    ident = json.loads((run / "run.json").read_text("utf-8"))
    trained = json.loads((run / "trained.json").read_text("utf-8"))
    if trained["run_id"] != ident["run_id"]:
        raise LemmataError("trainer-run-identity-mismatch", f"{run}: trained.json is another run's")
    saved = tensors_sha256(adapter_file_tensors(run / "adapter"))
    engine = HFEngine(base_dir)
    serving = engine.sync(run / "adapter", 1)
    held = engine.held_adapter_sha256()
    if not (trained["adapter_sha256"] == saved == serving.adapter_sha256 == held):
        raise LemmataError("trainer-policy-mismatch",
                           f"trained {trained['adapter_sha256'][:12]}, saved {saved[:12]}, "
                           f"reloaded {str(held)[:12]}")
    probes = probe_prompts(dataset_dir, ident["run_id"])
    prompts = [p["prompt"] for p in probes]
    on = engine.generate(prompts, max_new_tokens=max_new_tokens)
    with engine.base_only():
        off = engine.generate(prompts, max_new_tokens=max_new_tokens)
    table = [{"row": p["id"], "prompt_sha256": p["prompt_sha256"],
              "policy_sha256": sha256_text(json.dumps(a[0].ids)),
              "base_sha256": sha256_text(json.dumps(b[0].ids)),
              "changed": a[0].ids != b[0].ids} for p, a, b in zip(probes, on, off)]
    if not any(t["changed"] for t in table):
        raise LemmataError("trainer-policy-inert",
                           f"{len(table)} probe(s), none changed by the adapter")
    out = {"schema": ADMISSION_SCHEMA, "run_id": ident["run_id"], "admitted": True,
           "adapter_sha256": saved, "base_revision": serving.base_revision,
           "max_new_tokens": max_new_tokens, "probes": table}
    _write_json(run / "admission.json", out)
    return out
