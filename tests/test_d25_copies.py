"""Copies as D-25 v3.21 says (issue 40): a statement, proof or record identical, comments
and whitespace aside, to one merged or open for the node is refused before a pull request
opens, with a catalog code, using the one Lean normalisation the proof copy check uses.

Before this, only a byte-identical statement was refused against a merged node, and a
postmortem was compared with open ones alone: once the first merged, the same postmortem
merged again and inflated ``failure_classes``. Each case here is fed the copy and the
genuinely different write beside it, and counts the pull requests.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from network.api import db
from network.api.submit import record_pr, submissions
from network.errors import CATALOG
from tests.api_support import Api, auth, forge_service
from tests.graphs import GraphBuilder, git_commit
from tests.test_api_records import PM, PROVED_STMT, Env, _build, _env, _refused, _variant

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    """test_api_records' demo graph over a LocalForge: ``proved``'s statement is merged."""
    yield from _env(tmp_path)


def _tokens(env: Env, *names: str) -> list[str]:
    return [str(env.api.token(n)["token"]) for n in names]


def _merge_only_pr(env: Env) -> None:
    [pr] = [p for p in env.prs() if p.state == "open"]
    env.forge.merge(pr.number)


def _rows(env: Env) -> int:
    with env.api.svc.sessions() as s:
        return int(s.query(db.SubmissionRow).count())


# --- the normalisation --------------------------------------------------------------------


def test_one_lean_normalisation_for_proofs_and_statements() -> None:
    a = "theorem t : True := by\n  trivial\n"
    b = "-- mine\ntheorem  t :\n    True := by /- easy -/ trivial"
    assert record_pr.normalized_lean_sha256(a) == record_pr.normalized_lean_sha256(b)
    assert submissions.normalized_sha256(b) == record_pr.normalized_lean_sha256(a)
    assert record_pr.normalized_lean_sha256("theorem t : False := sorry") != \
        record_pr.normalized_lean_sha256(a)


def test_a_record_key_sets_author_date_signature_and_whitespace_aside() -> None:
    one = {"route": "strong induction", "detail": "n : ℕ\n⊢ P n\n", "contributor": "alice",
           "date": "2026-01-01"}
    two = {"route": "strong  induction ", "detail": "n : ℕ ⊢ P n", "contributor": "bob",
           "date": "2026-02-02", "signature": {"signer": "bob"}}
    assert record_pr.record_copy_key(one) == record_pr.record_copy_key(two)
    assert record_pr.record_copy_key(one) != record_pr.record_copy_key(
        {**one, "route": "weak induction"})


def test_the_catalog_says_merged_or_open() -> None:
    meaning = CATALOG["record-copy"].meaning
    assert "merged" in meaning and "open" in meaning and "whitespace" in meaning


# --- statements -----------------------------------------------------------------------------


def test_a_whitespace_and_comment_copy_of_a_merged_statement_is_refused(env: Env) -> None:
    tok, = _tokens(env, "alice")
    # proved's merged statement is "theorem stmt_proved : True := sorry\n-- line 2\n"
    copy = "/- my crux -/\ntheorem  stmt_proved\n    : True :=\n  sorry  -- again\n"
    for route in ("/proposals/variant", "/proposals/speculative"):
        err = _refused(env.post(route, {**_variant("again"), "stmt": copy}, tok),
                       "record-copy", 409)
        assert PROVED_STMT in err["detail"] and "merged" in err["detail"]
    assert env.prs() == [] and _rows(env) == 0
    # a genuinely different statement still opens
    r = env.post("/proposals/variant", _variant("weaker"), tok)
    assert r.status_code == 201, r.text
    assert len(env.prs()) == 1


@pytest.fixture()
def sample(tmp_path: Path) -> Iterator[Env]:
    """The repository's graph/ over a LocalForge (infinite-primes/root merged)."""
    root = tmp_path / "graph"
    shutil.copytree(REPO / "graph", root)
    GraphBuilder(root).publish_keys()
    git_commit(root, "graph")
    with forge_service(root, tmp_path) as (client, app, forge, clock):
        yield Env(Api(client, app, clock, GraphBuilder(root)), forge)


