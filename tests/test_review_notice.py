"""How a review's intent signer hears that questions wait (D-9 v3.39 "how the proposer
hears"; issue 27): one comment per batch of questions on the pull request that added them,
@-mentioning the intent signer's GitHub login, posted by the trusted job through the forge
layer once the pull request merges; GitHub notifies them by its own settings. On ``make
run`` the same questions are on the signer's ``/me`` (tests/test_api_reviews.py).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

sys.path.insert(0, str(Path(__file__).parent))
from review_support import T, rec_path, review_repo

from network.errors import LemmataError
from network.forge.github import GitHubForge
from network.gate.github import github_trusted as Tr
from network.record import derive

REPO = "https://api.github.com/repos/lemmata-org/graph"


def test_the_notice_mentions_the_intent_signer_and_lists_the_questions(
        tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    q = r.question()
    body = derive.review_notice(r.graph(), T, [q])
    assert body is not None
    assert body.startswith("@steve: 1 question of the formalization review of `demo`")
    assert "- **n = 3**: Is the claim about every n greater than 2" in body
    assert f"targets/{T}/review.html" in body
    # answered, or not the review's, or a signer with no GitHub login: no notice
    assert derive.review_notice(r.graph(), T, [rec_path("questions", "2026", "x")]) is None
    r.answer(q)
    assert derive.review_notice(r.graph(), T, [q]) is None
    r2 = review_repo(tmp_path / "g2")
    r2.complete()
    q2 = r2.question()
    r2.b.remove("identities/steve.yaml")
    assert derive.review_notice(r2.graph(), T, [q2]) is None


def test_the_trusted_job_finds_the_questions_a_pull_request_adds(tmp_path: Path) -> None:
    r = review_repo(tmp_path / "g")
    r.complete()
    base = r.commit("base")
    r.question()
    head = r.commit("a question")
    (body,) = Tr.review_notices(r.b.root, base, head)
    assert body.startswith("@steve: 1 question")
    r.sign("independent", "erin")
    later = r.commit("a signature")
    assert Tr.review_notices(r.b.root, head, later) == ()


@dataclass
class _Forge:
    """A forge that records what the trusted job asks of it."""

    calls: list[tuple[str, Any]] = field(default_factory=list)
    fail_comment: bool = False

    def main_sha(self) -> str:
        return "a" * 40

    def commit_to_main(self, files: Any, message: str) -> str:
        self.calls.append(("commit", message))
        return "b" * 40

    def set_status(self, sha: str, state: str, context: str, description: str) -> None:
        self.calls.append(("status", state))

    def merge(self, number: int, *, expected_head: str) -> Any:
        self.calls.append(("merge", number))
        return type("Merged", (), {"merge_sha": "c" * 40})()

    def comment(self, number: int, body: str) -> None:
        if self.fail_comment:
            raise LemmataError("forge-unreachable", "down")
        self.calls.append(("comment", (number, body)))


@pytest.mark.parametrize("merge", [True, False])
def test_the_notice_is_posted_only_once_the_pull_request_merged(merge: bool) -> None:
    d = Tr.TrustedDecision(7, "d" * 40, "pass" if merge else "held", merge,
                           notices=("@steve: 1 question",))
    forge = _Forge()
    _d, merged = Tr.publish_and_merge(d, forge)
    kinds = [k for k, _v in forge.calls]
    if merge:
        assert merged == "c" * 40 and kinds == ["status", "merge", "comment"]
        assert forge.calls[-1] == ("comment", (7, "@steve: 1 question"))
    else:
        assert merged is None and "comment" not in kinds


def test_a_notice_that_cannot_be_posted_leaves_the_merge_standing() -> None:
    d = Tr.TrustedDecision(7, "d" * 40, "pass", True, notices=("@steve: 1 question",))
    _d, merged = Tr.publish_and_merge(d, _Forge(fail_comment=True))
    assert merged == "c" * 40


def test_the_forge_posts_a_comment_on_the_issue_api() -> None:
    forge = GitHubForge("lemmata-org", "graph", "t0ken", client=httpx.Client())
    with respx.mock(base_url=REPO, assert_all_called=False) as gh:
        route = gh.post("/issues/7/comments").respond(201, json={"id": 1})
        forge.comment(7, "@steve: 1 question")
        assert route.called
        assert json.loads(route.calls[0].request.content) == {"body": "@steve: 1 question"}
        gh.post("/issues/8/comments").respond(404, json={"message": "Not Found"})
        with pytest.raises(LemmataError) as err:
            forge.comment(8, "x")
        assert err.value.code == "pull-request-not-found"
