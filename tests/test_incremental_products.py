"""Incremental products equal a full rebuild, byte for byte, on random merge sequences
(issue 17: "Test it: incremental equals full, on random merge sequences").

Each example builds a small graph of three targets, then applies a random sequence of
merges (a proof, a partial cutting holes, a postmortem, a dormancy declaration, a
shelving, a ledger line, a new target, a merged steward record, a withdrawal, a
root-level change), dated on the same day, the next day or months later (so the clock,
and with it steward lapses, moves). After each step :func:`update_products` from the
previous products must give exactly ``products(new)``: the same set of files and the same
bytes. Steps that only touch targets must stay incremental (a planner that always
rebuilds everything would pass the byte check alone).
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from network.errors import catalog_json
from network.record import derive
from network.record.products import incremental, products
from network.record.products.incremental import (
    changed_paths,
    plan_update,
    update_products,
    update_products_planned,
    write_products_incremental,
)
from network.record.read.loader import PRODUCT_PATHS_RE, load_graph, open_source
from network.record.read.reload import reload_graph
from network.record.read.target_scan import scan_targets
from tests.graphs import GraphBuilder, git_commit

TARGETS = ("alpha", "beta", "gamma")
LOCAL_OPS = ("proof", "partial", "postmortem", "dormant", "shelving", "ledger", "new_target",
             "pending", "merge_pending")
GLOBAL_OPS = ("steward", "withdrawal", "curators")


def _snapshot(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for p in root.rglob("*"):
        if p.is_file() and ".git" not in p.parts:
            rel = p.relative_to(root).as_posix()
            if not PRODUCT_PATHS_RE.fullmatch(rel):
                out[rel] = p.read_bytes()
    return out


def _diff(a: dict[str, bytes], b: dict[str, bytes]) -> set[str]:
    return {p for p in set(a) | set(b) if a.get(p) != b.get(p)}


class _World:
    """A growing synthetic graph and the bookkeeping random steps need."""

    def __init__(self, root: Path) -> None:
        self.g = GraphBuilder(root).base()
        self.day = date(2026, 1, 2)
        self.n = 0
        self.open: dict[str, list[str]] = {}
        self.seq = 0
        self.pending: list[tuple[str, str, str]] = []  # written, not yet merged
        for tid in TARGETS:
            self._target(tid)
        self._merge_day([])

    def _target(self, tid: str, steward: str | None = "steve") -> None:
        g = self.g
        g.target(tid, steward=steward)
        g.node(tid, "root")
        part = g.partial(tid, "root", "20260101T000000Z", "alice")
        holes = [g.hole(tid, "root", k, part, witness=True) for k in (1, 2)]
        self._merge([part], tid, "root")
        self.open[tid] = list(holes)

    def _ts(self) -> str:
        self.n += 1
        return f"{self.day:%Y%m%d}T{self.n % 24:02d}{self.n % 60:02d}00Z"

    def _date(self) -> str:
        return f"{self.day:%Y-%m-%d}T00:00:00Z"  # one clock a day: when=0 keeps it

    def _merge(self, paths: list[str], tid: str, nid: str) -> None:
        self.g.merge(paths, date=self._date(), target=tid, node=nid)
        self.seq += 1

    def _merge_day(self, paths: list[str]) -> None:
        self.g.merge_record(paths, self._date())
        self.seq += 1

    def step(self, op: str, pick: int, when: int) -> None:
        """Apply one random step: ``pick`` chooses the target/node, ``when`` the date
        (0 same day, 1 next day, 2 about seven months later)."""
        self.day += (timedelta(0), timedelta(days=1), timedelta(days=215))[when]
        g = self.g
        tid = sorted(self.open)[pick % len(self.open)]
        nodes = self.open[tid] or ["root"]
        nid = nodes[pick % len(nodes)]
        ts = self._ts()
        if op == "proof":
            path = g.proof(tid, nid)
            self._merge([path], tid, nid)
            if nid in self.open[tid]:
                self.open[tid].remove(nid)
        elif op == "partial":
            part = g.partial(tid, nid, ts, "bob")
            base = len([h for h in self.open[tid] if h.startswith(f"{nid}--h")]) + 1
            holes = [g.hole(tid, nid, k, part, witness=pick % 2 == 0)
                     for k in (base, base + 1)]
            self._merge([part], tid, nid)
            self.open[tid].extend(holes)
        elif op == "postmortem":
            pm = g.postmortem(tid, nid, ts, f"pm{pick % 3}")
            self._merge([pm], tid, nid)
        elif op == "pending":  # a proof on disk that no attestation covers yet
            self.pending.append((g.proof(tid, nid), tid, nid))
        elif op == "merge_pending":  # the gate merges it later: only root records change
            for path, ptid, pnid in self.pending:
                self._merge([path], ptid, pnid)
            self.pending.clear()
        elif op == "dormant":
            g.target_status(tid, "dormant", self._date()[:10], n=self.n)
            self._merge_day([])
        elif op == "shelving":
            g.shelving(tid, nid, ts, "curator")
            self._merge_day([])
        elif op == "ledger":
            self._merge_day([])
            g.ledger_line(self.seq, 1, "proof", f"id{pick % 3}", tid,
                          f"targets/{tid}/nodes/root/META.yaml", node="root")
        elif op == "new_target":  # without a steward: a steward record plans in full
            self._target(f"t{self.n}", steward=None)
        elif op == "steward":
            path = g.steward(tid, f"sam{self.n}", since=self._date()[:10])
            self.g.merge_record([path], self._date())
            self.seq += 1
        elif op == "withdrawal":
            pm = g.postmortem(tid, nid, ts, "wd")
            g.withdrawal(tid, nid, self._ts(), "curator", pm)
            self._merge_day([])
        elif op == "curators":
            g.curators([{"pseudonym": "curator", "targets": ["*"]},
                        {"pseudonym": f"cur{self.n}", "targets": [tid]}])
            self._merge_day([])
        else:  # pragma: no cover - the strategy draws only the ops above
            raise AssertionError(op)


@functools.lru_cache(maxsize=1)
def _catalog() -> Any:
    return catalog_json()


def _check_sequence(root: Path, steps: list[tuple[str, int, int]],
                    parsed: list[bool] | None = None) -> list[Any]:
    """Apply ``steps`` and check every update against a full rebuild (see
    :func:`_checked`); ``parsed`` collects, per incremental step, whether the update read
    the previous frontier whole instead of splicing its bytes."""
    with mock.patch.object(products, "catalog_json", _catalog):  # code-static, costly
        return _checked(root, steps, [] if parsed is None else parsed)


def _checked(root: Path, steps: list[tuple[str, int, int]], parsed: list[bool]) -> list[Any]:
    world = _World(root)
    old = load_graph(root)
    prev = products.products(old)
    before = _snapshot(root)
    plans = []
    for op, pick, when in steps:
        world.step(op, pick, when)
        after = _snapshot(root)
        changed = _diff(before, after)
        new = load_graph(root)
        with mock.patch.object(incremental, "_incremental_parsed",
                               wraps=incremental._incremental_parsed) as spy:
            got, plan = update_products_planned(old, new, changed, prev)
        want = products.products(new)
        memo = derive._ix(new).products_memo.get(incremental._ZERO_MEMO)
        if memo is not None:  # what the next update reads instead of scanning the bytes
            assert memo[0] is got["frontier.json"], op
            assert ({t: r for t, r in memo[1].items() if r}
                    == incremental._zero_attempt_ready(got["frontier.json"])), op
        if plan.full is None:
            parsed.append(spy.called)
            # both ways to an incremental update (the frontier's bytes spliced, or read
            # whole when the splice does not apply) give the full rebuild's bytes
            assert incremental._incremental_parsed(new, plan, prev) == want, (op, plan)
        again = reload_graph(old, open_source(root), changed)
        assert again.targets == new.targets, op  # the reload is the same graph
        for name in ("merges", "attestations", "ledger", "files"):
            assert getattr(again, name) == getattr(new, name), (op, name)
        assert products.products(again) == want, op  # its index afresh: new's was carried
        if not plan.full:
            dirty = {p.split("/")[1] for p in changed if p.startswith("targets/")}
            assert all(again.targets[t] is old.targets[t] for t in old.targets
                       if t not in dirty and t in new.targets), op  # taken over, not re-read
            # the update on a reloaded graph: its index carries the old one's scans of
            # every target the reload took over (network/record/read/target_scan.py)
            shared = reload_graph(old, open_source(root), changed)
            assert update_products_planned(old, shared, changed, prev)[0] == want, op
            old_scans, new_scans = derive._ix(old).scans, derive._ix(shared).scans
            for t in old.targets:
                if t in shared.targets and shared.targets[t] is old.targets[t]:
                    assert new_scans[t] is old_scans[t], (op, t)
            assert new_scans == scan_targets(shared), op
        assert sorted(got) == sorted(want), (op, plan)
        for path in want:
            assert got[path] == want[path], (op, path, plan)
        if op in LOCAL_OPS:
            assert plan.full is None, (op, plan.full)
            assert plan.touched < frozenset(new.targets) or op == "new_target" \
                or plan.clock_moved, (op, plan)
        if op in GLOBAL_OPS:
            assert plan.full is not None, op
        plans.append(plan)
        old, prev, before = new, got, after
    return plans


_STEP = st.tuples(st.sampled_from(LOCAL_OPS + GLOBAL_OPS), st.integers(0, 50),
                  st.sampled_from([0, 0, 1, 2]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEP, min_size=1, max_size=8))
def test_incremental_equals_full_on_random_merges(steps: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory(prefix="lemmata-incr-") as tmp:
        _check_sequence(Path(tmp) / "g", steps)


def test_same_day_proof_touches_one_target(tmp_path: Path) -> None:
    """A proof merged on the day of the last merge re-derives its own target only, and
    the other targets' graph.json bytes are carried over unchanged."""
    parsed: list[bool] = []
    plans = _check_sequence(tmp_path / "g", [("proof", 0, 0)], parsed)
    assert plans[0].full is None and plans[0].touched == frozenset({"alpha"})
    assert not plans[0].clock_moved
    assert parsed == [False]  # the previous frontier spliced, not read whole


