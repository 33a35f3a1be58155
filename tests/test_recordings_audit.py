"""The recordings audit (issue 10): the stand-in's answers are declared by hand, and this is
what checks them against Lean.

Wherever Lean exists (``lean`` and ``lake`` on PATH; ``pytest -m lean``), it runs the real
adapter, :class:`~network.gate.lean.lean_toolchain.LeanToolchain` through the real
:class:`~network.gate.sandbox.sandbox.Sandbox`, on every recorded fixture it can rebuild: it drives
the gate, the precheck and the post-merge job over every gate scenario exactly as
tests/fixtures/toolchain/make_recordings.py does, the tutorial sample of that script, and
the service flow of tests/fixtures/toolchain/make_api_recordings.py, and the outline sample
(tests/fixtures/toolchain/sources/outline/declared.json, D-3 v3.30). Each call is answered
by the recording and by Lean; the first answer that differs (on any field the recording
declares, diagnostics such as logs aside) fails the test and names the scenario, the call
and the field. Elsewhere it is skipped with that reason.

The gate scenarios pin ``tests.graphs.DEFAULT_TOOLCHAIN`` (elan finds it under
``~/.elan/toolchains/``, where it must be installed); the tutorial sample and the real
graph pin v4.34.0. The e2e recordings (tests/fixtures/e2e/) come from a launched network
in subprocesses and are not audited here.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import RecordingToolchain, Scenario, record_all

from network.gate.lean.detect import detect_toolchain
from network.gate.lean.toolchain import Toolchain
from network.record.models import GateSpec

_NO_LEAN = shutil.which("lean") is None or shutil.which("lake") is None


def needs_lean(fn: Callable[..., None]) -> Callable[..., None]:
    """``lean``-marked, skipped where lean and lake are not on PATH."""
    skip = pytest.mark.skipif(
        _NO_LEAN, reason="needs a real Lean toolchain: lean and lake are not on PATH")
    return pytest.mark.lean(skip(fn))

#: fields that are diagnostics for people, never part of an answer's meaning
DIAGNOSTIC = frozenset({"detail", "log", "messages", "paths", "githash", "killed_by", "rc"})


def as_json(value: Any) -> Any:
    """A result (dataclass, tuple, …) as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value, default=str))


def differences(declared: Any, got: Any, path: str = "") -> list[str]:
    """Where Lean's answer ``got`` differs from the ``declared`` one, on declared fields."""
    if isinstance(declared, dict):
        if not isinstance(got, dict):
            return [f"{path or 'answer'}: declared {declared!r}, Lean {got!r}"]
        out: list[str] = []
        for k, v in declared.items():
            if k in DIAGNOSTIC:
                continue
            out += differences(v, got.get(k), f"{path}.{k}" if path else k)
        return out
    if isinstance(declared, list) and all(isinstance(x, dict) for x in declared):
        if not isinstance(got, list) or len(got) != len(declared):
            return [f"{path}: declared {declared!r}, Lean {got!r}"]
        key = "name" if all("name" in x for x in declared) else None
        if key:
            declared = sorted(declared, key=lambda x: str(x[key]))
            got = sorted(got, key=lambda x: str(x.get(key)))
        return [d for i, (a, b) in enumerate(zip(declared, got, strict=True))
                for d in differences(a, b, f"{path}[{i}]")]
    if isinstance(declared, list) and isinstance(got, list):
        same = sorted(map(str, declared)) == sorted(map(str, got))
        return [] if same else [f"{path}: declared {declared!r}, Lean {got!r}"]
    return [] if declared == got else [f"{path}: declared {declared!r}, Lean {got!r}"]


class _Capture(RecordingToolchain):
    """A recorder that keeps the declared answer of its last call."""

    last: dict[str, Any] | None = None

    def _record(self, key: str, files: dict[str, str], method: str, args: dict[str, Any]
                ) -> dict[str, Any]:
        result = super()._record(key, files, method, args)
        self.last = {"method": method, "args": args, "result": result}
        return result


