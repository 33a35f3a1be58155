"""Incremental products: after a merge, re-derive only what the merge touched (issue 17).

:func:`update_products` gives exactly the bytes :func:`network.record.products.products.products`
gives for the new graph (``tests/test_incremental_products.py`` holds the two equal on
random merge sequences), but derives only the targets the changed paths *touch*; every
other target's parts are taken from the previous products (its ``graph.json``, its
frontier entries, its index row). Products are derived from the record alone (D-25, D-28,
ruling 2), and a target's derivations read no other target's record except through the
inputs listed below, so this is a cache, never a second derivation.

What a changed path touches (:func:`plan_update`):

* ``targets/<t>/...`` (a node's files, attempts and records, the target's own records):
  target ``t``;
* an *added* ``attestations/<id>.json``: the target it names and every target an artifact
  path lies in (trust, ruling 14, is judged per attestation); an added
  ``log/merges/<seq>.json``: the targets of its artifacts and of every attestation whose
  ``graph_commit`` is its merge commit (staleness, D-8) or that it names; an added
  ``ledger/`` *line*: its target (a panel's voters hold proof credit, D-32);
* a role-signed act changed, or dated anew by an added merge record or attestation listing
  it (a shelving, a literature reading, a gloss or explainer with its approvals): besides
  its own target, every target linked to a signer through people holding steward records
  or acts (a signed act keeps its signer's stewardship from lapsing, and the steward cap
  judges a join on another target by the stewardships standing then, D-32 v3.34);
* products and tooling (:data:`network.record.read.loader.PRODUCT_PATHS_RE`): nothing.

What forces a full rebuild (each is read across targets, or is a record whose change
this module does not track): ``policy.json``, ``curators.json``, ``keys/``,
``identities/``, ``names/``; an attestation, merge record or ledger line modified or
removed, a revocation or correction; a steward record or steward act (the steward cap
counts stewardships over every target, D-32); any withdrawal record (D-18 v3.27: it may
withdraw a steward record); a target's ``panel/`` motions and votes; an added merge
record or attestation listing one of these target records (it dates the record anew); a
path the layout has no place for; no merge before (no clock), a clock that goes back (the newest merge
dated before the one before it: progress and stewardship dated after the new clock then
read differently, which carrying a row or a panel forward cannot say), or previous
products that do not read as the old graph's (a missing part, another ``as_of``).

The clock ("now", ruling 2) moves with every merge. It enters each ``graph.json`` and
``frontier.json`` only as ``as_of`` (patched in place), each index row through the
dormancy and starvation series (so when the clock moved every row is derived again), and
a target's panel through steward lapses (D-32 v3.34). A target is therefore also
touched, whenever the clock moved, when one of its stewardship runs begins, ends or
lapses between the old and new clock, or a steward's activity or a steward record on it
is dated after the old clock; and always when it holds motions, votes or steward acts (their judgments read the
clock and the whole panel).

What an update reads is the touched targets, not the graph (issue 17: a one-node merge at
100,000 nodes under 1 s): the new graph's index takes the old one's trust and merge facts
(:func:`network.record.derive._index.carry_index`: what the planner asks of the merge log
and attestations, which targets hold which closures, and each shared target's scan of
:mod:`network.record.read.target_scan`) and builds a target's part when a derivation first
reads it; frontier.json is spliced as bytes (each touched target's
entries cut out and its new ones put in), never parsed whole, and an untouched target's
index row is carried to the new clock from one pattern over those bytes (or from what
the update before left in the old graph's index for these very bytes); every other
product is the previous bytes with ``as_of`` patched in. A touched target with no frontier
entries before or after, or a target gone, takes the way that reads frontier.json whole
(:func:`_incremental_parsed`); ``tests/test_incremental_products.py`` holds both ways equal
to a full rebuild.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from network.errors import LemmataError, catalog_json
from network.record import derive
from network.record import models as m
from network.record.products import products as P
from network.record.read.loader import PRODUCT_PATHS_RE, Graph, gc_paused


@dataclass(frozen=True)
class Plan:
    """What an update re-derives.

    Attributes:
        full: why everything is derived again, or None for an incremental update.
        touched: the targets derived again (every target of the new graph when ``full``).
        clock_moved: whether "now" differs between the old and new graph.
        old_now, new_now: the two clocks (:func:`derive.now`).
        dates_settled: whether no merge record or attestation of the old graph is dated
            after the old clock's day (index rows are then carried to the new day).
    """

    full: str | None
    touched: frozenset[str] = field(default_factory=frozenset)
    clock_moved: bool = False
    old_now: str | None = None
    new_now: str | None = None
    dates_settled: bool = False


@functools.lru_cache(maxsize=1)
def _errors_bytes() -> bytes:
    """errors.json's bytes: the catalog is this code's, the same for every graph, and
    costly to read (it walks the modules' sources), so it is rendered once per process."""
    return P.render(catalog_json())


def _now(graph: Graph) -> str | None:
    """"now" without building the graph's index (as :func:`derive.now` reads it)."""
    return derive.norm_date(graph.merges[-1].record.date) if graph.merges else None


def _target_of(path: str) -> str | None:
    parts = path.split("/")
    return parts[1] if len(parts) >= 3 and parts[0] == "targets" else None


def _full_reason(path: str) -> str | None:
    """Why a changed record path forces a full rebuild, or None when it is local."""
    parts = path.split("/")
    if parts[0] == "targets":
        if len(parts) < 3:
            return f"{path}: no place in the layout"
        if parts[2] in ("stewards", "steward-acts", "panel"):
            return f"{path}: stewardship is read across targets (D-32)"
        if "withdrawals" in parts[2:-1]:
            return f"{path}: a withdrawal may reach a steward record (D-18)"
        return None
    return f"{path}: a root-level record every target reads"


def plan_update(old: Graph, new: Graph, changed: Iterable[str]) -> Plan:
    """Which targets ``changed`` touches between ``old`` and ``new`` (see the module text).

    Args:
        old: the graph the previous products were derived from.
        new: the graph to derive products for.
        changed: every graph path whose bytes differ between the two (added, modified or
            removed); products among them are ignored.

    Returns:
        a :class:`Plan`; ``full`` names the first reason found for a full rebuild.
    """
    old_now, new_now = _now(old), _now(new)
    moved = old_now != new_now
    if old_now is None or new_now is None:
        return Plan("no merge log on one side: no clock to carry over", frozenset(new.targets),
                    moved)
    if new_now < old_now:  # full ISO timestamps (norm_date): compared as text
        return Plan(f"the clock went back from {old_now} to {new_now}",
                    frozenset(new.targets), moved, old_now, new_now)
    touched: set[str] = set()
    added_records: set[str] = set()
    merges: list[m.MergeRecord] = []
    acts: set[str] = set()  # paths of role-signed acts changed, or dated anew by a merge
    for path in sorted(set(changed)):
        if PRODUCT_PATHS_RE.fullmatch(path):
            continue
        acts.add(path)
        added = path in new.files and path not in old.files
        parts = path.split("/")
        att = _record_at(new.attestations, path) if added and parts[0] == "attestations" \
            else None
        mrf = _record_at(new.merges, path) if added and parts[:2] == ["log", "merges"] \
            else None
        lrf = _record_at(new.ledger, path) if added and parts[0] == "ledger" else None
        listed = ([a.path for a in att.record.artifacts] if att is not None
                  else mrf.record.artifacts if mrf is not None else [])
        why = _dated_anew(listed)
        if why is not None:
            return Plan(why, frozenset(new.targets), moved)
        acts.update(listed)
        if att is not None:
            touched.update(derive.attestation_targets(att.record))
            added_records.add(path)
        elif mrf is not None:
            merges.append(mrf.record)
            added_records.add(path)
        elif lrf is not None and isinstance(lrf.record, m.LedgerLine):
            touched.add(lrf.record.target)
        else:
            why = _full_reason(path)
            if why is not None:
                return Plan(why, frozenset(new.targets), moved)
            tid = _target_of(path)
            assert tid is not None
            touched.add(tid)
    touched.update(set(new.targets) ^ set(old.targets))
    # every change is local or an added attestation, merge record or ledger line: the new
    # index can take the old one's trust and merge facts (when the old one is built)
    derive.carry_index(old, new, added_records)
    if merges:
        ix = derive._ix(new)
        for rec in merges:
            touched.update(t for p in rec.artifacts if (t := _target_of(p)) is not None)
            named = (_record_at(new.attestations, rec.attestation)
                     if rec.attestation is not None else None)
            if named is not None:
                touched.update(derive.attestation_targets(named.record))
            # attestations judged at its commit (staleness, D-8), closures dated by it
            touched.update(ix.commit_targets.get(rec.merge_commit, ()))
            touched.update(tid for tid, scan in ix.scans.items()
                           if rec.seq in scan.closure_seqs)
    for tid, tgt in new.targets.items():
        if tgt.motions or tgt.votes or tgt.steward_acts:
            touched.add(tid)  # their judgments read the clock and the whole panel
    touched.update(_sharing_stewards(old, new, acts))
    if moved:
        touched.update(_clock_sensitive(new, old_now, new_now))
    return Plan(None, frozenset(t for t in touched if t in new.targets), moved,
                old_now, new_now, _dates_settled(old, old_now[:10]))


def _dated_anew(paths: Iterable[str]) -> str | None:
    """Why an added merge record or attestation listing ``paths`` forces a full rebuild,
    or None: it lists a target's record that forces one when it changes (a steward
    record or act, a panel record, a withdrawal), which it dates anew (the merge log's
    date orders the panel's events, starts a stewardship's lapse and dates an act, and
    the steward cap judges joins over every target, D-32 v3.34)."""
    for p in paths:
        why = _full_reason(p) if p.startswith("targets/") else None
        if why is not None:
            return f"{why}, dated anew by a merge or attestation"
    return None


_ACT_LISTS = {"shelving": "shelvings", "literature": "literature", "gloss": "glosses",
              "explainer": "explainers"}


def _act_signers(graph: Graph, path: str) -> set[str]:
    """Who signs the role-signed act at ``path`` in ``graph`` as a steward's act for lapse
    (:func:`network.record.panel_roles._signed_acts`: a shelving's or literature
    reading's ``by``, a gloss's or explainer's approvers); none when it holds none."""
    parts = path.split("/")
    if len(parts) != 6 or parts[0] != "targets" or parts[2] != "nodes" \
            or parts[4] not in _ACT_LISTS:
        return set()
    t = graph.targets.get(parts[1])
    n = t.nodes.get(parts[3]) if t is not None else None
    rf = _record_at(getattr(n, _ACT_LISTS[parts[4]]), path) if n is not None else None
    if rf is None:
        return set()
    rec = rf.record
    if isinstance(rec, (m.Gloss, m.Explainer)):
        return {sig.signer for sig in rec.approvals}
    return {rec.by}


def _sharing_stewards(old: Graph, new: Graph, acts: set[str]) -> set[str]:
    """The targets whose panel a change of the acts at ``acts`` may move though no path
    of theirs changed: a signed act keeps its signer's stewardship of its target from
    lapsing, and whether a person's stewardship stands when they join another target
    decides that join (``steward_cap`` counts stewardships over every target, D-32
    v3.34), and so on through every target where someone judged again holds a steward
    record or act: every target linked to a signer through the people holding steward
    records or acts on both."""
    signers: set[str] = set().union(*(_act_signers(g, p) for p in acts for g in (old, new)))
    if not signers:
        return set()
    holders: dict[str, set[str]] = {}  # target -> the people with a record of it
    for g in (old, new):
        for tid, t in g.targets.items():
            got = holders.setdefault(tid, set())
            got.update(rf.record.pseudonym for rf in t.stewards)
            got.update(rf.record.pseudonym for rf in t.steward_acts)
    people, out = set(signers), set[str]()
    while True:
        more = {tid for tid, who in holders.items() if tid not in out and who & people}
        if not more:
            return out
        out |= more
        for tid in more:
            people |= holders[tid]


def _dates_settled(old: Graph, day: str) -> bool:
    """Whether no merge record or attestation of ``old`` is dated after ``day`` (a record
    date's first ten characters are its day, :func:`derive.norm_date`): read from
    ``old``'s index when it is built, else from every record."""
    ix = derive.index_if_built(old)
    if ix is not None:
        return max(ix.merge_latest_day, ix.att_latest_day) <= day
    return (all(rf.record.date[:10] <= day for rf in old.merges)
            and all(rf.record.timestamp[:10] <= day for rf in old.attestations))


def _record_at(records: list[Any], path: str) -> Any:
    """The record file at ``path`` in a graph's list of them, or None: found by bisection
    when the list is in path order, else by a walk."""
    i = bisect.bisect_left(records, path, key=lambda rf: rf.path)
    if i < len(records) and records[i].path == path:
        return records[i]
    return next((rf for rf in records if rf.path == path), None)


def _clock_sensitive(new: Graph, old_now: str, new_now: str) -> set[str]:
    """Targets whose panel may read differently at ``new_now`` than at ``old_now``: a run
    beginning, ending or lapsing in (old_now, new_now], activity dated after old_now, or
    a steward record dated after old_now (judged at the clock, so against runs that may
    have lapsed by the new one; :class:`network.record.panel_roles.PanelState`)."""
    from network.record.panel_roles import add_months

    ix = derive._ix(new)
    panel = ix.panel
    if panel is None:
        return set(new.targets)
    state = panel.state

    def inside(d: str | None) -> bool:
        return d is not None and old_now < _full(d) <= new_now

    out: set[str] = set()
    for (tid, who), runs in state.by_key.items():
        acts = state.activity.get((tid, who), [])
        if any(_full(d) > old_now for d in acts):
            out.add(tid)
            continue
        for s in runs:
            if inside(s.since) or inside(s.ended):
                out.add(tid)
            elif s.lapse_from is not None:
                last = state.last_act(tid, who, s.lapse_from, new_now)
                lapse = add_months(last, state.numbers.steward_lapse_months)
                if _full(lapse) <= new_now and _full(lapse) > old_now:
                    out.add(tid)
    for tid, t in new.targets.items():  # a steward record dated after old_now is judged
        # at the clock (PanelState.lapsed): the runs weighed against it may lapse between
        if any(_full(ix.merged_date(rf.path) or rf.record.since) > old_now
               for rf in t.stewards):
            out.add(tid)
    return out


def _full(date: str) -> str:
    return date if len(date) > 10 else f"{date}T00:00:00Z"


def _previous_ok(old: Graph, previous: Mapping[str, bytes]) -> str | None:
    """Why ``previous`` cannot be the old graph's products, or None."""
    for path in ("frontier.json", "targets/index.json", "info.json"):
        if path not in previous:
            return f"no previous {path}"
    for tid in old.targets:
        if f"targets/{tid}/graph.json" not in previous:
            return f"no previous graph.json for {tid}"
    try:
        info = orjson.loads(previous["info.json"])
        if info.get("as_of") != _now(old):
            return "previous products are not of the old graph's clock"
    except (orjson.JSONDecodeError, AttributeError):
        return "previous info.json does not read"
    return None


def update_products(old: Graph, new: Graph, changed: Iterable[str],
                    previous: Mapping[str, bytes]) -> dict[str, bytes]:
    """Every product of ``new`` as path → bytes, byte-identical to
    :func:`network.record.products.products.products` (``new``), deriving only the targets
    :func:`plan_update` names and carrying the rest over from ``previous``.

    Args:
        old: the graph ``previous`` was derived from.
        new: the graph after the merge.
        changed: the graph paths whose bytes differ between ``old`` and ``new``.
        previous: ``products(old)`` (e.g. read from the work tree or the commit); when it
            does not read as the old graph's (a part missing, another clock) everything
            is derived again.

    Returns:
        path → bytes, sorted by path (schemas/ excepted, as for ``products``).

    Raises:
        Nothing expected: derivations are total over a loaded graph.
    """
    return update_products_planned(old, new, changed, previous)[0]


def update_products_planned(old: Graph, new: Graph, changed: Iterable[str],
                            previous: Mapping[str, bytes]) -> tuple[dict[str, bytes], Plan]:
    """:func:`update_products` and the :class:`Plan` it followed (a full rebuild's
    ``full`` says why)."""
    with gc_paused():  # the new graph's index is built here: millions of objects
        plan = plan_update(old, new, changed)
        if plan.full is None:
            why = _previous_ok(old, previous)
            if why is not None:
                plan = Plan(why, frozenset(new.targets), plan.clock_moved, plan.old_now,
                            plan.new_now)
        if plan.full is not None:
            return P.products(new), plan
        try:
            return _incremental(old, new, plan, previous), plan
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            # previous products of the old clock but of another shape (read from a work
            # tree or a commit anyone may have edited): derived again in full
            derive._ix(new).products_memo.pop(_ZERO_MEMO, None)
            plan = Plan(f"previous products do not read as products ({type(exc).__name__})",
                        frozenset(new.targets), plan.clock_moved, plan.old_now, plan.new_now)
            return P.products(new), plan


def _incremental(old: Graph, new: Graph, plan: Plan,
                 previous: Mapping[str, bytes]) -> dict[str, bytes]:
    now = derive.now(new)
    as_of = orjson.dumps(now)
    old_size = orjson.loads(previous["info.json"]).get("counts", {}).get("frontier")
    spliced = (_spliced_frontier(new, plan, previous["frontier.json"], old_size, as_of)
               if isinstance(old_size, int) and not _targets_gone(new, previous) else None)
    if spliced is None:
        return _incremental_parsed(new, plan, previous)
    front, size, fresh = spliced
    out: dict[str, bytes] = {"frontier.json": front}
    out["info.json"] = P.render(P.info_json(new, size))
    known = _known_zero_ready(old, previous["frontier.json"])
    zero = (known if known is not None else _zero_attempt_ready(previous["frontier.json"])
            ) if plan.clock_moved else known
    if zero is not None:  # the next update reads the new frontier's without a scan
        after = {tid: ready for tid, ready in zero.items() if tid not in fresh}
        after.update((tid, _zero_ready(entries)) for tid, entries in fresh.items())
        derive._ix(new).products_memo[_ZERO_MEMO] = (front, after)
    zero = zero or {}
    old_rows = {r["id"]: r for r in orjson.loads(previous["targets/index.json"])["targets"]}
    rows: list[dict[str, Any]] = []
    for tid in new.targets:
        row = None if tid in plan.touched else old_rows.get(tid)
        if row is not None and plan.clock_moved:
            row = _row_at_clock(row, zero.get(tid, []), plan)
        if row is None:
            row = P.index_row(new, tid, fresh[tid] if tid in fresh else _entries(new, tid))
        rows.append(row)
    out["targets/index.json"] = P.render({"schema": "index/v1", "as_of": now,
                                          "targets": rows})
    out["errors.json"] = _errors_bytes()
    _graph_jsons(new, plan, previous, as_of, out)
    return dict(sorted(out.items()))


def _incremental_parsed(new: Graph, plan: Plan,
                        previous: Mapping[str, bytes]) -> dict[str, bytes]:
    """:func:`_incremental` from the previous frontier read whole, for the updates the
    byte splice (:func:`_spliced_frontier`) does not cover."""
    now = derive.now(new)
    touched = plan.touched
    old_front = orjson.loads(previous["frontier.json"])["nodes"]
    by_target: dict[str, list[dict[str, Any]]] = {}
    for e in old_front:
        by_target.setdefault(e["target"], []).append(e)
    nodes: list[dict[str, Any]] = []
    for tid in new.targets:
        nodes.extend(_entries(new, tid) if tid in touched else by_target.get(tid, []))
    front = {"schema": "frontier/v2", "graph_id": new.policy.graph_id, "as_of": now,
             "nodes": nodes}
    out: dict[str, bytes] = {"frontier.json": P.render(front)}
    out["info.json"] = P.render(P.info_json(new, len(nodes)))
    old_rows = {r["id"]: r for r in orjson.loads(previous["targets/index.json"])["targets"]}
    rows: list[dict[str, Any]] = []
    for tid in new.targets:
        row = None if tid in touched else old_rows.get(tid)
        if row is not None and plan.clock_moved:
            row = _row_at_clock(row, _zero_ready(by_target.get(tid, [])), plan)
        rows.append(row if row is not None else P.index_row(new, tid, nodes))
    out["targets/index.json"] = P.render({"schema": "index/v1", "as_of": now,
                                          "targets": rows})
    out["errors.json"] = _errors_bytes()
    _graph_jsons(new, plan, previous, orjson.dumps(now), out)
    return dict(sorted(out.items()))


def _targets_gone(new: Graph, previous: Mapping[str, bytes]) -> bool:
    """Whether the previous products hold a graph.json of a target ``new`` lacks (its
    frontier entries are then to leave, which the byte splice does not do)."""
    return any(mt.group(1) not in new.targets for path in previous
               if (mt := P._GRAPH_JSON_RE.fullmatch(path)))


def _entries(new: Graph, tid: str) -> list[dict[str, Any]]:
    """The target's frontier entries in the new graph, in record order."""
    return [derive.frontier_entry(new, tid, nid) for nid in new.targets[tid].nodes
            if derive.on_frontier(new, tid, nid)]


def _graph_jsons(new: Graph, plan: Plan, previous: Mapping[str, bytes], as_of: bytes,
                 out: dict[str, bytes]) -> None:
    """Each target's graph.json into ``out``: derived for a touched target, else the
    previous bytes with ``as_of`` (JSON bytes) patched in when the clock moved."""
    for tid in new.targets:
        path = f"targets/{tid}/graph.json"
        if tid in plan.touched:
            out[path] = P._graph_json(new, tid)
            continue
        data = previous[path]
        out[path] = _with_as_of(data, as_of) if plan.clock_moved else data


_AS_OF = b'\n  "as_of": '


def _as_of_span(data: bytes) -> tuple[int, int] | None:
    """Where a product's top-level ``as_of`` value lies in its bytes (the first line
    ``  "as_of": <value>,``, two spaces in): (start, end) offsets, or None when it has
    none."""
    i = data.find(_AS_OF)
    j = data.find(b",\n", i) if i >= 0 else -1
    return (i + len(_AS_OF), j) if j >= 0 else None


def _with_as_of(data: bytes, as_of: bytes) -> bytes:
    """A product's bytes with its top-level ``as_of`` value replaced by ``as_of``, JSON
    bytes (one copy: a graph.json is megabytes, and an update patches every untouched
    target's); unchanged when it has none."""
    span = _as_of_span(data)
    if span is None:
        return data
    view = memoryview(data)
    return b"".join((view[:span[0]], as_of, view[span[1]:]))


_NODES_OPEN = b'{\n  "nodes": [\n'
_NODES_CLOSE = b"\n  ]\n}\n"
_ENTRY_OPEN = b"\n    {\n"
_ENTRY_CLOSE = b"\n    }"
_ZERO_READY_RE = re.compile(
    rb'\n      "attempts": 0,\n(?:      [^\n]*\n)*?      "ready_since": "([^"\n]+)",\n'
    rb'(?:      [^\n]*\n)*?      "target": "([^"\n]*)"')


def _target_needle(tid: str) -> bytes:
    """An entry's ``target`` line as rendered (six spaces in: an entry's own key)."""
    return b'\n      "target": ' + orjson.dumps(tid)


def _spliced_frontier(new: Graph, plan: Plan, old: bytes, old_size: int, as_of: bytes,
                      ) -> tuple[bytes, int, dict[str, list[dict[str, Any]]]] | None:
    """frontier.json for ``new`` from the previous bytes ``old``, without reading them
    whole: each touched target's entries (contiguous in ``old``: targets and nodes in
    record order) are cut out and its new entries, rendered alone at the same depth,
    put in their place; ``as_of`` is patched in; ``old_size`` is its entry count (the
    previous info.json's). Returns (bytes, entry count, touched
    target → its new entries), or None when the splice does not apply (a touched target
    with no entries before or after, ``old`` not laid out as :func:`P.render` lays it
    out); the caller then reads ``old`` whole.
    """
    body = old.find(b'\n  "nodes": [\n')
    if body < 0 or not old.startswith(b"{\n"):
        return None
    fresh: dict[str, list[dict[str, Any]]] = {}
    cuts: list[tuple[int, int, bytes]] = []
    removed = 0
    for tid in plan.touched:
        needle = _target_needle(tid)
        first = old.find(needle, body)
        if first < 0:
            return None
        last = old.rfind(needle)
        start = old.rfind(_ENTRY_OPEN, body, first)
        end = old.find(_ENTRY_CLOSE, last)
        if start < 0 or end < 0:
            return None
        start, end = start + 1, end + len(_ENTRY_CLOSE)
        seg = old[start:end]
        count = seg.count(_ENTRY_CLOSE)  # each entry ends with its own brace
        if seg.count(needle) != count:
            return None  # another target's entry among this one's: not record order
        entries = _entries(new, tid)
        if not entries:
            return None
        rendered = P.render({"nodes": entries})
        cuts.append((start, end, rendered[len(_NODES_OPEN):-len(_NODES_CLOSE)]))
        removed += count
        fresh[tid] = entries
    span = _as_of_span(old[:body + 1])
    if span is not None:
        cuts.append((span[0], span[1], as_of))
    cuts.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(cuts)):
        return None
    view = memoryview(old)
    pieces: list[bytes | memoryview] = []
    at = 0
    for start, end, repl in cuts:
        pieces += [view[at:start], repl]
        at = end
    pieces.append(view[at:])
    size = old_size - removed + sum(len(v) for v in fresh.values())
    return b"".join(pieces), size, fresh


