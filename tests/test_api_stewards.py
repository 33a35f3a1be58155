"""``POST /stewards`` over a LocalForge seeded with the repository's own graph (D-32
v3.17/v3.33/v3.34, D-6 v3.17; issue 13).

A signed-in mathematician becomes steward of a real imported open Erdős problem: before,
its root refuses claims with ``claim-no-steward``; the route opens one pull request whose
steward/v4 act is signed by the approval key; the merge queue judges it (step 2 alone) and
merges it; on main the root is claimable and the steward is marked self-admitted. Every
refusal comes before a pull request opens, with the gate's own code.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from network.api.people import web_session
from network.api.service import Caller, authenticate
from network.forge.local import LocalForge
from network.gate.queue.queue import process_queue
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record.read.loader import load_graph
from tests.api_support import forge_service
from tests.graphs import (
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
    GraphBuilder,
    git_commit,
)
from tests.standin import RecordedToolchain

ERDOS = "erdos-1107"  # imported from erdosproblems and Formal Conjectures, open
WORDS = {"real_name": "Sam Steward", "affiliation": "Somewhere University",
         "commitment": "I will read and write up whatever closes on this problem."}


@dataclass
class Env:
    client: TestClient
    app: Any
    forge: LocalForge
    people: dict[str, Any]

    def sign_in(self, pseudonym: str) -> None:
        """Make ``pseudonym`` (an identity with a token, its login bound in identities/)
        the signed-in person."""
        r = self.client.post("/tokens", json={"pseudonym": pseudonym, "dco": "1.1", "proof": {
            "kind": "github", "token": f"gh-{pseudonym}"}})
        assert r.status_code == 201, r.text
        who = authenticate(self.app.state.svc, r.json()["token"])
        person = web_session.Person(caller=Caller(token=None, address="t", who=who),
                                    login=pseudonym)
        self.app.dependency_overrides[web_session.person] = lambda: person

    def post(self, body: dict[str, Any]) -> Any:
        return self.client.post("/stewards", json=body)

    def main(self) -> Any:
        return load_graph(self.forge.path, self.forge.main_sha())

    def merge_all(self) -> list[Any]:
        return process_queue(self.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                             gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def real_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's graph/, with the builder's gate and approval keys published."""
    root = tmp_path_factory.mktemp("real") / "graph"
    shutil.copytree(REPO / "graph", root)
    b = GraphBuilder(root)
    b.publish_keys()
    for who in ("sam", "tess"):  # the pseudonym <-> login binding a sign-in records
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                 "github": who, "since": "2026-01-01"})
    return root


@pytest.fixture()
def env(tmp_path: Path, real_graph: Path) -> Iterator[Env]:
    root = tmp_path / "graph"
    shutil.copytree(real_graph, root)
    git_commit(root, "graph")
    with forge_service(root, tmp_path, when=1_790_000_000) as (client, app, forge, _clock):
        yield Env(client, app, forge, {})


def _refused(r: Any, code: str, status: int | None = None) -> None:
    assert r.status_code >= 400 and r.json()["code"] == code, r.text
    if status is not None:
        assert r.status_code == status


def test_a_steward_makes_a_real_erdos_root_claimable(env: Env) -> None:
    g = env.main()
    assert g.targets[ERDOS].record.target_class == "open-problem"
    assert derive.claimable(g, ERDOS, "root") == (False, "claim-no-steward")
    env.sign_in("sam")
    r = env.post({"target_id": ERDOS, "action": "join", **WORDS})
    assert r.status_code == 201, r.text
    receipt = r.json()
    assert receipt["kind"] == "steward-act" and receipt["pull_request"]
    [path] = receipt["paths"]
    assert path.startswith(f"targets/{ERDOS}/steward-acts/") and path.endswith("-sam.yaml")
    pr = env.forge.get(int(receipt["pull_request"]))
    assert pr.author == "sam" and pr.state == "open"
    [item] = env.merge_all()
    assert item.verdict == "pass" and item.merge_sha, item.notes
    assert env.forge.get(pr.number).state == "merged"
    g = env.main()
    assert derive.claimable(g, ERDOS, "root") == (True, None)
    [s] = derive.panel_of(g, ERDOS)
    assert (s.pseudonym, s.admitted_by, s.self_admitted, s.real_name) == \
        ("sam", "self", True, "Sam Steward")
    assert s.since == g.merges[-1].record.date  # dated by the merge log (ruling 2)
    doc = yaml.safe_load(env.forge.read_file(env.forge.main_sha(), path)
                         if hasattr(env.forge, "read_file") else g.source.read(path))
    assert doc["signature"]["kind"] == "approval" and doc["signature"]["signer"] == "sam"
    assert doc["pseudonym"] == "sam" and doc["admitted_by"] == "self"
    # a second mathematician cannot simply join: the target has a steward now
    env.sign_in("tess")
    _refused(env.post({"target_id": ERDOS, "action": "join", **WORDS}),
             "steward-invitation-required", 403)
    _refused(env.post({"target_id": ERDOS, "action": "accept-invitation", **WORDS,
                       "invitation": f"targets/{ERDOS}/motions/20261201T000000Z-sam.yaml"}),
             "steward-invitation-unknown", 403)
    # tess cannot step sam down (her act names herself, and she is no steward)
    _refused(env.post({"target_id": ERDOS, "action": "step-down"}), "steward-not-in-force")
    # sam steps down; once merged the root refuses claims again
    env.sign_in("sam")
    r = env.post({"target_id": ERDOS, "action": "step-down"})
    assert r.status_code == 201, r.text
    [item] = env.merge_all()
    assert item.verdict == "pass", item.notes
    g = env.main()
    assert derive.stewards_of(g, ERDOS) == []
    assert derive.claimable(g, ERDOS, "root") == (False, "claim-no-steward")


def test_refusals_open_nothing(env: Env) -> None:
    env.sign_in("sam")
    for body, code in (
        ({"target_id": ERDOS, "action": "join"}, "invalid-record"),  # no words
        ({"target_id": ERDOS, "action": "accept-invitation", **WORDS}, "invalid-record"),
        ({"target_id": ERDOS, "action": "step-down", "invitation": "targets/x/y.yaml"},
         "invalid-record"),
        ({"target_id": ERDOS, "action": "step-down"}, "steward-not-in-force"),
        ({"target_id": "nope", "action": "join", **WORDS}, "target-not-found"),
        ({"target_id": ERDOS, "action": "join", "pseudonym": "tess", **WORDS}, "bad-request"),
        ({"target_id": ERDOS, "action": "appoint", **WORDS}, "bad-request"),
    ):
        _refused(env.post(body), code)
    assert env.forge.list_all() == []
    r = env.post({"target_id": ERDOS, "action": "join", **WORDS})
    assert r.status_code == 201, r.text
    _refused(env.post({"target_id": ERDOS, "action": "join", **WORDS}), "record-copy")
    assert len(env.forge.list_all()) == 1


def test_without_a_session_the_route_is_refused(env: Env) -> None:
    env.app.dependency_overrides.clear()
    _refused(env.post({"target_id": ERDOS, "action": "join", **WORDS}), "session-missing", 401)
