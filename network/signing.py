"""Signing and verifying records: Ed25519 for the network's keys, sshsig for contributors.

Foundation ruling 9: one envelope everywhere, ``{kind: gate|approval|service|ssh, key_id,
signer, value}`` (:class:`Signature`; the key model :class:`PublicKey` sits beside it, and
network.record.models re-exports both, issue 17). What is signed is the record's canonical
JSON (:func:`canonical_json`): the record as a JSON object without its
``signature`` field, keys sorted, no whitespace, UTF-8. The graph's ``keys/`` holds the
public keys by key id with validity dates (``key/v1``), so a key can rotate and a record is
judged by the key that was valid on the record's own date (ruling 2: dates come from the
record, never the clock).

- ``gate``, ``approval``, ``service``: ``value`` is the base64 of the raw 64-byte Ed25519
  signature (``cryptography``).
- ``ssh``: ``value`` is the base64 sshsig blob (the armored ``SSH SIGNATURE`` body without
  its armor), made and checked by ``ssh-keygen -Y sign|verify`` in namespace
  :data:`SSH_NAMESPACE` against the signer's allowed keys in ``identities/`` (D-19, D-27).

Private keys live in PEM files readable by their owner only (mode 0600), or in an
environment variable holding the PEM text; nothing is read at import (STYLE.md rule 6).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from network import proc
from network.errors import LemmataError, define
from network.model_base import Date, Record

define("bad-signature", None, 422,
       "A signature does not verify over the record's canonical JSON.",
       "Re-sign the record exactly as committed (without its signature field), or restore "
       "the signed bytes.")
define("unknown-key", None, 422, "A signature names a key id that keys/ does not hold.",
       "Publish the public key under keys/<key_id>.json, or sign with a published key.")
define("key-expired", None, 422,
       "The signing key was not valid on the record's date (before valid_from or after "
       "valid_until).",
       "Sign with the key that is valid on the record's date; rotate keys through keys/.")
define("key-file-insecure", None, 422,
       "A private key file is readable by others than its owner.",
       "chmod 600 the key file; private keys must be readable by their owner only.")

SSH_NAMESPACE = "lemmata"
"""The sshsig namespace every contributor signature uses (``ssh-keygen -Y ... -n``)."""

SIGNED_KINDS = ("gate", "approval", "service")


# --- the envelope and the key (below the record; network.record.models re-exports both) ---


class Signature(BaseModel):
    """The one signature envelope (Foundation ruling 9).

    ``value`` is base64: a raw Ed25519 signature for gate/approval/service, an armored
    sshsig for ssh. What is signed is the record's canonical JSON without ``signature``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["gate", "approval", "service", "ssh"]
    key_id: Annotated[str, StringConstraints(max_length=200)]
    signer: Annotated[str, StringConstraints(max_length=200)]
    value: Annotated[str, StringConstraints(max_length=8000)]


class PublicKey(Record):
    """``keys/<key_id>.json``: an Ed25519 public key (raw 32 bytes, base64) with validity."""

    SCHEMA_KIND: ClassVar[str] = "key/v1"
    schema_: Literal["key/v1"] = Field("key/v1", alias="schema")
    key_id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
    kind: Literal["gate", "approval", "service"]
    algorithm: Literal["ed25519"] = "ed25519"
    public_key: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+/]{43}=$")]
    valid_from: Date
    valid_until: Date | None = None


# --- canonical bytes -------------------------------------------------------------------


