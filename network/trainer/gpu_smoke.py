"""The GPU check's Python half (issue 14, "GPU check"; run by ``scripts/gpu_smoke.sh``).

On a machine with a CUDA GPU and vLLM (the ``gpu`` extra), sized for about ten minutes on
one H200:

1. a tiny random Llama (:func:`network.trainer.engines.build_tiny_model`, head size 64 so
   vLLM's attention kernels take it) and two random LoRA adapters, all built locally;
2. :class:`~network.trainer.engines.VLLMEngine` serves the base, then ``v1``, then
   ``v2``: the greedy output on a probe is printed for each, with whether it switched, and
   a stale version is refused;
3. generation throughput (tokens/s) with the adapter;
4. LoRA SFT steps in bf16 on the GPU (completion-only loss is the CPU path's; here the
   batch is all completion): step time, tokens/s and MFU.

MFU is model FLOPs over the GPU's peak dense bf16 FLOPs. Model FLOPs per token are taken
as 4·N for LoRA (forward 2·N, backward through activations 2·N; the frozen base weights get
no gradient), N the base model's parameters, attention's sequence term left out. The peak
comes from ``--peak-tflops`` or the device's name (H100/H200 989, A100 312); unknown: MFU
is not printed.

Prints one JSON line at the end; exits 0 when every step ran and the probe switched.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PEAK_BF16_TFLOPS = {"H200": 989.0, "H100": 989.0, "A100": 312.0, "L40S": 362.0}
PROBE = "[lemmata prompt/v1 task=proof]\nTarget: smoke\nNode: probe\n"


def _random_adapter(base: Path, out: Path, *, seed: int, r: int = 8) -> Path:
    """A LoRA adapter of ``base`` with random A and B, saved with peft."""
    import torch
    from peft import LoraConfig, get_peft_model

    from network.trainer.engines import load_base

    model, _ = load_base(base)
    peft_model = get_peft_model(model, LoraConfig(
        r=r, lora_alpha=2 * r, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        task_type="CAUSAL_LM"))
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_" in name:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    peft_model.save_pretrained(str(out))
    return out


def _peak(name: str, given: float | None) -> float | None:
    if given:
        return given * 1e12
    for key, tf in PEAK_BF16_TFLOPS.items():
        if key in name:
            return tf * 1e12
    return None


def serve_and_switch(base: Path, work: Path, *, tokens: int, prompts: int) -> dict[str, Any]:
    """Steps 2 and 3: the base, v1 and v2 on the probe; a stale sync refused; tokens/s."""
    from network.errors import LemmataError
    from network.trainer.engines import VLLMEngine

    v1 = _random_adapter(base, work / "adapter-1", seed=1)
    v2 = _random_adapter(base, work / "adapter-2", seed=2)
    engine = VLLMEngine(base, work / "served", max_lora_rank=8, gpu_memory_utilization=0.3)
    out: dict[str, Any] = {"probe": {}}

    def probe(label: str) -> tuple[int, ...]:
        [[g]] = engine.generate([PROBE], samples=1, max_new_tokens=24, temperature=0.0)
        s = engine.serving()
        out["probe"][label] = {"served": s.adapter, "version": s.version,
                               "adapter_sha256": s.adapter_sha256, "ids": list(g.ids)}
        print(f"serving {s.adapter or 'the base'} (version {s.version}): probe ids "
              f"{list(g.ids)[:12]}...", flush=True)
        return g.ids

    ids0 = probe("base")
    engine.sync(v1, 1)
    ids1 = probe("v1")
    engine.sync(v2, 2)
    ids2 = probe("v2")
    out["switched"] = ids1 != ids2 and ids1 != ids0
    try:
        engine.sync(v1, 1)
        out["stale_refused"] = False
    except LemmataError as exc:
        out["stale_refused"] = exc.code == "trainer-adapter-version-stale"
    print(f"switch v1 -> v2 changed the probe: {out['switched']}; stale v1 refused: "
          f"{out['stale_refused']}", flush=True)
    batch = [f"{PROBE}sample {i}\n" for i in range(prompts)]
    engine.generate(batch[:4], samples=1, max_new_tokens=8, temperature=0.8, seed=1)  # warm
    t0 = time.perf_counter()
    got = engine.generate(batch, samples=1, max_new_tokens=tokens, temperature=0.8, seed=2)
    dt = time.perf_counter() - t0
    made = sum(g.tokens for gs in got for g in gs)
    out["generation"] = {"prompts": prompts, "tokens": made, "seconds": round(dt, 3),
                         "tokens_per_s": round(made / dt, 1)}
    print(f"generation: {made} tokens in {dt:.2f} s = {made / dt:.0f} tokens/s", flush=True)
    return out  # the engine goes with this frame; vLLM held 30% of the GPU's memory


def sft_bf16(base: Path, *, steps: int, batch: int, seq: int,
             peak_tflops: float | None) -> dict[str, Any]:
    """Step 4: LoRA SFT steps in bf16 on the GPU; step time, tokens/s, MFU."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    auto: Any = AutoModelForCausalLM  # untyped in transformers
    model: Any = auto.from_pretrained(str(base), local_files_only=True,
                                      dtype=torch.bfloat16).to("cuda")
    n_params = sum(p.numel() for p in model.parameters())
    peft_model = get_peft_model(model, LoraConfig(
        r=8, lora_alpha=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        task_type="CAUSAL_LM"))
    opt = torch.optim.AdamW([p for p in peft_model.parameters() if p.requires_grad], lr=1e-4)
    vocab = int(model.config.vocab_size)
    gen = torch.Generator(device="cuda").manual_seed(0)
    ids = torch.randint(0, vocab, (batch, seq), device="cuda", generator=gen)
    times: list[float] = []
    losses: list[float] = []
    for step in range(steps + 2):  # two warm-up steps are not timed
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = peft_model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if step >= 2:
            times.append(time.perf_counter() - t0)
            losses.append(float(loss.detach()))
    step_s = sum(times) / len(times)
    tps = batch * seq / step_s
    name = torch.cuda.get_device_name(0)
    peak = _peak(name, peak_tflops)
    mfu = (4 * n_params * tps / peak) if peak else None
    out = {"device": name, "params": n_params, "batch": batch, "seq": seq, "steps": steps,
           "step_s": round(step_s, 5), "tokens_per_s": round(tps, 1),
           "mfu": round(mfu, 4) if mfu is not None else None,
           "mfu_basis": "4*N FLOPs/token (LoRA), attention term left out, peak "
                        f"{peak / 1e12 if peak else '?'} TFLOPS bf16 dense",
           "loss_first_last": [round(losses[0], 4), round(losses[-1], 4)]}
    print(f"sft bf16 on {name}: {n_params / 1e6:.1f} M params, step {step_s * 1e3:.1f} ms, "
          f"{tps:.0f} tokens/s, MFU {'n/a' if mfu is None else f'{100 * mfu:.2f}%'} "
          f"({out['mfu_basis']}); loss (not a pass rate) {out['loss_first_last']}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """The smoke run; 0 when everything ran and the probe switched with the adapter."""
    ap = argparse.ArgumentParser(prog="gpu_smoke")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--gen-tokens", type=int, default=128)
    ap.add_argument("--gen-prompts", type=int, default=256)
    ap.add_argument("--sft-steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--peak-tflops", type=float, default=None)
    ap.add_argument("--json", type=Path, default=None, help="Also write the result here.")
    a = ap.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("gpu_smoke: torch sees no CUDA device; this check needs a GPU", file=sys.stderr)
        return 2
    from network.trainer.engines import build_tiny_model

    work = a.work or Path(tempfile.mkdtemp(prefix="lemmata-gpu-smoke-"))
    base = build_tiny_model(work / "base", layers=a.layers, hidden=a.hidden, heads=a.heads)
    t0 = time.perf_counter()
    result: dict[str, Any] = {"torch": torch.__version__}
    try:
        import vllm

        result["vllm"] = vllm.__version__
    except ImportError:
        print("gpu_smoke: vllm is not importable (pip install '.[gpu]')", file=sys.stderr)
        return 3
    result["serve"] = serve_and_switch(base, work, tokens=a.gen_tokens, prompts=a.gen_prompts)
    import gc

    gc.collect()
    torch.cuda.empty_cache()
    result["sft"] = sft_bf16(base, steps=a.sft_steps, batch=a.batch, seq=a.seq,
                             peak_tflops=a.peak_tflops)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    ok = bool(result["serve"]["switched"] and result["serve"]["stale_refused"])
    result["ok"] = ok
    line = json.dumps(result, sort_keys=True)
    if a.json:
        a.json.write_text(line + "\n", encoding="utf-8")
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