_ZERO_MEMO = "frontier zero-attempt ready"


def _known_zero_ready(old: Graph, front: bytes) -> dict[str, list[str]] | None:
    """:func:`_zero_attempt_ready` of ``front`` when the update that derived ``old``'s
    products left it in ``old``'s index for these very bytes (issue 17: the scan reads
    the whole frontier), else None."""
    ix = derive.index_if_built(old)
    memo = ix.products_memo.get(_ZERO_MEMO) if ix is not None else None
    if memo is None or not (memo[0] is front or memo[0] == front):
        return None
    known: dict[str, list[str]] = memo[1]
    return known


def _zero_ready(entries: list[dict[str, Any]]) -> list[str]:
    """The ``ready_since`` of each frontier entry with no attempt (as
    :func:`_zero_attempt_ready` reads them from the bytes)."""
    return [e["ready_since"] for e in entries if e["attempts"] == 0 and e["ready_since"]]


def _zero_attempt_ready(front: bytes) -> dict[str, list[str]]:
    """Target → the ``ready_since`` of each of its frontier entries with no attempt, read
    from frontier.json's bytes by one pattern (an entry's own keys are six spaces in and
    sorted: attempts, ready_since, target), not parsed whole."""
    found: dict[bytes, list[bytes]] = {}
    for ready, tid in _ZERO_READY_RE.findall(front):
        got = found.get(tid)
        if got is None:
            got = found[tid] = []
        got.append(ready)
    text: dict[bytes, str] = {}  # a day's timestamps repeat: decode each once
    return {tid.decode(): [text.get(r) or text.setdefault(r, r.decode()) for r in ready]
            for tid, ready in found.items()}


