"""Adversarial checks of the incremental products (issue 17) and of what an update carries
from the graph before: each target's scan (network/record/read/target_scan.py), the planner's
attestations by graph commit and closure seqs, the latest record day, and the zero-attempt
ready lists an update leaves in the new graph's index.

Every update here is checked three ways against ``products(new)``: on a graph loaded
whole, on one :func:`reload_graph` read (its untouched targets, and so their scans, taken
over by identity), and through the parsed way (:func:`incremental._incremental_parsed`).
"""

from __future__ import annotations

import copy as copy_module
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from network.record import derive
from network.record.products import incremental, products
from network.record.products.incremental import Plan, update_products, update_products_planned
from network.record.read.loader import load_graph, open_source
from network.record.read.reload import reload_graph
from network.record.read.target_scan import scan_targets
from tests.graphs import merge_commit_of
from tests.test_incremental_products import _catalog, _diff, _snapshot, _World


@pytest.fixture(autouse=True)
def _static_catalog() -> Iterator[None]:
    with mock.patch.object(products, "catalog_json", _catalog):  # code-static, costly
        yield


class _Run:
    """A world, the graph last derived and its products, updated one step at a time."""

    def __init__(self, root: Path, setup: Callable[[_World], Any] | None = None) -> None:
        self.root = root
        self.world = _World(root)
        if setup is not None:
            setup(self.world)
        self.old = load_graph(root)
        self.prev = products.products(self.old)
        self.before = _snapshot(root)

    def update(self, step: Callable[[_World], Any], *, reload: bool = True) -> Plan:
        """Apply ``step``, update the products from the last ones and check them equal
        to a full rebuild every way; the reloaded graph (untouched targets shared with the
        graph before) becomes the next old one when ``reload``."""
        step(self.world)
        after = _snapshot(self.root)
        changed = _diff(self.before, after)
        whole = load_graph(self.root)
        want = products.products(load_graph(self.root))  # an index of its own, not carried
        shared = reload_graph(self.old, open_source(self.root), changed)
        got_shared, plan = update_products_planned(self.old, shared, changed, self.prev)
        _same(got_shared, want, plan)
        got_whole, plan_whole = update_products_planned(self.old, whole, changed, self.prev)
        _same(got_whole, want, plan_whole)
        assert plan_whole == plan
        if plan.full is None:
            _same(incremental._incremental_parsed(shared, plan, self.prev), want, plan)
        new, got = (shared, got_shared) if reload else (whole, got_whole)
        self.old, self.prev, self.before = new, got, after
        return plan


def _same(got: dict[str, bytes], want: dict[str, bytes], plan: Plan) -> None:
    assert sorted(got) == sorted(want), plan
    for path, data in want.items():
        assert got[path] == data, (path, plan)


def _later(days: int) -> Callable[[_World], None]:
    def step(w: _World) -> None:
        w.day += timedelta(days=days)
        w.step("proof", 1, 0)  # beta, dated w.day
    return step


def test_clock_going_back_rebuilds(tmp_path: Path) -> None:
    """A merge dated before the one before it (a committer date is whatever the merging
    machine's clock said) moves the clock back: alpha's last progress now lies after the
    clock, so its dormancy reads from an earlier progress. Carrying alpha's index row by
    adding the (negative) days moved gave ``days_since_progress`` -100 where a full
    rebuild gives 115."""
    run = _Run(tmp_path / "g")
    run.update(lambda w: w.step("proof", 0, 2))  # alpha, 215 days on
    plan = run.update(_later(-100))  # beta, 100 days before alpha's merge
    assert plan.new_now is not None and plan.old_now is not None
    assert plan.new_now < plan.old_now and plan.full is not None


def test_clock_going_back_after_a_steward_record(tmp_path: Path) -> None:
    """The clock going back past a steward record's ``since``: the steward is no longer in
    force at the new clock, which no run beginning in (old_now, new_now] can say."""
    run = _Run(tmp_path / "g")
    run.update(lambda w: w.step("steward", 0, 2))  # alpha gains sam1 215 days on (full)
    plan = run.update(_later(-30))
    assert plan.full is not None and "went back" in plan.full


