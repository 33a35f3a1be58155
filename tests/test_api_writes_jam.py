"""Writes never jam (issue 16): a crashed write's ``opening`` row is reconciled against the
forge once the opening lease has passed, and two records by one identity on one node in
the same second get different file names that the gate admits and that both merge.

Driven over HTTP against a LocalForge seeded with the graph of ``tests/test_api_records``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select, update

from network.api import db
from network.api.submit import names, openings
from network.gate.artifacts import Kind
from network.record.read.loader import ATTEMPT_RE, RECORD_FILE_RE, load_graph
from tests.test_api_records import PM, TS, Env, _env

LEASE = 600


@pytest.fixture()
def env(tmp_path: Path) -> Iterator[Env]:
    yield from _env(tmp_path, {"opening_lease_s": LEASE})


def _postmortem(env: Env, token: str, **changes: Any) -> Any:
    return env.post("/postmortems", {"target_id": "demo", "node_id": "root",
                                     "yaml": yaml.safe_dump({**PM, **changes})}, token)


def _rows(env: Env) -> list[db.SubmissionRow]:
    with env.api.svc.sessions() as s:
        return list(s.execute(select(db.SubmissionRow)).scalars())


# --- same-second writes ----------------------------------------------------------------


def test_same_second_postmortems_get_different_names_and_both_merge(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    first = _postmortem(env, tok)
    second = _postmortem(env, tok, route="a different route")  # same clock second
    assert first.status_code == 201 and second.status_code == 201, second.text
    p1, p2 = first.json()["paths"][0], second.json()["paths"][0]
    assert p1 == f"targets/demo/nodes/root/attempts/{TS}-alice-postmortem.yaml"
    assert p2 != p1 and p2.startswith(f"targets/demo/nodes/root/attempts/{TS}.")
    m2 = ATTEMPT_RE.fullmatch(p2.rsplit("/", 1)[1])
    assert m2 is not None and m2.group("ts") == TS and m2.group("who") == "alice"
    numbers = [int(first.json()["pull_request"]), int(second.json()["pull_request"])]
    for n in numbers:
        env.step2_ok(n, Kind.POSTMORTEM)  # the gate's own steps 1-2 admit both
    for n in numbers:  # the second no longer conflicts with the first once it merged
        assert env.forge.merge(n).state == "merged"
    g = load_graph(env.forge.path, "refs/heads/main")
    got = {a.path for a in g.targets["demo"].nodes["root"].attempts if a.kind == "postmortem"}
    assert {p1, p2} <= got


def test_same_second_record_names_by_one_identity_differ(env: Env) -> None:
    """Records named ``<ts>-<who>.yaml`` take the tag too; every further name chosen in
    the same second is another one."""
    picked = {names.record_path(env.api.svc, "targets/demo/nodes/root/defects", "alice",
                                ".yaml") for _ in range(3)}
    assert len(picked) == 3
    for p in picked:
        assert RECORD_FILE_RE.fullmatch(p.rsplit("/", 1)[1]), p


@pytest.mark.parametrize("name, who", [
    (f"{TS}.0123abcd-alice-postmortem.yaml", "alice"),
    (f"{TS}-0123abcd-alice-postmortem.yaml", "0123abcd-alice"),  # plain: no tag, all who
])
def test_the_tag_never_shifts_the_author(name: str, who: str) -> None:
    m = ATTEMPT_RE.fullmatch(name)
    assert m is not None and m.group("who") == who and m.group("ts") == TS


@pytest.mark.parametrize("name", [
    f"{TS}.0123ABCD-alice-postmortem.yaml",  # upper-case hex
    f"{TS}.0123abc-alice-postmortem.yaml",   # seven digits
    f"{TS}.-alice-postmortem.yaml",
    f"{TS}..0123abcd-alice-postmortem.yaml",
])
def test_malformed_tags_are_not_layout_names(name: str) -> None:
    assert ATTEMPT_RE.fullmatch(name) is None


def test_a_name_already_on_main_is_not_chosen_again(env: Env) -> None:
    """A file merged under the plain name (a hand-pushed record of this very second)
    makes the service tag its own."""
    tok = env.api.token("alice")["token"]
    first = _postmortem(env, tok)
    env.forge.merge(int(first.json()["pull_request"]))
    with db.transaction(env.api.svc.sessions) as s:  # forget the reservation
        s.execute(db.FileNameRow.__table__.delete())
    second = _postmortem(env, tok, route="another route")
    assert second.status_code == 201, second.text
    assert second.json()["paths"][0] != first.json()["paths"][0]


def test_no_free_name_is_a_catalog_refusal(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    tok = env.api.token("alice")["token"]
    monkeypatch.setattr(names, "_reserve", lambda *_a, **_k: False)
    r = _postmortem(env, tok)
    assert r.status_code == 503 and r.json()["code"] == "name-unavailable", r.text
    assert env.prs() == []


# --- crashed writes ----------------------------------------------------------------------


def _crash(env: Env, row_id: str, *, new_id: str | None = None) -> str:
    """Put a row back as a process killed mid-write leaves it: ``opening``, no pull
    request recorded; ``new_id`` also drops the link to the pull request's mark."""
    rid = new_id or row_id
    with db.transaction(env.api.svc.sessions) as s:
        s.execute(update(db.SubmissionRow).where(db.SubmissionRow.id == row_id).values(
            id=rid, state="opening", pull_request=None, head_sha=None, pull_request_url=None,
            opened_at=env.api.svc.now()))
    return rid


