"""A pull request that conflicts is closed with a code and its submitter is told (issue 16):
two submissions at one record path go through the LocalForge merge queue; the first
merges, the second is closed with ``merge-conflict``, its submission shows the code and the
action "resubmit against current main" on ``GET /submissions/{id}`` (and the MCP tool
``get_submission``, the same operation), it is never judged again, and a resubmission
merges."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from network.api import db
from network.api.submit import submissions
from network.errors import CATALOG
from network.forge.local import LocalForge
from network.gate.queue import queue as Q
from network.gate.sandbox.sandbox import Sandbox
from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID
from tests.test_api_records import PM, TS, Env, _env

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

PATH = f"targets/demo/nodes/root/attempts/{TS}-alice-postmortem.yaml"


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    yield from _env(tmp_path)


def _pass(forge: LocalForge) -> list[Q.QueueItem]:
    return Q.process_queue(forge, toolchain=RecordedToolchain, sandbox=Sandbox(),
                           gate_key=BUILDER_GATE_KEY, key_id=BUILDER_GATE_KEY_ID)


def _postmortem(env: Env, token: str, **changes: Any) -> Any:
    return env.post("/postmortems", {"target_id": "demo", "node_id": "root",
                                     "yaml": yaml.safe_dump({**PM, **changes})}, token)


def _hand_opened(env: Env) -> int:
    """alice's same-named postmortem pushed by hand (another client of the forge): the
    service's name check sees main and its own reservations, not this branch."""
    rec = {"schema": "d13/v1", "node": "demo/root", "contributor": "alice", **PM,
           "route": "pushed by hand"}
    return env.forge.open_pull_request(files={PATH: yaml.safe_dump(rec).encode()},
                                       title="postmortem by hand", body="",
                                       author="alice").number


def test_a_conflicting_submission_is_closed_with_a_code_its_submitter_reads(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    first = _hand_opened(env)
    r = _postmortem(env, tok)
    assert r.status_code == 201, r.text
    sid, second = r.json()["submission_id"], int(r.json()["pull_request"])
    assert r.json()["paths"] == [PATH]  # the same file: the two conflict
    items = _pass(env.forge)
    assert [(i.number, i.verdict, i.code) for i in items] == [
        (first, "pass", None), (second, "pass", "merge-conflict")], [i.notes for i in items]
    pr = env.forge.get(second)
    assert pr.state == "closed" and pr.close_code == "merge-conflict"
    got = env.client.get(f"/submissions/{sid}")
    assert got.status_code == 200, got.text
    view = got.json()
    assert view["state"] == "closed"
    reason = view["close_reason"]
    assert reason["code"] == "merge-conflict"
    assert "resubmit against current main" in reason["action"]
    assert "merge-conflict" in view["next"] and "Resubmit against current main" in view["next"]
    with env.api.svc.sessions() as s:  # stored with the submission, not only on the forge
        row = s.get(db.SubmissionRow, sid)
        assert row is not None and row.close_code == "merge-conflict" and row.close_detail
    # the operation the MCP tool get_submission calls answers the same
    assert submissions.get_submission(env.api.svc, submission_id=sid)["close_reason"] == reason
    # mine lists it with its reason
    mine = env.client.get("/submissions/mine", headers={"Authorization": f"Bearer {tok}"})
    assert [x["close_reason"]["code"] for x in mine.json()["recent"] if x["id"] == sid] == [
        "merge-conflict"]
    # never judged again: the next pass handles nothing and main does not move
    main = env.forge.main_sha()
    assert _pass(env.forge) == [] and env.forge.main_sha() == main
    # resubmitted against current main, it merges (a new name: the old one is on main)
    again = _postmortem(env, tok)
    assert again.status_code == 201, again.text
    assert again.json()["paths"] != [PATH]
    [item] = _pass(env.forge)
    assert item.verdict == "pass" and item.merge_sha is not None, item.notes
    done = env.client.get(f"/submissions/{again.json()['submission_id']}").json()
    assert done["state"] == "merged" and done["close_reason"] is None


def test_a_gate_refusal_is_closed_with_its_step_code(env: Env) -> None:
    """A pull request the gate fails is closed with the first failing step's code, which
    its submission shows with the catalog's fix."""
    bad = env.forge.open_pull_request(
        files={"targets/demo/nodes/root/attempts/not-a-record.yaml": b"x: 1\n"},
        title="junk", body="", author="mallory").number
    assert env.client.get("/submissions.json").status_code == 200  # the index mirrors it
    [item] = _pass(env.forge)
    assert item.verdict in ("fail", "bounced"), item.notes
    pr = env.forge.get(bad)
    assert pr.state == "closed" and pr.close_code, pr
    with env.api.svc.sessions() as s:
        row = s.execute(select(db.SubmissionRow).where(
            db.SubmissionRow.pull_request == f"local/{bad}")).scalar_one()
    view = env.client.get(f"/submissions/{row.id}").json()
    assert view["state"] == "closed"
    assert view["close_reason"]["code"] == pr.close_code
    assert view["close_reason"]["action"].startswith(CATALOG[pr.close_code].action)
    assert pr.close_code in view["next"]
