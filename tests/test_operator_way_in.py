"""The operator's way in leads to acts (issue 40; ruling 14, D-32 v3.33, D-35 v3.33).

On a network with no GitHub app, like ``make run``'s, the operator's command (``lemmata
token issue``, ``lemmata session link``) is how a person gets in. The identity it makes is
bound by ``identities/<pseudonym>.yaml`` with no login, signed by the network's approval
key and filed by the command as a pull request; once merged, that identity, and no
other, holds the roles the graph gives its pseudonym. A steward made that way confirms
literature, approves words, shelves and steps down; the graph's curator ``operator`` gets
in the same way and acts; a stranger taking either pseudonym is still refused; every
refusal names a way in this network has; and ``session link`` prints the running
network's own addresses, read from the data folder's ``service.json``.

The network is the repository's own graph/ (``make run``'s) on a LocalForge inside a data
folder laid out as ``lemmata up`` lays it out (``forge.git``, ``keys/``, ``state.db``,
``service.json``), its keys published on main; the service runs in process on the real
clock (FastAPI's TestClient on ``https://testserver``, so the Secure session cookie is
kept as a browser keeps it), and the operator's commands are the real CLI on that folder.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from network import up
from network.api.app import create_app
from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller
from network.api.settings import ServiceSettings
from network.cli import main
from network.errors import CATALOG, LemmataError
from network.forge.local import LocalForge
from network.gate.queue.queue import process_queue
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive
from network.record.approvals import approvals_of
from network.record.read.loader import load_graph
from tests.api_support import github_verifier
from tests.standin import RecordedToolchain

REPO = Path(__file__).resolve().parent.parent
SERVICE = "https://testserver"
SITE = "https://site.test"
ORIGIN = {"Origin": SITE}
ERDOS = "erdos-11"
SHELVED = "variant-two-pow-two"
WORDS = {"real_name": "Erin Verifier", "affiliation": "Somewhere University",
         "commitment": "I will read and write up whatever closes on this problem."}
STATEMENT = f"targets/{ERDOS}/nodes/root/Statement.lean"
LIT = {"target_id": ERDOS, "node_id": "root", "status": "open",
       "summary": "Open, as the problem's page says.",
       "references": [{"title": "Erdős problem 11", "url": "https://www.erdosproblems.com/11"}]}
ENV_NAMES = ("LEMMATA_PUBLIC_URL", "LEMMATA_SITE_ORIGIN", "LEMMATA_GRAPH",
             "LEMMATA_DATA_DIR", "LEMMATA_DATABASE_URL", "LEMMATA_GITHUB_CLIENT_ID")


@dataclass
class Net:
    """A ``make run``-like network: its data folder, service, forge and keys."""

    data: up.DataDir
    client: TestClient
    app: Any
    forge: LocalForge
    keys: dict[str, Any]

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def cli(self, *args: str) -> Result:
        """The operator's command on the network's data folder."""
        return CliRunner().invoke(main, [*args, "--data", str(self.data.root)])

    def ok(self, *args: str) -> dict[str, Any]:
        r = self.cli(*args, "--json")
        assert r.exit_code == 0, r.output
        return json.loads(r.output)  # type: ignore[no-any-return]

    def browser(self) -> TestClient:
        """A browser on the service: an empty cookie jar."""
        return TestClient(self.app, base_url=SERVICE)

    def merge_all(self) -> list[Any]:
        gate_id, gate_key = self.keys["gate"]
        return process_queue(self.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                             gate_key=gate_key, key_id=gate_id)

    def main(self) -> Any:
        return load_graph(self.forge.path, self.forge.main_sha())


@pytest.fixture(scope="module")
def make_run_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's graph/, as ``make run`` seeds it."""
    root = tmp_path_factory.mktemp("make-run") / "graph"
    shutil.copytree(REPO / "graph", root)
    return root


