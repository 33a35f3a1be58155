"""Precheck jobs: the service's run of the gate's steps 1-2 and 4-8 (D-4, D-27, D-28
precheck_submission; D-35 ``POST /precheck`` and ``GET /precheck/<id>``).

A precheck takes a bundle (target, node, artifact type, the artifact's Lean text and any
files riding with it), builds the graph paths the artifact takes (:func:`build_bundle`),
and returns a job id at once; a small thread pool (:class:`PrecheckPool`) runs the job:
the files are committed on top of main in the graph repository (no ref moves) and
:func:`network.gate.run.run_gate` runs in ``mode="precheck"`` — the same code, the same
sandbox and the same toolchain resolution as the authoritative gate. The result is a
:class:`~network.record.models.PrecheckAttestation` signed with the service key (kind
``service``, D-4 "What counts as attached", D-35), which a submission carries in its pull
request body (ruling 7).

Jobs live in ``precheck_jobs`` with their bundle, so one queued or running when the service
stops is run again at its next start (:func:`resume_jobs`). Without a toolchain for the
target's pin the job ends ``toolchain-missing`` — never a pass (DESIGN.md "Lean").

Anonymous prechecks are allowed for the tutorial node only, under a per-address limit: a
passing one is the account-free identity proof ``POST /tokens`` accepts (D-19, D-27, D-28
notation note 2026-09-14; see :mod:`network.api.identity.identity`).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
from sqlalchemy import select

from network import ids, signing
from network.api import db
from network.api.guidance import (
    known_unsound_notice,
    not_checkable,
    target_checkable,
    target_known_unsound,
)
from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller, Service, Who, iso, rate_hit, sha256_hex
from network.errors import LemmataError, define
from network.gate import attestation as A
from network.record.models import PRECHECK_TOOLCHAIN_MISSING, precheck_attestation_from_json
from network.record.read.loader import ATTEMPT_RE, Graph

log = logging.getLogger(__name__)

define("artifact-type-unsupported", None, 422,
       "The artifact type is not one a precheck or submission takes: proof, alternate, "
       "counterexample, vacuity, reduction or partial (D-12, D-28 submit_proof).",
       "Send artifact_type as one of those; postmortems, annexes, witnesses and the other "
       "records have their own routes (GET /).")
define("bundle-path-refused", None, 422,
       "A bundle file is not one the artifact may carry (D-3): paths are relative to the "
       "node's folder and limited to the artifact's own file, waivers/native_decide.yaml "
       "and a partial's carried witnesses.",
       "Send the artifact's Lean text as `text` and only the files graph/AGENTS.md lists "
       "for the artifact type, named relative to the node (e.g. waivers/native_decide.yaml, "
       "h1.witness.lean).")
define("bundle-invalid", None, 422,
       "The bundle does not make exactly one artifact of the declared type.",
       "Send the artifact's Lean text as `text` (or its file in `files`), once.")
define("precheck-not-found", None, 404, "No precheck job has this id.",
       "Start one with POST /precheck (precheck_submission) and keep the job_id it returns.")
define("precheck-unavailable", None, 503,
       "The service has no graph repository to run prechecks against (no forge, and the "
       "graph is not a git repository).",
       "Run pregate.sh locally (D-27); the operator should configure a forge or serve a "
       "graph that is a git repository.")

#: the artifact types a precheck and a submission take (D-12, D-28 submit_proof)
SUBMITTABLE: tuple[str, ...] = ("proof", "alternate", "counterexample", "vacuity",
                                "reduction", "partial")
#: artifact types written as a fixed file of the node folder
NODE_FILE = {"proof": "Proof.lean", "counterexample": "Refutation.lean",
             "vacuity": "Vacuity.lean"}
#: artifact types written under attempts/<ts>-<pseudonym>-<kind>.lean (D-12, D-25 v3.13)
ATTEMPT_TYPES = ("alternate", "partial", "reduction")
WAIVER = "waivers/native_decide.yaml"
_WITNESS_SHORT = re.compile(r"h(?P<k>[1-9][0-9]*)\.witness\.lean")
#: job states; ``pass`` is what identity.py accepts as a tutorial proof (D-19, D-27)
FINISHED = ("pass", "fail", "toolchain-missing", "error")


@dataclass(frozen=True)
class Bundle:
    """A bundle with its graph paths built.

    Attributes:
        target, node: the node the artifact is for.
        artifact_type: one of :data:`SUBMITTABLE`.
        main: the graph path of the artifact's own Lean file.
        files: graph path → UTF-8 text, the main file included.
    """

    target: str
    node: str
    artifact_type: str
    main: str
    files: dict[str, str]

    def to_json(self) -> str:
        """The form kept in ``precheck_jobs.bundle_json``."""
        return json.dumps({"target": self.target, "node": self.node,
                           "artifact_type": self.artifact_type, "main": self.main,
                           "files": self.files}, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Bundle:
        """Inverse of :meth:`to_json`."""
        d = json.loads(text)
        return cls(d["target"], d["node"], d["artifact_type"], d["main"], dict(d["files"]))


def stamp(now: int) -> str:
    """Epoch seconds → the attempt-file timestamp ``YYYYMMDDTHHMMSSZ`` (UTC)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%SZ")


