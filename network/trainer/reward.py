"""The reward: the gate's verdict and nothing weaker (issue 14; seed 004, "a reward computed
by a program").

:func:`gate_reward` runs the gate's precheck path exactly as the service's precheck job
does (:func:`network.api.submit.precheck.run_job`): the candidate's files are committed on top of
the base commit (objects only, no ref moves), then :func:`network.gate.run.run_gate` runs in
``mode="precheck"`` with an injected :class:`~network.gate.lean.toolchain.Toolchain` source and
sandbox. The reward is 1.0 only when the gate passes the candidate's artifact; any refusal
is 0.0 (``sorry``, a user axiom, ``native_decide`` without a signed waiver, an echoed
``answer(…)``, a statement edit: each is a gate code); when the only finding is
``toolchain-missing`` nothing was judged and the reward is None, never 1.0 (DESIGN.md
"Lean": without a toolchain the product answers toolchain-missing, never a pass). A
judge model never scores anything.

:func:`proof_reward` builds a proof's (or alternate's, partial's…) graph paths from its
Lean text with the service's own :func:`network.api.submit.precheck.build_bundle`, so a policy's
candidate is judged at the paths a submission would take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pygit2

from network.errors import LemmataError
from network.gate.run import ToolchainSource, run_gate
from network.gate.sandbox.sandbox import SandboxRunner
from network.record.read.loader import load_graph
from network.record.read.source import check_graph_path
from network.trainer.prompts import StepDiagnostic, diagnostics_of

#: the author of the throwaway commits candidates are judged on
_AUTHOR = ("lemmata-trainer", "trainer@users.lemmata.invalid")


@dataclass(frozen=True)
class Reward:
    """One candidate's reward with what the gate found.

    Attributes:
        reward: 1.0 pass, 0.0 refused, None not judged (``toolchain-missing``).
        verdict: ``pass``, ``fail`` or ``toolchain-missing``.
        first_failing_step, code: the first failing step and its code (None on a pass).
        diagnostics: the structured findings (step, code, line; no gate message), what a
            repair prompt shows (:func:`network.trainer.prompts.render`).
    """

    reward: float | None
    verdict: str
    first_failing_step: int | None
    code: str | None
    diagnostics: tuple[StepDiagnostic, ...]


def _commit(repo: pygit2.Repository, base: str, files: Mapping[str, str]) -> str:
    for path in files:
        why = check_graph_path(path)
        if why:
            raise LemmataError("hostile-path", why, path=path)
    index = pygit2.Index()
    index.read_tree(repo[base].peel(pygit2.Commit).tree)
    for path, text in sorted(files.items()):
        blob = repo.create_blob(text.encode("utf-8"))
        index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode.BLOB))
    tree = index.write_tree(repo)
    # the commit's time is the base's, so a candidate's bytes alone decide its verdict
    when = repo[base].peel(pygit2.Commit).committer.time
    sig = pygit2.Signature(*_AUTHOR, when, 0)
    return str(repo.create_commit(None, sig, sig, "trainer candidate", tree,
                                  [pygit2.Oid(hex=base)]))


def gate_reward(repo: str | Path, base: str, files: Mapping[str, str], *, target: str,
                node: str, toolchain: ToolchainSource, sandbox: SandboxRunner,
                submitter: str | None = None) -> Reward:
    """The gate's verdict on a candidate, as a reward.

    Args:
        repo: the graph repository.
        base: the commit (or revision) the candidate is judged against.
        files: graph path → Lean text (or record text) the candidate adds or changes.
        target, node: the node the candidate's artifact is for; the verdict read is that
            artifact's (a candidate touching several artifacts passes only if all pass).
        toolchain: a Toolchain or ``spec -> Toolchain`` (product code:
            :func:`network.gate.lean.detect.detect_toolchain`; tests: the recorded stand-in).
        sandbox: the sandbox every Lean call runs in.
        submitter: the pseudonym the artifact is filed under (attempt paths name it).

    Raises:
        LemmataError: ``hostile-path``; ``git-error``; what :func:`run_gate` raises
            (``submitter-invalid``, ``not-a-graph``, ``validation-failed``).
    """
    r = pygit2.Repository(str(repo))
    try:
        base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"{base}: {exc}") from exc
    head = _commit(r, base_sha, files)
    out = run_gate(repo, base_sha, head, toolchain=toolchain, sandbox=sandbox,
                   mode="precheck", submitter=submitter,
                   base_graph=load_graph(repo, commit=base_sha))
    runs = [x for x in out.runs if x.artifact.target == target
            and (x.artifact.node or "root") == node] or list(out.runs)
    run = runs[0] if runs else None
    diags = diagnostics_of(run.steps) if run is not None else ()
    if run is not None and run.verdict == "pass" and out.verdict == "pass" \
            and all(x.verdict == "pass" for x in out.runs):
        return Reward(1.0, "pass", None, None, ())
    if run is None:  # nothing the gate could place: nothing passes
        return Reward(0.0, "fail", None, "bundle-invalid", ())
    first = run.first_failing
    codes = {d.code for d in diags} | ({first.code} if first is not None and first.code
                                       else set())
    if codes == {"toolchain-missing"}:  # nothing was judged: no reward, never 1.0
        return Reward(None, "toolchain-missing", first.step if first else None,
                      "toolchain-missing", diags)
    return Reward(0.0, "fail", first.step if first else None,
                  (first.code if first is not None and first.code else
                   (diags[0].code if diags else "precheck-failed")), diags)


def proof_reward(repo: str | Path, base: str, *, target: str, node: str, text: str,
                 toolchain: ToolchainSource, sandbox: SandboxRunner,
                 artifact_type: str = "proof", submitter: str | None = None,
                 now: int = 0, extra: Mapping[str, str] | None = None) -> Reward:
    """:func:`gate_reward` for one artifact given as Lean text, at the paths
    :func:`network.api.submit.precheck.build_bundle` gives it (``Proof.lean`` for a proof,
    ``attempts/<ts>-<submitter>-<type>.lean`` for an alternate or partial).

    Raises:
        LemmataError: ``build_bundle``'s codes (``artifact-type-unsupported``,
            ``node-not-found``, ``bundle-invalid``...) and :func:`gate_reward`'s.
    """
    from network.api.submit.precheck import build_bundle

    r = pygit2.Repository(str(repo))
    base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
    graph = load_graph(repo, commit=base_sha)
    bundle = build_bundle(graph, target=target, node=node, artifact_type=artifact_type,
                          text=text, files=dict(extra or {}), pseudonym=submitter, now=now)
    return gate_reward(repo, base_sha, bundle.files, target=target, node=node,
                       toolchain=toolchain, sandbox=sandbox, submitter=submitter)
