#!/usr/bin/env bash
# The trainer's GPU check (issue 14, docs/trainer.md "GPU check"), for any machine with a
# CUDA GPU; sized for about ten minutes on one H200. It
#   1. checks that a GPU is visible and that `import vllm` works;
#   2. serves a tiny random Llama with two LoRA adapter versions through VLLMEngine and
#      shows the switch on a probe (and that a stale version is refused);
#   3. prints generation tokens/s;
#   4. runs LoRA SFT steps in bf16 and prints step time, tokens/s and MFU.
# Nothing is downloaded: the model and adapters are built locally. Usage:
#   scripts/gpu_smoke.sh [--json OUT.json] [--sft-steps N] [--peak-tflops T] ...
# Environment: PYTHON (default: .venv/bin/python if present, else python3).
# Exit codes: 0 ok; 1 the probe did not switch or a stale sync was not refused;
#   2 no GPU; 3 vllm not importable; 4 no Python.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ -n "${PYTHON:-}" ]]; then
  py="$PYTHON"
elif [[ -x .venv/bin/python ]]; then
  py=.venv/bin/python
else
  py=python3
fi
if ! command -v "$py" >/dev/null 2>&1; then
  echo "gpu_smoke: no Python at '$py' (set PYTHON)" >&2
  exit 4
fi

if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu_smoke: no GPU here (nvidia-smi not found); run this on a machine with a CUDA GPU" >&2
  exit 2
fi
if ! gpus="$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null)" \
    || [[ -z "$gpus" ]]; then
  echo "gpu_smoke: no GPU here (nvidia-smi lists none); run this on a machine with a CUDA GPU" >&2
  exit 2
fi
echo "gpu_smoke: GPUs: $gpus"

if ! "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu_smoke: torch in $py sees no CUDA device (a CPU build of torch?)" >&2
  exit 2
fi
if ! vllm_version="$("$py" -c 'import vllm; print(vllm.__version__)' 2>/dev/null)"; then
  echo "gpu_smoke: 'import vllm' failed in $py; install the gpu extra: pip install '.[gpu]'" >&2
  exit 3
fi
echo "gpu_smoke: vllm $vllm_version"

export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
exec "$py" -m network.trainer.gpu_smoke "$@"