def test_clock_move_patches_as_of(tmp_path: Path) -> None:
    """A proof merged a day later moves the clock: untouched targets keep their
    derivations, only ``as_of`` differs, and the bytes still equal a full rebuild."""
    parsed: list[bool] = []
    plans = _check_sequence(tmp_path / "g", [("proof", 1, 1), ("postmortem", 2, 1)],
                            parsed)
    assert all(p.full is None and p.clock_moved for p in plans)
    assert plans[0].touched == frozenset({"beta"})
    assert parsed == [False, False]  # rows carried to the clock from the spliced bytes


def test_a_target_gone_leaves_the_products(tmp_path: Path) -> None:
    """A target whose folder went is touched but no longer in the graph: its frontier
    entries, index row and graph.json leave the products, as a full rebuild leaves them
    (the byte splice of frontier.json does not apply; the frontier is read whole)."""
    root = tmp_path / "g"
    world = _World(root)
    world.step("new_target", 0, 0)  # without a steward: its records are all local
    (gone,) = set(world.open) - set(TARGETS)
    old = load_graph(root)
    prev = products.products(old)
    before = _snapshot(root)
    shutil.rmtree(root / "targets" / gone)
    new = load_graph(root)
    changed = _diff(before, _snapshot(root))
    got, plan = update_products_planned(old, new, changed, prev)
    assert plan.full is None and gone in old.targets and gone not in new.targets
    assert got == products.products(new)


