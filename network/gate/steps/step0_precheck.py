"""Step 0: the precheck attestation (ruling 7): an authoritative run of a building kind
is bounced before any build when the precheck is missing, stale, unsigned where required
or for other bytes (:func:`network.gate.attestation.check_precheck`).

Moved verbatim from ``network/gate/run.py`` (issue 17); ``network.gate.run``
re-exports every name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from network import signing
from network.errors import LemmataError
from network.gate import attestation as A
from network.gate.artifacts import Artifact
from network.gate.result import StepResult
from network.gate.steps.context import _artifact_hashes, _Ctx
from network.record import models as m
from network.record.read.loader import Graph


def _ssh_verifier(base: Graph) -> Callable[[Any, m.Signature], None]:
    def verify(att: Any, sig: m.Signature) -> None:
        ident = base.identities.get(sig.signer)
        if ident is None:
            raise LemmataError("unknown-key", f"no identity {sig.signer!r} under identities/")
        signing.verify_ssh(att, sig, list(ident.ssh_signers))
    return verify


def _step0(ctx: _Ctx, art: Artifact, spec: m.GateSpec, spec_sha: str
           ) -> tuple[StepResult, m.PrecheckConsumed | None]:
    key = f"{art.target}/{art.node}"
    if ctx.step0 is not None and key in ctx.step0:
        return ctx.step0[key]
    return A.check_precheck(
        ctx.precheck_raw, spec=spec, gate_spec_sha256=spec_sha, target=art.target,
        node=art.node or "root", artifacts=_artifact_hashes(ctx.diff, art),
        head_date=ctx.head_date, keys=ctx.base.keys, ssh_verify=_ssh_verifier(ctx.base))
