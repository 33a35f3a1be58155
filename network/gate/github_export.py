"""The unprivileged half of the gate on GitHub: build the contributor's Lean and export
the built data, never a verdict (DESIGN.md ruling 14; D-4 v3.27).

``lemmata gate export`` runs in the ``pull_request`` job of ``graph/.github/workflows/
gate.yml``: read-only permissions, no secrets. For every artifact the gate builds it
writes the scratch workspace of :func:`network.gate.run.plan_workspace`'s sources, builds
it in the sandbox exactly as step 3 does (``Toolchain.build(..., export=contributed)``),
and copies out the compiled files (:data:`~network.gate.workspace.OLEAN_EXTS`) of the
plan's *contributed* modules, the ones whose bytes come from the pull request.
Everything it writes is untrusted data; the trusted ``workflow_run`` job
(:mod:`network.gate.github_trusted`) carries it into its own check workspace, where
kernel replay and the checks judge it, and never builds it.

The export folder (the artifact)::

    export.json          {"format": EXPORT_FORMAT, "pull_request": n, "head_sha": ..,
                          "base_sha": .., "modules": {module: {"source_sha256": ..,
                          "source_path": .., "files": {"olean": sha256, ...}}},
                          "builds": [{"target", "node", "kind", "ok", "code", "rc"}]}
    blobs/<sha256>       each compiled file, named by the SHA-256 of its bytes
    build.log            the builds' log tails, for people

Blobs are content-addressed so that no path written by the unprivileged job is ever used
as a path by the trusted one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from network import ids
from network.errors import LemmataError
from network.gate.diff import diff_commits
from network.gate.sandbox import SandboxRunner
from network.gate.step2 import run_steps_1_2
from network.gate.workspace import OleanArtifact, Workspace, write_workspace
from network.record.loader import Graph, load_graph

EXPORT_FORMAT = "lemmata-gate-export/1"
EXPORT_MANIFEST = "export.json"
BLOB_DIR = "blobs"
BUILD_LOG = "build.log"


def base_module_hashes(base: Graph) -> dict[str, str]:
    """Module → SHA-256 of the bytes the graph at base holds for it: every node's Lean
    files (Statement, Witness, Proof, Relation, ...) and every target's defs.

    The trusted job builds a module only when its bytes are these (D-4 v3.27, ruling 14).
    """
    out: dict[str, str] = {}
    for tid, t in base.targets.items():
        for stem, lf in t.defs.items():
            out[ids.defs_module_name(tid, stem)] = lf.sha256
        for nid, node in t.nodes.items():
            for stem, lf in node.files.items():
                try:
                    out[ids.module_name(tid, nid, stem)] = lf.sha256
                except LemmataError:  # a name ids refuses is never a base module
                    pass
    return out


@dataclass
class ExportReport:
    """What ``lemmata gate export`` wrote.

    Attributes:
        out: the export folder.
        modules: module → {source_path, source_sha256, files: extension → sha256}.
        builds: one row per built artifact (data for people, never a verdict).
    """

    out: Path
    modules: dict[str, dict[str, Any]] = field(default_factory=dict)
    builds: list[dict[str, Any]] = field(default_factory=list)


def export_build(repo: str | Path, base: str, head: str, *, toolchain: Any,
                 sandbox: SandboxRunner, out: Path, pull_request: int,
                 work_dir: Path | None = None) -> ExportReport:
    """Build every building artifact of ``base..head`` in the sandbox and export the
    contributed modules' compiled files into ``out`` (see the module docstring).

    Args:
        repo: the graph repository.
        base, head: the pull request's base and head commits (revisions or 40 hex).
        toolchain: ``spec -> Toolchain`` (product code passes ``detect_toolchain``); with
            no toolchain every build answers ``toolchain-missing`` and nothing is
            exported, which the trusted job then refuses.
        sandbox: the step-3 sandbox.
        out: the export folder (created).
        pull_request: the pull request's number as this job saw it (a claim the trusted
            job compares with its event; never used by it).
        work_dir: where workspaces are written (a temporary folder when None).

    Returns:
        the :class:`ExportReport`.

    Raises:
        LemmataError: ``git-error`` when a commit does not resolve; the loader's codes.
    """
    import pygit2

    from network.gate.run import plan_workspace

    r = pygit2.Repository(str(repo))
    base_sha = str(r.revparse_single(base).peel(pygit2.Commit).id)
    head_sha = str(r.revparse_single(head).peel(pygit2.Commit).id)
    mb = r.merge_base(pygit2.Oid(hex=base_sha), pygit2.Oid(hex=head_sha))
    diff = diff_commits(repo, str(mb) if mb is not None else base_sha, head_sha)
    g = load_graph(repo, commit=base_sha)
    out.mkdir(parents=True, exist_ok=True)
    (out / BLOB_DIR).mkdir(exist_ok=True)
    report = ExportReport(out)
    logs: list[str] = []
    own_tmp = work_dir is None
    wd = Path(tempfile.mkdtemp(prefix="lemmata-export-")) if work_dir is None else work_dir
    try:
        s12 = run_steps_1_2(diff, g, None)
        for i, art in enumerate(s12.artifacts):
            t = g.targets.get(art.target)
            if not art.plan.builds or t is None or art.node is None:
                continue
            row: dict[str, Any] = {"target": art.target, "node": art.node,
                                   "kind": art.kind.value}
            report.builds.append(row)
            try:
                head_bytes = {c.path: diff.new_bytes(c) for c in diff.changes
                              if c.path in art.paths and c.new_id is not None}
                plan = plan_workspace(g, head_bytes, art)
                tc = toolchain(t.gate_spec)
                pins_root = getattr(tc, "pins_root", None)
                ws = write_workspace(wd / f"a{i}-scratch", t.gate_spec, plan.sources,
                                     pins_root=pins_root if isinstance(pins_root, Path)
                                     else None, role="scratch")
            except (LemmataError, KeyError, ValueError) as exc:  # data, not a verdict
                row.update(ok=False, code=getattr(exc, "code", "export-failed"), rc=-1)
                logs.append(f"## {art.target}/{art.node}: {exc}")
                continue
            built = tc.build(ws, plan.modules, sandbox, t.gate_spec.caps,
                             export=plan.contributed)
            row.update(ok=built.ok, code=built.code, rc=built.rc)
            logs.append(f"## {art.target}/{art.node} ({art.kind.value}): rc {built.rc}\n"
                        f"{built.log}")
            for olean in built.artifacts if built.ok else ():
                _write_artifact(ws, olean, out, report)
    finally:
        if own_tmp:
            shutil.rmtree(wd, ignore_errors=True)
    manifest = {"format": EXPORT_FORMAT, "pull_request": int(pull_request),
                "head_sha": head_sha, "base_sha": base_sha, "modules": report.modules,
                "builds": report.builds}
    (out / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                                       "utf-8")
    (out / BUILD_LOG).write_text("\n".join(logs) + "\n", "utf-8")
    return report


def _write_artifact(ws: Workspace, olean: OleanArtifact, out: Path,
                    report: ExportReport) -> None:
    """One module's compiled files into ``out/blobs`` (content-addressed) and the report."""
    files: dict[str, str] = {}
    for ext, data in olean.files:
        digest = hashlib.sha256(data).hexdigest()
        (out / BLOB_DIR / digest).write_bytes(data)
        files[ext] = digest
    report.modules[olean.module] = {"source_path": str(olean.source_path),
                                    "source_sha256": ws.source(olean.module).sha256,
                                    "files": files}
