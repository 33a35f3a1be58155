"""Issue 6's end-to-end test: the network started the way ``make run`` starts it, in a
subprocess on free loopback ports (``tests/e2e_launch.py``: ``network.up.run`` with the
arguments ``lemmata up`` passes, the recorded stand-in injected from
``tests/fixtures/e2e``), and a scripted agent using nothing but the official ``mcp``
client over streamable HTTP (tests/e2e_flow.py):

1. reads the frontier; earns a token on the tutorial node; claims a node of the
   calibration target; prechecks; submits; waits for the merge; reads its ledger line;
   posts a postmortem on another node and waits for that merge too;
2. the rebuilt site shows the proved node, the postmortem and the ledger line;
3. SIGINT stops the network cleanly (exit 0, the clean-stop line); a restart on the same
   data directory re-seeds nothing, and the read part of the script sees everything that
   was merged.

No MCP tool reads ledger lines themselves (D-28 has none): the agent reads its ledger
count from ``server_info`` (the info.json product's ``ledger_identities``); the line
itself is checked on the site's contributor page and in the forge's ``ledger/`` files.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pygit2
import pytest

from tests.e2e_flow import (
    POSTMORTEM_NODE,
    PROVE,
    PSEUDONYM,
    Network,
    T,
    agent_reads,
    agent_session,
    build_project,
    http_get,
    launch,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLEAN_STOP = "stopped cleanly; `make run` resumes this network."


def _site_page(net: Network, path: str, want: str, timeout_s: float = 30.0) -> str:
    """The site page at ``path`` once it contains ``want`` (the queue rebuilds the site
    after each pass that moved main); fails with the page past the timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        status, body = http_get(f"{net.site}/{path}")
        text = body.decode("utf-8", errors="replace")
        if status == 200 and want in text:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"{path}: {want!r} not shown after {timeout_s} s "
                                 f"(status {status})\n{text[:2000]}")
        time.sleep(0.2)


def _main_ledger(forge: Path) -> list[dict[str, Any]]:
    """The ledger-line records on the forge's main."""
    repo = pygit2.Repository(str(forge))
    tree = repo.revparse_single("refs/heads/main").peel(pygit2.Commit).tree
    if "ledger" not in tree:
        return []
    out = [json.loads(repo.get(e.id).data) for e in repo.get(tree["ledger"].id)]
    return [r for r in out if r.get("schema") in ("ledger-line/v1", "ledger-line/v2")]


