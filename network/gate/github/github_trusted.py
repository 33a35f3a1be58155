"""The trusted half of the gate on GitHub: judge, sign, publish and merge from the
``workflow_run`` event alone (DESIGN.md ruling 14, rulings 8 and 9; D-4 v3.27, D-5).

``lemmata gate trusted`` runs in ``graph/.github/workflows/gate-publish.yml``, a
``workflow_run`` job, so GitHub runs it from the default branch's workflow files; a pull
request that edits them changes nothing here. The unprivileged ``gate`` job only built the
contributor's Lean and uploaded the compiled files (:mod:`network.gate.github.github_export`);
that artifact is untrusted data. This job:

1. takes the pull request's number and head SHA from the event
   (``workflow_run.pull_requests[0]`` and ``workflow_run.head_sha``), never from the
   artifact. A fork's event has an empty ``pull_requests``: the pull request is then the
   one open pull request whose head is the event's head repository, branch and SHA
   (:func:`resolve_pull_request`), or the job refuses.
2. refuses an artifact that names another pull request or another head
   (``trusted-artifact-mismatch``) and any pull request that touches ``.github/``
   (``workflow-path-refused``) or a path only the gate writes (``gate-only-path``);
3. judges ``base..head`` itself with :func:`network.gate.run.run_gate` under
   :class:`ExportedBuild`: the scratch build of the two trust domains runs nothing and
   hands over the contributed modules' compiled files from the artifact (hash-checked,
   read without following links, built from exactly the bytes git holds); the check
   workspace's own build refuses any module holding the pull request's bytes. So no
   contributor code is elaborated here. Kernel replay of those files, the statement
   match and the axioms (steps 4-8) then run as everywhere else; with no toolchain the
   run fails closed (``toolchain-missing``);
4. signs every attestation with the gate key, checks each signature against the key the
   graph publishes under ``keys/`` and merges only when every attestation it signed
   itself passed, through ``PUT /pulls/{n}/merge`` with ``sha`` = the event's head, so a
   later push cannot slip in (:func:`decide`).

The artifact's reader and :class:`ExportedBuild` are :mod:`network.gate.github.github_artifact`
(re-exported here, issue 17). The decision is a :class:`TrustedDecision`;
:func:`publish_and_merge` carries it out on GitHub. Exit codes (``lemmata gate trusted``): 0 merged, 1 refused or failed, 2 held,
3 a bug.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import proc, signing
from network.errors import LemmataError, define
from network.forge.submitter import submitter_of as credited_submitter
from network.gate import attestation as A
from network.gate.artifacts import classify
from network.gate.diff import diff_commits
from network.gate.github.github_artifact import (
    DELEGATED,
    MAX_BLOB_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_TOTAL_BYTES,
    Export,
    ExportedBuild,
    ExportedModule,
    read_export,
)
from network.gate.github.github_export import base_module_hashes
from network.gate.lean.toolchain import Toolchain
from network.gate.result import Diagnostic
from network.gate.sandbox.sandbox import SandboxRunner
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, load_graph

_LOG = logging.getLogger(__name__)

define("trusted-pull-request-unresolved", None, 422,
       "No single open pull request against main has the event's head repository, branch "
       "and head SHA (a fork's event names none), so nothing is judged or merged.",
       "Push again to the pull request; the next gate run is judged on its own event.")
define("trusted-head-moved", None, 409,
       "The pull request's head is no longer the commit the gate run built (a later push), "
       "or it lives in another repository than the event says.",
       "Nothing to do: the later push has its own gate run.")
define("trusted-head-missing", None, 422,
       "The event's head commit could not be fetched into the trusted job's checkout.",
       "Rerun the workflow; if the branch was force-pushed, the new head has its own run.")
define("workflow-path-refused", 2, 422,
       "The pull request changes `.github/` (workflows, actions settings). The trusted "
       "job refuses it: workflow changes go through the graph's operator.",
       "Remove the `.github/` change from the pull request; ask the operator to make it.")
define("trusted-key-unpublished", None, 503,
       "The gate key the trusted job holds is not the graph's published gate key "
       "(keys/<key-id>.json at main, kind gate), so its signatures would not count.",
       "The operator publishes the key's public half under keys/ or fixes the "
       "LEMMATA_GATE_KEY secret and --key-id.")
define("trusted-main-moved", None, 409,
       "Main moved while the trusted job judged the pull request (another merge), so the "
       "pass it signed is for an older main and nothing merges.",
       "Re-run the gate-publish run: it judges the same head against the new main.")
define("trusted-verdict-unsigned", None, 500,
       "An attestation of the trusted run does not carry a gate signature that verifies "
       "with the published key, so it is not counted as a verdict and nothing merges.",
       "Report it: the trusted job signs every attestation it makes.")

#: the commit status the trusted job sets on the head; branch protection requires it
STATUS_CONTEXT = "lemmata/gate"
_SHA_RE = re.compile(r"[0-9a-f]{40}")
_REPO_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
#: exit codes of ``lemmata gate trusted``
EXIT_MERGED, EXIT_REFUSED, EXIT_HELD = 0, 1, 2


# --- the event ------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkflowRunEvent:
    """The fields of a ``workflow_run`` event the trusted job relies on.

    Attributes:
        repository: ``owner/name`` of the graph repository (``repository.full_name``).
        run_id: the gate run's id (``workflow_run.id``).
        head_sha: the commit the gate run built, 40 hex (``workflow_run.head_sha``).
        head_branch: its branch name (``workflow_run.head_branch``).
        head_repository: ``owner/name`` holding the branch
            (``workflow_run.head_repository.full_name``; a fork's differs).
        pull_requests: numbers listed in ``workflow_run.pull_requests`` whose head SHA is
            ``head_sha`` (empty for a fork's pull request).
    """

    repository: str
    run_id: int
    head_sha: str
    head_branch: str
    head_repository: str
    pull_requests: tuple[int, ...] = ()

    @property
    def is_fork(self) -> bool:
        """The head lives in another repository than the graph."""
        return self.head_repository != self.repository


def parse_event(data: Mapping[str, Any]) -> WorkflowRunEvent:
    """Read a ``workflow_run`` event (the JSON at ``$GITHUB_EVENT_PATH``).

    Only a completed run of a ``pull_request`` workflow whose conclusion is ``success``
    (the export was written) is accepted.

    Raises:
        LemmataError: ``trusted-event-malformed``.
    """
    def bad(why: str) -> LemmataError:
        return LemmataError("trusted-event-malformed", why)

    run = data.get("workflow_run")
    if not isinstance(run, dict):
        raise bad("no workflow_run in the event")
    if run.get("event") != "pull_request":
        raise bad(f"the gate run was triggered by {run.get('event')!r}, not pull_request")
    if data.get("action", "completed") != "completed" or run.get("status", "completed") \
            != "completed":
        raise bad("the gate run has not completed")
    if run.get("conclusion") != "success":
        raise bad(f"the gate run's conclusion is {run.get('conclusion')!r}: no export")
    repo = str((data.get("repository") or {}).get("full_name") or "")
    head_repo = str((run.get("head_repository") or {}).get("full_name") or "")
    head_sha = run.get("head_sha")
    if not _REPO_RE.fullmatch(repo) or not _REPO_RE.fullmatch(head_repo):
        raise bad(f"repository {repo!r} or head repository {head_repo!r} is malformed")
    if not isinstance(head_sha, str) or not _SHA_RE.fullmatch(head_sha):
        raise bad(f"head_sha {head_sha!r} is not 40 hex")
    numbers: list[int] = []
    for pr in run.get("pull_requests") or []:
        if not isinstance(pr, dict):
            continue
        number = pr.get("number")
        if isinstance(number, int) and not isinstance(number, bool) and number > 0 and \
                (pr.get("head") or {}).get("sha") == head_sha:
            numbers.append(number)
    run_id = run.get("id")
    return WorkflowRunEvent(repo, run_id if isinstance(run_id, int) else 0, head_sha,
                            str(run.get("head_branch") or ""), head_repo, tuple(numbers))


def resolve_pull_request(ev: WorkflowRunEvent, forge: Any) -> Any:
    """The one open pull request the event's gate run built, read from the API.

    With ``pull_requests`` listed, the first of them against main is taken; with none
    (a fork), the
    open pull requests against main whose head is ``head_repository:head_branch`` are
    listed and exactly one must have the event's head SHA and head repository. Either way
    the pull request must be open, against main, with its head still ``ev.head_sha`` in
    ``ev.head_repository``.

    Args:
        ev: the parsed event.
        forge: a :class:`~network.forge.github.GitHubForge` on ``ev.repository``.

    Returns:
        the :class:`~network.forge.github.GitHubPullRequest`.

    Raises:
        LemmataError: ``trusted-pull-request-unresolved``; ``trusted-head-moved``; the
            forge's request codes.
    """
    if ev.pull_requests:
        # the branch may be open against several bases: the first one against main
        listed = [forge.get(n) for n in ev.pull_requests]
        pr = next((p for p in listed if p.base_ref == "main"), listed[0])
    else:
        owner = ev.head_repository.split("/", 1)[0]
        if not ev.head_branch:
            raise LemmataError("trusted-pull-request-unresolved", "the event names no branch")
        found = [p for p in forge.open_with_head(owner, ev.head_branch)
                 if p.head_sha == ev.head_sha and p.head_repo == ev.head_repository]
        if len(found) != 1:
            raise LemmataError("trusted-pull-request-unresolved",
                               f"{len(found)} open pull requests have head "
                               f"{ev.head_repository}:{ev.head_branch} at {ev.head_sha}")
        pr = found[0]
    if pr.state != "open" or (pr.base_ref and pr.base_ref != "main"):
        raise LemmataError("trusted-pull-request-unresolved",
                           f"#{pr.number} is {pr.state} against {pr.base_ref or '?'}")
    if pr.head_sha != ev.head_sha or pr.head_repo != ev.head_repository:
        raise LemmataError("trusted-head-moved",
                           f"#{pr.number} is at {pr.head_repo}@{pr.head_sha}; the gate "
                           f"run built {ev.head_repository}@{ev.head_sha}")
    return pr


# --- paths ----------------------------------------------------------------------------


def refused_paths(repo: pygit2.Repository | str | Path, base: str, head: str,
                  base_graph: Graph) -> list[Diagnostic]:
    """Every path of ``merge-base(base, head)..head`` the trusted job refuses outright:
    anything under ``.github/`` (``workflow-path-refused``) and every path only the gate
    writes (``gate-only-path``, as step 2 classifies it).

    Raises:
        LemmataError: ``git-error`` when a commit does not resolve.
    """
    r = repo if isinstance(repo, pygit2.Repository) else pygit2.Repository(str(repo))
    try:
        b = r.revparse_single(base).peel(pygit2.Commit)
        h = r.revparse_single(head).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve {base!r} or {head!r}: {exc}") \
            from None
    mb = r.merge_base(b.id, h.id)
    frm = str(mb) if mb is not None else str(b.id)
    out: list[Diagnostic] = []
    diff = r[frm].peel(pygit2.Tree).diff_to_tree(h.peel(pygit2.Tree))
    for patch in diff.deltas:
        for path in {patch.old_file.path, patch.new_file.path}:
            if path == ".github" or path.startswith(".github/"):
                out.append(Diagnostic("workflow-path-refused",
                                      "workflow files change only through the operator",
                                      path))
    d = diff_commits(r.path, frm, str(h.id))
    out += [x for x in classify(d, base_graph).step2 if x.code == "gate-only-path"]
    return sorted(set(out), key=lambda x: (x.path or "", x.code))


def pull_request_hashes(repo: pygit2.Repository, base: str, head: str) -> set[str]:
    """SHA-256 (hex) of the bytes of every blob ``merge-base(base, head)..head`` adds or
    changes, anywhere in the tree."""
    b = repo.revparse_single(base).peel(pygit2.Commit)
    h = repo.revparse_single(head).peel(pygit2.Commit)
    mb = repo.merge_base(b.id, h.id)
    frm = repo[mb].peel(pygit2.Tree) if mb is not None else b.peel(pygit2.Tree)
    out: set[str] = set()
    for delta in frm.diff_to_tree(h.peel(pygit2.Tree)).deltas:
        new = delta.new_file
        if delta.status_char() in ("A", "M", "T", "R", "C"):
            blob = repo.get(new.id)
            if isinstance(blob, pygit2.Blob):
                out.add(hashlib.sha256(blob.data).hexdigest())
    return out


def fetch_head(graph: Path, pull_request: int, head_sha: str, *, remote: str = "origin",
               timeout_s: float = 600) -> None:
    """Fetch the pull request's head as data (``refs/pull/<n>/head``, no tags, no
    submodules, no checkout) and check that it is ``head_sha``; never runs it.

    Raises:
        LemmataError: ``trusted-head-missing``; ``trusted-head-moved`` when the fetched
            head is another commit; ``subprocess-timeout``.
    """
    ref = f"refs/lemmata/pull/{int(pull_request)}"
    done = proc.run(["git", "-C", str(graph), "fetch", "--no-tags",
                     "--no-recurse-submodules", "--no-write-fetch-head", remote,
                     f"+refs/pull/{int(pull_request)}/head:{ref}"], timeout_s=timeout_s)
    if done.rc != 0:
        raise LemmataError("trusted-head-missing", done.err.strip()[-500:] or "git fetch failed")
    got = proc.run(["git", "-C", str(graph), "rev-parse", "--verify", f"{ref}^{{commit}}"])
    if got.out.strip() != head_sha:
        raise LemmataError("trusted-head-moved",
                           f"refs/pull/{pull_request}/head is {got.out.strip()}, the event's "
                           f"head is {head_sha}")


# --- the decision ---------------------------------------------------------------------


@dataclass(frozen=True)
class TrustedDecision:
    """What the trusted job decided for one pull request.

    Attributes:
        pull_request: the event's pull request number (0 when unresolved).
        head_sha: the event's head (what would merge).
        verdict: pass, held, fail, bounced, or ``refused`` (the trusted job's own refusal
            before any gate run).
        merge: True only when every attestation is signed by this job with the published
            gate key and passed, for exactly ``head_sha``.
        attestations: the signed attestations (published on main whatever the verdict).
        findings: why it was refused or failed.
        base_sha: the main commit it was judged against ("" when refused before).
        notices: comments to post on the pull request once it merges: the intent
            signer's notice of the review questions it adds (D-9 v3.39,
            :func:`network.record.derive.review_notice`).
    """

    pull_request: int
    head_sha: str
    verdict: str
    merge: bool
    attestations: tuple[m.Attestation, ...] = ()
    findings: tuple[Diagnostic, ...] = ()
    base_sha: str = ""
    notices: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 merge, 2 held, 1 otherwise."""
        return EXIT_MERGED if self.merge else EXIT_HELD if self.verdict == "held" \
            else EXIT_REFUSED

    def to_dict(self) -> dict[str, Any]:
        """JSON for the job log."""
        return {"pull_request": self.pull_request, "head_sha": self.head_sha,
                "verdict": self.verdict, "merge": self.merge, "exit_code": self.exit_code,
                "findings": [d.to_dict() for d in self.findings],
                "attestations": [A.attestation_id(a) for a in self.attestations]}