def attempt_stamp(svc: Service, target: str, node: str, artifact_type: str,
                  pseudonym: str | None, text: str | None) -> str | None:
    """The reserved timestamp of the attempt file the service names for a Lean text
    (``network.api.submit.names``: a same-second second attempt gets a tag), or None when the
    service names no attempt file (a fixed node file, files named by the caller, or no
    pseudonym)."""
    if artifact_type not in ATTEMPT_TYPES or pseudonym is None or text is None:
        return None
    try:
        d = ids.node_dir(target, node).as_posix()
    except LemmataError:
        return None  # build_bundle names the bad id
    from network.api.submit.names import record_stamp

    return record_stamp(svc, f"{d}/attempts", pseudonym, f"-{artifact_type}.lean")


def is_tutorial(graph: Graph, target: str, node: str) -> bool:
    """Whether ``target/node`` is a tutorial node: ``tutorial: true`` in its META.yaml or a
    target of class ``tutorial`` (D-27)."""
    t = graph.targets.get(target)
    if t is None:
        return False
    n = t.nodes.get(node)
    return t.record.target_class == "tutorial" or (n is not None and bool(n.meta.tutorial))


def _node_of(graph: Graph, target: str, node: str) -> None:
    ids.NodeRef(target, node)
    t = graph.targets.get(target)
    if t is None:
        raise LemmataError("target-not-found", f"no target {target!r}")
    if node not in t.nodes:
        raise LemmataError("node-not-found", f"target {target!r} has no node {node!r}")


