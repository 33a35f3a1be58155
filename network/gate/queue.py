"""The merge queue over :class:`~network.api.forge.LocalForge`: strictly ordered, one pull
request at a time (D-4, D-5, D-25 v3.21; rulings 7, 8).

:func:`process_queue` takes the pull requests open when it starts, oldest first, and for
each one:

1. runs the authoritative gate (:func:`~network.gate.run.run_gate`) with ``base`` = main
   and ``head`` = the pull request's head, consuming the precheck attestation the pull
   request carries (ruling 7: the row's field, else a fenced block in its body); the
   graph at main is loaded once per main commit and passed as ``base_graph``
   (:class:`MainGraph`);
2. publishes the attestation on main whatever the verdict (ruling 8): this publishing
   commit runs no contributor code, it only writes the JSON the gate produced;
3. on ``pass`` merges, then runs the post-merge job (:mod:`network.gate.postmerge`) and
   commits its files; ``held`` stays open for a review; ``fail`` and ``bounced`` are
   closed (a corrected resubmission is a new pull request, D-25 v3.21);
4. after a merged proof, moves every losing racer's proof of the same node to its
   alternate path (D-25 v3.21): the racer's pull request is closed and a new one is opened
   from main with the text, unchanged, at ``attempts/<ts>-<pseudonym>-alternate.lean``,
   ``ts`` being the racer's head commit date; the queue prechecks it with the same code
   and attaches the precheck attestation when it passes and the target accepts unsigned
   ones, so the gate checks it as the alternate it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.api.forge import LocalForge, PullRequest
from network.errors import LemmataError
from network.gate import attestation as A
from network.gate.diff import diff_commits
from network.gate.postmerge import PostMerge, run_postmerge
from network.gate.run import (
    GateOutcome,
    Review,
    ToolchainSource,
    attestation_files,
    commit_date,
    run_gate,
)
from network.gate.sandbox import SandboxRunner
from network.record.loader import Graph, load_graph

_log = logging.getLogger(__name__)


@dataclass
class QueueItem:
    """What the queue did with one pull request.

    Attributes:
        number: the pull request.
        verdict: the gate's verdict, or ``error`` when judging raised (the pull request is
            then refused: closed).
        outcome: the gate's outcome (None on error).
        published: main's commit holding the attestation(s), None when already there.
        merge_sha: main after the merge, when merged.
        postmerge: what the post-merge job wrote, when merged.
        moved: pull requests opened for losing racers' alternates.
        notes: anything else worth saying (merge conflicts, skipped steps, errors).
        code: the catalog code of the error that refused it or stopped its handling
            (``gate-internal-error`` for an exception that is not a LemmataError).
    """

    number: int
    verdict: str
    outcome: GateOutcome | None = None
    published: str | None = None
    merge_sha: str | None = None
    postmerge: PostMerge | None = None
    moved: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    code: str | None = None


class MainGraph:
    """The graph at a forge's main, loaded once per main commit and handed to
    :func:`~network.gate.run.run_gate` as ``base_graph``, so a queue judging many pull
    requests does not reload a large graph for each one while main has not moved (the
    gate reuses it only when its commit is the base's, so verdicts are unchanged)."""

    def __init__(self, forge: LocalForge) -> None:
        self.forge = forge
        self.graph: Graph | None = None

    def at(self, sha: str) -> Graph:
        """The graph at main commit ``sha`` (40 hex), loaded unless already held.

        Raises:
            LemmataError: what :func:`~network.record.loader.load_graph` raises.
        """
        if self.graph is None or self.graph.commit != sha:
            self.graph = load_graph(self.forge.path, commit=sha)
        return self.graph


def _precheck_of(pr: PullRequest) -> str | None:
    return pr.precheck_attestation or A.precheck_from_body(pr.body)


def _unpublished(forge: LocalForge, files: dict[str, bytes]) -> dict[str, bytes]:
    tree = forge.repo.revparse_single(forge.main_sha()).peel(pygit2.Commit).tree
    out: dict[str, bytes] = {}
    for path, data in files.items():
        try:
            blob = forge.repo[tree[path].id]
            have = bytes(blob.data) if isinstance(blob, pygit2.Blob) else None
        except KeyError:
            have = None
        if have != data:
            out[path] = data
    return out


def _added_proofs(forge: LocalForge, pr: PullRequest, main: str) -> dict[str, bytes]:
    """Paths → bytes of node Proof.lean files (and their waivers) a pull request adds."""
    mb = forge.repo.merge_base(pygit2.Oid(hex=main), pygit2.Oid(hex=pr.head_sha))
    diff = diff_commits(forge.path, str(mb) if mb else main, pr.head_sha)
    return {c.path: diff.new_bytes(c) for c in diff.changes
            if c.status == "added" and (c.path.endswith("/Proof.lean")
                                        or c.path.endswith("/waivers/native_decide.yaml"))}


def move_losing_racers(forge: LocalForge, merged: GateOutcome, *, toolchain: ToolchainSource,
                       sandbox: SandboxRunner, skip: set[int],
                       graphs: MainGraph | None = None) -> list[int]:
    """D-25 v3.21: close each open pull request that adds the Proof.lean of a node whose
    proof just merged, and open its text as an alternate from main. Returns the new pull
    requests' numbers. ``graphs`` holds the graph at main when the caller has it (the
    queue's), else it is loaded here."""
    won = {f"targets/{r.artifact.target}/nodes/{r.artifact.node}/Proof.lean"
           for r in merged.runs if r.verdict == "pass" and r.artifact.kind.value == "proof"}
    if not won:
        return []
    main = forge.main_sha()
    graph = (graphs or MainGraph(forge)).at(main)
    opened: list[int] = []
    for pr in forge.list_open():
        if pr.number in skip:
            continue
        try:
            added = _added_proofs(forge, pr, main)
        except Exception as exc:  # noqa: BLE001 - one racer's tree never stops the others
            code, detail = _code_of(exc)
            _log.error("merge queue: #%d not read as a racer: %s: %s", pr.number, code,
                       detail)
            continue
        losing = sorted(p for p in added if p in won)
        if not losing:
            continue
        ts = commit_date(forge.repo, pr.head_sha).replace("-", "").replace(":", "")
        files: dict[str, bytes] = {}
        for proof in losing:
            node_dir = proof[: -len("/Proof.lean")]
            files[f"{node_dir}/attempts/{ts}-{pr.author}-alternate.lean"] = added[proof]
            waiver = f"{node_dir}/waivers/native_decide.yaml"
            if waiver in added and waiver not in graph.files:
                files[waiver] = added[waiver]
        forge.close(pr.number)
        msg = (f"Alternate proof moved from #{pr.number} (D-25 v3.21)\n\n"
               f"Signed-off-by: {pr.author} <{pr.author}@users.lemmata.invalid>\n")
        head = forge.commit_files(main, files, msg,
                                  author=(pr.author, f"{pr.author}@users.lemmata.invalid"))
        pre = run_gate(forge.path, main, head, toolchain=toolchain, sandbox=sandbox,
                       mode="precheck", submitter=pr.author, base_graph=graph)
        raw = None
        atts = pre.precheck_attestations
        if pre.verdict == "pass" and len(atts) == 1:
            t = graph.targets.get(atts[0].target)
            if t is not None and "none" in t.gate_spec.precheck.accepted_signature_kinds:
                raw = A.precheck_from_body(A.precheck_block(atts[0]))
        new = forge.open_from_commit(
            head, title=f"Alternate proof of {', '.join(losing)} (from #{pr.number})",
            body=(f"The node's proof merged first, so this text moved unchanged from "
                  f"#{pr.number} to its alternate path (D-25 v3.21).\n"),
            author=pr.author, precheck_attestation=raw, base_sha=main)
        opened.append(new.number)
    return opened


def process_queue(
    forge: LocalForge,
    *,
    toolchain: ToolchainSource,
    sandbox: SandboxRunner,
    gate_key: Ed25519PrivateKey | None = None,
    key_id: str = "gate",
    reviews: Callable[[PullRequest], Review | None] | None = None,
    runner: Literal["local", "hosted"] = "local",
    work_dir: Path | None = None,
) -> list[QueueItem]:
    """Run the merge queue once over the pull requests open now, oldest first.

    Args:
        forge: the local forge.
        toolchain: a Toolchain or ``spec -> Toolchain`` (product code:
            :func:`~network.gate.toolchain.detect_toolchain`).
        sandbox: the step-3 sandbox.
        gate_key, key_id: the gate's key; attestations, merge records, ledger lines and
            closures are signed with it.
        reviews: the approving review of a pull request, if any (step 9 and waivers).
        runner: the attestations' runner class.
        work_dir: scratch folder for workspaces (temporary when None).

    Returns:
        One :class:`QueueItem` per pull request handled, in order.

    Raises:
        LemmataError: what loading main's own graph raises (then nothing can be judged).
        Nothing for a pull request's own content: any exception while judging one pull
        request (a LemmataError or any other) is that pull request's refusal: it is
        closed, logged with its code (``gate-internal-error`` for anything but a
        LemmataError) and recorded as the item's ``error`` verdict with ``code``; an
        exception after the verdict (publishing, merging, the post-merge job) is logged
        with its code in the item's notes. The runner goes on with the next one (issue 9).

    Implements D-4, D-5, D-25 v3.21, rulings 7 and 8.
    """
    items: list[QueueItem] = []
    handled: set[int] = set()
    graphs = MainGraph(forge)
    for pr in forge.list_open():
        if forge.get(pr.number).state != "open":
            continue
        handled.add(pr.number)
        main = forge.main_sha()
        base_graph = graphs.at(main)  # main's own graph: if it cannot load, nothing can run
        try:
            out = run_gate(forge.path, main, pr.head_sha, toolchain=toolchain,
                           sandbox=sandbox, precheck_raw=_precheck_of(pr),
                           submitter=pr.author, gate_key=gate_key, key_id=key_id,
                           runner=runner, review=reviews(pr) if reviews else None,
                           work_dir=work_dir, base_graph=base_graph)
        except Exception as exc:  # noqa: BLE001 - one pull request never stops the queue
            items.append(_refuse_on_error(forge, pr, exc))
            continue
        item = QueueItem(pr.number, out.verdict, out)
        items.append(item)
        try:
            _publish_and_merge(forge, pr, out, item, toolchain=toolchain, sandbox=sandbox,
                               gate_key=gate_key, key_id=key_id, work_dir=work_dir,
                               graphs=graphs)
        except Exception as exc:  # noqa: BLE001 - logged with its code; the queue goes on
            code, detail = _code_of(exc)
            _log.error("merge queue: #%d after the gate's %s: %s: %s", pr.number,
                       out.verdict, code, detail)
            item.code = item.code or code
            item.notes.append(f"{code}: {detail}")
            if item.merge_sha is None and out.verdict in ("fail", "bounced"):
                _close_quietly(forge, pr.number)  # refused: publishing it failed, not it
    return items


def _code_of(exc: BaseException) -> tuple[str, str]:
    """(catalog code, detail) of an exception: a LemmataError's own, else
    ``gate-internal-error`` with the exception's type and text."""
    if isinstance(exc, LemmataError):
        return exc.code, exc.detail
    return "gate-internal-error", f"{type(exc).__name__}: {exc}"[:500]


def _close_quietly(forge: LocalForge, number: int) -> None:
    try:
        forge.close(number)
    except Exception as exc:  # noqa: BLE001 - closing is best effort; logged
        code, detail = _code_of(exc)
        _log.error("merge queue: #%d could not be closed: %s: %s", number, code, detail)


def _refuse_on_error(forge: LocalForge, pr: PullRequest, exc: BaseException) -> QueueItem:
    """A pull request whose judging raised: refused (closed, like a ``fail``), logged with
    its code (issue 9: the queue survives anything a pull request contains)."""
    code, detail = _code_of(exc)
    _log.error("merge queue: #%d refused: %s: %s", pr.number, code, detail)
    _close_quietly(forge, pr.number)
    return QueueItem(pr.number, "error", code=code, notes=[f"{code}: {detail}"])


def _publish_and_merge(forge: LocalForge, pr: PullRequest, out: GateOutcome, item: QueueItem,
                       *, toolchain: ToolchainSource, sandbox: SandboxRunner,
                       gate_key: Ed25519PrivateKey | None, key_id: str,
                       work_dir: Path | None, graphs: MainGraph) -> None:
    """Steps 2-4 of :func:`process_queue` for one judged pull request (publish the
    attestations, close, or merge and run the post-merge job and move losing racers)."""
    files = _unpublished(forge, attestation_files(out))
    if files:
        item.published = forge.commit_to_main(
            files, f"gate: {out.verdict} for #{pr.number} (attestations, ruling 8)")
    if out.verdict in ("fail", "bounced"):
        forge.close(pr.number)
        return
    if out.verdict != "pass":
        return  # held: waits open for a review (ruling 5)
    try:
        merged = forge.merge(pr.number)
    except LemmataError as exc:
        item.notes.append(f"not merged: {exc.code}: {exc.detail}")
        return
    assert merged.merge_sha is not None
    item.merge_sha = merged.merge_sha
    item.postmerge = run_postmerge(
        forge, forge.path, merged.merge_sha, out.attestations,
        pull_request=f"local/{pr.number}", submitter=pr.author, toolchain=toolchain,
        sandbox=sandbox, gate_key=gate_key, key_id=key_id, work_dir=work_dir)
    item.moved = move_losing_racers(forge, out, toolchain=toolchain, sandbox=sandbox,
                                    skip=set(), graphs=graphs)