def test_infinite_primes_root_restated_is_a_copy(sample: Env) -> None:
    """The issue's own case: infinite-primes/root's statement, re-spaced and with a
    ``--`` comment, proposed as a crux of the same target."""
    root = (REPO / "graph/targets/infinite-primes/nodes/root/Statement.lean").read_text()
    copy = root.replace("theorem infinite_primes :", "-- the same, I think\ntheorem "
                        "infinite_primes  :\n   ").replace("  sorry", "    sorry   ")
    assert copy != root
    tok, = _tokens(sample, "alice")
    body = {"target_id": "infinite-primes", "node_id": "restated", "stmt": copy,
            "witness": "example : True := trivial\n",
            "declaration": "InfinitePrimes.infinite_primes"}
    err = _refused(sample.post("/proposals/speculative", body, tok), "record-copy", 409)
    assert "targets/infinite-primes/nodes/root/Statement.lean" in err["detail"]
    assert sample.prs() == []


# --- postmortems ----------------------------------------------------------------------------


def test_a_postmortem_copy_after_the_first_merged_is_refused(env: Env) -> None:
    alice, bob = _tokens(env, "alice", "bob")
    body = {"target_id": "demo", "node_id": "root", "yaml": yaml.safe_dump(PM)}
    first = env.post("/postmortems", body, alice)
    assert first.status_code == 201, first.text
    _refused(env.post("/postmortems", body, bob), "record-copy", 409)  # open: as before
    _merge_only_pr(env)
    merged_path = first.json()["paths"][0]
    for yaml_text in (yaml.safe_dump(PM),  # the same bytes, by another identity
                      yaml.safe_dump({**PM, "route": " strong   induction",
                                      "terminal_goal_state": "n : ℕ\n\n⊢ P n\n"}),
                      "# a comment\n" + yaml.safe_dump(PM, default_style='"')):
        err = _refused(env.post("/postmortems", {**body, "yaml": yaml_text}, bob),
                       "record-copy", 409)
        assert merged_path in err["detail"] and "merged" in err["detail"]
    assert len(env.prs()) == 1
    # a genuinely different postmortem of the same node still opens
    other = {**PM, "failure_class": "timeout-blowup", "outcome": "refuted-route"}
    r = env.post("/postmortems", {**body, "yaml": yaml.safe_dump(other)}, bob)
    assert r.status_code == 201, r.text
    assert len(env.prs()) == 2


def test_a_hand_filed_postmortem_naming_its_node_alone_is_still_the_same(
        tmp_path: Path) -> None:
    """A postmortem merged by hand may say ``node: root`` where the service writes
    ``node: demo/root``; neither spelling makes a copy different."""
    root = tmp_path / "graph"
    b = _build(root)
    b.postmortem("demo", "root", "20260105T000000Z", "carol", route="a route",
                 node="root")
    git_commit(root, "a hand-filed postmortem")
    with forge_service(root, tmp_path) as (client, app, forge, clock):
        env = Env(Api(client, app, clock, b), forge)
        tok, = _tokens(env, "alice")
        mine = {"route": "a route", "route_class": "induction", "outcome": "refuted-route",
                "terminal_goal_state": "⊢ False", "failure_class": "route-dead-ends"}
        body = {"target_id": "demo", "node_id": "root", "yaml": yaml.safe_dump(mine)}
        err = _refused(env.post("/postmortems", body, tok), "record-copy", 409)
        assert "20260105T000000Z-carol-postmortem.yaml" in err["detail"]
        assert env.prs() == []


# --- the other records: merged copies refused, different ones open ----------------------


