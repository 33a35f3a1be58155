"""GitHubForge: the :class:`~network.forge.types.Forge` protocol over the GitHub REST API
(DESIGN.md "Forge adapters", D-35).

Every write is plain git objects made through the documented Git database endpoints,
then a ref and a pull request:

1. ``POST /repos/{o}/{r}/git/blobs`` for each new file (base64);
2. ``POST .../git/trees`` with ``base_tree`` = the parent commit's tree (a deletion is an
   entry whose ``sha`` is ``null``);
3. ``POST .../git/commits`` with the pseudonym as author, the service as committer and a
   ``Signed-off-by`` trailer, so a pull request the service opens is indistinguishable
   from a hand-opened one: the ledger identity is the author and the sign-off (D-23, D-35);
4. ``POST .../git/refs`` for ``refs/heads/lemmata/<uuid>``;
5. ``POST .../pulls`` whose body carries the fenced ``precheck-attestation`` block
   (ruling 7); GitHub has no other place for it, so it is read back from the body.

On GitHub the gate runs as Actions: ``graph/.github/workflows/gate.yml`` builds and exports
data, and ``gate-publish.yml``'s trusted job judges, signs and merges
(:mod:`network.gate.github.github_trusted`, which merges through :meth:`GitHubForge.merge`); the
service never runs the merge queue there.

Failures map to catalog codes: 401/403 ``forge-auth-failed``; a primary or secondary rate
limit ``forge-rate-limited`` (with the reset time); 5xx, timeouts and transport errors
``forge-unreachable``; any other refusal ``forge-request-failed``; 404 on a pull request
``pull-request-not-found``; 405/409 on a merge ``merge-conflict``. The token is sent only
to ``api_url`` and never appears in a message, a ``repr`` or a chained exception.
"""

from __future__ import annotations

import base64
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx

from network.errors import LemmataError, define
from network.forge.types import PrState, PullRequest, precheck_from_body
from network.ids import PSEUDONYM_RE
from network.record.read.source import check_graph_path

define("forge-auth-failed", None, 502,
       "GitHub refused the service's token (401, or 403 without a rate limit): it is "
       "wrong, expired, or lacks contents and pull-requests write access to the graph.",
       "The operator sets LEMMATA_GITHUB_TOKEN to a token with contents:write and "
       "pull_requests:write on the graph repository; nothing was changed.")
define("forge-rate-limited", None, 503,
       "GitHub's rate limit for the service's token is spent (403/429 with "
       "x-ratelimit-remaining 0, retry-after, or a secondary-limit message).",
       "Retry after the reset time given in the detail; nothing was opened.")
define("forge-unreachable", None, 503,
       "GitHub did not answer in time, could not be reached, or answered with a server "
       "error (5xx).",
       "Retry later; a pull request half-made on the forge is left as an unreferenced "
       "commit or branch and is harmless.")
define("forge-request-failed", None, 502,
       "The forge refused a request the adapter made (a 4xx such as 422), answered with "
       "something malformed, or the adapter refused to send a malformed one.",
       "Read the detail (GitHub's own message); fix the request or the repository's "
       "settings, then retry.")

API_VERSION = "2022-11-28"
BRANCH_PREFIX = "lemmata/"
MAX_PAGES = 50
_REPO_PART_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_SHA_RE = re.compile(r"[0-9a-f]{40}")
_BRANCH_RE = re.compile(r"[A-Za-z0-9._/-]{1,255}")


class ForgeRateLimited(LemmataError):
    """``forge-rate-limited`` with when to retry.

    Attributes:
        reset_at: ``x-ratelimit-reset`` (UTC epoch seconds), when GitHub sent it.
        retry_after_s: ``retry-after`` in seconds, when GitHub sent it.
    """

    def __init__(self, detail: str, *, reset_at: int | None,
                 retry_after_s: int | None) -> None:
        super().__init__("forge-rate-limited", detail)
        self.reset_at = reset_at
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class GitHubPullRequest(PullRequest):
    """A :class:`PullRequest` with where its branch lives on GitHub.

    Attributes:
        head_ref: the head branch's name, e.g. ``lemmata/<32 hex>`` (no ``refs/heads/``).
        head_repo: ``owner/name`` of the repository holding the head branch ("" when the
            fork was deleted); only a branch in the graph repository itself is deleted on
            close or merge, or amended.
        base_ref: the branch it would merge into, e.g. ``main``.
        login: the GitHub login that opened it (authenticated by GitHub, unlike the
            commit author; the trusted gate job maps it through identities/).
    """

    head_ref: str = ""
    head_repo: str = ""
    base_ref: str = ""
    login: str = ""

    @property
    def branch(self) -> str:
        """The branch ref: ``refs/heads/<head_ref>``."""
        return f"refs/heads/{self.head_ref}"