def build_bundle(graph: Graph, *, target: str, node: str, artifact_type: str,
                 text: str | None, files: dict[str, str] | None, pseudonym: str | None,
                 now: int, ts: str | None = None) -> Bundle:
    """Build the graph paths of a submitted artifact (D-3, D-12, D-25 v3.13).

    The artifact's own file is ``Proof.lean``, ``Refutation.lean`` or ``Vacuity.lean`` of
    the node for a proof, counterexample or vacuity, and
    ``attempts/<ts>-<pseudonym>-<type>.lean`` for an alternate, partial or reduction, ``ts``
    being ``now``. ``files`` may add, relative to the node folder, the artifact's own file
    under its full name (as pregate.sh committed it), ``waivers/native_decide.yaml``, and
    for a partial or reduction carried witnesses (``h<k>.witness.lean`` or their full
    attempts/ name, D-29 v3.24).

    Args:
        graph: the graph at main.
        target, node: the node.
        artifact_type: one of :data:`SUBMITTABLE`.
        text: the artifact's Lean text, or None when ``files`` holds the file.
        files: node-relative path → text of further files, or None.
        pseudonym: the submitter (None for an anonymous precheck: only fixed node files).
        now: epoch seconds, for attempt timestamps.
        ts: the attempt file's timestamp as ``network.api.submit.names.record_stamp`` reserved
            it (``<ts>`` or ``<ts>.<tag>``, so two in one second never collide); None
            means ``stamp(now)``.

    Returns:
        The :class:`Bundle`.

    Raises:
        LemmataError: ``bad-target-id``/``bad-node-id``; ``target-not-found``;
            ``node-not-found``; ``artifact-type-unsupported``; ``bundle-path-refused``;
            ``bundle-invalid``.
    """
    if artifact_type not in SUBMITTABLE:
        raise LemmataError("artifact-type-unsupported", f"{artifact_type!r} is not one of "
                           f"{', '.join(SUBMITTABLE)}", field="artifact_type")
    _node_of(graph, target, node)
    base = ids.node_dir(target, node).as_posix()
    if artifact_type in NODE_FILE:
        main_rel = NODE_FILE[artifact_type]
    elif pseudonym is None:
        raise LemmataError("bundle-invalid", f"an {artifact_type} is filed under your "
                           "pseudonym; send your token", field="artifact_type")
    else:
        main_rel = f"attempts/{ts or stamp(now)}-{pseudonym}-{artifact_type}.lean"
    out: dict[str, str] = {}
    main_given: str | None = None
    for rel, body in sorted((files or {}).items()):
        if not isinstance(rel, str) or not isinstance(body, str):
            raise LemmataError("bundle-path-refused", "files map paths to text", field="files")
        short = _WITNESS_SHORT.fullmatch(rel)
        m = ATTEMPT_RE.fullmatch(rel[len("attempts/"):]) if rel.startswith("attempts/") \
            else None
        if rel == WAIVER and artifact_type in ("proof", "alternate"):
            out[f"{base}/{rel}"] = body
        elif short is not None and artifact_type in ("partial", "reduction"):
            if main_rel.startswith("attempts/"):
                out[f"{base}/{main_rel[:-len('.lean')]}.h{short.group('k')}.witness.lean"] = body
            else:  # pragma: no cover - partials always live under attempts/
                raise LemmataError("bundle-path-refused", rel, path=rel, field="files")
        elif rel == main_rel or (m is not None and pseudonym is not None
                                 and m.group("who") == pseudonym
                                 and m.group("kind") == f"{artifact_type}.lean"):
            if main_given is not None or text is not None:
                raise LemmataError("bundle-invalid", "the artifact's file is given twice",
                                   path=rel, field="files")
            main_given = f"{base}/{rel}"
            out[main_given] = body
        elif (m is not None and pseudonym is not None and m.group("who") == pseudonym
              and m.group("k") and artifact_type in ("partial", "reduction")):
            out[f"{base}/{rel}"] = body
        else:
            raise LemmataError("bundle-path-refused", f"{rel!r} is not a file an "
                               f"{artifact_type} may carry", path=rel, field="files")
    if text is not None:
        main_given = f"{base}/{main_rel}"
        out[main_given] = text
    if main_given is None or not out[main_given].strip():
        raise LemmataError("bundle-invalid", f"no Lean text for the {artifact_type}",
                           field="text")
    return Bundle(target, node, artifact_type, main_given, out)


# --- the repository prechecks run in -----------------------------------------------------


def precheck_repository(svc: Service) -> tuple[Path, str]:
    """Where prechecks commit their files and which main they are judged against: the
    forge's repository and main, else the served graph when it is a git repository (its
    ``HEAD``). Commits are written as objects only; no ref moves.

    Raises:
        LemmataError: ``precheck-unavailable``.
    """
    forge = svc.forge
    if forge is not None and hasattr(forge, "path") and hasattr(forge, "main_sha"):
        return Path(forge.path), str(forge.main_sha())
    path = Path(svc.settings.graph)
    try:
        repo = pygit2.Repository(str(path))
        if not repo.head_is_unborn:
            return path, str(repo.head.target)
    except pygit2.GitError:
        pass
    raise LemmataError("precheck-unavailable", f"{path} is not a git repository and no "
                       "forge is configured")


# --- starting and reading jobs -----------------------------------------------------------


def _guidance(row: db.PrecheckJobRow, checkable: bool | None = None) -> str:
    jid = row.id
    if row.state in ("queued", "running"):
        poll = (f"Poll get_precheck(job_id={jid!r}) (GET /precheck/{jid}) every 10-30 seconds "
                "until state is pass, fail, toolchain-missing or error.")
        if checkable is False:  # issue 35, item 7: what this network's toolchain does
            return ("This network has no toolchain for this target's pin, so the precheck "
                    "runs only the checks that need no Lean and ends toolchain-missing, "
                    "within seconds. " + poll)
        return ("The precheck builds and checks the files with the pinned Lean toolchain "
                "found here, which takes minutes. " + poll)
    if row.state == "pass" and row.tutorial:
        return (f"Passed. With no token yet, call get_token with proof {{kind: 'precheck', "
                f"job_id: {jid!r}}} (get_dco first); keep the token where this machine "
                "remembers it and tell your operator the recovery code. A tutorial proof "
                "earns nothing (D-27).")
    if row.state == "pass":
        return (f"Passed. Submit exactly these files with submit_proof(precheck_id={jid!r}) "
                "(POST /submissions); the signed attestation rides in the pull request.")
    if row.state == "toolchain-missing":
        return ("No proof was checked; the diagnostics hold every finding that needs no "
                "Lean (fix those first). " + not_checkable())
    if row.state == "fail":
        fix = ("Fix what the diagnostics name (the first failing step and its code; "
               "list_error_codes explains each), then precheck again.")
        # issue 35 item 6: a finding that needs no Lean fails the precheck even here; say
        # too that a clean precheck on this network still checks no proof
        return fix + (" " + not_checkable() if checkable is False else "")
    return "The precheck could not run; retry later. The code names why."


