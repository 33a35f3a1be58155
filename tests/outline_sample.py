"""The outline sample (D-3 v3.30): three one-theorem proofs and the outline answers declared
by hand next to them (tests/fixtures/toolchain/sources/outline/declared.json), what the
pinned Lean prints through Outline.lean for those bytes. make_recordings.py writes its
recording; tests/test_recordings_audit.py replays it against Lean where Lean is installed;
:func:`outline_problems` holds out what is false on its face without Lean (issue 10)."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from standin import FIXTURES, inputs_key

from network.gate.sandbox.workspace import Workspace, node_source, write_workspace
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


def _code(text: str) -> str:
    """``text`` without comments: what Lean elaborates."""
    text = re.sub(r"/-.*?-/", " ", text, flags=re.DOTALL)
    return re.sub(r"--[^\n]*", "", text)


def outline_problems(calls: Sequence[Mapping[str, Any]], sources: Mapping[str, str]) -> list[str]:
    """What in a recording's outline answers real Lean could not give, on its face
    (issue 10's rule; ``sources``: module → its Lean text):

    * an outline of a module no passing build of the same recording built;
    * steps for a text with ``sorry`` (a merged proof has none; the sample records none);
    * a step that reads back while saying why it does not, or shows a claim Lean only;
    * a ``have``/``let`` step whose label is not bound by that keyword in the code, a
      count of such steps other than the code's binders, or a whole-theorem step where the
      code binds some (the checker reads the term, and the term has exactly those);
    * a whole-theorem step whose label is not its declaration, or that leaves a goal.
    """
    out: list[str] = []
    built: set[str] = set()
    for c in calls:
        if c["method"] == "build" and c["result"].get("ok"):
            built.update(c["args"]["modules"])
        if c["method"] != "outline" or not c["result"].get("ok"):
            continue
        mod = c["args"]["module"]
        steps = c["result"].get("steps", [])
        if mod not in built:
            out.append(f"{mod}: an outline of a module no passing build built")
        code = _code(sources.get(mod, ""))
        if re.search(r"(?<![\w.'])sorry(?![\w'])", code) and steps:
            out.append(f"{mod}: steps recorded for a proof with sorry")
        binders = re.findall(r"(?<![\w.])(have|let)\s+(«[^»]*»|[^\s:]+)\s*:", code)
        named = [s for s in steps if s["kind"] in ("have", "let")]
        whole = [s for s in steps if s["kind"] == "theorem"]
        for s in steps:
            if s.get("lean_only") is False and (s.get("why") is not None
                                                or not isinstance(s.get("claim"), str)):
                out.append(f"{mod}: step {s['index']} reads back yet says why not")
            if s.get("lean_only") is not False and s.get("claim") is not None:
                out.append(f"{mod}: step {s['index']} is Lean only yet claims")
            if s.get("hole") and not re.search(r"(?<![\w.'])sorry(?![\w'])", code):
                out.append(f"{mod}: step {s['index']} is a hole in a proof without sorry")
        for s in named:
            if (s["kind"], s.get("name")) not in binders:
                out.append(f"{mod}: no `{s['kind']} {s.get('name')}` binds in the code")
        if binders and (whole or len(named) != len(binders)):
            out.append(f"{mod}: the code binds {len(binders)} steps, the answer has "
                       f"{len(named)} and {len(whole)} whole-theorem step(s)")
        if not binders and (named or len(whole) != len(c["args"]["decls"])):
            out.append(f"{mod}: a proof with no binder has one whole-theorem step per "
                       "declaration")
        for s in whole:
            if s.get("name") != s["decl"] or s.get("goal") is not None:
                out.append(f"{mod}: a whole-theorem step is its declaration and leaves "
                           "no goal")
    return out


def sample_sources() -> dict[str, str]:
    """module → Lean text of the sample."""
    d = declared()
    return {f"Lemmata.{d['target']}.{node}.Proof": (SAMPLE / name).read_text("utf-8")
            for node, name in d["sources"].items()}
