"""The disclosure an artifact's attestation records (D-23 v3.37; issue 35 item 3).

A disclosure of models and tooling reaches the gate two ways: the pull request body's
``lemmata-disclosure`` block (:func:`network.gate.attestation.disclosure_from_body`: the
opener's declaration for the whole pull request) and a record that declares its own (a
postmortem's ``disclosure``, an approach/v2 record's ``model_and_tooling``). Nothing a
contributor declares is lost and nothing is rewritten: a record's own declaration is what
its attestation records, the body's block stands for every artifact that declares none,
and where both are given and differ the artifact is refused at step 2
(``disclosure-disagrees``) on every path alike (the service's routes, MCP, a plain-git
push, a hand-opened pull request), because the gate is where every path meets.
"""

from __future__ import annotations

from network.errors import LemmataError, define
from network.gate.artifacts import Artifact, Kind
from network.gate.attestation import MAX_DISCLOSURE_BYTES, disclosure_json
from network.gate.diff import Diff
from network.gate.result import Diagnostic
from network.record import models as m
from network.record.read.parse import parse_record

define("disclosure-disagrees", 2, 422,
       "The record declares one disclosure of models and tooling and the submission's "
       "body (its `lemmata-disclosure` block, or the route's `disclosure`) another; "
       "neither is rewritten (D-23 v3.37).",
       "Declare the same {method, models, framework} in both places, or declare it once: "
       "in the record alone (a postmortem's `disclosure`, an approach record's "
       "`model_and_tooling`) and leave the body's block out.")

_SHOWN = 240


def record_disclosure(record: m.Record) -> m.Disclosure | None:
    """The disclosure a record declares itself, or None when it declares none.

    Args:
        record: a parsed record.

    Returns:
        A postmortem's ``disclosure`` when its file names one (a postmortem that omits it
        declares nothing: the model's default ``undisclosed`` is no declaration), an
        approach/v2 record's ``model_and_tooling`` (required there); None for every other
        kind (D-23 v3.37, D-13, D-14).
    """
    if isinstance(record, m.Postmortem):
        return record.disclosure if "disclosure" in record.model_fields_set else None
    if isinstance(record, m.ApproachV2):
        return record.model_and_tooling
    return None


def declared_in_files(diff: Diff, art: Artifact) -> m.Disclosure | None:
    """The disclosure the artifact's own record declares in the pull request, or None.

    Args:
        diff: the pull request's change.
        art: one artifact of it; only postmortems and approach records declare one.

    Returns:
        The declaration of :func:`record_disclosure` for the artifact's main file as it
        stands at head; None when the kind declares none or the file does not parse
        (step 2 refuses that by its own code).
    """
    model: type[m.Record]
    if art.kind == Kind.POSTMORTEM:
        model = m.Postmortem
    elif art.kind == Kind.APPROACH:
        model = m.Approach  # read as the version it declares (D-34)
    else:
        return None
    change = next((c for c in diff.changes if c.path == art.main and c.new_id is not None),
                  None)
    if change is None:
        return None
    try:
        data = diff.new_bytes(change)
    except LemmataError:  # a file step 2 cannot read is refused there by its code
        return None
    rec, problems = parse_record(art.main, data, model)
    return record_disclosure(rec) if rec is not None and not problems else None


def _plain(d: m.Disclosure) -> str:
    """The declaration for a refusal's detail, cut to a few hundred characters: a detail
    is published in the attestation, so it never repeats a long declaration whole."""
    text = disclosure_json(d)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + f"… ({len(text)} characters)"


def resolve(body: m.Disclosure | None, declared: m.Disclosure | None, *, path: str
            ) -> tuple[m.Disclosure | None, Diagnostic | None]:
    """The disclosure an artifact's attestation records, and the refusal when its two
    declarations disagree (D-23 v3.37: reported exactly as declared, never guessed).

    Args:
        body: the pull request body's declaration (None when it has no block).
        declared: the record's own declaration (None when it declares none).
        path: the record's graph path, named by the refusal.

    Returns:
        ``(disclosure, None)`` with the record's declaration when it has one, else the
        body's (None: the attestation says ``undisclosed``); ``(declared, Diagnostic)``
        with code ``disclosure-disagrees`` when both are given and differ; ``(None,
        Diagnostic)`` with ``disclosure-too-large`` when the record's declaration is over
        :data:`MAX_DISCLOSURE_BYTES` (the attestation then carries none of it).
    """
    if declared is None:
        return body, None
    size = len(disclosure_json(declared).encode("utf-8"))
    if size > MAX_DISCLOSURE_BYTES:
        return None, Diagnostic(
            "disclosure-too-large", f"the record's disclosure is {size} bytes of compact "
            f"JSON; the limit is {MAX_DISCLOSURE_BYTES}", path=path)
    if body is not None and body != declared:
        return declared, Diagnostic(
            "disclosure-disagrees",
            f"the record declares {_plain(declared)}; the body declares {_plain(body)}",
            path=path)
    return declared, None


__all__ = ["declared_in_files", "record_disclosure", "resolve"]
