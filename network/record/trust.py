"""Which records verify: role acts signed by a holder of the role, verdicts signed by the gate.

Foundation ruling 14: a record's actors are its submitter, a role act is signed by a key
bound to that role, and derive counts a role record or a verdict only when its signature
verifies. Ruling 9 gives the one envelope (``{kind, key_id, signer, value}``) and where the
bindings live: ``keys/`` (the network's Ed25519 keys, with validity dates), ``identities/``
(a pseudonym's allowed SSH signers, from ``since``), ``curators.json`` and
``targets/<id>/stewards/``. The gate's step 2 (:mod:`network.gate.records.actors`) and
:mod:`network.record.derive` both judge through the functions here, so a record the gate
admits is one derive counts.

A role act's signature is one of:

- ``ssh``: made by the signer's own SSH key, one of ``identities/<signer>.yaml``
  ``ssh_signers`` (namespace ``lemmata``, over the record's canonical JSON);
- ``approval``: made by the network's approval key for a signed-in role holder named in
  ``signer`` (D-32 v3.33: the site signs steward records, approvals, shelvings).

``gate`` and ``service`` keys are no role's key. The signer must be the record's actor
and hold the role on the record's own date (ruling 2). Approvals of a gloss or explainer
(``approvals``) sign the version without its ``approvals`` list
(:func:`approval_body`), so several can sign one version.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from network import signing
from network.errors import LemmataError, define
from network.record import models as m

define("role-act-unsigned", 2, 403,
       "A role act carries no signature: steward, dormancy and dispute records, shelvings, "
       "a steward's or curator's literature reading, a withdrawal that rests on its "
       "author's role, and a gloss or explainer approval are signed by the role's holder "
       "(ruling 14).",
       "Sign the record with the SSH key your identities/<pseudonym>.yaml lists "
       "(`signature: {kind: ssh, ...}` over its canonical JSON, namespace lemmata), or "
       "file it through the site, which signs it with the network's approval key.")
define("role-signature-invalid", 2, 403,
       "A role act's signature does not verify over the record's canonical JSON.",
       "Re-sign the record exactly as committed (its canonical JSON without `signature`; "
       "an approval signs the version without its `approvals`).")
define("role-key-unbound", 2, 403,
       "A role act is signed by a key not bound to that role on the record's date: a "
       "gate or service key, a key keys/ does not hold or that was not valid then, an SSH "
       "key the signer's identity does not list, or a signer who is not the record's "
       "actor or did not hold the role then.",
       "Sign as the record's actor, with your own listed SSH key or through the site's "
       "approval key, while you hold the role (curators.json, targets/<id>/stewards/).")

ROLE_SIGNATURE_KINDS = frozenset({"ssh", "approval"})
"""Envelope kinds a role's holder signs with (ruling 9)."""

RoleCheck = Callable[[str, str], bool]
"""``holds(pseudonym, date)``: whether that pseudonym holds the role on that date."""


def approval_body(words: m.Words) -> dict[str, Any]:
    """What an approval of a gloss or explainer version signs: the version's canonical
    body without its ``approvals`` list (ruling 11)."""
    body = signing.record_body(words)
    body.pop("approvals", None)
    return body


