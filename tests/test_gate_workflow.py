"""graph/.github/workflows: the gate runs contributor code only in an unprivileged
`pull_request` job; publishing and merging run in a `workflow_run` job that never checks
out the pull request (DESIGN.md "Security posture", D-4, ruling 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

WF = Path(__file__).resolve().parents[1] / "graph" / ".github" / "workflows"


def load(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WF / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads `on` as True
    return data


def test_no_workflow_uses_pull_request_target() -> None:
    for f in WF.glob("*.yml"):
        assert "pull_request_target" not in f.read_text(encoding="utf-8"), f.name


def test_the_build_job_is_unprivileged_and_secretless() -> None:
    wf = load("gate.yml")
    assert list(wf["on"]) == ["pull_request"]
    assert wf["permissions"] == {"contents": "read"}
    build = wf["jobs"]["build"]
    assert build["permissions"] == {"contents": "read"}
    text = (WF / "gate.yml").read_text(encoding="utf-8")
    assert "secrets." not in text
    steps = build["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout")]
    assert all(s["with"].get("persist-credentials") is False for s in checkouts)
    network = next(s for s in checkouts if s["with"].get("repository"))
    assert "network_commit" in network["with"]["ref"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "elan" in runs and "lemmata gate run" in runs


def test_publishing_runs_on_workflow_run_and_merges_only_on_green() -> None:
    wf = load("gate-publish.yml")
    assert wf["on"] == {"workflow_run": {"workflows": ["gate"], "types": ["completed"]}}
    merge = wf["jobs"]["merge"]
    assert "conclusion == 'success'" in merge["if"]
    for job in wf["jobs"].values():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout"):
                assert step["with"]["ref"] == "main"  # never the pull request's head
            assert "lemmata gate run" not in step.get("run", "")


def test_hazard_acknowledgments_use_the_checkers_location_format() -> None:
    """META.yaml acknowledgments name ``<declaration>: <subterm>`` exactly as Hazards.lean
    prints a finding's location (network.gate.run.hazard_location_key)."""
    from network.gate.run import hazard_location_key
    from network.record.loader import load_graph

    g = load_graph(WF.parents[1])
    for t in g.targets.values():
        for n in t.nodes.values():
            for ack in n.meta.acknowledged_hazards:
                decl, _, subterm = ack.location.partition(": ")
                assert decl == n.meta.declaration and subterm, ack.location
                assert hazard_location_key(ack.checker, ack.location)[1] == ack.location
