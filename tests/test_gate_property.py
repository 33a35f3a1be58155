"""The property: no merged change breaks a later gate run (issue 9; STYLE.md rule 16).

For random sequences of admissible record changes — postmortems, annexes, glosses,
explainers, literature records (a contributor's proposal or a steward's signed reading),
approaches, defect claims, a curator's signed dispute of one, revision requests, an
author's withdrawal of their own gloss, a steward's signed shelving, a curator's signed
dormancy declaration, a signed steward record — each filed by its own submitter and
well-formed, merged one after another
through the LocalForge merge queue (gate, published attestation, merge, post-merge job) on a
real git graph: every change is admitted, and after each merge ``validate`` on main is clean
and a fresh gate run against main passes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import sessionmaker

from network.api.db import Base, make_engine
from network.forge.local import LocalForge
from network.gate.queue.queue import process_queue
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive, dormancy
from network.record import models as m
from network.record.read.loader import load_graph
from network.record.validate import validate_graph
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, GraphBuilder, sha256_hex

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

T = "demo"
ND = f"targets/{T}/nodes"
WHEN = 1_790_000_000
NODES = ("root", "lemma")
CONTRIBUTORS = ("alice", "bob")
KINDS = ("postmortem", "annex", "gloss", "explainer", "literature", "reading", "approach",
         "defect", "dispute", "revision-request", "withdraw-own-gloss", "shelving", "dormancy",
         "steward")
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.", min_size=1, max_size=40).map(
    lambda s: s.strip() or "x")

CHANGE = st.tuples(st.sampled_from(KINDS), st.sampled_from(NODES),
                   st.sampled_from(CONTRIBUTORS), WORDS,
                   st.sampled_from(("induction", "case-split", "computational")))


def _yaml(rec: dict[str, Any]) -> bytes:
    return yaml.safe_dump(rec, sort_keys=True, allow_unicode=True).encode()


class Model:
    """What the test knows of main: merged glosses by author (for withdrawals)."""

    def __init__(self, signer: GraphBuilder) -> None:
        self.signer = signer  # the seed's builder: hashes its files, signs with its test keys
        first = f"{ND}/root/gloss/20260102T000000Z-alice.yaml"
        self.glosses: dict[str, list[str]] = {"alice": [first]}
        self.defects: list[str] = []
        self.n = 0
        self.forge: Any = None  # the forge whose main a declaration's series is read on

    def change(self, kind: str, node: str, who: str, words: str,
               route_class: str) -> tuple[str, dict[str, bytes]]:
        """(submitter, files) of one admissible change; each file name is new."""
        self.n += 1
        ts = f"202603{self.n:02d}T000000Z"
        date = f"2026-03-{self.n:02d}"
        d = f"{ND}/{node}"
        if kind == "withdraw-own-gloss" and not self.glosses.get(who):
            kind = "gloss"
        if kind == "dispute" and not self.defects:
            kind = "defect"
        if kind == "postmortem":
            return who, {f"{d}/attempts/{ts}-{who}-postmortem.yaml": _yaml({
                "schema": "d13/v1", "node": f"{T}/{node}", "contributor": who,
                "route": words, "route_class": route_class, "outcome": "exhausted",
                "terminal_goal_state": "⊢ False", "failure_class": "route-dead-ends"})}
        if kind == "annex":
            text = f"{words} ({self.n})\n".encode()
            h = sha256_hex(text)
            return who, {f"{d}/annex/{h}.md": text, f"{d}/annex/{h}.yaml": _yaml({
                "schema": "annex/v1", "sha256": h, "author": who, "licence": "CC-BY-4.0",
                "title": words, "date": date})}
        if kind == "gloss":
            path = f"{d}/gloss/{ts}-{who}.yaml"
            stmt = f"{d}/Statement.lean"
            self.glosses.setdefault(who, []).append(path)
            return who, {path: _yaml({
                "schema": "gloss/v1", "describes": stmt,
                "describes_sha256": self.signer.sha(stmt), "author": who,
                "date": date, "licence": "CC-BY-4.0",
                "sections": [{"steps": [], "text": words, "drafted_with": []}]})}
        if kind in ("literature", "reading"):
            by = who if kind == "literature" else "steve"
            rec: dict[str, Any] = {"schema": "literature/v1", "status": "open",
                                   "summary": words, "by": by, "date": date}
            if kind == "reading":  # a steward's reading is a role act: signed
                rec = self.signer.signed(m.Literature, rec, by)
            return by, {f"{d}/literature/{ts}-{by}.yaml": _yaml(rec)}
        if kind == "approach":
            return who, {f"targets/{T}/approaches/{ts}-{who}.yaml": _yaml({
                "schema": "approach/v1", "target": T, "author": who, "date": date,
                "title": words, "state": "proposed", "nodes": [node]})}
        if kind == "explainer":  # of the merged proof of ``done``
            proof = f"{ND}/done/Proof.lean"
            return who, {f"{ND}/done/explainer/{ts}-{who}.yaml": _yaml({
                "schema": "explainer/v1", "describes": proof,
                "describes_sha256": self.signer.sha(proof), "author": who, "date": date,
                "licence": "CC-BY-4.0",
                "sections": [{"steps": [], "text": words, "drafted_with": []}]})}
        if kind == "dispute":  # a curator accepts a merged defect claim: signed
            defect = self.defects.pop(0)
            dnode = defect.split("/")[3]
            rec = self.signer.signed(m.Dispute, {
                "schema": "dispute/v1", "defect": defect, "curator": "curator",
                "date": date, "reason": words}, "curator")
            return "curator", {f"{ND}/{dnode}/disputes/{ts}-curator.yaml": _yaml(rec)}
        if kind == "dormancy":  # a curator's declaration: signed, with D-33's evidence
            main = load_graph(self.forge.path, self.forge.main_sha())
            date = derive.now(main) or date  # read at declaration: the record's now (issue 18)
            series = {k: v for k, v in dormancy.dormancy_series(main, T, date).items()
                      if k != "meets"}
            rec = self.signer.signed(m.TargetStatusRecord, {
                "schema": "target-status/v1", "declaration": "dormant", "curator": "curator",
                "date": date, "reasoning": words, "starvation_series": series}, "curator")
            return "curator", {f"targets/{T}/status/{date[:10]}-1.yaml": _yaml(rec)}
        if kind == "steward":  # a curator files a steward's own signed commitment
            name = f"sam{self.n}"
            rec = self.signer.signed(m.Steward, {
                "schema": "steward/v3", "pseudonym": name, "target": T,
                "real_name": f"Sam {self.n}", "since": date, "commitment": words}, name)
            return "curator", {f"targets/{T}/stewards/{name}.yaml": _yaml(rec)}
        if kind == "defect":
            self.defects.append(f"{d}/defects/{ts}-{who}.yaml")
            return who, {f"{d}/defects/{ts}-{who}.yaml": _yaml({
                "schema": "defect/v1", "class": "misformalization", "line": 1,
                "claim": words, "by": who, "date": date})}
        if kind == "revision-request":
            return who, {f"{d}/revision-requests/{ts}-{who}.yaml": _yaml({
                "schema": "revision-request/v1", "node": node,
                "operation": "revise-statement", "evidence": words, "by": who,
                "date": date})}
        if kind == "withdraw-own-gloss":
            target_path = self.glosses[who].pop(0)
            wnode = target_path.split("/")[3]
            return who, {f"{ND}/{wnode}/withdrawals/{ts}-{who}.yaml": _yaml({
                "schema": "withdrawal/v1", "withdraws": target_path, "by": who,
                "reason": words, "date": date})}
        assert kind == "shelving"  # of the lemma: the root is never shelved (D-14 v3.47)
        rec = self.signer.signed(m.Shelving, {
            "schema": "shelving/v1", "subject": "lemma", "cause": words, "by": "steve",
            "date": date}, "steve")
        return "steve", {f"{ND}/lemma/shelving/{ts}-steve.yaml": _yaml(rec)}


def _forge(work: Path) -> tuple[LocalForge, GraphBuilder]:
    # D-33's N at its least: a declaration read at the record's now meets (a) the day
    # after progress (the queue's clock is fixed, so no N of days can pass here)
    b = GraphBuilder(work / "g").base(dormancy_n_days=1)
    b.target(T)
    b.node(T, "root")
    b.node(T, "lemma")
    b.node(T, "done", proof="theorem stmt_done : True := trivial\n")
    b.merge([f"{ND}/done/Proof.lean"], date="2026-01-01", node="done")
    gloss = b.gloss(T, "root", "20260102T000000Z", "alice")
    b.merge([gloss], date="2026-01-02", node="root", artifact_kind="gloss")
    LocalForge.seed(work / "forge.git", b.root, when=WHEN)
    engine = make_engine(f"sqlite:///{work / 'state.db'}")
    Base.metadata.create_all(engine)
    return LocalForge(work / "forge.git", sessionmaker(engine), clock=lambda: WHEN), b


def _probe(forge: LocalForge, n: int) -> str:
    """The verdict of a fresh, admissible gate run against main (not merged)."""
    main = forge.main_sha()
    who = "probe"
    head = forge.commit_files(main, {f"{ND}/lemma/attempts/20270101T0000{n:02d}Z-{who}-"
                                     "postmortem.yaml": _yaml({
        "schema": "d13/v1", "node": f"{T}/lemma", "contributor": who, "route": "probe",
        "route_class": "direct-estimate", "outcome": "abandoned-early",
        "terminal_goal_state": "⊢ True", "failure_class": "informal-gap"})},
        "probe", author=(who, f"{who}@x.invalid"))
    out = run_gate(forge.path, main, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   submitter=who)
    return out.verdict


EVERY_KIND = [(kind, NODES[i % 2], CONTRIBUTORS[i % 2], f"words {i}", "induction")
              for i, kind in enumerate(KINDS)]
"""One change of every class, in an order where each finds what it needs (a defect before
its dispute, a gloss before its withdrawal)."""


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CHANGE, min_size=1, max_size=4))
@example(EVERY_KIND)
def test_no_merged_change_breaks_a_later_gate_run(changes: list[Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="lemmata-property-") as tmp:
        work = Path(tmp)
        forge, seed = _forge(work)
        model = Model(seed)
        model.forge = forge
        for i, change in enumerate(changes):
            who, files = model.change(*change)
            main = forge.main_sha()
            head = forge.commit_files(main, files, f"change {i}",
                                      author=(who, f"{who}@x.invalid"))
            forge.open_from_commit(head, title=f"change {i}", body="", author=who,
                                   base_sha=main)
            [item] = process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                                   gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
            assert item.verdict == "pass" and item.merge_sha, (change, item.notes)
            assert validate_graph(forge.path, commit=forge.main_sha()) == [], change
            assert _probe(forge, i) == "pass", change
