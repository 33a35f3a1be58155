"""Who a pull request on GitHub credits: the service's signed metadata, or the login and
the commit's sign-off, never the service account's login (issue 11; D-23, D-35, rulings 9
and 14).

A pull request the service opens is opened by the service's GitHub account, so its login
says nothing about the contributor, and its commit author is only text. The service
therefore writes a fenced ``lemmata-submitter`` block into the body: the submitter's
pseudonym and the head commit, signed with the service key the graph publishes under
``keys/`` (kind ``service``). The trusted gate job believes that block only for a pull
request opened by a service login, only when its signature verifies with a published
service key valid on its date, and only for the head it judges: a commit pushed onto the
branch afterwards (by anyone) unbinds it, and the records then fail closed on their actor.

Any other pull request credits the pseudonym ``identities/`` binds to the opening login.
When the login binds several pseudonyms, the head commit's ``Signed-off-by`` trailer picks
the one it names (both must agree); otherwise none is credited.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from network import signing
from network.errors import LemmataError
from network.ids import PSEUDONYM_RE
from network.record import models as m

FENCE = "lemmata-submitter"
"""The info string of the body's fenced block."""

SCHEMA = "pr-submitter/v1"

_BLOCK_RE = re.compile(r"^```" + re.escape(FENCE) + r"[ \t]*\n(.*?)\n```[ \t]*$",
                       re.MULTILINE | re.DOTALL)
_SIGN_OFF_RE = re.compile(r"^Signed-off-by:[ \t]*([^<\n]*?)[ \t]*<[^>\n]*>[ \t]*$",
                          re.MULTILINE)
_SHA_RE = re.compile(r"[0-9a-f]{40}")
_MAX_BLOCK = 4096


def _is_pseudonym(value: object) -> bool:
    """Whether ``value`` is a pseudonym by the one rule, :data:`network.ids.PSEUDONYM_RE`
    (the pattern of ``models.Pseudonym``; a ``str``, never bytes)."""
    return isinstance(value, str) and PSEUDONYM_RE.fullmatch(value) is not None


def _body(submitter: str, head_sha: str, signed_at: str) -> dict[str, Any]:
    return {"schema": SCHEMA, "submitter": submitter, "head_commit": head_sha,
            "signed_at": signed_at}


def submitter_block(submitter: str, head_sha: str, key: tuple[str, Any],
                    *, now: float | None = None) -> str:
    """The fenced block the service puts in a pull request's body.

    Args:
        submitter: the pseudonym the pull request credits (D-35).
        head_sha: the head commit (40 hex) the block is bound to.
        key: ``(key_id, Ed25519PrivateKey)`` of the service key (kind ``service``), whose
            public half the graph publishes as ``keys/<key_id>.json``.
        now: seconds since the epoch for ``signed_at`` (default: the clock).

    Returns:
        ```` ```lemmata-submitter\\n{json}\\n``` ```` (compact JSON, one line).

    Raises:
        LemmataError: ``pseudonym-invalid`` for a submitter that is no pseudonym.
    """
    if not _is_pseudonym(submitter):
        raise LemmataError("pseudonym-invalid", f"{submitter!r} is no pseudonym")
    when = datetime.fromtimestamp(now if now is not None else datetime.now(UTC).timestamp(),
                                  UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = _body(submitter, head_sha, when)
    key_id, private = key
    sig = signing.sign(body, private, "service", key_id, "service")
    record = {**body, "signature": sig.model_dump(exclude_none=True)}
    return f"```{FENCE}\n{json.dumps(record, sort_keys=True, separators=(',', ':'))}\n```"


def with_submitter_block(body: str, block: str) -> str:
    """``body`` with its ``lemmata-submitter`` block replaced by ``block`` (appended when it
    has none), so an amended pull request carries exactly one, for its new head."""
    stripped = _BLOCK_RE.sub("", body).rstrip()
    return f"{stripped}\n\n{block}\n" if stripped else f"{block}\n"


def signed_submitter(body: str, head_sha: str, keys: Mapping[str, m.PublicKey]) -> str | None:
    """The pseudonym a body's ``lemmata-submitter`` block names, when exactly one block is
    there, it is bound to ``head_sha`` and its ``service`` signature verifies with a key of
    ``keys`` valid on its ``signed_at`` date; else None (fail closed)."""
    found = _BLOCK_RE.findall(body or "")
    if len(found) != 1 or len(found[0]) > _MAX_BLOCK:
        return None
    try:
        rec = json.loads(found[0])
    except json.JSONDecodeError:
        return None
    if not isinstance(rec, dict) or set(rec) != {"schema", "submitter", "head_commit",
                                                  "signed_at", "signature"}:
        return None
    sub, head, at = rec["submitter"], rec["head_commit"], rec["signed_at"]
    if (rec["schema"] != SCHEMA or not isinstance(sub, str) or not isinstance(at, str)
            or not _is_pseudonym(sub) or head != head_sha
            or not _SHA_RE.fullmatch(str(head))):
        return None
    try:
        sig = m.Signature.model_validate(rec["signature"])
    except ValueError:
        return None
    if sig.kind != "service":
        return None
    try:
        signing.verify(_body(sub, head, at), sig, keys, at[:10])
    except (LemmataError, ValueError):
        return None
    return sub


def sign_offs(message: str) -> list[str]:
    """The names of a commit message's ``Signed-off-by: NAME <email>`` trailers, in order."""
    return [name.strip() for name in _SIGN_OFF_RE.findall(message or "")]


def submitter_of(login: str, graph: Any, *, body: str = "", head_sha: str = "",
                 head_message: str = "", service_logins: Sequence[str] = ()) -> str | None:
    """The pseudonym credited for a pull request on GitHub (see the module docstring).

    Args:
        login: the GitHub login that opened it (GitHub authenticates it).
        graph: main's :class:`~network.record.read.loader.Graph` at base (its ``identities`` and
            ``keys``).
        body: the pull request's body; head_sha: the head judged; head_message: the head
            commit's message (read from the trusted checkout, never from the API alone).
        service_logins: the service's GitHub logins.

    Returns:
        The pseudonym, or None when none is credited (records then fail closed on their
        actor, ``actor-not-submitter``).
    """
    if login and login in {s for s in service_logins if s}:
        return signed_submitter(body, head_sha, graph.keys)
    bound: list[str] = sorted(p for p, ident in graph.identities.items()
                   if ident.github is not None and login
                   and ident.github.lower() == login.lower())
    if len(bound) == 1:
        return bound[0]
    named = [p for p in bound if p in set(sign_offs(head_message))]
    return named[0] if len(named) == 1 else None
