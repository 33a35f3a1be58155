"""``POST /check`` (check_lean) and ``GET /checks/{id}`` (get_check): a non-authoritative
forward to a configured hosted fast Lean checker (D-4 v3.14, D-28, D-35).

The service runs none of the text itself: it forwards it to the third party named by
``settings.hosted_checker_url``, matched to the target's pinned Mathlib through
``settings.hosted_checker_environments`` (the same mapping ``GET /hosted-checkers.json``
publishes, :func:`network.api.reads.hosted_checkers`), and answers the checker's reply in
the same response, marked non-authoritative: never an attestation, never attached to a
submission. It adds the network's own warnings wherever the gate would refuse what the
checker accepted (options that weaken checking, ``sorry``, ``native_decide`` without a
waiver, use lines the gate refuses).

Every call, refused or not, is logged in ``check_logs`` by its metadata and the SHA-256
and size of the text, never the text (operational state, D-35). Anonymous calls are
allowed under the per-address write limit, as precheck is (D-28); a call with a bearer
token is the token's and only that identity may read it back.

The wire format of the forward (documented in docs/api.md): ``POST <url>/check`` with JSON
``{environment, mathlib, mode, content, statement?}``; the reply is JSON the service
passes through as ``result``.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx

from network.api import db, reads
from network.api.service import Caller, Service, Who, authenticate, iso, rate_hit, sha256_hex
from network.api.submit.records import graph_of, node_of, target_of
from network.errors import LemmataError, define_once
from network.gate.artifacts import forbidden_option_findings, strip_comments, use_findings

define_once("no-hosted-checker", None, 503,
            "No hosted fast checker is configured on this service (D-4 v3.14).",
            "Check locally with the pinned toolchain, or run a precheck (POST /precheck); "
            "GET /hosted-checkers.json says what this service can forward to.")
define_once("hosted-checker-unmatched", None, 409,
            "The hosted checker has no environment for this target's pinned Mathlib.",
            "GET /hosted-checkers.json lists the targets it serves; check this one locally or "
            "by precheck.")
define_once("hosted-checker-unavailable", None, 502,
            "The hosted checker did not answer, or answered with an error.",
            "Retry later, or check locally; nothing about your text was kept but its hash.")
define_once("check-not-found", None, 404, "No check has this id.",
            "Use the check_id check_lean returned.")
define_once("check-not-yours", None, 403,
            "The check belongs to another identity, or was made anonymously.",
            "Only the identity that made a check can read its record; anonymous checks have "
            "no reader.")

CHECK_MODES = ("check", "verify")
_NOTE = ("Non-authoritative (D-4 v3.14): this answer is never an attestation and never "
         "attached to a submission; only the gate decides.")


def _who(svc: Service, caller: Caller) -> Who | None:
    """The caller's identity when a token is presented (a wrong one is refused), counting
    the address and the identity against the write limits; None when anonymous."""
    rate_hit(svc, f"address:{caller.address_hash}:writes", svc.settings.rate_writes_per_address)
    if caller.who is None and not caller.token:
        return None
    who = caller.who if caller.who is not None else authenticate(svc, caller.token,
                                                                 caller.address_hash)
    rate_hit(svc, f"identity:{who.id}:writes", svc.settings.rate_writes_per_identity)
    return who


def _log(svc: Service, who: Who | None, caller: Caller, *, target: str, node: str | None,
         mode: str, content: str, checker: str, outcome: str) -> str:
    check_id = "c_" + secrets.token_hex(12)
    data = content.encode("utf-8")
    with db.transaction(svc.sessions) as s:
        s.add(db.CheckLogRow(
            id=check_id, identity_id=who.id if who else None,
            address_hash=caller.address_hash, target=target, node=node, mode=mode,
            content_sha256=sha256_hex(data), content_bytes=len(data), checker=checker[:300],
            outcome=outcome[:32], created_at=svc.now()))
    return check_id


def network_warnings(svc: Service, target: str, node: str | None, content: str) -> list[dict[str, Any]]:
    """Where the gate would refuse text a checker may accept (D-4 v3.14): options that
    weaken checking, ``sorry``/``admit``, ``native_decide`` (needs a waiver), and, with a
    node, use lines the gate refuses (D-3 v3.25). Each is ``{code, message, line?}``."""
    out: list[dict[str, Any]] = []
    for d in forbidden_option_findings(content, "content"):
        out.append({"code": d.code, "message": d.message, "line": d.line})
    bare = strip_comments(content)
    for word, code in (("sorry", "sorry-used"), ("admit", "sorry-used"),
                       ("native_decide", "native-code-used")):
        for mt in re.finditer(rf"\b{word}\b", bare):
            out.append({"code": code, "message": f"`{word}`: the gate refuses it"
                        + (" without a waiver" if word == "native_decide" else ""),
                        "line": bare.count("\n", 0, mt.start()) + 1})
    if node is not None:
        graph = graph_of(svc)
        n = graph.targets[target].nodes[node]
        stmt = n.files.get("Statement")
        if stmt is not None:
            for d in use_findings(graph.text(stmt.path), content, graph, target, "content"):
                out.append({"code": d.code, "message": d.message, "line": d.line})
    return out


def check_lean(svc: Service, caller: Caller, *, target: str, content: str, mode: str = "check",
               node: str | None = None) -> dict[str, Any]:
    """Forward Lean text to the hosted checker matched to the target's pinned Mathlib
    (POST /check, check_lean; D-4 v3.14, D-28, D-35).

    Args:
        target: the target whose pinned Mathlib the checker must match.
        content: the Lean text (never stored; only its SHA-256 and size are logged).
        mode: ``check`` (errors and goal states) or ``verify`` (also compared against the
            node's statement, which is sent along).
        node: the node, required for ``verify``.

    Returns:
        ``{check_id, non_authoritative: true, note, checker, environment, mathlib, mode,
        content_sha256, result, warnings}``.

    Raises:
        LemmataError: ``rate-limited``; ``token-invalid``/``token-expired`` (a token was
            presented); ``target-not-found``; ``node-not-found``; ``bad-request`` (mode;
            verify without a node); ``no-hosted-checker``; ``hosted-checker-unmatched``;
            ``hosted-checker-unavailable``.
    """
    who = _who(svc, caller)
    mode = mode or "check"
    if mode not in CHECK_MODES:
        raise LemmataError("bad-request", f"mode must be one of {list(CHECK_MODES)}",
                           field="mode")
    graph = graph_of(svc)
    target_of(graph, target)
    statement: str | None = None
    if node is not None:
        n = node_of(graph, target, node)
        stmt = n.files.get("Statement")
        statement = graph.text(stmt.path) if stmt is not None else None
    elif mode == "verify":
        raise LemmataError("bad-request", "verify mode compares against a node's statement: "
                           "give node_id", field="node_id")
    url = svc.settings.hosted_checker_url
    row = next(r for r in reads.hosted_checkers(svc)["targets"] if r["target"] == target)
    meta: dict[str, Any] = {"target": target, "node": node, "mode": mode, "content": content}
    if not url:
        _log(svc, who, caller, checker="", outcome="no-hosted-checker", **meta)
        raise LemmataError("no-hosted-checker", "this service forwards to no hosted checker")
    if not row["servable"]:
        _log(svc, who, caller, checker=url, outcome="unmatched", **meta)
        raise LemmataError("hosted-checker-unmatched", f"no environment for {target}'s pinned "
                           f"Mathlib {row['mathlib'] or '(none pinned)'}")
    payload: dict[str, Any] = {"environment": row["environment"], "mathlib": row["mathlib"],
                               "mode": mode, "content": content}
    if mode == "verify":
        payload["statement"] = statement
    try:
        resp = httpx.post(f"{url.rstrip('/')}/check", json=payload,
                          timeout=svc.settings.hosted_checker_timeout_s)
        if resp.status_code != 200:
            raise LemmataError("hosted-checker-unavailable",
                               f"the checker answered HTTP {resp.status_code}")
        result = resp.json()
    except (httpx.HTTPError, ValueError) as exc:
        _log(svc, who, caller, checker=url, outcome="unavailable", **meta)
        raise LemmataError("hosted-checker-unavailable", f"{type(exc).__name__}: {exc}") from exc
    except LemmataError:
        _log(svc, who, caller, checker=url, outcome="unavailable", **meta)
        raise
    ok = result.get("ok") if isinstance(result, dict) else None
    outcome = "accepted" if ok is True else "rejected" if ok is False else "answered"
    check_id = _log(svc, who, caller, checker=url, outcome=outcome, **meta)
    return {"check_id": check_id, "non_authoritative": True, "note": _NOTE, "checker": url,
            "environment": row["environment"], "mathlib": row["mathlib"], "mode": mode,
            "content_sha256": sha256_hex(content), "result": result,
            "warnings": network_warnings(svc, target, node, content),
            "next": "Read `warnings`: the gate refuses what they name even where the checker "
                    "accepted. When it is ready, precheck_submission, then submit."}


def get_check(svc: Service, caller: Caller, *, check_id: str) -> dict[str, Any]:
    """The caller's own record of one check_lean call (GET /checks/{id}, get_check; D-28
    notation note 2026-10-04): what was checked (hash and size, never the text), where,
    and how it ended.

    Raises:
        LemmataError: ``token-missing``/``token-invalid``/``token-expired``;
            ``check-not-found``; ``check-not-yours``.
    """
    who = caller.who if caller.who is not None else authenticate(svc, caller.token,
                                                                 caller.address_hash)
    with db.transaction(svc.sessions) as s:
        row = s.get(db.CheckLogRow, check_id)
        if row is None:
            raise LemmataError("check-not-found", f"no check {check_id!r}")
        if row.identity_id is None or row.identity_id != who.id:
            raise LemmataError("check-not-yours", f"check {check_id} is not {who.pseudonym}'s")
        return {"check_id": row.id, "target": row.target, "node": row.node, "mode": row.mode,
                "content_sha256": row.content_sha256, "content_bytes": row.content_bytes,
                "checker": row.checker or None, "outcome": row.outcome,
                "created_at": iso(row.created_at), "non_authoritative": True}
