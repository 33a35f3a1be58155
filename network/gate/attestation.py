"""Attestations: the signed serialization of a gate run's step results (D-5, D-34).

Also the precheck attestation a pull request carries (ruling 7) and step 0, the bounce
before any build when it is missing, stale, unsigned where signatures are required, or
for some other submission (D-4).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError

from network import signing
from network.errors import LemmataError, define
from network.gate.result import Diagnostic, StepResult
from network.record import models as m
from network.record.read.loader import sha256_hex

define("precheck-missing", 0, 422,
       "The pull request carries no precheck attestation; it is bounced before any build.",
       "Run pregate.sh or POST /precheck and attach its attestation in a fenced "
       "`precheck-attestation` block of the pull request body.")
define("precheck-malformed", 0, 422, "The attached precheck attestation does not parse.",
       "Attach the JSON exactly as the precheck printed it.")
define("precheck-stale", 0, 422, "The precheck attestation is older than gate-spec.json allows.",
       "Run the precheck again on this head and attach the new attestation.")
define("precheck-kind-refused", 0, 422,
       "The precheck attestation's signature kind is not one gate-spec.json accepts.",
       "Use a kind the target accepts (see get_gate_spec: precheck.accepted_signature_kinds).")
define("precheck-unsigned", 0, 422, "The precheck attestation's signature does not verify.",
       "Attach the attestation unchanged, as signed.")
define("precheck-mismatch", 0, 422,
       "The precheck attestation is for other bytes, another node or another gate-spec.",
       "Run the precheck on exactly the files you submit.")
define("precheck-failed", 0, 422, "The attached precheck attestation records a failure.",
       "Fix what the precheck reported, run it again, and attach a passing attestation.")
define("precheck-toolchain-missing", 0, 422,
       "The attached precheck attestation checked nothing: it ran where the target's "
       "pinned toolchain is not installed (verdict precheck-toolchain-missing). It is "
       "neither a pass nor a failure.",
       "Run the precheck where the target's pinned toolchain is installed (pregate.sh "
       "after `lemmata toolchain`, or POST /precheck on a network that has it) and attach "
       "its passing attestation.")

MASKED_FIELDS = ("runner", "merge_commit", "signature")


def precheck_verdict(steps: Sequence[StepResult], verdict: str) -> m.PrecheckVerdict:
    """The one precheck answer of an artifact's precheck run (D-28, issue 35 item 6): the
    attestation's ``verdict``, the job's ``state`` and ``diagnostics.verdict`` all read it.

    Args:
        steps: the run's step results in order.
        verdict: the run's gate verdict (``pass``, ``fail``, ``held``, ``bounced``).

    Returns:
        ``precheck-pass`` when the run passed; ``precheck-fail`` when a step judged the
        artifact and found it wanting, or the pin is known unsound (issue 37: said before
        a missing toolchain). A step that needs no Lean (step 2's paths, records and text
        screens, step 6's syntactic checks) refusing is such a judgment even where the
        toolchain is missing too: no toolchain could turn it into a pass, so the answer
        says what to fix now (issue 35 item 6). ``precheck-toolchain-missing`` only when
        every refusal is the missing toolchain, so nothing was judged (DESIGN.md "Lean":
        never a pass; D-28: not a judgment either). The findings that need no Lean stay in
        ``steps`` in every case.
    """
    if verdict == "pass":
        return "precheck-pass"
    refused = {st.code for st in steps if not st.ok and st.code}
    codes = refused | {d.code for st in steps for d in st.diagnostics}
    if "toolchain-known-unsound" in codes:
        return "precheck-fail"
    if refused - {"toolchain-missing"}:
        return "precheck-fail"
    if "toolchain-missing" in codes:
        return "precheck-toolchain-missing"
    return "precheck-fail"


def precheck_block(attestation: m.PrecheckAttestation) -> str:
    """The fenced block a pull request body carries (ruling 7): either version of the
    precheck attestation as sorted, two-space-indented JSON inside a
    ```` ```precheck-attestation ```` fence."""
    text = json.dumps(attestation.model_dump(by_alias=True, exclude_none=True),
                      sort_keys=True, indent=2, ensure_ascii=False)
    return f"```precheck-attestation\n{text}\n```\n"


DISCLOSURE_FENCE = "lemmata-disclosure"
"""The info string of a pull request body's disclosure block (D-23 v3.37)."""
_DISCLOSURE_RE = re.compile(r"^```" + DISCLOSURE_FENCE + r"[ \t]*\n(?P<json>.*?)\n```[ \t]*$",
                            re.MULTILINE | re.DOTALL)
define("disclosure-too-large", 2, 422,
       "A record declares a disclosure of models and tooling longer than a body's block "
       "may be (4096 bytes of compact JSON): the attestation and the ledger "
       "line would carry it whole, so it is refused, not cut (D-23 v3.37).",
       "Name the models and the framework in fewer bytes (a disclosure names what was "
       "used, never a transcript) and submit again.")

MAX_DISCLOSURE_BYTES = 4096
"""The most a disclosure may take on any path (D-23 v3.37): a body block's JSON, and a
record's or a route's declaration as :func:`disclosure_json` writes it. An attestation and
each ledger line carry the disclosure whole, so neither may outgrow what the loader reads."""


def disclosure_json(disclosure: m.Disclosure) -> str:
    """A disclosure as compact JSON (sorted keys, no spaces, None fields left out): the
    text of its body block and what :data:`MAX_DISCLOSURE_BYTES` measures (D-23 v3.37)."""
    return json.dumps(disclosure.model_dump(exclude_none=True), sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def disclosure_block(disclosure: m.Disclosure) -> str:
    """The fenced block a pull request body carries for its disclosure of models and
    tooling (D-23 v3.37): ```` ```lemmata-disclosure\n{json}\n``` ```` (compact JSON)."""
    return f"```{DISCLOSURE_FENCE}\n{disclosure_json(disclosure)}\n```\n"


def disclosure_from_body(body: str | None) -> m.Disclosure | None:
    """The disclosure a pull request body declares: its one ``lemmata-disclosure`` block
    read as :class:`~network.record.models.Disclosure` (D-23 v3.37).

    The block is the opener's own declaration, as the attestation records it; it grants
    nothing. Two blocks, an oversized one, or one that is not exactly a ``Disclosure``
    read as None (the attestation then says ``undisclosed``): a disclosure is never
    guessed from a malformed one."""
    found = _DISCLOSURE_RE.findall(body or "")
    if len(found) != 1 or len(found[0]) > MAX_DISCLOSURE_BYTES:
        return None
    try:
        return m.Disclosure.model_validate_json(found[0])
    except ValidationError:
        return None


def _seconds_between(earlier: str, later: str) -> float:
    return (signing.parse_date(later) - signing.parse_date(earlier)).total_seconds()


def check_precheck(
    raw: str | None,
    *,
    spec: m.GateSpec,
    gate_spec_sha256: str,
    target: str,
    node: str,
    artifacts: Sequence[m.ArtifactHash],
    head_date: str,
    keys: Mapping[str, m.PublicKey],
    ssh_verify: Any = None,
) -> tuple[StepResult, m.PrecheckConsumed | None]:
    """Step 0: is the attached precheck attestation acceptable for this submission? (D-4)

    Args:
        raw: the attestation JSON from the pull request, or None.
        spec: the target's gate-spec (accepted kinds, maximum age in seconds).
        gate_spec_sha256: hex SHA-256 of gate-spec.json's bytes.
        target, node: what the submission is for.
        artifacts: the submitted files with their SHA-256.
        head_date: the head commit's committer date (ruling 2: the age is measured on the
            record's dates, never the wall clock).
        keys: the graph's public keys, for service signatures.
        ssh_verify: a callable(att, signature) raising LemmataError for ssh signatures;
            None refuses ssh signatures as unverifiable.

    Returns:
        (the step-0 result, what was consumed for the attestation's ``precheck`` field).
        Either version of the precheck attestation is read (D-34). A refusal is the
        step's data, never an exception: ``precheck-missing``, ``precheck-malformed``,
        ``precheck-kind-refused``, ``precheck-mismatch``, ``precheck-stale``,
        ``precheck-unsigned``, ``precheck-toolchain-missing`` (a v2 attestation that
        checked nothing, issue 35) or ``precheck-failed``.
    """
    def bounce(code: str, message: str) -> tuple[StepResult, None]:
        return StepResult.refused(0, [Diagnostic(code, message)]), None

    if raw is None:
        return bounce("precheck-missing", "no fenced precheck-attestation block")
    try:
        att = m.precheck_attestation_from_json(raw)
    except (json.JSONDecodeError, ValidationError) as exc:
        return bounce("precheck-malformed", str(exc).splitlines()[0])
    kind = att.signature.kind if att.signature is not None else "none"
    if kind not in spec.precheck.accepted_signature_kinds:
        return bounce("precheck-kind-refused", f"{kind} is not accepted")
    if att.target != target or att.node != node or att.gate_spec_sha256 != gate_spec_sha256:
        return bounce("precheck-mismatch", "target, node or gate-spec differ")
    if sorted((a.path, a.sha256) for a in att.artifacts) != sorted(
        (a.path, a.sha256) for a in artifacts
    ):
        return bounce("precheck-mismatch", "the attested files are not the submitted bytes")
    try:
        age = _seconds_between(att.date, head_date)
    except ValueError as exc:
        return bounce("precheck-malformed", f"bad date: {exc}")
    if age > spec.precheck.max_age_s:
        return bounce("precheck-stale", f"{age:.0f} s old; the limit is "
                      f"{spec.precheck.max_age_s} s")
    if att.signature is not None:
        try:
            if att.signature.kind == "ssh":
                if ssh_verify is None:
                    raise LemmataError("bad-signature", "no ssh verifier configured")
                ssh_verify(att, att.signature)
            else:
                if att.signature.kind != "service":
                    raise LemmataError("bad-signature", "a precheck is signed by the service")
                signing.verify(att, att.signature, keys, att.date)
        except LemmataError as exc:
            return bounce("precheck-unsigned", exc.detail)
    if att.verdict == m.PRECHECK_TOOLCHAIN_MISSING:  # D-28: nothing was judged
        return bounce("precheck-toolchain-missing",
                      "the precheck found no toolchain for the pin and checked nothing")
    if att.verdict != "precheck-pass":
        return bounce("precheck-failed", f"first failing step {att.first_failing_step}")
    digest = sha256_hex(signing.canonical_json(att))
    return StepResult.passed(0), m.PrecheckConsumed(sha256=digest, signature_kind=kind)


def verdict_of(steps: Sequence[StepResult], held: bool) -> tuple[str, int | None]:
    """(verdict, first failing step) from the step results in order (D-34).

    ``bounced`` when step 0 failed, ``fail`` at the first other failing step, ``held``
    when steps 1-8 passed and step 9 waits, else ``pass``.
    """
    for st in steps:
        if not st.ok:
            return ("bounced" if st.step == 0 else "fail"), st.step
    return ("held" if held else "pass"), None


def build_attestation(
    *,
    graph_id: str,
    target: str,
    node: str,
    statement_hash: str | None,
    artifact_kind: str,
    artifacts: Sequence[m.ArtifactHash],
    spec: m.GateSpec,
    gate_spec_sha256: str,
    toolchain_hash: str | None,
    base_commit: str,
    head_commit: str,
    graph_commit: str,
    head_date: str,
    steps: Sequence[StepResult],
    step9: m.Step9 | None,
    held: bool,
    submitter: str | None = None,
    disclosure: m.Disclosure | None = None,
    precheck: m.PrecheckConsumed | None = None,
    waivers: Sequence[str] = (),
    elaboration_state: str | None = None,
    runner: str | None = None,
    channel: str = "public",
    kernels: Sequence[m.KernelRecord] | None = None,
) -> m.Attestation:
    """The attestation of one artifact's gate run: the step results serialized (D-5, D-34).

    Every input is a record fact, so two runs over the same commits give the same bytes
    once ``runner``, ``merge_commit`` and ``signature`` are masked. ``kernels`` are step
    4's kernel verdicts (issue 37), None when no replay ran; the gate writes
    ``attestation/v2``, which carries them.

    Raises:
        pydantic.ValidationError: an input violates the attestation schema (a bug).
    """
    verdict, first = verdict_of(steps, held)
    return m.AttestationV2(
        graph_id=graph_id, target=target, node=node, statement_hash=statement_hash,
        artifact_kind=artifact_kind, artifacts=list(artifacts), submitter=submitter,
        channel=channel,
        disclosure=disclosure or m.Disclosure(), toolchain=spec.lean_toolchain,
        toolchain_hash=toolchain_hash,
        mathlib_rev=spec.mathlib.rev if spec.mathlib else None,
        gate_spec_sha256=gate_spec_sha256, network_commit=spec.network_commit,
        base_commit=base_commit, head_commit=head_commit, graph_commit=graph_commit,
        precheck=precheck, verdict=verdict,
        first_failing_step=first, steps=[s.to_record() for s in steps], step9=step9,
        kernels=list(kernels) if kernels is not None else None,
        waivers=list(waivers),
        elaboration_state=elaboration_state, timestamp=head_date,
        runner=runner,
    )


def sign_attestation(att: m.Attestation, key: Ed25519PrivateKey, key_id: str) -> m.Attestation:
    """The attestation with a gate signature over its canonical JSON (ruling 9)."""
    sig = signing.sign(att, key, "gate", key_id, "gate")
    return att.model_copy(update={"signature": sig})


def masked(att: m.Attestation | Mapping[str, Any]) -> dict[str, Any]:
    """The attestation as JSON with the run-environment fields removed (D-5, D-34)."""
    body = att.model_dump(by_alias=True) if isinstance(att, m.Attestation) else dict(att)
    return {k: v for k, v in body.items() if k not in MASKED_FIELDS}


def attestation_bytes(att: m.Attestation) -> bytes:
    """The file bytes of ``attestations/<id>.json``: sorted, indented, newline-terminated."""
    return (json.dumps(att.model_dump(by_alias=True, exclude_none=True), sort_keys=True,
                       indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def attestation_id(att: m.Attestation) -> str:
    """A stable file id: ``<target>--<node>--<head12>--<verdict>`` plus a digest of the
    masked body, so reruns of the same judgment land on the same path."""
    digest = sha256_hex(signing.canonical_json(masked(att)))[:12]
    return f"{att.target}--{att.node}--{att.head_commit[:12]}--{digest}"
