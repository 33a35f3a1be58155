"""Attack on the scoped cold run (network/record/read/scoped.py, issue 17): a closure record of
the pull request's own target names, by ``merge_seq``, a merge whose artifacts are all in
another target (close_nodes closes every closable node of every target after any merge,
and the merge record lists the attestation's artifacts, not the closures it wrote). The
whole graph dates the closure by that merge and checks its gate key was valid then; the
scoped graph must not read the closure undated (a key check skipped)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.outcome import attestation_files
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.read.scoped import load_scoped
from network.signing import public_key_record, sign

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, T, base_repo, precheck_raw, scenarios
from standin import RecordedToolchain

from tests.graphs import BUILDER_GATE_KEY, GraphBuilder, git_commit
from tests.test_gate_scoped import OTHER, _other_target

OLD_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def _base(root: Path) -> tuple[GraphBuilder, str, str]:
    sc = scenarios()["close-root-resolves"]
    b, _base0 = base_repo(root, **sc.base)
    _other_target(b)
    seq = b._merge_seq  # other's merge: its artifacts name other's nodes alone
    # a retired gate key, valid until before that merge
    key = public_key_record(OLD_KEY, "old-gate", "gate", "2000-01-01", "2026-02-15")
    b.write_json("keys/old-gate.json", key.model_dump(mode="json", by_alias=True,
                                                      exclude_none=True))
    rec = {"schema": "closure/v1", "target": T, "node": "root", "link": "resolves",
           "inputs": [{"node": "aux", "proof": f"{ND}/aux/Proof.lean"}],
           "verdict": "proved", "merge_seq": seq,
           "toolchain": json.loads(b.read(f"targets/{T}/gate-spec.json"))["lean_toolchain"]}
    sig = sign(m.Closure.model_validate(rec), OLD_KEY, "gate", "old-gate", "gate")
    b.write_json(f"{ND}/root/closure/resolves.json", {**rec, "signature": sig.model_dump()})
    # a later merge: the clock is not other's merge
    b.merge([f"targets/{OTHER}/nodes/root/Statement.lean"], date="2026-03-02",
            artifact_kind="statement")
    base = git_commit(b.root, "base: a closure dated by another target's merge")
    for path, data in sc.files.items():
        assert data is not None
        b.write(path, data)
    return b, base, git_commit(b.root, "pull request: close-root-resolves")


def test_a_closure_dated_by_another_targets_merge_reads_as_on_the_whole_graph(
        tmp_path: Path) -> None:
    b, base, _head = _base(tmp_path / "g")
    whole = load_graph(b.root, commit=base)
    scoped = load_scoped(b.root, base, frozenset({T}))
    assert scoped is not None
    assert derive.node_status(whole, T, "root") != "proved"  # the key was retired then
    assert derive.node_status(scoped, T, "root") == derive.node_status(whole, T, "root")


def test_the_gate_outcome_is_the_whole_graphs(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    b, base, head = _base(tmp_path / "g")
    sc = scenarios()["close-root-resolves"]
    root = b.root
    kw: dict[str, Any] = {"toolchain": RecordedToolchain, "precheck_raw": precheck_raw(root, base, head),
          "submitter": sc.submitter, "review": sc.review, "gate_key": BUILDER_GATE_KEY}
    full = run_gate(root, base, head, sandbox=Sandbox(),
                    base_graph=load_graph(root, commit=base), **kw)
    with caplog.at_level(logging.INFO, logger="network.gate.run"):
        cold = run_gate(root, base, head, sandbox=Sandbox(), **kw)
    assert cold == full
    assert attestation_files(cold) == attestation_files(full)
