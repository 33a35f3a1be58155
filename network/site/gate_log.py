"""What a gate run says, where a reader meets it (issue 35, items 1 and 2; D-5, D-36).

A node page's "Proof and attestation" section holds only runs on a Lean artifact that
passed or is held for review: a proof the gate accepted. Every other run is a line of the
node's gate log, in words that say what it was: "postmortem recorded", "refused at step 2:
gate-only-path". A refused pull request that touched no file of a node (an edit of
``frontier.json``, a note under ``targets/<T>/``) is on no node page. The gate publishes it
on the graph's first target (network/gate/run.py ``_orphan_artifact``) only so that the
run has a record. It is listed, like every run, on the site's gate log (``gate-log.html``).
"""

from __future__ import annotations

from typing import Any

from network.record.read.loader import Graph

#: artifact kinds whose passing run is a proof of the node's statement (D-4, D-12)
PROOF_KINDS = frozenset({"proof", "alternate", "partial", "reduction", "counterexample",
                         "vacuity", "witness"})


def section(a: dict[str, Any]) -> str:
    """``"proof"`` for a run on a Lean artifact that passed or is held, ``"log"`` for any
    other (a record, a refusal, an unplaced run). ``a`` is a row of
    :func:`network.site.pages.attestations_of`."""
    if a["artifact_kind"] in PROOF_KINDS and a["verdict"] in ("pass", "held"):
        return "proof"
    return "log"


def words(a: dict[str, Any]) -> str:
    """The run in words: ``"<kind> recorded"`` for a record that passed, ``"proof
    accepted"``/``"<kind> accepted"`` for a Lean artifact, ``"held for review at step 9"``,
    ``"refused at step N"`` (``"refused"`` with no step named); the refusal's catalog code
    is :func:`refusal_code`'s, which the site prints with its sentence."""
    kind = str(a["artifact_kind"])
    verdict = a["verdict"]
    if verdict == "pass":
        return f"{kind} accepted" if kind in PROOF_KINDS else f"{kind} recorded"
    if verdict == "held":
        return "held for review at step 9"
    failing = next((s for s in a.get("steps") or [] if not s.get("ok")), None)
    return f"refused at step {failing['step']}" if failing is not None else "refused"


def refusal_code(a: dict[str, Any]) -> str | None:
    """The catalog code a refused run failed with: its first failing step's, else its
    recorded reason; None for a run that was not refused."""
    if a["verdict"] in ("pass", "held"):
        return None
    failing = next((s for s in a.get("steps") or [] if not s.get("ok")), None)
    return (failing.get("code") if failing else None) or a.get("reason")


def touches_node(a: dict[str, Any], tid: str, nid: str) -> bool:
    """Whether a run belongs on node ``tid/nid``'s page: any run not ``unplaced``, or an
    unplaced one holding a file under ``targets/<tid>/nodes/<nid>/``."""
    if a["artifact_kind"] != "unplaced":
        return True
    prefix = f"targets/{tid}/nodes/{nid}/"
    return any(str(p).startswith(prefix) for p in a.get("artifacts") or [])


def gate_log_rows(graph: Graph) -> list[dict[str, Any]]:
    """Every attestation of the graph, newest first, as the gate log lists it:
    ``{path, timestamp, target (None for an unplaced run under no target), node (None
    for an unplaced run under no node), artifact_kind, verdict, words, code (the refusal's
    catalog code or None), submitter, artifacts}``."""
    from network.record import derive

    out = []
    for rf in graph.attestations:
        a = rf.record
        paths = [x.path for x in a.artifacts]
        row: dict[str, Any] = {
            "path": rf.path, "timestamp": a.timestamp, "verdict": a.verdict,
            "artifact_kind": a.artifact_kind, "artifacts": paths,
            "steps": [s.model_dump() for s in a.steps], "reason": None,
            "submitter": a.submitter, "target": a.target}
        row["node"] = a.node if touches_node(row, a.target, a.node) else None
        if a.artifact_kind == "unplaced" and not any(
                str(x).startswith(f"targets/{a.target}/") for x in paths):
            row["target"] = None  # published on the first target only to have a record
        row["words"], row["code"] = words(row), refusal_code(row)
        out.append(row)
    out.sort(key=lambda x: (derive.norm_date(str(x["timestamp"])), str(x["path"])),
             reverse=True)
    return out