def job_view(row: db.PrecheckJobRow, checkable: bool | None = None) -> dict[str, Any]:
    """The public form of a job (``GET /precheck/<id>``, get_precheck): state, the
    diagnostics and the signed attestation, its fenced pull-request block, the files'
    paths and SHA-256 (never their text) and what to do next. ``checkable``: whether this
    network has the target's pinned toolchain (:func:`target_checkable`), so a queued
    job's ``next`` says what the run will do here (issue 35, item 7); None: not known."""
    att = json.loads(row.attestation_json) if row.attestation_json else None
    files: dict[str, str] = {}
    if row.bundle_json:
        b = Bundle.from_json(row.bundle_json)
        files = {p: sha256_hex(t) for p, t in sorted(b.files.items())}
    block = None
    if att is not None:
        block = A.precheck_block(precheck_attestation_from_json(att))
    return {
        "job_id": row.id, "state": row.state, "target": row.target, "node": row.node,
        "artifact_type": row.artifact_type, "tutorial": bool(row.tutorial),
        "pseudonym": row.pseudonym, "code": row.code,
        "created_at": iso(row.created_at), "started_at": iso(row.started_at),
        "finished_at": iso(row.finished_at), "base_commit": row.base_sha,
        "files": files,
        "diagnostics": json.loads(row.diagnostics_json) if row.diagnostics_json else None,
        "attestation": att, "pull_request_block": block,
        "signed": bool(att and att.get("signature")),
        "spent_as_identity_proof": row.used_for_identity_id is not None,
        "next": _guidance(row, checkable),
    }


def precheck_submission(svc: Service, caller: Caller, *, target: str, node: str,
                        artifact_type: str, text: str | None = None,
                        files: dict[str, str] | None = None) -> dict[str, Any]:
    """Queue a precheck of a bundle and return its job at once (POST /precheck,
    precheck_submission; D-4, D-27, D-28, D-35).

    A token is needed except for the tutorial node, whose anonymous prechecks are counted
    per address (``rate_anonymous_prechecks_per_address``); a token that is presented must
    be valid whatever the node.

    Args:
        target, node: the node.
        artifact_type: one of :data:`SUBMITTABLE`.
        text: the artifact's Lean text.
        files: further node-relative files (see :func:`build_bundle`).

    Returns:
        :func:`job_view` of the queued job (``state == "queued"``), plus
        ``checkable_here`` (bool: the target's pinned toolchain is installed here) and,
        when it is not, ``notice`` (:func:`network.api.guidance.not_checkable`): the job
        will end ``toolchain-missing`` after the findings that need no Lean.

    Raises:
        LemmataError: ``rate-limited``; ``token-missing`` (no token, not the tutorial
            node); ``token-invalid``/``token-expired``; ``dco-not-accepted``;
            ``graph-unavailable``; the codes of :func:`build_bundle`;
            ``precheck-unavailable``.
    """
    graph = svc.graphs.snapshot().graph
    ids.NodeRef(target, node)
    tutorial = is_tutorial(graph, target, node)
    who: Who | None = None
    if caller.who is not None or (caller.token and caller.token.strip()):
        who = write_identity(svc, caller)
    elif not tutorial:
        raise LemmataError("token-missing", "a precheck of a node other than the tutorial "
                           "node needs a write token (D-19, D-27)")
    else:
        rate_hit(svc, f"address:{caller.address_hash}:writes",
                 svc.settings.rate_writes_per_address)
        rate_hit(svc, f"address:{caller.address_hash}:prechecks",
                 svc.settings.rate_anonymous_prechecks_per_address)
    now = svc.now()
    bundle = build_bundle(graph, target=target, node=node, artifact_type=artifact_type,
                          text=text, files=files, pseudonym=who.pseudonym if who else None,
                          now=now, ts=attempt_stamp(svc, target, node, artifact_type,
                                                    who.pseudonym if who else None, text))
    precheck_repository(svc)
    job_id = "pre-" + secrets.token_hex(12)
    with db.transaction(svc.sessions) as s:
        row = db.PrecheckJobRow(
            id=job_id, identity_id=who.id if who else None,
            address_hash=caller.address_hash, target=target, node=node,
            tutorial=1 if tutorial else 0,
            bundle_sha256=sha256_hex(bundle.to_json()), state="queued", created_at=now,
            artifact_type=artifact_type, pseudonym=who.pseudonym if who else None,
            bundle_json=bundle.to_json())
        s.add(row)
        s.flush()
        checkable, pin = target_checkable(svc, target)
        out = job_view(row, checkable)
    out["checkable_here"] = checkable
    unsound = target_known_unsound(svc, target)
    if unsound and pin:  # issue 37: said first, whatever is installed here
        out["notice"] = known_unsound_notice(pin, unsound)
    elif not checkable:  # said up front, before the job ends toolchain-missing (issue 11)
        out["notice"] = not_checkable(pin)
    pool(svc).submit(job_id)
    return out