class Auditing:
    """A Toolchain answering from the recording while asking Lean the same call; the
    first difference is kept in :attr:`first` (class-wide) and ends the comparisons."""

    first: ClassVar[list[str]] = []
    calls: ClassVar[int] = 0
    #: what answers for Lean: the real adapter (a test of the audit swaps in a fake)
    real_factory: ClassVar[Callable[[GateSpec], Any]] = staticmethod(detect_toolchain)

    def __init__(self, spec: GateSpec, scenario: Scenario,
                 store: dict[str, dict[str, Any]]) -> None:
        self.spec = spec
        self.scenario = scenario
        self.recorder = _Capture(spec, scenario, store)
        self.real: Toolchain = Auditing.real_factory(spec)

    def __getattr__(self, name: str) -> Any:
        declared_fn = getattr(self.recorder, name)
        if name.startswith("_") or not callable(declared_fn):
            return declared_fn
        real_fn = getattr(self.real, name)

        def both(*args: Any, **kw: Any) -> Any:
            self.recorder.last = None
            answer = declared_fn(*args, **kw)
            if Auditing.first:
                return answer
            if name == "outline" and self.recorder.last is None:
                # the scenarios declare no outline: the recorder answered "no recording"
                # and recorded nothing, so there is no claim to audit (the declared outlines
                # are the outline sample's, audited below)
                return answer
            got = as_json(real_fn(*args, **kw))
            Auditing.calls += 1
            declared = (self.recorder.last or {}).get("result")
            if name == "describe":
                declared = {k: v for k, v in as_json(answer).items()
                            if k in ("ok", "code", "lean_version")}
            diff = differences(declared, got) if declared is not None else [
                "the recording has no declared answer for this call"]
            if diff:
                args_shown = (self.recorder.last or {}).get("args", {})
                Auditing.first.append(f"{self.scenario.name}: {name}"
                                      f"({json.dumps(args_shown, ensure_ascii=False)[:300]}): "
                                      + "; ".join(diff[:5]))
            return answer
        return both


def _audit(run: Callable[[], Any]) -> None:
    Auditing.first, Auditing.calls = [], 0
    run()
    assert Auditing.first == [], Auditing.first[0]
    assert Auditing.calls > 0, "nothing was asked of Lean"


@needs_lean
def test_every_gate_scenario_recording_is_what_lean_answers(tmp_path: Path) -> None:
    _audit(lambda: record_all(tmp_path, recorder=Auditing))  # type: ignore[arg-type]


@needs_lean
def test_the_tutorial_sample_recording_is_what_lean_answers(tmp_path: Path) -> None:
    from standin import FIXTURES, RecordedToolchain, inputs_key

    from network.gate.sandbox.sandbox import Sandbox
    from network.gate.sandbox.workspace import node_source, write_workspace
    from network.record.models import Caps

    spec = GateSpec.model_validate({"schema": "gate-spec/v1",
                                    "lean_toolchain": "leanprover/lean4:v4.34.0"})
    src = FIXTURES / "sources"
    ws = write_workspace(tmp_path / "ws", spec, [
        node_source("tutorial", "tutorial", s, (src / f"{s}.lean").read_bytes())
        for s in ("Statement", "Proof", "Witness")])
    rec = json.loads((FIXTURES / f"{inputs_key(ws.input_files())}.json").read_text("utf-8"))
    real, stand_in = detect_toolchain(spec), RecordedToolchain(spec)
    sb, caps = Sandbox(), Caps(wall_s=600, memory_mib=8192)
    for call in rec["calls"]:
        method, a = call["method"], call["args"]
        assert as_json(_ask(stand_in, method, a, ws, sb, caps))["ok"] == call["result"]["ok"]
        diff = differences(call["result"], as_json(_ask(real, method, a, ws, sb, caps)))
        assert diff == [], f"tutorial sample: {method}: {diff}"


@needs_lean
def test_the_outline_sample_recording_is_what_lean_answers(tmp_path: Path) -> None:
    """The outline answers declared by hand (tests/fixtures/toolchain/sources/outline/,
    D-3 v3.30) are what Outline.lean prints on the pinned Lean for those bytes."""
    from outline_sample import outline_recording, outline_spec, outline_workspace
    from standin import FIXTURES, RecordedToolchain

    from network.gate.sandbox.sandbox import Sandbox
    from network.record.models import Caps

    spec = outline_spec()
    ws = outline_workspace(tmp_path / "ws")
    key, rec = outline_recording()
    assert json.loads((FIXTURES / f"{key}.json").read_text("utf-8")) == rec
    real, stand_in = detect_toolchain(spec), RecordedToolchain(spec)
    sb, caps = Sandbox(), Caps(wall_s=600, memory_mib=8192)
    for call in rec["calls"]:
        method, a = call["method"], call["args"]
        assert as_json(_ask(stand_in, method, a, ws, sb, caps))["ok"] == call["result"]["ok"]
        diff = differences(call["result"], as_json(_ask(real, method, a, ws, sb, caps)))
        assert diff == [], f"outline sample: {method} {a}: {diff}"


