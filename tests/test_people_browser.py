"""People on the site, end to end in Debian's headless Chromium (issue 13 "Done when").

The REAL service (network.api.app.create_app under uvicorn, network.up.serve_in_thread)
over a LocalForge, the REAL built site (network.site.build on the forge's main, served by
network.up.static_server with its Content-Security-Policy, naming the service) and the
GitHub stand-in (tests/github_standin.py) as GitHub. The merge queue is the gate's own
(network.gate.queue.queue.process_queue with the recorded Lean stand-in), run after each act as
``lemmata up``'s runner does, and the site is rebuilt whenever main moved.

The fixture graph is tests/gate_scenarios.base_repo's ``demo`` (stewards steve and sam, a
panel of two; steve's login bound in identities/), carol's gloss, alice's literature
proposal on ``mid``, and one REAL imported open Erdős problem copied from graph/targets/
(``erdos-1107``, no steward). alice's proof of demo's root is opened before the browser
starts and held at step 9 (no one vouched for the root).

Through the site's controls (network/site/assets/session.js), as steve:

1. signs in with GitHub (the stand-in) and chooses his pseudonym, accepting the DCO;
2. becomes steward of erdos-1107 (POST /stewards); its root is then claimable:
   ``POST /claims`` with a bearer token, refused before with ``claim-no-steward``;
3. approves alice's held proof; the review merges, then the held proof merges;
4. approves section 1 of carol's gloss;
5. opens a motion and votes yes on it; fifteen days later (a new sign-in: the session is
   eight hours long) the next merges close its window on the merge log and it passes;
6. confirms alice's literature proposal;
7. shelves the statement ``p``;
8. each act is a merged record on the forge's main, signed with the network's approval
   key for steve (the signature verifies), and the rebuilt pages show it (the motion's
   state: main's targets/index.json, since the target page draws no motions yet).

Screenshots of the key steps go to ``screenshots/people/`` (git-ignored;
``LEMMATA_SCREENSHOTS`` moves them).

Marked ``browser`` and ``slow``: ``make test`` deselects it; run ``pytest -m browser``.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml

from network import signing
from network.api.app import create_app
from network.api.graphs import GraphProvider
from network.api.settings import ServiceSettings
from network.forge.local import LocalForge
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from network.record import derive, panel
from network.record import models as m
from network.record.products.products import write_products
from network.record.read.loader import load_graph
from network.site.build import build_site
from network.site.config import SiteConfig
from network.site.csp import header_policy
from network.up import serve_in_thread, static_server
from tests.api_support import FakeClock, github_verifier
from tests.github_standin import GitHubStandin
from tests.graphs import (
    BUILDER_APPROVAL_KEY,
    BUILDER_APPROVAL_KEY_ID,
    BUILDER_GATE_KEY,
    BUILDER_GATE_KEY_ID,
    git_commit,
)
from tests.site_support import REPO, chromium, require_dot

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import ND, PROOF_ROOT, base_repo, open_prechecked
from standin import RecordedToolchain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.allow_outside_writes]

SHOTS = Path(os.environ.get("LEMMATA_SCREENSHOTS", str(REPO / "screenshots"))) / "people"
ERDOS = "erdos-1107"
GLOSS = f"{ND}/mid/gloss/20260103T000000Z-carol.yaml"
PROPOSAL = f"{ND}/mid/literature/20260105T000000Z-alice.yaml"
CSS = "css selector"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _graph(root: Path) -> None:
    """The fixture graph, committed (see the module's docstring)."""
    b, _ = base_repo(root)
    b.steward("demo", "sam")
    for who in ("steve", "sam"):  # a role holder's pseudonym is bound to its login
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": who, "since": "2026-01-01"})
    b.gloss("demo", "mid", "20260103T000000Z", "carol", text="Adding zero twice changes "
            "nothing: $n + 0 + 0 = n$.")
    b.literature("demo", "mid", "20260105T000000Z", "alice", "open", signed=False,
                 summary="Folklore; no reference settles it.")
    shutil.copytree(REPO / "graph" / "targets" / ERDOS, root / "targets" / ERDOS)
    write_products(load_graph(root), root)
    git_commit(root, "people fixture")


@dataclass
class Net:
    """The running network: URLs, the app, the forge, the clock, the browser."""

    api: str
    site: str
    app: Any
    forge: LocalForge
    clock: FakeClock
    gh: GitHubStandin
    d: Any
    site_dir: Path
    forge_path: Path

    @property
    def svc(self) -> Any:
        return self.app.state.svc

    def main(self) -> Any:
        return load_graph(self.forge_path, self.forge.main_sha())

    def build(self) -> None:
        """Rebuild the site from the forge's main, as the queue runner does."""
        build_site(SiteConfig(graph=self.forge_path, out=self.site_dir,
                              commit="refs/heads/main", service_url=self.api,
                              sign_in="github"))

    def merge(self, expect: int) -> list[Q.QueueItem]:
        """One queue pass: ``expect`` pull requests pass and merge (a held one waiting on
        its review is left so); the site is rebuilt."""
        items = Q.process_queue(self.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                                gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
        seen = [(i.number, i.verdict, i.notes) for i in items]
        assert [i.verdict for i in items if i.verdict != "held"] == ["pass"] * expect, seen
        self.build()
        return items

    def page(self, path: str) -> str:
        return f"{self.site}/{path}"


@pytest.fixture()
def net(tmp_path: Path) -> Iterator[Net]:
    require_dot()
    _graph(tmp_path / "graph")
    forge_path = tmp_path / "forge.git"
    clock = FakeClock()
    LocalForge.seed(forge_path, tmp_path / "graph", when=int(clock()))

    def load_main() -> Any:
        return load_graph(forge_path, "refs/heads/main")

    def version() -> str:
        return str(pygit2.Repository(str(forge_path)).references["refs/heads/main"].target)

    port, site_port = _free_port(), _free_port()
    api, site = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{site_port}"
    gh = GitHubStandin(callback=f"{api}/auth/github/callback", person="steve")
    gh.start()
    site_dir = tmp_path / "site"
    st = ServiceSettings(data_dir=tmp_path / "data", graph=forge_path, port=port,
                         public_url=api, site_origin=site, github_client_id=gh.client_id,
                         github_client_secret=gh.client_secret, github_oauth_url=gh.oauth_url,
                         github_api_url=gh.base)
    app = create_app(st, graph_loader=GraphProvider(load_main, version),
                     github_verifier=github_verifier, clock=clock,
                     keys={"approval": (BUILDER_APPROVAL_KEY_ID, BUILDER_APPROVAL_KEY)})
    with ExitStack() as stack:
        stack.callback(gh.stop)
        d = stack.enter_context(chromium(log=True))
        stack.enter_context(serve_in_thread(app, port=port))
        forge = LocalForge(forge_path, app.state.svc.sessions, clock=clock)
        app.state.svc.forge = forge
        n = Net(api, site, app, forge, clock, gh, d, site_dir, forge_path)
        n.build()
        stack.enter_context(static_server(site_dir, "127.0.0.1", site_port,
                                          csp=header_policy(api)))
        yield n


# --- the browser ---------------------------------------------------------------------------


def _wait(d: Any, css: str, timeout: float = 20.0) -> Any:
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, timeout).until(ec.presence_of_element_located((CSS, css)))


def _until(d: Any, what: Callable[[Any], Any], timeout: float = 30.0) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, timeout).until(what)