def _gate_key_until(day: str) -> Callable[[_World], None]:
    def setup(w: _World) -> None:
        path = "keys/builder-gate.json"
        key = json.loads(w.g.read(path))
        w.g.write_json(path, {**key, "valid_until": day})
    return setup


def test_closure_naming_a_later_merge_touches_its_target(tmp_path: Path) -> None:
    """A closure filed before the merge its ``merge_seq`` names (its gate signature is
    judged at that merge's date, D-12 v3.42): when that merge comes, naming alpha's paths
    alone and dated after the gate key expired, the closure no longer verifies and its
    node in gamma is no longer proved; gamma is derived again, though the reload took it
    over with its scan."""
    run = _Run(tmp_path / "g", _gate_key_until("2026-02-01"))
    w = run.world
    w.step("partial", 2, 0)  # gamma root--h1 splits into root--h1--h1 and root--h1--h2
    run.update(lambda w: None)
    part = next(rf.path for rf in run.old.targets["gamma"].nodes["root--h1"].attempts)
    proofs: list[str] = []
    for nid in ("root--h1--h1", "root--h1--h2"):
        def prove(w: _World, nid: str = nid) -> None:
            proofs.append(w.g.proof("gamma", nid))
            w._merge([proofs[-1]], "gamma", nid)
        run.update(prove)
    nxt = w.seq + 2  # the merge after the next one

    def closure(w: _World) -> None:
        w.g.closure("gamma", "root--h1", "route",
                    [("root--h1--h1", proofs[0]), ("root--h1--h2", proofs[1])],
                    route=part, merge_seq=nxt)
        w.step("proof", 1, 0)  # beta: merge nxt - 1

    run.update(closure)
    assert derive.node_status(run.old, "gamma", "root--h1") == "proved"
    old_scan = derive._ix(run.old).scans["gamma"]
    assert nxt in old_scan.closure_seqs
    plan = run.update(lambda w: w.step("proof", 0, 2))  # alpha: merge nxt, months later
    assert run.world.seq == nxt
    assert derive.node_status(run.old, "gamma", "root--h1") == "open"
    assert "gamma" in plan.touched and "beta" not in plan.touched
    assert derive._ix(run.old).scans["gamma"] is old_scan  # carried, not rescanned


def test_attestation_judged_at_a_later_merge_touches_its_target(tmp_path: Path) -> None:
    """Failing attestations of gamma and beta judged at the commit of a merge not yet
    recorded (any verdict: staleness, D-8): when that merge comes, naming alpha's paths
    alone, both are derived again (the index's ``commit_targets``, carried)."""
    run = _Run(tmp_path / "g")
    nxt = run.world.seq + 1

    def attest(w: _World, tid: str) -> None:
        proof = w.g.proof(tid, w.open[tid][0])
        w.g.attest([proof], verdict="fail", date=f"{w.day:%Y-%m-%d}",
                   graph_commit=merge_commit_of(nxt))

    run.update(lambda w: attest(w, "gamma"))
    run.update(lambda w: attest(w, "beta"))  # the same graph commit, another target
    assert derive._ix(run.old).commit_targets[merge_commit_of(nxt)] == {"beta", "gamma"}
    plan = run.update(lambda w: w.step("proof", 0, 0))  # alpha: merge nxt
    assert run.world.seq == nxt
    assert plan.touched == {"alpha", "beta", "gamma"}


def test_merge_record_with_no_attestation_and_no_artifacts(tmp_path: Path) -> None:
    """A bare merge record (an intake merge of nothing) moves the clock alone."""
    run = _Run(tmp_path / "g")
    for when in (1, 2, 0):
        def bare(w: _World, when: int = when) -> None:
            w.day += (timedelta(0), timedelta(days=1), timedelta(days=215))[when]
            w._merge_day([])
        plan = run.update(bare)
        assert plan.full is None


