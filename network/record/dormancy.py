"""Dormancy's K/N evidence (D-33) and the missing-library threshold (D-13), read from the
record and the graph's policy (issue 18).

D-33's declaration requirements: a dormancy record at ``targets/<id>/status/``, signed by a
curator of the target, "is valid only if it names the D-25 series values at declaration
and both of the following hold: (a) every ready node on the target's frontier carries at
least K attempts, or no progress artifact — a merged D-12 artifact, a D-30 variant, or a
refuted-route postmortem (D-13) — has landed on the target in N days; (b) the reasoning is
published with the record". K and N are ``policy.json``'s ``dormancy_k_attempts`` and
``dormancy_n_days`` (a target's ``policy`` may set its own). :func:`dormancy_series` is the
series at a date; :func:`evidence_findings` is the mechanical rejection the gate applies at
step 2.

D-13: "failure_class: missing-library aggregates; above threshold the missing lemma enters
the frontier as a prerequisite node — by way of the curator ... the aggregate (threshold a
per-graph config value, default 3) is surfaced to the curator". :func:`missing_library_items`
lists each node whose count of missing-library postmortems reaches
``missing_library_threshold``: what a curator's page reads. Nothing is created.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from network.record import derive
from network.record.read.loader import Graph

#: The series fields a declaration must name, each equal to the value at its date.
SERIES_FIELDS = ("k_attempts", "n_days", "ready", "ready_below_k", "last_progress",
                 "days_since_progress")
#: Merged node files that are D-12 progress artifacts (the closing kinds).
_PROGRESS_FILES = ("Proof", "Refutation", "Vacuity")


def _policy_int(graph: Graph, target: str, name: str) -> int:
    t = graph.targets[target]
    value = t.record.policy.get(name, getattr(graph.policy, name))
    return int(value)


def _day(date: str) -> datetime:
    return datetime.strptime(date[:10], "%Y-%m-%d")


def progress_dates(graph: Graph, target: str) -> list[str]:
    """The dates (ISO, as the record has them) of every progress artifact on the target
    (D-33): a merged Proof, Refutation or Vacuity, a merged decomposition (partial or
    reduction), a variant node, a refuted-route postmortem."""
    ix = derive._ix(graph)
    out: list[str] = []
    for n in graph.targets[target].nodes.values():
        for name in _PROGRESS_FILES:
            lf = n.files.get(name)
            if lf is not None and ix.is_merged(lf.path, lf.sha256):
                d = ix.date_of(lf.path)
                if d:
                    out.append(d)
        for path in ix.own_routes(n):
            d = ix.date_of(path)
            if d:
                out.append(d)
        if n.meta.origin == "variant":
            d = ix.date_of(f"targets/{target}/nodes/{n.id}/META.yaml")
            if d:
                out.append(d)
        for a in n.attempts:
            if (a.kind == "postmortem" and a.postmortem is not None and ix.present(a.path)
                    and a.postmortem.outcome == "refuted-route"):
                d = ix.date_of(a.path)
                if d:
                    out.append(d)
    return sorted(out)


def dormancy_series(graph: Graph, target: str, on: str,
                    frontier: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The D-25 series D-33 asks a declaration to name, at date ``on`` (``YYYY-MM-DD``);
    ``frontier`` is :func:`derive.frontier`'s answer when the caller has it already.

    Returns:
        ``{k_attempts, n_days, ready, ready_below_k, last_progress, days_since_progress,
        meets}``: K and N from policy; ``ready`` the target's frontier size and
        ``ready_below_k`` how many of those carry fewer than K attempts;
        ``last_progress`` the latest progress artifact's date on or before ``on`` (None
        when none landed) and ``days_since_progress`` the days from it (else from the
        target's own first merge) to ``on``; ``meets`` whether condition (a) holds: no
        ready node below K, or no progress in N days.
    """
    k = _policy_int(graph, target, "dormancy_k_attempts")
    n_days = _policy_int(graph, target, "dormancy_n_days")
    entries = derive.frontier(graph) if frontier is None else frontier
    ready = [e for e in entries if e["target"] == target]
    below = sum(1 for e in ready if int(e["attempts"]) < k)
    day = _day(on)
    dates = [d for d in progress_dates(graph, target) if _day(d) <= day]
    last = dates[-1] if dates else None
    since_from = last or _first_merge(graph, target)
    since = (day - _day(since_from)).days if since_from else None
    meets = below == 0 or (since is not None and since >= n_days)
    return {"k_attempts": k, "n_days": n_days, "ready": len(ready), "ready_below_k": below,
            "last_progress": last[:10] if last else None, "days_since_progress": since,
            "meets": meets}


