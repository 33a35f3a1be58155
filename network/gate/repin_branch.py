"""The re-pin itself: a target's new ``gate-spec.json`` and the one commit, on a new branch
``repin/<target>-<tag>`` of the graph's repository, that carries it (issue 37 re-pin; D-4
step 1: the gate resolves its toolchain from gate-spec.json alone; D-28 gate-spec; D-9
Detail: the pin's move re-runs the screens, :mod:`network.gate.repin`).

Only ``lean_toolchain``, ``mathlib.rev`` and the named packages' ``rev`` change; every other
byte of the file keeps the layout the graph wrote it in (:func:`repinned_bytes`). The commit
is written with pygit2 from the base commit's tree: the work tree, the index and the
checked-out branch are never touched, and the branch is created last, in one step, so a
refusal leaves no ref behind (:func:`write_branch`). ``lemmata target repin``
(:mod:`network.cli_target`) runs it and opens the pull request.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
from pydantic import ValidationError

from network import ids
from network.errors import LemmataError, define
from network.gate.lean.kernels import SoundnessRecord, known_unsound, pin_tag
from network.gate.repin import DriftReport
from network.record import models as m
from network.record.read.loader import parse_document, parse_record

define("repin-pin-invalid", None, 422,
       "A re-pin's new pin is refused: the toolchain is not `leanprover/lean4:vX.Y.Z` "
       "(optionally `-rcN`) or `leanprover/lean4:nightly-YYYY-MM-DD`, a revision is not 40 "
       "lowercase hex digits, a package is not NAME=REV for a package the target pins, or "
       "`--mathlib` names a revision for a target that pins no Mathlib.",
       "Name the pin exactly as gate-spec.json holds one; nothing was written.")
define("repin-no-op", None, 422,
       "The re-pin changes nothing: the target already pins exactly this toolchain and "
       "these revisions.",
       "Name a different toolchain or revision; nothing was written.")
define("repin-known-unsound", None, 422,
       "The new pin is itself known unsound: with the kernels step 4 runs on it, some "
       "published kernel bug is caught by none of them (network/gate/soundness/record.json), "
       "so no verdict on it could be trusted either.",
       "Re-pin to a toolchain the soundness record lists as fixed for every bug the detail "
       "names; nothing was written.")
define("repin-branch-exists", None, 409,
       "The branch this re-pin would write already exists in the graph's repository.",
       "Open (or close) the pull request that branch carries, or delete the branch, then run "
       "the re-pin again; nothing was written.")

#: a pin as gate-spec/v1 holds one, matched whole (no trailing newline, no spaces)
TOOLCHAIN_RE = re.compile(
    r"leanprover/lean4:(?:v(?:0|[1-9][0-9]{0,3})\.(?:0|[1-9][0-9]{0,3})\.(?:0|[1-9][0-9]{0,3})"
    r"(?:-rc[1-9][0-9]{0,3})?|nightly-[0-9]{4}-[0-9]{2}-[0-9]{2})", re.ASCII)
REV_RE = re.compile(r"[0-9a-f]{40}")
PACKAGE_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: who writes the re-pin commit (author and committer): an operator's act, not a person's
REPIN_IDENTITY = ("Lemmata re-pin", "repin@lemmata.invalid")


@dataclass(frozen=True)
class GraphRepo:
    """A graph's git repository and the graph's folder inside it.

    Attributes:
        repo: the repository (bare, as a LocalForge's, or with a work tree).
        subdir: the graph's folder relative to the repository's root, ``""`` for the
            root (a bare repository, or a graph that is its own repository).
    """

    repo: pygit2.Repository
    subdir: str = ""

    def git_path(self, graph_path: str) -> str:
        """``graph_path`` (``targets/t/gate-spec.json``) as a path of the repository."""
        return f"{self.subdir}/{graph_path}" if self.subdir else graph_path

    def resolve(self, rev: str) -> str:
        """``rev`` (a commit id, ``HEAD``, ``main``) as a commit id, 40 hex.

        Raises:
            LemmataError: ``git-error`` when it names no commit.
        """
        try:
            return str(self.repo.revparse_single(rev).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
            raise LemmataError("git-error", f"{rev!r} names no commit: {exc}") from exc


def open_graph_repo(path: str | Path) -> GraphRepo:
    """The repository holding the graph at ``path`` (the graph's folder, or a bare
    repository), as :func:`network.record.read.source.open_source` finds it.

    Raises:
        LemmataError: ``git-error`` when ``path`` is in no git repository.
    """
    found = pygit2.discover_repository(str(path))
    if found is None:
        raise LemmataError("git-error", f"{path} is not inside a git repository")
    repo = pygit2.Repository(found)
    if repo.workdir is None:
        return GraphRepo(repo, "")
    try:
        rel = Path(path).resolve().relative_to(Path(repo.workdir).resolve())
    except ValueError as exc:
        raise LemmataError("git-error", f"{path} is not inside {repo.workdir}") from exc
    return GraphRepo(repo, "" if str(rel) == "." else rel.as_posix())


def check_pins(toolchain: str, mathlib: str | None,
               packages: Mapping[str, str]) -> None:
    """Refuse a new pin that gate-spec/v1 could not hold, before anything is read.

    Raises:
        LemmataError: ``repin-pin-invalid`` naming the value (shown with ``repr``, so a
            newline or a control character is visible).
    """
    if not isinstance(toolchain, str) or not TOOLCHAIN_RE.fullmatch(toolchain):
        raise LemmataError("repin-pin-invalid", f"toolchain {toolchain!r}")
    if mathlib is not None and (not isinstance(mathlib, str) or not REV_RE.fullmatch(mathlib)):
        raise LemmataError("repin-pin-invalid", f"mathlib revision {mathlib!r}")
    _check_packages(packages)


def _check_packages(packages: Mapping[str, str]) -> None:
    for name, rev in packages.items():
        if not PACKAGE_RE.fullmatch(name) or not REV_RE.fullmatch(rev):
            raise LemmataError("repin-pin-invalid", f"package {name!r}={rev!r}")


def parse_packages(items: Sequence[str]) -> dict[str, str]:
    """``["formal_conjectures=<rev>", …]`` → ``{name: rev}``; a name given twice, or an
    item without ``=``, is refused.

    Raises:
        LemmataError: ``repin-pin-invalid``.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, rev = item.partition("=")
        if not sep or name in out:
            raise LemmataError("repin-pin-invalid", f"package {item!r} (NAME=REV, once each)")
        out[name] = rev
    _check_packages(out)
    return out


def _dump_like(old: bytes, doc: Mapping[str, Any]) -> bytes:
    """``doc`` as JSON in the layout ``old`` was written in: of two-space indent with or
    without ASCII escapes, with or without a final newline, the one that writes ``old``'s
    own document back to exactly ``old``; the graph's layout (two-space indent, UTF-8, final
    newline) when none does."""
    before = json.loads(old)
    for ascii_only in (False, True):
        for end in ("\n", ""):
            if (json.dumps(before, indent=2, ensure_ascii=ascii_only) + end).encode() == old:
                return (json.dumps(doc, indent=2, ensure_ascii=ascii_only) + end).encode()
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()


def repinned_bytes(path: str, old: bytes, toolchain: str, mathlib: str | None = None,
                   packages: Mapping[str, str] | None = None
                   ) -> tuple[m.GateSpec, m.GateSpec, bytes]:
    """The gate-spec ``old`` (the bytes at ``path``) re-pinned: ``lean_toolchain`` set to
    ``toolchain``, ``mathlib.rev`` to ``mathlib`` and each named package's ``rev`` when
    given; nothing else changes, and the layout is ``old``'s (:func:`_dump_like`).

    Returns:
        ``(old spec, new spec, new bytes)``.

    Raises:
        LemmataError: ``repin-pin-invalid`` (a value gate-spec/v1 refuses; ``--mathlib``
            for a target without Mathlib; a package the target does not pin);
            ``repin-no-op`` when nothing would change; the record codes of the one reader
            (``malformed-json``, ``invalid-record``) for an unreadable old file.
    """
    packages = dict(packages or {})
    check_pins(toolchain, mathlib, packages)
    old_spec, problems = parse_record(path, old, m.GateSpec)
    if old_spec is None:
        raise LemmataError(problems[0].code if problems else "invalid-record",
                           "; ".join(map(str, problems)), path=path)
    doc = parse_document(path, old)
    doc["lean_toolchain"] = toolchain
    if mathlib is not None:
        if not isinstance(doc.get("mathlib"), dict):
            raise LemmataError("repin-pin-invalid", "the target pins no Mathlib", path=path)
        doc["mathlib"] = {**doc["mathlib"], "rev": mathlib}
    listed = [p for p in doc.get("packages") or [] if isinstance(p, dict)]
    for name, rev in packages.items():
        hits = [i for i, p in enumerate(listed) if p.get("name") == name]
        if not hits:
            raise LemmataError("repin-pin-invalid", f"the target pins no package {name!r}",
                               path=path)
        listed[hits[0]] = {**listed[hits[0]], "rev": rev}
    if packages:
        doc["packages"] = listed
    try:
        new_spec = m.GateSpec.model_validate(doc)
    except ValidationError as exc:
        raise LemmataError("repin-pin-invalid", str(exc).splitlines()[0], path=path) from exc
    if new_spec == old_spec:
        raise LemmataError("repin-no-op", f"{path} already pins {toolchain}"
                           + (f" and Mathlib {mathlib}" if mathlib else ""), path=path)
    return old_spec, new_spec, _dump_like(old, doc)


@dataclass(frozen=True)
class RepinPlan:
    """What a re-pin writes, before it writes anything.

    Attributes:
        target: the target id.
        base: the commit the branch starts from (40 hex).
        path: the graph path written, ``targets/<target>/gate-spec.json``.
        old_spec, new_spec: the gate-spec before and after.
        old_bytes, new_bytes: the file's bytes before and after.
        branch: the ref, ``refs/heads/repin/<target>-<tag>``.
    """

    target: str
    base: str
    path: str
    old_spec: m.GateSpec
    new_spec: m.GateSpec
    old_bytes: bytes
    new_bytes: bytes
    branch: str

    @property
    def branch_name(self) -> str:
        """The branch without ``refs/heads/``."""
        return self.branch.removeprefix("refs/heads/")

    @property
    def title(self) -> str:
        """The commit's and the pull request's title."""
        return f"Re-pin {self.target} to {self.new_spec.lean_toolchain}"


def branch_for(target: str, toolchain: str) -> str:
    """``refs/heads/repin/<target>-<tag>`` (``repin/erdos-11-v4.34.1``)."""
    ref = f"refs/heads/repin/{ids.check_target_id(target)}-{pin_tag(toolchain)}"
    if not pygit2.reference_is_valid_name(ref):  # the inputs are checked: a gate bug
        raise ValueError(f"not a branch name: {ref!r}")
    return ref


def plan_repin(graph: GraphRepo, base: str, target: str, toolchain: str,
               mathlib: str | None = None, packages: Mapping[str, str] | None = None, *,
               record: SoundnessRecord | None = None) -> RepinPlan:
    """Everything a re-pin of ``target`` to ``toolchain`` (and ``mathlib``, ``packages``)
    will write, checked before anything is written (issue 37 re-pin).

    Args:
        graph: the graph's repository.
        base: the commit to start from (40 hex).
        target: the target id.
        toolchain, mathlib, packages: the new pins.
        record: the soundness record to judge the new pin by (the shipped one when None).

    Raises:
        LemmataError: ``bad-target-id`` (``../x``, ``a/b``); ``repin-pin-invalid``;
            ``repin-target-unknown`` when ``base`` holds no such target;
            ``repin-no-op``; ``repin-known-unsound`` naming the bugs;
            ``repin-branch-exists``.
    """
    ids.check_target_id(target)
    check_pins(toolchain, mathlib, dict(packages or {}))
    path = f"targets/{target}/gate-spec.json"
    tree = graph.repo[base].peel(pygit2.Commit).tree
    try:
        entry = tree[graph.git_path(path)]
    except KeyError as exc:
        raise LemmataError("repin-target-unknown", f"{base[:12]} holds no {path}") from exc
    blob = graph.repo[entry.id]
    if not isinstance(blob, pygit2.Blob) or entry.filemode != pygit2.enums.FileMode.BLOB:
        raise LemmataError("repin-target-unknown", f"{path} is not a plain file at {base[:12]}")
    old = bytes(blob.data)
    old_spec, new_spec, new = repinned_bytes(path, old, toolchain, mathlib, packages)
    bugs = known_unsound(new_spec, record)
    if bugs:
        raise LemmataError("repin-known-unsound",
                           f"{toolchain} is known unsound: " + ", ".join(b.id for b in bugs)
                           + " (network/gate/soundness/record.json cites each)")
    ref = branch_for(target, toolchain)
    if ref in graph.repo.references:
        raise LemmataError("repin-branch-exists", f"{ref.removeprefix('refs/heads/')} exists")
    return RepinPlan(target, base, path, old_spec, new_spec, old, new, ref)


def write_branch(graph: GraphRepo, plan: RepinPlan, *, when: int | None = None) -> str:
    """Write the re-pin as one commit on ``plan.base`` and create ``plan.branch`` at it.

    The tree is the base commit's with the one blob replaced (mode kept), built in an
    in-memory index: the repository's work tree, index, HEAD and other refs are not
    touched. The ref is created last and only if absent, so a refusal leaves no ref (an
    unreferenced commit object may remain; ``git gc`` drops it).

    Returns:
        The commit id, 40 hex.

    Raises:
        LemmataError: ``repin-branch-exists`` when the branch appeared meanwhile.
    """
    repo = graph.repo
    base = repo[plan.base].peel(pygit2.Commit)
    index = pygit2.Index()
    index.read_tree(base.tree)
    git_path = graph.git_path(plan.path)
    mode = index[git_path].mode
    index.add(pygit2.IndexEntry(git_path, repo.create_blob(plan.new_bytes), mode))
    tree = index.write_tree(repo)
    sig = pygit2.Signature(*REPIN_IDENTITY, int(time.time()) if when is None else when, 0)
    message = (f"{plan.title}\n\n{plan.path}: lean_toolchain "
               f"{plan.old_spec.lean_toolchain} -> {plan.new_spec.lean_toolchain}"
               + (f", mathlib {plan.new_spec.mathlib.rev}" if plan.new_spec.mathlib
                  and plan.old_spec.mathlib != plan.new_spec.mathlib else "")
               + " (issue 37 re-pin).\n")
    oid = repo.create_commit(None, sig, sig, message, tree, [base.id])
    try:
        repo.references.create(plan.branch, oid, force=False)
    except (pygit2.AlreadyExistsError, ValueError) as exc:
        raise LemmataError("repin-branch-exists", f"{plan.branch_name} exists") from exc
    return str(oid)


def drop_branch(graph: GraphRepo, plan: RepinPlan, head: str) -> None:
    """Delete ``plan.branch`` if it still points at ``head`` (undo :func:`write_branch`
    when the pull request could not be opened)."""
    ref = graph.repo.references.get(plan.branch)
    if ref is not None and str(ref.target) == head:
        ref.delete()


def pr_body(plan: RepinPlan, report: DriftReport, soundness: Mapping[str, Any]) -> str:
    """The pull request's body in Markdown: what changes, the new pin's soundness
    (:func:`network.gate.lean.kernels.pin_soundness`'s summary), and the drift report."""
    old, new = plan.old_spec, plan.new_spec
    lines = [f"# {plan.title}", "",
             f"Changes `{plan.path}` only: `lean_toolchain` `{old.lean_toolchain}` → "
             f"`{new.lean_toolchain}`"
             + (f", `mathlib.rev` `{old.mathlib.rev if old.mathlib else None}` → "
                f"`{new.mathlib.rev}`" if new.mathlib and old.mathlib != new.mathlib else "")
             + "".join(f", `{p.name}` → `{p.rev}`" for p in new.packages
                       if p not in old.packages) + ".", "",
             "## The new pin's soundness", ""]
    kernels = ", ".join(f"{k['name']} {k['version']}" for k in soundness.get("kernels", []))
    if soundness.get("known_unsound"):
        bugs = ", ".join(str(b.get("id")) for b in soundness.get("bugs", []))
        lines.append(f"**Known unsound** (`{soundness.get('code')}`): {bugs}.")
    else:
        lines.append(f"No published kernel bug fools every kernel step 4 runs on "
                     f"`{soundness.get('pinned')}` ({kernels}); "
                     "network/gate/soundness/record.json lists what was checked.")
    lines += ["", report.to_markdown()]
    return "\n".join(lines)
