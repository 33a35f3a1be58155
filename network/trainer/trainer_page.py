"""What the site's ``trainer.html`` shows of a trainer history (issue 14, "Status"; seed
004: the status page never dresses loss up as learning).

:func:`trainer_view` reads one ``history.json`` through :func:`network.trainer.history.load`,
which refuses a pass rate without its k and budget or a loss labelled as anything but loss
(``trainer-history-malformed``), and gives the template plain rows:

* per run: its kind, hardware, and (when recorded) identity: base model and revision,
  graph commit, LoRA rank, seed;
* loss series, each labelled ``loss`` with its steps: a training objective on training
  rows, never shown as a rate or as progress;
* pass-rate series, each with its label, k and budget and its 95% interval, with the
  untrained base control beside the policy when the run has one; a run with loss and no
  pass rate is marked as measuring no learning at all;
* reward series (GRPO), each labelled reward with its k and budget: the rate of gate
  passes among a step's judged completions on training prompts, never a pass rate on
  held-out items and never "accuracy";
* the events in order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from network.trainer import history as H
from network.trainer.evaluate import CONTROL


def _num(v: Any, places: int) -> str:
    return "—" if v is None else f"{float(v):.{places}f}"


def trainer_view(path: str | Path) -> dict[str, Any]:
    """The template context of ``trainer.html`` (see the module docstring).

    Raises:
        LemmataError: ``trainer-history-malformed``.
    """
    doc = H.load(path)
    runs: list[dict[str, Any]] = []
    for rid, run in sorted(doc["runs"].items()):
        losses: list[dict[str, Any]] = []
        rates: list[dict[str, Any]] = []
        rewards: list[dict[str, Any]] = []
        for cond, c in sorted(run["conditions"].items()):
            for metric, s in sorted(c["series"].items()):
                if s["kind"] == "loss":
                    losses.append({"condition": cond, "label": s["label"],
                                   "points": [{"step": p[0], "value": _num(p[1], 4)}
                                              for p in s["points"]]})
                elif s["kind"] == "reward":
                    rewards.append({"condition": cond, "label": s["label"], "k": s["k"],
                                    "budget": s["budget"],
                                    "points": [{"step": p[0], "value": "not judged"
                                                if p[1] is None else _num(p[1], 3)}
                                               for p in s["points"]]})
                else:
                    rates.append({"condition": cond, "metric": metric, "label": s["label"],
                                  "k": s["k"], "budget": s["budget"],
                                  "control": cond == CONTROL,
                                  "points": [{"step": "—" if p[0] is None else p[0],
                                              "value": _num(p[1], 3), "lo": _num(p[2], 3),
                                              "hi": _num(p[3], 3)} for p in s["points"]]})
        ident = run.get("identity") or {}
        base = ident.get("base_model") or {}
        runs.append({
            "id": rid, "short": rid[:12], "kind": run["kind"],
            "hardware": {k: str((run.get("hardware") or {}).get(k) or "?")
                         for k in ("device", "cpus", "machine", "python", "torch")},
            "identity": {"base": base.get("name"), "revision": str(base.get("revision", ""))[:23],
                         "graph_commit": str((ident.get("data") or {}).get("graph_commit", ""))
                         [:12], "lora_r": (ident.get("lora") or {}).get("r"),
                         "seed": ident.get("seed")} if ident else None,
            "losses": losses, "rates": rates, "rewards": rewards,
            "has_control": any(r["control"] for r in rates),
            "loss_only": bool(losses) and not rates})
    events = [{"run": str(e["run"])[:12], "event": e["event"],
               "detail": json.dumps(e["detail"], sort_keys=True)} for e in doc["events"]]
    return {"runs": runs, "events": events}
