"""``POST /pertinence-signatures`` (D-30 v3.12; issue 18): a signed-in steward or curator
signs a related variant's pertinence sentence; the pull request passes step 2, merges
through the LocalForge queue, and the variant then reads pertinent in derive, graph.json
and get_node. Each refusal carries its catalog code and opens nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from network.api.tools import NO_TOOL
from network.gate.artifacts import Kind
from network.record import pertinence
from network.record.products.products import write_products
from network.record.read.loader import load_graph
from tests.api_support import Api, forge_service
from tests.graphs import GraphBuilder, git_commit
from tests.test_api_record_acts import _as, _merge, _post, _record, _refused
from tests.test_api_records import Env

sys.path.insert(0, str(Path(__file__).parent))

SENTENCE = "The case r = 3: a nearby case of the root with an explicit constant."
ROLE_HOLDERS = ("steve", "cora")


def _build(root: Path) -> GraphBuilder:
    """demo (steward steve, curator cora): root; rel, a related variant with a sentence;
    res, a resolves variant; plain, no variant."""
    b = GraphBuilder(root)
    b.base()
    b.curators([{"pseudonym": "cora", "targets": ["*"]}])
    b.target("demo")
    b.node("demo", "root")
    b.node("demo", "rel", origin="variant",
           variant={"of": "root", "relation": "related", "pertinence": SENTENCE})
    b.node("demo", "res", origin="variant", variant={"of": "root", "relation": "resolves"})
    b.node("demo", "plain")
    b.merge([b.proof("demo", "plain")], date="2026-01-02")
    for who in ROLE_HOLDERS:
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                               "github": who, "since": "2026-01-01"})
    write_products(load_graph(root), root)
    git_commit(root, "graph")
    return b


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    b = _build(tmp_path / "graph")
    with forge_service(tmp_path / "graph", tmp_path) as (client, app, forge, clock):
        yield Env(Api(client, app, clock, b), forge)


SIGN = {"target_id": "demo", "node_id": "rel"}


def _main(env: Env) -> Any:
    return load_graph(env.forge.path, "refs/heads/main")


@pytest.mark.parametrize("who", ROLE_HOLDERS)
def test_a_signature_merges_and_the_variant_reads_pertinent(env: Env, who: str) -> None:
    st = pertinence.pertinence_state(_main(env), "demo", "rel")
    assert st is not None and not st.signed
    bundle = env.client.get("/targets/demo/nodes/rel").json()
    assert bundle["pertinence"]["signed"] is False
    assert bundle["pertinence"]["sentence"] == SENTENCE
    assert "pertinence" not in env.client.get("/targets/demo/nodes/res").json()
    _as(env, who)
    r = _post(env, "/pertinence-signatures",
              {**SIGN, "sentence_sha256": bundle["pertinence"]["sentence_sha256"]})
    assert r.status_code == 201, r.text
    number = int(r.json()["pull_request"])
    env.step2_ok(number, Kind.PERTINENCE)
    rec = _record(env, number)
    assert (rec["target"], rec["variant"], rec["by"]) == ("demo", "rel", who)
    assert rec["sentence_sha256"] == pertinence.sentence_sha256(SENTENCE)
    assert rec["signature"]["kind"] == "approval" and rec["signature"]["signer"] == who
    _refused(_post(env, "/pertinence-signatures", SIGN), "record-copy", 409)
    [item] = _merge(env)
    assert item.verdict == "pass" and item.merge_sha, item.notes
    st = pertinence.pertinence_state(_main(env), "demo", "rel")
    assert st is not None and st.signed and st.signature is not None
    assert st.signature.by == who
    # one act per variant and sentence: a second, even by the other role holder, is refused
    _as(env, next(h for h in ROLE_HOLDERS if h != who))
    _refused(_post(env, "/pertinence-signatures", SIGN), "pertinence-already-signed", 409)


@pytest.mark.parametrize(("body", "code", "status"), [
    ({"node_id": "res"}, "pertinence-not-related", 422),
    ({"node_id": "plain"}, "pertinence-not-related", 422),
    ({"sentence_sha256": pertinence.sentence_sha256(SENTENCE + ".")},
     "pertinence-sentence-mismatch", 409),
    ({"node_id": "nope"}, "node-not-found", None),
])
def test_refusals_open_nothing(env: Env, body: dict[str, Any], code: str,
                               status: int | None) -> None:
    _as(env, "steve")
    _refused(_post(env, "/pertinence-signatures", {**SIGN, **body}), code, status)
    assert env.prs() == []


def test_only_a_signed_in_steward_or_curator_signs(env: Env) -> None:
    _refused(_post(env, "/pertinence-signatures", SIGN), "session-missing", 401)
    _as(env, "alice")
    _refused(_post(env, "/pertinence-signatures", SIGN), "role-not-permitted", 403)
    assert env.prs() == []


def test_the_route_has_no_tool_and_says_why() -> None:
    assert "human act" in NO_TOOL[("POST", "/pertinence-signatures")]