def submitter_for(pr: Any, graph: Graph, service_logins: Sequence[str] = (), *,
                  head_message: str = "") -> str | None:
    """The pseudonym credited for the pull request ``pr`` (its ``login``, ``body`` and
    ``head_sha``) with its head commit's message ``head_message`` read from the trusted
    checkout: :func:`network.forge.submitter.submitter_of`. A service pull request is
    credited only through the service's signed ``lemmata-submitter`` block for this head;
    never the service login, never the commit author's text (issue 11)."""
    return credited_submitter(str(getattr(pr, "login", "") or ""), graph,
                              body=str(getattr(pr, "body", "") or ""),
                              head_sha=str(getattr(pr, "head_sha", "") or ""),
                              head_message=head_message, service_logins=service_logins)


_SIGN_OFF_RE = re.compile(r"^\s*sign-off:\s*([a-z_]+)\s*$", re.IGNORECASE | re.MULTILINE)


def review_for(approvals: Sequence[tuple[str, str, str]], graph: Graph,
               submitter: str | None, head_sha: str) -> Any:
    """The step-9 review a GitHub pull request carries (D-4 step 9 and Detail), or None.

    It is the first approving review (``(login, commit_id, body)``, from
    :meth:`~network.forge.github.GitHubForge.approvals`) that was made on exactly
    ``head_sha``, by a login ``identities/`` binds to a pseudonym other than the
    submitter's. With no known submitter no review counts: non-authorship cannot be
    checked. A waiver is signed off by a line ``sign-off: <waiver>`` in its body.
    """
    from network.gate.run import Review

    if submitter is None:
        return None
    for login, commit, body in approvals:
        if commit != head_sha:
            continue
        who = [p for p, ident in graph.identities.items()
               if ident.github is not None and ident.github.lower() == login.lower()]
        if len(who) == 1 and who[0] != submitter:
            signs = tuple(sorted({w.lower() for w in _SIGN_OFF_RE.findall(body)}))
            return Review(who[0], signs_off=signs)
    return None