def test_memo_across_consecutive_reloaded_merges(tmp_path: Path) -> None:
    """Three and more consecutive merges, each graph reloaded from the one before: the
    zero-attempt ready lists each update leaves in the new index are read by the next
    (the previous frontier is the very bytes), and stay the lists of those bytes."""
    run = _Run(tmp_path / "g")
    for op, pick, when in [("partial", 0, 1), ("proof", 1, 1), ("postmortem", 2, 0),
                           ("partial", 4, 2), ("shelving", 5, 1), ("proof", 0, 1)]:
        run.update(lambda w, a=(op, pick, when): w.step(*a))
        memo = derive._ix(run.old).products_memo.get(incremental._ZERO_MEMO)
        if memo is not None:
            assert memo[0] is run.prev["frontier.json"]
            assert ({t: r for t, r in memo[1].items() if r}
                    == incremental._zero_attempt_ready(memo[0]))


def test_memo_not_read_for_a_foreign_previous(tmp_path: Path) -> None:
    """Previous products that are not those the update before derived (a frontier of the
    same clock with another target's entries changed) are scanned, not read from the
    memo left for other bytes."""
    run = _Run(tmp_path / "g")
    run.update(lambda w: w.step("partial", 0, 1))
    memo = derive._ix(run.old).products_memo.get(incremental._ZERO_MEMO)
    assert memo is not None
    front = run.prev["frontier.json"]
    # the same bytes, another object: the memo is still these bytes'
    assert incremental._known_zero_ready(run.old, bytes(bytearray(front))) is memo[1]
    tampered = front.replace(b'"attempts": 0,', b'"attempts": 1,', 1)
    assert tampered != front
    assert incremental._known_zero_ready(run.old, tampered) is None


def test_same_old_updated_twice(tmp_path: Path) -> None:
    """update_products called twice from one old graph (and its one index) to two
    different new graphs (a retried post-merge job, another branch): neither update reads
    what the other left in the old index, and each new graph's memo is its own."""
    root = tmp_path / "g"
    world = _World(root)
    world.step("proof", 0, 1)
    old = load_graph(root)
    prev = products.products(old)
    before = _snapshot(root)
    fronts = []
    for k, op in enumerate((("partial", 1, 1), ("postmortem", 2, 2), ("partial", 1, 1))):
        copy = tmp_path / f"g{k}"
        shutil.copytree(root, copy)
        w = copy_module.deepcopy(world)
        w.g.root = copy
        w.step(*op)
        changed = _diff(before, _snapshot(copy))
        new = reload_graph(old, open_source(copy), changed)
        got, plan = update_products_planned(old, new, changed, prev)
        assert plan.full is None
        _same(got, products.products(load_graph(copy)), plan)
        memo = derive._ix(new).products_memo.get(incremental._ZERO_MEMO)
        assert memo is not None and memo[0] is got["frontier.json"]
        fronts.append(got["frontier.json"])
    assert fronts[0] != fronts[1] and fronts[0] == fronts[2]


def _capped(w: _World) -> None:
    """policy/v2 with ``steward_cap`` 1: one stewardship per person at once."""
    w.g.write_json("policy.json", {"schema": "policy/v2", "graph_id": w.g.graph_id,
                                   "steward_cap": 1})


def _join(tid: str, who: str, days: int) -> Callable[[_World], None]:
    def step(w: _World) -> None:
        w.day += timedelta(days=days)
        path = w.g.steward(tid, who, since=f"{w.day:%Y-%m-%d}")
        w.g.merge_record([path], w._date())
        w.seq += 1
    return step


