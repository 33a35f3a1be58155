"""Issue 27's "Done when" flow on a real imported Erdős problem (D-9 v3.39).

The target is the sample graph's ``erdos-11`` as imported from Formal Conjectures (its
target.yaml and root node copied byte for byte), re-pinned to a sound toolchain (issue
37: its imported pin v4.27.0 is known unsound, so the gate refuses every Lean file there
with ``toolchain-known-unsound``, which the first test shows), with ``steve`` as its
steward. Through the service, over a LocalForge whose merge queue judges every pull
request:

1. a curator opens a review, steve its intent signer;
2. an agent submits, through MCP, the imported statement as the registry's candidate and
   one pair direction; a person (carol) submits her own equivalent candidate; the other
   direction follows;
3. a second agent submits a deliberately wrong candidate and a negation screen that
   discards it;
4. the screens are attempted and recorded; a disagreement becomes a question, which
   steve answers on the evidence page's route;
5. the two signers sign through the site's route; the grade and state rise in graph.json
   (what the target page and the evidence page render);
6. a proof of the root is held at step 9 while the review is incomplete (basis
   ``awaiting-review``, even with a steward's approving review) and passes it once the
   review vouches (basis ``certificate``, naming the review's opening). No proof of Erdős
   problem 11 exists, so step 9 is read directly (``step9_basis``) rather than through a
   proof the gate would have to pass.

Lean answers are declared as the pinned Lean gives them for these bytes and recorded by the
scenarios' recorder (tests/gate_scenarios.py ``RecordingToolchain``): each candidate
compiles and states its declaration with ``sorry`` (``sorryAx``); each ``implies`` exhibit
is ``fun h => h`` between two statements equal up to the names of their binders, and the
negation exhibit decides ``3 < 2`` false at ``n = 3`` (``⟨1, rfl⟩ : Odd 3``): no axiom.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import RecordingToolchain, Scenario, identities

from network.api.people import web_session
from network.api.service import Caller, authenticate
from network.gate.artifacts import Artifact, Kind
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.gate.steps.context import Review as ForgeReview
from network.gate.steps.step9_review import step9_basis
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph, load_graph
from network.record.review_models import SCREENS
from tests.api_support import Api, forge_service
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, GraphBuilder, git_commit
from tests.test_api_records import Env

REPO = Path(__file__).resolve().parents[1]
T = "erdos-11"
SOUND = "leanprover/lean4:v4.34.0"
ROOT = (REPO / "graph" / "targets" / T / "nodes" / "root" / "Statement.lean").read_text("utf-8")
CAROL = ("import Mathlib\n\nnamespace Erdos11Carol\n\n"
         "/-- Every odd number above 1 is a squarefree number plus a power of two. -/\n"
         "theorem odd_sum (m : ℕ) (hodd : Odd m) (hbig : 1 < m) :\n"
         "    ∃ a b : ℕ, Squarefree a ∧ m = a + 2 ^ b := by\n  sorry\n\n"
         "end Erdos11Carol\n")
WRONG = ("import Mathlib\n\nnamespace Erdos11Wrong\n\n"
         "theorem odd_small (n : ℕ) (hn : Odd n) (hn' : 1 < n) : n < 2 := by\n  sorry\n\n"
         "end Erdos11Wrong\n")
_STMT = "∀ (n : ℕ) (hn : Odd n) (hn' : 1 < n), ∃ k l : ℕ, Squarefree k ∧ n = k + 2 ^ l"
ROOT_TO_CAROL = ("import Mathlib\n\n"
                 f"theorem Erdos11Pairs.root_carol : ({_STMT}) → ({_STMT}) :=\n"
                 "  fun h => h\n")
CAROL_TO_ROOT = ("import Mathlib\n\n"
                 f"theorem Erdos11Pairs.carol_root : ({_STMT}) → ({_STMT}) :=\n"
                 "  fun h => h\n")
WRONG_NEGATION = ("import Mathlib\n\n"
                  "theorem Erdos11Screens.odd_small_false :\n"
                  "    ¬ ∀ (n : ℕ) (hn : Odd n) (hn' : 1 < n), n < 2 :=\n"
                  "  fun h => absurd (h 3 ⟨1, rfl⟩ (by decide)) (by decide)\n")


def _graph(root: Path) -> None:
    """erdos-11 as imported, re-pinned sound, steve its steward; curator cora."""
    b = GraphBuilder(root)
    b.base()
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": ["*"]}])
    src = REPO / "graph" / "targets" / T
    for rel in ("target.yaml", "nodes/root/META.yaml", "nodes/root/Statement.lean",
                "nodes/root/Witness.lean"):
        b.write(f"targets/{T}/{rel}", (src / rel).read_bytes())
    spec = json.loads((src / "gate-spec.json").read_text("utf-8"))
    spec["lean_toolchain"] = SOUND
    b.write_json(f"targets/{T}/gate-spec.json", spec)
    b.steward(T, "steve")
    for who in ("steve", "erin", "cora", "carol"):
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": who, "since": "2026-01-01"})
    git_commit(root, "erdos-11 under review")


def _rows(name: str, axioms: list[str]) -> dict[str, Any]:
    return {"ok": True, "code": None, "theorems": [
        {"name": name, "found": True, "type_equal": True, "axioms": axioms,
         "axiom_identities": identities(axioms)}]}


#: what the pinned Lean answers for this flow's files (see the module docstring)
ANSWERS: dict[str, Any] = {
    "describe": {"ok": True, "code": None, "lean_version": "4.34.0"},
    "check_statement": lambda a: _rows(a["theorems"][0], ["sorryAx"]),
    "check_relation": lambda a: _rows(a["theorem"], []),
}


class Flow:
    """The service, the forge and its queue for the flow, and the person's session."""

    def __init__(self, env: Env, tmp: Path) -> None:
        self.env = env
        self.tmp = tmp
        self.store: dict[str, dict[str, Any]] = {}

    def pins(self, spec: m.GateSpec) -> Path:
        """The gate image's pin folder for ``spec`` (what ``lemmata toolchain install``
        leaves): a lake-manifest.json listing Mathlib and Formal Conjectures at their
        pinned revisions (the packages themselves are the stand-in's to answer for)."""
        root = self.tmp / "pins"
        pin = root / (spec.mathlib.rev if spec.mathlib else "core")
        if not pin.exists():
            (pin / ".lake" / "packages").mkdir(parents=True)
            pkgs = ([spec.mathlib] if spec.mathlib else []) + list(spec.packages)
            (pin / "lake-manifest.json").write_text(json.dumps({
                "version": "1.1.0", "packagesDir": ".lake/packages", "name": "pins",
                "lakeDir": ".lake", "packages": [
                    {"type": "git", "name": p.name, "url": p.url, "rev": p.rev,
                     "inputRev": p.rev, "scope": "", "manifestFile": "lake-manifest.json",
                     "inherited": False, "configFile": "lakefile.lean"} for p in pkgs]}))
        return root

    def toolchain(self, spec: m.GateSpec) -> RecordingToolchain:
        tc = RecordingToolchain(spec, Scenario("review-flow", {}, ANSWERS), self.store)
        tc.pins_root = self.pins(spec)  # type: ignore[attr-defined]
        return tc

    def queue(self) -> list[Q.QueueItem]:
        return Q.process_queue(self.env.forge, toolchain=self.toolchain,
                               sandbox=Sandbox(), gate_key=BUILDER_GATE_KEY,
                               key_id=BUILDER_GATE_KEY_ID, work_dir=self.tmp / "queue")

    def merged(self, r: Any) -> str:
        """The pull request ``r`` opened, judged and merged; its record's path."""
        assert r.status_code == 201, r.text
        number = int(r.json()["pull_request"])
        items = {i.number: i for i in self.queue()}
        assert items[number].verdict == "pass", (items[number].verdict, items[number].notes,
                                                 [d.code for s in items[number].outcome.runs[0].steps
                                                  for d in s.diagnostics]
                                                 if items[number].outcome else None)
        return next(p for p in r.json()["paths"] if p.endswith(".yaml"))

    def token(self, who: str) -> str:
        return str(self.env.api.token(who)["token"])

    def person(self, who: str) -> None:
        tok = self.token(who)
        caller = Caller(token=None, address="t", who=authenticate(self.env.api.svc, tok))
        self.env.api.app.dependency_overrides[web_session.person] = (
            lambda: web_session.Person(caller=caller, login=who))

    def post(self, path: str, body: dict[str, Any], who: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token(who)}"} if who else {}
        return self.env.client.post(path, json=body, headers=headers)

    def main(self) -> Graph:
        return load_graph(self.env.forge.path, "refs/heads/main")

    def state(self) -> derive.ReviewState:
        st = derive.review_state(self.main(), T)
        assert st is not None
        return st


