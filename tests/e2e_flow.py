"""The end-to-end network's fixture and agent script (issue 6, "The end-to-end test"),
shared by ``tests/test_e2e_network.py`` and the recorder
``tests/fixtures/e2e/make_recordings.py``.

The fixture graph is a git work tree with history (like ``tests/test_up.py``'s project):
a tutorial target whose one node is ``tutorial/tutorial`` (D-27), and a calibration
target ``calib`` (``calibration: true``: no step 9, no steward) whose root depends on two
open lemmas, ``add-zero`` (the agent proves it) and ``zero-add`` (the agent posts a
postmortem on it). The stand-in's answers for these bytes are in :data:`FIXTURES`,
written by running the real gate code through the launcher (``tests/e2e_launch.py
--record``); nothing here parses Lean.

The agent script uses nothing but the official ``mcp`` client over streamable HTTP.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.graphs import GraphBuilder, git_commit

REPO_ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = REPO_ROOT / "tests" / "e2e_launch.py"
#: the e2e test's own stand-in recordings (RecordedToolchain's fixtures folder)
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "e2e"

T = "calib"
PROVE = "add-zero"
POSTMORTEM_NODE = "zero-add"
PSEUDONYM = "e2e-agent"

TUTORIAL_STATEMENT = ("theorem Tutorial.double_lt (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n "
                      ":= by\n  sorry\n")
TUTORIAL_WITNESS = "theorem Tutorial.double_lt.witness : ∃ m n : Nat, m < n := ⟨0, 1, by decide⟩\n"
TUTORIAL_PROOF = ("theorem Tutorial.double_lt (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n "
                  ":= by\n  omega\n")
S_ROOT = ("/-- The calibration root: a known result. -/\n"
          "theorem Calib.main (m n : Nat) : m + 0 + (0 + n) = m + n := by\n  sorry\n")
S_ADD_ZERO = "theorem Calib.add_zero (n : Nat) : n + 0 = n := by\n  sorry\n"
S_ZERO_ADD = "theorem Calib.zero_add (n : Nat) : 0 + n = n := by\n  sorry\n"
P_ADD_ZERO = "theorem Calib.add_zero (n : Nat) : n + 0 = n := by\n  rfl\n"
#: witnesses of the statements' own hypotheses-existentials (Witness.lean's convention):
#: Calib.main has data binders m n, the others n; none has a hypothesis
W_MN = "theorem {decl}.witness : ∃ m n : Nat, True := ⟨0, 0, trivial⟩\n"
W_N = "theorem {decl}.witness : ∃ n : Nat, True := ⟨0, trivial⟩\n"
POSTMORTEM_YAML = ("route: rewrite with Nat.add_comm, then rfl\n"
                   "route_class: direct-estimate\n"
                   "outcome: exhausted\n"
                   "terminal_goal_state: '⊢ 0 + n = n'\n"
                   "failure_class: route-dead-ends\n"
                   "detail: rfl does not close 0 + n = n; induction on n would.\n")


def build_project(root: Path) -> Path:
    """The project work tree in ``root``: ``graph/`` with three commits of history and
    one commit outside it. Returns the graph folder."""
    b = GraphBuilder(root / "graph", graph_id="e2e-graph")
    b.base()
    b.target("tutorial", cls="tutorial", steward=None, title="Tutorial")
    b.node("tutorial", "tutorial", statement=TUTORIAL_STATEMENT, witness=TUTORIAL_WITNESS,
           declaration="Tutorial.double_lt", tutorial=True)
    git_commit(root, "the tutorial target")
    (root / "README.md").write_text("not part of the graph\n")
    git_commit(root, "a commit outside graph/")
    b.target(T, cls="calibration", calibration=True, steward=None,
             title="Calibration: addition with zero")
    b.node(T, "root", statement=S_ROOT, witness=W_MN.format(decl="Calib.main"),
           declaration="Calib.main", deps=[PROVE, POSTMORTEM_NODE])
    b.node(T, PROVE, statement=S_ADD_ZERO, witness=W_N.format(decl="Calib.add_zero"),
           declaration="Calib.add_zero")
    b.node(T, POSTMORTEM_NODE, statement=S_ZERO_ADD,
           witness=W_N.format(decl="Calib.zero_add"), declaration="Calib.zero_add")
    git_commit(root, "the calibration target")
    return root / "graph"


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get(url: str, timeout_s: float = 5.0) -> tuple[int, bytes]:
    """(status, body) of a GET; status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return 0, b""


# --- the launcher in a subprocess ---------------------------------------------------------