def _row_at_clock(row: dict[str, Any], zero_ready: list[str],
                  plan: Plan) -> dict[str, Any] | None:
    """An untouched target's index row carried to the new clock, or None to derive it
    again. Only two of its fields read the clock (the rest are carried over because the
    plan found nothing else that does):

    * ``starvation.zero_attempts``: ready nodes with no attempt, ready for at least
      ``starvation.days`` days at the clock (as :func:`derive.target_summary` counts them,
      from the same frontier entries' ``ready_since`` and ``attempts``);
    * ``dormancy`` (:func:`network.record.dormancy.dormancy_series` at the clock's day):
      ``days_since_progress`` grows by the days the clock moved and ``meets`` follows it,
      provided no progress date of the target can lie between the old and new day
      (``plan.dates_settled``: no merge or attestation of the old record is dated after
      the old day; the target's own dates come from those, else it would be touched).
    """
    from datetime import datetime

    from network.record.derive.graph_json import _days_between

    assert plan.new_now is not None and plan.old_now is not None
    out = dict(row)
    st = dict(out["starvation"])
    days = int(st["days"])
    st["zero_attempts"] = sum(1 for rs in zero_ready
                              if _days_between(rs, plan.new_now) >= days)
    out["starvation"] = st
    dm = out.get("dormancy")
    old_day, new_day = plan.old_now[:10], plan.new_now[:10]
    if dm is None or old_day == new_day:
        return out
    if not plan.dates_settled:
        return None
    dm = dict(dm)
    since = dm["days_since_progress"]
    if since is not None:
        since += (datetime.strptime(new_day, "%Y-%m-%d")
                  - datetime.strptime(old_day, "%Y-%m-%d")).days
    dm["days_since_progress"] = since
    dm["meets"] = dm["ready_below_k"] == 0 or (since is not None and since >= dm["n_days"])
    out["dormancy"] = dm
    return out


