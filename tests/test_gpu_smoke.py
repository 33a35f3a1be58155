"""scripts/gpu_smoke.sh and its Python half (issue 14, "GPU check"). This machine has no
GPU: the script must parse, and say clearly why it stops where there is none; the Python
half refuses a torch without CUDA, and VLLMEngine without vLLM is ``trainer-model-missing``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from network.errors import LemmataError

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_smoke.sh"


def _path_without_nvidia_smi(extra: Path | None = None) -> str:
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not (Path(d) / "nvidia-smi").exists()]
    return os.pathsep.join(([str(extra)] if extra else []) + keep)


def _run(path: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=path, PYTHON=sys.executable)
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env,
                          timeout=120, check=False, cwd=ROOT)


def test_the_script_parses() -> None:
    done = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert os.access(SCRIPT, os.X_OK)


def test_without_a_gpu_it_exits_2_with_a_clear_message() -> None:
    done = _run(_path_without_nvidia_smi())
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no GPU here (nvidia-smi not found)" in done.stderr


def test_an_nvidia_smi_that_lists_nothing_is_no_gpu(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\nexit 0\n")
    (fake / "nvidia-smi").chmod(0o755)
    done = _run(_path_without_nvidia_smi(fake))
    assert done.returncode == 2 and "nvidia-smi lists none" in done.stderr, done.stderr


def test_a_listed_gpu_with_a_cpu_torch_is_refused(tmp_path: Path) -> None:
    """Built to pass the first check: a GPU listed, but torch is the CPU build."""
    pytest.importorskip("torch")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA H200, 143771 MiB'\n")
    (fake / "nvidia-smi").chmod(0o755)
    done = _run(_path_without_nvidia_smi(fake))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "sees no CUDA device" in done.stderr and "NVIDIA H200" in done.stdout


def test_the_python_half_refuses_a_torch_without_cuda() -> None:
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible")
    from network.trainer.gpu_smoke import _peak, main

    assert main([]) == 2
    assert _peak("NVIDIA H200", None) == 989e12 and _peak("Some GPU", None) is None
    assert _peak("Some GPU", 100.0) == 100e12


def test_vllm_engine_without_vllm_is_model_missing(tmp_path: Path) -> None:
    try:
        import vllm  # noqa: F401
        pytest.skip("vllm is installed")
    except ImportError:
        pass
    from network.trainer.engines import VLLMEngine

    with pytest.raises(LemmataError) as e:
        VLLMEngine(tmp_path, tmp_path / "work")
    assert e.value.code == "trainer-model-missing"