@pytest.fixture()
def flow(tmp_path: Path) -> Iterator[Flow]:
    _graph(tmp_path / "graph")
    with forge_service(tmp_path / "graph", tmp_path) as (client, app, forge, clock):
        yield Flow(Env(Api(client, app, clock, None), forge), tmp_path)  # type: ignore[arg-type]


def _step9(graph: Graph, review: ForgeReview | None) -> tuple[m.Step9, bool]:
    """Step 9's basis for a proof of erdos-11's root by alice (a would-be settling proof)."""
    art = Artifact(Kind.PROOF, T, "root", [f"targets/{T}/nodes/root/Proof.lean"],
                   f"targets/{T}/nodes/root/Proof.lean")
    return step9_basis(graph, art, "alice", review)


def test_the_imported_pin_refuses_every_review_lean_file(tmp_path: Path) -> None:
    """Without the re-pin, erdos-11's imported pin (v4.27.0) is known unsound: a
    candidate's Lean is refused with toolchain-known-unsound before any build, as every
    Lean file of that target is."""
    from network.gate.lean.kernels import known_unsound
    from network.record.read.loader import load_graph as load

    sample = load(REPO / "graph")
    assert known_unsound(sample.targets[T].gate_spec)


def test_a_review_of_erdos_11_from_opening_to_a_vouched_root(flow: Flow) -> None:
    steward_ok = ForgeReview("steve", True, ())
    before = _step9(flow.main(), steward_ok)
    assert before[0].basis == "review" and not before[1]  # pre-v3.39: a steward's review

    # 1. a curator opens the review (signed in on the site)
    flow.person("cora")
    opening = flow.merged(flow.post("/reviews", {
        "target": T, "role": "curator",
        "words": "Is every odd n > 1 the sum of a squarefree number and a power of 2?",
        "cases": [{"kind": "small-value", "text": "3 = 1 + 2", "source": "erdosproblems.com/11"}],
        "intent_signer": "steve"}))
    st = flow.state()
    assert st.held and st.intent_signer == "steve" and st.opening == opening
    held = _step9(flow.main(), steward_ok)
    assert held[0].basis == "awaiting-review" and held[1]  # the review now holds step 9

    # 2. agent ada through MCP: the imported statement (the registry's) and a direction
    ada = flow.token("ada")
    carol_body = {"lean": CAROL, "declaration": "Erdos11Carol.odd_sum", "origin": "person",
                  "read_others": False}
    c_carol = flow.merged(flow.post(f"/reviews/{T}/candidates", carol_body, "carol"))

    async def mcp(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        out = []
        transport = httpx2.ASGITransport(app=flow.env.api.app)
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://testserver") as http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            for name, args in calls:
                res = await c.call_tool(name, args)
                assert not res.is_error, res.content[0].text  # type: ignore[union-attr]
                out.append(json.loads(res.content[0].text))  # type: ignore[union-attr]
        return out

    (reg,) = anyio.run(mcp, [("submit_candidate", {
        "target_id": T, "lean": ROOT, "declaration": "Erdos11.erdos_11", "origin": "registry",
        "registry": {"name": "Formal Conjectures",
                     "repository": "https://github.com/google-deepmind/formal-conjectures",
                     "file": "FormalConjectures/ErdosProblems/11.lean",
                     "declaration": "Erdos11.erdos_11"}, "token": ada})])
    c_root = next(p for p in reg["paths"] if p.endswith(".yaml"))
    flow.queue()
    anyio.run(mcp, [("submit_review_exhibit", {
        "target_id": T, "kind": "implies", "candidate": c_root, "other": c_carol,
        "theorem": "Erdos11Pairs.root_carol", "lean": ROOT_TO_CAROL, "token": ada})])
    flow.queue()
    flow.merged(flow.post(f"/reviews/{T}/exhibits", {
        "kind": "implies", "candidate": c_carol, "other": c_root,
        "theorem": "Erdos11Pairs.carol_root", "lean": CAROL_TO_ROOT}, "ada"))
    st = flow.state()
    by = {c.path: c for c in st.candidates}
    assert by[c_root].is_root and by[c_root].outcome == "surviving"
    assert st.clusters == ((c_carol, c_root),) or st.clusters == ((c_root, c_carol),)

    # 3. agent bruno: a deliberately wrong candidate, discarded by a negation screen
    c_wrong = flow.merged(flow.post(f"/reviews/{T}/candidates", {
        "lean": WRONG, "declaration": "Erdos11Wrong.odd_small", "origin": "model",
        "models": ["example-prover"]}, "bruno"))
    screen = flow.merged(flow.post(f"/reviews/{T}/exhibits", {
        "kind": "negation", "candidate": c_wrong, "theorem": "Erdos11Screens.odd_small_false",
        "lean": WRONG_NEGATION, "tool": "decide"}, "bruno"))
    by = {c.path: c for c in flow.state().candidates}
    assert by[c_wrong].outcome == "discarded" and by[c_wrong].discarded_by == screen

    # 4. screens attempted; a disagreement becomes a question, answered by the steward
    for cand in (c_root, c_carol):
        for s in SCREENS:
            flow.merged(flow.post(f"/reviews/{T}/attempts", {
                "candidate": cand, "screen": s, "tool": "aesop", "budget": "60 s"}, "bruno"))
    assert flow.state().complete
    q = flow.merged(flow.post(f"/reviews/{T}/questions", {
        "question": "Does 'a power of 2' include 2^0 = 1, so that 3 = 2 + 1 counts?",
        "case": "n = 3", "candidates": [c_root, c_carol]}, "bruno"))
    st = flow.state()
    assert not st.complete and st.summary == "3 candidates, 1 cluster, 1 question waiting"
    flow.person("steve")
    flow.merged(flow.post(f"/reviews/{T}/answers", {
        "question": q, "answer": "Yes: 2^0 = 1 is a power of 2; 3 = 2 + 1 with 2 squarefree.",
        "source": "erdosproblems.com/11"}))
    assert flow.state().complete
    still = _step9(flow.main(), steward_ok)
    assert still[0].basis == "awaiting-review" and still[1]  # complete, yet unsigned

    # 5. the two signers sign through the site; the grade rises
    cluster = sorted([c_root, c_carol])
    flow.person("erin")
    flow.merged(flow.post(f"/reviews/{T}/signatures", {
        "role": "independent", "decision": "accept", "cluster": cluster}))
    view = derive.graph_view(flow.main(), T)["review"]
    assert view["grade"] == "screened-and-signed" and view["vouches"]
    flow.person("steve")
    flow.merged(flow.post(f"/reviews/{T}/signatures", {
        "role": "intent", "decision": "accept", "cluster": cluster}))
    view = derive.graph_view(flow.main(), T)["review"]
    assert view["grade"] == "expert-attested" and not view["capped"]  # carol's is a person's
    assert view["summary"] == "3 candidates, 1 cluster, 0 questions waiting"

    # 6. step 9 reads the review: a settling proof passes it, the opening its certificate
    after = _step9(flow.main(), None)
    assert after == (m.Step9(basis="certificate", certificate=opening), False)
