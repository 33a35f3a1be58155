"""Issue 11's end-to-end test: a newcomer on the embedded defaults with no Lean.

`lemmata up` runs exactly as `make run` runs it (``python -m network.cli up``), on free
loopback ports, on a copy of the repository's own sample graph, with no toolchain to be
found and no stand-in. Then, as a new user would:

1. the operator issues two tokens with the CLI (``lemmata token issue``) on the running
   network's data directory;
2. agent A, using nothing but the official ``mcp`` client, claims the root of the
   calibration target, and agent B claims the same node (claims are advisory, D-25);
3. A prechecks a broken proof: the answer says up front that proofs are not checked
   here, and the finished job carries the step-2 findings and ends ``toolchain-missing``;
4. A submits a postmortem, which merges through the queue and shows on the rebuilt site;
5. A's proof prechecks ``toolchain-missing``: it checked nothing, so it is no pass, and
   ``submit_proof`` refuses it ``precheck-not-passed`` by the bundle with that attestation
   as by its ``precheck_id`` (issue 40, D-4, D-28): no pull request opens to wait;
6. a third identity clones the forge over git's smart HTTP, commits a postmortem and
   pushes ``submit/<name>`` with its token: a pull request appears under its pseudonym.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.e2e_flow import REPO_ROOT, http_get, launch, payload, poll, without_lean
from tests.graphs import git_commit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

T, NODE = "infinite-primes", "root"
BROKEN = ("import Mathlib\n\nnamespace InfinitePrimes\n\n"
          "axiom cheat : ∀ n : ℕ, ∃ p, n ≤ p ∧ Nat.Prime p\n\n"
          "/-- For every natural number `n` there is a prime `p` with `n ≤ p`. -/\n"
          "theorem infinite_primes : ∀ n : ℕ, ∃ p, n ≤ p ∧ Nat.Prime p := cheat\n\n"
          "end InfinitePrimes\n")
STATEMENT = (REPO_ROOT / "graph" / "targets" / T / "nodes" / NODE / "Statement.lean"
             ).read_text("utf-8")
PROOF = STATEMENT.replace(":= by\n  sorry\n", ":= by\n  intro n\n"
                          "  obtain ⟨p, hp, hprime⟩ := Nat.exists_infinite_primes n\n"
                          "  exact ⟨p, hp, hprime⟩\n")
assert PROOF != STATEMENT
POSTMORTEM = ("route: Euclid's product-plus-one, written out by hand\n"
              "route_class: reduction-to-known\n"
              "outcome: abandoned-early\n"
              "terminal_goal_state: |\n  ⊢ ∃ p, n ≤ p ∧ Nat.Prime p\n"
              "failure_class: budget-exhausted\n"
              "detail: stopped before Nat.minFac; no Lean on this machine to check it.\n")


def _issue_token(data: Path, pseudonym: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "network.cli", "token", "issue", "--pseudonym", pseudonym,
         "--dco", "--operator", "test-operator", "--json", "--data", str(data)],
        capture_output=True, text=True, timeout=120, env=without_lean(data.parent),
        cwd=str(data.parent), check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    return str(json.loads(out.stdout)["token"])


async def _session(api: str, tok_a: str, tok_b: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with Client(streamable_http_client(f"{api}/mcp")) as c:
        async def call(tool: str, **args: Any) -> Any:
            return payload(await c.call_tool(tool, args))

        out["info"] = await call("server_info")
        out["claim_a"] = await call("claim_node", target_id=T, node_id=NODE, ttl=3600,
                                    token=tok_a)
        out["claim_b"] = await call("claim_node", target_id=T, node_id=NODE, ttl=3600,
                                    token=tok_b)
        out["claims_a"] = await call("list_my_claims", token=tok_a)
        job = await call("precheck_submission", target_id=T, node_id=NODE,
                         artifact_type="proof", text=BROKEN, token=tok_a)
        out["queued"] = job
        out["precheck"] = await poll(lambda: call("get_precheck", job_id=job["job_id"]),
                                     lambda j: j["state"] not in ("queued", "running"),
                                     120, "the broken proof's precheck")
        pm = await call("submit_postmortem", target_id=T, node_id=NODE, yaml=POSTMORTEM,
                        token=tok_a)
        out["postmortem"] = await poll(
            lambda: call("get_submission", submission_id=pm["submission_id"]),
            lambda s: s["state"] in ("merged", "closed"), 120, "the postmortem's merge")
        # a proof: its precheck ends toolchain-missing with no other finding; it checked
        # nothing, so both submit paths refuse it alike and nothing opens (issue 40)
        job2 = await call("precheck_submission", target_id=T, node_id=NODE,
                          artifact_type="proof", text=PROOF, token=tok_a)
        out["proof_precheck"] = await poll(
            lambda: call("get_precheck", job_id=job2["job_id"]),
            lambda j: j["state"] not in ("queued", "running"), 120, "the proof's precheck")
        by_bundle = await c.call_tool("submit_proof", {
            "target_id": T, "node_id": NODE, "artifact_type": "proof", "text": PROOF,
            "attestation": json.dumps(out["proof_precheck"]["attestation"]), "token": tok_a})
        by_id = await c.call_tool("submit_proof", {"precheck_id": job2["job_id"],
                                                   "token": tok_a})
        out["proof_refusals"] = [(r.is_error, r.content[0].text) for r in (by_bundle, by_id)]
        out["mine"] = await call("get_my_submissions", token=tok_a)
    return out


def _git(*args: str, cwd: Path | None = None, env: dict[str, str]) -> str:
    done = subprocess.run(["git", *args], cwd=str(cwd) if cwd else None, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"git {args[0]}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def test_a_newcomer_without_lean_works_on_the_embedded_defaults(tmp_path: Path) -> None:
    project = tmp_path / "clone"
    shutil.copytree(REPO_ROOT / "graph", project / "graph")
    git_commit(project, "a clone's graph")
    data = project / ".lemmata"
    net = launch(data, project / "graph", tmp_path / "up.log", plain=True,
                 ready_timeout_s=120)
    try:
        deadline = time.monotonic() + 30  # the banner follows the first answers
        while "Ctrl-C stops everything" not in net.output() and time.monotonic() < deadline:
            time.sleep(0.1)
        banner = net.output()
        assert "Context impl" not in banner  # no library chatter in the banner
        assert "NOT checkable here" in banner and "lemmata token issue" in banner, banner
        assert f"claim_node on the calibration node `{T}/{NODE}`" in banner  # issue 35, item 7
        tok_a = _issue_token(data, "newcomer-a")
        tok_b = _issue_token(data, "newcomer-b")
        got = anyio.run(_session, net.api, tok_a, tok_b)

        assert got["info"]["service"]["proofs"]["checkable"] is False
        assert got["claim_a"]["claim_id"] and got["claim_b"]["claim_id"]
        assert got["queued"]["checkable_here"] is False and "notice" in got["queued"]
        job = got["precheck"]
        # issue 35 item 6: a finding that needs no Lean (step 2's axiom-declared) fails the
        # precheck even where no toolchain could check the proof
        assert job["state"] == "fail" and job["code"] == "axiom-declared", job
        assert job["attestation"]["verdict"] == "precheck-fail", job["attestation"]
        codes = json.dumps(job["diagnostics"])
        assert "axiom-declared" in codes, job["diagnostics"]
        assert "lemmata token issue" in job["next"]
        assert got["postmortem"]["state"] == "merged", got["postmortem"]
        assert got["proof_precheck"]["state"] == "toolchain-missing", got["proof_precheck"]
        # issue 35, item 6: the diagnostics say what the state says, not "fail"
        assert got["proof_precheck"]["diagnostics"]["verdict"] == "toolchain-missing"
        for is_error, text in got["proof_refusals"]:  # one answer on both paths
            assert is_error and "precheck-not-passed" in text, text
            assert "no proof was checked" in text, text
        assert "lemmata token issue" in got["proof_refusals"][1][1]  # this service: no Lean
        assert not [s for s in got["mine"]["open"] if s.get("kind") == "proof"], got["mine"]

        # the third user class: plain git over the forge's smart HTTP
        tok_c = _issue_token(data, "newcomer-c")
        env = dict(without_lean(tmp_path), GIT_TERMINAL_PROMPT="0",
                   GIT_AUTHOR_NAME="newcomer-c", GIT_AUTHOR_EMAIL="c@example.invalid",
                   GIT_COMMITTER_NAME="newcomer-c", GIT_COMMITTER_EMAIL="c@example.invalid")
        work = tmp_path / "work"
        _git("clone", f"{net.api}/git/graph.git", str(work), env=env)
        pm_path = work / "targets" / T / "nodes" / NODE / "attempts" / \
            "20261201T000000Z-newcomer-c-postmortem.yaml"
        pm_path.parent.mkdir(parents=True, exist_ok=True)
        # a whole record: step 2 runs at push time (issue 35, item 4), and a file of the
        # service's body alone (no schema, node, contributor) is refused there
        pm_path.write_text(f"schema: d13/v1\nnode: {T}/{NODE}\ncontributor: newcomer-c\n"
                           + POSTMORTEM.replace("by hand", "by hand, over git"), "utf-8")
        _git("add", "-A", cwd=work, env=env)
        _git("commit", "-qm", f"postmortem of {T}/{NODE}", "-s", cwd=work, env=env)
        url = net.api.replace("http://", f"http://newcomer-c:{tok_c}@") + "/git/graph.git"
        pushed = _git("push", url, "HEAD:submit/newcomer-c-postmortem", cwd=work, env=env)
        assert "submit/newcomer-c-postmortem" in pushed, pushed
        status, body = http_get(f"{net.api}/submissions.json")
        assert status == 200
        assert any(s["pseudonym"] == "newcomer-c"
                   for s in json.loads(body)["submissions"]), body[:2000]

        deadline = time.monotonic() + 60
        while True:
            status, body = http_get(f"{net.site}/targets/{T}/nodes/{NODE}.html")
            if status == 200 and b"reduction-to-known" in body:
                break
            assert time.monotonic() < deadline, f"the site never showed the postmortem " \
                                                f"({status})"
            time.sleep(0.5)
    finally:
        rc = net.stop()
    assert rc == 0, net.output()
