"""Merging is a journal (issue 16): a merge-queue run killed at any step boundary and
restarted (a fresh forge object and queue pass over the same repository and database)
ends where an uncrashed run ends: identical main tree, merge log, ledger, attestations and
pull-request states; a pull request whose head main already contains is never judged
again; a conflicting pull request is closed with ``merge-conflict`` once; a record-only
first merge with a fresh work folder merges with its merge record and ledger line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest
from sqlalchemy.orm import sessionmaker

from network.api.db import Base, make_engine
from network.forge.local import LocalForge
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from network.record.read.loader import load_graph
from tests.api_support import PG_URL, pg_schema
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_MID, T, base_repo
from standin import RecordedToolchain
from test_gate_queue import submit

WHEN = 1_790_000_000
PM = (f"schema: d13/v1\nnode: {T}/mid\ncontributor: carol\nroute: a route\n"
      "route_class: induction\noutcome: refuted-route\nterminal_goal_state: x\n"
      "failure_class: route-dead-ends\n")
PM_PATH = f"{ND}/mid/attempts/20260105T000000Z-carol-postmortem.yaml"


class Crash(BaseException):
    """Stands in for kill -9: a BaseException, so no ``except Exception`` in the queue
    catches it and nothing after the step boundary runs."""


#: root → (database URL, connect args) for networks not on SQLite (the PostgreSQL runs)
_DATABASES: dict[Path, tuple[str, dict[str, object]]] = {}


def open_forge(root: Path) -> LocalForge:
    """A fresh LocalForge object (a fresh engine) over ``root``'s repository and database:
    what a restarted process gets."""
    url, args = _DATABASES.get(root, (f"sqlite:///{root / 'state.db'}", {}))
    engine = make_engine(url, connect_args=args or None)
    Base.metadata.create_all(engine)
    return LocalForge(root / "forge.git", sessionmaker(engine), clock=lambda: WHEN)


def network(root: Path) -> LocalForge:
    """A seeded forge with three open pull requests: alice's proof of ``mid``, bob's
    racing proof of it and carol's postmortem (record-only)."""
    b, _ = base_repo(root / "graph")
    LocalForge.seed(root / "forge.git", b.root, when=WHEN)
    forge = open_forge(root)
    submit(forge, {f"{ND}/mid/Proof.lean": PROOF_MID.encode()})
    other = PROOF_MID.replace("simpa using", "exact (by simpa using") + ")\n"
    submit(forge, {f"{ND}/mid/Proof.lean": other.encode()}, author="bob")
    forge.open_pull_request(files={PM_PATH: PM.encode()}, title="a record", body="",
                            author="carol")
    return forge


def run_pass(forge: LocalForge, hook: Q.StepHook | None = None) -> list[Q.QueueItem]:
    return Q.process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID,
                           step_hook=hook)


def settle(root: Path) -> None:
    """Restart and run passes until a pass handles nothing (at most 6)."""
    for _ in range(6):
        if not run_pass(open_forge(root)):
            return
    raise AssertionError("the queue never settled")