def _shot(el: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    el.parent.execute_script("arguments[0].scrollIntoView(true);", el)
    el.screenshot(str(SHOTS / name))


def _act(n: Net, click: Callable[[], Any], what: str) -> int:
    """Click a control; wait for the answer in the aria-live region; it must be a receipt.
    The number of the pull request it opened."""
    n.d.execute_script("document.getElementById('act-answers').textContent = '';")
    click()
    answer = _wait(n.d, "#act-answers .answer")
    assert "ok" in (answer.get_attribute("class") or ""), f"{what}: {answer.text}"
    text = answer.text
    assert "pull request #" in text, text
    return int(text.split("pull request #", 1)[1].split(".")[0].split()[0])


def _sign_in(n: Net, page: str) -> None:
    """Signed out on ``page``: click "Sign in with GitHub"; the stand-in authorizes and the
    browser comes back to ``page`` signed in."""
    n.d.get(page)
    _wait(n.d, "#session a.sign-in").click()
    _until(n.d, lambda d: d.current_url == page)
    _wait(n.d, "#session .who, #session form")


def _pr_files(n: Net, number: int) -> dict[str, bytes]:
    pr = n.forge.get(number)
    assert pr.state == "merged", (number, pr.state)
    from network.gate.diff import diff_commits

    diff = diff_commits(n.forge_path, pr.base_sha, pr.head_sha)
    return {c.path: diff.new_bytes(c) for c in diff.changes if c.new_id is not None}


def _signed_record(n: Net, number: int, model: type[m.Record], by: str = "steve") -> dict:
    """The one record the merged pull request ``number`` filed, read off main: steve's,
    signed with the network's approval key, and the signature verifies."""
    files = _pr_files(n, number)
    assert len(files) == 1, sorted(files)
    [(path, _data)] = files.items()
    g = n.main()
    doc = yaml.safe_load(g.source.read(path))
    sig = doc["signature"]
    assert (sig["kind"], sig["signer"], sig["key_id"]) == ("approval", by,
                                                           BUILDER_APPROVAL_KEY_ID), sig
    signing.verify(doc, m.Signature.model_validate(sig), g.keys, None)  # raises if forged
    model.model_validate(doc)
    doc["_path"] = path
    return doc


def test_people_act_through_the_site(net: Net) -> None:
    n, d = net, net.d
    target = n.page("targets/demo/index.html")
    root_page = n.page("targets/demo/nodes/root.html")
    mid_page = n.page("targets/demo/nodes/mid.html")
    erdos = n.page(f"targets/{ERDOS}/index.html")

    # alice's proof of demo's root, held at step 9 before anyone signs in
    held = open_prechecked(n.forge, {f"{ND}/root/Proof.lean": PROOF_ROOT.encode()},
                           author="alice")
    items = Q.process_queue(n.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                            gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
    assert [(i.number, i.verdict) for i in items] == [(held, "held")]
    n.build()

    # 1. sign in through the GitHub stand-in; choose the pseudonym, accepting the DCO
    _sign_in(n, target)
    bar = _wait(d, "#session form")
    assert "steve" in d.find_element(CSS, "#session").text  # the login
    bar.find_element(CSS, "input[name=pseudonym]").send_keys("steve")
    bar.find_element(CSS, "input[name=dco]").click()
    _shot(d.find_element(CSS, "header.site"), "1-pseudonym.png")
    bar.find_element(CSS, "button").click()
    _wait(d, "#session .who")
    assert "Signed in as steve" in d.find_element(CSS, "#session").text
    _wait(d, ".target-acts form")
    # 2. steward of a real imported open Erdős problem; then its root is claimable
    _test_steward(n, erdos)
    # 3. the held proof
    d.get(root_page)
    review_form = _wait(d, ".node-acts .held-proofs form")
    _shot(d.find_element(CSS, ".node-acts"), "3-held-proof.png")
    review = _act(n, lambda: review_form.find_element(CSS, "button").click(),
                  "review of the held proof")
    n.merge(1)  # the review merges; main moved, so the held proof is judged again
    [again] = Q.process_queue(n.forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                              gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)
    assert (again.number, again.verdict) == (held, "pass"), again.notes
    assert n.forge.get(held).state == "merged"
    n.build()
    rev = _signed_record(n, review, m.ProofReview)
    assert rev["decision"] == "approve" and rev["by"] == "steve"
    assert derive.node_status(n.main(), "demo", "root") == "proved"
    # 4. a section of carol's gloss
    d.get(mid_page)
    approve = _wait(d, ".approve form")
    approve.find_element(CSS, 'input[name=section][value="0"]').click()
    _shot(d.find_element(CSS, "aside.gloss"), "4-approve.png")
    approval = _act(n, lambda: approve.find_element(CSS, "button").click(), "approval")
    n.merge(1)
    rec = _signed_record(n, approval, m.Approval)
    assert rec["words"] == GLOSS and rec["sections"] == [0]
    # 5. a motion, a vote
    d.get(target)
    motion_form = _form(d, ".target-acts form", "Open a motion")
    motion_form.find_element(CSS, "input[name=invitee]").send_keys("eve")
    motion_form.find_element(CSS, "textarea[name=text]").send_keys("Invite eve, an expert.")
    opened = _act(n, lambda: motion_form.find_element(CSS, "button").click(), "motion")
    n.merge(1)
    motion = _signed_record(n, opened, m.Motion)
    n.clock.advance(3600)
    d.get(target)
    vote_button = _wait(d, '.target-acts .motions button.vote[data-vote="yes"]')
    _shot(d.find_element(CSS, ".target-acts"), "5-motion.png")
    voted = _act(n, vote_button.click, "vote")
    n.merge(1)
    vote = _signed_record(n, voted, m.Vote)
    assert vote["motion"] == motion["_path"] and vote["vote"] == "yes"
    st = panel.motion_state(n.main(), "demo", motion["_path"])
    assert st is not None and st["state"] == "open" and st["yes"] == 1
    # fifteen days on: the session has lapsed; sign in again
    n.clock.advance(15 * 86400)
    _sign_in(n, mid_page)
    # 6. the literature proposal
    reading = _form(d, ".node-acts form", "Send your reading")
    confirmed = _act(n, lambda: reading.find_element(CSS, "button").click(), "reading")
    # 7. shelve the statement p
    d.get(n.page("targets/demo/nodes/p.html"))
    shelve = _form(d, ".node-acts form", "Shelve this statement")
    shelve.find_element(CSS, "textarea[name=cause]").send_keys("Not on the way to the root.")
    _shot(d.find_element(CSS, ".node-acts"), "7-shelve.png")
    shelved = _act(n, lambda: shelve.find_element(CSS, "button").click(), "shelving")
    n.merge(2)
    lit = _signed_record(n, confirmed, m.Literature)
    assert lit["confirms"] == PROPOSAL
    shelf = _signed_record(n, shelved, m.Shelving)
    assert shelf["subject"] == "p"
    g = n.main()
    assert panel.motion_passed(g, "demo", motion["_path"])  # the window closed on the log
    assert derive.literature_status(g, "demo", "mid")["source"] == "confirmed"

    # 8. the rebuilt pages show each act
    _rebuilt_pages(n, target, root_page, mid_page, erdos)
    faults = [e["message"] for e in d.get_log("browser")
              if "Uncaught" in e["message"] or "Content Security Policy" in e["message"]]
    assert faults == []


def _form(d: Any, css: str, button: str) -> Any:
    """The drawn form under ``css`` whose submit button reads ``button``."""
    _wait(d, css)
    return next(f for f in d.find_elements(CSS, css)
                if f.find_element(CSS, "button").text == button)


def _test_steward(n: Net, erdos: str) -> None:
    d = n.d
    import httpx

    # a claimer with a bearer token, as an agent has

    r = httpx.post(f"{n.api}/tokens", json={"pseudonym": "agatha", "dco": "1.1",
                                            "proof": {"kind": "github", "token": "gh-agatha"}})
    assert r.status_code == 201, r.text
    bearer = {"Authorization": f"Bearer {r.json()['token']}"}
    before = httpx.post(f"{n.api}/claims", json={"target": ERDOS, "node": "root"},
                        headers=bearer)
    assert before.json()["code"] == "claim-no-steward", before.text
    assert n.main().targets[ERDOS].record.target_class == "open-problem"
    d.get(erdos)
    join = _wait(d, ".target-acts form")
    join.find_element(CSS, "input[name=real_name]").send_keys("Steve Stewart")
    join.find_element(CSS, "textarea[name=commitment]").send_keys(
        "I will read and write up whatever closes on this problem.")
    _shot(d.find_element(CSS, ".target-acts"), "2-steward.png")
    joined = _act(n, lambda: join.find_element(CSS, "button").click(), "become steward")
    n.merge(1)
    rec = _signed_record(n, joined, m.StewardAct)
    assert (rec["pseudonym"], rec["target"], rec["admitted_by"]) == ("steve", ERDOS, "self")
    assert derive.claimable(n.main(), ERDOS, "root") == (True, None)
    after = httpx.post(f"{n.api}/claims", json={"target": ERDOS, "node": "root"},
                       headers=bearer)
    assert after.status_code == 201, after.text
    d.get(erdos)
    _wait(d, ".target-acts form")
    assert _form(d, ".target-acts form", "Step down")  # a steward now: no "Become steward"
    assert not [f for f in d.find_elements(CSS, ".target-acts form")
                if f.find_element(CSS, "button").text == "Become steward"]


def _rebuilt_pages(n: Net, target: str, root_page: str, mid_page: str, erdos: str) -> None:
    """Step 8: the pages rebuilt from main after the merges show each act."""
    d = n.d

    def main_text(url: str) -> str:
        d.get(url)
        return str(d.find_element(CSS, "main").text)

    text = main_text(erdos)
    stewards = next(ln for ln in text.splitlines() if ln.startswith("Stewards"))
    assert "Steve Stewart (steve)" in stewards and "self-admitted" in stewards, stewards
    text = main_text(root_page)
    # the status line under the title and breadcrumb
    assert any(ln.startswith("✔ proved") for ln in text.splitlines()[:8]), text[:400]
    assert "reviewer steve" in text  # the proof's attestation names the review
    text = main_text(mid_page)
    assert "(confirmed, by steve)" in text
    assert "By carol, 2026-01-03" in text and "signed by steve" in text  # the approval
    text = main_text(n.page("targets/demo/nodes/p.html"))
    assert any(" shelved" in ln for ln in text.splitlines()[:8]) and "/p/shelving/" in text, \
        text[:400]
    # the motion's state, on the rebuilt target page's panel and in main's
    # targets/index.json product (what the site builds from)
    panel_text = main_text(n.page("targets/demo/index.html"))
    assert "Motions" in panel_text and "passed" in panel_text, panel_text[-800:]
    import json

    index = json.loads(n.main().source.read("targets/index.json"))
    row = next(t for t in index["targets"] if t["id"] == "demo")
    assert [x["state"] for x in row["motions"]] == ["passed"]
