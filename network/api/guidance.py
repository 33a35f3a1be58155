"""What the service tells a newcomer when proofs cannot be checked here (issue 11).

The banner of `make run`, the tutorial target's text, a precheck's ``notice`` and ``next``,
``proof-invalid`` and ``token-missing`` all say the same true thing with the same words:
without the pinned Lean toolchain a precheck still reports every finding that needs no
Lean (step 2, then steps 0 and 1) and ends ``toolchain-missing``, never a pass; so a
tutorial precheck cannot prove an identity here, and the ways forward are an operator
token, a machine with the pinned toolchain, or ``lemmata toolchain install``
(DESIGN.md "Lean"; D-19, D-27, D-35).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from network.gate.lean.detect import detect_toolchain
from network.gate.lean.kernels import pin_soundness

if TYPE_CHECKING:
    from network.api.service import Service
    from network.record.read.loader import Graph

WAY_FORWARD = (
    "Ways forward: ask this network's operator for a token (`lemmata token issue "
    "--pseudonym NAME --dco` on the network's data directory), which is enough for claims "
    "and postmortems; run the check where the pinned toolchain is installed (`pregate.sh`, "
    "graph/AGENTS.md) and submit with its attestation; or have the operator install the "
    "pins here (`lemmata toolchain install`).")
"""The three ways forward, named everywhere the service says proofs are not checked."""


def not_checkable(pin: str | None = None) -> str:
    """The one sentence saying proofs cannot be checked here, then :data:`WAY_FORWARD`.

    Args:
        pin: the Lean toolchain the target pins (``leanprover/lean4:v4.34.0``), if known.

    Returns:
        Plain text for a ``notice``/``next`` field or an error message.
    """
    which = f"the pinned Lean toolchain {pin}" if pin else "the pinned Lean toolchain"
    return (f"Proofs cannot be checked on this service: {which} is not installed here, so a "
            "precheck reports the findings that need no Lean (step 2, then steps 0 and 1) "
            "and ends `fail` where one of them refuses, else `toolchain-missing`, never a "
            "pass, and a tutorial precheck cannot "
            f"prove an identity. {WAY_FORWARD}")


def known_unsound_notice(pin: str, bugs: list[str]) -> str:
    """The sentence a precheck on a known-unsound pin gets up front (issue 37): nothing on
    this target can pass until a curator re-pins it, whatever is installed."""
    return (f"Nothing on this target can pass: its pinned toolchain {pin} is known to accept "
            f"a proof of False through {', '.join(bugs)} with every kernel the gate runs, so "
            "the gate refuses every artifact with `toolchain-known-unsound` before any build "
            "(network/gate/soundness/record.json cites each bug). A curator moves it with "
            "`lemmata target repin`; until then, work on a target whose pin is sound.")


def target_known_unsound(svc: Any, target: str) -> list[str]:
    """The soundness record's bugs that make ``target``'s pin known unsound ([] when it is
    sound or unknown to the graph), as /info.json publishes them."""
    graph = svc.graphs.snapshot().graph
    entry = proof_checking(svc, graph)["targets"].get(target)
    return list(entry["known_unsound"]) if entry is not None else []


def target_checkable(svc: Any, target: str) -> tuple[bool, str | None]:
    """Whether ``target``'s pinned toolchain is found by the service's toolchain source.

    Reads :func:`proof_checking` (cached per pin), so the answer is the
    one /info.json publishes.

    Returns:
        ``(checkable, pin)``; ``(False, None)`` for a target the graph does not hold.
    """
    graph = svc.graphs.snapshot().graph
    entry = proof_checking(svc, graph)["targets"].get(target)
    if entry is None:
        return False, None
    return bool(entry["checkable"]), str(entry["pinned"])


_HOST_PATH_RE = re.compile(r"(?<![\w.:/-])~?/(?:[^\s'\"/]*/)*([^\s'\"/]*)")


def without_host_paths(text: str | None) -> str | None:
    """``text`` with every absolute or home-relative path cut to its last component
    (``/home/svc/.elan/bin/lean`` → ``…/lean``), so a published toolchain detail never
    names the service's home directory or layout (issue 16)."""
    if text is None:
        return None
    return _HOST_PATH_RE.sub(lambda m: "…/" + m.group(1), text)


def proof_checking(svc: Service, graph: Graph) -> dict[str, Any]:
    """Whether proofs can be checked here, per target: the toolchain each gate-spec pins is
    found or not (issue 6: /info.json says it plainly). Never claims a check it cannot do.

    Returns:
        ``{"checkable": bool (every target's pin found), "targets": {id: {pinned,
        checkable, code, detail, known_unsound}}}``; ``code`` is None or
        ``toolchain-missing`` / ``toolchain-mismatch``; ``known_unsound`` lists the
        soundness record's bugs no kernel catches on that pin (issue 37: such a target
        passes nothing, ``toolchain-known-unsound``, whether or not Lean is here).
    """
    source = svc.toolchain or detect_toolchain
    cache: dict[str, dict[str, Any]] = svc.__dict__.setdefault("_proof_checking", {})
    targets: dict[str, Any] = {}
    for tid, t in sorted(graph.targets.items()):
        key = t.gate_spec.model_dump_json()
        if key not in cache:  # describe() may start `lean --version`: once per pin
            tc = source(t.gate_spec) if callable(source) else source
            info = tc.describe()
            sound = pin_soundness(t.gate_spec)
            cache[key] = {"pinned": t.gate_spec.lean_toolchain, "checkable": bool(info.ok),
                          "code": info.code, "detail": without_host_paths(info.detail),
                          # issue 37: checkable or not, such a pin passes nothing
                          "known_unsound": [b["id"] for b in sound["bugs"]]}
        targets[tid] = cache[key]
    return {"checkable": bool(targets) and all(v["checkable"] for v in targets.values()),
            "targets": targets}