def with_precheck_block(body: str, precheck_attestation: str | None) -> str:
    """``body`` carrying the fenced ``precheck-attestation`` block: unchanged when there
    is no attestation or the body already has a block, else the block appended."""
    if not precheck_attestation or precheck_from_body(body) is not None:
        return body
    return f"{body}\n\n```precheck-attestation\n{precheck_attestation}\n```\n"


def parse_repo(full_name: str) -> tuple[str, str]:
    """``OWNER/NAME`` → (owner, name).

    Raises:
        LemmataError: ``forge-misconfigured`` when it is not two plain GitHub names.
    """
    parts = full_name.split("/")
    if len(parts) != 2 or not all(_REPO_PART_RE.fullmatch(p) and p not in {".", ".."}
                                  for p in parts):
        raise LemmataError("forge-misconfigured",
                           f"{full_name!r} is not a GitHub repository OWNER/NAME")
    return parts[0], parts[1]


def _check_paths(files: Mapping[str, bytes | None]) -> None:
    for path in files:
        why = check_graph_path(path)
        if why:
            raise LemmataError("hostile-path", why, path=path)


def _check_author(author: str) -> None:
    if not isinstance(author, str) or not PSEUDONYM_RE.fullmatch(author):
        raise LemmataError("pseudonym-invalid", f"{author!r} cannot author a commit")


def _check_sha(value: object, what: str) -> str:
    if not isinstance(value, str) or not _SHA_RE.fullmatch(value):
        raise LemmataError("forge-request-failed", f"{what} {value!r} is not a 40-hex id")
    return value