def _records() -> list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(route, body, a re-spaced copy of it, a genuinely different one)."""
    annex = "An informal argument.\n\nStep 1: split the range.\n"
    approach = {"route": "Sieve", "outcome": "abandoned-early", "detail": "parity barrier",
                "model_and_tooling": {"method": "human"}, "nodes": ["root"]}
    defect = {"target_id": "demo", "node_id": "proved", "class": "junk-value", "line": 2,
              "claim": "Junk value at line 2."}
    revision = {"target_id": "demo", "node_id": "proved", "operation": "revise-statement",
                "evidence": "The statement is vacuous."}
    literature = {"target_id": "demo", "node_id": "proved", "status": "known-true",
                  "summary": "Proved by Erdős in 1950.",
                  "references": [{"title": "On a lemma", "url": "https://example.org/l"}]}
    return [
        ("/annexes",
         {"target_id": "demo", "node_id": "root", "text": annex, "licence": "CC0",
          "title": "Split"},
         {"target_id": "demo", "node_id": "root", "text": annex.replace("\n\n", "\n  "),
          "licence": "CC-BY-4.0", "title": "Mine"},
         {"target_id": "demo", "node_id": "root", "text": annex + "Step 2: sum.\n",
          "licence": "CC0", "title": "Split"}),
        ("/approaches", {"target_id": "demo", "record": approach},
         {"target_id": "demo", "record": {**approach, "detail": "parity  barrier\n"}},
         {"target_id": "demo", "record": {**approach, "route": "Circle method"}}),
        ("/defects", defect, {**defect, "claim": "Junk value  at line 2. "},
         {**defect, "claim": "Junk value at line 1.", "line": 1}),
        ("/revision-requests", revision, {**revision, "evidence": "The statement\nis vacuous."},
         {**revision, "evidence": "Its hypothesis is never met."}),
        ("/literature", literature, {**literature, "summary": "Proved by Erdős  in 1950.\n"},
         {**literature, "status": "partial-results"}),
    ]


@pytest.mark.parametrize(("route", "body", "copy", "different"), _records(),
                         ids=[r[0] for r in _records()])
def test_a_copy_of_a_merged_record_is_refused(env: Env, route: str, body: dict[str, Any],
                                              copy: dict[str, Any],
                                              different: dict[str, Any]) -> None:
    alice, bob = _tokens(env, "alice", "bob")
    first = env.post(route, body, alice)
    assert first.status_code == 201, first.text
    _merge_only_pr(env)
    rows = _rows(env)
    for again in (body, copy):
        err = _refused(env.post(route, again, bob), "record-copy", 409)
        assert "merged" in err["detail"]
    assert len(env.prs()) == 1 and _rows(env) == rows  # nothing opened, nothing indexed
    r = env.post(route, different, bob)
    assert r.status_code == 201, r.text
    assert len(env.prs()) == 2


def test_the_tutorial_node_stays_open_to_rehearsal(sample: Env) -> None:
    """Merged records are not compared on the tutorial node (D-27), as proofs are not:
    every newcomer may rehearse the same postmortem there."""
    alice, bob = _tokens(sample, "alice", "bob")
    body = {"target_id": "tutorial", "node_id": "tutorial", "yaml": yaml.safe_dump(PM)}
    assert sample.post("/postmortems", body, alice).status_code == 201
    _merge_only_pr(sample)
    r = sample.post("/postmortems", body, bob)
    assert r.status_code == 201, r.text


def test_a_refused_copy_names_the_way_on(env: Env) -> None:
    tok, = _tokens(env, "alice")
    body = {"target_id": "demo", "node_id": "root", "yaml": yaml.safe_dump(PM)}
    assert env.post("/postmortems", body, tok).status_code == 201
    _merge_only_pr(env)
    r = env.client.post("/postmortems", json=body, headers=auth(tok))
    assert r.status_code == CATALOG["record-copy"].http_status
    assert r.json()["code"] == "record-copy" and r.json().get("action")
