"""What a submission's precheck must be before ``submit_proof`` opens a pull request
(D-4 "What counts as attached", D-28 submit_proof; ruling 7; issue 40).

``submit_proof`` takes a precheck two ways: a job of the caller's on this service
(``precheck_id``, :func:`precheck_bundle`) or the attestation pregate.sh printed beside a
bundle (``attestation``, :func:`attached_precheck`). Both answer one way: a precheck that
did not pass is refused ``precheck-not-passed`` (:func:`not_passed`) before anything opens.
A ``toolchain-missing`` precheck checked no proof: it is neither a pass nor a judgment of
the proof, so neither path opens a pull request that would wait on it.
"""

from __future__ import annotations

import json

from network.api import db
from network.api.guidance import not_checkable
from network.api.service import Service, Who
from network.api.submit.precheck import Bundle
from network.errors import LemmataError, define

define("submission-needs-precheck", None, 422,
       "A submission carries a passing precheck: name the precheck job, or attach the "
       "attestation pregate.sh printed (D-4).",
       "Run precheck_submission (POST /precheck) and pass its job id as precheck_id, or "
       "attach pregate.sh's attestation JSON as `attestation`.")
define("precheck-not-passed", None, 409,
       "The precheck named (precheck_id) or attached (attestation) has not passed: it is "
       "still running, failed, or found no toolchain. A toolchain-missing precheck checked "
       "no proof, so it is no pass, and no pull request opens on it by either path (D-4, "
       "D-28).",
       "Poll get_precheck until state is pass; fix what a failure names and precheck again. "
       "Where no toolchain was found, precheck where the target's pinned Lean toolchain is "
       "installed (pregate.sh, or a service that has it) and submit that pass.")
define("precheck-not-yours", None, 403, "The named precheck job belongs to another identity.",
       "Submit with a precheck job you started with your own token.")


def not_passed(what: str, state: str, code: str | None, *, here: bool = False) -> LemmataError:
    """The one refusal of a precheck that did not pass, named or attached (D-4: the
    authoritative gate requires an attached *passing* precheck; D-28).

    Args:
        what: the precheck, as the detail names it.
        state: how it ended (a job's state, or an attestation's verdict).
        code: its first failing code, if any.
        here: it ran on this service (a ``precheck_id``), so a ``toolchain-missing`` end
            means this service has no pinned Lean, which the detail then says
            (:func:`network.api.guidance.not_checkable`).

    Returns:
        ``precheck-not-passed``. ``toolchain-missing`` is neither a pass nor a judgment of
        the proof: the detail says nothing was checked and where a check can run.
    """
    detail = f"{what} is {state}" + (f" ({code})" if code and code != state else "")
    if "toolchain-missing" in (state, code):
        detail += (": no proof was checked (no pinned Lean toolchain where it ran), so it "
                   "is no pass. " + (not_checkable() if here else
                                     "Precheck where the target's pinned toolchain is "
                                     "installed and submit that pass."))
    return LemmataError("precheck-not-passed", detail)


def attached_precheck(attestation: str) -> str:
    """The attestation JSON a bundle carries (pregate.sh's), checked to be a pass and
    rendered as the pull request's fenced block (sorted keys, two-space indent).

    Only the verdict is read here; the gate's step 0 judges the rest (its signature, its
    age, the artifacts it names) as it does for a hand-opened pull request (D-4, ruling 7).

    Raises:
        LemmataError: ``precheck-malformed`` (not a JSON object); ``precheck-not-passed``
            (its ``verdict`` is not ``precheck-pass``: a ``precheck-fail``, or a run that
            checked nothing for want of a toolchain: ``precheck-toolchain-missing`` in a
            precheck-attestation/v2, a ``precheck-fail`` whose failing step says
            ``toolchain-missing`` in a v1; issue 35, D-34).
    """
    try:
        obj = json.loads(attestation)
    except (json.JSONDecodeError, TypeError) as exc:
        raise LemmataError("precheck-malformed", f"attestation: {exc}",
                           field="attestation") from exc
    if not isinstance(obj, dict):
        raise LemmataError("precheck-malformed", "attestation: not a JSON object",
                           field="attestation")
    verdict = obj.get("verdict")
    if verdict != "precheck-pass":
        steps = obj.get("steps")
        codes = [str(st.get("code")) for st in (steps if isinstance(steps, list) else [])
                 if isinstance(st, dict) and not st.get("ok", True) and st.get("code")]
        code = "toolchain-missing" if ("toolchain-missing" in codes or verdict ==
                                       "precheck-toolchain-missing") else (
            codes[0] if codes else None)
        raise not_passed("the attached precheck attestation", str(verdict), code)
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False)


def precheck_bundle(svc: Service, who: Who, precheck_id: str) -> tuple[Bundle, str, str]:
    """The files and attestation of the caller's passing precheck job ``precheck_id``
    (the ``precheck_id`` path of ``submit_proof``; D-28, ruling 7).

    Returns:
        ``(bundle, attestation JSON as the pull request's fenced block, job id)``.

    Raises:
        LemmataError: ``precheck-not-found``; ``precheck-not-yours``;
            ``precheck-not-passed`` (:func:`not_passed`: queued, running, failed, error or
            toolchain-missing).
    """
    with svc.sessions() as s:
        job = s.get(db.PrecheckJobRow, str(precheck_id)[:40])
        if job is None:
            raise LemmataError("precheck-not-found", f"no precheck job {precheck_id!r}")
        if job.identity_id is not None and job.identity_id != who.id:
            raise LemmataError("precheck-not-yours", f"{precheck_id} was started by another "
                               "identity")
        if job.identity_id is None and not job.tutorial:  # pragma: no cover - refused earlier
            raise LemmataError("precheck-not-yours", f"{precheck_id} is anonymous")
        if job.state != "pass" or not job.attestation_json or not job.bundle_json:
            raise not_passed(f"precheck {precheck_id}", job.state, job.code, here=True)
        att = json.loads(job.attestation_json)
        return Bundle.from_json(job.bundle_json), json.dumps(att, sort_keys=True, indent=2,
                                                             ensure_ascii=False), job.id


__all__ = ["attached_precheck", "not_passed", "precheck_bundle"]
