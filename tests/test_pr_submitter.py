"""Issue 11: on GitHub the trusted gate credits a service pull request only through the
service's signed ``lemmata-submitter`` block for the judged head, never the service login
and never the commit author's text; other pull requests credit the login's bound
pseudonym, the sign-off choosing among several (network/forge/submitter.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import respx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.forge.github import GitHubForge
from network.forge.submitter import (
    sign_offs,
    signed_submitter,
    submitter_block,
    submitter_of,
    with_submitter_block,
)
from network.gate.github import github_trusted as T
from network.gate.github.github_export import submitter_of as export_submitter
from network.record.read.loader import load_graph
from network.signing import public_key_record
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, git_commit

HEAD = "7638417db6d59f3c431d3e1f261cc637155684cd"
OTHER = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
WHEN = 1_790_000_000  # 2026-09-21
SERVICE_KEY = Ed25519PrivateKey.generate()
KEY = ("svc-1", SERVICE_KEY)


def _graph(b: Any, *, service_valid_from: str = "2026-01-01") -> Any:
    rec = public_key_record(SERVICE_KEY, "svc-1", "service", service_valid_from)
    b.write_json("keys/svc-1.json", rec.model_dump(mode="json", by_alias=True,
                                                   exclude_none=True))
    for who, login in (("alice", "Alice-GH"), ("ada", "twin"), ("bea", "twin")):
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": login, "since": "2026-01-01"})
    git_commit(b.root, "keys and identities")
    return load_graph(b.root, commit="HEAD")


def test_a_signed_block_for_the_head_credits_its_submitter(graph_builder: Any) -> None:
    g = _graph(graph_builder)
    body = with_submitter_block("Submitted for alice.", submitter_block("alice", HEAD, KEY,
                                                                         now=WHEN))
    assert signed_submitter(body, HEAD, g.keys) == "alice"
    assert submitter_of("lemmata-bot", g, body=body, head_sha=HEAD,
                        service_logins=["lemmata-bot"]) == "alice"


def test_forged_moved_or_unpublished_blocks_credit_nobody(graph_builder: Any) -> None:
    g = _graph(graph_builder)
    good = submitter_block("alice", HEAD, KEY, now=WHEN)
    rec = json.loads(good.splitlines()[1])
    # another head: a commit pushed onto the branch after the service signed
    assert signed_submitter(good, OTHER, g.keys) is None
    # the submitter edited in the body (the signature no longer verifies)
    forged = dict(rec, submitter="mallory")
    assert signed_submitter(f"```lemmata-submitter\n{json.dumps(forged)}\n```", HEAD,
                            g.keys) is None
    # signed with a key nobody published under that id
    rogue = submitter_block("alice", HEAD, ("svc-1", Ed25519PrivateKey.generate()), now=WHEN)
    assert signed_submitter(rogue, HEAD, g.keys) is None
    # signed by the gate's key, not the service's
    gate = submitter_block("alice", HEAD, (BUILDER_GATE_KEY_ID, BUILDER_GATE_KEY), now=WHEN)
    assert signed_submitter(gate, HEAD, g.keys) is None
    # two blocks: which one counts is ambiguous, so none does
    assert signed_submitter(good + "\n" + submitter_block("bea", HEAD, KEY, now=WHEN), HEAD,
                            g.keys) is None
    # extra fields, a bad pseudonym, a signature dated before the key was valid
    assert signed_submitter(f"```lemmata-submitter\n{json.dumps(dict(rec, x=1))}\n```", HEAD,
                            g.keys) is None
    early = submitter_block("alice", HEAD, KEY, now=WHEN - 400 * 86400)
    assert signed_submitter(early, HEAD, g.keys) is None
    assert signed_submitter("no block at all", HEAD, g.keys) is None


def test_a_service_pull_request_is_never_credited_from_its_login_or_author(
        graph_builder: Any) -> None:
    g = _graph(graph_builder)

    class PR:
        def __init__(self, login: str, body: str = "", author: str = "alice") -> None:
            self.login, self.body, self.author, self.head_sha = login, body, author, HEAD

    # the commit author says alice, but no signed block: nobody is credited
    assert T.submitter_for(PR("lemmata-bot"), g, ["lemmata-bot"],
                           head_message="x\n\nSigned-off-by: alice <a@x>\n") is None
    signed = submitter_block("alice", HEAD, KEY, now=WHEN)
    assert T.submitter_for(PR("lemmata-bot", signed), g, ["lemmata-bot"]) == "alice"
    # the same block in a pull request a person opened means nothing
    assert T.submitter_for(PR("mallory", signed), g, ["lemmata-bot"]) is None
    assert T.submitter_for(PR("alice-gh", "", "mallory"), g) == "alice"


def test_a_login_bound_to_several_pseudonyms_is_resolved_by_the_sign_off(
        graph_builder: Any) -> None:
    g = _graph(graph_builder)
    assert submitter_of("twin", g) is None
    assert submitter_of("twin", g, head_message="p\n\nSigned-off-by: bea <b@x>\n") == "bea"
    assert submitter_of("twin", g, head_message="p\n\nSigned-off-by: alice <a@x>\n") is None
    both = "p\n\nSigned-off-by: ada <a@x>\nSigned-off-by: bea <b@x>\n"
    assert submitter_of("twin", g, head_message=both) is None
    assert sign_offs(both) == ["ada", "bea"]


def test_the_export_job_reads_the_service_commit_sign_off_never_the_login(
        graph_builder: Any) -> None:
    g = _graph(graph_builder)
    msg = "proof\n\nSigned-off-by: alice <alice@users.lemmata.invalid>\n"
    assert export_submitter("lemmata-bot", msg, g, ["lemmata-bot"]) == "alice"
    assert export_submitter("lemmata-bot", "no trailer", g, ["lemmata-bot"]) is None
    assert export_submitter("alice-gh", "", g) == "alice"


def test_the_github_forge_signs_the_block_it_opens_with(tmp_path: Path) -> None:
    api = "https://api.github.test"
    repo = f"{api}/repos/o/g"
    forge = GitHubForge("o", "g", "t0ken", api_url=api, client=httpx.Client(),
                        clock=lambda: WHEN, submitter_key=KEY)
    pulls: list[dict[str, Any]] = []

    def pull(body: str, head: str = HEAD) -> dict[str, Any]:
        return {"number": 5, "title": "p", "body": body, "state": "open",
                "head": {"sha": head, "ref": "lemmata/abc", "repo": {"full_name": "o/g"}},
                "base": {"sha": OTHER, "ref": "main"}, "user": {"login": "lemmata-bot"},
                "merged": False}

    with respx.mock(base_url=repo, assert_all_called=False) as gh:
        gh.post("/git/refs").respond(201, json={"ref": "refs/heads/lemmata/abc",
                                                "object": {"sha": HEAD}})
        gh.post("/pulls").mock(side_effect=lambda req: (
            pulls.append(json.loads(req.content)),
            httpx.Response(201, json=pull(json.loads(req.content)["body"])))[1])
        pr = forge.open_from_commit(HEAD, title="p", body="Submitted.", author="alice")
    [opened] = pulls
    assert opened["body"].count("```lemmata-submitter") == 1
    from network.record import models as m

    keys = {"svc-1": m.PublicKey.model_validate(public_key_record(
        SERVICE_KEY, "svc-1", "service", "2026-01-01").model_dump(by_alias=True))}
    assert signed_submitter(opened["body"], HEAD, keys) == "alice"
    assert pr.body == opened["body"]


def test_an_amended_pull_request_carries_one_block_for_its_new_head() -> None:
    api = "https://api.github.test"
    repo = f"{api}/repos/o/g"
    new_head = "e5bd3914e2e596debea16f433f57875b5b90bcd6"
    forge = GitHubForge("o", "g", "t0ken", api_url=api, client=httpx.Client(),
                        clock=lambda: WHEN, submitter_key=KEY)
    old_body = with_submitter_block("Submitted.", submitter_block("alice", HEAD, KEY,
                                                                  now=WHEN))
    patched: list[dict[str, Any]] = []

    def commit(sha: str) -> dict[str, Any]:
        return {"sha": sha, "tree": {"sha": "9fb037999f264ba9a7fc6274d15fa3ae2ab98312"},
                "author": {"name": "alice"}, "parents": []}

    with respx.mock(base_url=repo, assert_all_called=False) as gh:
        gh.get("/pulls/5").respond(200, json={
            "number": 5, "title": "p", "body": old_body, "state": "open",
            "head": {"sha": HEAD, "ref": "lemmata/abc", "repo": {"full_name": "o/g"}},
            "base": {"sha": OTHER, "ref": "main"}, "user": {"login": "lemmata-bot"},
            "merged": False})
        gh.get(f"/git/commits/{HEAD}").respond(200, json=commit(HEAD))
        gh.post("/git/blobs").respond(201, json={"sha": "b" * 40, "url": "u"})
        gh.post("/git/trees").respond(201, json={"sha": "c" * 40, "url": "u", "tree": [],
                                                 "truncated": False})
        gh.post("/git/commits").respond(201, json=commit(new_head))
        gh.patch("/git/refs/heads/lemmata/abc").respond(200, json={
            "ref": "refs/heads/lemmata/abc", "object": {"sha": new_head}})
        gh.patch("/pulls/5").mock(side_effect=lambda req: (
            patched.append(json.loads(req.content)), httpx.Response(200, json={}))[1])
        pr = forge.amend_pull_request(5, {"targets/t/nodes/n/Proof.lean": b"x\n"}, "amend",
                                      author="alice")
    from network.record import models as m

    keys = {"svc-1": m.PublicKey.model_validate(public_key_record(
        SERVICE_KEY, "svc-1", "service", "2026-01-01").model_dump(by_alias=True))}
    [update] = patched
    assert update["body"].count("```lemmata-submitter") == 1
    assert update["body"].startswith("Submitted.")
    assert signed_submitter(update["body"], new_head, keys) == "alice"
    assert signed_submitter(update["body"], HEAD, keys) is None
    assert pr.head_sha == new_head and pr.body == update["body"]