@pytest.fixture()
def net(tmp_path: Path, make_run_graph: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Net]:
    for name in ENV_NAMES:  # the operator sets nothing: the folder says it all
        monkeypatch.delenv(name, raising=False)
    data = up.DataDir(tmp_path / ".lemmata")
    data.root.mkdir()
    data.bind_database(data.database_url, given=False)
    keys = up.ensure_keys(data)
    LocalForge.seed(data.forge, make_run_graph, when=int(time.time()) - 3600)
    settings = ServiceSettings(data_dir=data.root, database_url=data.database_url,
                               graph=data.forge, public_url=SERVICE, site_origin=SITE)
    service_json = data.root / up.SERVICE_FILE  # the addresses, as `lemmata up` records them
    service_json.write_text(json.dumps({**json.loads(service_json.read_text()),
                                        "public_url": SERVICE, "site_origin": SITE}))
    app = create_app(settings, graph_loader=data.graph_provider(), keys=keys,
                     github_verifier=github_verifier)  # GitHub proves strangers' logins
    with TestClient(app, base_url=SERVICE) as client:
        forge = LocalForge(data.forge, app.state.svc.sessions)
        up.publish_keys(forge, keys, "2026-01-01")
        app.state.svc.forge = forge
        yield Net(data, client, app, forge, keys)


def csrf(c: TestClient) -> dict[str, str]:
    """What the site sends with an act: its Origin and a fresh CSRF token."""
    body = c.get("/session", headers=ORIGIN).json()
    assert body["signed_in"], body
    return {**ORIGIN, "X-CSRF-Token": str(body["csrf_token"])}


def refused(r: Any, code: str) -> dict[str, Any]:
    body: dict[str, Any] = r.json()
    assert body.get("code") == code, r.text
    assert r.status_code == CATALOG[code].http_status, r.text
    return body


def signed_in(n: Net, pseudonym: str) -> TestClient:
    """A browser signed in through the link ``lemmata session link`` prints."""
    link = n.ok("session", "link", "--pseudonym", pseudonym, "--operator", "olga")
    assert link["url"].startswith(f"{SERVICE}/auth/link?"), link
    assert link["return_to"] == f"{SITE}/"
    c = n.browser()
    r = c.get(link["url"], follow_redirects=False)
    assert r.status_code == 302 and r.headers["location"] == f"{SITE}/", r.text
    return c


def passed(items: list[Any], count: int) -> None:
    assert len(items) == count, items
    assert all(i.verdict == "pass" and i.merge_sha for i in items), \
        [(i.verdict, i.notes) for i in items]


def words_and_literature(n: Net) -> tuple[str, str]:
    """An agent (operator-issued token) proposes a literature status and a gloss of
    erdos-11's root; both merge. Returns their graph paths."""
    tok = n.ok("token", "issue", "--pseudonym", "pat", "--dco", "--operator", "olga")
    assert "binding" not in tok  # no role: nothing to bind
    auth = {"Authorization": f"Bearer {tok['token']}"}
    lit = n.client.post("/literature", json=LIT, headers=auth)
    assert lit.status_code == 201, lit.text
    gloss = n.client.post("/glosses", json={
        "subject": STATEMENT, "label": "odd numbers and powers of two",
        "text": "$$\\forall n\\ \\mathrm{odd}, \\exists k\\, p : n = p + 2^k$$ Every odd "
                "number is a prime plus a power of two."}, headers=auth)
    assert gloss.status_code == 201, gloss.text
    passed(n.merge_all(), 2)
    return lit.json()["paths"][0], gloss.json()["paths"][0]


