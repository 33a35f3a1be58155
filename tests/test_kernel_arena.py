"""lean-kernel-arena's invalid exports through the gate's kernels (issue 37; ``lean``-marked).

Every arena test under ``tests/bugs/`` whose expected outcome is ``reject`` and that ships
its export (``file: ….ndjson``) is handed to each kernel of the gate's default set that
reads an export: nanoda at the soundness record's pinned commit (the binary and its
``.commit`` file ``lemmata toolchain install`` writes under the pin root's ``tools/``), and
Lean's own kernel through ``leanchecker --from-export`` where the installed toolchain has it
(lean4 PR #15050). The gate refuses whatever any kernel refuses, so each export must be
refused by at least one. The arena is read at the record's pinned commit: ``LEMMATA_ARENA``
names a checkout of it (the project's CI clones it), or the test clones it itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from network.gate.lean.kernel_replay import KERNEL_BINARIES, kernel_commit, nanoda_config
from network.gate.lean.kernels import soundness_record

pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(shutil.which("lean") is None, reason="needs a real Lean toolchain"),
]

TOOLS = Path(os.environ.get("LEMMATA_PINS_ROOT",
                            Path.home() / ".cache" / "lemmata" / "pins")) / "tools"


def arena_checkout(tmp: Path) -> Path:
    pin = soundness_record().pins["lean-kernel-arena"]
    given = os.environ.get("LEMMATA_ARENA")
    root = Path(given) if given else tmp / "arena"
    if not given:
        subprocess.run(["git", "clone", "--quiet", pin.repo, str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "checkout", "--quiet", "--detach",
                        str(pin.commit)], check=True)
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert head == pin.commit, f"the arena checkout is at {head}, pinned {pin.commit}"
    return root


def invalid_exports(root: Path) -> list[tuple[str, Path]]:
    out = []
    for spec in sorted((root / "tests" / "bugs").glob("*.yaml")):
        data = yaml.safe_load(spec.read_text())
        if data.get("outcome") == "reject" and str(data.get("file", "")).endswith(".ndjson"):
            out.append((spec.stem, root / data["file"]))
    return out


def refused_by_nanoda(export: Path, tmp: Path) -> bool:
    config = tmp / "nanoda.json"
    config.write_text(json.dumps(nanoda_config(export)))
    done = subprocess.run([str(TOOLS / KERNEL_BINARIES["nanoda"]), str(config)],
                          capture_output=True, text=True, timeout=600, check=False)
    return done.returncode != 0


def refused_by_lean(export: Path) -> bool | None:
    """None when the installed leanchecker has no ``--from-export``."""
    help_text = subprocess.run(["leanchecker", "--help"], capture_output=True, text=True,
                               check=False)
    if "--from-export" not in help_text.stdout + help_text.stderr:
        return None
    done = subprocess.run(["leanchecker", "--from-export", str(export)], capture_output=True,
                          text=True, timeout=600, check=False)
    return done.returncode != 0


def test_every_invalid_arena_export_is_refused_by_the_gates_kernels(tmp_path: Path) -> None:
    pinned = soundness_record().pins["nanoda"].commit
    if not (TOOLS / KERNEL_BINARIES["nanoda"]).is_file() or kernel_commit(TOOLS, "nanoda") \
            != pinned:
        pytest.skip("nanoda is not installed at the pinned commit "
                    "(`lemmata toolchain install`)")
    exports = invalid_exports(arena_checkout(tmp_path))
    assert exports, "no invalid export found in the pinned arena"
    through: list[str] = []
    for name, export in exports:
        verdicts = [refused_by_nanoda(export, tmp_path), refused_by_lean(export)]
        if not any(v for v in verdicts if v is not None):
            through.append(name)
    assert through == [], f"accepted by every kernel of the gate: {through}"