def _one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space, so a
    title cannot smuggle a trailer of its own into a commit message."""
    return " ".join(text.split())


def _sign_off(message: str, author: str) -> str:
    return (f"{_one_line(message)}\n\n"
            f"Signed-off-by: {author} <{author}@users.lemmata.invalid>\n")


def _plain_branch(name: str) -> bool:
    """Whether a branch name is safe to put in a URL path: ``[A-Za-z0-9._/-]``, no ``..``,
    no empty segment and no segment starting with a dot."""
    return bool(_BRANCH_RE.fullmatch(name)) and ".." not in name and all(
        seg and not seg.startswith(".") for seg in name.split("/"))


class GitHubForge:
    """The graph repository on GitHub, through its REST API (DESIGN.md, D-35).

    Args:
        owner, repo: the graph repository (plain GitHub names).
        token: a token with contents:write and pull_requests:write on it; sent only as
            ``Authorization: Bearer`` to ``api_url``, never logged or put in a message.
        api_url: the REST API base (GitHub Enterprise: ``https://HOST/api/v3``).
        client: an httpx client to send through (tests, connection reuse); one is made
            when None.
        committer: name and e-mail the service commits as.
        timeout_s: seconds each request may take (connect, read, write, pool).
        clock: seconds since the epoch, for commit dates.

    Raises:
        LemmataError: ``forge-misconfigured`` for a bad owner/repo or an empty token.
    """

    def __init__(self, owner: str, repo: str, token: str, *,
                 api_url: str = "https://api.github.com", client: httpx.Client | None = None,
                 committer: tuple[str, str] = ("Lemmata service", "service@lemmata.invalid"),
                 timeout_s: float = 30.0,
                 clock: Callable[[], float] | None = None,
                 submitter_key: tuple[str, Any] | None = None) -> None:
        self.owner, self.repo = parse_repo(f"{owner}/{repo}")
        self._submitter_key = submitter_key
        if not token or not isinstance(token, str):
            raise LemmataError("forge-misconfigured", "no GitHub token was given")
        self._token = token
        self.api_url = api_url.rstrip("/")
        self._base = f"{self.api_url}/repos/{self.owner}/{self.repo}"
        self._own_client = client is None
        self._client = client or httpx.Client()
        self.committer = committer
        self._timeout = httpx.Timeout(float(timeout_s))
        self._clock = clock or time.time
        self._authors: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"GitHubForge({self.full_name!r}, api_url={self.api_url!r})"

    @property
    def full_name(self) -> str:
        """``owner/name`` of the graph repository."""
        return f"{self.owner}/{self.repo}"

    def close_connections(self) -> None:
        """Close the httpx client when this forge made it (an injected one is the
        caller's)."""
        if self._own_client:
            self._client.close()

    # --- one request ------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "[token]") if self._token else text

    def _request(self, method: str, path: str, *, json: Any = None,
                 params: Mapping[str, str | int] | None = None, expect: tuple[int, ...] = (200,),
                 on: Mapping[int, str] | None = None) -> httpx.Response:
        """One API call. ``path`` is relative to the repository (``/pulls``) or a full URL
        under ``api_url`` (a pagination link). ``on`` maps a status to the catalog code
        raised for it (after the rate-limit and auth checks)."""
        url = path if path.startswith(self.api_url + "/") else self._base + path
        label = f"{method} {url[len(self.api_url):]}"
        headers = {"Authorization": f"Bearer {self._token}",
                   "Accept": "application/vnd.github+json",
                   "X-GitHub-Api-Version": API_VERSION, "User-Agent": "lemmata-forge"}
        try:
            r = self._client.request(method, url, json=json, params=params, headers=headers,
                                     timeout=self._timeout)
        except httpx.TimeoutException:
            raise LemmataError("forge-unreachable", f"{label}: no answer within "
                               f"{self._timeout.read}s") from None
        except httpx.HTTPError as exc:
            raise LemmataError("forge-unreachable", self._scrub(
                f"{label}: {type(exc).__name__}: {exc}")) from None
        if r.status_code in expect:
            return r
        raise self._error(r, label, on or {})

    def _error(self, r: httpx.Response, label: str, on: Mapping[int, str]) -> LemmataError:
        status = r.status_code
        message = self._scrub(_github_message(r))
        where = f"{label} answered {status}: {message}"
        if status in (403, 429):
            remaining = r.headers.get("x-ratelimit-remaining")
            reset = _int_or_none(r.headers.get("x-ratelimit-reset"))
            retry_after = _int_or_none(r.headers.get("retry-after"))
            if status == 429 or remaining == "0" or retry_after is not None \
                    or "rate limit" in message.lower():
                when = []
                if reset is not None:
                    iso = datetime.fromtimestamp(reset, UTC).strftime(
                        "%Y-%m-%dT%H:%M:%SZ")
                    when.append(f"resets at {iso} (epoch {reset})")
                if retry_after is not None:
                    when.append(f"retry after {retry_after}s")
                if not when:
                    when.append("retry after at least a minute")
                return ForgeRateLimited(f"{where}; {', '.join(when)}", reset_at=reset,
                                        retry_after_s=retry_after)
        if status in (401, 403):
            return LemmataError("forge-auth-failed", where)
        if status in on:
            return LemmataError(on[status], where)
        if status >= 500:
            return LemmataError("forge-unreachable", where)
        return LemmataError("forge-request-failed", where)

    def _json(self, r: httpx.Response) -> Any:
        try:
            return r.json()
        except ValueError:
            raise LemmataError("forge-request-failed",
                               f"{r.request.method} answered {r.status_code} with no JSON") \
                from None

    def _paginate(self, path: str, params: Mapping[str, str | int]) -> list[Any]:
        """Every item of a list endpoint, following ``Link: rel="next"`` (only to URLs
        under ``api_url``, so the token goes nowhere else)."""
        items: list[Any] = []
        url: str | None = path
        query: Mapping[str, str | int] | None = params
        for _ in range(MAX_PAGES):
            if url is None:
                return items
            r = self._request("GET", url, params=query)
            page = self._json(r)
            if not isinstance(page, list):
                raise LemmataError("forge-request-failed", f"GET {path}: not a JSON list")
            items.extend(page)
            nxt = r.links.get("next", {}).get("url")
            if nxt is not None and not nxt.startswith(self.api_url + "/"):
                raise LemmataError("forge-request-failed",
                                   f"GET {path}: next page {nxt!r} is not under {self.api_url}")
            url, query = nxt, None
        raise LemmataError("forge-request-failed", f"GET {path}: more than {MAX_PAGES} pages")

    # --- reading ----------------------------------------------------------------------

    def main_sha(self) -> str:
        """main's head commit, 40 hex (``GET /git/ref/heads/main``).

        Raises:
            LemmataError: the request codes of this module.
        """
        data = self._json(self._request("GET", "/git/ref/heads/main"))
        return _check_sha((data.get("object") or {}).get("sha"), "main")

    def get(self, number: int) -> GitHubPullRequest:
        """One pull request (``GET /pulls/{number}``).

        Raises:
            LemmataError: ``pull-request-not-found``; the request codes of this module.
        """
        r = self._request("GET", f"/pulls/{int(number)}", on={404: "pull-request-not-found"})
        return self._to_pr(self._json(r))

    def list_open(self) -> list[GitHubPullRequest]:
        """Open pull requests against main, oldest first (every page)."""
        return self._list("open")

    def list_all(self) -> list[GitHubPullRequest]:
        """Every pull request against main, by number (every page)."""
        return self._list("all")

    def _list(self, state: str) -> list[GitHubPullRequest]:
        rows = self._paginate("/pulls", {"state": state, "base": "main", "sort": "created",
                                         "direction": "asc", "per_page": 100})
        return sorted((self._to_pr(row) for row in rows), key=lambda p: p.number)

    def _to_pr(self, data: Any, *, author: str | None = None) -> GitHubPullRequest:
        """Map GitHub's pull-request object: ``state`` closed with ``merged_at`` (the list
        shape) or ``merged`` (the single shape) is merged; ``merge_commit_sha`` counts only
        then (GitHub fills it with a test merge for open ones)."""
        try:
            head, base = data["head"], data["base"]
            merged = bool(data.get("merged") or data.get("merged_at"))
            state: PrState = ("open" if data["state"] == "open"
                              else "merged" if merged else "closed")
            head_sha = _check_sha(head["sha"], "head")
            body = data.get("body") or ""
            login = (data.get("user") or {}).get("login") or ""
            return GitHubPullRequest(
                number=int(data["number"]), title=str(data.get("title") or ""), body=body,
                base_sha=_check_sha(base["sha"], "base"), head_sha=head_sha,
                author=author or self._author_of(head_sha, fallback=login),
                state=state,
                merge_sha=(_check_sha(data.get("merge_commit_sha"), "merge")
                           if state == "merged" else None),
                precheck_attestation=precheck_from_body(body),
                head_ref=str(head.get("ref") or ""),
                head_repo=str((head.get("repo") or {}).get("full_name") or ""),
                base_ref=str(base.get("ref") or ""),
                login=str(login),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise LemmataError("forge-request-failed",
                               f"a pull request object without {exc}") from None

    def _author_of(self, sha: str, *, fallback: str) -> str:
        """The head commit's author name (the ledger identity, D-23), cached by commit
        id; ``fallback`` (the GitHub login) when GitHub does not have the commit."""
        if sha not in self._authors:
            r = self._request("GET", f"/git/commits/{sha}", expect=(200, 404, 422))
            name = ((self._json(r).get("author") or {}).get("name")
                    if r.status_code == 200 else None)
            if not name:
                return fallback
            self._authors[sha] = str(name)
        return self._authors[sha]

    # --- writing ----------------------------------------------------------------------

    def commit_files(self, parent: str, files: Mapping[str, bytes | None], message: str, *,
                     author: tuple[str, str]) -> str:
        """A commit on top of ``parent`` changing ``files``; no ref moves.

        Calls: ``GET /git/commits/{parent}`` (its tree), ``POST /git/blobs`` per new file,
        ``POST /git/trees`` with ``base_tree`` (deletions as ``sha: null``; GitHub refuses
        deleting a path that does not exist), ``POST /git/commits``.

        Args:
            parent: the parent commit, 40 hex.
            files: graph path → new bytes, or None to delete.
            message: the commit message.
            author: (name, e-mail) of the author; the committer is the service.

        Returns:
            the new commit, 40 hex.

        Raises:
            LemmataError: ``hostile-path`` (before any request); the request codes.
        """
        _check_paths(files)
        parent = _check_sha(parent, "parent")
        pdata = self._json(self._request("GET", f"/git/commits/{parent}"))
        base_tree = _check_sha((pdata.get("tree") or {}).get("sha"), "tree")
        entries: list[dict[str, Any]] = []
        for path in sorted(files):
            data = files[path]
            sha: str | None = None
            if data is not None:
                blob = self._json(self._request(
                    "POST", "/git/blobs", expect=(201,),
                    json={"content": base64.b64encode(data).decode("ascii"),
                          "encoding": "base64"}))
                sha = _check_sha(blob.get("sha"), "blob")
            entries.append({"path": path, "mode": "100644", "type": "blob", "sha": sha})
        tree = self._json(self._request("POST", "/git/trees", expect=(201,),
                                        json={"base_tree": base_tree, "tree": entries}))
        when = datetime.fromtimestamp(int(self._clock()), UTC).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        commit = self._json(self._request("POST", "/git/commits", expect=(201,), json={
            "message": message, "tree": _check_sha(tree.get("sha"), "tree"),
            "parents": [parent],
            "author": {"name": author[0], "email": author[1], "date": when},
            "committer": {"name": self.committer[0], "email": self.committer[1],
                          "date": when},
        }))
        return _check_sha(commit.get("sha"), "commit")

    def open_pull_request(self, *, files: Mapping[str, bytes | None], title: str, body: str,
                          author: str, precheck_attestation: str | None = None,
                          base_sha: str | None = None) -> GitHubPullRequest:
        """Commit ``files`` on a new branch ``lemmata/<uuid>`` from main (or ``base_sha``)
        and open a pull request for it (D-35).

        The commit's author is ``author`` (``<author>@users.lemmata.invalid``), its
        committer the service, its message ``title`` plus a ``Signed-off-by`` trailer
        (D-23). The body carries ``precheck_attestation`` in its fenced block (ruling 7).

        Raises:
            LemmataError: ``hostile-path`` and ``pseudonym-invalid`` before any request;
                the request codes of this module.
        """
        _check_paths(files)
        _check_author(author)
        base = _check_sha(base_sha, "base") if base_sha else self.main_sha()
        head = self.commit_files(base, files, _sign_off(title, author),
                                 author=(author, f"{author}@users.lemmata.invalid"))
        return self.open_from_commit(head, title=title, body=body, author=author,
                                     precheck_attestation=precheck_attestation, base_sha=base)

    def open_from_commit(self, head_sha: str, *, title: str, body: str, author: str,
                         precheck_attestation: str | None = None,
                         base_sha: str | None = None) -> GitHubPullRequest:
        """Open a pull request for an existing commit: ``POST /git/refs`` for a new
        ``lemmata/<uuid>`` branch, then ``POST /pulls`` against main. The branch is
        deleted again if GitHub refuses the pull request. ``base_sha`` is accepted for
        parity with LocalForge; GitHub records main's head itself.

        Raises:
            LemmataError: ``pseudonym-invalid``; the request codes of this module.
        """
        _check_author(author)
        head_sha = _check_sha(head_sha, "head")
        if base_sha is not None:
            _check_sha(base_sha, "base")
        branch = f"{BRANCH_PREFIX}{uuid.uuid4().hex}"
        self._request("POST", "/git/refs", expect=(201,),
                      json={"ref": f"refs/heads/{branch}", "sha": head_sha})
        try:
            r = self._request("POST", "/pulls", expect=(201,), json={
                "title": _one_line(title)[:256], "head": branch, "base": "main",
                "body": self._signed_body(with_precheck_block(body, precheck_attestation),
                                          author, head_sha)})
        except LemmataError:
            self._delete_branch(branch)
            raise
        return self._to_pr(self._json(r), author=author)

    def amend_pull_request(self, number: int, files: Mapping[str, bytes | None], message: str,
                           *, author: str) -> GitHubPullRequest:
        """Push one more commit changing ``files`` onto an open pull request's branch, as
        its author would (D-28 notation note 2026-10-06: ``amends``): a commit on the head,
        then ``PATCH /git/refs/heads/<branch>`` without force.

        Raises:
            LemmataError: ``hostile-path``, ``pseudonym-invalid``;
                ``pull-request-not-found``; ``pull-request-closed``;
                ``forge-request-failed`` for a branch in a fork; ``merge-conflict`` when the
                branch moved meanwhile; the request codes.
        """
        _check_paths(files)
        _check_author(author)
        pr = self.get(number)
        if pr.state != "open":
            raise LemmataError("pull-request-closed", f"#{number} is {pr.state}")
        if pr.head_repo != self.full_name or not _plain_branch(pr.head_ref):
            raise LemmataError("forge-request-failed", f"#{number}'s branch "
                               f"{pr.head_ref!r} in {pr.head_repo or 'a deleted fork'} is "
                               "not one the service pushes to")
        head = self.commit_files(pr.head_sha, files, _sign_off(message, author),
                                 author=(author, f"{author}@users.lemmata.invalid"))
        self._request("PATCH", f"/git/refs/heads/{pr.head_ref}",
                      json={"sha": head, "force": False}, on={422: "merge-conflict"})
        if self._submitter_key is not None:  # the signed block follows the new head
            body = self._signed_body(pr.body, author, head)
            self._request("PATCH", f"/pulls/{pr.number}", json={"body": body})
            pr = replace(pr, body=body)
        return replace(pr, head_sha=head, author=author)

    def _signed_body(self, body: str, author: str, head_sha: str) -> str:
        """``body`` with the signed ``lemmata-submitter`` block for ``author`` at
        ``head_sha`` (:mod:`network.forge.submitter`), when the forge holds the service
        key; the trusted gate job credits a service pull request only through it."""
        if self._submitter_key is None:
            return body
        from network.forge.submitter import submitter_block, with_submitter_block

        return with_submitter_block(body, submitter_block(
            author, head_sha, self._submitter_key, now=self._clock()))

    def close(self, number: int) -> GitHubPullRequest:
        """Close unmerged (``PATCH /pulls/{n}`` state closed) and delete its branch when it
        lives in the graph repository.

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed``; the request
                codes.
        """
        pr = self.get(number)
        if pr.state != "open":
            raise LemmataError("pull-request-closed", f"#{number} is {pr.state}")
        self._request("PATCH", f"/pulls/{pr.number}", json={"state": "closed"},
                      on={404: "pull-request-not-found"})
        if pr.head_repo == self.full_name:
            self._delete_branch(pr.head_ref)
        return replace(pr, state="closed")

    def merge(self, number: int, *, expected_head: str | None = None) -> GitHubPullRequest:
        """Merge into main (``PUT /pulls/{n}/merge``, a merge commit, only at the head the
        service saw, or at ``expected_head`` when given: GitHub's ``sha`` parameter, so a
        later push cannot slip in) and delete its branch.

        On GitHub the gate-publish workflow's trusted job merges through this method
        with ``expected_head`` = its event's head (``lemmata gate trusted``,
        :mod:`network.gate.github.github_trusted`); it also serves LocalForge parity and operators.

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed``;
                ``merge-conflict`` (405 not mergeable, 409 head moved); the request codes.
        """
        pr = self.get(number)
        if pr.state != "open":
            raise LemmataError("pull-request-closed", f"#{number} is {pr.state}")
        if expected_head is not None and pr.head_sha != _check_sha(expected_head, "head"):
            raise LemmataError("merge-conflict", f"#{number}'s head is {pr.head_sha}, not "
                               f"the judged {expected_head}")
        r = self._request("PUT", f"/pulls/{pr.number}/merge", json={
            "sha": expected_head or pr.head_sha, "merge_method": "merge",
            "commit_title": _one_line(f"Merge pull request #{pr.number}: {pr.title}")[:256]},
            on={404: "pull-request-not-found", 405: "merge-conflict", 409: "merge-conflict"})
        data = self._json(r)
        if not data.get("merged"):
            raise LemmataError("merge-conflict", f"#{number}: {data.get('message', '')}")
        merged = replace(pr, state="merged", merge_sha=_check_sha(data.get("sha"), "merge"))
        if pr.head_repo == self.full_name:
            self._delete_branch(pr.head_ref)
        return merged

    def open_with_head(self, head_owner: str, head_branch: str) -> list[GitHubPullRequest]:
        """Open pull requests against main whose head is ``head_owner:head_branch``
        (``GET /pulls?head=...``, every page): how a fork's pull request is found from a
        ``workflow_run`` event, whose ``pull_requests`` is empty for forks.

        Raises:
            LemmataError: ``forge-request-failed`` for a malformed owner or branch; the
                request codes.
        """
        if not _REPO_PART_RE.fullmatch(head_owner) or not _plain_branch(head_branch):
            raise LemmataError("forge-request-failed",
                               f"refusing to look up head {head_owner!r}:{head_branch!r}")
        rows = self._paginate("/pulls", {"state": "open", "base": "main",
                                         "head": f"{head_owner}:{head_branch}",
                                         "per_page": 100})
        return sorted((self._to_pr(row) for row in rows), key=lambda p: p.number)

    def approvals(self, number: int) -> list[tuple[str, str, str]]:
        """``(login, commit_id, body)`` of each reviewer whose latest review of the pull
        request approves it (``GET /pulls/{n}/reviews``, every page, in GitHub's
        chronological order; a later review, dismissal or change request supersedes).

        Raises:
            LemmataError: the request codes.
        """
        latest: dict[str, tuple[str, str, str, str]] = {}
        for row in self._paginate(f"/pulls/{int(number)}/reviews", {"per_page": 100}):
            if not isinstance(row, dict):
                continue
            login = str((row.get("user") or {}).get("login") or "")
            state = str(row.get("state") or "")
            if login and state != "COMMENTED":
                latest[login] = (state, login, str(row.get("commit_id") or ""),
                                 str(row.get("body") or ""))
        return [(login, commit, body) for state, login, commit, body in latest.values()
                if state == "APPROVED"]

    def set_status(self, sha: str, state: str, context: str, description: str) -> None:
        """A commit status on ``sha`` (``POST /statuses/{sha}``): ``state`` is success,
        failure, error or pending; the description is cut to GitHub's 140 characters.

        Raises:
            LemmataError: the request codes.
        """
        self._request("POST", f"/statuses/{_check_sha(sha, 'status')}", json={
            "state": state, "context": context, "description": _one_line(description)[:140]},
            expect=(201,))

    def comment(self, number: int, body: str) -> None:
        """A comment on issue or pull request ``number`` (``POST /issues/{n}/comments``):
        how a review's intent signer hears that questions wait (D-9 v3.39), GitHub
        notifying them of the @-mention by their own settings.

        Raises:
            LemmataError: the request codes; ``pull-request-not-found`` (404).
        """
        self._request("POST", f"/issues/{int(number)}/comments", json={"body": body},
                      expect=(201,), on={404: "pull-request-not-found"})

    def commit_to_main(self, files: Mapping[str, bytes | None], message: str) -> str:
        """A commit on main by the gate's publisher (attestations, post-merge records),
        the service as author and committer; main moves by fast-forward only
        (``PATCH /git/refs/heads/main`` with ``force: false``).

        Returns:
            the new main, 40 hex.

        Raises:
            LemmataError: ``hostile-path`` before any request; ``merge-conflict`` when main
                moved meanwhile; the request codes.
        """
        _check_paths(files)
        sha = self.commit_files(self.main_sha(), files, message, author=self.committer)
        self._request("PATCH", "/git/refs/heads/main", json={"sha": sha, "force": False},
                      on={422: "merge-conflict"})
        return sha

    def _delete_branch(self, branch: str) -> None:
        """``DELETE /git/refs/heads/<branch>``; a branch already gone (404/422) is fine;
        main, and a name that is not plain (:func:`_plain_branch`), are never sent."""
        if branch == "main" or not _plain_branch(branch):
            return
        self._request("DELETE", f"/git/refs/heads/{branch}",
                      expect=(204, 404, 422))


def _github_message(r: httpx.Response) -> str:
    """GitHub's ``message`` (plus the first error's ``message``/``code``), or the start
    of the body, at most 300 characters."""
    try:
        data = r.json()
    except ValueError:
        return r.text[:300].strip() or r.reason_phrase
    if not isinstance(data, dict):
        return str(data)[:300]
    text = str(data.get("message") or r.reason_phrase)
    errors = data.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        extra = errors[0].get("message") or errors[0].get("code")
        if extra:
            text = f"{text} ({extra})"
    return text[:300]


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
