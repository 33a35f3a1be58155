"""Attack on the scoped cold run (network/record/read/scoped.py, issue 17): attestation and
merge files of the base whose fields are of the wrong JSON type. The whole-graph load
refuses them (``validation-failed``); the scoped load sorts the log files by those fields
before validating anything, and must neither crash on an unhashable value (a list where a
string belongs: exit 3 instead of the whole graph's refusal) nor leave such a file
unread."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from network.errors import ValidationFailed
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record.read.loader import load_graph
from network.record.read.scoped import load_scoped

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import T, base_repo, scenarios
from standin import RecordedToolchain

from tests.graphs import git_commit

HOSTILE: dict[str, dict[str, Any]] = {
    "attestations/x.json": {"schema": "attestation/v1", "target": ["demo"],
                            "artifacts": [{"path": "targets/other/nodes/a/Proof.lean"}]},
    "log/merges/000090.json": {"schema": "merge/v1", "seq": 1, "merge_commit": ["a"],
                               "artifacts": ["targets/other/nodes/a/Proof.lean"]},
    "log/merges/000091.json": {"schema": "merge/v1", "seq": 1, "merge_commit": "1" * 40,
                               "attestation": {"a": 1},
                               "artifacts": ["targets/other/nodes/a/Proof.lean"]},
}


@pytest.mark.parametrize("path", sorted(HOSTILE))
def test_a_log_file_of_the_wrong_shape_is_refused_as_on_the_whole_graph(
        tmp_path: Path, path: str) -> None:
    sc = scenarios()["proof-ok"]
    b, _base = base_repo(tmp_path / "g", **sc.base)
    b.target("other")
    b.write_json(path, HOSTILE[path])
    base = git_commit(b.root, "a hostile log file")
    for p, data in sc.files.items():
        assert data is not None
        b.write(p, data)
    head = git_commit(b.root, "pull request")
    with pytest.raises(ValidationFailed) as whole:
        load_graph(b.root, commit=base)
    with pytest.raises(ValidationFailed) as scoped:
        load_scoped(b.root, base, frozenset({T}))
    assert scoped.value.problems == whole.value.problems
    with pytest.raises(ValidationFailed):
        run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                 precheck_raw=None, submitter=sc.submitter)