def state(root: Path) -> dict[str, object]:
    """What must match an uncrashed run: main's tree, the merge log, ledger and
    attestation files' bytes, the pull requests' states, the journal (empty)."""
    forge = open_forge(root)
    main = forge.main_sha()
    tree = forge.repo[main].peel(pygit2.Commit).tree
    g = load_graph(forge.path, commit=main)
    keep: dict[str, bytes] = {}
    for rf in [*g.merges, *g.ledger, *g.attestations]:
        blob = forge.repo[tree[rf.path].id]
        assert isinstance(blob, pygit2.Blob)
        keep[rf.path] = bytes(blob.data)
    return {"tree": str(tree.id), "records": keep,
            "prs": [(p.number, p.author, p.state) for p in forge.list_all()],
            "journal": [i.number for i in Q.read_intents(forge)]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("uncrashed")
    network(root)
    settle(root)
    return state(root)


def test_the_uncrashed_run_merges_proof_and_record_and_moves_the_racer(
        reference: dict[str, object]) -> None:
    prs = reference["prs"]
    assert prs == [(1, "alice", "merged"), (2, "bob", "closed"), (3, "carol", "merged"),
                   (4, "bob", "closed")], prs
    # 4: bob's text as an alternate; this target takes no unsigned precheck, so it is
    # bounced (precheck-missing) and closed: a third kind of ending in the matrix
    assert reference["journal"] == []
    records = reference["records"]
    assert isinstance(records, dict)
    assert sum(p.startswith("log/merges/") for p in records) == 4 + 2  # seed + 1, 3


@pytest.mark.parametrize("occurrence", [1, 2])
@pytest.mark.parametrize("step", Q.STEPS)
def test_a_crash_at_any_step_boundary_ends_like_an_uncrashed_run(
        tmp_path: Path, reference: dict[str, object], step: str, occurrence: int) -> None:
    """Crash at the ``occurrence``-th time ``step`` finishes (1: alice's proof, with the
    racer to move; 2: the next pull request reaching that step), restart, settle."""
    if step == "racer-opened" and occurrence == 2:
        pytest.skip("one racer moves in this network")
    forge = network(tmp_path)
    seen: list[str] = []

    def hook(name: str) -> None:
        seen.append(name)
        if name == step and seen.count(step) == occurrence:
            raise Crash(step)

    with pytest.raises(Crash):
        run_pass(forge, hook)
    settle(tmp_path)
    assert state(tmp_path) == reference


@pytest.fixture()
def pg_root(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path`` whose forge keeps its rows on PostgreSQL, in a schema of its own."""
    with pg_schema("lemmata_journal") as schema:
        _DATABASES[tmp_path] = (PG_URL, {"options": f"-csearch_path={schema}"})
        try:
            yield tmp_path
        finally:
            _DATABASES.pop(tmp_path, None)


@pytest.mark.postgres
@pytest.mark.parametrize("step", Q.STEPS)
def test_the_crash_matrix_on_postgresql(pg_root: Path, reference: dict[str, object],
                                        step: str) -> None:
    """The same matrix (first occurrence) with the pull-request rows on PostgreSQL."""
    forge = network(pg_root)

    def hook(name: str) -> None:
        if name == step:
            raise Crash(step)

    with pytest.raises(Crash):
        run_pass(forge, hook)
    settle(pg_root)
    assert state(pg_root) == reference


def test_a_pull_request_already_on_main_without_a_journal_is_not_gated_again(
        tmp_path: Path, reference: dict[str, object]) -> None:
    """The old failure: killed between moving main and marking the row, with no journal
    (it is removed here). On restart the pull request is marked merged and its post-merge
    job completed, not judged against a main that contains it and closed."""
    forge = network(tmp_path)

    def hook(name: str) -> None:
        if name == "main-moved":
            raise Crash(name)

    with pytest.raises(Crash):
        run_pass(forge, hook)
    for p in (tmp_path / "forge.git" / Q.JOURNAL_DIR).glob("*.json"):
        p.unlink()
    items = run_pass(open_forge(tmp_path))
    assert items[0].number == 1 and items[0].verdict == "pass"
    assert "already on main" in items[0].notes[0] and items[0].outcome is None
    settle(tmp_path)
    assert state(tmp_path) == reference


def test_a_conflicting_pull_request_is_closed_with_a_code_and_never_regated(
        tmp_path: Path) -> None:
    """Two different postmortems at one file name (the same-second write): the first
    merges, the second no longer merges cleanly and is closed with merge-conflict; the
    next pass judges nothing and publishes nothing."""
    b, _ = base_repo(tmp_path / "graph")
    LocalForge.seed(tmp_path / "forge.git", b.root, when=WHEN)
    forge = open_forge(tmp_path)
    first = forge.open_pull_request(files={PM_PATH: PM.encode()}, title="one", body="",
                                    author="carol").number
    second = forge.open_pull_request(
        files={PM_PATH: PM.replace("a route", "another route").encode()}, title="two",
        body="", author="carol").number
    items = run_pass(forge)
    assert [(i.number, i.verdict, i.code) for i in items] == [
        (first, "pass", None), (second, "pass", "merge-conflict")], [i.notes for i in items]
    assert forge.get(first).state == "merged" and forge.get(second).state == "closed"
    assert any("resubmit" in n for n in items[1].notes)
    main = forge.main_sha()
    assert run_pass(forge) == [] and forge.main_sha() == main
    assert Q.read_intents(forge) == []


def test_a_record_only_first_merge_with_a_fresh_work_folder_merges(tmp_path: Path) -> None:
    """Issue 16: on a fresh network the first merge is a postmortem, and the work folder
    (``<data>/work``, as ``lemmata up`` passes it) does not exist yet: nothing made it,
    since no Lean ran. It merges with its merge record and ledger line."""
    b, _ = base_repo(tmp_path / "graph")
    LocalForge.seed(tmp_path / "forge.git", b.root, when=WHEN)
    forge = open_forge(tmp_path)
    n = forge.open_pull_request(files={PM_PATH: PM.encode()}, title="a record", body="",
                                author="carol").number
    work = tmp_path / "data" / "work"
    [item] = Q.process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                             gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID,
                             work_dir=work)
    assert item.verdict == "pass" and item.code is None, item.notes
    assert forge.get(n).state == "merged" and item.postmerge is not None
    g = load_graph(forge.path, commit=forge.main_sha())
    rec = g.merges[-1].record
    assert rec.pull_request == f"local/{n}" and rec.merge_commit == item.merge_sha
    lines = [lf.record for lf in g.ledger if isinstance(lf.record, m.LedgerLine)
             and lf.record.merge_seq == rec.seq]
    assert [(x.line, x.identity) for x in lines] == [("attempts", "carol")]


def test_the_journal_is_written_atomically_and_an_unreadable_file_is_skipped(
        tmp_path: Path) -> None:
    b, _ = base_repo(tmp_path / "graph")
    LocalForge.seed(tmp_path / "forge.git", b.root, when=WHEN)
    forge = open_forge(tmp_path)
    intent = Q.MergeIntent(7, "a" * 40, "pass", {"x.json": "{}\n"}, "b" * 40, None,
                           ("x.json",), "alice")
    path = Q.write_intent(forge, intent)
    (path.parent / "8.json").write_bytes(b"{not json")
    assert Q.read_intents(forge) == [intent]
    assert not list(path.parent.glob(".*.tmp"))
    Q.clear_intent(forge, 7)
    Q.clear_intent(forge, 7)  # idempotent
    assert Q.read_intents(forge) == []


def test_a_planned_merge_whose_pull_request_closed_first_does_not_move_main(
        tmp_path: Path) -> None:
    """Killed after planning the merge; the submitter withdraws (the row is closed) before
    the restart: main does not move, and the intent is cleared rather than retried."""
    forge = network(tmp_path)

    def hook(name: str) -> None:
        if name == "planned":
            raise Crash(name)

    with pytest.raises(Crash):
        run_pass(forge, hook)
    forge = open_forge(tmp_path)
    [intent] = Q.read_intents(forge)
    assert intent.new_main is not None and forge.main_sha() == intent.base
    forge.close(intent.number)
    items = run_pass(forge)
    assert items[0].number == intent.number and items[0].merge_sha is None
    assert not forge.contains(forge.main_sha(), intent.new_main)
    assert Q.read_intents(forge) == [] and forge.get(intent.number).state == "closed"