def test_steward_lapse_touches_its_target(tmp_path: Path) -> None:
    """A merged steward record starts a lapse clock; a merge in another target months
    later lapses it, so that target is derived again though nothing in it changed."""
    root = tmp_path / "g"
    world = _World(root)
    world.step("steward", 0, 0)  # alpha gains a merged steward record
    old = load_graph(root)
    prev = products.products(old)
    before = _snapshot(root)
    world.step("proof", 1, 2)  # beta, 215 days on: past any lapse
    new = load_graph(root)
    plan = plan_update(old, new, _diff(before, _snapshot(root)))
    assert plan.full is None and plan.clock_moved
    assert "alpha" in plan.touched and "gamma" not in plan.touched
    assert update_products(old, new, _diff(before, _snapshot(root)), prev) == \
        products.products(new)


def test_stale_previous_products_rebuild_in_full(tmp_path: Path) -> None:
    """Previous products of another clock, or missing a part, are not trusted."""
    root = tmp_path / "g"
    world = _World(root)
    old = load_graph(root)
    prev = products.products(old)
    before = _snapshot(root)
    world.step("proof", 0, 1)
    new = load_graph(root)
    changed = _diff(before, _snapshot(root))
    _got, plan = update_products_planned(old, new, changed, products.products(new))
    assert plan.full is not None and "clock" in plan.full
    partial = {k: v for k, v in prev.items() if k != "targets/beta/graph.json"}
    got, plan = update_products_planned(old, new, changed, partial)
    assert plan.full is not None and got == products.products(new)


