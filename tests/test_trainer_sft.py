"""LoRA SFT (issue 14, "Training"; seed 000): completion-only loss, the run identity written
before the first step, resuming only into the same identity (and to the same adapter),
and saved-policy admission (the reloaded adapter must agree with the trained tensors and
change a probe). No test reaches a hub (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from network.errors import LemmataError
from network.trainer import sft as S
from network.trainer.engines import load_base
from tests.trainer_support import compiled_dataset, random_adapter, tiny_base

CFG = S.SFTConfig(steps=2, batch_size=2, learning_rate=1e-2, max_length=768, seed=0)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sft")
    graph, ds, _ = compiled_dataset(root)
    return {"root": root, "graph": graph, "ds": ds, "base": tiny_base(root / "base")}


def test_the_loss_ignores_the_prompt(world: dict[str, Path]) -> None:
    import torch

    model, tok = load_base(world["base"])
    prompt, completion = "[prompt] theorem A : 1 = 1 := by\n", "  rfl\n"
    ids, labels = S.encode_row(tok, prompt, completion, 512)
    n_prompt = len(tok(prompt, add_special_tokens=False)["input_ids"])
    assert labels[:n_prompt] == [-100] * n_prompt
    assert labels[n_prompt:] == ids[n_prompt:] and ids[-1] == tok.eos_token_id
    batch = S.collate(tok, [(ids, labels)])
    got = S.completion_loss(model, batch)
    logits = model(input_ids=batch["input_ids"]).logits[0]
    per_token = torch.nn.functional.cross_entropy(logits[:-1], batch["input_ids"][0, 1:],
                                                  reduction="none")
    want = per_token[n_prompt - 1:].mean()  # positions predicting the completion's tokens
    assert torch.allclose(got, want, atol=1e-5)
    assert not torch.allclose(got, per_token.mean(), atol=1e-3)
    # another prompt before the same completion changes the logits, never which tokens count
    _, labels2 = S.encode_row(tok, "x" * 40, completion, 512)
    assert [t for t in labels2 if t != -100] == [t for t in labels if t != -100]


def test_a_long_row_keeps_its_whole_prompt(world: dict[str, Path]) -> None:
    _, tok = load_base(world["base"])
    ids, labels = S.encode_row(tok, "p" * 50, "c" * 100, 60)
    assert len(ids) == 60 and labels[:50] == [-100] * 50
    ids, labels = S.encode_row(tok, "p" * 80, "c" * 10, 60)
    assert len(ids) == 81 and labels[-1] != -100  # the prompt whole, one completion token


def test_the_identity_is_written_before_training(world: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    seen: list[dict[str, Any]] = []
    res = S.run_sft(world["ds"], world["base"], run, CFG,
                    on_step=lambda step, loss: seen.append(
                        json.loads((run / "run.json").read_text())))
    assert len(seen) == 2 and seen[0] == res.identity == json.loads((run / "run.json").read_text())
    ident = res.identity
    manifest = json.loads((world["ds"] / "manifest.json").read_text())
    assert ident["data"]["graph_commit"] == manifest["graph"]["commit"]
    assert ident["data"]["files"]["sft.jsonl"] == manifest["files"]["sft.jsonl"]["sha256"]
    assert ident["base_model"]["revision"].startswith("sha256:")
    assert ident["lora"]["r"] == 8 and ident["seed"] == 0 and len(ident["source_tree_sha256"]) == 64
    assert ident["config"]["learning_rate"] == 1e-2
    assert [s for s, _ in res.losses] == [1, 2] and all(v > 0 for _, v in res.losses)
    trained = json.loads((run / "trained.json").read_text())
    assert trained["adapter_sha256"] == res.adapter_sha256


def test_an_interrupted_run_resumes_to_the_same_adapter(world: dict[str, Path],
                                                        tmp_path: Path) -> None:
    cfg = replace(CFG, steps=3, batch_size=1)
    whole = S.run_sft(world["ds"], world["base"], tmp_path / "whole", cfg)
    part = S.run_sft(world["ds"], world["base"], tmp_path / "part", cfg, stop_after=1)
    assert part.steps_done == 1 and part.adapter_dir is None
    assert not (tmp_path / "part" / "adapter").exists()
    done = S.run_sft(world["ds"], world["base"], tmp_path / "part", cfg)
    assert done.steps_done == 3 and done.losses == whole.losses
    assert done.adapter_sha256 == whole.adapter_sha256


@pytest.mark.parametrize("change", ["config", "base", "data"])
def test_a_run_resumes_only_into_the_same_identity(world: dict[str, Path], tmp_path: Path,
                                                   change: str) -> None:
    run = tmp_path / "run"
    S.run_sft(world["ds"], world["base"], run, CFG, stop_after=1)
    before = (run / "run.json").read_bytes()
    state = (run / "checkpoint" / "state.pt").read_bytes()
    ds, base, cfg = world["ds"], world["base"], CFG
    if change == "config":
        cfg = replace(CFG, learning_rate=2e-2)
    elif change == "base":
        base = tiny_base(tmp_path / "other-base")
        import torch
        from safetensors.torch import load_file, save_file
        w = load_file(str(base / "model.safetensors"))
        name = min(w)
        w[name] = w[name] + torch.ones_like(w[name])  # other weights, same config
        save_file(w, str(base / "model.safetensors"), metadata={"format": "pt"})
    else:  # another dataset: the same graph compiled with another split seed
        from network.trainer import dataset as D
        ds = tmp_path / "ds2"
        D.write_dataset(D.compile_dataset(world["graph"], seed="another"), ds)
    with pytest.raises(LemmataError) as exc:
        S.run_sft(ds, base, run, cfg)
    assert exc.value.code == "trainer-run-identity-mismatch"
    assert (run / "run.json").read_bytes() == before
    assert (run / "checkpoint" / "state.pt").read_bytes() == state


def test_a_tampered_dataset_is_refused(world: dict[str, Path], tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    shutil.copytree(world["ds"], ds)
    rows = (ds / "sft.jsonl").read_text().splitlines()
    row = json.loads(rows[0])
    row["completion"] = "theorem x : False := sorry\n"
    (ds / "sft.jsonl").write_text("\n".join([json.dumps(row), *rows[1:]]) + "\n")
    with pytest.raises(LemmataError) as exc:
        S.run_sft(ds, world["base"], tmp_path / "run", CFG)
    assert exc.value.code == "trainer-source-malformed"
    assert not (tmp_path / "run").exists()


def test_a_folder_that_is_no_run_and_bad_settings_are_refused(world: dict[str, Path],
                                                              tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(LemmataError) as exc:
        S.run_sft(world["ds"], world["base"], tmp_path / "run", CFG)
    assert exc.value.code == "trainer-out-not-empty"
    for bad in (replace(CFG, steps=0), replace(CFG, learning_rate=0.0),
                replace(CFG, lora=S.LoraSettings(r=0))):
        with pytest.raises(LemmataError) as exc:
            S.run_sft(world["ds"], world["base"], tmp_path / "r2", bad)
        assert exc.value.code == "trainer-config-invalid"
    with pytest.raises(LemmataError) as exc:
        S.run_sft(world["ds"], world["base"], tmp_path / "r3", replace(CFG, tasks=("repair",)))
    assert exc.value.code == "trainer-no-training-rows"
    assert not (tmp_path / "r2").exists() and not (tmp_path / "r3").exists()


def test_a_trained_adapter_is_admitted(world: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    res = S.run_sft(world["ds"], world["base"], run, CFG)
    adm = S.admit(run, world["ds"], world["base"])
    assert adm["admitted"] and adm["adapter_sha256"] == res.adapter_sha256
    assert any(p["changed"] for p in adm["probes"]) and len(adm["probes"]) == S.PROBES
    sealed = {json.loads(x)["id"] for x in (world["ds"] / "sealed.jsonl").read_text().splitlines()}
    assert not {p["row"] for p in adm["probes"]} & sealed  # probes never come from sealed
    assert json.loads((run / "admission.json").read_text()) == adm


def test_an_adapter_that_changes_nothing_is_refused(world: dict[str, Path],
                                                    tmp_path: Path) -> None:
    """Seed 000: "LoRA files were attached" is not "LoRA participates in the policy"."""
    run = tmp_path / "run"
    S.run_sft(world["ds"], world["base"], run, replace(CFG, learning_rate=1e-9))
    with pytest.raises(LemmataError) as exc:
        S.admit(run, world["ds"], world["base"])
    assert exc.value.code == "trainer-policy-inert"
    assert not (run / "admission.json").exists()


def test_a_saved_adapter_that_is_not_the_trained_one_is_refused(world: dict[str, Path],
                                                                tmp_path: Path) -> None:
    run = tmp_path / "run"
    S.run_sft(world["ds"], world["base"], run, CFG)
    shutil.rmtree(run / "adapter")
    random_adapter(world["base"], run / "adapter", seed=9)  # swapped after training
    with pytest.raises(LemmataError) as exc:
        S.admit(run, world["ds"], world["base"])
    assert exc.value.code == "trainer-policy-mismatch"
    assert not (run / "admission.json").exists()
