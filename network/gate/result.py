"""The typed result every gate step returns, and the names of the nine steps (D-4).

A step never raises for a refusal: it returns a :class:`StepResult` whose ``code`` is a
catalog code. The attestation is the serialization of these objects (STYLE.md rule 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from network.record.models import StepRecord

STEP_NAMES: dict[int, str] = {
    0: "precheck-attestation",
    1: "toolchain",
    2: "paths-and-hashes",
    3: "sandboxed-build",
    4: "kernel-replay",
    5: "axioms",
    6: "hazards",
    7: "witness",
    8: "declared-dependencies",
    9: "statement-review",
}


@dataclass(frozen=True)
class Diagnostic:
    """One finding of a step: a catalog code, the file (graph path) and line, and a message."""

    code: str
    message: str
    path: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form with only the fields that are set, keys sorted by json.dumps."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.path is not None:
            out["path"] = self.path
        if self.line is not None:
            out["line"] = self.line
        return out


@dataclass(frozen=True)
class StepResult:
    """What one gate step found (D-4).

    Attributes:
        step: 0 (precheck bounce) to 9.
        ok: True when the step passed.
        code: the first catalog code when not ok, else None.
        diagnostics: every finding, in the order found.
    """

    step: int
    ok: bool
    code: str | None = None
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)

    @classmethod
    def passed(cls, step: int, *notes: Diagnostic) -> StepResult:
        """A passing result, optionally carrying informational diagnostics."""
        return cls(step, True, None, tuple(notes))

    @classmethod
    def refused(cls, step: int, findings: list[Diagnostic]) -> StepResult:
        """A failing result whose code is the first finding's.

        Raises:
            ValueError: ``findings`` is empty (a refusal always says why).
        """
        if not findings:
            raise ValueError("a refusal needs at least one finding")
        return cls(step, False, findings[0].code, tuple(findings))

    @classmethod
    def from_findings(cls, step: int, findings: list[Diagnostic]) -> StepResult:
        """Passed when ``findings`` is empty, refused otherwise."""
        return cls.refused(step, findings) if findings else cls.passed(step)

    def to_record(self) -> StepRecord:
        """The signed form: :class:`~network.record.models.StepRecord`."""
        return StepRecord(
            step=self.step,
            name=STEP_NAMES[self.step],
            ok=self.ok,
            code=self.code,
            diagnostics=[d.to_dict() for d in self.diagnostics],
        )
