"""The merge queue over :class:`~network.forge.local.LocalForge`: strictly ordered, one pull
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
3. on ``pass`` merges, then runs the post-merge job (:mod:`network.gate.postmerge.postmerge`) and
   commits its files; ``held`` stays open for a review; ``fail`` and ``bounced`` are
   closed (a corrected resubmission is a new pull request, D-25 v3.21);
4. after a merged proof, moves every losing racer's proof of the same node to its
   alternate path (D-25 v3.21): the racer's pull request is closed and a new one is opened
   from main with the text, unchanged, at ``attempts/<ts>-<pseudonym>-alternate.lean``,
   ``ts`` being the racer's head commit date; the queue prechecks it with the same code
   and attaches the precheck attestation when it passes and the target accepts unsigned
   ones, so the gate checks it as the alternate it is.

Merging is a journal (issue 16). Before main moves, the queue writes a
:class:`MergeIntent` (pull request, head, main before, expected new main, the pass
attestations' paths) to ``<forge>/lemmata-merge-journal/<n>.json``, atomically (write,
fsync, rename, fsync the folder). Each later step is idempotent: moving main
(:meth:`~network.forge.local.LocalForge.advance_main`), marking the row merged, the
post-merge commit (merge record, ledger lines, holes, closure and products in one commit,
skipped when main's merge log already records the merge commit) and moving the losing
racers; the intent is removed last. Every pass first completes the intents left by a run
that died (:func:`recover`), and an open pull request whose head main already contains is
never judged again: it is marked merged and its post-merge job completed. A pull request
that no longer merges cleanly is closed with ``merge-conflict`` (its fix: rebase and submit
again), never left open to be re-gated on every pass.

Every close the queue makes for a reason records it on the forge's row
(:meth:`~network.forge.local.LocalForge.close` ``code``/``detail``): ``merge-conflict``, the
first failing step's code of a ``fail`` or ``bounced`` verdict, the code of an exception
that refused the pull request. The service copies it onto the submission, so its
submitter reads why and what to do (issue 16).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.errors import LemmataError
from network.forge.local import LocalForge
from network.forge.types import PullRequest, precheck_from_body
from network.gate import attestation as A
from network.gate.diff import diff_commits
from network.gate.postmerge.postmerge import PostMerge, run_postmerge
from network.gate.queue.merge_journal import (
    JOURNAL_DIR,
    STEPS,
    MergeIntent,
    StepHook,
    _write_durably,
    clear_intent,
    read_intents,
    write_intent,
)
from network.gate.queue.queue_health import (
    HEARTBEAT_FILE,
    HEARTBEAT_S,
    QueueHealth,
    health_for,
    health_if_running,
    read_heartbeat,
    write_heartbeat,
)
from network.gate.run import (
    GateOutcome,
    Review,
    ToolchainSource,
    attestation_files,
    attestation_path,
    commit_date,
    run_gate,
)
from network.gate.sandbox.sandbox import SandboxRunner
from network.record import models as m
from network.record.read import blob_cache
from network.record.read.loader import Graph, load_graph

_log = logging.getLogger(__name__)


@dataclass
class QueueItem:
    """What the queue did with one pull request.

    Attributes:
        number: the pull request.
        verdict: the gate's verdict, ``waiting`` when it rests on ``toolchain-missing``
            alone (left open, nothing published, judged again only once a pinned
            toolchain appears or the head moves: :func:`only_toolchain_missing`), or
            ``error`` when judging raised (the pull request is then refused: closed).
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
            LemmataError: what :func:`~network.record.read.loader.load_graph` raises.
        """
        if self.graph is None or self.graph.commit != sha:
            self.graph = load_graph(self.forge.path, commit=sha, cache=blob_cache.configured())
        return self.graph


def _precheck_of(pr: PullRequest) -> str | None:
    return pr.precheck_attestation or precheck_from_body(pr.body)


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


def move_losing_racers(forge: LocalForge, merged: GateOutcome | Sequence[m.Attestation], *,
                       toolchain: ToolchainSource, sandbox: SandboxRunner, skip: set[int],
                       graphs: MainGraph | None = None,
                       step_hook: StepHook | None = None) -> list[int]:
    """D-25 v3.21: close each open pull request that adds the Proof.lean of a node whose
    proof just merged, and open its text as an alternate from main. ``merged`` is the
    merge's gate outcome or its pass attestations (what a recovered merge still has).
    Returns the new pull requests' numbers. ``graphs`` holds the graph at main when the
    caller has it (the queue's), else it is loaded here.

    Idempotent (issue 16): the alternate is opened before the racer is closed, and a racer
    whose alternate is already open (``… (from #n)``, a run that died between the two) is
    only closed; ``step_hook`` (tests only) hears ``racer-opened`` between them."""
    if isinstance(merged, GateOutcome):
        won = {f"targets/{r.artifact.target}/nodes/{r.artifact.node}/Proof.lean"
               for r in merged.runs if r.verdict == "pass" and r.artifact.kind.value == "proof"}
    else:
        won = {f"targets/{a.target}/nodes/{a.node}/Proof.lean"
               for a in merged if a.verdict == "pass" and a.artifact_kind == "proof"}
    if not won:
        return []
    main = forge.main_sha()
    graph = (graphs or MainGraph(forge)).at(main)
    opened: list[int] = []
    open_now = forge.list_open()
    for pr in open_now:
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
        mark = f"(from #{pr.number})"
        if any(mark in o.title and o.author == pr.author for o in open_now):
            forge.close(pr.number)  # its alternate opened before a crash
            continue
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
                raw = precheck_from_body(A.precheck_block(atts[0]))
        new = forge.open_from_commit(
            head, title=f"Alternate proof of {', '.join(losing)} {mark}",
            body=(f"The node's proof merged first, so this text moved unchanged from "
                  f"#{pr.number} to its alternate path (D-25 v3.21).\n"),
            author=pr.author, precheck_attestation=raw, base_sha=main)
        opened.append(new.number)
        if step_hook is not None:
            step_hook("racer-opened")
        forge.close(pr.number)
    return opened


def _has_merge_record(graph: Graph, merge_commit: str) -> bool:
    """Whether main's merge log already records ``merge_commit`` (its post-merge job ran;
    keyed on the commit, since pull request numbers of another forge may repeat)."""
    return any(mr.record.merge_commit == merge_commit for mr in graph.merges)


def _attestations_at(graph: Graph, paths: Sequence[str] | None, head: str
                     ) -> list[m.Attestation]:
    """The pass attestations on main at ``paths``, or (no journal) every pass attestation
    of ``head``."""
    if paths is not None:
        want = set(paths)
        return [a.record for a in graph.attestations if a.path in want]
    return [a.record for a in graph.attestations
            if a.record.head_commit == head and a.record.verdict == "pass"]


def _first_containing(forge: LocalForge, head: str) -> str:
    """The oldest commit on main's first-parent line that contains ``head``: where it
    merged (used when no journal says so)."""
    sha = forge.main_sha()
    for _ in range(100_000):
        commit = forge.repo[sha].peel(pygit2.Commit)
        if not commit.parent_ids:
            return sha
        parent = str(commit.parent_ids[0])
        if not forge.contains(parent, head):
            return sha
        sha = parent
    return sha


@dataclass
class _Ctx:
    """What the merge steps need besides the forge."""

    toolchain: ToolchainSource
    sandbox: SandboxRunner
    gate_key: Ed25519PrivateKey | None
    key_id: str
    work_dir: Path | None
    graphs: MainGraph
    hook: StepHook


def _no_hook(step: str) -> None:
    return None


def _complete(forge: LocalForge, intent: MergeIntent, item: QueueItem, ctx: _Ctx,
              attestations: Sequence[m.Attestation] | None = None) -> None:
    """Steps after the journal, each idempotent: move main, mark the row merged, the
    post-merge commit (unless main's merge log records the merge commit), the losing
    racers, then clear the intent.

    Raises:
        LemmataError: ``merge-conflict`` when main moved elsewhere before the merge (the
            intent is cleared; the pull request stays open to be judged again).
    """
    assert intent.new_main is not None
    if forge.get(intent.number).state == "closed":  # withdrawn before main moved
        if not forge.contains(forge.main_sha(), intent.new_main):
            clear_intent(forge, intent.number)
            item.notes.append("closed before main moved: not merged")
            return
        _log.error("merge queue: #%d is closed but main holds its merge %s", intent.number,
                   intent.new_main[:12])
    try:
        moved_now = forge.advance_main(intent.base, intent.new_main)
    except LemmataError:
        clear_intent(forge, intent.number)
        raise
    ctx.hook("main-moved")
    if forge.get(intent.number).state != "closed":
        forge.mark_merged(intent.number, intent.new_main)
    ctx.hook("row-merged")
    item.merge_sha = intent.new_main
    # main moved just now: no post-merge job can have run for it, and main is not loaded
    # again; otherwise main's merge log says whether it ran
    graph = None if moved_now and attestations is not None else ctx.graphs.at(
        forge.main_sha())
    if attestations is not None:
        atts = list(attestations)
    else:
        assert graph is not None
        atts = _attestations_at(graph, intent.attestations, intent.head)
    if graph is None or not _has_merge_record(graph, intent.new_main):
        item.postmerge = run_postmerge(
            forge, forge.path, intent.new_main, atts, pull_request=f"local/{intent.number}",
            submitter=intent.submitter, toolchain=ctx.toolchain, sandbox=ctx.sandbox,
            gate_key=ctx.gate_key, key_id=ctx.key_id, work_dir=ctx.work_dir)
    else:
        item.notes.append("merge record already on main")
    ctx.hook("postmerge")
    item.moved = move_losing_racers(forge, atts, toolchain=ctx.toolchain,
                                    sandbox=ctx.sandbox, skip={intent.number},
                                    graphs=ctx.graphs, step_hook=ctx.hook)
    ctx.hook("racers-moved")
    clear_intent(forge, intent.number)


def recover(forge: LocalForge, ctx: _Ctx) -> list[QueueItem]:
    """Complete every merge the journal holds (a run that died mid-merge, issue 16).
    Each becomes a :class:`QueueItem` with verdict ``pass`` and a ``recovered`` note; an
    exception is logged with its code on the item and the intent stays for the next pass
    (unless main moved elsewhere: then the pull request is judged again)."""
    items: list[QueueItem] = []
    for intent in read_intents(forge):
        item = QueueItem(intent.number, intent.verdict,
                         notes=["recovered from the merge journal"])
        items.append(item)
        item.verdict = intent.verdict
        try:
            _resume(forge, intent, item, ctx)
        except Exception as exc:  # noqa: BLE001 - logged; retried on the next pass
            code, detail = _code_of(exc)
            _log.error("merge queue: recovering #%d: %s: %s", intent.number, code, detail)
            item.code = code
            item.notes.append(f"{code}: {detail}")
    return items


def _already_on_main(forge: LocalForge, pr: PullRequest, ctx: _Ctx) -> QueueItem | None:
    """An open pull request whose own head main already contains (a run died between
    moving main and marking the row, with no journal): never judged again; marked merged
    and its post-merge job completed from its pass attestations on main; closed when main
    holds none (its content reached main some other way)."""
    if pr.head_sha == pr.base_sha or not forge.contains(forge.main_sha(), pr.head_sha):
        return None
    graph = ctx.graphs.at(forge.main_sha())
    atts = _attestations_at(graph, None, pr.head_sha)
    if not atts:
        _log.error("merge queue: #%d is already on main with no pass attestation: closed",
                   pr.number)
        forge.close(pr.number, code="pull-request-closed",
                    detail="its head is already on main, with no pass attestation")
        return QueueItem(pr.number, "error", code="pull-request-closed",
                         notes=["already on main without a pass attestation: closed"])
    intent = MergeIntent(pr.number, pr.head_sha, "pass", {}, forge.main_sha(),
                         _first_containing(forge, pr.head_sha),
                         tuple(sorted({attestation_path(a) for a in atts})), pr.author)
    item = QueueItem(pr.number, "pass", notes=["already on main: completed, not re-gated"])
    _complete(forge, intent, item, ctx, atts)
    return item


WAITING_DIR = "lemmata-waiting"
"""``<forge>/lemmata-waiting/<n>.json``: pull requests that wait for a toolchain."""


def toolchain_fingerprint(graph: Any, toolchain: ToolchainSource) -> list[list[Any]]:
    """Which targets' pinned toolchains are installed here: ``[[target, ok], ...]``, sorted.
    A waiting pull request is judged again only when this changes."""
    out = []
    for tid, t in sorted(graph.targets.items()):
        tc = toolchain(t.gate_spec) if callable(toolchain) else toolchain
        out.append([tid, bool(tc.describe().ok)])
    return out


def only_toolchain_missing(out: GateOutcome, precheck_raw: str | None = None,
                           missing: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether a refusal rests on the missing toolchain alone, so nothing was judged.

    Each failing artifact's first failing step is either step 1 with
    ``toolchain-missing``, or step 0's ``precheck-failed`` (a v1 attestation) or
    ``precheck-toolchain-missing`` (v2, issue 35) for a target in ``missing`` (no
    pinned toolchain here either) whose carried precheck failed only at
    ``toolchain-missing``: the precheck could check nothing, and neither can this gate.
    Step 2, which runs first and needs no Lean, found nothing, and no finding lies outside
    the artifacts. A waiting pull request gains nothing by it: once a toolchain appears it
    is judged, and an unchecked precheck then bounces it.

    Args:
        out: the gate's outcome.
        precheck_raw: the pull request's precheck-attestation JSON, if any.
        missing: targets whose pinned toolchain is not installed here.
    """
    failing = [r for r in out.runs if r.first_failing is not None]
    if out.verdict not in ("fail", "bounced") or not failing or out.unplaced:
        return False
    for r in failing:
        ff = r.first_failing
        assert ff is not None
        if ff.code == "toolchain-missing":
            continue
        if (ff.step == 0 and ff.code in ("precheck-failed", "precheck-toolchain-missing")
                and r.artifact.target in missing
                and _precheck_unchecked(precheck_raw)):
            continue
        return False
    return True


def _precheck_unchecked(raw: str | None) -> bool:
    """Whether a precheck attestation failed at ``toolchain-missing`` and nowhere else: a
    v1 ``precheck-fail`` or a v2 ``precheck-toolchain-missing`` (D-34: both versions read;
    issue 35)."""
    if not raw:
        return False
    try:
        att = m.precheck_attestation_from_json(raw)
    except ValueError:
        return False
    return m.precheck_checked_nothing(att.verdict, att.steps) and all(
        st.code == "toolchain-missing" for st in att.steps if not st.ok)


def read_waiting(forge: LocalForge, number: int) -> dict[str, Any] | None:
    """The waiting note of pull request ``number`` (``{head, since, toolchains}``), or None.
    The service shows it to the submitter (issue 11: a proof waits at
    ``toolchain-missing``)."""
    path = forge.path / WAITING_DIR / f"{int(number)}.json"
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _clear_waiting(forge: LocalForge, number: int) -> None:
    (forge.path / WAITING_DIR / f"{int(number)}.json").unlink(missing_ok=True)


HELD_DIR = "lemmata-held"
"""Where the queue notes, per held pull request, what it was last judged against."""


def main_fingerprint(forge: LocalForge, main: str) -> str:
    """What a held pull request's verdict can depend on, of main commit ``main``: the
    SHA-256 over main's top-level tree entries but ``attestations/`` (publishing a held or
    refused verdict changes only that folder, so two held pull requests never re-judge each
    other for ever; a merged review, a merge or any other record moves it)."""
    import hashlib

    tree = forge.repo.revparse_single(main).peel(pygit2.Commit).tree
    h = hashlib.sha256()
    for entry in sorted(tree, key=lambda e: e.name or ""):
        if entry.name != "attestations":
            h.update(f"{entry.name}\0{entry.id}\n".encode())
    return h.hexdigest()


def _review_key(review: Review | None) -> list[Any] | None:
    if review is None:
        return None
    return [review.reviewer, review.approved, sorted(review.signs_off)]


def read_held(forge: LocalForge, number: int) -> dict[str, Any] | None:
    """The held note of pull request ``number`` (``{head, main, review, since}``: its head,
    :func:`main_fingerprint` and forge review when it was last judged held), or None."""
    path = forge.path / HELD_DIR / f"{int(number)}.json"
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _clear_held(forge: LocalForge, number: int) -> None:
    (forge.path / HELD_DIR / f"{int(number)}.json").unlink(missing_ok=True)


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
    step_hook: StepHook | None = None,
) -> list[QueueItem]:
    """Run the merge queue once: complete the journal's unfinished merges, then handle the
    pull requests open now, oldest first.

    Args:
        forge: the local forge.
        toolchain: a Toolchain or ``spec -> Toolchain`` (product code:
            :func:`~network.gate.lean.detect.detect_toolchain`).
        sandbox: the step-3 sandbox.
        gate_key, key_id: the gate's key; attestations, merge records, ledger lines and
            closures are signed with it.
        reviews: the approving review of a pull request, if any (step 9 and waivers).
        runner: the attestations' runner class.
        work_dir: scratch folder for workspaces (temporary when None; created when
            missing).
        step_hook: tests only (crash tests): called with each :data:`STEPS` name as that
            step finishes.

    Returns:
        One :class:`QueueItem` per pull request handled, in order (recovered merges
        first).

    Raises:
        LemmataError: what loading main's own graph raises (then nothing can be judged).
        Nothing for a pull request's own content: any exception while judging one pull
        request (a LemmataError or any other) is that pull request's refusal: it is
        closed, logged with its code (``gate-internal-error`` for anything but a
        LemmataError) and recorded as the item's ``error`` verdict with ``code``; an
        exception after the verdict (publishing, merging, the post-merge job) is logged
        with its code in the item's notes, and a merge already journaled is completed on
        the next pass. The runner goes on with the next one (issue 9, issue 16).

    A pull request whose verdict rests on ``toolchain-missing`` alone waits open: nothing
    is published or closed, a note goes to ``<forge>/lemmata-waiting/<n>.json``, and it is
    judged again only when :func:`toolchain_fingerprint` changes or its head moves, so a
    network without Lean neither closes proofs nor re-gates them every pass (issue 11).

    A ``held`` pull request (step 9, ruling 5) stays open with a note in
    ``<forge>/lemmata-held/<n>.json``; it is judged again only when its head, main's
    :func:`main_fingerprint` (a merged review record moves it) or its forge review changes,
    so a merged review lets it merge on the next pass and nothing re-gates it in between
    (issue 13).

    Implements D-4, D-5, D-25 v3.21, rulings 7 and 8; issue 16 (merging is a journal).
    """
    graphs = MainGraph(forge)
    ctx = _Ctx(toolchain, sandbox, gate_key, key_id, work_dir, graphs, step_hook or _no_hook)
    items = recover(forge, ctx)
    pending = {i.number for i in read_intents(forge)}
    fingerprint: list[list[Any]] | None = None  # computed once a pass, when needed
    for pr in forge.list_open():
        if pr.number in pending or forge.get(pr.number).state != "open":
            continue
        main = forge.main_sha()
        base_graph = graphs.at(main)  # main's own graph: if it cannot load, nothing can run
        try:
            done = _already_on_main(forge, pr, ctx)
        except Exception as exc:  # noqa: BLE001 - logged; tried again on the next pass
            code, detail = _code_of(exc)
            _log.error("merge queue: #%d already on main: %s: %s", pr.number, code, detail)
            items.append(QueueItem(pr.number, "pass", code=code, notes=[f"{code}: {detail}"]))
            continue
        if done is not None:
            items.append(done)
            continue
        try:
            review = reviews(pr) if reviews else None
        except Exception as exc:  # noqa: BLE001 - as a gate run's: that pull request's refusal
            items.append(_refuse_on_error(forge, pr, exc))
            continue
        held = read_held(forge, pr.number)
        if held is not None:
            fp = main_fingerprint(forge, main)
            if (held.get("head"), held.get("main"), held.get("review")) == (
                    pr.head_sha, fp, _review_key(review)):
                items.append(QueueItem(pr.number, "held", code=None, notes=[
                    "held at step 9; main and its reviews unchanged: not re-gated"]))
                continue
            _clear_held(forge, pr.number)  # main moved (a merged review?): judge it again
        waiting = read_waiting(forge, pr.number)
        if waiting is not None:
            if fingerprint is None:
                fingerprint = toolchain_fingerprint(base_graph, toolchain)
            if waiting.get("head") == pr.head_sha and waiting.get("toolchains") == fingerprint:
                items.append(QueueItem(pr.number, "waiting", code="toolchain-missing",
                                       notes=["waits for its pinned toolchain; not re-gated"]))
                continue
            _clear_waiting(forge, pr.number)  # a toolchain came (or the head moved): judge
        try:
            out = run_gate(forge.path, main, pr.head_sha, toolchain=toolchain,
                           sandbox=sandbox, precheck_raw=_precheck_of(pr),
                           submitter=pr.author, gate_key=gate_key, key_id=key_id,
                           runner=runner, review=review,
                           disclosure=A.disclosure_from_body(pr.body),
                           work_dir=work_dir, base_graph=base_graph)
        except Exception as exc:  # noqa: BLE001 - one pull request never stops the queue
            items.append(_refuse_on_error(forge, pr, exc))
            continue
        if fingerprint is None and out.verdict in ("fail", "bounced"):
            fingerprint = toolchain_fingerprint(base_graph, toolchain)
        missing = {tid for tid, ok in fingerprint or () if not ok}
        if only_toolchain_missing(out, _precheck_of(pr), missing):  # waits, never closed
            assert fingerprint is not None
            _write_durably(forge.path / WAITING_DIR, pr.number, {
                "head": pr.head_sha, "since": int(time.time()), "toolchains": fingerprint,
                "code": "toolchain-missing"})
            items.append(QueueItem(pr.number, "waiting", out, code="toolchain-missing",
                                   notes=["waits for its pinned toolchain (issue 11)"]))
            continue
        item = QueueItem(pr.number, out.verdict, out)
        items.append(item)
        ctx.hook("judged")
        try:
            _publish_and_merge(forge, pr, out, item, ctx)
            if (out.verdict == "held" and forge.get(pr.number).state == "open"
                    and not _unpublished(forge, attestation_files(out))):
                _write_durably(forge.path / HELD_DIR, pr.number, {
                    "head": pr.head_sha, "main": main_fingerprint(forge, main),
                    "review": _review_key(review), "since": int(time.time())})
        except Exception as exc:  # noqa: BLE001 - logged with its code; the queue goes on
            code, detail = _code_of(exc)
            _log.error("merge queue: #%d after the gate's %s: %s: %s", pr.number,
                       out.verdict, code, detail)
            item.code = item.code or code
            item.notes.append(f"{code}: {detail}")
            if item.merge_sha is None and out.verdict in ("fail", "bounced"):
                _close_quietly(forge, pr.number, *_refusal(out))  # publishing failed, not it
                clear_intent(forge, pr.number)
    return items


def _code_of(exc: BaseException) -> tuple[str, str]:
    """(catalog code, detail) of an exception: a LemmataError's own, else
    ``gate-internal-error`` with the exception's type and text."""
    if isinstance(exc, LemmataError):
        return exc.code, exc.detail
    return "gate-internal-error", f"{type(exc).__name__}: {exc}"[:500]


def _close_quietly(forge: LocalForge, number: int, code: str | None = None,
                   detail: str | None = None) -> None:
    try:
        forge.close(number, code=code, detail=detail)
    except Exception as exc:  # noqa: BLE001 - closing is best effort; logged
        code, detail = _code_of(exc)
        _log.error("merge queue: #%d could not be closed: %s: %s", number, code, detail)


def _refuse_on_error(forge: LocalForge, pr: PullRequest, exc: BaseException) -> QueueItem:
    """A pull request whose judging raised: refused (closed, like a ``fail``), logged with
    its code (issue 9: the queue survives anything a pull request contains)."""
    code, detail = _code_of(exc)
    _log.error("merge queue: #%d refused: %s: %s", pr.number, code, detail)
    _close_quietly(forge, pr.number, code, detail)
    return QueueItem(pr.number, "error", code=code, notes=[f"{code}: {detail}"])


def _publish_and_merge(forge: LocalForge, pr: PullRequest, out: GateOutcome, item: QueueItem,
                       ctx: _Ctx) -> None:
    """Steps 2-4 of :func:`process_queue` for one judged pull request: journal the
    verdict and its attestation files, then :func:`_resume` (publish, close or merge)."""
    files = attestation_files(out)
    passed = [a for a in out.attestations if a.verdict == "pass"]
    intent = MergeIntent(pr.number, pr.head_sha, out.verdict,
                         {p: b.decode("utf-8") for p, b in files.items()}, forge.main_sha(),
                         None, tuple(attestation_path(a) for a in passed), pr.author,
                         *_refusal(out))
    write_intent(forge, intent)
    ctx.hook("journaled")
    _resume(forge, intent, item, ctx, out.attestations)


def _resume(forge: LocalForge, intent: MergeIntent, item: QueueItem, ctx: _Ctx,
            attestations: Sequence[m.Attestation] | None = None) -> None:
    """Carry a journaled pull request on from where it stands, each step idempotent:
    publish its attestations (ruling 8; skipped when main holds them), close a refusal,
    leave a held one open, or plan the merge (journaled: main before and after) and
    :func:`_complete` it. A pull request that no longer merges cleanly is closed with
    ``merge-conflict``; one whose main moved elsewhere before publishing is judged again.

    Raises:
        LemmataError: what the forge raises; the intent then stays for the next pass.
    """
    if intent.new_main is not None:
        _complete(forge, intent, item, ctx, attestations)
        return
    files = _unpublished(forge, {p: t.encode("utf-8") for p, t in intent.files.items()})
    if files:
        if forge.main_sha() != intent.base:  # main moved under it: judge it again
            clear_intent(forge, intent.number)
            item.notes.append("main moved before publishing: judged again")
            return
        item.published = forge.commit_to_main(
            files, f"gate: {intent.verdict} for #{intent.number} (attestations, ruling 8)")
    ctx.hook("published")
    state = forge.get(intent.number).state
    if intent.verdict != "pass" or state != "open":
        if intent.verdict in ("fail", "bounced") and state == "open":
            forge.close(intent.number, code=intent.refusal,
                        detail=intent.refusal_detail or f"gate verdict {intent.verdict}")
        clear_intent(forge, intent.number)
        return  # held: waits open for a review (ruling 5)
    base = forge.main_sha()
    try:
        new_main = forge.merge_target(intent.number)
    except LemmataError as exc:
        if exc.code != "merge-conflict":
            raise
        _log.error("merge queue: #%d closed: merge-conflict: %s", intent.number, exc.detail)
        forge.close(intent.number, code="merge-conflict",
                    detail=f"{exc.detail}: it passed the gate, but main moved since it "
                    "opened and the two no longer merge; resubmit against current main")
        clear_intent(forge, intent.number)
        item.code = "merge-conflict"
        item.notes.append(f"not merged: merge-conflict: {exc.detail}; closed, resubmit "
                          "on the current main")
        return
    intent = replace(intent, base=base, new_main=new_main)
    write_intent(forge, intent)
    ctx.hook("planned")
    _complete(forge, intent, item, ctx, attestations)


def _refusal(out: GateOutcome) -> tuple[str | None, str | None]:
    """(code, detail) a ``fail``/``bounced`` verdict closes its pull request with: the
    first failing step's catalog code and where (``target/node: step N``), else the first
    unplaced finding's; (None, None) for any other verdict."""
    if out.verdict not in ("fail", "bounced"):
        return None, None
    for r in out.runs:
        step = r.first_failing
        if step is not None and step.code:
            where = f"{r.artifact.target}/{r.artifact.node or '-'}"
            return step.code, f"{where}: gate step {step.step} refused it ({out.verdict})"
    for d in out.unplaced:
        return d.code, f"{d.path or '-'}: {d.message}"[:500]
    return None, None


#: the queue's own names, and those of the journal (network.gate.queue.merge_journal) and the
#: runner's health (network.gate.queue.queue_health), which moved out and stay importable here
__all__ = [
    'HEARTBEAT_FILE',
    'HEARTBEAT_S',
    'HELD_DIR',
    'JOURNAL_DIR',
    'STEPS',
    'WAITING_DIR',
    'MainGraph',
    'MergeIntent',
    'QueueHealth',
    'QueueItem',
    'StepHook',
    'clear_intent',
    'health_for',
    'health_if_running',
    'main_fingerprint',
    'move_losing_racers',
    'only_toolchain_missing',
    'process_queue',
    'read_heartbeat',
    'read_held',
    'read_intents',
    'read_waiting',
    'recover',
    'toolchain_fingerprint',
    'write_heartbeat',
    'write_intent',
]
