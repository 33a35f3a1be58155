"""A curator's admission through the site: ``POST /stewards`` with ``action: admit``
(D-32 v3.33/v3.34: "a curator merges it and is named in admitted_by"; "or by a curator
adding them directly, at any time, naming the curator in admitted_by"; issue 13).

Under ``steward_admission: reviewed`` a mathematician cannot admit themselves; a curator of
the target admits them: the service files a steward/v4 join naming the steward, with
``admitted_by`` the curator, signed by the approval key for the curator and opened in the
curator's name, and the LocalForge queue merges it. Once the target has a steward the
curator adds another directly. A non-curator's admission, a curator admitting themselves,
an unknown pseudonym, and the curator's signed file re-filed by someone else are refused,
each with its own code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pygit2
import pytest
import yaml

from network.record import derive
from tests import test_api_stewards as base
from tests.graphs import GraphBuilder
from tests.test_api_stewards import ERDOS, REPO, WORDS, Env, _refused

env = base.env  # the shared fixture, over this module's real_graph (reviewed admission)

CURATOR = "cora"  # added to curators.json beside the repository's operator
TESS = {"real_name": "Tess Second", "commitment": "I will check every held proof here."}


@pytest.fixture(scope="module")
def real_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's graph/ under steward_admission: reviewed, with the builder's keys
    and identities for a curator and two mathematicians."""
    root = tmp_path_factory.mktemp("reviewed") / "graph"
    shutil.copytree(REPO / "graph", root)
    policy = json.loads((root / "policy.json").read_text())
    policy["steward_admission"] = "reviewed"
    (root / "policy.json").write_text(json.dumps(policy, indent=2) + "\n")
    curators = json.loads((root / "curators.json").read_text())
    curators["curators"].append({"pseudonym": CURATOR, "targets": [ERDOS]})
    (root / "curators.json").write_text(json.dumps(curators, indent=2) + "\n")
    b = GraphBuilder(root)
    b.publish_keys()
    for who in (CURATOR, "sam", "tess"):
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                 "github": who, "since": "2026-01-01"})
    return root


def _admit(env: Env, steward: str, words: dict[str, Any] = WORDS) -> Any:
    return env.post({"target_id": ERDOS, "action": "admit", "steward": steward, **words})


def test_a_curator_admits_under_reviewed_admission_and_adds_at_any_time(env: Env) -> None:
    env.sign_in("sam")
    _refused(env.post({"target_id": ERDOS, "action": "join", **WORDS}),
             "steward-admission-reviewed", 403)
    env.sign_in(CURATOR)
    r = _admit(env, "sam")
    assert r.status_code == 201, r.text
    receipt = r.json()
    assert receipt["action"] == "admit"
    [path] = receipt["paths"]
    assert path.startswith(f"targets/{ERDOS}/steward-acts/") and path.endswith(
        f"-{CURATOR}.yaml")  # the file name's pseudonym is the filer
    pr = env.forge.get(int(receipt["pull_request"]))
    assert pr.author == CURATOR
    [item] = env.merge_all()
    assert item.verdict == "pass" and item.merge_sha, item.notes
    g = env.main()
    doc = yaml.safe_load(g.source.read(path))
    assert (doc["pseudonym"], doc["admitted_by"], doc["action"]) == ("sam", CURATOR, "join")
    assert doc["signature"]["kind"] == "approval" and doc["signature"]["signer"] == CURATOR
    [s] = derive.panel_of(g, ERDOS)
    assert (s.pseudonym, s.admitted_by, s.self_admitted) == ("sam", CURATOR, False)
    assert derive.claimable(g, ERDOS, "root") == (True, None)
    # once the target has a steward, a curator adds another directly, without a motion
    _refused(_admit(env, "sam"), "steward-already-in-force", 409)
    r = _admit(env, "tess", TESS)
    assert r.status_code == 201, r.text
    [item] = env.merge_all()
    assert item.verdict == "pass", item.notes
    g = env.main()
    assert [(s.pseudonym, s.admitted_by) for s in derive.panel_of(g, ERDOS)] == \
        [("sam", CURATOR), ("tess", CURATOR)]


def test_admissions_refused_before_a_pull_request_opens(env: Env) -> None:
    env.sign_in("tess")  # no curator of the target
    _refused(_admit(env, "sam"), "steward-admitted-by-not-curator", 403)
    env.sign_in(CURATOR)
    for body, code in (
        ({"action": "admit", **WORDS}, "steward-admit-unnamed"),
        ({"action": "join", "steward": "sam", **WORDS}, "steward-admit-unnamed"),
        ({"action": "step-down", "steward": "sam"}, "steward-admit-unnamed"),
        ({"action": "admit", "steward": "CORA", **WORDS}, "steward-admit-self"),
        ({"action": "admit", "steward": "nobody", **WORDS}, "identity-unknown"),
        ({"action": "admit", "steward": "sam"}, "invalid-record"),  # no words
        ({"action": "admit", "steward": "sam", "invitation":
          f"targets/{ERDOS}/motions/20261201T000000Z-sam.yaml", **WORDS}, "invalid-record"),
    ):
        _refused(env.post({"target_id": ERDOS, **body}), code)
    assert env.forge.list_all() == []
    # the pseudonym is spelled as the graph's identity spells it
    r = _admit(env, "SAM")
    assert r.status_code == 201, r.text
    [pr] = env.forge.list_all()
    assert f"steward admit: sam on {ERDOS}" in pr.title
    _refused(_admit(env, "sam"), "record-copy")


def test_the_gate_refuses_a_curators_admission_filed_by_another(env: Env) -> None:
    """The curator's signed file, re-filed in the admitted person's name: the gate binds the
    act to its signer (issue 9) and refuses it with steward-act-not-own."""
    env.sign_in(CURATOR)
    r = _admit(env, "sam")
    assert r.status_code == 201, r.text
    [path] = r.json()["paths"]
    theirs = env.forge.get(int(r.json()["pull_request"]))
    blob = pygit2.Repository(str(env.forge.path)).revparse_single(f"{theirs.head_sha}:{path}")
    files = {path: blob.data}
    env.forge.close(theirs.number)
    pr = env.forge.open_pull_request(files=files, title="steward join", body="by hand",
                                     author="sam")
    [item] = env.merge_all()
    assert item.number == pr.number and item.verdict == "fail"
    assert item.outcome is not None
    codes = {d.code for run in item.outcome.runs for st in run.steps for d in st.diagnostics}
    assert "steward-act-not-own" in codes, codes  # beside actor-not-submitter (issue 9)
    assert derive.panel_of(env.main(), ERDOS) == []
