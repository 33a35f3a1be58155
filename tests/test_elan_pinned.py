"""elan comes from one release, checked by SHA-256 before it runs (issue 32: "elan is
installed from a pinned release checked by SHA-256").

Every workflow that installs elan (the graph's three gate jobs and the project's own CI)
downloads a named release's archive, checks it with ``sha256sum -c`` against a pinned
64-hex digest, and runs the ``elan-init`` inside it; none fetches ``elan-init.sh`` from a
branch, and all pin the same version and digest.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"),
                    *(ROOT / "graph" / ".github" / "workflows").glob("*.yml")])


def test_every_elan_install_is_a_pinned_release_checked_by_sha256() -> None:
    pins = set()
    installers = []
    for wf in WORKFLOWS:
        text = wf.read_text(encoding="utf-8")
        assert "elan-init.sh" not in text and "elan/master" not in text, wf
        if "elan-init" not in text:
            continue
        installers.append(wf.name)
        version = re.search(r"ELAN_VERSION=(v\d+\.\d+\.\d+)\b", text)
        digest = re.search(r"ELAN_SHA256=([0-9a-f]{64})\b", text)
        assert version and digest, wf
        assert "sha256sum -c" in text, wf
        # the check comes before the installer runs
        assert text.index("sha256sum -c") < text.index('/elan-init"'), wf
        assert "releases/download/${ELAN_VERSION}/" in text, wf
        pins.add((version.group(1), digest.group(1)))
    assert {"ci.yml", "gate.yml", "gate-publish.yml"} <= set(installers), installers
    assert len(pins) == 1, pins
