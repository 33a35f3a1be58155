"""The dataset compiler: ``lemmata trainer compile GRAPH OUT`` (issue 14; seed 000,
"Synthetic data needs a family tree"; D-13, D-34).

Sources:

* the attempt corpus of a graph at one commit, read only through
  :mod:`network.record.read.loader`: merged proofs, alternates and partials with their
  attestations; failed attestations, precheck records and postmortems with their
  terminal goal states (D-13, D-34);
* external statement sets: miniF2F archives (``MiniF2F/Valid`` trains, ``MiniF2F/Test``
  is sealed) and the graph's calibration targets (labelled ``calibration``).

The rules:

* **A positive row comes only from a verified artifact.** An artifact's file is a label
  only when an attestation of the graph names its exact bytes with verdict ``pass``, its
  gate signature verifies with a gate key the graph publishes valid on its date
  (:func:`network.record.trust.gate_signed`), its statement hash is the node's, and its
  toolchain and Mathlib pins are the target's gate-spec's. Anything else is listed in the
  manifest's ``refused`` with its reason and never becomes a row.
* **Failed attempts rank, never teach.** Failed and bounced attestations, failing precheck
  records and postmortems go to ``ranking.jsonl`` with their step, code and line (no gate
  message) and a postmortem's own terminal goal state; no file of them is a label.
* **Splits are made before rows are expanded.** Every statement is an item; items are
  joined into connected components by a shared target, a shared statement hash (the exact
  bytes' and a canonical hash of the theorem's type with its name, comments and spacing
  dropped, so a renamed copy joins its original) or an exact rendered prompt. A component
  holding a sealed item is sealed whole; the others are ranked by SHA-256 of the split
  seed and their first member, and go to ``valid`` below ``valid_fraction``, else
  ``train``, one training component kept when any exists. Every row of an item follows
  its component.
* **Sealed held-out**: the current frontier's nodes (:func:`network.record.derive.frontier`)
  and miniF2F Test. Sealed items appear only in ``sealed.jsonl`` (prompts, no labels); their
  components' proofs and failures are withheld and counted. :func:`check_sealed` proves the
  assignment has zero contamination before anything is written.
* **One manifest** (``manifest.json``) binds the graph commit, every file's SHA-256, every
  row's digest and the prompt-contract version. Same input, same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from network.errors import LemmataError, define
from network.gate.screens.lean_lex import lex
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, Node, Target, load_graph
from network.record.trust import gate_signed
from network.trainer import prompts
from network.trainer.prompts import PROMPT_CONTRACT, diagnostics_of

define("trainer-graph-uncommitted", None, 422,
       "The graph to compile is not a git repository with a commit, so no manifest could "
       "bind the commit its rows came from.",
       "Compile a graph repository (a clone of the graph, or the network's graph/ folder "
       "inside its repository); pass --commit to pick one.")
define("trainer-source-malformed", None, 422,
       "An external statement set is not the archive it should be: not a gzip tar, a "
       "member that is not a regular file, an oversized statement, or no MiniF2F/Valid or "
       "MiniF2F/Test statement at all.",
       "Pass the miniF2F archive as shipped (../shared/datasets/minif2f-lean4-*.tar.gz).")
define("trainer-split-contaminated", None, 500,
       "A split assignment would put a sealed item, or something it shares a target, a "
       "statement hash or a rendered prompt with, on the training side (seed 000).",
       "A bug in the compiler: report it. Nothing was written.")
define("trainer-out-not-empty", None, 409,
       "The output folder exists and is not empty; the compiler writes a dataset only into "
       "a new or empty folder, so no file of an older dataset is mistaken for this one's.",
       "Pass a new folder, or remove the old dataset first.")

SCHEMA = "trainer-dataset/v1"
SPLIT_SEED = "lemmata-split/v1"
FILES = ("sft.jsonl", "ranking.jsonl", "statements.jsonl", "sealed.jsonl")
_MAX_MEMBERS = 10_000
_MAX_STATEMENT_BYTES = 64 * 1024
_MINIF2F_RE = re.compile(r"(?:^|/)MiniF2F/(?P<split>Valid|Test)/(?P<name>[A-Za-z0-9_.'-]+)\.lean$")


def sha256_text(text: str) -> str:
    """Hex SHA-256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(obj: Any) -> str:
    """The one JSON form of rows and the manifest: sorted keys, compact, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_statement_sha256(text: str) -> str | None:
    """SHA-256 of a statement's canonical form: the code tokens of the first ``theorem``
    or ``lemma`` after its name, up to its first ``:=`` outside brackets, joined by single
    spaces (comments, doc comments, spacing and the declaration's name dropped), so two
    files stating the same type under other names or layouts hash equal. None when the
    text declares no theorem."""
    toks = lex(text).code_tokens()
    start = next((i for i, t in enumerate(toks) if t.text in ("theorem", "lemma")), None)
    if start is None or start + 1 >= len(toks):
        return None
    end = start + 1  # the name: the tokens written together after the keyword (A.b.c)
    while end + 1 < len(toks) and toks[end + 1].start == toks[end].start + len(toks[end].text):
        end += 1
    depth, out = 0, []
    for t in toks[end + 1:]:
        if t.text in ("(", "[", "{", "⦃", "⟨"):
            depth += 1
        elif t.text in (")", "]", "}", "⦄", "⟩"):
            depth -= 1
        elif t.text == ":=" and depth <= 0:
            break
        out.append(t.text)
    return sha256_text("canon/v1\n" + " ".join(out))


@dataclass
class Item:
    """One statement before expansion into rows (seed 000: split before expanding).

    Attributes:
        id: ``graph:<target>/<node>`` or ``minif2f:<Valid|Test>/<name>``.
        source: ``graph``, ``calibration``, ``minif2f-valid`` or ``minif2f-test``.
        target_key: what the target edge joins on.
        statement_sha256: the exact statement bytes' hash (META's for a node).
        canonical_sha256: :func:`canonical_statement_sha256`.
        bundle: the node bundle prompts render from.
        prompts: task → rendered prompt (proof and partial).
        sealed: why the item is held out (``frontier``, ``minif2f-test``), or None.
        rows: kind → rows, expanded after the split.
    """

    id: str
    source: str
    target_key: str
    statement_sha256: str
    canonical_sha256: str | None
    bundle: dict[str, Any]
    prompts: dict[str, str]
    sealed: str | None = None
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def edges(self) -> list[tuple[str, str]]:
        """The edges this item joins on."""
        out = [("target", self.target_key), ("statement", self.statement_sha256)]
        if self.canonical_sha256:
            out.append(("canonical", self.canonical_sha256))
        out += [("prompt", sha256_text(p)) for p in self.prompts.values()]
        return out


# --- sources -------------------------------------------------------------------------------


def _item(id_: str, source: str, target_key: str, stmt_sha: str, bundle: dict[str, Any],
          sealed: str | None) -> Item:
    text = bundle["files"]["Statement"]["text"]
    return Item(id_, source, target_key, stmt_sha, canonical_statement_sha256(text), bundle,
                {task: prompts.render(bundle, task) for task in ("proof", "partial")},
                sealed)


def _verified_pass(graph: Graph, t: Target, n: Node, path: str, sha: str,
                   by_artifact: Mapping[tuple[str, str], list[Any]]) -> tuple[Any, str | None]:
    """The attestation file that makes ``path`` a positive, or (None, why not)."""
    why = "no-pass-attestation"
    for rf in by_artifact.get((path, sha), []):
        att: m.Attestation = rf.record
        if att.verdict != "pass" or att.target != t.id or att.node != n.id:
            continue
        if att.graph_id != graph.policy.graph_id:
            why = "graph-id-mismatch"
            continue
        if not gate_signed(att, graph.keys, rf.sha256):
            why = "not-gate-signed"
            continue
        if att.statement_hash != n.meta.statement_hash:
            why = "statement-hash-mismatch"
            continue
        if att.toolchain != t.gate_spec.lean_toolchain:
            why = "toolchain-pin-mismatch"
            continue
        if t.gate_spec.mathlib is not None and att.mathlib_rev != t.gate_spec.mathlib.rev:
            why = "mathlib-pin-mismatch"
            continue
        return rf, None
    return None, why


def _graph_items(graph: Graph, refused: list[dict[str, str]]) -> list[Item]:
    frontier = {(e["target"], e["node"]) for e in derive.frontier(graph)}
    by_artifact: dict[tuple[str, str], list[Any]] = {}
    by_node: dict[tuple[str, str], list[Any]] = {}
    for rf in graph.attestations:
        by_node.setdefault((rf.record.target, rf.record.node), []).append(rf)
        for a in rf.record.artifacts:
            by_artifact.setdefault((a.path, a.sha256), []).append(rf)
    items: list[Item] = []
    for tid, t in sorted(graph.targets.items()):
        calibration = t.record.calibration or t.record.target_class == "calibration"
        for nid, n in sorted(t.nodes.items()):
            bundle = prompts.bundle_from_graph(graph, tid, nid)
            it = _item(f"graph:{tid}/{nid}", "calibration" if calibration else "graph",
                       f"graph:{tid}", n.meta.statement_hash, bundle,
                       "frontier" if (tid, nid) in frontier else None)
            it.rows = _node_rows(graph, t, n, it, by_artifact, by_node.get((tid, nid), []),
                                 refused)
            items.append(it)
    return items


def _node_rows(graph: Graph, t: Target, n: Node, it: Item,
               by_artifact: Mapping[tuple[str, str], list[Any]], atts: Sequence[Any],
               refused: list[dict[str, str]]) -> dict[str, list[dict[str, Any]]]:
    sft: list[dict[str, Any]] = []
    candidates: list[tuple[str, str, str, str]] = []  # (path, sha, kind, task)
    if "Proof" in n.files:
        candidates.append((n.files["Proof"].path, n.files["Proof"].sha256, "proof", "proof"))
    for a in n.attempts:
        if a.kind in ("alternate", "partial"):
            candidates.append((a.path, a.sha256, a.kind,
                               "proof" if a.kind == "alternate" else "partial"))
    for path, sha, kind, task in candidates:
        rf, why = _verified_pass(graph, t, n, path, sha, by_artifact)
        if rf is None:
            refused.append({"path": path, "reason": str(why)})
            continue
        sft.append({"task": task, "prompt": it.prompts[task], "completion": graph.text(path),
                    "artifact": {"path": path, "sha256": sha, "kind": kind},
                    "attestation": {"path": rf.path, "sha256": rf.sha256}})
    ranking: list[dict[str, Any]] = []
    for rf in atts:
        att = rf.record
        if att.verdict in ("fail", "bounced"):
            ranking.append({"kind": "attestation", "path": rf.path,
                            "artifact_kind": att.artifact_kind, "verdict": att.verdict,
                            "first_failing_step": att.first_failing_step,
                            "diagnostics": _diag(att.steps)})
    for pc in n.prechecks:
        if pc.record.verdict == "precheck-fail" and not m.precheck_checked_nothing(
                pc.record.verdict, pc.record.steps):  # nothing judged is no negative
            ranking.append({"kind": "precheck", "path": pc.path,
                            "first_failing_step": pc.record.first_failing_step,
                            "diagnostics": _diag(pc.record.steps),
                            "terminal_goal_state": pc.record.terminal_goal_state})
    for a in n.attempts:
        if a.postmortem is not None:
            pm = a.postmortem
            ranking.append({"kind": "postmortem", "path": a.path, "route_class": pm.route_class,
                            "outcome": pm.outcome, "failure_class": pm.failure_class,
                            "terminal_goal_state": pm.terminal_goal_state})
    for r in ranking:
        r["prompt"] = it.prompts["proof"]
    return {"sft": sft, "ranking": ranking}


def _diag(steps: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"step": d.step, "code": d.code, "line": d.line} for d in diagnostics_of(steps)]


def read_minif2f(archive: Path) -> tuple[list[Item], dict[str, Any]]:
    """The statements of a miniF2F archive: Valid ones as training items, Test ones sealed.

    Returns:
        (items in (split, name) order, the source's manifest entry: archive name, SHA-256
        and counts).

    Raises:
        LemmataError: ``trainer-source-malformed`` (see the code's catalog entry).
    """
    data = Path(archive).read_bytes()
    found: dict[tuple[str, str], str] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
            members = tf.getmembers()
            if len(members) > _MAX_MEMBERS:
                raise LemmataError("trainer-source-malformed", f"{len(members)} members")
            for mem in members:
                mt = _MINIF2F_RE.search(mem.name)
                if mt is None:
                    continue
                if not mem.isfile() or mem.size > _MAX_STATEMENT_BYTES:
                    raise LemmataError("trainer-source-malformed",
                                       f"{mem.name}: not a regular file under "
                                       f"{_MAX_STATEMENT_BYTES} bytes")
                f = tf.extractfile(mem)
                assert f is not None
                found[(mt.group("split"), mt.group("name"))] = f.read().decode("utf-8")
    except (tarfile.TarError, OSError, EOFError, UnicodeDecodeError) as exc:
        raise LemmataError("trainer-source-malformed", f"{Path(archive).name}: {exc}") from exc
    if not found:
        raise LemmataError("trainer-source-malformed",
                           f"{Path(archive).name}: no MiniF2F/Valid or MiniF2F/Test statement")
    items = []
    for (split, name), text in sorted(found.items()):
        bundle = {"target": "minif2f", "node": name,
                  "meta": {"declaration": name, "deps": []},
                  "files": {"Statement": {"path": f"MiniF2F/{split}/{name}.lean",
                                          "sha256": sha256_text(text), "text": text}}}
        items.append(_item(f"minif2f:{split}/{name}", f"minif2f-{split.lower()}",
                           f"minif2f:{name}", sha256_text(text), bundle,
                           "minif2f-test" if split == "Test" else None))
    entry = {"archive": Path(archive).name, "sha256": hashlib.sha256(data).hexdigest(),
             "valid": sum(1 for s, _ in found if s == "Valid"),
             "test": sum(1 for s, _ in found if s == "Test")}
    return items, entry


# --- splits --------------------------------------------------------------------------------


def components(items: Sequence[Item]) -> list[list[Item]]:
    """Connected components of items joined by a shared target, statement hash (exact or
    canonical) or rendered prompt (seed 000's family tree); each in item-id order, the
    list ordered by first member."""
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[str, str], int] = {}
    for i, it in enumerate(items):
        for key in it.edges():
            j = owner.setdefault(key, i)
            a, b = find(i), find(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[Item]] = {}
    for i, it in enumerate(items):
        groups.setdefault(find(i), []).append(it)
    return sorted((sorted(g, key=lambda x: x.id) for g in groups.values()),
                  key=lambda g: g[0].id)


def assign_splits(items: Sequence[Item], *, seed: str = SPLIT_SEED,
                  valid_fraction: float = 0.1) -> dict[str, str]:
    """Item id → ``train``, ``valid`` or ``sealed``, by component (see the module
    docstring)."""
    out: dict[str, str] = {}
    open_: list[tuple[str, list[Item]]] = []
    for comp in components(items):
        if any(it.sealed for it in comp):
            out.update({it.id: "sealed" for it in comp})
        else:
            open_.append((sha256_text(f"{seed}\n{comp[0].id}"), comp))
    open_.sort(key=lambda hc: hc[0])
    chosen = {id(c): ("valid" if int(h[:16], 16) / 2**64 < valid_fraction else "train")
              for h, c in open_}
    if open_ and "train" not in chosen.values():
        chosen[id(open_[-1][1])] = "train"  # a training component is always reserved
    for _, comp in open_:
        out.update({it.id: chosen[id(comp)] for it in comp})
    return out


def check_sealed(items: Sequence[Item], splits: Mapping[str, str]) -> None:
    """Zero contamination: every sealed item is assigned ``sealed``, and no target,
    statement hash or rendered prompt of a sealed item is held by a train or valid item.

    Raises:
        LemmataError: ``trainer-split-contaminated`` naming the first shared key.
    """
    sealed_keys: set[tuple[str, str]] = set()
    for it in items:
        if it.sealed and splits.get(it.id) != "sealed":
            raise LemmataError("trainer-split-contaminated",
                               f"{it.id} is held out ({it.sealed}) but assigned "
                               f"{splits.get(it.id)}")
        if splits.get(it.id) == "sealed":
            sealed_keys.update(it.edges())
    for it in items:
        if splits.get(it.id) in ("train", "valid"):
            shared = sorted(set(it.edges()) & sealed_keys)
            if shared:
                raise LemmataError("trainer-split-contaminated",
                                   f"{it.id} shares {shared[0][0]} {shared[0][1][:16]} "
                                   "with a sealed item")


# --- the compile ---------------------------------------------------------------------------


def _resolve_commit(graph: Path, commit: str | None) -> str:
    """``commit`` (default HEAD) of the repository holding ``graph``, as 40 hex."""
    import pygit2

    found = pygit2.discover_repository(str(graph))
    if found is None:
        raise LemmataError("trainer-graph-uncommitted", f"{graph} is not in a git repository")
    repo = pygit2.Repository(found)
    if commit is None and repo.head_is_unborn:
        raise LemmataError("trainer-graph-uncommitted", f"{graph}: no commit yet")
    try:
        return str(repo.revparse_single(commit or "HEAD").peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"{commit}: {exc}") from exc


def _stamp(it: Item, split: str, kind: str, row: dict[str, Any]) -> dict[str, Any]:
    full = {"item": it.id, "split": split, "source": it.source,
            "prompt_contract": PROMPT_CONTRACT, "statement_sha256": it.statement_sha256,
            "canonical_sha256": it.canonical_sha256, "target_key": it.target_key, **row}
    if "prompt" in full:
        full["prompt_sha256"] = sha256_text(full["prompt"])
    full["id"] = sha256_text(canonical_json({"kind": kind, **full}))
    return full


def compile_dataset(graph: str | Path, *, commit: str | None = None,
                    minif2f: Sequence[str | Path] = (), seed: str = SPLIT_SEED,
                    valid_fraction: float = 0.1) -> dict[str, Any]:
    """Compile the dataset in memory: ``{"files": {name: bytes}, "manifest": dict}``.

    Args:
        graph: a graph repository (or a graph folder inside one).
        commit: the commit to read (default: HEAD); the manifest names it as 40 hex.
        minif2f: miniF2F archives to add.
        seed, valid_fraction: the split's seed and the share of open components that go
            to ``valid``.

    Raises:
        LemmataError: ``trainer-graph-uncommitted``; ``trainer-source-malformed``;
            ``trainer-split-contaminated``; ``git-error`` for a commit that does not
            resolve; the loader's codes (``not-a-graph``).
    """
    sha = _resolve_commit(Path(graph), commit)
    g = load_graph(graph, commit=sha)
    refused: list[dict[str, str]] = []
    items = _graph_items(g, refused)
    sources = []
    for archive in minif2f:
        extra, entry = read_minif2f(Path(archive))
        items += extra
        sources.append(entry)
    splits = assign_splits(items, seed=seed, valid_fraction=valid_fraction)
    check_sealed(items, splits)
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in FILES}
    withheld = {"sft": 0, "ranking": 0}
    for it in sorted(items, key=lambda x: x.id):
        split = splits[it.id]
        if split == "sealed":
            out["sealed.jsonl"].append(_stamp(it, split, "sealed", {
                "task": "proof", "prompt": it.prompts["proof"], "sealed": it.sealed or "joined"}))
            for kind in withheld:
                withheld[kind] += len(it.rows.get(kind, []))
            continue
        out["statements.jsonl"].append(_stamp(it, split, "statement", {
            "task": "proof", "prompt": it.prompts["proof"]}))
        for row in it.rows.get("sft", []):
            out["sft.jsonl"].append(_stamp(it, split, "sft", row))
        for row in it.rows.get("ranking", []):
            out["ranking.jsonl"].append(_stamp(it, split, "ranking", row))
    files: dict[str, bytes] = {}
    for name in FILES:
        rows = sorted(out[name], key=lambda r: (r["item"], r["id"]))
        files[name] = "".join(canonical_json(r) + "\n" for r in rows).encode("utf-8")
    manifest = {
        "schema": SCHEMA, "prompt_contract": PROMPT_CONTRACT,
        "graph": {"graph_id": g.policy.graph_id, "commit": sha},
        "sources": {"minif2f": sources},
        "split": {"seed": seed, "valid_fraction": valid_fraction,
                  "items": {s: sum(1 for v in splits.values() if v == s)
                            for s in ("train", "valid", "sealed")},
                  "components": len(components(items)),
                  "sealed": sorted(it.id for it in items if it.sealed)},
        "withheld_in_sealed_components": withheld,
        "refused": sorted(refused, key=lambda r: (r["path"], r["reason"])),
        "files": {name: {"sha256": hashlib.sha256(data).hexdigest(),
                         "rows": [r["id"] for r in sorted(out[name],
                                                          key=lambda r: (r["item"], r["id"]))]}
                  for name, data in files.items()},
    }
    return {"files": files, "manifest": manifest}


def write_dataset(compiled: Mapping[str, Any], out: str | Path) -> Path:
    """Write a compiled dataset into ``out`` (created; must be new or empty): its JSONL
    files and ``manifest.json``. Returns the manifest's path.

    Raises:
        LemmataError: ``trainer-out-not-empty``.
    """
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise LemmataError("trainer-out-not-empty", f"{folder} exists and is not empty")
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in compiled["files"].items():
        (folder / name).write_bytes(data)
    path = folder / "manifest.json"
    path.write_text(json.dumps(compiled["manifest"], sort_keys=True, indent=2,
                               ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def verify_dataset(out: str | Path) -> dict[str, Any]:
    """Re-read a written dataset and check it against its manifest: each file's SHA-256,
    each row's digest (its ``id``) and prompt-contract version. Returns the manifest.

    Raises:
        LemmataError: ``trainer-source-malformed`` naming the first disagreement.
    """
    folder = Path(out)
    manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text("utf-8"))
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise LemmataError("trainer-source-malformed", f"{name}: bytes changed")
        ids = []
        for line in data.decode("utf-8").splitlines():
            row = json.loads(line)
            rid = row.pop("id")
            kind = {"sft.jsonl": "sft", "ranking.jsonl": "ranking",
                    "statements.jsonl": "statement", "sealed.jsonl": "sealed"}[name]
            if sha256_text(canonical_json({"kind": kind, **row})) != rid or \
                    row["prompt_contract"] != manifest["prompt_contract"]:
                raise LemmataError("trainer-source-malformed", f"{name}: row {rid[:12]}")
            ids.append(rid)
        if ids != entry["rows"]:
            raise LemmataError("trainer-source-malformed", f"{name}: rows differ")
    return manifest
