"""The unprivileged half of the gate on GitHub: build the contributor's Lean and export
the built data, never a verdict (DESIGN.md ruling 14; D-4 v3.27).

``lemmata gate export`` runs in the ``pull_request`` job of ``graph/.github/workflows/
gate.yml``: read-only permissions, no secrets. It runs the gate's own steps
(:func:`network.gate.run.run_gate`, precheck mode) with the real toolchain wrapped in
:class:`ExportingToolchain`, which keeps the compiled files
(:data:`~network.gate.sandbox.workspace.OLEAN_EXTS`) of every module a scratch build exports:
the contributed modules, whose bytes come from the pull request, at step 3 and wherever
else the gate builds in two domains (a route's carried witnesses at step 7). The run's
verdict is thrown away. Everything written is untrusted data: the trusted
``workflow_run`` job (:mod:`network.gate.github.github_trusted`) carries it into its own check
workspace, where kernel replay and the checks judge it, and never builds it.

The export folder (the artifact)::

    export.json          {"format": EXPORT_FORMAT, "pull_request": n, "head_sha": ..,
                          "base_sha": .., "modules": {module: {"source_sha256": ..,
                          "source_path": .., "files": {"olean": sha256, ...}}},
                          "builds": [{"modules", "ok", "code", "rc"}]}
    blobs/<sha256>       each compiled file, named by the SHA-256 of its bytes
    build.log            the builds' log tails, for people

Blobs are content-addressed so that no path written by the unprivileged job is ever used
as a path by the trusted one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from network import ids
from network.errors import LemmataError
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import OleanArtifact, Workspace
from network.record.read.loader import Graph

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


def submitter_of(login: str, head_message: str, graph: Graph,
                 service_logins: Sequence[str] = ()) -> str | None:
    """The pseudonym the unprivileged export job builds for (ruling 9, ruling 14): a hint
    for its steps, never a verdict; the trusted job decides from signed metadata
    (:func:`network.forge.submitter.submitter_of`).

    For a pull request the service opened (``login`` is one of ``service_logins``) it is
    the single ``Signed-off-by`` name of the head commit, which the service writes as the
    submitter's pseudonym (D-23, D-35); never the service account's login. Otherwise the
    pseudonym ``identities/`` at base binds to ``login`` (the sign-off picks one when the
    login binds several), or None.
    """
    from network.forge.submitter import sign_offs
    from network.forge.submitter import submitter_of as credited

    if login and login in {s for s in service_logins if s}:
        names = sorted(set(sign_offs(head_message)))
        return names[0] if len(names) == 1 else None
    return credited(login, graph, head_message=head_message, service_logins=())


@dataclass
class ExportReport:
    """What ``lemmata gate export`` wrote.

    Attributes:
        out: the export folder.
        modules: module → {source_path, source_sha256, files: extension → sha256}.
        builds: one row per scratch build (data for people, never a verdict).
    """

    out: Path
    modules: dict[str, dict[str, Any]] = field(default_factory=dict)
    builds: list[dict[str, Any]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)


class ExportingToolchain:
    """The real toolchain, unchanged, that also keeps the compiled files every scratch
    build exports (``build(..., export=...)``), wherever in the gate's steps it happens:
    the artifact's own modules at step 3, a route's carried witnesses at step 7.

    Args:
        inner: the toolchain for the target.
        report: where the files and build rows are collected (``report.out/blobs``
            receives each file).
    """

    def __init__(self, inner: Any, report: ExportReport) -> None:
        self.inner = inner
        self.report = report

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def build(self, workspace: Workspace, modules: Sequence[str], sandbox: SandboxRunner,
              caps: Any, export: Sequence[str] = ()) -> Any:
        """The inner build; an exporting one's compiled files are kept."""
        built = self.inner.build(workspace, modules, sandbox, caps, export=export)
        if export:
            self.report.builds.append({"modules": list(export), "ok": built.ok,
                                       "code": built.code, "rc": built.rc})
            self.report.logs.append(f"## build of {', '.join(export)}: rc {built.rc}\n"
                                    f"{built.log}")
            for olean in built.artifacts if built.ok else ():
                _write_artifact(workspace, olean, self.report)
        return built


def export_build(repo: str | Path, base: str, head: str, *, toolchain: Any,
                 sandbox: SandboxRunner, out: Path, pull_request: int,
                 submitter: str | None = None, work_dir: Path | None = None) -> ExportReport:
    """Run the gate's own steps over ``base..head`` (precheck mode: no step 0, no
    attestation) with every scratch build's compiled files kept, and write the export
    folder ``out`` (see the module docstring). The verdict of that run is thrown away:
    only the trusted job's counts.

    Args:
        repo: the graph repository.
        base, head: the pull request's base and head commits (revisions or 40 hex).
        toolchain: ``spec -> Toolchain`` (product code passes ``detect_toolchain``); with
            no toolchain nothing is built or exported, which the trusted job then refuses.
        sandbox: the step-3 sandbox.
        out: the export folder (created).
        pull_request: the pull request's number as this job saw it (a claim the trusted
            job compares with its event; never used by it).
        submitter: the pseudonym the steps run for (:func:`submitter_of`), so that steps
            bound to the submitter pass here as they will in the trusted job.
        work_dir: where workspaces are written (a temporary folder when None).

    Returns:
        the :class:`ExportReport`.

    Raises:
        LemmataError: ``git-error`` when a commit does not resolve; the loader's codes.
    """
    from network.gate.run import run_gate

    out.mkdir(parents=True, exist_ok=True)
    (out / BLOB_DIR).mkdir(exist_ok=True)
    report = ExportReport(out)

    def exporting(spec: Any) -> Any:
        return ExportingToolchain(toolchain(spec), report)

    outcome = run_gate(repo, base, head, toolchain=exporting, sandbox=sandbox,
                       mode="precheck", submitter=submitter, work_dir=work_dir)
    manifest = {"format": EXPORT_FORMAT, "pull_request": int(pull_request),
                "head_sha": outcome.head, "base_sha": outcome.base,
                "modules": report.modules, "builds": report.builds}
    (out / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                                       "utf-8")
    (out / BUILD_LOG).write_text("\n".join(report.logs) + "\n", "utf-8")
    return report


def _write_artifact(ws: Workspace, olean: OleanArtifact, report: ExportReport) -> None:
    """One module's compiled files into ``blobs/`` (content-addressed) and the report."""
    files: dict[str, str] = {}
    for ext, data in olean.files:
        digest = hashlib.sha256(data).hexdigest()
        (report.out / BLOB_DIR / digest).write_bytes(data)
        files[ext] = digest
    report.modules[olean.module] = {"source_path": str(olean.source_path),
                                    "source_sha256": ws.source(olean.module).sha256,
                                    "files": files}
