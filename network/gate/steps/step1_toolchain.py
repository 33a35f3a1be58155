"""Step 1: the toolchain (D-4 step 1): no submitted pin file, the toolchain follows the
target's gate-spec, and what is installed matches the pin; no toolchain is
``toolchain-missing``, never a pass.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.errors import define
from network.gate.lean.toolchain import (
    Toolchain,
)
from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import _fail
from network.record import models as m

define("network-commit-missing", 1, 422,
       "The target's gate-spec pins no network_commit, so the gate that judges it is not "
       "pinned: the trusted job would check out whatever the network's default branch "
       "holds (issue 32).",
       "A steward sets network_commit in the target's gate-spec.json to the network commit "
       "the gate runs (`lemmata target repin`, docs/gate.md).")


def _step1(tc: Toolchain, spec: m.GateSpec, diff_findings: list[Diagnostic]
           ) -> tuple[StepResult, str | None]:
    """Step 1: no submitted pin file, the gate-spec pins the network commit that judges it
    (``network-commit-missing``, issue 32), the toolchain follows this gate-spec, and what
    is installed matches the pin; returns (result, the Lean githash when known)."""
    if diff_findings:
        return StepResult.refused(1, diff_findings), None
    if spec.network_commit is None:
        return _fail(1, "network-commit-missing", "gate-spec.json has network_commit: null; "
                     "the gate refuses to judge under an unpinned network"), None
    if tc.spec != spec:
        return _fail(1, "toolchain-mismatch", "the toolchain was set up for another "
                     "gate-spec than the target's"), None
    info = tc.describe()
    if not info.ok:
        return _fail(1, info.code or "toolchain-missing",
                     info.detail or "toolchain not usable"), None
    return StepResult.passed(1), info.githash