@pytest.mark.parametrize("act", ["shelving", "literature", "gloss", "merged-later"])
def test_an_act_reviving_a_lapsed_stewardship_touches_the_capped_join(
        tmp_path: Path, act: str) -> None:
    """steward_cap 1: sam joins alpha, and 215 days later beta, admitted because sam's
    alpha stewardship had lapsed (no signed act for six months). A role-signed act of
    sam's on alpha dated in between (a shelving, a literature reading, a gloss approval)
    is a local change of alpha, but it keeps sam's alpha stewardship in force at beta's
    join: the join exceeds the cap, and beta's panel loses sam; a merge listing that
    shelving later dates it by the merge, after the join, and beta's panel has sam again. Beta is to be derived again (before the fix only alpha
    was: beta's products were carried over with sam still its steward)."""
    run = _Run(tmp_path / "g", _capped)
    start = run.world.day
    run.update(_join("alpha", "sam", 1))
    run.update(_join("beta", "sam", 215))
    assert [s.pseudonym for s in derive._ix(run.old).panel.in_force("beta")] == ["sam"]
    ts = f"{start + timedelta(days=40):%Y%m%d}T000000Z"
    written: list[str] = []

    def sign(w: _World) -> None:
        if act in ("shelving", "merged-later"):
            written.append(w.g.shelving("alpha", "root", ts, "sam"))
        elif act == "literature":
            w.g.literature("alpha", "root", ts, "sam", "open")
        else:
            w.g.gloss("alpha", "root", ts, "alice", approved_by=["sam"])
        w.day += timedelta(days=1)
        w._merge_day([])

    plan = run.update(sign)
    assert plan.full is None and "beta" in plan.touched
    assert derive._ix(run.old).panel.in_force("beta") == []
    if act == "merged-later":  # a merge now lists the shelving: it is dated by the merge,
        def merge(w: _World) -> None:  # after beta's join, so sam had lapsed by then
            w.day += timedelta(days=1)
            w.g.merge_record([written[0]], w._date())
            w.seq += 1
        plan = run.update(merge)
        assert plan.full is None and "beta" in plan.touched
        assert [s.pseudonym for s in derive._ix(run.old).panel.in_force("beta")] == ["sam"]


_EXTRA_OPS = ("gloss", "literature", "closure_ahead", "att_ahead", "bare", "back")


def _extra_step(w: _World, op: str, pick: int, when: int) -> None:
    """One step of :data:`_EXTRA_OPS` (or of the property test's own ops): records read
    across targets (words approved by a steward, literature readings), a closure or a
    failing attestation naming a merge to come, a bare merge record, a merge dated back."""
    if op not in _EXTRA_OPS:
        w.step(op, pick, when)
        return
    w.day += (timedelta(0), timedelta(days=1), timedelta(days=215))[when]
    tid = sorted(w.open)[pick % len(w.open)]
    nodes = w.open[tid] or ["root"]
    nid = nodes[pick % len(nodes)]
    ts = w._ts()
    if op == "gloss":
        w.g.gloss(tid, nid, ts, "alice", approved_by=["steve"])
        w._merge_day([])
    elif op == "literature":
        w.g.literature(tid, nid, ts, "steve", "open")
        w._merge_day([])
    elif op == "closure_ahead":
        w.g.closure(tid, nid, "route", [(nid, "none")], k=w.n, merge_seq=w.seq + 1 + pick % 2)
        w._merge_day([])
    elif op == "att_ahead":
        proof = w.g.proof(tid, nid)
        w.g.attest([proof], verdict="fail", date=f"{w.day:%Y-%m-%d}",
                   graph_commit=merge_commit_of(w.seq + 1 + pick % 2))
    elif op == "bare":
        w._merge_day([])
    else:  # back: a merge dated a month before the day
        w.day -= timedelta(days=30)
        w.step("proof", pick, 0)


_ATTACK_STEP = st.tuples(st.sampled_from(_EXTRA_OPS + ("proof", "partial", "postmortem",
                                                       "shelving", "pending",
                                                       "merge_pending", "new_target")),
                         st.integers(0, 50), st.sampled_from([0, 0, 1, 2]))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ATTACK_STEP, min_size=1, max_size=8))