def check_role_signature(
    body: BaseModel | dict[str, Any],
    signature: m.Signature | None,
    *,
    actors: frozenset[str],
    holds: RoleCheck,
    at_date: str,
    keys: dict[str, m.PublicKey],
    identities: dict[str, m.Identity],
) -> None:
    """Judge one role act's signature (ruling 14).

    Args:
        body: the signed record (a model, so defaults the file omits are signed too) or
            the body an approval signs (:func:`approval_body`).
        signature: the envelope, or None.
        actors: who may sign it: the record's actor (and, for a steward record, the
            target's curators beside the steward it names).
        holds: ``holds(signer, at_date)`` says whether the signer holds the role.
        at_date: the record's own date (``YYYY-MM-DD`` or a UTC timestamp).
        keys: the graph's ``keys/`` by key id.
        identities: the graph's ``identities/`` by pseudonym.

    Raises:
        LemmataError: ``role-act-unsigned`` (no signature); ``role-key-unbound`` (a kind
            or key no role holds, a key not valid on ``at_date``, a signer who is not an
            actor or does not hold the role then, an SSH key the signer's identity does
            not list or lists only from a later date); ``role-signature-invalid`` (the
            signature does not verify over ``body``).
    """
    if signature is None:
        raise LemmataError("role-act-unsigned", "the record carries no signature")
    if signature.kind not in ROLE_SIGNATURE_KINDS:
        raise LemmataError("role-key-unbound", f"a {signature.kind} key is no role's key")
    if signature.signer not in actors:
        raise LemmataError("role-key-unbound", f"signed by {signature.signer!r}, but the "
                           f"record's actor is {' or '.join(sorted(actors))}")
    if not holds(signature.signer, at_date):
        raise LemmataError("role-key-unbound", f"{signature.signer} did not hold the role "
                           f"on {at_date}")
    try:
        if signature.kind == "approval":
            key = keys.get(signature.key_id)
            if key is None or key.kind != "approval":
                raise LemmataError("unknown-key", f"no approval key {signature.key_id!r} "
                                   "under keys/")
            signing.verify(body, signature, keys, at_date)
            return
        ident = identities.get(signature.signer)
        if ident is None or not ident.ssh_signers:
            raise LemmataError("unknown-key", f"identities/{signature.signer}.yaml lists no "
                               "SSH signer")
        if _later(ident.since, at_date):
            raise LemmataError("key-expired", f"{signature.signer}'s SSH signers are bound "
                               f"from {ident.since}, the record is dated {at_date}")
        signing.verify_sshsig(body, signature, list(ident.ssh_signers))
    except LemmataError as exc:
        code = "role-signature-invalid" if exc.code == "bad-signature" else "role-key-unbound"
        raise LemmataError(code, exc.detail) from exc


_GATE_SIGNED: dict[tuple[str, tuple[str, ...]], bool] = {}


def _key_fingerprint(key: m.PublicKey) -> tuple[str, ...]:
    """What of a key record a verdict depends on."""
    return (key.key_id, key.kind, key.public_key, key.valid_from, key.valid_until or "")
_GATE_SIGNED_MAX = 1 << 20


def gate_signed(att: m.Attestation, keys: dict[str, m.PublicKey],
                file_sha256: str | None = None) -> bool:
    """Whether an attestation carries a gate signature that verifies with a gate key of
    ``keys/`` valid on its timestamp (D-5, ruling 14): only then is it a verdict.

    With ``file_sha256`` (the SHA-256 of the attestation file's bytes, which fix the record
    and its signature) the answer is remembered per process for that file and that key
    record, so a service reloading its graph verifies each attestation once; an Ed25519
    verification costs about 0.1 ms.
    """
    return gate_signed_record(att, att.signature, keys, att.timestamp, file_sha256)


def gate_signed_record(record: m.Record, sig: m.Signature | None,
                       keys: dict[str, m.PublicKey], at_date: str,
                       file_sha256: str | None = None) -> bool:
    """Whether ``sig`` is a gate signature over ``record``'s canonical JSON that verifies
    with a gate key of ``keys/`` valid on ``at_date`` (ruling 14): attestations
    (:func:`gate_signed`) and the post-merge job's outlines (D-3 v3.30) are the gate's
    word only then. ``file_sha256`` (the SHA-256 of the file's bytes) remembers the answer
    per process for that file and key record."""
    if sig is None or sig.kind != "gate":
        return False
    key = keys.get(sig.key_id)
    memo = None
    if file_sha256 is not None and key is not None:
        memo = (file_sha256, _key_fingerprint(key))
        known = _GATE_SIGNED.get(memo)
        if known is not None:
            return known
    try:
        signing.verify(record, sig, keys, at_date)
        ok = True
    except LemmataError:
        ok = False
    if memo is not None and len(_GATE_SIGNED) < _GATE_SIGNED_MAX:
        _GATE_SIGNED[memo] = ok
    return ok


