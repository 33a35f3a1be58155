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

A target.yaml is rewritten only when its content changes, and attaching is idempotent: the
database reference replaces its earlier self in place and the page and formal-statement links
are added only when absent, so the first re-run already changes nothing (issue 12).

Disagreements (issue 12): where the target came from Formal Conjectures and its category
(``research open`` / ``research solved``, ``textbook``, …) and the database's ``status``
differ on solved/open, the import reports it — comparing like with like (issue 28): the
database's status is the whole problem's, so only the target stating the whole problem
(``erdos-N``) is compared, never a part or a side result (``erdos-N-<suffix>``, whose
paragraph says so); the caveat beside a status follows the status (:func:`status_caveat`) — (``disagreements``, with the Formal Conjectures
commit and date and the database state and date), lists it for curator attention
(``registries-disagree``) on every run, and says so in the database paragraph of the
target's prior-art summary, so the record and its site page carry it. No record model
changes: the target page reads the paragraph's sources back with :func:`target_provenance`.

The database is external data: a file unreadable as a whole (bad YAML, anchors or aliases,
deep nesting, not a list, too large, not UTF-8) is refused with its catalog code; a
malformed entry (odd types, oversize or control-character strings, a number given twice) is
one ``rejected`` report line with code ``import-malformed-registry``, and the other entries
import.
"""

from __future__ import annotations

import datetime as dt
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import yaml
from pydantic import ValidationError

from network.errors import LemmataError
from network.importers import Attention, GraphView, ImportPlan, record_dict, yaml_bytes
from network.record import models as m
from network.record.read.source import CommitSource, Source

DB_REPOSITORY = "https://github.com/teorth/erdosproblems"
DB_PARAGRAPH_MARK = "erdosproblems database:"
DB_PAGE = "https://www.erdosproblems.com/{number}"
SOLVED_STATES = frozenset({"proved", "disproved", "solved", "independent"})
MAX_DB_BYTES = 20_000_000
#: the deepest nesting a database entry has (list → entry → status mapping → value)
MAX_DB_DEPTH = 6
#: the C safe loader where PyYAML has it (the database is 400 kB)
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STATUS_FIELDS = ("status", "informal_status", "formal_status", "formalized")
#: Formal Conjectures categories that say the statement is settled (the FC importer's
#: calibration categories, D-6 on-ramp); ``research open`` says it is open
_FC_SOLVED = ("research solved", "research formally solved", "textbook", "undergraduate",
              "graduate", "high_school")
_FC_OPEN = "research open"
#: what an entry's fields may hold: a state is a few words ("proved (Lean)", "not
#: provable"), so it can never be confused with the note syntax ``key: state (date)``
_STATE_RE = re.compile(r"[A-Za-z][A-Za-z0-9 ()_-]{0,39}")
_NUMBER_RE = re.compile(r"[0-9]{1,6}")
_LIMITS = {"prize": 40, "comments": 2000, "tag": 100, "oeis": 20}
_MAX_ITEMS = {"tags": 50, "oeis": 100}
#: C0/C1 controls and the bidirectional overrides (a Trojan-source string in a record)
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _date(value: Any) -> str | None:
    """``YYYY-MM-DD`` from a database date (``2025-12-2`` is padded), or None."""
    if isinstance(value, dt.date):
        return value.strftime("%Y-%m-%d")
    if not isinstance(value, str):
        return None
    mt = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", value.strip())
    if not mt:
        return None
    try:
        return dt.date(int(mt.group(1)), int(mt.group(2)), int(mt.group(3))).isoformat()
    except ValueError:
        return None


def state_of(entry: dict[str, Any], key: str) -> tuple[str | None, str | None]:
    """``(state, date)`` of a status field; a bare string is a state with no date."""
    v = entry.get(key)
    if isinstance(v, dict):
        st = v.get("state")
        return (str(st).strip() if st is not None else None), _date(v.get("last_update"))
    return (str(v).strip(), None) if v is not None else (None, None)


def is_solved(state: str | None) -> bool:
    """Whether a database state says the problem is settled: proved, disproved, solved or
    independent, with or without a ``(Lean)`` suffix (D-6: such a target is a calibration
    candidate, never an open problem)."""
    if not state:
        return False
    return re.sub(r"\s*\(.*\)\s*$", "", state.strip().lower()) in SOLVED_STATES


def fc_says_solved(category: str | None) -> bool | None:
    """What a Formal Conjectures category says: True (settled: research solved, formally
    solved, textbook, …), False (``research open``), None (no judgement: test, absent)."""
    if category is None:
        return None
    c = " ".join(category.split()).lower()
    if c == _FC_OPEN:
        return False
    return True if c.startswith(_FC_SOLVED) else None


def _text_problem(key: str, v: Any, limit: int) -> str | None:
    if not isinstance(v, str):
        return f"{key} is a {type(v).__name__}, not a string"
    if len(v) > limit:
        return f"{key} is {len(v)} characters; at most {limit}"
    if _CONTROL_RE.search(v):
        return f"{key} holds a control or bidirectional-override character"
    return None


def entry_problem(entry: Any) -> str | None:
    """Why one database entry cannot be imported, or None when it can.

    An entry is a mapping with a plain ``number`` (1-6 digits); each status field is a
    state string or a mapping with a ``state`` of a few words and a ``last_update`` date;
    ``prize`` and ``comments`` are short strings; ``tags`` and ``oeis`` are short lists of
    short strings; no string holds a control character. The message names the field and
    its type or size, never the (possibly huge) value."""
    if not isinstance(entry, dict):
        return f"a {type(entry).__name__}, not a mapping"
    num = entry.get("number")
    if not isinstance(num, (str, int)) or isinstance(num, bool) or \
            not _NUMBER_RE.fullmatch(str(num).strip()):
        return "number is not a plain number of at most 6 digits"
    for key in _STATUS_FIELDS:
        v = entry.get(key)
        if v is None:
            continue
        if isinstance(v, dict):
            st, when = v.get("state"), v.get("last_update")
        else:
            st, when = v, None
        if st is not None and (not isinstance(st, str) or not _STATE_RE.fullmatch(st.strip())):
            return f"{key} state is not a few words (letters, digits, spaces, brackets)"
        if when is not None and _date(when) is None:
            return f"{key} last_update is not a date"
    for key in ("prize", "comments"):
        if entry.get(key) is not None:
            why = _text_problem(key, entry[key], _LIMITS[key])
            if why:
                return why
    for key in ("tags", "oeis"):
        v = entry.get(key)
        if v is None:
            continue
        if not isinstance(v, list):
            return f"{key} is a {type(v).__name__}, not a list"
        if len(v) > _MAX_ITEMS[key]:
            return f"{key} has {len(v)} items; at most {_MAX_ITEMS[key]}"
        for item in v:
            why = _text_problem(f"an item of {key}", item, _LIMITS["tag" if key == "tags"
                                                                    else "oeis"])
            if why:
                return why
    return None


def _structure_problem(text: str) -> str | None:
    """Why the file is not plain data (an anchor or alias, nesting deeper than
    :data:`MAX_DB_DEPTH`), read from the parse events before anything is built."""
    depth = 0
    for ev in yaml.parse(text, Loader=_Loader):
        mark = ev.start_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""
        if isinstance(ev, yaml.AliasEvent) or getattr(ev, "anchor", None) is not None:
            return f"{where}a YAML anchor or alias (the database uses none)"
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DB_DEPTH:
                return f"{where}nested deeper than {MAX_DB_DEPTH}"
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return None


def read_database(data: bytes, label: str) -> tuple[dict[str, dict[str, Any]],
                                                    list[dict[str, Any]]]:
    """Parse the database into ``number → entry`` and the entries it rejects.

    A malformed entry (see :func:`entry_problem`) and every entry of a number that appears
    more than once are rejected, each as one line ``{"entry": i, "number": n or None,
    "code": "import-malformed-registry", "detail": …}``; the other entries import.

    Raises:
        LemmataError: for a file that cannot be read as a whole:
            ``import-malformed-registry`` (bad YAML with its line, anchors or aliases,
            nesting deeper than :data:`MAX_DB_DEPTH`, a top level that is not a list);
            ``file-too-large`` past :data:`MAX_DB_BYTES`; ``not-utf8``.
    """
    if len(data) > MAX_DB_BYTES:
        raise LemmataError("file-too-large", f"{len(data)} bytes", path=label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LemmataError("not-utf8", f"byte {exc.start}", path=label) from exc
    try:
        why = _structure_problem(text)
        if why:
            raise LemmataError("import-malformed-registry", why, path=label)
        doc = yaml.load(text, Loader=_Loader)  # the safe loader (C where available)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise LemmataError("import-malformed-registry",
                           f"{where}{getattr(exc, 'problem', None) or exc}", path=label) from exc
    except RecursionError as exc:  # pragma: no cover - the depth check comes first
        raise LemmataError("import-malformed-registry", "nested too deeply", path=label) from exc
    if not isinstance(doc, list):
        raise LemmataError("import-malformed-registry", "the top level is not a list", path=label)
    rejected: list[dict[str, Any]] = []
    seen: dict[str, list[int]] = {}
    good: dict[int, tuple[str, dict[str, Any]]] = {}
    for i, entry in enumerate(doc, start=1):
        why = entry_problem(entry)
        num = None
        if isinstance(entry, dict) and isinstance(entry.get("number"), (str, int)) and \
                _NUMBER_RE.fullmatch(str(entry["number"]).strip()):
            num = str(int(str(entry["number"]).strip()))
        if why:
            rejected.append({"entry": i, "number": num, "code": "import-malformed-registry",
                             "detail": f"entry {i}: {why}"})
            continue
        assert num is not None and isinstance(entry, dict)
        seen.setdefault(num, []).append(i)
        good[i] = (num, entry)
    out: dict[str, dict[str, Any]] = {}
    for i, (num, entry) in good.items():
        if len(seen[num]) > 1:
            rejected.append({"entry": i, "number": num, "code": "import-malformed-registry",
                             "detail": f"entry {i}: number {num} appears {len(seen[num])} "
                             f"times (entries {', '.join(map(str, seen[num]))}); none of "
                             "them is imported"})
            continue
        out[num] = entry
    rejected.sort(key=lambda r: int(r["entry"]))
    return out, rejected


def load_entries(data: bytes, label: str) -> dict[str, dict[str, Any]]:
    """Parse the database into ``number → entry``, refusing it if any entry is rejected
    (the strict reading; :func:`read_database` is the one the import uses).

    Raises:
        LemmataError: as :func:`read_database`, and ``import-malformed-registry`` listing
            the first 20 rejected entries.
    """
    out, rejected = read_database(data, label)
    if rejected:
        raise LemmataError("import-malformed-registry",
                           f"{len(rejected)} problem(s): "
                           + "; ".join(r["detail"] for r in rejected[:20]), path=label)
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


@dataclass(frozen=True)
class Disagreement:
    """Formal Conjectures and the erdosproblems database disagree on solved/open for one
    target (issue 12): the curator settles it before either registry is relied on (D-6).

    Attributes:
        target: the target id; number: the problem number.
        fc_category: the category of the target's root at ``fc_commit`` (``research open``).
        fc_commit: the Formal Conjectures commit (40 hex) the target was imported from.
        fc_date: that commit's date, ``YYYY-MM-DD``, as the import recorded it (the
            target's ``listed``: the Formal Conjectures import lists a target on the date
            of the commit it reads).
        db_status: the database's ``status`` state (``open``, ``proved (Lean)``).
        db_date: its ``last_update``, ``YYYY-MM-DD``, or None when the database gives none.
    """

    target: str
    number: str
    fc_category: str
    fc_commit: str | None
    fc_date: str
    db_status: str
    db_date: str | None

    @property
    def fc_solved(self) -> bool:
        """Whether Formal Conjectures is the side that says solved."""
        return bool(fc_says_solved(self.fc_category))

    def sentence(self) -> str:
        """One sentence for the curator, with both registries' words and dates."""
        fc = (f"Formal Conjectures tags it `{self.fc_category}` (commit "
              f"{self.fc_commit or 'unrecorded'}, {self.fc_date})")
        db = (f"the erdosproblems database records status `{self.db_status}`"
              + (f" (last update {self.db_date})" if self.db_date else " (no date given)"))
        return (f"The registries disagree: {fc}, while {db}. A curator settles which is "
                "right before either is relied on (D-6).")

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the import report."""
        return {"target": self.target, "number": self.number,
                "formal_conjectures": {"says": "solved" if self.fc_solved else "open",
                                       "category": self.fc_category,
                                       "commit": self.fc_commit, "date": self.fc_date},
                "database": {"says": "open" if self.fc_solved else "solved",
                             "status": self.db_status, "date": self.db_date}}


def is_whole_problem(target: str, number: str) -> bool:
    """Whether ``target`` states problem ``number`` as a whole (``erdos-N``), rather than a
    part or a side result of it (``erdos-N-<suffix>``: a ``.parts.`` statement, a lettered
    one, a root under another name)."""
    return target == f"erdos-{number}"


def disagreement(rec: m.TargetRecord, number: str, db_status: str | None,
                 db_date: str | None) -> Disagreement | None:
    """The solved/open disagreement between a Formal Conjectures target and the database's
    ``status`` for its problem, or None when they agree or either says nothing (a target not
    imported from Formal Conjectures, a category such as ``test``, no status).

    Like with like (issue 28): the database records one status per problem, the whole
    problem's, so only the target stating the whole problem (:func:`is_whole_problem`) is
    compared with it; a part's or a side result's category says nothing about the whole
    (a part can be solved while the problem is open), so it is never flagged."""
    if rec.intake is None or rec.intake.provenance.source != "formal-conjectures":
        return None
    if not is_whole_problem(rec.id, number):
        return None  # like with like (issue 28): the database's status is the whole problem's
    prov = rec.intake.provenance
    fc = fc_says_solved(prov.category)
    if fc is None or not db_status or fc == is_solved(db_status):
        return None
    assert prov.category is not None
    return Disagreement(rec.id, number, prov.category, prov.commit, rec.listed, db_status,
                        db_date)


def _paragraph(num: str, entry: dict[str, Any], where: str,
               dis: Disagreement | None, part: str | None = None) -> str:
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
    whole = "" if part is None else (
        f" These records are problem {num}'s as a whole; this target states a part or a side "
        "result of it, so its category is not compared with them.")
    return textwrap.fill(
        f"{DB_PARAGRAPH_MARK} {where}, entry {num} — prior-art check required (D-6 item 1). "
        "Records " + "; ".join(parts or ["no status"]) +
        (". " + "; ".join(extra) if extra else "") + f". {status_caveat(st)}{whole}"
        + (f" {dis.sentence()}" if dis else ""), 90)


def status_caveat(state: str | None) -> str:
    """The caveat a database status carries, following the status (issue 28): a settled one
    makes the target a calibration candidate; any other is the database's word, never
    proof that the problem is open."""
    if is_solved(state):
        return ("The database marks the problem settled, so this target is a calibration "
                "candidate and is never labelled an open problem.")
    return ("These are the database's records with their dates, not proof that the problem "
            "is open: a prior-art check of the literature is still required.")


def _strip_old_paragraph(summary: str) -> str:
    if summary.startswith(DB_PARAGRAPH_MARK):
        _, _, rest = summary.partition("\n\n")
        return rest
    return summary


def plan_erdosproblems_import(db_file: str | Path,
                              graph: str | Path | Source | CommitSource | GraphView | None, *,
                              problems: list[str] | None = None,
                              repository: str = DB_REPOSITORY,
                              commit: str | None = None) -> ImportPlan:
    """Compute the file set attaching an erdosproblems database to a graph's targets (D-6
    item 1, D-10; issue 12).

    Args:
        db_file: the database YAML file (``data/problems.yaml`` of a checkout).
        graph: the graph to attach to (a folder, a Source at main, or None: report only).
        problems: numbers to consider; None considers every entry.
        repository: the https URL of the database's repository, for references.
        commit: the database commit (40 hex) the file is an untouched copy of, for a copy
            outside git (an unpacked archive); default: HEAD of the git work tree holding
            the file when it is committed there unchanged, else none (an uncommitted copy).

    Returns:
        An :class:`ImportPlan`: only target.yaml files whose content changes, and a re-run
        over its own result changes nothing. The report lists ``attached`` targets,
        problems with ``no_formal_statement`` or ``formalized_not_imported``, the
        ``rejected`` entries (one line each, code ``import-malformed-registry``: a
        malformed entry never ends the run) and every solved/open ``disagreements``
        between Formal Conjectures and the database with both dates; curator attention
        lists relabelled targets (``registry-says-solved``), the disagreements
        (``registries-disagree``, also written into the target's prior-art summary) and
        targets whose entry was rejected (``registry-entry-rejected``).

    Raises:
        LemmataError: ``import-source-invalid`` (no such file, a commit that is not 40
            hex), ``import-hostile-path`` (a problem id that is not a number), and for a
            file unreadable as a whole ``import-malformed-registry``, ``file-too-large``,
            ``not-utf8``.
    """
    path = Path(db_file)
    if path.is_symlink() or not path.is_file():
        raise LemmataError("import-source-invalid", f"{path} is not a regular file")
    if commit is not None and not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise LemmataError("import-source-invalid", f"commit {commit[:60]!r} is not 40 hex")
    if path.stat().st_size > MAX_DB_BYTES:
        raise LemmataError("file-too-large", f"{path.stat().st_size} bytes", path=path.name)
    data = path.read_bytes()
    entries, rejected = read_database(data, path.name)
    for pid in problems or []:
        if not _NUMBER_RE.fullmatch(pid):
            raise LemmataError("import-hostile-path", f"problem id {pid[:60]!r} is not a number")
    git_commit, rel = _db_commit(path, data)
    commit = commit or git_commit
    rel = rel or "data/problems.yaml"
    db_url = f"{repository}/blob/{commit}/{rel}" if commit else repository
    where = (f"{repository.removeprefix('https://github.com/')} {rel} at commit {commit}"
             if commit else f"{repository.removeprefix('https://github.com/')} {rel} "
             "(an uncommitted copy)")
    view = graph if isinstance(graph, GraphView) else GraphView(graph)
    plan = ImportPlan(report={"source": "erdosproblems", "repository": repository,
                              "commit": commit, "file": rel, "attached": [],
                              "no_formal_statement": [], "formalized_not_imported": [],
                              "rejected": [], "disagreements": []})
    targets = view.target_ids()

    def mine(num: str) -> list[str]:
        return [t for t in targets if t == f"erdos-{num}" or t.startswith(f"erdos-{num}-")]

    for r in rejected:
        if problems is not None and r["number"] not in problems:
            continue
        plan.report["rejected"].append(r)
        for tid in mine(r["number"]) if r["number"] else []:
            plan.attention.append(Attention(
                "registry-entry-rejected", tid, None,
                f"{r['detail']}; this target's prior art was not refreshed from the database."))
    for num in sorted(entries, key=int):
        if problems is not None and num not in problems:
            continue
        entry = entries[num]
        page = DB_PAGE.format(number=num)
        if not mine(num):
            fst, _ = state_of(entry, "formalized")
            item = {"number": num, "reference": page, "status": state_of(entry, "status")[0],
                    "calibration_candidate": is_solved(state_of(entry, "status")[0])}
            key = "formalized_not_imported" if (fst or "").lower() == "yes" else \
                "no_formal_statement"
            plan.report[key].append(item)
            continue
        for tid in mine(num):
            _attach(plan, view, tid, num, entry, where, db_url, page)
    return plan


def _db_title(num: str) -> str:
    return f"erdosproblems database, entry {num}"


def _status_note(entry: dict[str, Any]) -> str | None:
    return "; ".join(f"{k}: {s}" + (f" ({d})" if d else "")
                     for k in _STATUS_FIELDS for s, d in [state_of(entry, k)] if s) or None


def _references(old: list[m.Reference], num: str, entry: dict[str, Any], db_url: str,
                page: str, prov: m.Provenance) -> list[m.Reference]:
    """The references after attaching: the database entry replaces its earlier reference
    in place (or is appended), and the problem's page and the formal statement are appended
    only when absent, so attaching twice gives what attaching once gave (issue 12: a
    second run used to move the database entry behind the page link)."""
    note = _status_note(entry)
    db_ref = m.Reference(title=_db_title(num), url=db_url, note=note[:2000] if note else None)
    refs: list[m.Reference] = []
    for r in old:
        if r.title == _db_title(num):
            if db_ref not in refs:
                refs.append(db_ref)
        else:
            refs.append(r)
    if db_ref not in refs:
        refs.append(db_ref)
    if not any(r.url == page for r in refs):
        refs.append(m.Reference(title=f"Erdős Problem #{num} (erdosproblems.com)", url=page))
    formal = fc_file_url(prov)
    if formal and not any(r.url == formal for r in refs):
        refs.append(m.Reference(title=f"Formal statement: {prov.file}", url=formal,
                                note=f"declaration {prov.declaration}"))
    return refs


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
    dis = disagreement(old, num, state, sdate)
    intake = old.intake
    refs = _references(list(intake.prior_art.references), num, entry, db_url, page,
                       intake.provenance)
    rest = _strip_old_paragraph(intake.prior_art.summary)
    part = None if is_whole_problem(tid, num) else tid
    summary = _paragraph(num, entry, where, dis, part) + ("\n\n" + rest if rest else "")
    prior = intake.prior_art.model_copy(update={"summary": summary, "references": refs})
    area = list(old.area) + [t for t in entry.get("tags") or [] if t not in old.area]
    update: dict[str, Any] = {"intake": intake.model_copy(update={"prior_art": prior}),
                              "area": area}
    if solved:
        update.update({"target_class": "calibration", "calibration": True})
    try:
        new = m.TargetRecord.model_validate({**old.model_dump(by_alias=False), **update})
    except ValidationError as exc:
        detail = f"entry {num}: the target record would not validate ({exc.error_count()} " \
                 f"error(s), first at {'.'.join(map(str, exc.errors()[0]['loc']))})"
        plan.report["rejected"].append({"entry": None, "number": num,
                                        "code": "import-malformed-registry", "detail": detail})
        plan.attention.append(Attention("registry-entry-rejected", tid, None,
                                        f"{detail}; nothing was attached."))
        return
    if solved and (old.target_class != "calibration" or not old.calibration):
        plan.attention.append(Attention(
            "registry-says-solved", tid, None,
            f"the erdosproblems database marks problem {num} `{state}`"
            + (f" ({sdate})" if sdate else "") + "; the target is relabelled a calibration "
            "candidate and is not an open problem (D-6). Check the literature."))
    if dis is not None:
        plan.report["disagreements"].append(dis.to_dict())
        plan.attention.append(Attention("registries-disagree", tid, None, dis.sentence()))
    plan.report["attached"].append({"target": tid, "number": num, "status": state,
                                    "calibration_candidate": solved,
                                    "registries_disagree": dis is not None,
                                    "compared": part is None})
    if new != old:
        plan.files[tpath] = yaml_bytes(record_dict(new))


# --- reading back what the import wrote (the site's target page) ------------------------

_SAFE_REPO_RE = re.compile(r"https://[A-Za-z0-9.-]+(/[A-Za-z0-9_.-]+)+")
_SAFE_FILE_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")
_NOTE_PART_RE = re.compile(r"(?P<key>[a-z_]+): (?P<state>.*?)(?: \((?P<date>\d{4}-\d{2}-\d{2})\))?")


def fc_file_url(prov: m.Provenance) -> str | None:
    """``<repository>/blob/<commit>/<file>`` for a statement imported from a registry
    checkout, or None when the provenance lacks one of them or holds anything but a plain
    https repository URL and a plain relative path (a record is data: never a link to
    ``javascript:`` or out of the repository)."""
    if not (prov.repository and prov.commit and prov.file):
        return None
    if not _SAFE_REPO_RE.fullmatch(prov.repository) or ".." in prov.file.split("/") or \
            not _SAFE_FILE_RE.fullmatch(prov.file):
        return None
    return f"{prov.repository}/blob/{prov.commit}/{prov.file}"


@dataclass(frozen=True)
class DatabaseStatus:
    """The erdosproblems database's word on a target, as the import recorded it.

    Attributes:
        number: the problem number; url: the database file (at its commit when known).
        statuses: ``(field, state, date or None)`` for status, informal_status,
            formal_status, formalized, in that order, where recorded.
    """

    number: str
    url: str | None
    statuses: tuple[tuple[str, str, str | None], ...]

    @property
    def status(self) -> tuple[str | None, str | None]:
        """``(state, date)`` of the ``status`` field."""
        for key, st, d in self.statuses:
            if key == "status":
                return st, d
        return None, None

    @property
    def caveat(self) -> str:
        """The caveat the status carries (:func:`status_caveat`): what a page says beside
        the database's word, following the status rather than fixed."""
        return status_caveat(self.status[0])


@dataclass(frozen=True)
class TargetProvenance:
    """What a target page shows of where a target came from (issue 12).

    Attributes:
        source: the provenance source (``formal-conjectures``, ``authored``, …).
        declaration, category, commit, file: the statement's declaration, its registry
            category, the registry commit and file, where recorded.
        file_url: the file at its commit (:func:`fc_file_url`), or None.
        page: the problem's erdosproblems.com page, or None.
        database: the database's status with dates, or None when never attached.
        disagreement: the registries' solved/open disagreement, or None.
    """

    source: str
    declaration: str | None
    category: str | None
    commit: str | None
    file: str | None
    file_url: str | None
    page: str | None
    database: DatabaseStatus | None
    disagreement: Disagreement | None


def _number_of(tid: str) -> str | None:
    mt = re.fullmatch(r"erdos-([0-9]{1,6})(?:-[a-z0-9-]+)?", tid)
    return mt.group(1) if mt else None


def target_provenance(rec: m.TargetRecord) -> TargetProvenance | None:
    """Read a target record's provenance back for display: the registry file at its
    commit, the erdosproblems.com page and the database's statuses (from the reference
    this import writes), and their disagreement; None for a target with no intake."""
    if rec.intake is None:
        return None
    prov = rec.intake.provenance
    num = _number_of(rec.id)
    page = db = None
    if num is not None:
        want = DB_PAGE.format(number=num)
        page = next((r.url for r in rec.intake.prior_art.references
                     if r.url in (want, want.replace("://www.", "://"))), None)
        ref = next((r for r in rec.intake.prior_art.references if r.title == _db_title(num)),
                   None)
        if ref is not None:
            statuses = []
            for part in (ref.note or "").split("; "):
                mt = _NOTE_PART_RE.fullmatch(part)
                if mt and mt.group("key") in _STATUS_FIELDS:
                    statuses.append((mt.group("key"), mt.group("state"), mt.group("date")))
            url = ref.url if ref.url and ref.url.startswith("https://") else None
            db = DatabaseStatus(num, url, tuple(statuses))
    dis = None
    if db is not None and num is not None:
        st, d = db.status
        dis = disagreement(rec, num, st, d)
    return TargetProvenance(prov.source, prov.declaration, prov.category, prov.commit,
                            prov.file, fc_file_url(prov), page, db, dis)