def test_a_steward_made_by_the_operators_command_carries_out_steward_acts(net: Net) -> None:
    lit, gloss = words_and_literature(net)
    made = net.ok("token", "issue", "--pseudonym", "erin-v", "--dco", "--operator", "olga")
    assert made["created"] and "binding" not in made
    browser = signed_in(net, "erin-v")
    # the link filed the identity's binding, in its own name, signed by the approval key
    link = net.ok("session", "link", "--pseudonym", "erin-v", "--operator", "olga")
    assert link["binding"]["state"] == "open" and link["binding"]["opened"] is False
    view = browser.get("/session", headers=ORIGIN).json()
    assert view["pseudonym"] == "erin-v" and view["roles"] == {"curator": [], "steward": []}
    r = browser.post("/stewards", json={"target_id": ERDOS, "action": "join", **WORDS},
                     headers=csrf(browser))
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 2)  # the binding, then the join
    g = net.main()
    binding = g.identities["erin-v"]
    assert binding.github is None and not binding.ssh_signers
    assert binding.signature is not None and binding.signature.kind == "approval"
    assert binding.signature.signer == "erin-v"
    assert derive.stewards_of(g, ERDOS) == ["erin-v"]
    # GET /session says what the record gives
    view = browser.get("/session", headers=ORIGIN).json()
    assert view["roles"] == {"curator": [], "steward": [ERDOS]}, view
    # the steward's acts, each signed with the approval key and merged
    acts = [
        ("/literature/confirm", {"literature": lit, "action": "confirm"}),
        ("/approvals", {"words": gloss, "sections": [0]}),
        ("/shelvings", {"target_id": ERDOS, "node_id": SHELVED, "action": "shelved",
                        "scope": "statement", "cause": "A special case that does not "
                        "serve the root."}),
    ]
    for path, body in acts:
        r = browser.post(path, json=body, headers=csrf(browser))
        assert r.status_code == 201, (path, r.text)
    passed(net.merge_all(), 3)
    g = net.main()
    status = derive.literature_status(g, ERDOS, "root")
    assert status is not None and status["source"] == "confirmed" and status["by"] == "erin-v"
    assert [a["by"] for a in approvals_of(g, ERDOS, g.targets[ERDOS].nodes["root"],
                                          gloss)] == ["erin-v"]
    assert g.targets[ERDOS].nodes[SHELVED].shelvings
    # her token is hers too: a token write is let through the role rule
    tok = net.ok("token", "issue", "--pseudonym", "erin-v", "--dco", "--operator", "olga")
    assert tok["binding"]["state"] == "on-record" and not tok["created"]
    write_identity(net.svc, Caller(token=tok["token"], address="operator-test"))
    # and she steps down
    r = browser.post("/stewards", json={"target_id": ERDOS, "action": "step-down"},
                     headers=csrf(browser))
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 1)
    assert derive.stewards_of(net.main(), ERDOS) == []
    # a stranger asking for her pseudonym is refused, whatever the proof
    stranger = net.client.post("/tokens", json={
        "pseudonym": "erin-v", "dco": "1.1", "proof": {"kind": "github", "token": "gh-erin-v"}})
    body = refused(stranger, "pseudonym-reserved")
    assert "operator vouched for" in body["detail"], body


def test_the_graphs_curator_gets_in_the_same_way_and_acts(net: Net) -> None:
    lit, gloss = words_and_literature(net)
    # the graph names `operator` as curator and owner: never taken by mistake
    plain = net.cli("token", "issue", "--pseudonym", "operator", "--dco", "--operator", "olga")
    assert plain.exit_code == 1 and "pseudonym-reserved" in plain.output, plain.output
    assert "--holds-role" in plain.output
    early = net.cli("session", "link", "--pseudonym", "operator", "--operator", "olga")
    assert early.exit_code == 1 and "identity-unknown" in early.output, early.output
    assert "--holds-role" in early.output
    made = net.ok("token", "issue", "--pseudonym", "operator", "--dco", "--holds-role",
                  "--operator", "olga")
    assert made["created"] and made["binding"]["state"] == "open", made
    assert made["binding"]["opened"] is True
    passed(net.merge_all(), 1)
    assert net.main().identities["operator"].github is None
    browser = signed_in(net, "operator")
    view = browser.get("/session", headers=ORIGIN).json()
    assert view["roles"] == {"curator": ["*"], "steward": []}, view
    # a curator's acts over HTTP: a signed reading on the site, an approval, and by
    # token the withdrawal of another's words (each rests on the curator's role)
    r = browser.post("/literature/confirm", json={"literature": lit, "action": "confirm"},
                     headers=csrf(browser))
    assert r.status_code == 201, r.text
    r = browser.post("/approvals", json={"words": gloss, "sections": [0]},
                     headers=csrf(browser))
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 2)
    auth = {"Authorization": f"Bearer {made['token']}"}
    r = net.client.post("/glosses/withdrawals", json={"record": gloss,
                                                      "reason": "Superseded by a better one."},
                        headers=auth)
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 1)
    g = net.main()
    assert gloss in derive.withdrawn(g)
    status = derive.literature_status(g, ERDOS, "root")
    assert status is not None and status["by"] == "operator"
    # the guard a git push meets (network/api/git/git_http.py) lets the curator's token
    # through, so a curator's signed status withdrawal or ledger correction can be pushed
    assert write_identity(net.svc, Caller(token=made["token"], address="t")).pseudonym == \
        "operator"
    # a stranger cannot take the curator's name
    refused(net.client.post("/tokens", json={
        "pseudonym": "Operator", "dco": "1.1", "proof": {"kind": "github",
                                                          "token": "gh-someone"}}),
            "pseudonym-reserved")