def _day(date: str) -> str:
    return date if len(date) > 10 else f"{date}T00:00:00Z"


def _later(a: str, b: str) -> bool:
    """Whether date ``a`` falls after date ``b`` (a bare date reads as its first second)."""
    return _day(a) > _day(b)


def held_since(since: str, at_date: str) -> bool:
    """Whether a role held from ``since`` is held on ``at_date`` (ISO dates)."""
    return not _later(since, at_date)


def sign_record_ssh(path: str, data: bytes, model: type[m.Record], key_path: str | Path,
                    signer: str) -> bytes:
    """A role act's file signed with the signer's SSH key, for plain-git stewards and
    curators (ruling 9): the file's own fields kept as written, ``signature`` set to an
    ``ssh`` envelope over the record's canonical JSON (namespace ``lemmata``).

    Args:
        path: the file's graph path (its suffix picks JSON or YAML).
        data: the file's bytes (any ``signature`` in them is replaced).
        model: the record model its place holds (``models.Shelving``, ...).
        key_path: the private SSH key listed in ``identities/<signer>.yaml``.
        signer: the signer's pseudonym, the record's actor.

    Raises:
        LemmataError: the record does not parse (its first problem's code), or
            ``bad-signature`` / ``subprocess-failed`` from ``ssh-keygen -Y sign``.
    """
    import json

    import yaml

    from network.record.read.loader import parse_document, parse_record

    rec, problems = parse_record(path, data, model)
    if rec is None:
        code, detail = ((problems[0].code, problems[0].detail) if problems
                        else ("invalid-record", "the record does not parse"))
        raise LemmataError(code, detail, path=path)
    sig = signing.sign_ssh(rec, key_path, signer)  # canonical JSON leaves signature out
    doc = parse_document(path, data)
    doc["signature"] = sig.model_dump()
    if path.endswith(".json"):
        return (json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()
    return yaml.safe_dump(doc, sort_keys=True, allow_unicode=True).encode()


PARALLEL_MIN_ATTESTATIONS = 1000
"""From this many unjudged attestations on, a forked worker verifies half of them."""


def gate_signed_paths(atts: list[Any], keys: dict[str, m.PublicKey]) -> set[str]:
    """The paths of the attestations (``RecordFile[Attestation]``) that :func:`gate_signed`
    accepts. On a large graph, when the process may fork
    (:func:`network.record.read.loader.may_fork`), a forked worker verifies the later half
    while this process verifies the earlier one (Ed25519 verification dominates a
    products run's cost of trust); whatever the worker fails to deliver is verified here.
    """
    from network.record.read.forked import ForkedCall
    from network.record.read.loader import may_fork

    ok: set[str] = set()
    todo = []
    for rf in atts:
        sig = rf.record.signature
        key = keys.get(sig.key_id) if sig is not None else None
        known = _GATE_SIGNED.get((rf.sha256, _key_fingerprint(key))) if key else None
        if known is None and sig is not None:
            todo.append(rf)
        elif known:
            ok.add(rf.path)
    later = todo[len(todo) // 2:] if len(todo) >= PARALLEL_MIN_ATTESTATIONS else []
    worker = None
    if later and may_fork():
        def verify_later() -> dict[str, bool]:
            return {rf.path: gate_signed(rf.record, keys) for rf in later}

        try:
            worker = ForkedCall(verify_later)
        except OSError:
            worker = None
    mine = todo[: len(todo) - len(later)] if worker is not None else todo
    for rf in mine:
        if gate_signed(rf.record, keys, rf.sha256):
            ok.add(rf.path)
    if worker is not None:
        got = worker.result()
        for rf in later:
            verdict = got.get(rf.path)
            if verdict is None:
                verdict = gate_signed(rf.record, keys, rf.sha256)
            elif (key := keys.get(rf.record.signature.key_id)) is not None \
                    and len(_GATE_SIGNED) < _GATE_SIGNED_MAX:
                _GATE_SIGNED[(rf.sha256, _key_fingerprint(key))] = verdict
            if verdict:
                ok.add(rf.path)
    return ok