def _until(fn: Any, done: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        got = fn()
        if done(got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: last {got}")
        time.sleep(0.2)


def _check_reads(reads: dict[str, Any], ids: list[str]) -> None:
    """What the read part of the script must see once both merges are in."""
    frontier = {(e["target"], e["node"]) for e in reads["frontier"]["nodes"]}
    assert (T, PROVE) not in frontier and (T, POSTMORTEM_NODE) in frontier, frontier
    assert reads["node"]["state"]["status"] == "proved", reads["node"]["state"]
    assert "Proof" in reads["node"]["files"]
    [pm] = [a for a in reads["pm_node"]["attempts"] if a["kind"] == "postmortem"]
    assert pm["who"] == PSEUDONYM and pm["postmortem"]["route_class"] == "direct-estimate"
    rows = {r["id"]: r for r in reads["target"]["graph"]["nodes"]} \
        if isinstance(reads["target"]["graph"]["nodes"], list) \
        else reads["target"]["graph"]["nodes"]
    assert rows[PROVE]["status"] == "proved"
    assert reads["info"]["ledger_identities"].get(PSEUDONYM, 0) >= 1, reads["info"]
    assert [s["state"] for s in reads["submissions"]] == ["merged", "merged"]
    assert all(s["attestations"] and s["attestations"][0]["verdict"] == "pass"
               for s in reads["submissions"]), reads["submissions"]
    mine = reads["mine"]
    assert not mine["open"], mine
    assert {s["id"]: s["state"] for s in mine["recent"]} == dict.fromkeys(ids, "merged")


def test_make_run_network_serves_an_agent_session_and_resumes(tmp_path: Path) -> None:
    graph = build_project(tmp_path / "project")
    data = tmp_path / "data"
    log = tmp_path / "launcher.log"

    net = launch(data, graph, log)
    try:
        out = anyio.run(agent_session, net.api)
        # the frontier the agent started from
        entries = {(e["target"], e["node"]) for e in out["frontier"]["nodes"]}
        assert {(T, PROVE), (T, POSTMORTEM_NODE)} <= entries, entries
        # a token earned on the tutorial node, with a service-signed precheck
        assert out["tutorial"]["state"] == "pass" and out["tutorial"]["tutorial"]
        assert out["tutorial"]["attestation"]["signature"]["kind"] == "service"
        assert out["receipt"]["token"].startswith("lmt_") and out["receipt"]["recovery_code"]
        # claimed, prechecked, submitted, merged
        assert out["claim"]["pseudonym"] == PSEUDONYM
        assert out["precheck"]["state"] == "pass", out["precheck"]
        assert out["submission"]["state"] == "open"
        merged = out["merged"]
        assert merged["state"] == "merged", merged
        assert [a["verdict"] for a in merged["attestations"]] == ["pass"]
        assert out["info"]["ledger_identities"][PSEUDONYM] == 1
        assert out["node"]["state"]["status"] == "proved", out["node"]["state"]
        # the postmortem merged too
        assert out["postmortem"]["submission_id"]
        assert out["postmortem_merged"]["state"] == "merged", out["postmortem_merged"]
        ids = [out["submission"]["id"], out["postmortem"]["submission_id"]]
        token = out["receipt"]["token"]

        # the ledger line: in the record on main, counted by server_info, shown on the site
        lines = _until(lambda: _main_ledger(data / "forge.git"),
                       lambda ls: len(ls) >= 2, 30, "the ledger lines on main")
        mine = sorted((x["line"], x["node"]) for x in lines if x["identity"] == PSEUDONYM)
        assert mine == [("attempts", POSTMORTEM_NODE), ("proof", PROVE)], lines
        first = anyio.run(agent_reads, net.api, token, ids)
        _check_reads(first, ids)
        assert first["info"]["ledger_identities"][PSEUDONYM] == 2

        # the rebuilt site
        node_page = _site_page(net, f"targets/{T}/nodes/{PROVE}.html",
                               '<span class="status st-proved"><span class="glyph" aria-hidden="true">✔</span> proved</span>')
        assert f"<code>targets/{T}/nodes/{PROVE}/Proof.lean</code></a>, merged" in node_page
        assert "<strong>Verdict: pass</strong>" in node_page
        pm_page = _site_page(net, f"targets/{T}/nodes/{POSTMORTEM_NODE}.html",
                             "Postmortems by route class")
        assert re.search(r"<td>direct-estimate</td><td>1</td>", pm_page), pm_page
        assert "1 attempt on the record" in pm_page
        # both lines, the proof's and the postmortem's: the site rebuilt after the first
        # merge already names targets/…/nodes/, and under load the second rebuild lags
        person = _site_page(net, f"contributors/{PSEUDONYM}.html", "<td>attempts</td>")
        assert "<td>proof</td>" in person and "<td>attempts</td>" in person
        main_before = str(pygit2.Repository(str(data / "forge.git"))
                          .references["refs/heads/main"].target)
    finally:
        rc = net.stop()
    assert rc == 0, net.output()
    assert CLEAN_STOP in net.output()

    # restart on the same data directory and ports (a second `make run`): nothing
    # re-seeded, everything merged is there
    net2 = launch(data, graph, log, ports=(net.port, net.site_port))
    try:
        assert "resumed at" in net2.output().split("[2/5]")[-1]
        again = anyio.run(agent_reads, net2.api, token, ids)
        _check_reads(again, ids)
        assert again["info"]["ledger_identities"] == first["info"]["ledger_identities"]
        main_after = str(pygit2.Repository(str(data / "forge.git"))
                         .references["refs/heads/main"].target)
        assert main_after == main_before
        _site_page(net2, f"targets/{T}/nodes/{PROVE}.html",
                   '<span class="status st-proved"><span class="glyph" aria-hidden="true">✔</span> proved</span>')
    finally:
        rc2 = net2.stop()
    assert rc2 == 0, net2.output()
    assert net2.output().count(CLEAN_STOP) == 2
