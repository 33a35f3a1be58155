"""The adapter-sync contract (issue 14, "Engines behind one interface"): after sync N the
engine serves version N, the tensors it holds are the files', and its output on a probe
changes when the adapter changes. The field's failures this guards against: LoRA weights
that never reached the rollout engine (verl #7495) and a server that went on serving the
old adapter (ms-swift #9855). No test reaches a hub (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers is imported anywhere in this test

from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.trainer.engines import (
    HFEngine,
    adapter_file_tensors,
    build_tiny_model,
    load_base,
    tensors_sha256,
)
from tests.trainer_support import random_adapter, tiny_base

PROBE = ["[lemmata prompt/v1 task=proof]\nTarget: calib\nNode: root\n"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("eng")
    base = tiny_base(root / "base")
    return {"base": base, "a1": random_adapter(base, root / "a1", seed=1),
            "a2": random_adapter(base, root / "a2", seed=2)}


def _greedy(e: HFEngine) -> tuple[int, ...]:
    return e.generate(PROBE, max_new_tokens=12)[0][0].ids


def test_after_sync_n_the_engine_serves_n_and_the_probe_changes(models: dict[str, Path]) -> None:
    e = HFEngine(models["base"])
    assert e.serving().version is None and e.serving().adapter is None
    bare = _greedy(e)
    s1 = e.sync(models["a1"], 1)
    want1 = tensors_sha256(adapter_file_tensors(models["a1"]))
    assert (s1.version, s1.adapter, s1.adapter_sha256) == (1, "v1", want1)
    assert e.held_adapter_sha256() == want1
    out1 = _greedy(e)
    assert out1 != bare
    s2 = e.sync(models["a2"], 2)
    want2 = tensors_sha256(adapter_file_tensors(models["a2"]))
    assert (s2.version, s2.adapter, s2.adapter_sha256) == (2, "v2", want2) and want2 != want1
    assert e.held_adapter_sha256() == want2
    out2 = _greedy(e)
    assert out2 != out1  # the new adapter is what answers (ms-swift #9855)
    assert list(e._peft.peft_config) == ["v2"]  # the old adapter is dropped
    with e.base_only():
        assert _greedy(e) == bare
    # a fresh engine synced straight to a2 answers as this one does: the state is the files'
    fresh = HFEngine(models["base"])
    fresh.sync(models["a2"], 7)
    assert _greedy(fresh) == out2


def test_a_stale_or_reused_version_is_refused(models: dict[str, Path]) -> None:
    e = HFEngine(models["base"])
    e.sync(models["a1"], 3)
    for bad in (3, 2, 0, -1, True):
        with pytest.raises(LemmataError) as exc:
            e.sync(models["a2"], bad)  # type: ignore[arg-type]
        assert exc.value.code == "trainer-adapter-version-stale"
    assert e.serving().version == 3
    assert e.held_adapter_sha256() == tensors_sha256(adapter_file_tensors(models["a1"]))


def test_weights_that_never_reach_the_engine_are_refused(models: dict[str, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """verl #7495: the adapter is attached but its weights are never loaded into it. The
    held tensors are not the files', so the sync is refused and v1 goes on being served."""
    import peft.peft_model

    e = HFEngine(models["base"])
    e.sync(models["a1"], 1)
    out1 = _greedy(e)

    class _Loaded:  # what load_state_dict returns, with nothing loaded
        def __init__(self) -> None:
            self.unexpected_keys: list[str] = []
            self.missing_keys: list[str] = []

    def never_loads(*_: Any, **__: Any) -> _Loaded:
        return _Loaded()

    monkeypatch.setattr(peft.peft_model, "set_peft_model_state_dict", never_loads)
    with pytest.raises(LemmataError) as exc:
        e.sync(models["a2"], 2)
    assert exc.value.code == "trainer-adapter-sync-failed"
    assert e.serving().version == 1 and _greedy(e) == out1
    assert list(e._peft.peft_config) == ["v1"]


def test_a_first_sync_that_fails_leaves_the_bare_base(models: dict[str, Path],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import peft.peft_model

    e = HFEngine(models["base"])
    bare = _greedy(e)

    class _Loaded:
        def __init__(self) -> None:
            self.unexpected_keys: list[str] = []
            self.missing_keys: list[str] = []

    monkeypatch.setattr(peft.peft_model, "set_peft_model_state_dict",
                        lambda *_, **__: _Loaded())
    with pytest.raises(LemmataError) as exc:
        e.sync(models["a1"], 1)
    assert exc.value.code == "trainer-adapter-sync-failed"
    assert e.serving().version is None and e.held_adapter_sha256() is None
    assert _greedy(e) == bare
    monkeypatch.undo()
    assert e.sync(models["a1"], 1).version == 1 and _greedy(e) != bare


def test_missing_adapter_files_are_refused(models: dict[str, Path], tmp_path: Path) -> None:
    e = HFEngine(models["base"])
    (tmp_path / "adapter_config.json").write_text("{}")
    for folder in (tmp_path / "nothing", tmp_path):
        with pytest.raises(LemmataError) as exc:
            e.sync(folder, 1)
        assert exc.value.code == "trainer-adapter-sync-failed"
    assert e.serving().version is None


def test_no_hub_download_a_model_name_is_refused_offline(tmp_path: Path) -> None:
    """A hub name or an empty folder is not a local model: refused, nothing fetched."""
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    for name in ("HuggingFaceTB/SmolLM2-135M", str(tmp_path)):
        with pytest.raises(LemmataError) as exc:
            load_base(name)
        assert exc.value.code == "trainer-model-missing"


def test_the_tiny_model_is_the_same_for_the_same_seed(tmp_path: Path,
                                                      models: dict[str, Path]) -> None:
    from network.trainer.engines import base_revision

    again = build_tiny_model(tmp_path / "b", seed=0)
    other = build_tiny_model(tmp_path / "c", seed=1)
    assert base_revision(again) == base_revision(models["base"]) != base_revision(other)


def test_sampling_is_seeded(models: dict[str, Path]) -> None:
    e = HFEngine(models["base"])
    a = e.generate(PROBE, samples=2, max_new_tokens=8, temperature=1.0, seed=5)
    b = e.generate(PROBE, samples=2, max_new_tokens=8, temperature=1.0, seed=5)
    assert a == b and a[0][0].ids != a[0][1].ids
