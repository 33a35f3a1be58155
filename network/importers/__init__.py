"""Importers from public statement registries (D-10; DESIGN.md "Importing from public
registries"; Foundation ruling 13).

An import is a change like every other: the importer reads the registry and the graph at
main, and computes a file set (graph path → bytes) holding only what is new or different.
That set is either written into a curator's work tree (plain git) or opened as one pull
request on a forge (:func:`import_as_pull_request`); the gate judges it like any other pull
request. Importing the same source commit twice computes an empty set, so nothing changes.

- :mod:`network.importers.formal_conjectures`: Lean statements of a Formal Conjectures
  checkout become listed targets (one per problem statement), their variants, definitions
  and gate-spec pins.
- :mod:`network.importers.erdosproblems`: the erdosproblems database's status, dates and
  tags become the prior-art artifact (D-6 item 1) of the matching target.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from network.errors import LemmataError, Problem, define
from network.record import models as m
from network.record.read.loader import parse_record
from network.record.read.source import CommitSource, Source, WorktreeSource, check_graph_path

if TYPE_CHECKING:
    from network.forge.types import Forge, PullRequest

define("import-source-invalid", None, 422,
       "The registry source is not what the importer reads: not a git checkout, or without "
       "the expected folder or file.",
       "Pass the root of a Formal Conjectures checkout, or an erdosproblems problems.yaml.")
define("import-hostile-path", None, 422,
       "A registry path or problem id is not a plain portable name (a link, '..', a "
       "control or shell character).",
       "Import from an untouched checkout and give problem ids as plain numbers.")
define("import-no-theorem", None, 422,
       "A registry Lean file declares no statement the importer can take as a target (no "
       "theorem with an imported category); it is that file's report line, not the run's end.",
       "Check the file's categories (API and test statements are not imported by default).")
define("import-problem-not-found", None, 404, "The registry holds no file for that problem id.",
       "Use the stem of an existing file of the collection (FormalConjectures/ErdosProblems/"
       "<N>.lean: the number N).")
define("import-malformed-registry", None, 422,
       "The registry database could not be read: bad YAML, or an entry of the wrong shape.",
       "Fix the file at the reported place, or import an untouched copy of the database.")
define("import-no-curator", None, 422,
       "No curator pseudonym is known to sign the intake of imported targets (D-6).",
       "Pass --curator with a pseudonym listed in curators.json.")


@dataclass
class Attention:
    """One item a curator must look at before the import merges.

    Attributes:
        code: what was found (``answer-copies-target``, ``witness-proof-required``,
            ``statement-changed-upstream``, ``registry-says-solved``, ...).
        target: the target id it concerns.
        node: the node id, when it concerns one node.
        detail: one or two sentences for the curator.
    """

    code: str
    target: str
    node: str | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form: code, target, node, detail."""
        return {"code": self.code, "target": self.target, "node": self.node,
                "detail": self.detail}


@dataclass
class ImportPlan:
    """What an import would change, and the report that explains it.

    Attributes:
        files: graph path → exact bytes, only for paths new or different from the graph
            read (an empty dict means the import changes nothing).
        report: a JSON-ready summary: source, commit, targets, nodes, skipped statements,
            pins and where they came from; ``curator_attention`` lists :class:`Attention`.
        attention: the curator-attention items, also inside ``report``.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    attention: list[Attention] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The report with the changed paths and ``curator_attention`` filled in."""
        return {**self.report, "changed_files": sorted(self.files),
                "curator_attention": [a.to_dict() for a in self.attention]}


