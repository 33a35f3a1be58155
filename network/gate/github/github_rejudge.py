"""Re-judging held pull requests on GitHub once their review record merges (D-4 step 9
v3.11/v3.15; ruling 14; issue 13).

A proof held at step 9 waits for an approving review. Through the site the review is a
signed record (``targets/<id>/nodes/<node>/reviews/<ts>-<pseudonym>.yaml``, naming the held
attestation) that merges on ``main`` by its own pull request; nothing then judges the held
pull request again. ``graph/.github/workflows/gate-rejudge.yml`` (on ``push`` to ``main``
touching a review record, and ``workflow_dispatch``) runs ``lemmata gate rejudge``, this
module, from main's checkout and the pinned network: it reads the graph, asks the REST API
for the open pull requests and their gate runs, and dispatches ``gate-publish.yml`` on
``main`` with the id of the held pull request's latest successful ``gate`` run
(``workflow_dispatch`` input ``run_id``). That trusted run re-judges from the export that
run already uploaded (:func:`event_from_run` gives ``lemmata gate trusted --run-id`` the
same event fields a ``workflow_run`` event carries), against the new main holding the
review.

The trust domains of ruling 14 stay as they were:

- this job holds no secret and no environment; its token may read the repository and
  dispatch workflows (``actions: write``), nothing else; it checks out main only and runs
  no code of any pull request; it decides nothing and writes nothing to the graph;
- no contributor code runs again: the re-judge reads the compiled files the unprivileged
  job exported, hash-checked against the head's bytes, exactly as after a ``workflow_run``;
- what it dispatches is only a request to judge: the trusted job fetches the run from the
  API itself, refuses a run that is not this repository's successful ``gate.yml``
  ``pull_request`` run (``trusted-run-unknown``), and then checks the pull request, the
  head and the artifact as for any event.

A pull request is re-judged only when its latest attestation on main (the newest for its
head) is ``held`` and a review record on main names that attestation; the re-judge leaves a
newer attestation, which no review names yet, so the attestation commits it makes do not
re-judge it again. One pull request is dispatched at a time, and only while no
gate-publish run is queued or running (its concurrency group keeps one pending run and
cancels an older one); the attestation commit of each re-judge starts the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from network.errors import LemmataError, define
from network.gate.github.github_trusted import WorkflowRunEvent, parse_event
from network.record.read.loader import Graph

define("rejudge-api-failed", None, 502,
       "The GitHub REST API refused or failed a request the re-judge job needs (listing "
       "pull requests or gate runs, or dispatching gate-publish.yml).",
       "Check the job's token (actions: write, pull-requests: read) and re-run the "
       "gate-rejudge workflow; nothing was judged or written.")
define("trusted-run-unknown", None, 422,
       "The run id given to `lemmata gate trusted --run-id` is not a completed, successful "
       "`pull_request` run of this repository's .github/workflows/gate.yml, so there is "
       "no export to judge.",
       "Dispatch gate-publish.yml only with the id of a successful gate run (the "
       "gate-rejudge workflow does this itself).")

GATE_WORKFLOW = ".github/workflows/gate.yml"
"""The unprivileged workflow whose runs hold the exports."""
PUBLISH_WORKFLOW = "gate-publish.yml"
"""The trusted workflow the re-judge dispatches."""
EXPORT_ARTIFACT = "gate-export"
"""The artifact gate.yml uploads."""

_REPO_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_PAGE = 100
_MAX_PAGES = 20


@dataclass(frozen=True)
class Rejudged:
    """One held pull request the job looked at.

    Attributes:
        pull_request, head_sha: the pull request and its head.
        attestation: the held attestation's graph path (its latest on main).
        review: the review record on main naming it.
        run_id: the gate run whose export is re-judged, or None when none is usable.
        dispatched: whether gate-publish.yml was dispatched for it.
        why: what was done, in words.
    """

    pull_request: int
    head_sha: str
    attestation: str
    review: str
    run_id: int | None
    dispatched: bool
    why: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"pull_request": self.pull_request, "head_sha": self.head_sha,
                "attestation": self.attestation, "review": self.review,
                "run_id": self.run_id, "dispatched": self.dispatched, "why": self.why}


def reviewed_hold(graph: Graph, head_sha: str) -> tuple[str, str] | None:
    """``(attestation path, review path)`` when the latest attestation on ``graph`` for
    ``head_sha`` is ``held`` and a review record of the graph names it; else None.

    The latest attestations are those with the newest ``timestamp`` among the head's (one
    gate run writes one per artifact); the head counts as held when one of them is held
    and none failed or bounced. Only the review's naming of the attestation is read here:
    whether it counts (signed, by a non-author, of exactly these bytes) is the trusted
    job's to judge (:func:`network.gate.run.artifact_review`).
    """
    mine = [a for a in graph.attestations if a.record.head_commit == head_sha]
    if not mine:
        return None
    newest = max(a.record.timestamp for a in mine)
    latest = sorted((a for a in mine if a.record.timestamp == newest), key=lambda a: a.path)
    verdicts = {a.record.verdict for a in latest}
    if "held" not in verdicts or verdicts & {"fail", "bounced"}:
        return None
    held = {a.path: a.record for a in latest if a.record.verdict == "held"}
    for path, att in held.items():
        t = graph.targets.get(att.target)
        node = t.nodes.get(att.node) if t is not None else None
        if node is None:
            continue
        for rf in sorted(node.reviews, key=lambda r: r.path):
            if rf.record.attestation == path:
                return path, rf.path
    return None


class RestClient:
    """The few REST calls of the re-judge and of ``gate trusted --run-id``, over httpx.

    Args:
        repository: ``owner/name`` of the graph repository.
        token: the job's token (sent only as the Authorization header).
        api_url: the REST API base.
        transport: an httpx transport (tests), else the network.

    Raises:
        LemmataError: ``rejudge-api-failed`` (a malformed repository name, or any call
            GitHub refuses or fails).
    """

    def __init__(self, repository: str, token: str, *,
                 api_url: str = "https://api.github.com",
                 transport: httpx.BaseTransport | None = None) -> None:
        if not _REPO_RE.fullmatch(repository):
            raise LemmataError("rejudge-api-failed", f"repository {repository!r} is malformed")
        self.repository = repository
        self._http = httpx.Client(base_url=api_url.rstrip("/"), timeout=30.0,
                                  transport=transport, headers={
                                      "Authorization": f"Bearer {token}",
                                      "Accept": "application/vnd.github+json",
                                      "X-GitHub-Api-Version": "2022-11-28"})

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def call(self, method: str, path: str, **kw: Any) -> Any:
        """One call under ``/repos/<repository>``; the decoded JSON (None for 204)."""
        try:
            r = self._http.request(method, f"/repos/{self.repository}{path}", **kw)
        except httpx.HTTPError as exc:
            raise LemmataError("rejudge-api-failed", f"{method} {path}: {type(exc).__name__}"
                               ) from None
        if r.status_code >= 400:
            raise LemmataError("rejudge-api-failed", f"{method} {path}: HTTP {r.status_code}")
        if r.status_code == 204 or not r.content:
            return None
        try:
            return r.json()
        except ValueError:
            raise LemmataError("rejudge-api-failed", f"{method} {path}: not JSON") from None

    def pages(self, path: str, key: str | None, params: dict[str, Any]) -> Iterator[Any]:
        """Every item of a paginated list (``key`` names the list in an object answer)."""
        for page in range(1, _MAX_PAGES + 1):
            got = self.call("GET", path, params={**params, "per_page": _PAGE, "page": page})
            items = got.get(key) if key is not None and isinstance(got, dict) else got
            if not isinstance(items, list):
                raise LemmataError("rejudge-api-failed", f"GET {path}: no list")
            yield from items
            if len(items) < _PAGE:
                return


def open_pull_requests(api: RestClient, base: str = "main") -> list[tuple[int, str]]:
    """``(number, head sha)`` of every open pull request against ``base``."""
    out: list[tuple[int, str]] = []
    for pr in api.pages("/pulls", None, {"state": "open", "base": base}):
        number, sha = pr.get("number"), (pr.get("head") or {}).get("sha")
        if isinstance(number, int) and isinstance(sha, str):
            out.append((number, sha))
    return out


def latest_export_run(api: RestClient, head_sha: str) -> int | None:
    """The id of the newest successful ``pull_request`` run of gate.yml for ``head_sha``
    whose ``gate-export`` artifact has not expired, or None."""
    runs = list(api.pages("/actions/workflows/gate.yml/runs", "workflow_runs",
                          {"event": "pull_request", "head_sha": head_sha,
                           "status": "success"}))
    runs = [r for r in runs if r.get("head_sha") == head_sha
            and r.get("conclusion") == "success" and isinstance(r.get("id"), int)]
    for run in sorted(runs, key=lambda r: (str(r.get("created_at") or ""), r["id"]),
                      reverse=True):
        arts = api.call("GET", f"/actions/runs/{run['id']}/artifacts",
                        params={"name": EXPORT_ARTIFACT})
        items = arts.get("artifacts") if isinstance(arts, dict) else None
        if any(a.get("name") == EXPORT_ARTIFACT and not a.get("expired")
               for a in items or [] if isinstance(a, dict)):
            return int(run["id"])
    return None


def publish_busy(api: RestClient) -> bool:
    """Whether a gate-publish run is queued or in progress. GitHub keeps one pending run
    per concurrency group and cancels an older pending one, so the re-judge dispatches
    only into an idle group; the busy run's attestation commit on main starts the
    re-judge again."""
    for status in ("queued", "in_progress", "waiting", "pending"):
        got = api.call("GET", f"/actions/workflows/{PUBLISH_WORKFLOW}/runs",
                       params={"status": status, "per_page": 1})
        runs = got.get("workflow_runs") if isinstance(got, dict) else None
        if runs:
            return True
    return False


def rejudge(graph: Graph, api: RestClient, *, ref: str = "main", limit: int = 1,
            dry_run: bool = False) -> list[Rejudged]:
    """Dispatch ``gate-publish.yml`` on ``ref`` for the open pull requests whose latest
    attestation on ``graph`` (main's checkout) is held and named by a review record
    (:func:`reviewed_hold`), each with its latest usable gate run
    (:func:`latest_export_run`): at most ``limit`` of them, in number order, and none
    while a gate-publish run is queued or in progress (:func:`publish_busy`). Each
    re-judge commits an attestation to main, whose push runs the re-judge again for the
    next (gate-rejudge.yml); the re-judged pull request's newest attestation is then one
    no review names, so it is not dispatched twice.

    Returns:
        One :class:`Rejudged` per held, reviewed pull request looked at, in number order
        (``dispatched`` False for those left to a later run, with the reason).

    Raises:
        LemmataError: ``rejudge-api-failed``.
    """
    out: list[Rejudged] = []
    busy: bool | None = None
    sent = 0
    for number, head in sorted(open_pull_requests(api, ref)):
        hold = reviewed_hold(graph, head)
        if hold is None:
            continue
        att, review = hold
        if sent >= limit:
            out.append(Rejudged(number, head, att, review, None, False,
                                "left to the next run (one re-judge at a time)"))
            continue
        if busy is None:
            busy = publish_busy(api)
        if busy:
            out.append(Rejudged(number, head, att, review, None, False,
                                "a gate-publish run is queued or running; its attestation "
                                "commit runs the re-judge again"))
            continue
        run_id = latest_export_run(api, head)
        if run_id is None:
            out.append(Rejudged(number, head, att, review, None, False,
                                "no successful gate run with an unexpired export: push "
                                "again to the pull request"))
            continue
        if not dry_run:
            api.call("POST", f"/actions/workflows/{PUBLISH_WORKFLOW}/dispatches",
                     json={"ref": ref, "inputs": {"run_id": str(run_id)}})
        sent += 1
        out.append(Rejudged(number, head, att, review, run_id, not dry_run,
                            "dry run" if dry_run else "gate-publish dispatched"))
    return out


def event_from_run(api: RestClient, run_id: int) -> WorkflowRunEvent:
    """The event a ``workflow_run`` of gate run ``run_id`` would carry, read from the REST
    API (``GET /actions/runs/{id}``), for ``lemmata gate trusted --run-id``.

    Raises:
        LemmataError: ``trusted-run-unknown`` (not this repository's gate.yml run, or not
            one of a pull request); ``trusted-event-malformed`` (not completed, or not a
            success, or its fields malformed, :func:`parse_event`); ``rejudge-api-failed``.
    """
    if isinstance(run_id, bool) or not isinstance(run_id, int) or run_id <= 0:
        raise LemmataError("trusted-run-unknown", f"run id {run_id!r}")
    run = api.call("GET", f"/actions/runs/{run_id}")
    if not isinstance(run, dict) or run.get("id") != run_id:
        raise LemmataError("trusted-run-unknown", f"GitHub answered no run {run_id}")
    repo = str((run.get("repository") or {}).get("full_name") or "")
    path = str(run.get("path") or "").split("@", 1)[0]
    if repo.casefold() != api.repository.casefold() or path != GATE_WORKFLOW:
        raise LemmataError("trusted-run-unknown", f"run {run_id} is {repo}:{path}, not "
                           f"{api.repository}:{GATE_WORKFLOW}")
    if run.get("event") != "pull_request":
        raise LemmataError("trusted-run-unknown", f"run {run_id} was triggered by "
                           f"{run.get('event')!r}")
    return parse_event({"action": "completed", "repository": {"full_name": repo},
                        "workflow_run": run})