def read_products(graph: Graph, root: str | Path | None = None) -> dict[str, bytes]:
    """The products committed with ``graph`` as path → bytes: read from ``root`` on disk
    when given, else from the graph's own source (its commit or work tree). Files absent
    are left out; schemas/ is not read."""
    names = ["frontier.json", "info.json", "errors.json", "targets/index.json",
             *(f"targets/{tid}/graph.json" for tid in graph.targets)]
    out: dict[str, bytes] = {}
    for name in names:
        if root is not None:
            full = Path(root) / name
            if full.is_file():
                out[name] = full.read_bytes()
        elif name in graph.files:
            with contextlib.suppress(LemmataError, OSError):  # unreadable: absent
                out[name] = graph.source.read(name)
    return out


def write_products_incremental(old: Graph, new: Graph, changed: Iterable[str],
                               root: str | Path) -> list[str]:
    """:func:`network.record.products.products.write_products` for ``new`` under ``root``, taking
    the previous products from ``root`` itself (written for ``old``) and re-deriving only
    what :func:`plan_update` touches. Returns the graph-relative paths written, sorted;
    graph.json files of vanished targets are removed.

    Raises:
        OSError: the work tree cannot be written.
    """
    base = Path(root)
    previous = read_products(old, base)
    written: list[str] = []
    for path, data in update_products(old, new, changed, previous).items():
        if previous.get(path) != data:
            full = base / path
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_bytes(data)
        written.append(path)
    for stale in P._stale_graph_jsons(new, base):
        (base / stale).unlink()
    written.extend(P.copy_schemas(base))
    return sorted(set(written))