def get_precheck(svc: Service, *, job_id: str) -> dict[str, Any]:
    """A precheck job's state, diagnostics and signed attestation (GET /precheck/<id>,
    get_precheck; D-28: the polling read after precheck_submission).

    Raises:
        LemmataError: ``precheck-not-found``.
    """
    with svc.sessions() as s:
        row = s.get(db.PrecheckJobRow, str(job_id)[:40])
        if row is None:
            raise LemmataError("precheck-not-found", f"no precheck job {job_id!r}")
        checkable = (target_checkable(svc, row.target)[0]
                     if row.state in ("queued", "running", "fail") else None)
        return job_view(row, checkable)


# --- running jobs ------------------------------------------------------------------------


def _sign(svc: Service, att: Any) -> Any:
    if not svc.keys or "service" not in svc.keys:
        return att
    key_id, key = svc.keys["service"]
    return att.model_copy(update={"signature": signing.sign(att, key, "service", key_id,
                                                            "service")})


def _finish(svc: Service, job_id: str, *, state: str, code: str | None,
            diagnostics: Any, attestation: Any = None, base: str | None = None,
            head: str | None = None) -> None:
    with db.transaction(svc.sessions) as s:
        row = s.get(db.PrecheckJobRow, job_id)
        if row is None:  # pragma: no cover - rows are never deleted
            return
        row.state = state
        row.code = code
        row.finished_at = svc.now()
        row.diagnostics_json = json.dumps(diagnostics, sort_keys=True, ensure_ascii=False)
        row.attestation_json = (json.dumps(attestation.model_dump(by_alias=True,
                                                                  exclude_none=True),
                                           sort_keys=True, ensure_ascii=False)
                                if attestation is not None else None)
        row.base_sha = base
        row.head_sha = head


