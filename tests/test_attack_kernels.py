"""Attacks on issue 37's kernel gate (network/gate/lean/kernels.py, kernel_replay.py, step 4,
repin, the post-merge closure), kept as regression tests. Each test reproduced a defect a
review found and failed on the code it was written against (commit d6dd589); its docstring
says what it showed, and the code now holds against it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pygit2

from network.gate.lean import kernels as K
from network.gate.lean import lean_toolchain as lt
from network.gate.lean.kernels import (
    KernelVerdict,
    SoundnessEntry,
    ToolchainRange,
    judge_kernels,
    known_unsound,
    replayed_kernels,
    soundness_record,
    toolchain_fixed,
)
from network.gate.lean.toolchain import ReplayResult
from network.gate.postmerge.postmerge import postmerge_files
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox, SandboxResult
from network.record import models as m

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, T, precheck_raw, scenarios
from standin import RecordedToolchain
from test_toolchain import P, installed_kernels, tutorial_workspace

from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

SOUND_PIN = "leanprover/lean4:v4.34.0"
NANODA = soundness_record().pins["nanoda"].commit


def _spec(pin: str = SOUND_PIN, replay: str = "leanchecker") -> m.GateSpec:
    return m.GateSpec(lean_toolchain=pin, kernel={"replay": replay})


# --- 1. the real adapter's nanoda run refuses every whole-environment export ---------------


@dataclass
class _RecordingSandbox:
    """Records argv; the export run writes a file, every other run exits 0."""

    calls: list[list[str]] = field(default_factory=list)

    def run(self, argv: Any, layout: Any, caps: Any, *, cwd: Any = None,
            env: Any = None, stdin: bytes | None = None) -> SandboxResult:
        self.calls.append(list(argv))
        if argv[0] == "/bin/sh":
            Path(argv[4]).write_text("{}\n")
        return SandboxResult(0, "", "", None, 0.1, tuple(argv))


def test_nanoda_config_refuses_the_axioms_every_whole_export_declares(tmp_path: Path) -> None:
    """kernel_replay.py ``_nanoda`` runs ``lake env lean4export M`` with no ``--`` constant
    list. lean4export then exports *everything* in the environment
    (leanprover/lean4export Export/CLIArgs.lean ``getRootConstants``:
    ``shouldExportEverything`` when no constants are named), so the export always holds
    Init.Prelude's ``axiom sorryAx`` (and, before v4.35, ``Lean.ofReduceBool``/
    ``Lean.ofReduceNat``). nanoda_lib declines any export that *declares* an axiom outside
    ``permitted_axioms`` when ``unpermitted_axiom_hard_error`` is true ("export file
    declares unpermitted axiom", whether or not anything uses it). ``nanoda_config`` sets
    exactly that with the gate-spec's three axioms, so on a real install nanoda refuses
    every replay while Lean's kernel accepts: every artifact is ``kernel-disagreement`` and
    nothing can pass (fail closed, but the gate is unusable; partials, which use sorryAx,
    and waived native_decide proofs could never pass even with a narrower export)."""
    ws = tutorial_workspace(tmp_path)
    pins = tmp_path / "pins"
    installed_kernels(pins)
    t = lt.LeanToolchain(_spec(), tmp_path / "bin", pins)
    sb = _RecordingSandbox()
    t.replay(ws, [P], sb, m.Caps())
    export = next(c for c in sb.calls if c[0] == "/bin/sh")
    nanoda = next(c for c in sb.calls if c[0].endswith("nanoda_bin"))
    config = json.loads(Path(nanoda[1]).read_text())
    whole_environment = "--" not in export[5:]
    declared_by_init = {"sorryAx"}
    refused_for_sure = (whole_environment and config["unpermitted_axiom_hard_error"]
                        and not declared_by_init <= set(config["permitted_axioms"]))
    assert not refused_for_sure, (export, config)


# --- 2. the post-merge closure judges no kernel set and no pin ----------------------------


class _NoKernelsReported(RecordedToolchain):
    """The recorded answers, except that a replay reports no kernel verdict at all (as a
    replay whose nanoda never reported would, before judge_kernels)."""

    def replay(self, workspace: Any, modules: Any, sandbox: Any, caps: Any,
               decls: Any = ()) -> ReplayResult:
        return replace(super().replay(workspace, modules, sandbox, caps, decls), kernels=())


class _NanodaAtAnotherCommit(RecordedToolchain):
    """The recorded answers, except that nanoda reports from an unpinned build."""

    def replay(self, workspace: Any, modules: Any, sandbox: Any, caps: Any,
               decls: Any = ()) -> ReplayResult:
        r = super().replay(workspace, modules, sandbox, caps, decls)
        ks = tuple(replace(k, version="f" * 40) if k.name == "nanoda" else k
                   for k in r.kernels)
        return replace(r, kernels=ks)


def _gate_close_p(tmp_path: Path) -> tuple[Path, str, list[m.Attestation]]:
    sc = scenarios()["close-p"]
    b, base, head = sc.build(tmp_path / "close-p")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                   review=sc.review)
    assert out.verdict == "pass", out.to_dict()
    pygit2.Repository(str(b.root)).references["refs/heads/main"].set_target(
        pygit2.Oid(hex=head))
    return b.root, head, out.attestations


def _closure(root: Path, head: str, atts: list[m.Attestation], tc: Any) -> Any:
    pm = postmerge_files(root, head, atts, pull_request="local/9", submitter="alice",
                         sandbox=Sandbox(), gate_key=BUILDER_GATE_KEY,
                         key_id=BUILDER_GATE_KEY_ID, toolchain=tc)
    return pm.files.get(f"{ND}/p/closure/route-1.json")


def test_closure_signs_proved_on_a_replay_no_kernel_reported(tmp_path: Path) -> None:
    """postmerge_closure.py ``_Closer.close`` reads only ``rep.ok`` of the join's replay,
    never :func:`judge_kernels`. Step 4 refuses a replay whose kernels did not all report
    (``kernel-set-incomplete``); the closure signs a gate ``closure/route-1.json``,
    verdict proved, on exactly such a replay (here: no kernel verdict at all)."""
    root, head, atts = _gate_close_p(tmp_path)
    assert judge_kernels(replayed_kernels(_spec()), ())[0] == "kernel-set-incomplete"
    assert _closure(root, head, atts, _NoKernelsReported) is None


def test_closure_signs_proved_with_nanoda_at_an_unpinned_commit(tmp_path: Path) -> None:
    """As above: nanoda ran from a build at another commit than the record pins (step 4:
    ``kernel-set-incomplete``); the closure still signs verdict proved."""
    root, head, atts = _gate_close_p(tmp_path)
    assert _closure(root, head, atts, _NanodaAtAnotherCommit) is None


def test_closure_signs_proved_on_a_known_unsound_pin(tmp_path: Path, monkeypatch: Any) -> None:
    """The post-merge job never asks :func:`known_unsound`. Once the gate ships a record
    listing a bug that fools every kernel on the target's pin (here: one fixed only in
    v4.35.0, fooling lean and nanoda), no proof on that pin can pass step 4, yet the next
    post-merge run (it closes every closable node of the whole graph, whatever merged)
    still signs a ``proved`` closure on that pin."""
    root, head, atts = _gate_close_p(tmp_path)
    rec = soundness_record()
    bug = SoundnessEntry(id="test:new-bug", kind="kernel", summary="a new kernel bug",
                         sources=["https://example.org/bug"],
                         toolchains=ToolchainRange(fixed=["v4.35.0"]),
                         checkers={"lean": "fooled", "nanoda": "fooled"},
                         fixed_commits={"nanoda": []})
    newer = rec.model_copy(update={"entries": [*rec.entries, bug]})
    monkeypatch.setattr(K, "soundness_record", lambda: newer)
    spec = m.GateSpec.model_validate_json((root / f"targets/{T}/gate-spec.json").read_bytes())
    assert [b.id for b in known_unsound(spec)] == ["test:new-bug"]
    assert _closure(root, head, atts, RecordedToolchain) is None


# --- 3. repin: a Comparator target never reads unchanged ----------------------------------


@dataclass
class _AcceptingTc:
    """What LeanToolchain.replay answers when every kernel accepts: Lean's kernel and
    each independent kernel (kernel_replay.replay_kernels never reports lean-export)."""

    spec: m.GateSpec

    def replay(self, ws: Any, modules: Any, sandbox: Any, caps: Any,
               decls: Any = ()) -> ReplayResult:
        tag = self.spec.lean_toolchain.rsplit(":", 1)[-1].removeprefix("v")
        return ReplayResult(True, None, tuple(modules), kernels=(
            KernelVerdict("lean", tag, "accept"), KernelVerdict("nanoda", NANODA, "accept")))


def test_repin_drift_of_a_comparator_target_is_never_unchanged() -> None:
    """repin.py ``_NodeRun.replay`` judges the replay against :func:`kernel_set`, which
    holds ``lean-export`` for a Comparator gate-spec; the replay never reports it (step 4
    itself uses :func:`replayed_kernels`). So every file of every Comparator target drifts
    with ``kernel-set-incomplete`` in the re-pin's drift report, though every kernel
    accepted."""
    from network.gate.repin import _NodeRun
    spec = _spec(replay="comparator")
    run = _NodeRun(_AcceptingTc(spec), None, None, None, {})  # type: ignore[arg-type]
    check = run.replay(None, "Lemmata.demo.mid.Proof")  # type: ignore[arg-type]
    assert check.status == "pass", (check.code, check.detail)


# --- 4. the record's reading -------------------------------------------------------------


def test_a_release_candidate_of_the_introducing_release_counts_as_never_affected() -> None:
    """kernels.py ``toolchain_fixed``: "a release before ``introduced`` was never
    affected" compares ``v4.34.0-rc1`` < ``v4.34.0``, so a bug a source says was
    introduced in v4.34.0 reads as absent from v4.34.0-rc1, the candidate that release was
    cut from (which, in Lean's release process, carries the same code). Unreadable or
    doubtful reads are meant to count as affected (fail closed); this one fails open."""
    rng = ToolchainRange(fixed=["v4.35.0"], introduced="v4.34.0")
    assert toolchain_fixed("leanprover/lean4:v4.34.0", rng) is False
    assert toolchain_fixed("leanprover/lean4:v4.34.0-rc1", rng) is False


def test_lean_export_is_credited_for_artifacts_it_never_checks() -> None:
    """kernels.py ``known_unsound`` counts a bug as caught when any kernel of
    :func:`kernel_set` is unaffected, and for a Comparator gate-spec that set holds
    ``lean-export``. But step 4 requires only :func:`replayed_kernels` (lean, nanoda), and
    ``lean-export`` runs only inside ``check_statement``: a statement, witness or variant
    artifact (no solution module, step4_kernel.py ``if solution is None: passed``) is
    never seen by it. With a record entry only lean-export escapes (lean fooled, nanoda
    unknown, like lean4#14616 today), the pin is declared sound and such an artifact passes
    step 4 on kernels that are all affected. (No pin of the shipped record depends on it
    today: latent.)"""
    rec = soundness_record()
    bug = SoundnessEntry(id="test:export-only", kind="kernel", summary="caught by export",
                         sources=["https://example.org/bug"],
                         toolchains=ToolchainRange(fixed=["v9.0.0"]),
                         checkers={"lean": "fooled", "lean-export": "not-fooled",
                                   "nanoda": "unknown"})
    only = rec.model_copy(update={"entries": [bug]})
    spec = _spec(replay="comparator")
    declared_sound = not known_unsound(spec, only)
    required = replayed_kernels(spec, only)
    caught_by_required = any(not K.affected(bug, k, spec.lean_toolchain) for k in required)
    assert not declared_sound or caught_by_required


def test_gate_spec_admits_a_pin_no_release_has_and_the_record_calls_it_sound() -> None:
    """models.py GateSpec's pattern ``v\\d+\\.\\d+\\.\\d+`` is matched by pydantic's regex,
    whose ``\\d`` is any Unicode digit, and kernels.py ``_version_key`` reads those with
    ``int()`` (also Unicode-aware); leading zeros are read away the same way. So
    ``leanprover/lean4:v٤.٣٣.١`` or ``…:v4.33.01`` is a valid gate-spec pin that no Lean
    release carries, which :func:`known_unsound` reads as v4.33.1 and calls sound
    (pages, get_target, /info.json, and the body of a ``lemmata target repin`` PR, whose
    own TOOLCHAIN_RE is Unicode-aware too). Step 1 then fails closed (``lean --version``
    never prints it), so no pass: a misleading soundness claim, not a bypass."""
    from network.gate.repin_branch import TOOLCHAIN_RE
    for pin in ("leanprover/lean4:v٤.٣٣.١", "leanprover/lean4:v4.33.01",
                "leanprover/lean4:v4.34.1-rc01"):
        # the published gate-spec/v1 pattern still admits them (a schema is never edited),
        # so the soundness reading fails closed: no release, so nothing is known fixed
        assert known_unsound(m.GateSpec(lean_toolchain=pin)), pin
        assert not TOOLCHAIN_RE.fullmatch(pin), pin  # and no re-pin may name one


def test_precheck_of_a_known_unsound_pin_says_the_toolchain_is_not_installed(
        tmp_path: Path, monkeypatch: Any) -> None:
    """network/api/reads.py ``proof_checking`` sets ``checkable`` False for a known-unsound
    pin, and precheck.py ``precheck_submission`` then attaches guidance.py
    ``not_checkable(pin)``: "the pinned Lean toolchain … is not installed here", with the
    ways forward (install it, run pregate.sh elsewhere). Here the toolchain *is* installed;
    the truth is that no verdict on that pin can pass anywhere until a re-pin (and where
    Lean is missing, run_job's ``"toolchain-missing" in codes`` branch ends the job
    ``toolchain-missing`` too, hiding ``toolchain-known-unsound``)."""
    from fastapi.testclient import TestClient

    from tests.api_flow_support import TUTORIAL_PROOF, FlowNet
    rec = soundness_record()
    bug = SoundnessEntry(id="test:new-bug", kind="kernel", summary="a new kernel bug",
                         sources=["https://example.org/bug"],
                         toolchains=ToolchainRange(fixed=["v99.0.0"]),
                         checkers={"lean": "fooled", "nanoda": "fooled"},
                         fixed_commits={"nanoda": []})
    monkeypatch.setattr(K, "soundness_record",
                        lambda: rec.model_copy(update={"entries": [*rec.entries, bug]}))
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        r = client.post("/precheck", json={"target": "tutorial", "node": "tutorial",
                                           "artifact_type": "proof", "text": TUTORIAL_PROOF})
        assert r.status_code == 202, r.text
        queued = r.json()
        assert "is not installed here" not in queued.get("notice", ""), queued["notice"]
        assert "toolchain-known-unsound" in queued["notice"] and "test:new-bug" in queued[
            "notice"]