def published_gate_key(graph: Graph, key: Ed25519PrivateKey, key_id: str) -> m.PublicKey:
    """The graph's ``keys/<key_id>.json`` record, which must be a gate key whose public
    half is ``key``'s.

    Raises:
        LemmataError: ``trusted-key-unpublished``.
    """
    rec = graph.keys.get(key_id)
    if rec is None or rec.kind != "gate" or rec.public_key != signing.public_key_b64(key):
        raise LemmataError("trusted-key-unpublished",
                           f"keys/{key_id}.json at main is not this gate key's public half")
    return rec


def signed_verdict_passes(atts: Sequence[m.Attestation], *, head_sha: str, base_sha: str,
                          key: m.PublicKey) -> tuple[bool, list[Diagnostic]]:
    """Whether ``atts`` are a passing verdict for ``head_sha`` that this job signed: each
    carries a gate signature by ``key`` that verifies over its canonical JSON, names
    ``head_sha`` and ``base_sha``, and passed. An unsigned or wrongly signed attestation
    is not a verdict (ruling 9, ruling 14).

    Returns:
        (passes, findings): findings name each attestation that does not count.
    """
    findings: list[Diagnostic] = []
    if not atts:
        return False, [Diagnostic("trusted-verdict-unsigned", "no attestation")]
    ok = True
    for att in atts:
        sig = att.signature
        try:
            if sig is None:
                raise LemmataError("bad-signature", "unsigned")
            if sig.kind != "gate" or sig.key_id != key.key_id:
                raise LemmataError("bad-signature", f"a {sig.kind} signature by {sig.key_id}")
            signing.verify(att, sig, {key.key_id: key}, att.timestamp)
        except LemmataError as exc:
            findings.append(Diagnostic("trusted-verdict-unsigned",
                                       f"{att.target}/{att.node}: {exc.detail}"))
            ok = False
            continue
        if att.head_commit != head_sha or att.base_commit != base_sha:
            findings.append(Diagnostic("trusted-artifact-mismatch",
                                       f"{att.target}/{att.node} is for {att.head_commit}"))
            ok = False
        elif att.verdict != "pass":
            ok = False
    return ok, findings


