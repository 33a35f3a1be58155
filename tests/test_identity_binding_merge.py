"""An approval-signed ``identities/`` binding (ruling 9, issue 13) merges through the
LocalForge queue: its run and attestation ride on the graph's first target, as
curators.json's do, and the merged binding is what derive reads. Before, the gate built an
attestation with an empty target and the pull request closed ``gate-internal-error``."""

from __future__ import annotations

import yaml

from network.api.identity import role_acts
from network.record import models as m
from tests.test_proof_reviews import Env, env  # noqa: F401 - the LocalForge service fixture


def _binding(envr: Env, pseudonym: str, login: str) -> bytes:
    who = envr.who(pseudonym)
    rec = {"schema": "identity/v1", "pseudonym": pseudonym, "github": login,
           "since": "2026-06-01"}
    return yaml.safe_dump(role_acts.sign_role_act(envr.svc, m.Identity, rec, who)).encode()


def test_a_signed_binding_merges_and_is_read(env: Env) -> None:  # noqa: F811
    pr = env.forge.open_pull_request(files={"identities/newbie.yaml": _binding(
        env, "newbie", "newbie")}, title="bind", body="a login's binding", author="newbie")
    items = env.run_queue()
    assert [i.verdict for i in items] == ["pass"], items
    assert env.forge.get(pr.number).state == "merged"
    main = env.main()
    assert main.identities["newbie"].github == "newbie"
    att = [a.record for a in main.attestations if a.record.artifact_kind == "identity"]
    assert att and att[0].target == min(main.targets) and att[0].verdict == "pass"


def test_a_second_binding_of_a_bound_login_is_refused_by_the_queue(env: Env) -> None:  # noqa: F811
    # steve's login is bound to steve on the base graph (the fixture's identities/)
    pr = env.forge.open_pull_request(files={"identities/mallory.yaml": _binding(
        env, "mallory", "steve")}, title="bind", body="a squatter", author="mallory")
    items = env.run_queue()
    assert [i.verdict for i in items] == ["fail"], items
    assert env.forge.get(pr.number).state == "closed"
    assert "mallory" not in env.main().identities
