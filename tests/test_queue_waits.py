"""Issue 11: on a network without Lean, a proof's pull request waits at
``toolchain-missing``: the merge queue neither closes it nor publishes an attestation nor
judges it again on every pass; it is judged once a pinned toolchain appears (or its head
moves). A pull request with any finding that needs no Lean is still refused at once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from network.forge.local import LocalForge
from network.gate.lean.toolchain import MissingToolchain
from network.gate.queue.queue import WAITING_DIR, process_queue, read_waiting
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_MID, open_prechecked, seeded_forge
from standin import RecordedToolchain

WHEN = 1_790_000_000


def missing(spec: Any) -> MissingToolchain:
    return MissingToolchain(spec, ("no lean on PATH (test)",))


@pytest.fixture()
def forge(tmp_path: Path) -> LocalForge:
    return seeded_forge(tmp_path, WHEN)  # type: ignore[no-any-return]


def _open(forge: LocalForge, text: str, precheck_toolchain: Any) -> int:
    """What the service does: commit, precheck under ``precheck_toolchain``, open."""
    return open_prechecked(forge, {f"{ND}/mid/Proof.lean": text.encode()},
                           toolchain=precheck_toolchain)


def _attestation_count(forge: LocalForge) -> int:
    return len(load_graph(forge.path, commit=forge.main_sha()).attestations)


def test_an_unchecked_proof_waits_open_and_is_not_regated(forge: LocalForge) -> None:
    n = _open(forge, PROOF_MID, missing)  # its precheck ended toolchain-missing too
    before, main = _attestation_count(forge), forge.main_sha()
    [first] = process_queue(forge, toolchain=missing, sandbox=Sandbox())
    assert first.verdict == "waiting" and first.code == "toolchain-missing", first.notes
    assert forge.get(n).state == "open" and forge.main_sha() == main
    assert _attestation_count(forge) == before  # nothing published
    note = read_waiting(forge, n)
    assert note is not None and note["head"] == forge.get(n).head_sha
    [second] = process_queue(forge, toolchain=missing, sandbox=Sandbox())
    assert second.verdict == "waiting" and second.outcome is None  # not judged again
    assert "not re-gated" in second.notes[0] and forge.main_sha() == main


def test_a_waiting_pull_request_is_judged_once_a_toolchain_appears(
        forge: LocalForge) -> None:
    n = _open(forge, PROOF_MID, missing)
    [waiting] = process_queue(forge, toolchain=missing, sandbox=Sandbox())
    assert waiting.verdict == "waiting"
    # the toolchain is installed: the pull request is judged; its precheck checked
    # nothing, so step 0 bounces it (precheck again now) and the note goes
    [judged] = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox())
    assert judged.verdict == "bounced" and judged.outcome is not None
    assert forge.get(n).state == "closed"
    assert not (forge.path / WAITING_DIR / f"{n}.json").exists()


def test_a_finding_that_needs_no_lean_is_refused_at_once(forge: LocalForge) -> None:
    bad = PROOF_MID + "\naxiom cheat : False\n"
    n = _open(forge, bad, missing)
    [item] = process_queue(forge, toolchain=missing, sandbox=Sandbox())
    assert item.verdict == "fail" and forge.get(n).state == "closed"
    assert read_waiting(forge, n) is None


def test_a_passing_precheck_without_lean_at_the_gate_also_waits(forge: LocalForge) -> None:
    """A proof prechecked where Lean exists (pregate.sh) meets a gate without it: step 1
    says toolchain-missing and nothing else, so it waits too."""
    n = _open(forge, PROOF_MID, RecordedToolchain)
    [item] = process_queue(forge, toolchain=missing, sandbox=Sandbox())
    assert item.verdict == "waiting" and forge.get(n).state == "open"