def record_body(record: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object a record is signed as, without its ``signature`` field.

    A model is dumped with field aliases (``schema``, ``class``), in JSON mode, leaving out
    fields that are None (defaults included). A mapping is taken as it is, except that
    keys whose value is None are dropped at every level, so a file written with or without
    its null fields reads the same. A verifier that can parse the record into its model
    should pass the model, so that defaults the file omits are signed too; the gate and
    ``lemmata validate`` do.
    """
    if isinstance(record, BaseModel):
        body: dict[str, Any] = record.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        body = _without_nulls(dict(record))
    body.pop("signature", None)
    return body


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def canonical_json(record: BaseModel | Mapping[str, Any]) -> bytes:
    """The bytes a signature covers (ruling 9): the record without ``signature`` as JSON,
    keys sorted at every level, no whitespace, non-ASCII kept, UTF-8 encoded.

    Raises:
        TypeError: the record holds a value JSON cannot represent (a YAML date, bytes).
        ValueError: the record holds NaN or an infinity.
    """
    return json.dumps(
        record_body(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        allow_nan=False,
    ).encode("utf-8")


# --- keys ------------------------------------------------------------------------------


def generate_private_key(path: str | Path) -> Ed25519PrivateKey:
    """Make a new Ed25519 key and write it as unencrypted PKCS#8 PEM, mode 0600.

    Raises:
        FileExistsError: ``path`` exists already (a key is never overwritten).
    """
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    return key


def private_key_from_pem(pem: bytes, *, where: str = "key") -> Ed25519PrivateKey:
    """Parse an unencrypted PEM Ed25519 private key.

    Raises:
        LemmataError: ``bad-private-key``.
    """
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise LemmataError("bad-private-key", f"{where}: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise LemmataError("bad-private-key", f"{where}: not an Ed25519 key")
    return key


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """Read a private key file, refusing one that group or others can read.

    Raises:
        LemmataError: ``key-file-insecure`` (mode not 0600 or stricter);
            ``bad-private-key`` (unreadable, absent, or not Ed25519 PEM).
    """
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise LemmataError("bad-private-key", f"{p}: {exc.strerror}") from exc
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise LemmataError("key-file-insecure",
                           f"{p} has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0600")
    return private_key_from_pem(p.read_bytes(), where=str(p))


def private_key_from_env(var: str, env: Mapping[str, str] | None = None) -> Ed25519PrivateKey:
    """Read a private key from an environment variable holding its PEM text.

    Args:
        var: the variable's name, e.g. ``LEMMATA_GATE_KEY``.
        env: the environment to read (default: the process's, read at call time).

    Raises:
        LemmataError: ``bad-private-key`` when the variable is unset or not a key.
    """
    value = (os.environ if env is None else env).get(var)
    if not value:
        raise LemmataError("bad-private-key", f"environment variable {var} is not set")
    return private_key_from_pem(value.encode("utf-8"), where=f"${var}")


def public_key_b64(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The raw 32-byte public key, base64 (44 characters), as ``key/v1`` stores it."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def public_key_record(
    key: Ed25519PrivateKey | Ed25519PublicKey,
    key_id: str,
    kind: str,
    valid_from: str,
    valid_until: str | None = None,
) -> PublicKey:
    """The ``keys/<key_id>.json`` record (``key/v1``) for a key.

    Args:
        key: the private or public key.
        key_id: ``[a-z0-9][a-z0-9-]{0,63}``.
        kind: gate, approval or service.
        valid_from, valid_until: ISO dates (``2026-11-29`` or ``2026-11-29T19:12:33Z``).

    Raises:
        pydantic.ValidationError: a field is out of its schema (a programming error).
    """
    return PublicKey.model_validate({
        "schema": "key/v1", "key_id": key_id, "kind": kind,
        "public_key": public_key_b64(key), "valid_from": valid_from,
        "valid_until": valid_until,
    })


# --- Ed25519 ---------------------------------------------------------------------------


def sign(
    body: BaseModel | Mapping[str, Any],
    private_key: Ed25519PrivateKey,
    kind: str,
    key_id: str,
    signer: str,
) -> Signature:
    """Sign a record's canonical JSON with an Ed25519 key (ruling 9).

    Args:
        body: the record (its ``signature`` field, if any, is ignored).
        private_key: the gate, approval or service key.
        kind: gate, approval or service.
        key_id: the id of the matching ``keys/`` record.
        signer: who signs, e.g. ``gate`` or the approving login.

    Returns:
        The envelope to store under the record's ``signature`` field.

    Raises:
        ValueError: ``kind`` is ssh or unknown (use :func:`sign_ssh` for ssh).
    """
    if kind not in SIGNED_KINDS:
        raise ValueError(f"Ed25519 signature kind must be one of {SIGNED_KINDS}, not {kind!r}")
    value = base64.b64encode(private_key.sign(canonical_json(body))).decode("ascii")
    return Signature.model_validate(
        {"kind": kind, "key_id": key_id, "signer": signer, "value": value})


def parse_date(value: str, *, end_of_day: bool = False) -> datetime:
    """An ISO date or UTC timestamp as an aware datetime.

    A bare date means its first second, or its last with ``end_of_day`` (so a key valid
    until ``2026-12-31`` still signs on that day).

    Raises:
        ValueError: not ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SSZ``.
    """
    return _parse_date(value, end_of_day)


_DATE_FORMS = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?")


@functools.lru_cache(maxsize=8192)
def _parse_date(value: str, end_of_day: bool) -> datetime:
    """:func:`parse_date`, memoised (a graph's keys and records repeat a few dates)."""
    if not isinstance(value, str) or not _DATE_FORMS.fullmatch(value):
        raise ValueError(f"{value!r} is not YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ")
    if len(value) == 10:
        day = date.fromisoformat(value)
        return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
    return datetime.fromisoformat(value[:-1]).replace(tzinfo=UTC)


def check_key_valid(key: PublicKey, at_date: str | None) -> None:
    """Whether ``key`` was valid on ``at_date`` (None skips the check).

    Raises:
        LemmataError: ``key-expired``; ``bad-signature`` when ``at_date`` is malformed.
    """
    if at_date is None:
        return
    try:
        when = parse_date(at_date)
        if when < parse_date(key.valid_from):
            raise LemmataError("key-expired",
                               f"key {key.key_id} is valid from {key.valid_from}, "
                               f"the record is dated {at_date}")
        if key.valid_until is not None and when > parse_date(key.valid_until, end_of_day=True):
            raise LemmataError("key-expired",
                               f"key {key.key_id} expired {key.valid_until}, "
                               f"the record is dated {at_date}")
    except ValueError as exc:
        raise LemmataError("bad-signature", f"cannot read date {at_date!r}: {exc}") from exc


def verify(
    body: BaseModel | Mapping[str, Any],
    signature: Signature,
    keys: Mapping[str, PublicKey],
    at_date: str | None,
) -> None:
    """Verify an Ed25519 signature over a record's canonical JSON.

    Args:
        body: the record as stored (its ``signature`` field is ignored).
        signature: the envelope.
        keys: the graph's ``keys/`` records by key id.
        at_date: the record's own date (ruling 2); the key must be valid then. None skips
            the validity-date check.

    Raises:
        LemmataError: ``unknown-key`` (no such key id); ``key-expired``; ``bad-signature``
            (wrong kind, a key of another kind, undecodable value, or a signature that
            does not verify).
    """
    if signature.kind not in SIGNED_KINDS:
        raise LemmataError("bad-signature",
                           f"a {signature.kind} signature is not an Ed25519 network signature")
    key = keys.get(signature.key_id)
    if key is None:
        raise LemmataError("unknown-key", f"no key {signature.key_id!r} under keys/")
    if key.kind != signature.kind:
        raise LemmataError("bad-signature",
                           f"key {key.key_id} is a {key.kind} key, the signature says "
                           f"{signature.kind}")
    check_key_valid(key, at_date)
    try:
        raw_sig = base64.b64decode(signature.value, validate=True)
        pub = Ed25519PublicKey.from_public_bytes(base64.b64decode(key.public_key, validate=True))
        message = canonical_json(body)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise LemmataError("bad-signature", f"cannot decode: {exc}") from exc
    try:
        pub.verify(raw_sig, message)
    except InvalidSignature as exc:
        raise LemmataError("bad-signature",
                           f"signature by {signature.signer} with key {key.key_id} does not "
                           "verify over the record") from exc


# --- sshsig (contributors) -------------------------------------------------------------

_ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
_ARMOR_END = "-----END SSH SIGNATURE-----"


def _unarmor(armored: str) -> str:
    lines = [ln.strip() for ln in armored.strip().splitlines()]
    if not lines or lines[0] != _ARMOR_BEGIN or lines[-1] != _ARMOR_END:
        raise LemmataError("bad-signature", "ssh-keygen did not return an armored signature")
    return "".join(lines[1:-1])


def _armor(value: str) -> str:
    body = "\n".join(value[i:i + 70] for i in range(0, len(value), 70))
    return f"{_ARMOR_BEGIN}\n{body}\n{_ARMOR_END}\n"


def sign_ssh(
    body: BaseModel | Mapping[str, Any], key_path: str | Path, signer: str,
    *, timeout_s: float = 30.0,
) -> Signature:
    """Sign a record's canonical JSON with an SSH key (``ssh-keygen -Y sign``), as a
    contributor does with ``pregate.sh --sign`` (D-27).

    Args:
        body: the record.
        key_path: the private SSH key file (unencrypted, or served by an agent).
        signer: the contributor's pseudonym; it is the principal checked on verify.

    Raises:
        LemmataError: ``bad-signature`` when ssh-keygen refuses; ``subprocess-failed`` or
            ``subprocess-timeout`` from :func:`network.proc.run`.
    """
    done = proc.run(["ssh-keygen", "-Y", "sign", "-f", str(key_path), "-n", SSH_NAMESPACE],
                    input_bytes=canonical_json(body), timeout_s=timeout_s)
    if done.rc != 0:
        raise LemmataError("bad-signature", f"ssh-keygen -Y sign failed: {done.err.strip()}")
    return Signature(kind="ssh", key_id=f"ssh:{signer}", signer=signer,
                     value=_unarmor(done.out))


def verify_ssh(
    body: BaseModel | Mapping[str, Any],
    signature: Signature,
    allowed_keys: list[str],
    *,
    timeout_s: float = 30.0,
) -> None:
    """Verify a contributor's sshsig over a record's canonical JSON.

    Args:
        body: the record as stored.
        signature: an envelope of kind ``ssh``; ``signer`` is the principal.
        allowed_keys: the signer's public keys as ``identities/<pseudonym>.yaml`` lists them
            (``ssh-ed25519 AAAA... comment``; the comment is ignored).

    Raises:
        LemmataError: ``unknown-key`` when no allowed key is listed; ``bad-signature`` when
            ssh-keygen does not accept the signature; ``subprocess-failed`` or
            ``subprocess-timeout`` from :func:`network.proc.run`.
    """
    if signature.kind != "ssh":
        raise LemmataError("bad-signature", f"a {signature.kind} signature is not an sshsig")
    keys = [" ".join(k.split()[:2]) for k in allowed_keys if len(k.split()) >= 2]
    if not keys:
        raise LemmataError("unknown-key", f"{signature.signer} lists no allowed SSH signer")
    principal = signature.signer
    if not principal or any(c.isspace() or c in ",*?!\"'" for c in principal):
        raise LemmataError("bad-signature", f"signer {principal!r} is not a plain principal")
    with tempfile.TemporaryDirectory(prefix="lemmata-sshsig-") as tmp:
        allowed = Path(tmp) / "allowed_signers"
        allowed.write_text("".join(f"{principal} {k}\n" for k in keys), encoding="utf-8")
        sig = Path(tmp) / "signature"
        sig.write_text(_armor(signature.value), encoding="ascii")
        done = proc.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", principal,
             "-n", SSH_NAMESPACE, "-s", str(sig)],
            input_bytes=canonical_json(body), timeout_s=timeout_s,
        )
    if done.rc != 0:
        raise LemmataError("bad-signature",
                           f"sshsig by {principal} does not verify: "
                           f"{(done.err or done.out).strip()[:300]}")


# --- sshsig, read in Python (ed25519) ------------------------------------------------------

_SSHSIG_MAGIC = b"SSHSIG"


def _ssh_strings(data: bytes, count: int) -> list[bytes]:
    """Read ``count`` SSH wire-format strings (uint32 length, bytes) from ``data``.

    Raises:
        ValueError: the data ends early or has bytes left over.
    """
    out: list[bytes] = []
    at = 0
    for _ in range(count):
        if at + 4 > len(data):
            raise ValueError("truncated")
        n = int.from_bytes(data[at:at + 4], "big")
        at += 4
        if at + n > len(data):
            raise ValueError("truncated")
        out.append(data[at:at + n])
        at += n
    if at != len(data):
        raise ValueError("trailing bytes")
    return out


def _ssh_string(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def sshsig_public_key(signature: Signature) -> str:
    """The public key an sshsig envelope was made with, as ``<type> <base64 blob>`` (the
    first two fields of an ``identities/`` ``ssh_signers`` line).

    Raises:
        LemmataError: ``bad-signature`` when the value is not an sshsig blob.
    """
    try:
        blob = base64.b64decode(signature.value, validate=True)
        if blob[:6] != _SSHSIG_MAGIC or int.from_bytes(blob[6:10], "big") != 1:
            raise ValueError("not an SSHSIG v1 blob")
        pub, _ns, _res, _alg, _sig = _ssh_strings(blob[10:], 5)
        key_type = _ssh_strings(pub[: 4 + int.from_bytes(pub[:4], "big")], 1)[0]
    except (binascii.Error, ValueError) as exc:
        raise LemmataError("bad-signature", f"cannot read the sshsig: {exc}") from exc
    return f"{key_type.decode('ascii', 'replace')} {base64.b64encode(pub).decode('ascii')}"


def verify_sshsig(
    body: BaseModel | Mapping[str, Any],
    signature: Signature,
    allowed_keys: list[str],
    *,
    timeout_s: float = 30.0,
) -> None:
    """Verify a contributor's sshsig over a record's canonical JSON, reading the blob in
    Python (PROTOCOL.sshsig: ``SSHSIG``, version 1, public key, namespace, reserved, hash
    algorithm, signature) for ``ssh-ed25519`` keys; other key types go to
    :func:`verify_ssh` (``ssh-keygen -Y verify``). Deterministic and without a subprocess
    for ed25519, so :mod:`network.record.derive` can call it.

    Raises:
        LemmataError: ``unknown-key`` when the key that made the signature is not among
            ``allowed_keys`` (or none is listed); ``bad-signature`` when the blob is not an
            sshsig of namespace :data:`SSH_NAMESPACE` or does not verify.
    """
    if signature.kind != "ssh":
        raise LemmataError("bad-signature", f"a {signature.kind} signature is not an sshsig")
    made_with = sshsig_public_key(signature)
    allowed = {" ".join(k.split()[:2]) for k in allowed_keys if len(k.split()) >= 2}
    if made_with not in allowed:
        raise LemmataError("unknown-key", f"{signature.signer}'s identity does not list the "
                           "SSH key that made this signature")
    if not made_with.startswith("ssh-ed25519 "):
        verify_ssh(body, signature, [made_with], timeout_s=timeout_s)
        return
    try:
        blob = base64.b64decode(signature.value, validate=True)
        pub, namespace, reserved, hash_alg, sig = _ssh_strings(blob[10:], 5)
        _type, raw_pub = _ssh_strings(pub, 2)
        sig_type, raw_sig = _ssh_strings(sig, 2)
        if sig_type != b"ssh-ed25519" or namespace != SSH_NAMESPACE.encode():
            raise ValueError(f"namespace {namespace!r}, signature type {sig_type!r}")
        digest = {b"sha512": hashlib.sha512, b"sha256": hashlib.sha256}.get(hash_alg)
        if digest is None:
            raise ValueError(f"hash algorithm {hash_alg!r}")
        signed = (_SSHSIG_MAGIC + _ssh_string(namespace) + _ssh_string(reserved)
                  + _ssh_string(hash_alg) + _ssh_string(digest(canonical_json(body)).digest()))
        Ed25519PublicKey.from_public_bytes(raw_pub).verify(raw_sig, signed)
    except (binascii.Error, ValueError) as exc:
        raise LemmataError("bad-signature", f"cannot read the sshsig: {exc}") from exc
    except InvalidSignature as exc:
        raise LemmataError("bad-signature",
                           f"sshsig by {signature.signer} does not verify over the record") from exc
