"""The merge queue on LocalForge end to end (D-4, D-5, D-19, D-25 v3.21; rulings 2, 7, 8)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pygit2
import pytest

from network.errors import LemmataError
from network.forge.local import LocalForge
from network.gate.queue.queue import process_queue
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.validate import validate_graph
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_MID, T, open_prechecked, seeded_forge
from standin import RecordedToolchain

KEY = BUILDER_GATE_KEY  # published under keys/ by GraphBuilder.base() (ruling 14)
WHEN = 1_790_000_000


@pytest.fixture()
def forge(tmp_path: Path) -> LocalForge:
    return seeded_forge(tmp_path, WHEN)  # type: ignore[no-any-return]


def submit(forge: LocalForge, files: dict[str, bytes], author: str = "alice") -> int:
    """What the service does: commit, precheck with the same code, open with the block."""
    return open_prechecked(forge, files, author=author)


def read(forge: LocalForge, path: str) -> bytes:
    tree = forge.repo.get(forge.main_sha()).peel(pygit2.Commit).tree
    return bytes(forge.repo.get(tree[path].id).data)


def test_pr_gate_publish_merge_postmerge(forge: LocalForge) -> None:
    n = submit(forge, {f"{ND}/mid/Proof.lean": PROOF_MID.encode()})
    [item] = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=KEY, key_id=BUILDER_GATE_KEY_ID)
    assert item.verdict == "pass" and item.published and item.merge_sha, item.notes
    assert forge.get(n).state == "merged"
    g = load_graph(forge.path, commit=forge.main_sha())
    [att] = [a.record for a in g.attestations if a.record.node == "mid"]
    assert att.verdict == "pass" and att.merge_commit == item.merge_sha
    assert derive.node_status(g, T, "mid") == "proved"
    rec = g.merges[-1].record
    assert rec.pull_request == f"local/{n}" and rec.seq == 5
    assert rec.merge_commit == item.merge_sha and rec.signature is not None
    lines = [lf.record for lf in g.ledger if isinstance(lf.record, m.LedgerLine)
             and lf.record.merge_seq == rec.seq]
    assert [(x.line, x.identity, x.node) for x in lines] == [("proof", "alice", "mid")]
    frontier = json.loads(read(forge, "frontier.json"))
    assert any(e.get("node") == "root" for e in frontier["nodes"])
    assert not any(e.get("node") == "mid" for e in frontier["nodes"])  # proved: off it
    view = json.loads(read(forge, f"targets/{T}/graph.json"))
    [mid] = [v for v in view["nodes"] if v.get("node", v.get("id")) == "mid"]
    assert mid["status"] == "proved"
    assert frontier["as_of"] == rec.date
    from network.record.products.products import check_products
    assert check_products(g, forge.path) == []


def test_a_refused_pr_is_published_and_closed(forge: LocalForge) -> None:
    n = forge.open_pull_request(files={f"{ND}/mid/Proof.lean": PROOF_MID.encode()},
                                title="no precheck", body="", author="alice").number
    [item] = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox())
    assert item.verdict == "bounced" and item.published and forge.get(n).state == "closed"
    g = load_graph(forge.path, commit=forge.main_sha())
    assert [a.record.verdict for a in g.attestations if a.record.node == "mid"] == ["bounced"]


def test_a_losing_racer_moves_to_its_alternate_path(forge: LocalForge) -> None:
    first = submit(forge, {f"{ND}/mid/Proof.lean": PROOF_MID.encode()})
    other = PROOF_MID.replace("simpa using", "exact (by simpa using") + ")\n"
    second = submit(forge, {f"{ND}/mid/Proof.lean": other.encode()}, author="bob")
    items = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox())
    assert [i.number for i in items] == [first]
    assert forge.get(first).state == "merged" and forge.get(second).state == "closed"
    [moved] = items[0].moved
    pr = forge.get(moved)
    assert pr.author == "bob" and pr.state == "open"
    commit = forge.repo.get(pr.head_sha).peel(pygit2.Commit)
    path = f"{ND}/mid/attempts/20260921T141320Z-bob-alternate.lean"
    assert bytes(forge.repo.get(commit.tree[path].id).data) == other.encode()


def test_the_queue_loads_main_once_per_commit_and_hands_it_to_the_gate(
        forge: LocalForge, monkeypatch: pytest.MonkeyPatch) -> None:
    """run_gate's base_graph: the queue passes the graph at main it already holds, so the
    gate never reloads it (the racer's precheck included) and main is loaded once per
    main commit judged; verdicts are those of the racer test above."""
    from network.gate import run as R
    from network.gate.queue import queue as Q

    loads: dict[str, list[str]] = {"queue": [], "gate": []}

    def spy(where: str, real):  # a test double
        def load(*args, **kw):
            g = real(*args, **kw)
            loads[where].append(g.commit)
            return g
        return load

    monkeypatch.setattr(Q, "load_graph", spy("queue", Q.load_graph))
    monkeypatch.setattr(R, "load_graph", spy("gate", R.load_graph))
    first = submit(forge, {f"{ND}/mid/Proof.lean": PROOF_MID.encode()})
    other = PROOF_MID.replace("simpa using", "exact (by simpa using") + ")\n"
    submit(forge, {f"{ND}/mid/Proof.lean": other.encode()}, author="bob")
    loads["gate"].clear()  # the two submissions' own prechecks
    items = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox())
    assert [(i.number, i.verdict) for i in items] == [(first, "pass")]
    assert len(items[0].moved) == 1
    assert loads["gate"] == []
    assert len(loads["queue"]) == len(set(loads["queue"])) == 2  # before, after the merge


class _Exploding:
    """A toolchain source that raises when the gate looks for a toolchain (a bug stand-in:
    any exception while judging one pull request)."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def __call__(self, spec: m.GateSpec) -> object:
        raise self.exc


@pytest.mark.parametrize(("exc", "code"), [
    (RuntimeError("boom"), "gate-internal-error"),
    (KeyError("x"), "gate-internal-error"),
    (LemmataError("sandbox-unavailable", "no bubblewrap"), "sandbox-unavailable"),
])
def test_the_queue_survives_a_pull_request_that_makes_the_gate_raise(
        forge: LocalForge, exc: Exception, code: str, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 9: the first pull request (a proof with a forbidden option: step 2 refuses it,
    then steps 0 and 1 run, and looking for the toolchain raises) is refused, closed and
    logged with its code; the next one (a record, no toolchain needed) still merges."""
    bad = forge.open_pull_request(files={f"{ND}/mid/Proof.lean": (
        "set_option debug.skipKernelTC true\n" + PROOF_MID).encode()},
        title="raises", body="", author="alice").number
    pm = (f"schema: d13/v1\nnode: {T}/mid\ncontributor: bob\nroute: a route\n"
          "route_class: induction\noutcome: refuted-route\nterminal_goal_state: x\n"
          "failure_class: route-dead-ends\n")
    good = forge.open_pull_request(
        files={f"{ND}/mid/attempts/20260105T000000Z-bob-postmortem.yaml": pm.encode()},
        title="a record", body="", author="bob").number
    with caplog.at_level("ERROR", logger="network.gate.queue.queue"):
        items = process_queue(forge, toolchain=_Exploding(exc), sandbox=Sandbox(),
                              gate_key=KEY, key_id=BUILDER_GATE_KEY_ID)
    assert [(i.number, i.verdict, i.code) for i in items] == [
        (bad, "error", code), (good, "pass", None)]
    assert forge.get(bad).state == "closed" and forge.get(good).state == "merged"
    assert any(f"#{bad} refused: {code}" in r.getMessage() for r in caplog.records)
    assert validate_graph(forge.path, forge.main_sha()) == []


def test_an_error_after_the_verdict_is_logged_and_the_queue_goes_on(
        forge: LocalForge, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Publishing the first refusal raises (a forge fault, a test double): that pull
    request is still closed as refused, the error is logged with its code, and the next
    pull request is judged and merged."""
    first = forge.open_pull_request(files={f"{ND}/mid/notes.txt": b"x"}, title="refused",
                                    body="", author="alice").number
    pm = (f"schema: d13/v1\nnode: {T}/mid\ncontributor: bob\nroute: a route\n"
          "route_class: induction\noutcome: refuted-route\nterminal_goal_state: x\n"
          "failure_class: route-dead-ends\n")
    second = forge.open_pull_request(
        files={f"{ND}/mid/attempts/20260105T000000Z-bob-postmortem.yaml": pm.encode()},
        title="a record", body="", author="bob").number
    real = forge.commit_to_main
    calls: list[int] = []

    def flaky(files, message):  # the first publication fails
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk full")
        return real(files, message)

    monkeypatch.setattr(forge, "commit_to_main", flaky)
    with caplog.at_level("ERROR", logger="network.gate.queue.queue"):
        items = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                              gate_key=KEY, key_id=BUILDER_GATE_KEY_ID)
    assert [(i.number, i.verdict, i.code) for i in items] == [
        (first, "fail", "gate-internal-error"), (second, "pass", None)]
    assert forge.get(first).state == "closed" and forge.get(second).state == "merged"
    assert any(f"#{first}" in r.getMessage() and "gate-internal-error" in r.getMessage()
               for r in caplog.records)
