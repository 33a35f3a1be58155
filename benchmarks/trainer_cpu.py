"""Benchmark: the trainer on the CPU with the tiny model (issue 14).

Builds the 2-layer random Llama of ``network.trainer.engines.build_tiny_model`` (byte-level
tokenizer, no hub download), compiles the trainer fixture graph with the miniF2F fixture,
then measures, each beside a *floor* measured in the same run on the same machine:

- generation samples/s: ``HFEngine.generate`` with an adapter synced, sampling
  ``--tokens`` new tokens for each of ``--samples`` samples of real prompts; floor: the
  same number of bare forward passes of the base model over the same token count, with a
  KV cache and nothing else (no sampling, no adapter, no tokenizing or decoding);
- SFT steps/s: ``run_sft`` steps after the first (LoRA, completion-only loss, AdamW, a
  checkpoint per step; the set-up before the first step is not counted); floor: forward, backward and an AdamW step of the same batch on the bare base
  model's parameters, with no LoRA, no checkpoint and no identity.

Timings are printed, never asserted.

Usage::

    .venv/bin/python benchmarks/trainer_cpu.py
    .venv/bin/python benchmarks/trainer_cpu.py --samples 8 --tokens 64 --steps 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


def run(samples: int, tokens: int, steps: int, batch_size: int) -> dict[str, Any]:
    """Measure generation and SFT and their floors; returns the figures."""
    import torch

    from network.trainer.engines import HFEngine, build_tiny_model, load_base
    from network.trainer.sft import (
        SFTConfig,
        collate,
        completion_loss,
        encode_row,
        run_sft,
        training_rows,
    )
    from tests.trainer_support import compiled_dataset

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    with tempfile.TemporaryDirectory() as tmp:
        base = build_tiny_model(Path(tmp) / "base")
        _, ds, _ = compiled_dataset(Path(tmp))
        cfg = SFTConfig(steps=steps, batch_size=batch_size, learning_rate=1e-2, max_length=768)
        # --- SFT ---------------------------------------------------------------------------
        marks: list[float] = []
        res = run_sft(ds, base, Path(tmp) / "run", cfg,
                      on_step=lambda *_: marks.append(time.perf_counter()))
        sft_s = (marks[-1] - marks[0]) / (steps - 1) * steps  # steady steps, no set-up
        rows = training_rows(ds, cfg)
        model, tok = load_base(base)
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        batch = collate(tok, [encode_row(tok, r["prompt"], r["completion"], 768)
                              for r in (rows * batch_size)[:batch_size]])
        t0 = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            completion_loss(model, batch).backward()
            opt.step()
        sft_floor_s = time.perf_counter() - t0
        # --- generation --------------------------------------------------------------------
        prompts = [r["prompt"] for r in rows][:1] or ["theorem X : 1 = 1 := by\n"]
        engine = HFEngine(base)
        assert res.adapter_dir is not None
        engine.sync(res.adapter_dir, 1)
        engine.generate(prompts, samples=1, max_new_tokens=4, temperature=1.0)  # warm-up
        t0 = time.perf_counter()
        gens = engine.generate(prompts, samples=samples, max_new_tokens=tokens,
                               temperature=1.0, seed=1)
        gen_s = time.perf_counter() - t0
        generated = sum(g.tokens for g in gens[0])
        bare, _ = load_base(base)
        ids = tok(prompts[0], return_tensors="pt", add_special_tokens=False)["input_ids"]
        t0 = time.perf_counter()
        with torch.no_grad():
            for _ in range(samples):
                out = bare(input_ids=ids, use_cache=True)
                past, nxt = out.past_key_values, ids[:, -1:]
                for _ in range(tokens - 1):
                    out = bare(input_ids=nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
        gen_floor_s = time.perf_counter() - t0
    return {"samples": samples, "new_tokens_per_sample": tokens, "generated_tokens": generated,
            "prompt_tokens": int(ids.shape[1]),
            "generation_samples_per_s": round(samples / gen_s, 2),
            "generation_floor_samples_per_s": round(samples / gen_floor_s, 2),
            "sft_steps": steps, "batch_size": batch_size,
            "sft_steps_per_s": round(steps / sft_s, 2),
            "sft_floor_steps_per_s": round(steps / sft_floor_s, 2),
            "losses": [round(v, 4) for _, v in res.losses],
            "torch": torch.__version__, "threads": torch.get_num_threads()}


def main(argv: list[str] | None = None) -> int:
    """Print the figures as one JSON object and a readable summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=2)
    a = ap.parse_args(argv)
    if a.steps < 2:
        ap.error("--steps must be at least 2 (steps/s is timed between steps)")
    res = run(a.samples, a.tokens, a.steps, a.batch_size)
    print(json.dumps(res))
    print(f"generation {res['generation_samples_per_s']:>8} samples/s  (floor "
          f"{res['generation_floor_samples_per_s']} samples/s: bare cached forwards, "
          f"{res['new_tokens_per_sample']} tokens/sample)")
    print(f"SFT        {res['sft_steps_per_s']:>8} steps/s    (floor "
          f"{res['sft_floor_steps_per_s']} steps/s: forward, backward, AdamW on the bare "
          f"model, batch {res['batch_size']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