def run_job(svc: Service, job_id: str) -> str:
    """Run one queued (or interrupted) precheck job to its end; returns its final state.

    The bundle is committed on top of main (objects only), then
    :func:`network.gate.run.run_gate` runs in precheck mode with the service's toolchain
    (``detect_toolchain`` when none was injected) and sandbox. The artifact's precheck
    attestation is signed with the service key. ``toolchain-missing`` when step 1 found
    no toolchain for the pin; ``error`` when the gate could not run (its code kept).

    Implements D-4 (steps 1-2, 4-8), D-27, D-28 precheck_submission, D-35.
    """
    from network.forge.local import LocalForge
    from network.gate.lean.detect import detect_toolchain
    from network.gate.run import run_gate
    from network.gate.sandbox.sandbox import Sandbox

    with db.transaction(svc.sessions) as s:
        row = s.get(db.PrecheckJobRow, job_id)
        if row is None or row.state in FINISHED:
            return row.state if row is not None else "missing"
        row.state = "running"
        row.started_at = svc.now()
        bundle = Bundle.from_json(row.bundle_json or "{}")
        pseudonym = row.pseudonym
    base = head = None
    try:
        repo, base = precheck_repository(svc)
        author = pseudonym or "anonymous"
        head = LocalForge(repo, svc.sessions, clock=svc.clock).commit_files(
            base, {p: t.encode("utf-8") for p, t in bundle.files.items()},
            f"precheck of {bundle.target}/{bundle.node} ({bundle.artifact_type})",
            author=(author, f"{author}@users.lemmata.invalid"))
        out = run_gate(repo, base, head, toolchain=svc.toolchain or detect_toolchain,
                       sandbox=svc.sandbox or Sandbox(), mode="precheck",
                       submitter=pseudonym)
    except LemmataError as exc:
        _finish(svc, job_id, state="error", code=exc.code, diagnostics={
            "error": exc.to_dict()}, base=base, head=head)
        return "error"
    except Exception as exc:  # a bug: kept on the job, never a pass
        log.exception("precheck %s failed", job_id)
        _finish(svc, job_id, state="error", code="gate-internal-error",
                diagnostics={"error": {"code": "gate-internal-error",
                                       "detail": f"{type(exc).__name__}: {exc}"}},
                base=base, head=head)
        return "error"
    runs = [r for r in out.runs if r.artifact.target == bundle.target
            and (r.artifact.node or "root") == bundle.node] or list(out.runs)
    run = runs[0] if runs else None
    first = run.first_failing if run is not None else None
    codes = [d.code for st in (run.steps if run else ()) for d in st.diagnostics]
    if first is not None and first.code:
        codes.insert(0, first.code)
    answer = A.precheck_verdict(run.steps, run.verdict) if run is not None else None
    if run is not None and run.verdict == "pass" and out.verdict == "pass":
        state, code = "pass", None
    elif "toolchain-known-unsound" in codes:  # issue 37: said before toolchain-missing
        state, code = "fail", "toolchain-known-unsound"
    elif answer == PRECHECK_TOOLCHAIN_MISSING:  # the attestation's own answer (issue 35)
        state, code = "toolchain-missing", "toolchain-missing"
    else:
        state = "fail"
        code = first.code if first is not None and first.code else (codes[0] if codes else
                                                                     "precheck-failed")
    att = _sign(svc, run.precheck) if run is not None and run.precheck is not None else None
    diagnostics = out.to_dict()
    if state == "toolchain-missing":  # D-28: neither a pass nor a judgment (issue 35)
        diagnostics["verdict"] = "toolchain-missing"
    _finish(svc, job_id, state=state, code=code, diagnostics=diagnostics,
            attestation=att, base=base, head=head)
    return state


class PrecheckPool:
    """The worker pool precheck jobs run in: ``workers`` threads, jobs handed over by id
    (their bundles are in the database, so a restart loses none).

    Args:
        svc: the service.
        workers: thread count (``settings.precheck_workers``).
    """

    def __init__(self, svc: Service, workers: int) -> None:
        self.svc = svc
        self.workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._futures: dict[str, Future[str]] = {}

    def submit(self, job_id: str) -> None:
        """Hand a job to a worker (starting the threads on first use)."""
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.workers,
                                                    thread_name_prefix="precheck")
            if job_id in self._futures and not self._futures[job_id].done():
                return
            self._futures[job_id] = self._executor.submit(run_job, self.svc, job_id)

    def drain(self, timeout_s: float = 120.0) -> None:
        """Wait until every job handed over so far has finished (tests, shutdown).

        Raises:
            TimeoutError: a job ran past ``timeout_s`` seconds.
        """
        with self._lock:
            futures = list(self._futures.values())
        for f in futures:
            f.result(timeout=timeout_s)

    def shutdown(self) -> None:
        """Stop the threads; jobs not yet started stay queued in the database and are
        resumed at the next start."""
        with self._lock:
            ex, self._executor = self._executor, None
        if ex is not None:
            ex.shutdown(wait=True, cancel_futures=True)


def pool(svc: Service) -> PrecheckPool:
    """The service's :class:`PrecheckPool` (made on first use)."""
    p = svc.extra.get("precheck_pool")
    if p is None:
        p = svc.extra.setdefault("precheck_pool",
                                 PrecheckPool(svc, svc.settings.precheck_workers))
    assert isinstance(p, PrecheckPool)
    return p


def resume_jobs(svc: Service) -> list[str]:
    """Hand every job left ``queued`` or ``running`` (the service stopped mid-run) to the
    pool again; returns their ids. Called when the service starts."""
    with svc.sessions() as s:
        ids_ = list(s.execute(select(db.PrecheckJobRow.id).where(
            db.PrecheckJobRow.state.in_(("queued", "running")))
            .order_by(db.PrecheckJobRow.created_at)).scalars())
    for jid in ids_:
        pool(svc).submit(jid)
    return ids_
