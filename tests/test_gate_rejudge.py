"""Re-judging a held pull request on GitHub once its review record merges on main (D-4
step 9 v3.11/v3.15, ruling 14; issue 13): gate-rejudge.yml's shape, `lemmata gate rejudge`
over a mocked REST API (respx), and `lemmata gate trusted --run-id`, which reads the gate
run from the API and refuses any run that is not this repository's gate.yml run of a pull
request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
import yaml

from network.errors import LemmataError
from network.gate.github import github_rejudge as R
from network.record import models as m
from network.record.read.loader import Graph, load_graph
from tests.graphs import GraphBuilder
from tests.test_gate_workflow import API, WF, _event, _load, _steps_text

T = "demo"
STATEMENT = f"targets/{T}/nodes/root/Statement.lean"
H = {k: c * 40 for k, c in (("reviewed", "1"), ("unreviewed", "2"), ("passed", "3"),
                            ("failed", "4"), ("rejudged", "5"))}


def _attest(b: GraphBuilder, head: str, verdict: str, date: str, name: str) -> str:
    path = b.attest([STATEMENT], verdict=verdict, date=date, target=T, node="root",
                    name=name)
    rec = json.loads((b.root / path).read_text())
    rec.pop("signature", None)
    rec["head_commit"] = head
    return b.write_json(path, b.signed(m.Attestation, rec, "gate", kind="gate"))


def _review(b: GraphBuilder, att: str, ts: str) -> str:
    path = f"targets/{T}/nodes/root/reviews/{ts}-steve.yaml"
    b.write_yaml(path, {"schema": "proof-review/v1", "target": T, "node": "root",
                        "attestation": att, "artifacts": [
                            {"path": STATEMENT, "sha256": b.sha(STATEMENT)}],
                        "decision": "approve", "by": "steve", "date": "2026-03-02"})
    return path


@pytest.fixture()
def graph(tmp_path: Path) -> tuple[Graph, dict[str, str]]:
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    p: dict[str, str] = {}
    p["held"] = _attest(b, H["reviewed"], "held", "2026-03-01T00:00:00Z", "a1")
    p["review"] = _review(b, p["held"], "20260302T000000Z")
    _attest(b, H["unreviewed"], "held", "2026-03-01T00:00:00Z", "a2")
    old = _attest(b, H["passed"], "held", "2026-03-01T00:00:00Z", "a3")
    _review(b, old, "20260302T000001Z")
    _attest(b, H["passed"], "pass", "2026-03-03T00:00:00Z", "a4")  # judged since: passed
    held = _attest(b, H["failed"], "held", "2026-03-01T00:00:00Z", "a5")
    _attest(b, H["failed"], "fail", "2026-03-01T00:00:00Z", "a6")  # the same run failed
    _review(b, held, "20260302T000002Z")
    first = _attest(b, H["rejudged"], "held", "2026-03-01T00:00:00Z", "a7")
    _review(b, first, "20260302T000003Z")
    _attest(b, H["rejudged"], "held", "2026-03-04T00:00:00Z", "a8")  # re-judged: held again
    return load_graph(b.root), p


def test_only_a_head_whose_latest_hold_a_review_names_is_rejudged(
        graph: tuple[Graph, dict[str, str]]) -> None:
    g, p = graph
    assert R.reviewed_hold(g, H["reviewed"]) == (p["held"], p["review"])
    for k in ("unreviewed", "passed", "failed", "rejudged"):  # the last: no loop
        assert R.reviewed_hold(g, H[k]) is None, k
    assert R.reviewed_hold(g, "9" * 40) is None


def _runs_route(api: Any, head: str, runs: list[dict[str, Any]]) -> Any:
    return api.get(f"{API}/actions/workflows/gate.yml/runs",
                   params={"head_sha": head}).mock(
        httpx.Response(200, json={"total_count": len(runs), "workflow_runs": runs}))


def _idle(api: Any, busy: str | None = None) -> None:
    for status in ("queued", "in_progress", "waiting", "pending"):
        runs = [{"id": 5}] if status == busy else []
        api.get(f"{API}/actions/workflows/gate-publish.yml/runs",
                params={"status": status}).mock(
            httpx.Response(200, json={"workflow_runs": runs}))


def _pulls(api: Any, *heads: tuple[int, str]) -> None:
    api.get(f"{API}/pulls").mock(httpx.Response(200, json=[
        {"number": n, "head": {"sha": h}} for n, h in heads]))


def _client() -> R.RestClient:
    return R.RestClient("lemmata/graph", "t0ken")


def test_rejudge_dispatches_gate_publish_with_the_latest_unexpired_export(
        graph: tuple[Graph, dict[str, str]]) -> None:
    g, p = graph
    with respx.mock(assert_all_called=False) as api:
        _pulls(api, (7, H["reviewed"]), (8, H["unreviewed"]), (9, H["rejudged"]))
        _idle(api)
        runs = _runs_route(api, H["reviewed"], [
            {"id": 100, "head_sha": H["reviewed"], "conclusion": "success",
             "created_at": "2026-03-01T00:00:00Z"},
            {"id": 101, "head_sha": H["reviewed"], "conclusion": "success",
             "created_at": "2026-03-01T01:00:00Z"},
            {"id": 102, "head_sha": "f" * 40, "conclusion": "success",  # another head
             "created_at": "2026-03-01T02:00:00Z"}])
        api.get(f"{API}/actions/runs/101/artifacts").mock(httpx.Response(200, json={
            "artifacts": [{"name": "gate-export", "expired": True}]}))
        api.get(f"{API}/actions/runs/100/artifacts").mock(httpx.Response(200, json={
            "artifacts": [{"name": "gate-export", "expired": False}]}))
        dispatch = api.post(f"{API}/actions/workflows/gate-publish.yml/dispatches").mock(
            httpx.Response(204))
        [done] = R.rejudge(g, _client())
    assert (done.pull_request, done.run_id, done.dispatched) == (7, 100, True)
    assert (done.attestation, done.review) == (p["held"], p["review"])
    assert runs.calls[0].request.url.params["event"] == "pull_request"
    [call] = dispatch.calls
    assert json.loads(call.request.content) == {"ref": "main", "inputs": {"run_id": "100"}}
    assert call.request.headers["Authorization"] == "Bearer t0ken"


def test_rejudge_waits_while_gate_publish_is_busy_and_sends_one_at_a_time(
        graph: tuple[Graph, dict[str, str]]) -> None:
    g, _ = graph
    with respx.mock(assert_all_called=False) as api:
        _pulls(api, (7, H["reviewed"]))
        _idle(api, busy="queued")
        dispatch = api.post(f"{API}/actions/workflows/gate-publish.yml/dispatches").mock(
            httpx.Response(204))
        [done] = R.rejudge(g, _client())
    assert not done.dispatched and "queued or running" in done.why and not dispatch.called
    # two held, reviewed pull requests: the first is sent, the second left to the next run
    with respx.mock(assert_all_called=False) as api:
        _pulls(api, (7, H["reviewed"]), (6, H["reviewed"]))
        _idle(api)
        _runs_route(api, H["reviewed"], [{"id": 100, "head_sha": H["reviewed"],
                                          "conclusion": "success"}])
        api.get(f"{API}/actions/runs/100/artifacts").mock(httpx.Response(200, json={
            "artifacts": [{"name": "gate-export", "expired": False}]}))
        dispatch = api.post(f"{API}/actions/workflows/gate-publish.yml/dispatches").mock(
            httpx.Response(204))
        first, second = R.rejudge(g, _client())
    assert (first.pull_request, first.dispatched) == (6, True)
    assert (second.pull_request, second.dispatched) == (7, False)
    assert dispatch.call_count == 1


def test_rejudge_without_a_usable_export_dispatches_nothing(
        graph: tuple[Graph, dict[str, str]]) -> None:
    g, _ = graph
    with respx.mock(assert_all_called=False) as api:
        _pulls(api, (7, H["reviewed"]))
        _idle(api)
        _runs_route(api, H["reviewed"], [{"id": 100, "head_sha": H["reviewed"],
                                          "conclusion": "success"}])
        api.get(f"{API}/actions/runs/100/artifacts").mock(httpx.Response(200, json={
            "artifacts": []}))
        dispatch = api.post(f"{API}/actions/workflows/gate-publish.yml/dispatches").mock(
            httpx.Response(204))
        [done] = R.rejudge(g, _client())
    assert done.run_id is None and not done.dispatched and not dispatch.called


def test_an_api_refusal_is_rejudge_api_failed(graph: tuple[Graph, dict[str, str]]) -> None:
    g, _ = graph
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/pulls").mock(httpx.Response(403, json={"message": "no"}))
        with pytest.raises(LemmataError) as exc:
            R.rejudge(g, _client())
    assert exc.value.code == "rejudge-api-failed"
    with pytest.raises(LemmataError) as exc:
        R.RestClient("not a repo", "t")
    assert exc.value.code == "rejudge-api-failed"


def _run(head: str, **over: Any) -> dict[str, Any]:
    run = dict(_event(head)["workflow_run"])
    run.update({"path": ".github/workflows/gate.yml",
                "repository": {"full_name": "lemmata/graph"}, **over})
    return run


@pytest.mark.parametrize(("over", "code"), [
    ({"path": ".github/workflows/ci.yml"}, "trusted-run-unknown"),
    ({"repository": {"full_name": "mallory/graph"}}, "trusted-run-unknown"),
    ({"event": "push"}, "trusted-run-unknown"),
    ({"id": 98}, "trusted-run-unknown"),  # GitHub answered another run
    ({"conclusion": "failure"}, "trusted-event-malformed"),
    ({"status": "in_progress"}, "trusted-event-malformed"),
])
def test_a_dispatched_run_id_must_be_this_repositorys_successful_gate_run(
        over: dict[str, Any], code: str) -> None:
    head = "a" * 40
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/actions/runs/99").mock(httpx.Response(200, json=_run(head, **over)))
        with pytest.raises(LemmataError) as exc:
            R.event_from_run(_client(), 99)
    assert exc.value.code == code


def test_a_dispatched_run_id_gives_the_events_fields() -> None:
    head = "a" * 40
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/actions/runs/99").mock(httpx.Response(200, json=_run(
            head, path=".github/workflows/gate.yml@refs/pull/7/merge")))
        ev = R.event_from_run(_client(), 99)
    assert (ev.repository, ev.run_id, ev.head_sha, ev.pull_requests) == \
        ("lemmata/graph", 99, head, (7,))


def test_cli_trusted_takes_exactly_one_of_event_and_run_id(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from network.cli import main

    for extra in ([], ["--event", str(tmp_path / "e.json"), "--run-id", "99"]):
        res = CliRunner().invoke(main, ["gate", "trusted", "--artifact", str(tmp_path),
                                        *extra])
        assert res.exit_code != 0 and "trusted-event-malformed" in res.output, res.output


def test_cli_rejudge_dry_run_lists_and_dispatches_nothing(
        tmp_path: Path, graph: tuple[Graph, dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from network.cli import main

    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    with respx.mock(assert_all_called=False) as api:
        _pulls(api, (7, H["reviewed"]))
        _idle(api)
        _runs_route(api, H["reviewed"], [{"id": 100, "head_sha": H["reviewed"],
                                          "conclusion": "success"}])
        api.get(f"{API}/actions/runs/100/artifacts").mock(httpx.Response(200, json={
            "artifacts": [{"name": "gate-export", "expired": False}]}))
        dispatch = api.post(f"{API}/actions/workflows/gate-publish.yml/dispatches").mock(
            httpx.Response(204))
        res = CliRunner().invoke(main, ["gate", "rejudge", "--graph", str(tmp_path / "g"),
                                        "--repository", "lemmata/graph", "--dry-run"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.output)["rejudged"]
    assert (row["pull_request"], row["run_id"], row["dispatched"]) == (7, 100, False)
    assert not dispatch.called


def test_rejudge_workflow_runs_main_only_without_secrets_and_dispatches_only() -> None:
    wf = _load(WF / "gate-rejudge.yml")
    assert list(wf["on"]) == ["push", "workflow_dispatch"]
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"] == {}
    [job] = wf["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "read",
                                  "actions": "write"}
    assert job["if"] == "github.ref == 'refs/heads/main'"
    assert "environment" not in job and "secrets." not in yaml.safe_dump(job)
    for step in job["steps"]:
        if step.get("uses", "").startswith("actions/checkout"):
            with_ = step["with"]
            assert with_.get("persist-credentials") is False
            if "repository" not in with_:
                assert with_["ref"] == "main"
        assert not step.get("uses", "").startswith(("actions/download-artifact",
                                                    "actions/create-github-app-token"))
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "lemmata gate rejudge" in runs
    for never in ("gate trusted", "gate export", "lake", "toolchain install", "${{"):
        assert never not in runs, never
    text = (WF / "gate-rejudge.yml").read_text(encoding="utf-8")
    for tainted in ("pull_request", "head_ref", "head_sha", "workflow_run"):
        assert tainted not in _steps_text(job) and f"github.event.{tainted}" not in text


def test_cli_trusted_run_id_judges_the_runs_export_and_merges_nothing_without_lean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lemmata gate trusted --run-id` end to end: the event comes from the REST API's run
    (read with the job's own token), the export is checked against it as for a
    workflow_run event, and with no toolchain here the signed verdict is a fail that is
    published and never merged."""
    import base64

    from click.testing import CliRunner

    from network.cli import main
    from network.gate.github.github_export import export_build
    from network.gate.sandbox.sandbox import Sandbox
    from tests.test_gate_workflow import (
        _author_route,
        _pr,
        _pr_repo,
        _proof_files,
        _toolchain,
        precheck_raw,
    )

    pem = tmp_path / "gate.pem"
    res = CliRunner().invoke(main, ["gate", "keygen", "--out", str(pem), "--key-id",
                                    "gate-test", "--valid-from", "2026-01-01"])
    assert res.exit_code == 0, res.output
    pub = m.PublicKey.model_validate_json(res.output)
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    art = tmp_path / "artifact"
    export_build(root, base, head, toolchain=_toolchain(), sandbox=Sandbox(), out=art,
                 pull_request=7)
    body = f"```precheck-attestation\n{precheck_raw(root, base, head)}\n```\n"
    monkeypatch.setenv("LEMMATA_GATE_KEY", pem.read_text())
    monkeypatch.setenv("GITHUB_TOKEN", "app-t0ken")
    monkeypatch.setenv("RUN_TOKEN", "run-t0ken")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    main_sha = "d" * 40
    with respx.mock(assert_all_called=False) as api:
        run = api.get(f"{API}/actions/runs/99").mock(httpx.Response(200, json=_run(head)))
        api.get(f"{API}/git/commits/{main_sha}").mock(
            httpx.Response(200, json={"tree": {"sha": "e" * 40}}))
        _author_route(api)
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, head, body=body)))
        api.get(f"{API}/git/ref/heads/main").mock(
            httpx.Response(200, json={"object": {"sha": main_sha}}))
        blobs = api.post(f"{API}/git/blobs").mock(httpx.Response(201, json={"sha": "1" * 40}))
        api.post(f"{API}/git/trees").mock(httpx.Response(201, json={"sha": "2" * 40}))
        api.post(f"{API}/git/commits").mock(httpx.Response(201, json={"sha": "3" * 40}))
        api.patch(f"{API}/git/refs/heads/main").mock(httpx.Response(200, json={}))
        api.post(f"{API}/statuses/{head}").mock(httpx.Response(201, json={}))
        merge = api.put(f"{API}/pulls/7/merge").mock(httpx.Response(200, json={}))
        api.get(f"{API}/pulls/7/reviews").mock(httpx.Response(200, json=[]))
        res = CliRunner().invoke(main, [
            "gate", "trusted", "--run-id", "99", "--repository", "lemmata/graph",
            "--run-token-env", "RUN_TOKEN", "--artifact", str(art), "--graph", str(root),
            "--base", base, "--key-id", "gate-test", "--no-fetch"])
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert out["verdict"] == "fail" and out["merged"] is None and not merge.called
    assert "toolchain-missing" in [f["code"] for f in out["findings"]]
    assert run.calls[0].request.headers["Authorization"] == "Bearer run-t0ken"
    published = m.attestation_from_json(
        base64.b64decode(json.loads(blobs.calls[0].request.content)["content"]))
    assert published.head_commit == head and published.signature is not None