def _first_merge(graph: Graph, target: str) -> str | None:
    ix = derive._ix(graph)
    prefix = f"targets/{target}/"
    dates = [ix.date_of(p) for p in graph.files if p.startswith(prefix)]
    found = sorted(d for d in dates if d)
    return found[0] if found else None


def evidence_findings(graph: Graph, target: str, declaration: str, date: str,
                      reasoning: str, series: dict[str, Any] | None,
                      not_after: str | None = None) -> list[tuple[str, str]]:
    """D-33's mechanical rejection of a dormancy declaration, judged against ``graph``
    (the base the pull request merges into): ``(code, message)`` pairs, empty when the
    record stands. Only ``dormant`` declarations are judged.

    The record's date must lie between ``graph``'s "now" (its last merge: a declaration
    dated earlier would read the series before progress that has since landed) and
    ``not_after`` (the gate's head commit date: one dated later would count days that
    have not passed), else ``dormancy-date-out-of-range`` and nothing more is judged.

    Codes: ``dormancy-series-missing`` (no ``starvation_series``, or a field of
    :data:`SERIES_FIELDS` absent), ``dormancy-series-mismatch`` (a named value is not the
    series at the record's date), ``dormancy-evidence-insufficient`` (condition (a) fails:
    a ready node below K attempts and progress within N days), ``dormancy-reasoning-empty``
    (no reasoning published, (b)).
    """
    if declaration != "dormant":
        return []
    now = derive.now(graph)
    if now is not None and _day(date) < _day(now):
        return [("dormancy-date-out-of-range", (f"dated {date[:10]}, before the last merge "
                 f"{now[:10]}: the series must be read at declaration"))]
    if not_after is not None and _day(date) > _day(not_after):
        return [("dormancy-date-out-of-range", (f"dated {date[:10]}, after the pull "
                 f"request's commit {not_after[:10]}"))]
    out: list[tuple[str, str]] = []
    if not reasoning.strip():
        out.append(("dormancy-reasoning-empty", ("a dormancy declaration publishes its "
                    "reasoning (D-33 (b))")))
    truth = dormancy_series(graph, target, date)
    if not series:
        out.append(("dormancy-series-missing", ("name the D-25 series at declaration as "
                    f"starvation_series: {({k: truth[k] for k in SERIES_FIELDS})}")))
    else:
        missing = [k for k in SERIES_FIELDS if k not in series]
        if missing:
            out.append(("dormancy-series-missing", f"starvation_series lacks {missing}"))
        wrong = [k for k in SERIES_FIELDS if k in series and series[k] != truth[k]]
        if wrong:
            out.append(("dormancy-series-mismatch", "; ".join(
                f"{k} is {truth[k]!r}, not {series[k]!r}" for k in wrong)))
    if not truth["meets"]:
        out.append(("dormancy-evidence-insufficient", (
            f"{truth['ready_below_k']} ready node(s) carry fewer than K="
            f"{truth['k_attempts']} attempts and progress landed "
            f"{truth['days_since_progress']} day(s) ago, under N={truth['n_days']} (D-33 (a))")))
    return out


def missing_library_items(graph: Graph, target: str | None = None) -> list[dict[str, Any]]:
    """Curator items (D-13): each node whose missing-library postmortems reach its
    target's ``missing_library_threshold``, in the record's order (of ``target`` alone
    when given).

    Returns:
        ``[{target, node, count, threshold, curators}]``; ``curators`` are the target's
        curators, who are asked to propose the prerequisite node (D-29). Nothing is
        created automatically.
    """
    out: list[dict[str, Any]] = []
    for tid, t in graph.targets.items():
        if target is not None and tid != target:
            continue
        threshold = _policy_int(graph, tid, "missing_library_threshold")
        curators = sorted(derive.curators_of(graph, tid))
        for nid in t.nodes:
            count = derive.attempt_facts(graph, tid, nid)["failure_classes"].get(
                "missing-library", 0)
            if count >= threshold:
                out.append({"target": tid, "node": nid, "count": count,
                            "threshold": threshold, "curators": curators})
    return out