def test_a_steward_of_an_older_network_is_bound_by_the_operators_command(net: Net) -> None:
    """erin-v joined before the operator's command filed bindings (her link opened by the
    bare function, as before): every act of hers is refused, and the refusal says what
    binds her pseudonym and how the operator fixes it; ``lemmata session link`` then files
    the binding, and once it merges she acts. A stranger never gets her name."""
    from network.api.people import web_session

    net.ok("token", "issue", "--pseudonym", "erin-v", "--dco", "--operator", "olga")
    link = web_session.issue_sign_in_link(net.svc, pseudonym="erin-v", operator="olga")
    c = net.browser()
    assert c.get(link["url"], follow_redirects=False).status_code == 302
    r = c.post("/stewards", json={"target_id": ERDOS, "action": "join", **WORDS},
               headers=csrf(c))
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 1)
    assert "erin-v" not in net.main().identities
    assert c.get("/session", headers=ORIGIN).json()["roles"] == {"curator": [],
                                                                  "steward": []}
    body = refused(c.post("/stewards", json={"target_id": ERDOS, "action": "step-down"},
                          headers=csrf(c)), "pseudonym-reserved")
    assert "no identities/erin-v.yaml binds it" in body["detail"], body
    assert "lemmata session link --pseudonym erin-v" in body["detail"], body
    assert not body["action"].startswith("Choose another"), body
    refused(net.client.post("/tokens", json={
        "pseudonym": "erin-v", "dco": "1.1", "proof": {"kind": "github", "token": "gh-erin"}}),
            "pseudonym-reserved")
    again = net.ok("session", "link", "--pseudonym", "erin-v", "--operator", "olga")
    assert again["binding"]["state"] == "open" and again["binding"]["opened"] is True
    passed(net.merge_all(), 1)
    assert c.get("/session", headers=ORIGIN).json()["roles"] == {"curator": [],
                                                                  "steward": [ERDOS]}
    r = c.post("/stewards", json={"target_id": ERDOS, "action": "step-down"},
               headers=csrf(c))
    assert r.status_code == 201, r.text
    passed(net.merge_all(), 1)
    refused(net.client.post("/tokens", json={
        "pseudonym": "erin-v", "dco": "1.1", "proof": {"kind": "github", "token": "gh-erin"}}),
            "pseudonym-reserved")


def test_a_pseudonym_bound_elsewhere_is_never_the_operators(net: Net) -> None:
    """A role pseudonym bound to a GitHub login stays that login's: the operator cannot
    vouch for it, even saying the person holds the role."""
    net.forge.commit_to_main({"identities/gwen.yaml": (
        b"schema: identity/v1\npseudonym: gwen\ngithub: gwen\nsince: '2026-01-01'\n"
    )}, "gwen's binding")
    for extra in ((), ("--holds-role",)):
        r = net.cli("token", "issue", "--pseudonym", "gwen", "--dco", "--operator", "olga",
                    *extra)
        assert r.exit_code == 1 and "pseudonym-reserved" in r.output, r.output
        assert "GitHub login gwen" in r.output
    assert net.cli("token", "list").output.strip().endswith("0 operator-vouched identities")


