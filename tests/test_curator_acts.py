"""A curator's acts on the record, end to end on a ``make run``-like network (issue 40,
"Done when": the curator ``operator`` withdraws a status record or corrects a ledger line).

``POST /status-records`` (D-33), ``POST /withdrawals`` (D-18 v3.27) and ``POST
/corrections`` (D-19 v3.27) are person routes on a web session: the graph's curator
``operator`` (graph/curators.json) gets in by the operator's command, each act is signed
with the network's approval key for them and opened as one pull request, the merge queue
(the gate's own, with the recorded Lean stand-in) merges it, and the derivations then show
it: the target's status, the withdrawn record read as absent, the corrected ledger line
revoked and rewritten by the post-merge job. A person who is no curator, an unknown target,
record or line, and a malformed body are refused with catalog codes and open nothing; a
correction filed by hand is judged at step 2 as the service judges it.

The network is tests/test_operator_way_in.py's: the repository's graph/ on a LocalForge in a
data folder laid out as ``lemmata up`` lays it out, the service in process.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from network.api.submit.record_pr import dump_json, gate_findings
from network.record import derive, trust
from network.record import models as m
from tests.test_operator_way_in import (
    ORIGIN,
    Net,
    csrf,
    make_run_graph,
    net,
    passed,
    refused,
    signed_in,
)

#: the network fixtures of tests/test_operator_way_in.py, used here by name
FIXTURES = (make_run_graph, net)
TARGET = "erdos-11"
CALIBRATION = "infinite-primes"
PM = {"route": "strong induction", "route_class": "induction", "outcome": "exhausted",
      "terminal_goal_state": "n : ℕ\n⊢ P n", "failure_class": "missing-library"}


def curator(n: Net) -> TestClient:
    """``operator``, the graph's curator, signed in by the operator's link once the
    binding the command files has merged."""
    made = n.ok("token", "issue", "--pseudonym", "operator", "--dco", "--holds-role",
                "--operator", "olga")
    assert made["binding"]["opened"] is True, made
    passed(n.merge_all(), 1)
    c = signed_in(n, "operator")
    assert c.get("/session", headers=ORIGIN).json()["roles"]["curator"] == ["*"]
    return c


def stranger(n: Net) -> tuple[TestClient, str]:
    """``pat``, an identity with no role, signed in the same way; and pat's token."""
    tok = n.ok("token", "issue", "--pseudonym", "pat", "--dco", "--operator", "olga")
    c = signed_in(n, "pat")
    passed(n.merge_all(), 1)  # the binding the link filed
    return c, str(tok["token"])


