"""Step 1: the toolchain (D-4 step 1): no submitted pin file, the toolchain follows the
target's gate-spec, and what is installed matches the pin; no toolchain is
``toolchain-missing``, never a pass.

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from network.gate.result import Diagnostic, StepResult
from network.gate.steps.context import _fail
from network.gate.toolchain import (
    Toolchain,
)
from network.record import models as m


def _step1(tc: Toolchain, spec: m.GateSpec, diff_findings: list[Diagnostic]
           ) -> tuple[StepResult, str | None]:
    """Step 1: no submitted pin file, the toolchain follows this gate-spec, and what is
    installed matches the pin; returns (result, the Lean githash when known)."""
    if diff_findings:
        return StepResult.refused(1, diff_findings), None
    if tc.spec != spec:
        return _fail(1, "toolchain-mismatch", "the toolchain was set up for another "
                     "gate-spec than the target's"), None
    info = tc.describe()
    if not info.ok:
        return _fail(1, info.code or "toolchain-missing",
                     info.detail or "toolchain not usable"), None
    return StepResult.passed(1), info.githash
