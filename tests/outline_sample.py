"""The outline sample (D-3 v3.30): two one-line proofs and the outline answers declared by
hand next to them (tests/fixtures/toolchain/sources/outline/declared.json), what the pinned
Lean prints through Outline.lean for those bytes. make_recordings.py writes its recording;
tests/test_recordings_audit.py replays it against Lean where Lean is installed."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from standin import FIXTURES, inputs_key

from network.gate.workspace import Workspace, node_source, write_workspace
from network.record.models import GateSpec

SAMPLE = FIXTURES / "sources" / "outline"


def declared() -> dict[str, Any]:
    """The hand-written declaration (sources, calls and their answers)."""
    return json.loads((SAMPLE / "declared.json").read_text("utf-8"))  # type: ignore[no-any-return]


def outline_spec() -> GateSpec:
    """The sample's gate-spec: the pin its answers are declared for."""
    return GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": declared()["lean_toolchain"]})


def outline_workspace(root: Path) -> Workspace:
    """The sample's check workspace: each node's Proof.lean, no statement (the outline reads
    only the proof's own module)."""
    d = declared()
    return write_workspace(root, outline_spec(), [
        node_source(d["target"], node, "Proof", (SAMPLE / name).read_bytes())
        for node, name in sorted(d["sources"].items())])


def outline_recording() -> tuple[str, dict[str, Any]]:
    """(key, recording) of the sample for tests/fixtures/toolchain/."""
    ws = outline_workspace(Path(tempfile.mkdtemp()) / "ws")
    files = {rel: hashlib.sha256(b).hexdigest() for rel, b in ws.input_files().items()}
    return inputs_key(ws.input_files()), {"files": files, "calls": declared()["calls"]}