def pats_postmortem(n: Net, tok: str) -> Any:
    """pat files a postmortem of the calibration root with ``tok`` and it merges, earning
    pat an attempts line; the route's response."""
    r = n.client.post("/postmortems", json={"target_id": CALIBRATION, "node_id": "root",
                                            "yaml": yaml.safe_dump(PM)},
                      headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 201, r.text
    passed(n.merge_all(), 1)
    return r


def act(c: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = c.post(path, json=body, headers=csrf(c))
    assert r.status_code == 201, (path, r.text)
    out: dict[str, Any] = r.json()
    return out


def approval_signed(n: Net, path: str, signer: str) -> None:
    """The merged record at ``path`` carries the approval key's signature for ``signer``,
    and it verifies against main's keys."""
    g = n.main()
    text = g.text(path)
    obj = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    sig = obj["signature"]
    assert sig["kind"] == "approval" and sig["signer"] == signer, sig
    model = {".json": m.Correction}.get(path[-5:]) or (
        m.TargetStatusRecord if "/status/" in path else m.Withdrawal)
    rec = model.model_validate(obj)
    assert rec.signature is not None
    trust.check_role_signature(rec, rec.signature, actors=frozenset({signer}),
                               holds=lambda who, _d: who == signer,
                               at_date=str(derive.now(g)), keys=g.keys,
                               identities=g.identities)


def test_the_curator_declares_a_status_and_withdraws_it(net: Net) -> None:
    c = curator(net)
    assert derive.target_status(net.main(), TARGET).status == "listed"
    before = len(net.forge.list_all())
    got = act(c, "/status-records", {"target_id": TARGET, "declaration": "known-result",
                                     "reasoning": "Settled in the literature, per the "
                                     "problem's page."})
    assert len(net.forge.list_all()) == before + 1  # one pull request
    (path,) = got["paths"]
    assert path.startswith(f"targets/{TARGET}/status/") and path.endswith("-1.yaml"), path
    passed(net.merge_all(), 1)
    g = net.main()
    st = derive.target_status(g, TARGET)
    assert (st.status, st.declaration) == ("known-result", path)
    approval_signed(net, path, "operator")
    # the curator withdraws it: it stays in the tree and reads as absent
    got = act(c, "/withdrawals", {"record": path, "reason": "Declared on the wrong "
                                  "target's evidence."})
    (wpath,) = got["paths"]
    assert wpath.startswith(f"targets/{TARGET}/withdrawals/") and "-operator" in wpath
    passed(net.merge_all(), 1)
    g = net.main()
    assert path in g.files and path in derive.withdrawn(g)
    assert derive.target_status(g, TARGET).status == "listed"
    approval_signed(net, wpath, "operator")
    # a withdrawn record is withdrawn once
    opened = len(net.forge.list_all())
    refused(c.post("/withdrawals", json={"record": path, "reason": "again"},
                   headers=csrf(c)), "withdrawal-record-unknown")
    assert len(net.forge.list_all()) == opened


def test_a_dormancy_declaration_without_d33_evidence_is_refused_before_a_pull_request(
        net: Net) -> None:
    c = curator(net)
    opened = len(net.forge.list_all())
    refused(c.post("/status-records", json={"target_id": TARGET, "declaration": "dormant",
                                            "reasoning": "Nothing has moved."},
                   headers=csrf(c)), "dormancy-evidence-insufficient")
    assert len(net.forge.list_all()) == opened
    assert derive.target_status(net.main(), TARGET).status == "listed"


def test_the_curator_corrects_a_ledger_line(net: Net) -> None:
    c = curator(net)
    _, tok = stranger(net)
    pats_postmortem(net, tok)
    (line,) = [v for v in derive.ledger_views(net.main())["pat"] if v["line"] == "attempts"]
    assert not line["revoked"]
    before = len(net.forge.list_all())
    got = act(c, "/corrections", {"line": line["path"], "should_be": "quinn",
                                  "reason": "quinn ran the attempt; pat only filed it."})
    assert len(net.forge.list_all()) == before + 1
    (cpath,) = got["paths"]
    assert cpath.startswith(f"ledger/{line['merge_seq']:06d}-"), cpath  # its line's merge
    assert got["record"]["credited"] == "pat" and got["record"]["by"] == "operator"
    passed(net.merge_all(), 1)
    g = net.main()
    views = derive.ledger_views(g)
    old = next(v for v in views["pat"] if v["path"] == line["path"])
    assert old["revoked"] and old["corrections"] == [cpath], old
    (new,) = views["quinn"]
    assert (new["line"], new["artifact"]) == ("attempts", line["artifact"])
    assert cpath in (new["annotation"] or "")
    assert derive.pending_corrections(g) == []  # applied once
    # the correction's run is a gate-log line of its line's target, published, as every
    # target-level record's run is, under the target's root (issue 40)
    from network.site.gate_log import gate_log_rows

    (row,) = [r for r in gate_log_rows(g) if cpath in r["artifacts"]]
    assert (row["target"], row["node"], row["verdict"], row["code"]) == \
        (line["target"], "root", "pass", None), row
    assert row["words"] == "correction recorded" and row["submitter"] == "operator", row
    approval_signed(net, cpath, "operator")
    # the line is revoked: a second correction would change nothing, and is refused
    opened = len(net.forge.list_all())
    refused(c.post("/corrections", json={"line": line["path"], "should_be": "rae",
                                         "reason": "r"}, headers=csrf(c)),
            "correction-does-not-apply")
    assert len(net.forge.list_all()) == opened


def test_a_person_who_is_no_curator_is_refused_every_curator_act(net: Net) -> None:
    curator(net)
    c, tok = stranger(net)
    r = pats_postmortem(net, tok)
    g = net.main()
    (line,) = [v["path"] for v in derive.ledger_views(g)["pat"]]
    pm = r.json()["paths"][0]
    opened = len(net.forge.list_all())
    for path, body in (
            ("/status-records", {"target_id": TARGET, "declaration": "active",
                                 "reasoning": "Work goes on."}),
            ("/withdrawals", {"record": pm, "reason": "Mine, but I am no curator."}),
            ("/corrections", {"line": line, "should_be": "quinn", "reason": "r"})):
        refused(c.post(path, json=body, headers=csrf(c)), "role-not-permitted")
    assert len(net.forge.list_all()) == opened


@pytest.mark.parametrize(("path", "body", "code"), [
    ("/status-records", {"target_id": "no-such-target", "declaration": "active",
                         "reasoning": "r"}, "target-not-found"),
    ("/status-records", {"target_id": TARGET, "declaration": "closed", "reasoning": "r"},
     "bad-request"),
    ("/status-records", {"target_id": TARGET, "declaration": "active", "reasoning": "r",
                         "curator": "someone"}, "bad-request"),
    ("/status-records", {"target_id": TARGET, "declaration": "active", "reasoning": ""},
     "bad-request"),
    ("/withdrawals", {"record": f"targets/{TARGET}/status/2026-01-01-1.yaml",
                      "reason": "r"}, "withdrawal-record-unknown"),
    ("/withdrawals", {"record": f"targets/{TARGET}/nodes/root/Statement.lean",
                      "reason": "r"}, "withdrawal-record-unknown"),
    ("/withdrawals", {"record": f"targets/{TARGET}/target.yaml", "reason": "r"},
     "withdrawal-record-unknown"),
    ("/withdrawals", {"record": "../../etc/passwd", "reason": "r"},
     "withdrawal-record-unknown"),
    ("/withdrawals", {"record": f"targets/{TARGET}/status/x.yaml"}, "bad-request"),
    ("/corrections", {"line": "ledger/000999-1.json", "reason": "r"},
     "correction-line-unknown"),
    ("/corrections", {"line": "log/merges/000001.json", "reason": "r"},
     "correction-line-unknown"),
    ("/corrections", {"line": "ledger/000001-1.json", "reason": "r", "by": "x"},
     "bad-request"),
])
def test_unknown_subjects_and_malformed_bodies_are_refused_and_open_nothing(
        net: Net, path: str, body: dict[str, Any], code: str) -> None:
    c = curator(net)
    opened = len(net.forge.list_all())
    refused(c.post(path, json=body, headers=csrf(c)), code)
    assert len(net.forge.list_all()) == opened


def test_the_curator_acts_need_a_web_session(net: Net) -> None:
    made = net.ok("token", "issue", "--pseudonym", "operator", "--dco", "--holds-role",
                  "--operator", "olga")
    passed(net.merge_all(), 1)
    auth = {"Authorization": f"Bearer {made['token']}"}
    for path in ("/status-records", "/withdrawals", "/corrections"):
        refused(net.client.post(path, json={}, headers=auth), "session-missing")


# --- a correction filed by hand meets the same rules at step 2 --------------------------


def _hand_correction(g: Any, line: str, path: str, **kw: Any) -> dict[str, bytes | None]:
    seq, k = path.removeprefix("ledger/").removesuffix(".json").split("-")
    rec = {"schema": "correction/v1", "merge_seq": int(seq), "k": int(k), "corrects": line,
           "credited": "pat", "should_be": "quinn", "reason": "r", "by": "operator", **kw}
    return {path: dump_json({k2: v for k2, v in rec.items() if v is not None})}


@pytest.fixture()
def credited(net: Net) -> tuple[Net, str, int]:
    """pat's postmortem merged with its attempts line; the curator bound."""
    curator(net)
    _, tok = stranger(net)
    pats_postmortem(net, tok)
    (v,) = derive.ledger_views(net.main())["pat"]
    return net, str(v["path"]), int(v["merge_seq"])


@pytest.mark.parametrize(("change", "submitter", "code"), [
    ({}, "operator", "role-act-unsigned"),  # filed by hand without a signature
    ({"by": "pat"}, "pat", "role-not-permitted"),  # no curator
    ({"credited": "rae"}, "operator", "correction-does-not-apply"),
    ({"should_be": "pat"}, "operator", "correction-does-not-apply"),
    ({"misplace": True}, "operator", "correction-misplaced"),
    ({"future": True}, "operator", "correction-misplaced"),  # a later merge's slot
    ({"corrects": "ledger/000999-1.json"}, "operator", "correction-line-unknown"),
])
def test_a_hand_filed_correction_is_judged_at_step_2(
        credited: tuple[Net, str, int], change: dict[str, Any], submitter: str,
        code: str) -> None:
    n, line, seq = credited
    g = n.main()
    misplace = change.pop("misplace", False)
    future = change.pop("future", False)
    path = f"ledger/{seq + 50 if future else seq:06d}-{7 if not misplace else 8}.json"
    files = _hand_correction(g, change.pop("corrects", line), path, **change)
    if misplace:
        files = {path: dump_json({**json.loads(files[path] or b"{}"), "k": 7})}
    codes = [d.code for d in gate_findings(g, files, submitter)]
    assert code in codes, codes


def test_a_ledger_line_added_by_hand_is_still_the_gates(credited: tuple[Net, str, int]) -> None:
    n, line, seq = credited
    g = n.main()
    obj = json.loads(g.text(line))
    files = {f"ledger/{seq:06d}-7.json": dump_json({**obj, "k": 7, "identity": "quinn"})}
    assert [d.code for d in gate_findings(g, files, "operator")] == ["gate-only-path"]
