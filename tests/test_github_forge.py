"""GitHubForge against recorded GitHub REST responses (respx): the exact calls a pull
request takes, the mapping of GitHub's pull-request objects, pagination, and every failure
mapped to its catalog code without the token ever showing (DESIGN.md "Forge adapters",
D-35, STYLE.md rule 11)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from network.errors import CATALOG, LemmataError
from network.forge.github import ForgeRateLimited, GitHubForge, GitHubPullRequest

API = "https://api.github.com"
REPO = f"{API}/repos/lemmata-org/graph"
TOKEN = "ghp_S3cretT0kenValue0123456789abcdefABCD"
MAIN = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
MAIN_TREE = "9fb037999f264ba9a7fc6274d15fa3ae2ab98312"
BLOB = "3a0f86fb8db8eea7ccbb9a95f325ddbedfb25e15"
TREE = "cd8274d15fa3ae2ab983129fb037999f264ba9a7"
HEAD = "7638417db6d59f3c431d3e1f261cc637155684cd"
MERGE = "e5bd3914e2e596debea16f433f57875b5b90bcd6"
WHEN = 1_790_000_000  # 2026-09-21T14:13:20Z
PRECHECK = '{"kind": "precheck-attestation", "ok": true}'


def _ref(ref: str, sha: str) -> dict[str, Any]:
    return {"ref": ref, "node_id": "MDM6UmVmcmVmcy9oZWFkcy9mZWF0dXJlQQ==",
            "url": f"{REPO}/git/{ref}",
            "object": {"type": "commit", "sha": sha, "url": f"{REPO}/git/commits/{sha}"}}


def _commit(sha: str, tree: str, *, author: str = "octocat", parents: tuple[str, ...] = ()
            ) -> dict[str, Any]:
    who = {"date": "2026-09-21T14:13:20Z", "name": author, "email": f"{author}@example.com"}
    return {"sha": sha, "node_id": "C_kwDOAJy2KNoAKDc2Mzg0MTdkYjZkNTlmM2M0MzFkM2UxZjI2MWNjNjM3MTU1Njg0Y2Q",
            "url": f"{REPO}/git/commits/{sha}", "html_url": f"https://github.com/x/commit/{sha}",
            "author": who, "committer": who, "message": "Seed the graph",
            "tree": {"url": f"{REPO}/git/trees/{tree}", "sha": tree},
            "parents": [{"url": f"{REPO}/git/commits/{p}", "sha": p,
                         "html_url": "https://github.com/x"} for p in parents],
            "verification": {"verified": False, "reason": "unsigned", "signature": None,
                             "payload": None, "verified_at": None}}


def _user(login: str) -> dict[str, Any]:
    return {"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=",
            "avatar_url": "https://github.com/images/error/octocat_happy.gif",
            "url": f"{API}/users/{login}", "type": "User", "site_admin": False}


def _pull(number: int, *, state: str = "open", merged: bool | None = None,
          merged_at: str | None = None, head_sha: str = HEAD, head_ref: str = "lemmata/abc",
          head_repo: str = "lemmata-org/graph", body: str | None = "", title: str = "t",
          merge_commit_sha: str | None = MERGE, login: str = "lemmata-service[bot]"
          ) -> dict[str, Any]:
    repo = {"id": 1296269, "full_name": head_repo, "name": head_repo.split("/")[1],
            "owner": _user(head_repo.split("/")[0]), "private": False}
    data: dict[str, Any] = {
        "url": f"{REPO}/pulls/{number}", "id": 1000 + number, "node_id": "MDExOlB1bGxSZXF1ZXN0MQ==",
        "html_url": f"https://github.com/lemmata-org/graph/pull/{number}",
        "number": number, "state": state, "locked": False, "title": title,
        "user": _user(login), "body": body, "labels": [], "milestone": None,
        "created_at": "2026-09-21T14:13:20Z", "updated_at": "2026-09-21T14:13:20Z",
        "closed_at": None if state == "open" else "2026-09-22T10:00:00Z",
        "merged_at": merged_at, "merge_commit_sha": merge_commit_sha,
        "draft": False, "author_association": "NONE",
        "head": {"label": f"{head_repo.split('/')[0]}:{head_ref}", "ref": head_ref,
                 "sha": head_sha, "user": _user(head_repo.split("/")[0]), "repo": repo},
        "base": {"label": "lemmata-org:main", "ref": "main", "sha": MAIN,
                 "user": _user("lemmata-org"),
                 "repo": {**repo, "full_name": "lemmata-org/graph", "name": "graph"}},
    }
    if merged is not None:  # the single-pull shape carries merged/mergeable
        data.update(merged=merged, mergeable=True, mergeable_state="clean", comments=0,
                    commits=1, additions=3, deletions=1, changed_files=2)
    return data


@pytest.fixture()
def gh() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=REPO, assert_all_called=False) as router:
        yield router


@pytest.fixture()
def forge() -> GitHubForge:
    return GitHubForge("lemmata-org", "graph", TOKEN, client=httpx.Client(),
                       committer=("Lemmata service", "service@lemmata.invalid"),
                       clock=lambda: WHEN, timeout_s=5)


def _calls(router: respx.MockRouter) -> list[str]:
    return [f"{c.request.method} {c.request.url.path.removeprefix('/repos/lemmata-org/graph')}"
            for c in router.calls]


def _body(router: respx.MockRouter, i: int) -> Any:
    return json.loads(router.calls[i].request.content)


# --- opening ------------------------------------------------------------------------------


def test_open_pull_request_makes_the_documented_calls_in_order(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").respond(200, json=_ref("refs/heads/main", MAIN))
    gh.get(f"/git/commits/{MAIN}").respond(200, json=_commit(MAIN, MAIN_TREE))
    gh.post("/git/blobs").respond(201, json={"url": f"{REPO}/git/blobs/{BLOB}", "sha": BLOB})
    gh.post("/git/trees").respond(201, json={"sha": TREE, "url": f"{REPO}/git/trees/{TREE}",
                                             "tree": [], "truncated": False})
    gh.post("/git/commits").respond(201, json=_commit(HEAD, TREE, author="ada",
                                                      parents=(MAIN,)))
    gh.post("/git/refs").mock(side_effect=lambda req: httpx.Response(
        201, json=_ref(json.loads(req.content)["ref"], HEAD)))
    gh.post("/pulls").mock(side_effect=lambda req: httpx.Response(201, json=_pull(
        7, head_ref=json.loads(req.content)["head"], body=json.loads(req.content)["body"],
        title=json.loads(req.content)["title"], merged=False)))

    body = f"Solves n1.\n\n```precheck-attestation\n{PRECHECK}\n```\n"
    pr = forge.open_pull_request(
        files={"targets/t/nodes/n1/proof.lean": b"theorem x : True := trivial\n",
               "targets/t/nodes/n1/old.lean": None},
        title="Proof of t/n1", body=body, author="ada", precheck_attestation=PRECHECK)

    assert _calls(gh) == ["GET /git/ref/heads/main", f"GET /git/commits/{MAIN}",
                          "POST /git/blobs", "POST /git/trees", "POST /git/commits",
                          "POST /git/refs", "POST /pulls"]
    for call in gh.calls:
        assert call.request.headers["authorization"] == f"Bearer {TOKEN}"
        assert call.request.headers["x-github-api-version"] == "2022-11-28"
        assert call.request.headers["accept"] == "application/vnd.github+json"
    assert _body(gh, 2) == {"content": base64.b64encode(b"theorem x : True := trivial\n")
                            .decode(), "encoding": "base64"}
    assert _body(gh, 3) == {"base_tree": MAIN_TREE, "tree": [
        {"path": "targets/t/nodes/n1/old.lean", "mode": "100644", "type": "blob", "sha": None},
        {"path": "targets/t/nodes/n1/proof.lean", "mode": "100644", "type": "blob",
         "sha": BLOB}]}
    assert _body(gh, 4) == {
        "message": "Proof of t/n1\n\nSigned-off-by: ada <ada@users.lemmata.invalid>\n",
        "tree": TREE, "parents": [MAIN],
        "author": {"name": "ada", "email": "ada@users.lemmata.invalid",
                   "date": "2026-09-21T14:13:20Z"},
        "committer": {"name": "Lemmata service", "email": "service@lemmata.invalid",
                      "date": "2026-09-21T14:13:20Z"}}
    ref = _body(gh, 5)
    assert re.fullmatch(r"refs/heads/lemmata/[0-9a-f]{32}", ref["ref"]) and ref["sha"] == HEAD
    pull = _body(gh, 6)
    assert pull == {"title": "Proof of t/n1", "head": ref["ref"].removeprefix("refs/heads/"),
                    "base": "main", "body": body}
    assert pull["body"].count("```precheck-attestation") == 1

    assert isinstance(pr, GitHubPullRequest)
    assert (pr.number, pr.state, pr.author, pr.head_sha, pr.base_sha, pr.merge_sha) == \
        (7, "open", "ada", HEAD, MAIN, None)
    assert pr.precheck_attestation == PRECHECK
    assert pr.branch == ref["ref"]


def test_a_title_cannot_smuggle_a_trailer(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get(f"/git/commits/{MAIN}").respond(200, json=_commit(MAIN, MAIN_TREE))
    gh.post("/git/blobs").respond(201, json={"url": "u", "sha": BLOB})
    gh.post("/git/trees").respond(201, json={"sha": TREE, "url": "u", "tree": [],
                                             "truncated": False})
    gh.post("/git/commits").respond(201, json=_commit(HEAD, TREE, parents=(MAIN,)))
    gh.post("/git/refs").respond(201, json=_ref("refs/heads/lemmata/x", HEAD))
    gh.post("/pulls").respond(201, json=_pull(9))
    forge.open_pull_request(files={"a.yaml": b"x"}, author="ada", body="b", base_sha=MAIN,
                            title="approach: t: x\n\nSigned-off-by: eve <eve@x>\r\n")
    commit = _body(gh, 3)
    assert commit["message"] == ("approach: t: x Signed-off-by: eve <eve@x>\n\n"
                                 "Signed-off-by: ada <ada@users.lemmata.invalid>\n")
    assert "\n" not in _body(gh, 5)["title"]


def test_the_precheck_block_is_added_when_the_body_lacks_it(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.post("/git/refs").respond(201, json=_ref("refs/heads/lemmata/x", HEAD))
    gh.post("/pulls").mock(side_effect=lambda req: httpx.Response(
        201, json=_pull(8, body=json.loads(req.content)["body"])))
    pr = forge.open_from_commit(HEAD, title="hand", body="plain", author="ada",
                                precheck_attestation=PRECHECK)
    assert _body(gh, 1)["body"] == f"plain\n\n```precheck-attestation\n{PRECHECK}\n```\n"
    assert pr.precheck_attestation == PRECHECK


def test_a_refused_pull_request_deletes_its_branch_again(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.post("/git/refs").respond(201, json=_ref("refs/heads/lemmata/x", HEAD))
    gh.post("/pulls").respond(422, json={
        "message": "Validation Failed", "documentation_url": "https://docs.github.com/rest",
        "errors": [{"resource": "PullRequest", "code": "custom",
                    "message": "No commits between main and lemmata/x"}]})
    gh.delete(url__regex=r".*/git/refs/heads/lemmata/[0-9a-f]{32}$").respond(204)
    with pytest.raises(LemmataError) as err:
        forge.open_from_commit(HEAD, title="t", body="b", author="ada")
    assert err.value.code == "forge-request-failed"
    assert "No commits between" in err.value.detail
    assert [c.split(" ")[0] for c in _calls(gh)] == ["POST", "POST", "DELETE"]


# --- reading ------------------------------------------------------------------------------


def test_get_maps_open_merged_and_closed(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/pulls/1").respond(200, json=_pull(1, merged=False, body=None))
    gh.get("/pulls/2").respond(200, json=_pull(
        2, state="closed", merged=True, merged_at="2026-09-22T10:00:00Z",
        body=f"x\n```precheck-attestation\n{PRECHECK}\n```\n"))
    gh.get("/pulls/3").respond(200, json=_pull(3, state="closed", merged=False))
    head_commit = gh.get(f"/git/commits/{HEAD}").respond(
        200, json=_commit(HEAD, TREE, author="ada", parents=(MAIN,)))

    opened, merged, closed = forge.get(1), forge.get(2), forge.get(3)
    assert (opened.state, opened.merge_sha, opened.body, opened.precheck_attestation) == \
        ("open", None, "", None)  # merge_commit_sha of an open one is GitHub's test merge
    assert (merged.state, merged.merge_sha, merged.precheck_attestation) == \
        ("merged", MERGE, PRECHECK)
    assert (closed.state, closed.merge_sha) == ("closed", None)
    # the ledger identity is the head commit's author, not the GitHub login (D-35)
    assert {opened.author, merged.author, closed.author} == {"ada"}
    assert head_commit.call_count == 1  # cached by commit id


def test_get_unknown_number_is_pull_request_not_found(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/pulls/99").respond(404, json={"message": "Not Found",
                                           "documentation_url": "https://docs.github.com"})
    with pytest.raises(LemmataError) as err:
        forge.get(99)
    assert err.value.code == "pull-request-not-found"


def test_list_follows_the_link_header_over_two_pages(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    page2 = f"{REPO}/pulls?state=open&base=main&sort=created&direction=asc&per_page=100&page=2"
    last = f'<{page2}>; rel="next", <{page2}>; rel="last"'
    gh.get("/pulls", params={"page": "2"}).respond(200, json=[_pull(12), _pull(11)])
    gh.get("/pulls").respond(200, json=[_pull(4), _pull(3)], headers={"Link": last})
    gh.get(f"/git/commits/{HEAD}").respond(200, json=_commit(HEAD, TREE, author="bo"))

    prs = forge.list_open()

    assert [p.number for p in prs] == [3, 4, 11, 12]
    assert all(p.state == "open" and p.author == "bo" for p in prs)
    first, second = gh.calls[0].request.url, gh.calls[1].request.url
    assert dict(first.params) == {"state": "open", "base": "main", "sort": "created",
                                  "direction": "asc", "per_page": "100"}
    assert str(second) == page2


def test_list_all_maps_merged_from_merged_at(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/pulls").respond(200, json=[
        _pull(1, state="closed", merged_at="2026-09-22T10:00:00Z"),
        _pull(2, state="closed", merged_at=None)])
    gh.get(f"/git/commits/{HEAD}").respond(200, json=_commit(HEAD, TREE, author="bo"))
    prs = forge.list_all()
    assert [(p.state, p.merge_sha) for p in prs] == [("merged", MERGE), ("closed", None)]
    assert dict(gh.calls[0].request.url.params)["state"] == "all"


def test_a_next_page_on_another_host_is_refused(gh: respx.MockRouter,
                                                forge: GitHubForge) -> None:
    gh.get("/pulls").respond(200, json=[], headers={
        "Link": '<https://evil.example/pulls?page=2>; rel="next"'})
    with pytest.raises(LemmataError) as err:
        forge.list_open()
    assert err.value.code == "forge-request-failed"
    assert len(gh.calls) == 1  # the token went nowhere else


# --- closing and merging ------------------------------------------------------------------


def _author_route(gh: respx.MockRouter) -> None:
    gh.get(f"/git/commits/{HEAD}").respond(200, json=_commit(HEAD, TREE, author="ada"))


def test_close_patches_the_state_and_deletes_the_branch(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    _author_route(gh)
    gh.get("/pulls/5").respond(200, json=_pull(5, merged=False, head_ref="lemmata/feed"))
    gh.patch("/pulls/5").respond(200, json=_pull(5, state="closed", merged=False))
    gh.delete("/git/refs/heads/lemmata/feed").respond(204)

    pr = forge.close(5)

    assert pr.state == "closed" and pr.merge_sha is None
    assert _calls(gh) == ["GET /pulls/5", f"GET /git/commits/{HEAD}", "PATCH /pulls/5",
                          "DELETE /git/refs/heads/lemmata/feed"]
    assert _body(gh, 2) == {"state": "closed"}


def test_close_leaves_a_forks_branch_and_refuses_a_closed_one(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    _author_route(gh)
    gh.get("/pulls/6").respond(200, json=_pull(6, merged=False, head_repo="ada/graph",
                                               head_ref="main"))
    gh.patch("/pulls/6").respond(200, json=_pull(6, state="closed", merged=False))
    gh.get("/pulls/9").respond(200, json=_pull(9, state="closed", merged=False))
    forge.close(6)
    assert not any(c.request.method == "DELETE" for c in gh.calls)
    with pytest.raises(LemmataError) as err:
        forge.close(9)
    assert err.value.code == "pull-request-closed"
    assert not any(c.request.url.path.endswith("/pulls/9") and c.request.method == "PATCH"
                   for c in gh.calls)


@pytest.mark.parametrize("ref", ["a/../../pulls/1", ".hidden", "x//y", "dev/$(exit 99)",
                                 "br\nanch"])
def test_a_branch_name_that_is_not_plain_is_never_put_in_a_url(
        gh: respx.MockRouter, forge: GitHubForge, ref: str) -> None:
    _author_route(gh)
    gh.get("/pulls/5").respond(200, json=_pull(5, merged=False, head_ref=ref))
    gh.patch("/pulls/5").respond(200, json=_pull(5, state="closed", merged=False))
    assert forge.close(5).state == "closed"
    assert [c.request.method for c in gh.calls] == ["GET", "GET", "PATCH"]
    with pytest.raises(LemmataError) as err:
        forge.amend_pull_request(5, {"a.yaml": b"x"}, "m", author="ada")
    assert err.value.code == "forge-request-failed"
    assert not any(c.request.method in ("POST", "DELETE") for c in gh.calls)


def test_merge_puts_at_the_seen_head_and_deletes_the_branch(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    _author_route(gh)
    gh.get("/pulls/5").respond(200, json=_pull(5, merged=False, head_ref="lemmata/feed",
                                               title="Proof"))
    gh.put("/pulls/5/merge").respond(200, json={
        "sha": MERGE, "merged": True, "message": "Pull Request successfully merged"})
    gh.delete("/git/refs/heads/lemmata/feed").respond(204)
    pr = forge.merge(5)
    assert (pr.state, pr.merge_sha) == ("merged", MERGE)
    assert _body(gh, 2) == {"sha": HEAD, "merge_method": "merge",
                            "commit_title": "Merge pull request #5: Proof"}
    assert _calls(gh)[-1] == "DELETE /git/refs/heads/lemmata/feed"


@pytest.mark.parametrize(("status", "message"), [
    (405, "Pull Request is not mergeable"),
    (409, "Head branch was modified. Review and try the merge again."),
])
def test_merge_conflict(gh: respx.MockRouter, forge: GitHubForge, status: int,
                        message: str) -> None:
    _author_route(gh)
    gh.get("/pulls/5").respond(200, json=_pull(5, merged=False))
    gh.put("/pulls/5/merge").respond(status, json={
        "message": message,
        "documentation_url": "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"})
    with pytest.raises(LemmataError) as err:
        forge.merge(5)
    assert err.value.code == "merge-conflict"
    assert message in err.value.detail
    assert not any(c.request.method == "DELETE" for c in gh.calls)


# --- main and amendments -----------------------------------------------------------------


def _commit_routes(gh: respx.MockRouter, parent: str) -> None:
    gh.get(f"/git/commits/{parent}").respond(200, json=_commit(parent, MAIN_TREE))
    gh.post("/git/blobs").respond(201, json={"url": "u", "sha": BLOB})
    gh.post("/git/trees").respond(201, json={"sha": TREE, "url": "u", "tree": [],
                                             "truncated": False})
    gh.post("/git/commits").respond(201, json=_commit(MERGE, TREE, parents=(parent,)))


def test_commit_to_main_fast_forwards_only(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").respond(200, json=_ref("refs/heads/main", MAIN))
    _commit_routes(gh, MAIN)
    route = gh.patch("/git/refs/heads/main").respond(200, json=_ref("refs/heads/main", MERGE))
    assert forge.commit_to_main({"attestations/a.json": b"{}"}, "Publish") == MERGE
    assert json.loads(route.calls[0].request.content) == {"sha": MERGE, "force": False}
    commit = _body(gh, 4)
    assert commit["author"]["name"] == commit["committer"]["name"] == "Lemmata service"

    route.respond(422, json={"message": "Update is not a fast forward",
                             "documentation_url": "https://docs.github.com/rest"})
    with pytest.raises(LemmataError) as err:
        forge.commit_to_main({"attestations/a.json": b"{}"}, "Publish")
    assert err.value.code == "merge-conflict"


def test_amend_commits_on_the_head_and_moves_the_branch(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    _author_route(gh)
    gh.get("/pulls/5").respond(200, json=_pull(5, merged=False, head_ref="lemmata/feed"))
    _commit_routes(gh, HEAD)
    route = gh.patch("/git/refs/heads/lemmata/feed").respond(
        200, json=_ref("refs/heads/lemmata/feed", MERGE))
    pr = forge.amend_pull_request(5, {"targets/t/words/w.yaml": b"a: 1\n"}, "Amend",
                                  author="ada")
    assert pr.head_sha == MERGE
    assert json.loads(route.calls[0].request.content) == {"sha": MERGE, "force": False}
    commit = json.loads(next(c for c in gh.calls if c.request.method == "POST"
                             and c.request.url.path.endswith("/git/commits")).request.content)
    assert commit["parents"] == [HEAD]
    assert commit["message"].endswith("Signed-off-by: ada <ada@users.lemmata.invalid>\n")


# --- failures -----------------------------------------------------------------------------


def test_401_is_forge_auth_failed(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").respond(401, json={
        "message": "Bad credentials", "documentation_url": "https://docs.github.com/rest",
        "status": "401"})
    with pytest.raises(LemmataError) as err:
        forge.main_sha()
    assert err.value.code == "forge-auth-failed"
    assert "Bad credentials" in err.value.detail


def test_403_without_rate_limit_is_forge_auth_failed(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.post("/git/refs").respond(403, json={
        "message": "Resource not accessible by personal access token",
        "documentation_url": "https://docs.github.com/rest/git/refs#create-a-reference"},
        headers={"x-ratelimit-remaining": "4999", "x-ratelimit-reset": str(WHEN)})
    with pytest.raises(LemmataError) as err:
        forge.open_from_commit(HEAD, title="t", body="b", author="ada")
    assert err.value.code == "forge-auth-failed"


def test_403_rate_limit_is_forge_rate_limited_with_the_reset(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/pulls").respond(403, json={
        "message": "API rate limit exceeded for user ID 1.",
        "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
        headers={"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0",
                 "x-ratelimit-used": "5000", "x-ratelimit-reset": str(WHEN),
                 "x-ratelimit-resource": "core"})
    with pytest.raises(ForgeRateLimited) as err:
        forge.list_open()
    assert err.value.code == "forge-rate-limited"
    assert err.value.reset_at == WHEN and err.value.retry_after_s is None
    assert "2026-09-21T14:13:20Z" in err.value.detail
    assert CATALOG["forge-rate-limited"].http_status == 503


def test_429_secondary_limit_carries_retry_after(
        gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.post("/pulls").respond(429, json={
        "message": "You have exceeded a secondary rate limit. Please wait a few minutes.",
        "documentation_url": "https://docs.github.com/rest"}, headers={"retry-after": "60"})
    gh.post("/git/refs").respond(201, json=_ref("refs/heads/lemmata/x", HEAD))
    gh.delete(url__regex=r".*/git/refs/heads/lemmata/.*").respond(204)
    with pytest.raises(ForgeRateLimited) as err:
        forge.open_from_commit(HEAD, title="t", body="b", author="ada")
    assert err.value.retry_after_s == 60


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_forge_unreachable(gh: respx.MockRouter, forge: GitHubForge,
                                  status: int) -> None:
    gh.get("/pulls/1").respond(status, text="<html><body><h1>502 Bad Gateway</h1></body></html>",
                               headers={"content-type": "text/html"})
    with pytest.raises(LemmataError) as err:
        forge.get(1)
    assert err.value.code == "forge-unreachable"


def test_a_timeout_is_forge_unreachable(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").mock(side_effect=httpx.ReadTimeout("timed out"))
    with pytest.raises(LemmataError) as err:
        forge.main_sha()
    assert err.value.code == "forge-unreachable"
    assert "5.0s" in err.value.detail


def test_every_call_has_a_timeout(gh: respx.MockRouter, forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").respond(200, json=_ref("refs/heads/main", MAIN))
    forge.main_sha()
    assert gh.calls[0].request.extensions["timeout"] == {
        "connect": 5.0, "read": 5.0, "write": 5.0, "pool": 5.0}


HOSTILE_PATHS = ["../escape.lean", "/etc/passwd", "targets/t/$(exit 99).lean",
                 "targets/t/\u0430.lean", "targets\\t.lean", "targets/t/.hidden",
                 "targets//t.lean", "targets/t/x.lean\n"]


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_hostile_paths_are_refused_before_any_request(
        gh: respx.MockRouter, forge: GitHubForge, path: str) -> None:
    for call in (
        lambda: forge.open_pull_request(files={path: b"x"}, title="t", body="b", author="ada"),
        lambda: forge.commit_to_main({path: None}, "m"),
        lambda: forge.amend_pull_request(1, {path: b"x"}, "m", author="ada"),
        lambda: forge.commit_files(MAIN, {path: b"x"}, "m", author=("a", "a@b")),
    ):
        with pytest.raises(LemmataError) as err:
            call()
        assert err.value.code == "hostile-path"
    assert len(gh.calls) == 0


@pytest.mark.parametrize("author", ["ada\nSigned-off-by: eve <eve@x>", "../ada", "",
                                    "\u0430da", "a" * 40])
def test_hostile_authors_are_refused_before_any_request(
        gh: respx.MockRouter, forge: GitHubForge, author: str) -> None:
    with pytest.raises(LemmataError) as err:
        forge.open_pull_request(files={"a.lean": b"x"}, title="t", body="b", author=author)
    assert err.value.code == "pseudonym-invalid"
    assert len(gh.calls) == 0


@pytest.mark.parametrize("sha", [MAIN + "\n", MAIN.upper(), "HEAD", MAIN[:39], "../" * 13 + "x"])
def test_hostile_shas_are_refused_before_any_request(
        gh: respx.MockRouter, forge: GitHubForge, sha: str) -> None:
    with pytest.raises(LemmataError) as err:
        forge.open_pull_request(files={"a.lean": b"x"}, title="t", body="b", author="ada",
                                base_sha=sha)
    assert err.value.code == "forge-request-failed"
    assert len(gh.calls) == 0


def test_a_malformed_sha_from_github_is_refused(gh: respx.MockRouter,
                                                forge: GitHubForge) -> None:
    gh.get("/git/ref/heads/main").respond(200, json=_ref("refs/heads/main", MAIN + "\nx"))
    with pytest.raises(LemmataError) as err:
        forge.main_sha()
    assert err.value.code == "forge-request-failed"


def test_the_token_never_appears_in_messages(gh: respx.MockRouter,
                                             forge: GitHubForge) -> None:
    gh.get("/pulls/1").respond(401, json={"message": f"Bad credentials {TOKEN}"})
    gh.get("/pulls/2").mock(side_effect=httpx.ConnectError(f"refused for {TOKEN}"))
    gh.get("/pulls/3").respond(403, json={"message": f"rate limit for {TOKEN}"},
                               headers={"x-ratelimit-remaining": "0"})
    gh.get("/pulls/4").respond(422, text=f"token={TOKEN}")
    errors = []
    for n in (1, 2, 3, 4):
        with pytest.raises(LemmataError) as err:
            forge.get(n)
        errors.append(err.value)
    assert [e.code for e in errors] == ["forge-auth-failed", "forge-unreachable",
                                        "forge-rate-limited", "forge-request-failed"]
    for e in errors:
        assert TOKEN not in str(e) and TOKEN not in e.detail and TOKEN not in repr(e)
        assert TOKEN not in json.dumps(e.to_dict())
        assert e.__cause__ is None and (e.__context__ is None or e.__suppress_context__)
    assert TOKEN not in repr(forge)


def test_bad_configuration_is_forge_misconfigured() -> None:
    for owner, name, token in [("a", "b", ""), ("a/b", "c", "t"), ("..", "b", "t"),
                               ("a", "b c", "t")]:
        with pytest.raises(LemmataError) as err:
            GitHubForge(owner, name, token)
        assert err.value.code == "forge-misconfigured"


# --- wiring -------------------------------------------------------------------------------


def test_serve_builds_a_github_forge_from_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.api.settings import ServiceSettings
    from network.cli import _service_parts, serve

    assert {"forge", "github_repo"} <= {p.name for p in serve.params}
    monkeypatch.setenv("LEMMATA_GITHUB_TOKEN", TOKEN)
    settings = ServiceSettings(data_dir=tmp_path / "data", forge="github",
                               github_repo="lemmata-org/graph")
    assert TOKEN not in repr(settings)
    forge = _service_parts(settings)["forge"]
    assert isinstance(forge, GitHubForge) and forge.full_name == "lemmata-org/graph"

    monkeypatch.delenv("LEMMATA_GITHUB_TOKEN")
    with pytest.raises(LemmataError) as err:
        _service_parts(ServiceSettings(data_dir=tmp_path / "data", forge="github",
                                       github_repo="lemmata-org/graph"))
    assert err.value.code == "forge-misconfigured"
    with pytest.raises(LemmataError) as err:
        _service_parts(ServiceSettings(data_dir=tmp_path / "data", forge="github"))
    assert err.value.code == "forge-misconfigured"