def decide(graph: Path, ev: WorkflowRunEvent, pr: Any, export_dir: Path, *,
           toolchain: Callable[[m.GateSpec], Toolchain], sandbox: SandboxRunner,
           gate_key: Ed25519PrivateKey, key_id: str = "gate", base: str = "HEAD",
           approvals: Sequence[tuple[str, str, str]] = (), work_dir: Path | None = None,
           service_logins: Sequence[str] = ()) -> TrustedDecision:
    """Judge the event's pull request in the trusted checkout ``graph`` (see the module
    docstring, steps 2-4). The head commit must already be in ``graph`` (fetched as
    data, :func:`fetch_head`).

    Args:
        graph: the checkout of main (the default branch, never the pull request).
        ev: the event; ``pr``: the pull request :func:`resolve_pull_request` returned.
        export_dir: the downloaded artifact.
        toolchain: ``spec -> Toolchain`` (product code: ``detect_toolchain``).
        sandbox: the sandbox every Lean call runs in.
        gate_key, key_id: the gate key (from the protected environment's secret) and the
            id its public half is published under in ``keys/``.
        base: main's commit to judge against (the checkout's HEAD).
        approvals: the pull request's approving reviews (:func:`review_for` picks the
            one step 9 may count).
        work_dir: where workspaces go (temporary when None).
        service_logins: the service's GitHub logins, whose pull requests credit only the
            pseudonym of their signed ``lemmata-submitter`` block (:func:`submitter_for`).

    Returns:
        the :class:`TrustedDecision`; ``merge`` rests only on attestations this call
        signed and verified.

    Raises:
        LemmataError: ``trusted-key-unpublished``; ``git-error``; the loader's codes.
    """
    from network.gate.run import run_gate

    head = ev.head_sha
    r = pygit2.Repository(str(graph))
    base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
    try:
        r.revparse_single(head).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return TrustedDecision(pr.number, head, "refused", False, findings=(
            Diagnostic("trusted-head-missing", f"{head} is not in the checkout"),))
    base_graph = load_graph(graph, commit=base_sha)
    pub = published_gate_key(base_graph, gate_key, key_id)
    refused = refused_paths(r, base_sha, head, base_graph)
    if refused:
        return TrustedDecision(pr.number, head, "refused", False, findings=tuple(refused))
    try:
        export = read_export(export_dir, pull_request=pr.number, head_sha=head)
    except LemmataError as exc:
        return TrustedDecision(pr.number, head, "refused", False,
                               findings=(Diagnostic(exc.code, exc.detail),))
    hashes = base_module_hashes(base_graph)
    pr_hashes = pull_request_hashes(r, base_sha, head)

    def tc_for(spec: m.GateSpec) -> Toolchain:
        return ExportedBuild(toolchain(spec), export, hashes, pr_hashes)

    head_message = r.revparse_single(head).peel(pygit2.Commit).message
    submitter = submitter_for(pr, base_graph, service_logins, head_message=head_message)
    outcome = run_gate(graph, base_sha, head, toolchain=tc_for, sandbox=sandbox,
                       precheck_raw=pr.precheck_attestation, submitter=submitter,
                       gate_key=gate_key, key_id=key_id, runner="hosted",
                       review=review_for(approvals, base_graph, submitter, head),
                       disclosure=A.disclosure_from_body(str(getattr(pr, "body", "") or "")),
                       work_dir=work_dir, base_graph=base_graph)
    atts = tuple(outcome.attestations)
    passes, findings = signed_verdict_passes(atts, head_sha=head, base_sha=base_sha, key=pub)
    failing = [Diagnostic(rr.first_failing.code or "gate-internal-error",
                          f"{rr.artifact.target}/{rr.artifact.node}: step "
                          f"{rr.first_failing.step}")
               for rr in outcome.runs if rr.first_failing is not None]
    verdict = outcome.verdict if not findings else "fail"
    return TrustedDecision(pr.number, head, verdict,
                           passes and outcome.verdict == "pass", atts,
                           tuple(findings + failing), base_sha,
                           review_notices(graph, base_sha, head))


