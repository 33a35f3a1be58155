"""Attach the erdosproblems database to matching targets as prior art (D-6 item 1, D-10;
DESIGN.md "Importing from public registries").

The database (teorth/erdosproblems, ``data/problems.yaml``) is a list of entries with
``number``, ``prize``, ``status``/``informal_status``/``formal_status`` (each a ``state``
with a ``last_update`` date), ``formalized``, ``oeis``, ``tags`` and sometimes
``comments``. It carries no statement text, so it never creates a target: for a problem
with a target (``erdos-N``, or a part ``erdos-N-<p>``) the importer rewrites that target's
prior-art artifact, and for one without it reports that the problem has no formal statement
here (citing the erdosproblems.com page).

What it writes into target.yaml:

- a first paragraph of ``intake.prior_art.summary``, starting with
  :data:`DB_PARAGRAPH_MARK`, giving every status with its date and saying "prior-art check
  required": a status of ``open`` is the database's word, never proof of openness (D-6);
  the rest of the summary (a curator's text, or the Formal Conjectures import's) is kept;
- references: the database entry (pinned to the database's git commit when the file is
  committed unchanged), the problem's page, and the link to the formal statement where the
  target records one;
- the tags, added to ``area``;
- for a problem the database marks solved (proved, disproved, solved, independent, with or
  without "(Lean)"): class calibration, ``calibration: true`` — a calibration candidate,
  never labelled an open problem — and a curator-attention item when that relabels it.

A target.yaml is rewritten only when its content changes, so a re-run changes nothing.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pygit2
import yaml

from network.errors import LemmataError
from network.importers import Attention, GraphView, ImportPlan, record_dict, yaml_bytes
from network.record import models as m
from network.record.source import CommitSource, Source

DB_REPOSITORY = "https://github.com/teorth/erdosproblems"
DB_PARAGRAPH_MARK = "erdosproblems database:"
SOLVED_STATES = frozenset({"proved", "disproved", "solved", "independent"})
MAX_DB_BYTES = 20_000_000
_STATUS_FIELDS = ("status", "informal_status", "formal_status", "formalized")


def _malformed(detail: str) -> LemmataError:
    return LemmataError("import-malformed-registry", detail)


def _date(value: Any) -> str | None:
    """``YYYY-MM-DD`` from a database date (``2025-12-2`` is padded), or None."""
    mt = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", str(value or "").strip())
    return f"{mt.group(1)}-{int(mt.group(2)):02d}-{int(mt.group(3)):02d}" if mt else None


def state_of(entry: dict[str, Any], key: str) -> tuple[str | None, str | None]:
    """``(state, date)`` of a status field; a bare string is a state with no date."""
    v = entry.get(key)
    if isinstance(v, dict):
        st = v.get("state")
        return (str(st) if st is not None else None), _date(v.get("last_update"))
    return (str(v), None) if v is not None else (None, None)


def is_solved(state: str | None) -> bool:
    """Whether a database state says the problem is settled: proved, disproved, solved or
    independent, with or without a ``(Lean)`` suffix (D-6: such a target is a calibration
    candidate, never an open problem)."""
    if not state:
        return False
    return re.sub(r"\s*\(.*\)\s*$", "", state.strip().lower()) in SOLVED_STATES


def load_entries(data: bytes, label: str) -> dict[str, dict[str, Any]]:
    """Parse the database into ``number → entry``, collecting every shape problem.

    Raises:
        LemmataError: ``import-malformed-registry`` for bad YAML (with its line) or entries
            of the wrong shape (all of them listed); ``file-too-large``; ``not-utf8``.
    """
    if len(data) > MAX_DB_BYTES:
        raise LemmataError("file-too-large", f"{len(data)} bytes", path=label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LemmataError("not-utf8", f"byte {exc.start}", path=label) from exc
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise LemmataError("import-malformed-registry",
                           f"{where}{getattr(exc, 'problem', None) or exc}", path=label) from exc
    if not isinstance(doc, list):
        raise LemmataError("import-malformed-registry", "the top level is not a list", path=label)
    problems: list[str] = []
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(doc, start=1):
        if not isinstance(entry, dict):
            problems.append(f"entry {i}: not a mapping")
            continue
        num = str(entry.get("number", "")).strip()
        if not re.fullmatch(r"[0-9]{1,6}", num):
            problems.append(f"entry {i}: number {entry.get('number')!r} is not a plain number")
            continue
        for key in _STATUS_FIELDS:
            v = entry.get(key)
            if v is not None and not isinstance(v, (dict, str)):
                problems.append(f"entry {i} ({num}): {key} is neither a mapping nor a string")
        for key in ("tags", "oeis"):
            v = entry.get(key)
            if v is not None and not (isinstance(v, list) and all(isinstance(t, str) for t in v)):
                problems.append(f"entry {i} ({num}): {key} is not a list of strings")
        if num in out:
            problems.append(f"entry {i}: number {num} appears twice")
        out[num] = entry
    if problems:
        raise LemmataError("import-malformed-registry",
                           f"{len(problems)} problem(s): " + "; ".join(problems[:20]), path=label)
    return out


def _db_commit(path: Path, data: bytes) -> tuple[str | None, str | None]:
    """``(commit, path in repo)`` when ``path`` is committed unchanged at HEAD of its repo."""
    found = pygit2.discover_repository(str(path.parent))
    if found is None:
        return None, None
    repo = pygit2.Repository(found)
    if repo.workdir is None:
        return None, None
    try:
        rel = path.resolve().relative_to(Path(repo.workdir).resolve()).as_posix()
        head = repo.head.peel(pygit2.Commit)
        blob = repo.get(head.tree[rel].id)
    except (ValueError, KeyError, pygit2.GitError):
        return None, None
    if isinstance(blob, pygit2.Blob) and bytes(blob.data) == data:
        return str(head.id), rel
    return None, rel


def _paragraph(num: str, entry: dict[str, Any], where: str) -> str:
    parts = []
    for key in _STATUS_FIELDS:
        st, d = state_of(entry, key)
        if st is not None:
            parts.append(f"{key} `{st}`" + (f" (last update {d})" if d else ""))
    extra = []
    if entry.get("prize") not in (None, "", "no"):
        extra.append(f"prize {entry['prize']}")
    oeis = [o for o in entry.get("oeis") or [] if o not in ("N/A", "possible")]
    if oeis:
        extra.append("OEIS " + ", ".join(oeis))
    if entry.get("tags"):
        extra.append("tags " + ", ".join(entry["tags"]))
    if entry.get("comments"):
        extra.append(f"comments: {entry['comments']}")
    st, _ = state_of(entry, "status")
    verdict = (
        "The database marks the problem settled, so this target is a calibration candidate "
        "and is never labelled an open problem." if is_solved(st) else
        "These are the database's records with their dates, not proof that the problem is "
        "open: a prior-art check of the literature is still required.")
    return textwrap.fill(
        f"{DB_PARAGRAPH_MARK} {where}, entry {num} — prior-art check required (D-6 item 1). "
        "Records " + "; ".join(parts or ["no status"]) +
        (". " + "; ".join(extra) if extra else "") + f". {verdict}", 90)


def _strip_old_paragraph(summary: str) -> str:
    if summary.startswith(DB_PARAGRAPH_MARK):
        _, _, rest = summary.partition("\n\n")
        return rest
    return summary


def plan_erdosproblems_import(db_file: str | Path, graph: str | Path | Source | CommitSource | GraphView | None, *,
                              problems: list[str] | None = None,
                              repository: str = DB_REPOSITORY) -> ImportPlan:
    """Compute the file set attaching an erdosproblems database to a graph's targets (D-6
    item 1, D-10).

    Args:
        db_file: the database YAML file (``data/problems.yaml`` of a checkout).
        graph: the graph to attach to (a folder, a Source at main, or None: report only).
        problems: numbers to consider; None considers every entry.
        repository: the https URL of the database's repository, for references.

    Returns:
        An :class:`ImportPlan`: only target.yaml files whose content changes; the report
        lists ``attached`` targets and problems with ``no_formal_statement`` or
        ``formalized_not_imported``; curator attention lists relabelled targets.

    Raises:
        LemmataError: ``import-source-invalid`` (no such file), ``import-hostile-path`` (a
            problem id that is not a number), ``import-malformed-registry``,
            ``file-too-large``, ``not-utf8``.
    """
    path = Path(db_file)
    if path.is_symlink() or not path.is_file():
        raise LemmataError("import-source-invalid", f"{path} is not a regular file")
    data = path.read_bytes()
    entries = load_entries(data, path.name)
    for pid in problems or []:
        if not re.fullmatch(r"[0-9]{1,6}", pid):
            raise LemmataError("import-hostile-path", f"problem id {pid!r} is not a number")
    commit, rel = _db_commit(path, data)
    rel = rel or "data/problems.yaml"
    db_url = f"{repository}/blob/{commit}/{rel}" if commit else repository
    where = (f"{repository.removeprefix('https://github.com/')} {rel} at commit {commit}"
             if commit else f"{repository.removeprefix('https://github.com/')} {rel} "
             "(an uncommitted copy)")
    view = graph if isinstance(graph, GraphView) else GraphView(graph)
    plan = ImportPlan(report={"source": "erdosproblems", "repository": repository,
                              "commit": commit, "file": rel, "attached": [],
                              "no_formal_statement": [], "formalized_not_imported": []})
    targets = view.target_ids()
    for num in sorted(entries, key=int):
        if problems is not None and num not in problems:
            continue
        entry = entries[num]
        mine = [t for t in targets if t == f"erdos-{num}" or t.startswith(f"erdos-{num}-")]
        page = f"https://www.erdosproblems.com/{num}"
        if not mine:
            fst, _ = state_of(entry, "formalized")
            item = {"number": num, "reference": page, "status": state_of(entry, "status")[0],
                    "calibration_candidate": is_solved(state_of(entry, "status")[0])}
            key = "formalized_not_imported" if (fst or "").lower() == "yes" else \
                "no_formal_statement"
            plan.report[key].append(item)
            continue
        for tid in mine:
            _attach(plan, view, tid, num, entry, where, db_url, page)
    return plan


def _attach(plan: ImportPlan, view: GraphView, tid: str, num: str, entry: dict[str, Any],
            where: str, db_url: str, page: str) -> None:
    tpath = f"targets/{tid}/target.yaml"
    old = view.record(tpath, m.TargetRecord)
    if old is None:
        plan.attention.append(Attention("target-record-invalid", tid, None,
                                        f"{tpath} does not validate; nothing was attached."))
        return
    if old.intake is None:
        plan.attention.append(Attention(
            "no-intake", tid, None, "the target has no intake; prior art cannot be attached "
            "until a curator writes one (D-6)."))
        return
    state, sdate = state_of(entry, "status")
    solved = is_solved(state)
    intake = old.intake
    note = "; ".join(f"{k}: {s}" + (f" ({d})" if d else "")
                     for k in _STATUS_FIELDS for s, d in [state_of(entry, k)] if s) or None
    db_title = f"erdosproblems database, entry {num}"
    refs = [r for r in intake.prior_art.references if not r.title.startswith(db_title)]
    refs.append(m.Reference(title=db_title, url=db_url, note=note[:2000] if note else None))
    if not any(r.url == page for r in refs):
        refs.append(m.Reference(title=f"Erdős Problem #{num} (erdosproblems.com)", url=page))
    prov = intake.provenance
    if prov.repository and prov.commit and prov.file:
        formal = f"{prov.repository}/blob/{prov.commit}/{prov.file}"
        if not any(r.url == formal for r in refs):
            refs.append(m.Reference(title=f"Formal statement: {prov.file}", url=formal,
                                    note=f"declaration {prov.declaration}"))
    rest = _strip_old_paragraph(intake.prior_art.summary)
    summary = _paragraph(num, entry, where) + ("\n\n" + rest if rest else "")
    prior = intake.prior_art.model_copy(update={"summary": summary, "references": refs})
    area = list(old.area) + [t[:100] for t in entry.get("tags") or [] if t not in old.area]
    update: dict[str, Any] = {"intake": intake.model_copy(update={"prior_art": prior}),
                              "area": area}
    if solved:
        update.update({"target_class": "calibration", "calibration": True})
        if old.target_class != "calibration" or not old.calibration:
            plan.attention.append(Attention(
                "registry-says-solved", tid, None,
                f"the erdosproblems database marks problem {num} `{state}`"
                + (f" ({sdate})" if sdate else "") + "; the target is relabelled a calibration "
                "candidate and is not an open problem (D-6). Check the literature."))
    new = m.TargetRecord.model_validate({**old.model_dump(by_alias=False),
                                         **update})
    plan.report["attached"].append({"target": tid, "number": num, "status": state,
                                    "calibration_candidate": solved})
    if new != old:
        plan.files[tpath] = yaml_bytes(record_dict(new))