def test_crash_after_the_forge_answered_is_recorded_not_jammed(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = _postmortem(env, tok)
    sid, number = r.json()["submission_id"], r.json()["pull_request"]
    assert openings.mark(sid) in env.forge.get(int(number)).body
    _crash(env, sid)
    within = _postmortem(env, tok)  # inside the lease: the write may still be in flight
    assert within.status_code == 409 and within.json()["code"] == "record-copy"
    env.api.clock.advance(LEASE + 1)
    again = _postmortem(env, tok)
    assert again.status_code == 409 and again.json()["code"] == "record-copy", again.text
    assert f"pull request {number}," in again.json()["detail"]  # no longer "None"
    row = next(x for x in _rows(env) if x.id == sid)
    assert (row.state, row.pull_request) == ("open", number)
    assert len(env.prs()) == 1


def test_crash_before_the_forge_answered_expires_and_the_record_can_be_resubmitted(
        env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = _postmortem(env, tok)
    sid, number = r.json()["submission_id"], int(r.json()["pull_request"])
    env.forge.close(number)  # as if the forge never opened it
    ghost = _crash(env, sid, new_id="s_" + secrets.token_hex(12))
    env.api.clock.advance(LEASE + 1)
    again = _postmortem(env, tok)
    assert again.status_code == 201, again.text
    rows = {x.id: x for x in _rows(env)}
    assert rows[ghost].state == "expired"
    assert rows[again.json()["submission_id"]].state == "open"


def test_a_crashed_write_whose_pull_request_merged_blocks_nothing(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = _postmortem(env, tok)
    sid, number = r.json()["submission_id"], int(r.json()["pull_request"])
    env.forge.merge(number)
    _crash(env, sid)
    env.api.clock.advance(LEASE + 1)
    other = _postmortem(env, tok, route="a third route")
    assert other.status_code == 201, other.text
    row = next(x for x in _rows(env) if x.id == sid)
    assert (row.state, row.pull_request) == ("merged", str(number))


def test_an_unreachable_forge_leaves_the_row_for_the_next_write(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    from network.errors import LemmataError

    tok = env.api.token("alice")["token"]
    r = _postmortem(env, tok)
    sid = r.json()["submission_id"]
    _crash(env, sid)
    env.api.clock.advance(LEASE + 1)

    def down() -> list[Any]:
        raise LemmataError("git-error", "forge down")

    monkeypatch.setattr(env.forge, "list_all", down)
    assert openings.reconcile(env.api.svc, _rows(env)) == set()
    assert next(x for x in _rows(env) if x.id == sid).state == "opening"


def test_same_second_lean_attempts_get_different_names(env: Env) -> None:
    """Two partials precheck-bundled by one identity in one second: distinct attempt
    files, both of the layout's form (the service names them; network/api/submit/names.py)."""
    tok = env.api.token("alice")["token"]
    mains = []
    for body in ("theorem a : True := by\n  have h : True := sorry\n  exact h\n",
                 "theorem b : True := by\n  have g : True := sorry\n  exact g\n"):
        r = env.post("/precheck", {"target": "demo", "node": "root",
                                   "artifact_type": "partial", "text": body}, tok)
        assert r.status_code == 202, r.text
        with env.api.svc.sessions() as s:
            job = s.get(db.PrecheckJobRow, r.json()["job_id"])
            mains.append(json.loads(job.bundle_json)["main"])
    assert mains[0] != mains[1]
    for p in mains:
        m = ATTEMPT_RE.fullmatch(p.rsplit("/", 1)[1])
        assert m is not None and m.group("ts") == TS and m.group("who") == "alice", p


def test_a_mark_copied_into_another_authors_pull_request_is_ignored(env: Env) -> None:
    tok = env.api.token("alice")["token"]
    r = _postmortem(env, tok)
    sid, number = r.json()["submission_id"], int(r.json()["pull_request"])
    env.forge.close(number)
    sid = _crash(env, sid, new_id="s_" + secrets.token_hex(12))  # no genuine mark left
    forged = env.forge.open_pull_request(
        files={"targets/demo/nodes/root/attempts/20260921T141320Z-mallory-postmortem.yaml":
               b"x: 1\n"}, title="not alice's", body=f"hi\n{openings.mark(sid)}\n",
        author="mallory")
    env.api.clock.advance(LEASE + 1)
    assert openings.reconcile(env.api.svc, _rows(env)) == {sid}
    row = next(x for x in _rows(env) if x.id == sid)
    assert row.state == "expired" and row.pull_request != str(forged.number)
