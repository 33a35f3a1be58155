"""A gate run said as what it is, on the node it belongs to (issue 35, items 1 and 2)."""

from __future__ import annotations

from typing import Any

import pytest

from network.site import gate_log


def _run(kind: str, verdict: str, steps: list[dict[str, Any]] | None = None,
         artifacts: list[str] | None = None) -> dict[str, Any]:
    return {"artifact_kind": kind, "verdict": verdict, "steps": steps or [],
            "artifacts": artifacts or [], "reason": None}


@pytest.mark.parametrize(("run", "section", "words", "code"), [
    (_run("proof", "pass"), "proof", "proof accepted", None),
    (_run("partial", "held"), "proof", "held for review at step 9", None),
    (_run("postmortem", "pass"), "log", "postmortem recorded", None),
    (_run("proof", "fail", [{"step": 1, "ok": True},
                            {"step": 3, "ok": False, "code": "lean-build-failed"}]),
     "log", "refused at step 3", "lean-build-failed"),
    (_run("unplaced", "fail", [{"step": 2, "ok": False, "code": "gate-only-path"}]),
     "log", "refused at step 2", "gate-only-path"),
    (_run("postmortem", "bounced"), "log", "refused", None),
])
def test_each_run_has_its_section_and_words(run: dict[str, Any], section: str, words: str,
                                            code: str | None) -> None:
    assert gate_log.section(run) == section
    assert gate_log.words(run) == words
    assert gate_log.refusal_code(run) == code


def test_an_unplaced_run_belongs_only_to_the_node_whose_files_it_holds() -> None:
    frontier = _run("unplaced", "fail", artifacts=[])
    notes = _run("unplaced", "fail", artifacts=["targets/t/NOTES.md"])
    under = _run("unplaced", "fail", artifacts=["targets/t/nodes/n/NOTES.md"])
    for r in (frontier, notes):
        assert not gate_log.touches_node(r, "t", "root")
    assert gate_log.touches_node(under, "t", "n")
    assert not gate_log.touches_node(under, "t", "root")
    assert not gate_log.touches_node(under, "t", "n2")  # a prefix is not the node
    assert gate_log.touches_node(_run("proof", "fail"), "t", "root")  # placed runs stay