def test_write_incremental_on_disk_and_git_diff(tmp_path: Path) -> None:
    """The on-disk form reads the previous products from the work tree; the changed
    paths come from the commits' tree diff; a vanished target's graph.json goes."""
    root = tmp_path / "g"
    world = _World(root)
    old = load_graph(root)
    products.write_products(old, root)
    c1 = git_commit(root, "one")
    world.step("partial", 2, 1)
    c2 = git_commit(root, "two")
    changed = changed_paths(root, c1, c2)
    assert changed and all(not PRODUCT_PATHS_RE.fullmatch(p) for p in changed)
    new = load_graph(root)
    (root / "targets/zz/graph.json").parent.mkdir(parents=True)
    (root / "targets/zz/graph.json").write_bytes(b"{}\n")
    write_products_incremental(old, new, changed, root)
    assert not (root / "targets/zz/graph.json").exists()
    assert products.check_products(new, root) == []


@pytest.mark.parametrize("path", ["policy.json", "curators.json", "keys/x.json",
                                  "identities/a.yaml", "targets/alpha/stewards/s.yaml",
                                  "targets/alpha/steward-acts/x.yaml",
                                  "targets/alpha/panel/motions/x.yaml",
                                  "targets/alpha/nodes/root/withdrawals/x.yaml",
                                  "attestations/000001.json"])
def test_cross_target_paths_force_full(tmp_path: Path, path: str) -> None:
    """Each path read across targets (or an attestation modified in place) plans a full
    rebuild."""
    root = tmp_path / "g"
    _World(root)
    g = load_graph(root)
    assert plan_update(g, g, [path]).full is not None


def test_a_later_merge_of_a_file_on_disk_touches_its_target(tmp_path: Path) -> None:
    """Only root records change when the gate merges a file already on disk: the
    attestation and merge record must still touch the file's target."""
    plans = _check_sequence(tmp_path / "g", [("pending", 1, 0), ("merge_pending", 0, 0)])
    assert plans[1].full is None and plans[1].touched == frozenset({"beta"})


def test_postmerge_job_updates_products_incrementally(tmp_path: Path) -> None:
    """The post-merge job's products are a full rebuild's bytes, reached without one: a
    proof merged into one target re-derives that target alone."""
    from network.gate.lean.toolchain import MissingToolchain
    from network.gate.postmerge.postmerge import postmerge_files
    from network.gate.sandbox.sandbox import Sandbox
    from network.record import models as m
    from network.record.products import incremental
    from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

    root = tmp_path / "g"
    world = _World(root)
    with mock.patch.object(products, "catalog_json", _catalog):
        products.write_products(load_graph(root), root)
        git_commit(root, "main")
        nid = world.open["beta"][0]
        path = world.g.proof("beta", nid)
        apath = world.g.attest([path], date="2026-01-02T00:00:00Z", target="beta", node=nid)
        att = m.attestation_from_json(world.g.read(apath))
        world.g.remove(apath)  # the gate hands the post-merge job its attestation
        head = git_commit(root, "merge")

        def no_full(_graph: Any) -> dict[str, bytes]:
            raise AssertionError("a full rebuild")

        with mock.patch.object(incremental.P, "products", no_full):
            pm = postmerge_files(root, head, [att], pull_request="local/9", submitter="bob",
                                 toolchain=MissingToolchain, sandbox=Sandbox(),
                                 gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
        for p, data in pm.files.items():
            world.g.write(p, data)
        final = load_graph(root)
        assert products.check_products(final, root) == []
        assert "targets/beta/graph.json" in pm.files


def test_reload_reports_a_bad_changed_file(tmp_path: Path) -> None:
    """A changed file that does not validate fails the reload as it fails a load."""
    from network.errors import ValidationFailed

    root = tmp_path / "g"
    world = _World(root)
    old = load_graph(root)
    bad = world.g.write("targets/beta/nodes/root/attempts/20260105T000000Z-x-postmortem.yaml",
                        "schema: d13/v1\nnode: nowhere\n")
    with pytest.raises(ValidationFailed):
        load_graph(root)
    with pytest.raises(ValidationFailed):
        reload_graph(old, open_source(root), [bad])


def test_service_snapshot_reloads_only_what_a_commit_changed(tmp_path: Path) -> None:
    """The service's graph provider reads a new HEAD by reload_graph: the same graph as a
    whole load, with untouched targets taken over from the snapshot before."""
    from network.api.graphs import GraphProvider

    root = tmp_path / "g"
    world = _World(root)
    git_commit(root, "one")
    provider = GraphProvider.for_path(root)
    first = provider.snapshot().graph
    world.step("proof", 1, 1)  # beta
    git_commit(root, "two")
    second = provider.snapshot().graph
    whole = load_graph(root, "HEAD")
    assert second.commit == whole.commit and second.targets == whole.targets
    assert second.attestations == whole.attestations and second.merges == whole.merges
    assert second.targets["alpha"] is first.targets["alpha"]
    assert second.targets["beta"] is not first.targets["beta"]