def test_every_refusal_names_a_way_in_this_network_has(net: Net) -> None:
    """github_sign_in is false here: no refusal tells the person to sign in with GitHub,
    and an existing identity is not told to choose another pseudonym."""
    from network.api.records import literature

    assert net.client.get("/info.json").json()["service"]["web_session"]["github_sign_in"] \
        is False
    for code in ("session-missing", "role-act-needs-session", "pseudonym-reserved"):
        action = CATALOG[code].action
        assert not action.startswith(("Sign in with GitHub", "Choose another")), action
        assert "lemmata session link" in action, action
    body = refused(net.client.post("/shelvings", json={
        "target_id": ERDOS, "node_id": SHELVED, "action": "shelved", "scope": "statement",
        "cause": "x"}, headers=ORIGIN), "session-missing")
    assert "lemmata session link --pseudonym" in body["detail"], body
    with pytest.raises(LemmataError) as exc:  # the MCP tool: no web session
        literature.confirm_literature(net.svc, Caller(token=None, address="t"),
                                      literature="targets/x.yaml", action="confirm")
    assert exc.value.code == "role-act-needs-session"
    assert "lemmata session link" in exc.value.detail, exc.value


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def up_with_an_operator_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             visit: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                             ) -> tuple[dict[str, Any], int, int]:
    """``lemmata up`` on two free ports (no address variable set) over a one-target graph;
    once it listens, the operator issues ``erin`` and runs ``lemmata session link --json`` on
    its data folder, and ``visit(link)`` (when given) runs while the network still serves.

    Returns:
        (what was seen: ``issued`` the token command's exit code, ``link`` the printed link
        (or the command's output when it failed), ``service.json``, and ``visit``'s answer
        under ``visited``; the service's port; the site's port). An exception raised by
        ``visit`` is raised again once the network has stopped.
    """
    import threading

    from tests.graphs import GraphBuilder

    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    b = GraphBuilder(project / "graph")
    b.base()
    b.target("demo")
    b.node("demo", "root")
    data = tmp_path / "data"
    stop = threading.Event()
    seen: dict[str, Any] = {}

    def ready(urls: dict[str, str]) -> None:
        try:
            seen["urls"] = urls
            state = ["--data", str(data)]
            runner = CliRunner()
            issued = runner.invoke(main, ["token", "issue", "--pseudonym", "erin", "--dco",
                                          "--operator", "olga", *state])
            seen["issued"] = issued.exit_code
            out = runner.invoke(main, ["session", "link", "--pseudonym", "erin", "--operator",
                                       "olga", "--json", *state])
            seen["link"] = json.loads(out.output) if out.exit_code == 0 else out.output
            service = json.loads((data / "service.json").read_text())
            seen["service.json"] = service
            if visit is not None:
                assert isinstance(seen["link"], dict), seen["link"]
                seen["visited"] = visit(seen["link"])
        except Exception as exc:  # noqa: BLE001 - raised below, once the network has stopped
            seen["error"] = exc
        finally:
            stop.set()

    port, site_port = free_port(), free_port()
    assert up.run(data, project / "graph", port=port, site_port=site_port, stop=stop,
                  ready=ready) == 0
    if "error" in seen:
        raise seen["error"]
    return seen, port, site_port


@pytest.mark.slow
def test_session_link_prints_the_running_networks_own_addresses(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                ) -> None:
    """``lemmata up`` on ports other than 8000/8001 records them in service.json; the
    operator's command on its folder prints links that reach it, with no variable set."""
    seen, port, site_port = up_with_an_operator_link(tmp_path, monkeypatch)
    assert seen["issued"] == 0
    link = seen["link"]
    assert isinstance(link, dict), link
    assert link["url"].startswith(f"http://127.0.0.1:{port}/auth/link?"), link
    assert link["return_to"] == f"http://127.0.0.1:{site_port}/", link
    assert seen["service.json"] == {"database": "sqlite:state.db",
                                    "public_url": f"http://127.0.0.1:{port}",
                                    "site_origin": f"http://127.0.0.1:{site_port}"}


def test_the_banner_names_the_operators_way_in_for_people() -> None:
    text = up.banner(api="http://127.0.0.1:9000", site="http://127.0.0.1:9001",
                     toolchain_line="x", checkable=False, calibration=[])
    assert "lemmata session link --pseudonym NAME" in text
    assert "--holds-role" in text
