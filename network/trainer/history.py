"""The training history, one ``history.json`` (issue 14, "Status"; seed 004, "the status
page never dresses loss up as learning").

Shape (schema ``trainer-history/v1``)::

    {"schema": ..., "runs": {run_id: {"kind": "sft" | "eval" | "grpo" | ...,
                                      "hardware": {...},
                                      "identity": {...} | null,
                                      "conditions": {condition: {"series": {metric: {
                                          "label": ..., "kind": "loss" | "pass-rate" | "reward",
                                          "k": int | null, "budget": str | null,
                                          "points": [[step, value, lo, hi], ...]}}}}}},
     "events": [{"run": ..., "event": ..., "detail": {...}}, ...]}

A loss series is labelled loss and carries no k; a pass-rate series always carries its k
and its budget. A reward series (GRPO's per-step mean reward) is labelled reward, with its
k (completions per prompt) and budget: the rate of gate passes among a step's judged
completions, a training signal on training prompts, never a pass rate on held-out items.
No label anywhere says "accuracy". :func:`render_status` prints it as ``lemmata trainer status`` shows it.
Writes are whole-file replacements, so a reader never sees half a history.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define

define("trainer-history-malformed", None, 422,
       "The history file is not a trainer-history/v1 document, or a series in it is a "
       "pass rate without its k and budget, or a loss labelled as something else.",
       "Point at the history.json that lemmata trainer sft/eval wrote.")

SCHEMA = "trainer-history/v1"


def empty() -> dict[str, Any]:
    """A history with no run."""
    return {"schema": SCHEMA, "runs": {}, "events": []}


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a history (a missing file is an empty history).

    Raises:
        LemmataError: ``trainer-history-malformed``.
    """
    p = Path(path)
    if not p.exists():
        return empty()
    try:
        doc = json.loads(p.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise LemmataError("trainer-history-malformed", f"{p}: {exc}") from exc
    check(doc)
    return dict(doc)


def check(doc: Any) -> None:
    """Refuse a history that is not one, or whose series mislabel loss or pass rates.

    Raises:
        LemmataError: ``trainer-history-malformed``.
    """
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or \
            not isinstance(doc.get("runs"), dict) or not isinstance(doc.get("events"), list):
        raise LemmataError("trainer-history-malformed", "not a trainer-history/v1 document")
    for rid, run in doc["runs"].items():
        for cond, c in (run.get("conditions") or {}).items():
            for metric, s in (c.get("series") or {}).items():
                where = f"{rid[:12]}/{cond}/{metric}"
                if "accuracy" in str(s.get("label", "")).lower():
                    raise LemmataError("trainer-history-malformed",
                                       f"{where}: no series is labelled accuracy")
                if s.get("kind") == "reward":
                    if not str(s.get("label", "")).startswith("reward") or \
                            not isinstance(s.get("k"), int) or not s.get("budget"):
                        raise LemmataError("trainer-history-malformed",
                                           f"{where}: a reward is labelled reward, with its "
                                           "k and budget")
                elif s.get("kind") == "loss":
                    if s.get("label") != "loss" or s.get("k") is not None:
                        raise LemmataError("trainer-history-malformed",
                                           f"{where}: a loss must be labelled loss")
                elif s.get("kind") == "pass-rate":
                    if not isinstance(s.get("k"), int) or not s.get("budget") or \
                            "pass" not in str(s.get("label")):
                        raise LemmataError("trainer-history-malformed",
                                           f"{where}: a pass rate needs its k and budget")
                else:
                    raise LemmataError("trainer-history-malformed", f"{where}: unknown kind")


def save(path: str | Path, doc: Mapping[str, Any]) -> None:
    """Check and write the whole history (replacing the file at once)."""
    check(doc)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def _run(doc: dict[str, Any], run_id: str, kind: str, hardware: Mapping[str, Any],
         identity: Mapping[str, Any] | None) -> dict[str, Any]:
    runs: dict[str, Any] = doc["runs"]
    run: dict[str, Any] = runs.setdefault(run_id, {
        "kind": kind, "hardware": dict(hardware),
        "identity": dict(identity) if identity else None, "conditions": {}})
    return run


def add_loss(doc: dict[str, Any], run_id: str, *, hardware: Mapping[str, Any],
             identity: Mapping[str, Any] | None, points: list[tuple[int, float]],
             condition: str = "policy", kind: str = "sft") -> None:
    """Record a run's training loss per step (labelled loss); ``kind`` names a new run's
    method (``sft``, ``grpo``)."""
    run = _run(doc, run_id, kind, hardware, identity)
    series = run["conditions"].setdefault(condition, {"series": {}})["series"]
    series["loss"] = {"label": "loss", "kind": "loss", "k": None, "budget": None,
                      "points": [[s, v, None, None] for s, v in points]}


def add_reward(doc: dict[str, Any], run_id: str, *, hardware: Mapping[str, Any], k: int,
               budget: str, points: list[tuple[int, float | None]],
               condition: str = "policy") -> None:
    """Record a GRPO run's mean reward per step (``None``: no completion of the step was
    judged), labelled reward: the rate of gate passes among the step's judged
    completions, with ``k`` completions per prompt and the ``budget``; a signal on the
    training prompts, never a held-out pass rate and never called accuracy."""
    run = _run(doc, run_id, "grpo", hardware, None)
    series = run["conditions"].setdefault(condition, {"series": {}})["series"]
    series["reward"] = {
        "label": f"reward: rate of gate passes among judged completions (k={k}; {budget})",
        "kind": "reward", "k": k, "budget": budget,
        "points": [[st, v, None, None] for st, v in points]}


def add_report(doc: dict[str, Any], run_id: str, report: Mapping[str, Any], *,
               hardware: Mapping[str, Any], step: int | None = None) -> None:
    """Record an evaluation report's pass rates per condition, each with k and budget."""
    run = _run(doc, run_id, "eval", hardware, None)
    for cond, c in report["conditions"].items():
        series = run["conditions"].setdefault(cond, {"series": {}})["series"]
        for metric, rate in c["rates"].items():
            s = series.setdefault(metric, {"label": rate["label"], "kind": "pass-rate",
                                           "k": rate["k"], "budget": report["budget_label"],
                                           "points": []})
            s["points"].append([step, rate["value"], *rate["ci95"]])
    event(doc, run_id, "evaluated", report_sha256=report["report_sha256"],
          solved={k: v["solved"] for k, v in report["conditions"].items()},
          items=len(report["items"]))


def pass_rate_series(doc: dict[str, Any], run_id: str, *, kind: str,
                     hardware: Mapping[str, Any], condition: str, metric: str, k: int,
                     budget: str, label: str) -> dict[str, Any]:
    """The pass-rate series ``metric`` of a run's ``condition`` (made when absent, with its
    k and budget); append ``[step, value, lo, hi]`` points to its ``points``."""
    run = _run(doc, run_id, kind, hardware, None)
    series: dict[str, Any] = run["conditions"].setdefault(condition, {"series": {}})["series"]
    made: dict[str, Any] = series.setdefault(metric, {
        "label": label, "kind": "pass-rate", "k": k, "budget": budget, "points": []})
    return made


def event(doc: dict[str, Any], run_id: str, name: str, **detail: Any) -> None:
    """Append an event (started, step, admitted, refused, evaluated...)."""
    doc["events"].append({"run": run_id, "event": name, "detail": detail})


def render_status(doc: Mapping[str, Any]) -> str:
    """The text ``lemmata trainer status`` prints: per run its hardware, per condition each
    series with its label (loss as loss; pass rates with k and budget), then the events."""
    lines: list[str] = []
    for rid, run in sorted(doc["runs"].items()):
        hw = run.get("hardware") or {}
        lines.append(f"run {rid[:12]} ({run['kind']}) on {hw.get('device', '?')}: "
                     f"{hw.get('cpus', '?')} cpus, {hw.get('machine', '?')}, "
                     f"torch {hw.get('torch', '?')}")
        for cond, c in sorted(run["conditions"].items()):
            for _, s in sorted(c["series"].items()):
                pts = s["points"]
                if s["kind"] == "loss":
                    body = ", ".join(f"step {p[0]} {p[1]:.4f}" for p in pts)
                    lines.append(f"  {cond}: loss (not a pass rate): {body}")
                elif s["kind"] == "reward":
                    body = ", ".join(f"step {p[0]} " + ("not judged" if p[1] is None
                                                        else f"{p[1]:.3f}") for p in pts)
                    lines.append(f"  {cond}: {s['label']} (not a pass rate): {body}")
                else:
                    body = ", ".join(f"{p[1]:.3f} [{p[2]:.3f}, {p[3]:.3f}]"
                                     + (f" at step {p[0]}" if p[0] is not None else "")
                                     for p in pts)
                    lines.append(f"  {cond}: {s['label']}: {body}")
    lines.append("events:")
    for e in doc["events"]:
        detail = json.dumps(e["detail"], sort_keys=True)
        lines.append(f"  {e['run'][:12]} {e['event']} {detail}")
    return "\n".join(lines) + "\n"