@dataclass
class Network:
    """One launcher subprocess (``tests/e2e_launch.py``) and where it listens.

    Attributes:
        proc: the process.
        api: the service's base URL.
        site: the static site's base URL.
        log: the file holding its standard output and error.
    """

    proc: subprocess.Popen[bytes]
    api: str
    site: str
    log: Path

    @property
    def port(self) -> int:
        """The service's port."""
        return int(self.api.rsplit(":", 1)[1])

    @property
    def site_port(self) -> int:
        """The site's port."""
        return int(self.site.rsplit(":", 1)[1])

    def output(self) -> str:
        """Everything it printed so far."""
        return self.log.read_text("utf-8", errors="replace")

    def stop(self, timeout_s: float = 30.0) -> int:
        """SIGINT (what Ctrl-C sends), then wait; the exit code. Kills it past the
        timeout and raises then."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError(f"the network did not stop on SIGINT:\n{self.output()}")


def launch(data: Path, graph: Path, log: Path, *, queue_interval_s: float = 0.2,
           fixtures: Path = FIXTURES, record: bool = False,
           ready_timeout_s: float = 60.0, ports: tuple[int, int] | None = None,
           plain: bool = False) -> Network:
    """Start the launcher on free loopback ports (or on ``ports``: service, site) and
    wait, bounded, until the service answers ``/info.json`` and the site answers ``/``.
    A free port taken between choosing it and binding it (``listen-failed``) is retried
    on fresh ports, twice at most. ``plain`` runs what `make run` runs (``python -m
    network.cli up``) instead of the launcher: no stand-in, and no Lean to be found
    (:func:`without_lean`).

    Raises:
        AssertionError: it exited or did not answer in time (its output attached).
    """
    for attempt in range(3):
        start = log.stat().st_size if log.exists() else 0
        try:
            return _launch_once(data, graph, log, queue_interval_s=queue_interval_s,
                                fixtures=fixtures, record=record,
                                ready_timeout_s=ready_timeout_s, ports=ports, plain=plain)
        except AssertionError:
            tail = log.read_bytes()[start:].decode("utf-8", errors="replace")
            if attempt == 2 or ports is not None or "listen-failed" not in tail:
                raise
    raise AssertionError("unreachable")


def without_lean(scratch: Path) -> dict[str, str]:
    """The environment with no Lean toolchain to be found: every PATH folder holding
    ``lean``, ``lake`` or ``elan`` dropped, and HOME a fresh folder (no ``~/.elan``)."""
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any((Path(d) / exe).exists() for exe in ("lean", "lake", "elan"))]
    home = scratch / "home-without-lean"
    home.mkdir(exist_ok=True)
    return dict(os.environ, PYTHONUNBUFFERED="1", PATH=os.pathsep.join(keep),
                HOME=str(home), PYTHONPATH=str(REPO_ROOT))


def _launch_once(data: Path, graph: Path, log: Path, *, queue_interval_s: float,
                 fixtures: Path, record: bool, ready_timeout_s: float,
                 ports: tuple[int, int] | None, plain: bool = False) -> Network:
    if ports is not None:
        port, site_port = ports
    else:
        port, site_port = free_port(), free_port()
        while site_port == port:
            site_port = free_port()
    if plain:  # `lemmata up` itself: no launcher, no stand-in, no toolchain
        cmd = [sys.executable, "-m", "network.cli", "up", "--data", str(data), "--graph",
               str(graph), "--port", str(port), "--site-port", str(site_port)]
        env = without_lean(data.parent)
    else:
        cmd = [sys.executable, str(LAUNCHER), "--data", str(data), "--graph", str(graph),
               "--port", str(port), "--site-port", str(site_port),
               "--queue-interval", str(queue_interval_s), "--fixtures", str(fixtures)]
        if record:
            cmd.append("--record")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                cwd=str(data.parent))
    net = Network(proc, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{site_port}", log)
    deadline = time.monotonic() + ready_timeout_s
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the launcher exited with {proc.returncode}:\n{net.output()}")
        if http_get(net.api + "/info.json", 2)[0] == 200 and http_get(net.site + "/", 2)[0] == 200:
            return net
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait(timeout=10)
            raise AssertionError(f"the network did not answer in {ready_timeout_s} s:\n"
                                 f"{net.output()}")
        time.sleep(0.1)


# --- the agent: the official mcp client over streamable HTTP ------------------------------


def payload(result: Any) -> Any:
    """A tool result's JSON; raises on a tool error with the error's text."""
    if getattr(result, "is_error", False):
        raise AssertionError(result.content[0].text)
    sc = getattr(result, "structured_content", None)
    if sc:
        return sc.get("result", sc) if isinstance(sc, dict) else sc
    return json.loads(result.content[0].text)


async def poll(call: Callable[[], Awaitable[Any]], done: Callable[[Any], bool],
               timeout_s: float, what: str, interval_s: float = 0.2) -> Any:
    """Call ``call`` until ``done(result)``; raises past ``timeout_s`` with the last answer."""
    import anyio

    deadline = time.monotonic() + timeout_s
    while True:
        got = await call()
        if done(got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not done after {timeout_s} s; last answer {got}")
        await anyio.sleep(interval_s)


def _final(job: dict[str, Any]) -> bool:
    return job["state"] not in ("queued", "running")


def require_pass(job: dict[str, Any], what: str) -> None:
    """Fail unless a precheck job passed; a missing recording is named as such."""
    hint = ""
    if job["state"] == "toolchain-missing":
        hint = ("\nThe stand-in has no recording for these bytes: re-run "
                "tests/fixtures/e2e/make_recordings.py if the fixture graph, the agent's "
                "texts or the workspace writer changed.")
    if job["state"] != "pass":
        raise AssertionError(f"{what} did not pass: {job}{hint}")


def _judged(sub: dict[str, Any]) -> bool:
    return sub["state"] in ("merged", "closed")


async def agent_session(api: str, *, merge_timeout_s: float = 60.0) -> dict[str, Any]:
    """An agent that knows only the MCP address: reads the frontier, earns a token on the
    tutorial node, claims a calibration node, prechecks, submits, waits for the merge,
    reads its ledger line (server_info's ledger counts and the node's derived state: no
    tool reads ledger lines themselves), then posts a postmortem on another node and waits
    for that merge too. Returns every answer by step name."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    out: dict[str, Any] = {}
    async with Client(streamable_http_client(f"{api}/mcp")) as c:
        async def call(tool: str, **args: Any) -> Any:
            return payload(await c.call_tool(tool, args))

        out["frontier"] = await call("list_frontier")
        dco = (await call("get_dco"))["version"]
        job = await call("precheck_submission", target_id="tutorial", node_id="tutorial",
                         artifact_type="proof", text=TUTORIAL_PROOF)
        out["tutorial"] = await poll(lambda: call("get_precheck", job_id=job["job_id"]),
                                     _final, 60, "tutorial precheck")
        require_pass(out["tutorial"], "the tutorial precheck")
        out["receipt"] = await call("get_token", pseudonym=PSEUDONYM, dco=dco,
                                    proof={"kind": "precheck", "job_id": job["job_id"]})
        token = out["receipt"]["token"]
        out["claim"] = await call("claim_node", target_id=T, node_id=PROVE, ttl=7200,
                                  token=token)
        job2 = await call("precheck_submission", target_id=T, node_id=PROVE,
                          artifact_type="proof", text=P_ADD_ZERO, token=token)
        out["precheck"] = await poll(lambda: call("get_precheck", job_id=job2["job_id"]),
                                     _final, 60, "proof precheck")
        require_pass(out["precheck"], "the proof's precheck")
        sub = await call("submit_proof", precheck_id=job2["job_id"], token=token)
        out["submission"] = sub
        out["merged"] = await poll(lambda: call("get_submission", submission_id=sub["id"]),
                                   _judged, merge_timeout_s, "the proof's merge")
        # the post-merge job (merge record, ledger, products) lands just after the merge
        out["info"] = await poll(lambda: call("server_info"),
                                 lambda i: PSEUDONYM in i.get("ledger_identities", {}),
                                 merge_timeout_s, "the ledger line in server_info")
        out["node"] = await call("get_node", target_id=T, node_id=PROVE, include=[])
        pm = await call("submit_postmortem", target_id=T, node_id=POSTMORTEM_NODE,
                        yaml=POSTMORTEM_YAML, token=token)
        out["postmortem"] = pm
        out["postmortem_merged"] = await poll(
            lambda: call("get_submission", submission_id=pm["submission_id"]),
            _judged, merge_timeout_s, "the postmortem's merge")
    return out


async def agent_reads(api: str, token: str, ids: list[str]) -> dict[str, Any]:
    """The read part of the script: frontier, both nodes, server_info (ledger counts),
    the submissions by id and the agent's own submissions."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(streamable_http_client(f"{api}/mcp")) as c:
        async def call(tool: str, **args: Any) -> Any:
            return payload(await c.call_tool(tool, args))

        return {
            "frontier": await call("list_frontier"),
            "node": await call("get_node", target_id=T, node_id=PROVE, include=[]),
            "pm_node": await call("get_node", target_id=T, node_id=POSTMORTEM_NODE,
                                  include=[]),
            "target": await call("get_target", target_id=T),
            "info": await call("server_info"),
            "submissions": [await call("get_submission", submission_id=i) for i in ids],
            "mine": await call("get_my_submissions", token=token),
        }
