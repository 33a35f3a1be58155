"""Issue 35, item 3: nothing a contributor declares is lost (D-23 v3.37).

A postmortem whose YAML declares ``disclosure: {method: agent, models: [...]}`` lands with
exactly that disclosure in its attestation and its ledger line on every submission path:
POST /postmortems over HTTP, the ``submit_postmortem`` MCP tool through the in-process
app, and a plain-git push. Where the record's declaration and the pull request body's
``lemmata-disclosure`` block differ, the gate refuses it (``disclosure-disagrees``) and
rewrites neither. Before this, the attestation said ``undisclosed``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import yaml
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

from network import proc
from network.api.identity import identity
from network.gate import attestation as A
from network.gate.disclosure import resolve
from network.record import models as m
from tests.api_flow_support import FlowNet, payload

DECLARED = {"method": "agent", "models": ["claude-opus-4", "gpt-5"], "framework": "harness-x"}
PM = {"route": "strong induction", "route_class": "induction", "outcome": "exhausted",
      "terminal_goal_state": "n : Nat\n⊢ P n", "failure_class": "missing-library",
      "disclosure": DECLARED}


def _landed(net: FlowNet, who: str) -> tuple[m.Attestation, m.LedgerLine]:
    """The merged postmortem's attestation and ledger line on main."""
    items = net.run_queue()
    assert items and items[0].verdict == "pass", items
    g = net.main_graph()
    atts = [rf.record for rf in g.attestations if rf.record.artifact_kind == "postmortem"]
    assert len(atts) == 1, atts
    lines = [rf.record for rf in g.ledger if isinstance(rf.record, m.LedgerLine)
             and rf.record.line == "attempts" and rf.record.identity == who]
    assert len(lines) == 1, lines
    return atts[0], lines[0]


def _assert_exact(att: m.Attestation, line: m.LedgerLine) -> None:
    want = m.Disclosure.model_validate(DECLARED)
    assert att.disclosure == want, att.disclosure
    assert att.disclosure.method == "agent"
    assert isinstance(line, m.LedgerLineV2) and line.disclosure == want, line


def _token(client: TestClient, who: str) -> str:
    svc = client.app.state.svc  # type: ignore[attr-defined]
    return str(identity.issue_operator_token(svc, pseudonym=who, dco=svc.settings.dco_version,
                                             operator="op")["token"])


def test_over_http_the_declared_disclosure_lands(tmp_path: Path) -> None:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        tok = _token(client, "ann")
        r = client.post("/postmortems", json={"target_id": "demo", "node_id": "mid",
                                              "yaml": yaml.safe_dump(PM)},
                        headers={"Authorization": f"Bearer {tok}"})
        assert r.status_code == 201, r.text
    _assert_exact(*_landed(net, "ann"))


def test_over_mcp_the_declared_disclosure_lands(tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    net = FlowNet.create(tmp_path, RecordedToolchain)
    with TestClient(net.app()) as client:
        tok = _token(client, "ann")
        app: Any = client.app

        async def call() -> Any:
            transport = httpx.ASGITransport(app=app)
            async with (
                httpx.AsyncClient(transport=transport, base_url="http://testserver") as http,
                Client(streamable_http_client("http://testserver/mcp",
                                              http_client=http)) as mcp,
            ):
                return await mcp.call_tool("submit_postmortem", {
                    "target_id": "demo", "node_id": "mid", "yaml": yaml.safe_dump(PM),
                    "token": tok})

        got = payload(anyio.run(call))
        assert got["kind"] == "postmortem", got
    _assert_exact(*_landed(net, "ann"))


def _git(*args: str, cwd: Path | None = None) -> proc.Completed:
    return proc.run(["git", *args], cwd=cwd, timeout_s=120,
                    git_env={"GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": "ann",
                             "GIT_AUTHOR_EMAIL": "ann@example.invalid",
                             "GIT_COMMITTER_NAME": "ann",
                             "GIT_COMMITTER_EMAIL": "ann@example.invalid"})


PUSHED = "targets/demo/nodes/mid/attempts/20260921T141320Z-ann-postmortem.yaml"


def _push(tmp_path: Path, net: FlowNet, message: str, text: str | None = None) -> None:
    """ann pushes ``text`` (default: the postmortem PM declares) at :data:`PUSHED` over
    plain git, with ``message`` as the commit message, and the push opens its pull
    request."""
    path = PUSHED
    if text is None:
        text = yaml.safe_dump({"schema": "d13/v1", "node": "demo/mid", "contributor": "ann",
                               **PM}, sort_keys=False)
    with net.serve() as (url, app):
        svc = app.state.svc
        tok = identity.issue_operator_token(svc, pseudonym="ann", dco=svc.settings.dco_version,
                                            operator="op")["token"]
        work = tmp_path / "work"
        assert _git("clone", f"{url}/git/graph.git", str(work)).rc == 0
        f = work / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, "utf-8")
        assert _git("add", path, cwd=work).rc == 0
        assert _git("commit", "-q", "-m", message, cwd=work).rc == 0
        host = url.removeprefix("http://")
        done = _git("push", f"http://ann:{tok}@{host}/git/graph.git",
                    "HEAD:submit/mid-postmortem", cwd=work)
        assert done.rc == 0, done.err


def test_over_plain_git_the_declared_disclosure_lands(tmp_path: Path) -> None:
    net = FlowNet.create(tmp_path, RecordedToolchain)
    _push(tmp_path, net, "postmortem of demo/mid")
    _assert_exact(*_landed(net, "ann"))


def test_a_body_that_disagrees_with_the_record_is_refused(tmp_path: Path) -> None:
    """A plain-git push whose commit message (the pull request body) declares another
    disclosure than its postmortem is refused at step 2, and nothing is rewritten."""
    net = FlowNet.create(tmp_path, RecordedToolchain)
    other = A.disclosure_block(m.Disclosure(method="human"))
    _push(tmp_path, net, f"postmortem of demo/mid\n\n{other}")
    items = net.run_queue()
    assert items and items[0].verdict == "fail", items
    out = items[0].outcome
    assert out is not None
    first = out.runs[0].first_failing
    assert first is not None and (first.step, first.code) == (2, "disclosure-disagrees")
    att = out.runs[0].attestation
    assert att is not None and att.disclosure == m.Disclosure.model_validate(DECLARED)
    assert not [rf for rf in net.main_graph().ledger
                if isinstance(rf.record, m.LedgerLine) and rf.record.line == "attempts"]


def test_the_rule_keeps_each_declaration_and_refuses_two_that_differ() -> None:
    mine = m.Disclosure.model_validate(DECLARED)
    body = m.Disclosure(method="mixed", models=["x"])
    assert resolve(None, None, path="p") == (None, None)
    assert resolve(body, None, path="p") == (body, None)
    assert resolve(None, mine, path="p") == (mine, None)
    assert resolve(mine, mine, path="p") == (mine, None)
    got, diag = resolve(body, mine, path="p")
    assert got == mine and diag is not None and diag.code == "disclosure-disagrees"
    assert json.dumps(DECLARED["models"])[1:-1].split(",")[0] in diag.message
    # a declaration over the body block's cap is refused, never carried (an attestation
    # and each ledger line would hold it whole)
    huge = m.Disclosure(method="agent", models=["m" * 100] * 60)
    got, diag = resolve(None, huge, path="p")
    assert got is None and diag is not None and diag.code == "disclosure-too-large"
    assert len(diag.message) < 200
