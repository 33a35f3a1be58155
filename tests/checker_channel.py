"""What a checker does with its report, for the tests' fake sandboxes (issue 32).

Common.lean's ``mainWith`` reads a nonce from stdin and writes its one report to
``<out>/report-<nonce>.json`` (``out`` its last argument); it prints none.
:func:`deliver` does the same with a fake's canned output: the report-shaped lines of
``stdout`` go to the bound file and the rest stay on stdout. A canned output with no report
leaves no file (the host then answers ``checker-output-unbound``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def deliver(argv: Sequence[str], stdin: bytes | None, stdout: str) -> str:
    """Write ``stdout``'s report lines where a checker run given ``argv`` and ``stdin``
    would; return the stdout it leaves. Runs that are not checker runs are untouched."""
    if "--run" not in argv or stdin is None:
        return stdout
    nonce = stdin.decode("ascii").strip()
    lines = stdout.splitlines()
    reports = [ln for ln in lines if ln.strip().startswith("{")]
    if reports:
        (Path(argv[-1]) / f"report-{nonce}.json").write_text("\n".join(reports) + "\n")
    return "\n".join(ln for ln in lines if not ln.strip().startswith("{"))