def changed_paths(repo: str | Path, old_commit: str, new_commit: str) -> set[str]:
    """The repository paths whose blobs differ between two commits (added, modified,
    removed or renamed: both names), from pygit2's tree diff, which skips unchanged
    subtrees by their ids.

    Raises:
        LemmataError: ``git-error`` when a commit does not resolve.
    """
    import pygit2

    try:
        r = pygit2.Repository(str(repo))
        a = r.revparse_single(old_commit).peel(pygit2.Commit)
        b = r.revparse_single(new_commit).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise LemmataError("git-error", f"cannot resolve a commit: {exc}") from exc
    out: set[str] = set()
    for d in r.diff(a, b).deltas:
        out.add(d.old_file.path)
        out.add(d.new_file.path)
    return out


def after_merge(repo: str | Path, merge_commit: str, base: str | None, merged: Graph,
                final: Graph, written: Iterable[str]) -> dict[str, bytes]:
    """The post-merge job's products (:mod:`network.gate.postmerge.postmerge`): ``products(final)``
    by :func:`update_products`, from the products the merge commit carries (main's, of
    the record before the merge).

    Args:
        repo: the graph's repository.
        merge_commit: the merge; ``merged`` is the graph at it.
        base: main before the merge (None: the merge commit's first parent).
        final: the graph with the post-merge job's files overlaid.
        written: the paths the post-merge job writes.

    Returns:
        path → bytes, exactly ``products(final)``; a full rebuild whenever the commits do
        not resolve, the merge has no parent, or the carried products do not read as the
        record's before the merge (:func:`update_products`).
    """
    import pygit2

    try:
        if base is None:
            commit = pygit2.Repository(str(repo)).revparse_single(merge_commit).peel(
                pygit2.Commit)
            if not commit.parents:
                return P.products(final)
            base = str(commit.parents[0].id)
        changed = changed_paths(repo, base, merge_commit) | set(written)
    except (LemmataError, pygit2.GitError, KeyError, ValueError):
        return P.products(final)
    return update_products(merged, final, changed, read_products(merged))