def test_incremental_equals_full_with_records_read_across_targets(
        steps: list[tuple[str, int, int]]) -> None:
    """Random merge sequences with the records the carried state is about, each graph
    reloaded from the one before (its untouched targets and their scans shared): every
    update equals a full rebuild, spliced, parsed and on a graph loaded whole."""
    with mock.patch.object(products, "catalog_json", _catalog), \
            tempfile.TemporaryDirectory(prefix="lemmata-attack-") as tmp:
        run = _Run(Path(tmp) / "g")
        for op, pick, when in steps:
            plan = run.update(lambda w, a=(op, pick, when): _extra_step(w, *a))
            if op != "back":
                assert plan.full is None, (op, plan.full)
            scans = derive._ix(run.old).scans
            assert {t: (s.acted, s.worded, s.closure_seqs) for t, s in scans.items()} == {
                t: (s.acted, s.worded, s.closure_seqs)
                for t, s in scan_targets(run.old).items()}, op


def test_an_index_does_not_keep_its_graph_alive(tmp_path: Path) -> None:
    """derive's index is kept on its Graph object (``Graph.derive_index``), so a served
    snapshot, or an update's old graph with the frontier bytes its memo keeps, is freed
    once nothing else holds it (a module-level cache holding the index kept every graph
    ever indexed alive)."""
    import gc
    import weakref

    _World(tmp_path / "g")
    graph = load_graph(tmp_path / "g")
    derive._ix(graph)
    ref = weakref.ref(graph)
    del graph
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("part", ["info-counts", "index", "frontier"])
def test_misshapen_previous_rebuilds_in_full(tmp_path: Path, part: str) -> None:
    """update_products promises a full rebuild whenever ``previous`` does not read as the
    old graph's products (and raises nothing): previous products read from a work tree or
    commit, of the right clock but with info.json's ``counts`` no mapping, an index.json
    with no ``targets`` or a frontier.json that is no mapping, must not crash it."""
    run = _Run(tmp_path / "g")
    run.world.step("proof", 0, 1)
    changed = _diff(run.before, _snapshot(run.root))
    new = load_graph(run.root)
    prev = dict(run.prev)
    if part == "info-counts":
        info = json.loads(prev["info.json"])
        prev["info.json"] = json.dumps({**info, "counts": 5}).encode()
    elif part == "index":
        prev["targets/index.json"] = b'{"as_of": null}\n'
    else:
        prev["frontier.json"] = b"[]\n"
    assert update_products(run.old, new, changed, prev) == products.products(new)


def test_a_merge_dating_a_steward_record_anew_rebuilds(tmp_path: Path) -> None:
    """steward_cap 1: sam's beta steward record lies on disk unmerged (dated by its
    ``since``: admitted, and with no merge date it never lapses), so sam's merged gamma
    join is over the cap; sam keeps signing acts on gamma. When a merge months later
    lists beta's record, the record's date is the merge's: gamma's join came first and
    stands (its acts keep it in force), and beta's is the one over the cap. The merge's
    only path is a log record naming beta, but gamma's panel moved (before the fix only
    beta was derived again)."""
    run = _Run(tmp_path / "g", _capped)
    record: list[str] = []

    def unmerged(w: _World) -> None:
        w.day += timedelta(days=1)
        record.append(w.g.steward("beta", "sam", since=f"{w.day:%Y-%m-%d}"))
        w._merge_day([])

    run.update(unmerged)
    run.update(_join("gamma", "sam", 1))
    assert derive._ix(run.old).panel.in_force("gamma") == []

    def act(w: _World) -> None:
        w.day += timedelta(days=213)
        w.g.shelving("gamma", "root", f"{w.day - timedelta(days=5):%Y%m%d}T000000Z", "sam")
        w.step("proof", 0, 0)

    run.update(act)

    def merge(w: _World) -> None:
        w.day += timedelta(days=1)
        w.g.merge_record([record[0]], w._date())
        w.seq += 1

    plan = run.update(merge)
    assert plan.full is not None and "dated anew" in plan.full
    assert [s.pseudonym for s in derive._ix(run.old).panel.in_force("gamma")] == ["sam"]


