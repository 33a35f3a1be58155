"""Judging miniF2F items with the same gate (issue 14, "Kernel-judged evaluation"; seed 004).

A miniF2F statement has no node in the graph, so :class:`MiniF2FVerifier` gives it one,
in a scratch commit that no ref ever names: on top of the graph's commit it adds a
calibration target (``target.yaml``, and the pins of an existing target's
``gate-spec.json``, so the toolchain is the graph's) holding the judged item's node alone,
whose ``Statement.lean`` is the archive's statement bytes and whose META names the
statement's hash and declaration. The candidate is then that node's ``Proof.lean``,
judged by :func:`network.trainer.reward.proof_reward` exactly as a graph item's: the
gate's precheck in-process, with the injected toolchain source and sandbox. 1.0 only
for a gate pass; a refusal is 0.0 (a user axiom is refused at step 2 without Lean); a
missing toolchain is None (nothing judged), never a pass.

The statement text comes from the archive (verified by its SHA-256 against the row's
``statement_sha256``), never from the row's prompt, so a row cannot bring its own
statement. Graph rows are judged by :class:`~network.trainer.evaluate.GraphVerifier`;
:class:`CombinedVerifier` routes each row to the verifier that can place it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2
import yaml

from network.errors import LemmataError
from network.gate.run import ToolchainSource
from network.gate.sandbox.sandbox import SandboxRunner
from network.trainer.dataset import read_minif2f, sha256_text
from network.trainer.evaluate import Verifier
from network.trainer.reward import Reward, proof_reward

SCRATCH_TARGET = "minif2f-scratch"
_AUTHOR = ("lemmata-trainer", "trainer@users.lemmata.invalid")


def scratch_node_id(name: str) -> str:
    """A node id for a miniF2F file name: lower case, ``_`` and ``.`` as ``-``."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "item"


@dataclass
class MiniF2FVerifier:
    """Judges ``minif2f:<Valid|Test>/<name>`` rows as the Proof.lean of a scratch node.

    Args:
        repo: the graph repository (the scratch commit's objects are written there; no
            ref moves).
        commit: the graph commit the scratch target is added on.
        archives: miniF2F archives (``../shared/datasets/``) the statements are read from.
        toolchain, sandbox: as for :class:`~network.trainer.evaluate.GraphVerifier`.

    Raises:
        LemmataError: ``trainer-source-malformed`` (an archive);
            ``trainer-config-invalid`` (the graph has no target whose gate-spec to pin).
    """

    repo: Path
    commit: str
    archives: Sequence[Path]
    toolchain: ToolchainSource
    sandbox: SandboxRunner
    _statements: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _bases: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for archive in self.archives:
            items, _entry = read_minif2f(Path(archive))
            for it in items:
                self._statements[it.id] = str(it.bundle["files"]["Statement"]["text"])

    def can_judge(self, row: Mapping[str, Any]) -> bool:
        """True for a miniF2F row whose statement the archives hold, bytes and all."""
        text = self._statements.get(str(row.get("item", "")))
        return text is not None and row.get("statement_sha256") in (None, sha256_text(text))

    def _scratch_base(self, item: str) -> str:
        """The scratch commit of one item: the graph plus the scratch target holding that
        item's node alone (cached per item)."""
        if item in self._bases:
            return self._bases[item]
        r = pygit2.Repository(str(self.repo))
        head = r.revparse_single(self.commit).peel(pygit2.Commit)
        specs = sorted(f"targets/{name}/gate-spec.json" for name in _target_names(head.tree)
                       if f"targets/{name}/gate-spec.json" in head.tree)
        if not specs:
            raise LemmataError("trainer-config-invalid",
                               f"{self.repo}: no target gate-spec to pin the scratch target to")
        spec_bytes = r[head.tree[specs[0]].id].peel(pygit2.Blob).data
        root = f"targets/{SCRATCH_TARGET}"
        files: dict[str, bytes] = {
            f"{root}/target.yaml": yaml.safe_dump({
                "schema": "target/v1", "id": SCRATCH_TARGET,
                "title": "miniF2F statements judged by the trainer",
                "class": "calibration", "calibration": True,
                "informal_statement": "Scratch nodes for judging miniF2F candidates.",
                "listed": "2026-01-01", "bountied_nodes": []}, sort_keys=False).encode(),
            f"{root}/gate-spec.json": spec_bytes}
        for item_, text in [(item, self._statements[item])]:
            nid = scratch_node_id(item_.split("/", 1)[1])
            stmt = text.encode("utf-8")
            files[f"{root}/nodes/{nid}/Statement.lean"] = stmt
            files[f"{root}/nodes/{nid}/META.yaml"] = yaml.safe_dump({
                "schema": "meta/v1", "id": nid, "target": SCRATCH_TARGET,
                "declaration": _declaration(text) or item_.split("/", 1)[1],
                "statement_hash": sha256_text(text), "origin": "authored"},
                sort_keys=False).encode()
        index = pygit2.Index()
        index.read_tree(head.tree)
        for path, data in sorted(files.items()):
            index.add(pygit2.IndexEntry(path, r.create_blob(data), pygit2.enums.FileMode.BLOB))
        tree = index.write_tree(r)
        sig = pygit2.Signature(*_AUTHOR, head.committer.time, 0)
        self._bases[item] = str(r.create_commit(None, sig, sig,
                                                "trainer: miniF2F scratch target", tree,
                                                [head.id]))
        return self._bases[item]

    def __call__(self, row: Mapping[str, Any], text: str) -> Reward:
        """The gate's verdict on ``text`` as the scratch node's Proof.lean."""
        if not self.can_judge(row):
            return Reward(None, "toolchain-missing", None, "not-judgeable", ())
        nid = scratch_node_id(str(row["item"]).split("/", 1)[1])
        try:
            return proof_reward(self.repo, self._scratch_base(str(row["item"])),
                                target=SCRATCH_TARGET,
                                node=nid, text=text, toolchain=self.toolchain,
                                sandbox=self.sandbox)
        except LemmataError as exc:
            if exc.code == "trainer-config-invalid":
                raise
            return Reward(0.0, "fail", None, exc.code, ())


def _declaration(text: str) -> str | None:
    m = re.search(r"^\s*theorem\s+([^\s:({\[]+)", text, re.MULTILINE)
    return m.group(1) if m else None


def _target_names(tree: pygit2.Tree) -> list[str]:
    if "targets" not in tree:
        return []
    sub = tree["targets"].peel(pygit2.Tree)
    return sorted(e.name for e in sub if e.type_str == "tree" and e.name is not None)


@dataclass(frozen=True)
class CombinedVerifier:
    """Routes a row to the first verifier that can judge it (graph rows, miniF2F rows)."""

    verifiers: tuple[Verifier, ...]

    def can_judge(self, row: Mapping[str, Any]) -> bool:
        """Whether any verifier can judge ``row``."""
        return any(v.can_judge(row) for v in self.verifiers)

    def __call__(self, row: Mapping[str, Any], text: str) -> Reward:
        """The first able verifier's verdict (None reward when none can judge)."""
        for v in self.verifiers:
            if v.can_judge(row):
                return v(row, text)
        return Reward(None, "toolchain-missing", None, "not-judgeable", ())
