"""Role pseudonyms are reserved and look-alikes refused at POST /tokens (issue 16, D-19
v3.28, ruling 9).

The graph names steward ``steve`` (demo) and curator ``curator``; ``cora`` is added as a
curator and ``vera`` as a steward bound by ``identities/vera.yaml`` to GitHub login
``vera``. The verifier maps GitHub token ``gh-<login>`` to ``<login>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from network.api.app import create_app
from network.api.identity import confusables
from network.api.settings import ServiceSettings
from tests.api_support import Api, FakeClock, auth, build_graph, github_verifier
from tests.graphs import git_commit


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[Api]:
    root = tmp_path / "graph"
    b = build_graph(root)
    b.curators([{"pseudonym": "curator", "targets": ["*"]},
                {"pseudonym": "cora", "targets": ["demo"]}])
    b.steward("demo", "vera")
    b.write_yaml("identities/vera.yaml", {"schema": "identity/v1", "pseudonym": "vera",
                                          "github": "vera", "since": "2026-01-01"})
    git_commit(root, "roles")
    clock = FakeClock()
    st = ServiceSettings(data_dir=tmp_path / "data", graph=root)
    app = create_app(st, github_verifier=github_verifier, clock=clock)
    with TestClient(app) as client:
        yield Api(client, app, clock, b)


def _ask(api: Api, pseudonym: str, login: str) -> Any:
    return api.client.post("/tokens", json={"pseudonym": pseudonym, "dco": "1.1",
                                            "proof": {"kind": "github", "token": f"gh-{login}"}})


def _code(r: Any) -> str:
    return str(r.json().get("code"))


@pytest.mark.parametrize("name", ["steve", "STEVE", "Steve", "cora", "CoRa", "vera"])
def test_a_squatted_role_pseudonym_is_refused(api: Api, name: str) -> None:
    r = _ask(api, name, "mallory")
    assert r.status_code == 422 and _code(r) == "pseudonym-reserved", r.text


def test_an_unbound_role_pseudonym_is_refused_even_to_the_same_login(api: Api) -> None:
    """steve has no identities/ record: no GitHub login is bound, so nobody gets it."""
    r = _ask(api, "steve", "steve")
    assert _code(r) == "pseudonym-reserved", r.text


def test_a_bound_role_pseudonym_goes_to_its_login_only(api: Api) -> None:
    assert _ask(api, "vera", "mallory").status_code == 422
    ok = _ask(api, "vera", "vera")
    assert ok.status_code == 201, ok.text
    assert _ask(api, "Vera", "VERA").status_code == 201  # case aside, the same login


def test_a_precheck_proof_never_takes_a_role_pseudonym(api: Api) -> None:
    r = api.client.post("/tokens", json={"pseudonym": "cora", "dco": "1.1",
                                         "proof": {"kind": "precheck", "job_id": "nope"}})
    assert _code(r) == "pseudonym-reserved", r.text


@pytest.mark.parametrize("name, like", [
    ("st3ve", "steve"), ("5teve", "steve"), ("c0ra", "cora"), ("g4te", "gate"),
    ("curat0r", "curator"), ("adrnin", "admin"), ("r00t", "root"), ("github_actions",
                                                                    "github-actions"),
])
def test_look_alikes_of_reserved_and_role_names_are_refused(api: Api, name: str,
                                                            like: str) -> None:
    r = _ask(api, name, "mallory")
    assert r.status_code == 409 and _code(r) == "pseudonym-confusable", r.text
    assert like in r.json()["detail"]


@pytest.mark.parametrize("name", ["aIice", "a1ice", "ALlCE", "al1ce".replace("1", "I")])
def test_look_alikes_of_existing_names_are_refused(api: Api, name: str) -> None:
    assert _ask(api, "alice", "alice").status_code == 201
    r = _ask(api, name, "mallory")
    assert _code(r) in ("pseudonym-confusable", "pseudonym-taken"), r.text
    assert r.status_code == 409


def test_the_owner_of_a_name_is_not_refused_as_its_own_look_alike(api: Api) -> None:
    assert _ask(api, "alice", "alice").status_code == 201
    assert _ask(api, "alice", "alice").status_code == 201  # re-proving: same identity


def test_distinct_names_stay_free(api: Api) -> None:
    for name in ("alice", "alicia", "bob", "steven", "anna"):
        assert _ask(api, name, name).status_code == 201, name


def test_an_existing_squatter_cannot_act_once_the_graph_names_the_role(
        api: Api, tmp_path: Path) -> None:
    tok = _ask(api, "sam", "mallory").json()["token"]
    assert api.client.post("/claims", json={"target": "demo", "node": "root"},
                           headers=auth(tok)).status_code == 201
    api.graph.steward("demo", "sam")  # the graph now names sam a steward
    git_commit(tmp_path / "graph", "sam steward")
    r = api.client.post("/claims", json={"target": "demo", "node": "root"},
                        headers=auth(tok))
    assert r.status_code == 422 and _code(r) == "pseudonym-reserved", r.text


def test_skeletons_follow_tr39() -> None:
    """The table is Unicode's: capital I, digit one and the vertical line read as l,
    digit zero as O, m as rn; Cyrillic а as Latin a."""
    assert confusables.skeleton("I1|") == "lll"
    assert confusables.skeleton("0") == "O"
    assert confusables.skeleton("m") == "rn"
    assert confusables.skeleton("\u0430") == "a"
    assert confusables.look_alike("p\u0430yp\u0430l", "paypal")
    assert not confusables.look_alike("alice", "alicia")