def _ask(t: Any, method: str, a: dict[str, Any], ws: Any, sb: Any, caps: Any) -> Any:
    """One recorded call (method, JSON args) asked of toolchain ``t``."""
    if method in ("build", "replay"):
        return getattr(t, method)(ws, a["modules"], sb, caps)
    if method == "check_statement":
        return t.check_statement(ws, a["statement_module"], a["solution_module"],
                                 a["theorems"], a["permitted_axioms"], sb, caps)
    if method == "check_witness":
        return t.check_witness(ws, a["statement_module"], a["decl"], a["witness_module"],
                               a["witness_decl"], a["permitted_axioms"], sb, caps,
                               a["keep_hypotheses"])
    if method == "hazards":
        return t.hazards(ws, a["module"], a["decls"], a["checkers"], sb, caps)
    if method == "outline":
        return t.outline(ws, a["module"], a["decls"], sb, caps)
    raise AssertionError(f"the tutorial sample records no {method} call")


@needs_lean
def test_the_service_flow_recordings_are_what_lean_answers() -> None:
    import anyio
    from api_flow_support import PROOF_MID_RACER, FlowNet, agent_flow, flow_scenario

    scenario, store = flow_scenario(), {}

    def toolchain(spec: GateSpec) -> Auditing:
        return Auditing(spec, scenario, store)

    def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            net = FlowNet.create(Path(tmp), toolchain)
            with net.serve() as (url, _app):
                anyio.run(agent_flow, url)
                anyio.run(lambda: agent_flow(url, pseudonym="racer", proof=PROOF_MID_RACER,
                                             claim=False))
            net.run_queue()
    _audit(run)


# --- the comparison itself (runs wherever the module is collected) ------------------------


def test_differences_reads_declared_fields_only() -> None:
    declared = {"ok": True, "code": None, "detail": "x",
                "theorems": [{"name": "T", "axioms": ["propext"]}]}
    same = {"ok": True, "code": None, "detail": "other text", "extra": 1,
            "theorems": [{"name": "T", "axioms": ["propext"], "found": True}]}
    assert differences(declared, same) == []
    lie = {**same, "theorems": [{"name": "T", "axioms": ["propext", "sorryAx"]}]}
    assert differences(declared, lie) == [
        "theorems[0].axioms: declared ['propext'], Lean ['propext', 'sorryAx']"]
    assert differences({"ok": True}, {"ok": False}) == ["ok: declared True, Lean False"]


def test_the_audit_stops_at_the_first_answer_lean_would_not_give(tmp_path: Path,
                                                                  monkeypatch: Any) -> None:
    """With a fake "Lean" that is the stand-in except that it drops sorryAx, every call up
    to the sorry scenario agrees (the wiring replays the same calls on the same bytes) and
    the first difference is sorry's check_statement."""
    from standin import RecordedToolchain

    from network.gate.lean.toolchain import CompareResult

    class NoSorry(RecordedToolchain):
        def check_statement(self, *a: Any, **k: Any) -> CompareResult:
            r = super().check_statement(*a, **k)
            rows = tuple(dataclasses.replace(t, axioms=tuple(x for x in t.axioms
                                                             if x != "sorryAx"))
                         for t in r.theorems)
            return dataclasses.replace(r, theorems=rows)

    monkeypatch.setattr(Auditing, "real_factory", staticmethod(NoSorry))
    Auditing.first, Auditing.calls = [], 0
    record_all(tmp_path, recorder=Auditing)  # type: ignore[arg-type]
    assert Auditing.calls > 10
    assert len(Auditing.first) == 1
    assert Auditing.first[0].startswith("sorry: check_statement(")
    assert "theorems[0].axioms" in Auditing.first[0]
