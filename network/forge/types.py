"""What every forge shares: the pull request as a forge reports it, the protocol the
service and the merge queue need of a forge, and the fenced block a pull request body
carries (DESIGN.md "Forge adapters", D-35; ruling 7).

Nothing here talks to a forge; :mod:`network.forge.local` (the embedded forge) and
:mod:`network.forge.github` (the GitHub REST forge) do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from network.errors import define

#: the codes both forges raise (local.py, github.py)
define("pull-request-not-found", None, 404, "No pull request has that number.",
       "List the open pull requests and use one of their numbers.")
define("pull-request-closed", None, 409, "The pull request is already merged or closed.",
       "Open a new pull request.")
define("merge-conflict", None, 409, "The pull request no longer merges cleanly into main.",
       "Rebase your change on the current main and submit again.")

PrState = Literal["open", "merged", "closed"]
MAIN = "refs/heads/main"


@dataclass(frozen=True)
class PullRequest:
    """A pull request as every forge reports it.

    Attributes:
        number: the forge's number.
        title, body: as opened; ``body`` may carry a fenced ``precheck-attestation`` block.
        base_sha: main's commit when it was opened (40 hex).
        head_sha: the branch's head commit (40 hex).
        author: the ledger identity's pseudonym.
        state: open, merged or closed.
        merge_sha: main's commit after the merge, when merged.
        precheck_attestation: the attached precheck attestation JSON (ruling 7), if any.
        close_code, close_detail: the catalog code and detail it was closed with, when
            the merge queue closed it for a reason (issue 16: ``merge-conflict``, a gate
            refusal); None otherwise.
    """

    number: int
    title: str
    body: str
    base_sha: str
    head_sha: str
    author: str
    state: PrState
    merge_sha: str | None
    precheck_attestation: str | None
    close_code: str | None = None
    close_detail: str | None = None

    @property
    def branch(self) -> str:
        """The branch ref: ``refs/heads/pr/<number>``."""
        return f"refs/heads/pr/{self.number}"


class Forge(Protocol):
    """What the service and the merge queue need of a forge (D-35)."""

    def main_sha(self) -> str:
        """main's head commit, 40 hex."""
        ...

    def open_pull_request(self, *, files: Mapping[str, bytes | None], title: str, body: str,
                          author: str, precheck_attestation: str | None = None,
                          base_sha: str | None = None) -> PullRequest:
        """Commit ``files`` (path → bytes, None deletes) on a new branch from main and open
        a pull request for it."""
        ...

    def get(self, number: int) -> PullRequest:
        """One pull request. Raises LemmataError ``pull-request-not-found``."""
        ...

    def list_open(self) -> list[PullRequest]:
        """Open pull requests, oldest first (the merge queue's order)."""
        ...

    def close(self, number: int) -> PullRequest:
        """Close unmerged and delete the branch."""
        ...

    def merge(self, number: int) -> PullRequest:
        """Merge into main; fast-forward when possible."""
        ...

    def commit_to_main(self, files: Mapping[str, bytes | None], message: str) -> str:
        """A commit on main by the gate's publisher (attestations, post-merge records)."""
        ...


_FENCE = re.compile(r"```precheck-attestation[ \t]*\n(?P<json>.*?)\n```", re.DOTALL)


def precheck_from_body(body: str) -> str | None:
    """The JSON text of the first fenced ``precheck-attestation`` block (ruling 7) in a pull
    request body, or None."""
    match = _FENCE.search(body)
    return match.group("json") if match else None