def test_a_join_dated_after_the_clock_is_judged_as_the_clock_moves(tmp_path: Path) -> None:
    """steward_cap 1: sam's merged alpha join, and an unmerged beta join dated a year on
    (after the clock, so judged at the clock: ruling 2). While sam's alpha stewardship
    stands, beta's join is over the cap; once the clock passes alpha's lapse (a merge in
    gamma months later), it is not, and beta's panel moves though no record of beta
    changed and no run of beta began, ended or lapsed (before the fix alpha and gamma
    alone were derived again)."""
    run = _Run(tmp_path / "g", _capped)
    run.update(_join("alpha", "sam", 1))

    def future(w: _World) -> None:
        w.g.steward("beta", "sam", since=f"{w.day + timedelta(days=400):%Y-%m-%d}")
        w._merge_day([])

    run.update(future)
    assert ("beta", "sam") not in derive._ix(run.old).panel.state.by_key
    plans = [run.update(lambda w: (setattr(w, "day", w.day + timedelta(days=100)),
                                   w.step("proof", 2, 0))) for _ in range(3)]
    assert all(p.full is None and "beta" in p.touched for p in plans)
    assert ("beta", "sam") in derive._ix(run.old).panel.state.by_key


_PANEL_OPS = ("join", "join_unmerged", "act", "merge_unmerged", "proof", "bare")


def _panel_step(w: _World, unmerged: list[str], op: str, pick: int, when: int) -> None:
    """One step of the capped-stewardship property test: ``pick`` chooses the target, the
    person (sam or tom), the act kind and a date offset (back or ahead of the day)."""
    w.day += (timedelta(0), timedelta(days=1), timedelta(days=100), timedelta(days=215))[when]
    tid = ("alpha", "beta", "gamma")[pick % 3]
    who = ("sam", "tom")[pick // 3 % 2]
    offset = timedelta(days=(-150, -20, 0, 30, 300)[pick // 6 % 5])
    day = w.day + offset
    if op == "join":
        path = w.g.steward(tid, who, since=f"{w.day:%Y-%m-%d}")
        w.g.merge_record([path], w._date())
        w.seq += 1
    elif op == "join_unmerged":
        unmerged.append(w.g.steward(tid, who, since=f"{day:%Y-%m-%d}"))
        w._merge_day([])
    elif op == "act":
        w.n += 1
        ts = f"{day:%Y%m%d}T{w.n % 24:02d}{w.n % 60:02d}00Z"
        kind = pick // 30 % 3
        if kind == 0:
            unmerged.append(w.g.shelving(tid, "root", ts, who))
        elif kind == 1:
            unmerged.append(w.g.literature(tid, "root", ts, who, "open"))
        else:
            unmerged.append(w.g.gloss(tid, "root", ts, "alice", approved_by=[who]))
        w._merge_day([])
    elif op == "merge_unmerged" and unmerged:
        w.g.merge_record([unmerged.pop(pick % len(unmerged))], w._date())
        w.seq += 1
    elif op == "proof":
        w.step("proof", pick, 0)
    else:
        w._merge_day([])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_PANEL_OPS), st.integers(0, 89),
                          st.sampled_from([0, 1, 2, 3])), min_size=1, max_size=9))
def test_incremental_equals_full_with_capped_stewardships(
        steps: list[tuple[str, int, int]]) -> None:
    """steward_cap 1 and two people joining, acting on and lapsing from three targets, with
    records merged at once, later or never and dated back or ahead: every update equals a
    full rebuild (the panel is read across targets through the cap)."""
    with mock.patch.object(products, "catalog_json", _catalog), \
            tempfile.TemporaryDirectory(prefix="lemmata-attack-") as tmp:
        run = _Run(Path(tmp) / "g", _capped)
        unmerged: list[str] = []
        for op, pick, when in steps:
            run.update(lambda w, a=(op, pick, when): _panel_step(w, unmerged, *a))