class GraphView:
    """Read-only access to the graph an import is computed against (main, or a work tree).

    Args:
        graph: a graph root folder, an opened :class:`~network.record.read.source.Source`, or
            None for an empty graph (a dry run with nothing to compare against).

    Raises:
        LemmataError: ``not-a-graph`` when a folder is given that does not exist.
    """

    def __init__(self, graph: str | Path | Source | CommitSource | None) -> None:
        if graph is None:
            self.source: Source | CommitSource | None = None
            self.paths: dict[str, int] = {}
        else:
            self.source = WorktreeSource(graph) if isinstance(graph, (str, Path)) else graph
            problems: list[Problem] = []
            self.paths = self.source.files(problems)

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when the graph has no such file."""
        if self.source is None or path not in self.paths:
            return None
        return self.source.read(path)

    def record(self, path: str, model: type[m.Record]) -> Any:
        """The file parsed as ``model``, or None when absent or invalid (the gate and
        ``lemmata validate`` report invalid records; an import does not repair them)."""
        data = self.read(path)
        if data is None:
            return None
        rec, _ = parse_record(path, data, model)
        return rec

    def target_ids(self) -> list[str]:
        """Ids of the targets that have a target.yaml."""
        return sorted(p.split("/")[1] for p in self.paths
                      if p.count("/") == 2 and p.startswith("targets/")
                      and p.endswith("/target.yaml"))

    def default_curator(self) -> str | None:
        """The first curator of curators.json who curates every target (``*``), if any."""
        cur = self.record("curators.json", m.Curators)
        if cur is None:
            return None
        for c in cur.curators:
            if "*" in c.targets:
                return str(c.pseudonym)
        return None

    def common_network_commit(self) -> str | None:
        """The ``network_commit`` most of this graph's gate-specs pin (issue 32), or None
        when none pins one."""
        seen: Counter[str] = Counter()
        for tid in self.target_ids():
            spec = self.record(f"targets/{tid}/gate-spec.json", m.GateSpec)
            if spec is not None and spec.network_commit is not None:
                seen[spec.network_commit] += 1
        if not seen:
            return None
        return max(seen.items(), key=lambda kv: (kv[1], kv[0]))[0]

    def common_pins(self) -> tuple[str, m.LakePackage | None] | None:
        """The Lean toolchain and Mathlib pin most targets of this graph use, or None."""
        seen: Counter[tuple[str, str]] = Counter()
        specs: dict[tuple[str, str], m.GateSpec] = {}
        for tid in self.target_ids():
            spec = self.record(f"targets/{tid}/gate-spec.json", m.GateSpec)
            if spec is not None and spec.mathlib is not None:
                key = (spec.lean_toolchain, spec.mathlib.rev)
                seen[key] += 1
                specs[key] = spec
        if not seen:
            return None
        best = max(seen.items(), key=lambda kv: (kv[1], kv[0]))[0]
        return specs[best].lean_toolchain, specs[best].mathlib


class _LiteralDumper(yaml.SafeDumper):
    """Block style for multi-line strings, so records stay readable in review."""


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_LiteralDumper.add_representer(str, _str_representer)


def yaml_bytes(obj: dict[str, Any]) -> bytes:
    """A record as deterministic YAML bytes (key order kept, Unicode kept, block strings)."""
    text = yaml.dump(obj, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True,
                     width=100, default_flow_style=False)
    return text.encode("utf-8")


def record_dict(rec: m.Record, *, exclude_defaults: bool = False) -> dict[str, Any]:
    """A record as a JSON-ready dict with ``schema`` first and aliases (``class``) applied."""
    body = rec.model_dump(by_alias=True, mode="json", exclude_none=True,
                          exclude_defaults=exclude_defaults)
    body.pop("schema", None)
    return {"schema": rec.SCHEMA_KIND, **body}


def json_bytes(obj: dict[str, Any]) -> bytes:
    """Deterministic JSON bytes: two-space indent, Unicode kept, trailing newline."""
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def forge_source(forge: Any) -> CommitSource:
    """The graph at a forge's main, for computing an import against it.

    Args:
        forge: a :class:`~network.forge.local.LocalForge` (anything with ``path`` and
            ``main_sha()``).

    Raises:
        LemmataError: ``git-error``.
    """
    return CommitSource(forge.path, forge.main_sha())


def write_files(graph: str | Path, files: dict[str, bytes]) -> list[str]:
    """Write an import's file set into a graph work tree (for curators in plain git).

    Args:
        graph: the graph's root folder.
        files: graph path → bytes, as :class:`ImportPlan` holds them.

    Returns:
        The paths written, sorted.

    Raises:
        LemmataError: ``hostile-path`` for an unsafe path; ``symlink-refused`` when a
            folder on the way is a symbolic link; ``not-a-graph`` when ``graph`` is no folder.
    """
    root = Path(graph)
    if not root.is_dir():
        raise LemmataError("not-a-graph", f"{root} is not a directory")
    for path in files:
        why = check_graph_path(path)
        if why:
            raise LemmataError("hostile-path", why, path=path)
        cur = root
        for seg in path.split("/"):
            cur = cur / seg
            if cur.is_symlink():
                raise LemmataError("symlink-refused", "a symbolic link on the way", path=path)
    for path in sorted(files):
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(files[path])
    return sorted(files)


def import_as_pull_request(forge: Forge, files: dict[str, bytes], author: str, *,
                           title: str = "Import from a public registry",
                           body: str = "") -> PullRequest | None:
    """Open one pull request carrying an import's file set (D-10; imports are pull requests
    like every other change, DESIGN.md "How data moves").

    Args:
        forge: any :class:`~network.forge.types.Forge`.
        files: graph path → bytes; only new or changed files (an :class:`ImportPlan`'s).
        author: the curator's pseudonym; the ledger identity of the pull request.
        title, body: the pull request's text (the body should list curator attention).

    Returns:
        The opened pull request, or None when ``files`` is empty (nothing to change, so no
        pull request is opened).

    Raises:
        LemmataError: ``hostile-path`` for an unsafe path; the forge's own errors.
    """
    if not files:
        return None
    for path in files:
        why = check_graph_path(path)
        if why:
            raise LemmataError("hostile-path", why, path=path)
    return forge.open_pull_request(files=dict(files), title=title, body=body, author=author)


def pull_request_body(plan: ImportPlan) -> str:
    """A pull-request body for an import: what it adds and what a curator must check."""
    lines = [(f"Import from {plan.report.get('source', 'a registry')} at "
             f"{plan.report.get('commit') or 'an uncommitted copy'}."), ""]
    for t in plan.report.get("targets", []):
        lines.append(f"- target `{t['id']}` ({t.get('class', '?')}): "
                     f"{', '.join(t.get('nodes', [])) or 'record only'}")
    unread = [f for f in plan.report.get("files", []) if f.get("status") == "refused"]
    if unread:
        lines += ["", "Files not imported:"]
        lines += [f"- `{f['path']}` [{f.get('code')}]: {f.get('detail', '')}" for f in unread]
    if plan.attention:
        lines += ["", "Curator attention:"]
        lines += [f"- [{a.code}] {a.target}{'/' + a.node if a.node else ''}: {a.detail}"
                  for a in plan.attention]
    return "\n".join(lines) + "\n"


def running_network_commit() -> str | None:
    """The commit of the network checkout this code runs from (``HEAD`` of the git
    repository holding this package), or None when it is not a git checkout (an installed
    wheel). What an importer pins as ``network_commit`` when the graph pins none (issue 32).
    """
    import pygit2

    found = pygit2.discover_repository(str(Path(__file__).resolve().parent))
    if found is None:
        return None
    try:
        return str(pygit2.Repository(found).head.target)
    except (pygit2.GitError, KeyError):
        return None