def review_notices(graph: Path, base_sha: str, head_sha: str) -> tuple[str, ...]:
    """The review notices of the pull request ``base_sha..head_sha`` (D-9 v3.39): for each
    target whose review questions it adds, the comment
    :func:`network.record.derive.review_notice` writes over the record as it will stand
    after the merge (the head), or none."""
    from network.gate.diff import diff_commits

    by_target: dict[str, list[str]] = {}
    for ch in diff_commits(graph, base_sha, head_sha).changes:
        parts = ch.path.split("/")
        if ch.status == "added" and len(parts) == 5 and parts[0] == "targets" \
                and parts[2:4] == ["review", "questions"]:
            by_target.setdefault(parts[1], []).append(ch.path)
    if not by_target:
        return ()
    head = load_graph(graph, commit=head_sha)
    out = []
    for tid, paths in sorted(by_target.items()):
        body = derive.review_notice(head, tid, paths) if tid in head.targets else None
        if body is not None:
            out.append(body)
    return tuple(out)


def publish_and_merge(decision: TrustedDecision, forge: Any
                      ) -> tuple[TrustedDecision, str | None]:
    """Carry a decision out on GitHub: commit every attestation onto main (ruling 8), set
    the :data:`STATUS_CONTEXT` status on the head, and merge with ``sha`` = the judged
    head only when ``decision.merge`` and main is still the commit it was judged against;
    once merged, post ``decision.notices`` as comments on the pull request (a failure to
    post is logged: the merge stands, and the intent signer's ``/me`` says the same)
    (another merge meanwhile: nothing merges, the status stays ``pending`` with
    ``trusted-main-moved``, and the run is to be re-run).

    Returns:
        (the decision as carried out, the merge commit or None when nothing merged).

    Raises:
        LemmataError: the forge's codes (``merge-conflict`` when the head moved).
    """
    from network.gate.run import attestation_path

    if decision.merge and decision.base_sha and forge.main_sha() != decision.base_sha:
        decision = replace(decision, merge=False, verdict="held", findings=(
            Diagnostic("trusted-main-moved", f"main is no longer {decision.base_sha}"),
            *decision.findings))
    if decision.attestations:
        files: dict[str, bytes | None] = {attestation_path(a): A.attestation_bytes(a)
                                          for a in decision.attestations}
        forge.commit_to_main(files, f"gate: attestation for #{decision.pull_request} "
                             f"({decision.verdict}, ruling 8)")
    state = ("success" if decision.merge else "pending" if decision.verdict == "held"
             else "failure")
    first = decision.findings[0].code if decision.findings else decision.verdict
    if decision.pull_request:
        forge.set_status(decision.head_sha, state, STATUS_CONTEXT,
                         f"gate: {decision.verdict} ({first})")
    if not decision.merge:
        return decision, None
    merged = forge.merge(decision.pull_request, expected_head=decision.head_sha)
    for body in decision.notices:  # after the merge: the questions are on main
        try:
            forge.comment(decision.pull_request, body)
        except LemmataError as exc:  # the merge stands; the notice is also on /me
            _LOG.warning("review notice on #%s not posted: %s", decision.pull_request, exc)
    return decision, str(merged.merge_sha)


#: every name this module held before the artifact reader moved to
#: :mod:`network.gate.github.github_artifact` (issue 17)
__all__ = [
    "DELEGATED",
    "EXIT_HELD",
    "EXIT_MERGED",
    "EXIT_REFUSED",
    "MAX_BLOB_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_TOTAL_BYTES",
    "STATUS_CONTEXT",
    "Export",
    "ExportedBuild",
    "ExportedModule",
    "TrustedDecision",
    "WorkflowRunEvent",
    "base_module_hashes",
    "decide",
    "fetch_head",
    "parse_event",
    "publish_and_merge",
    "published_gate_key",
    "pull_request_hashes",
    "read_export",
    "refused_paths",
    "resolve_pull_request",
    "review_for",
    "signed_verdict_passes",
    "submitter_for",
]
