"""Operator-issued tokens: ``lemmata token issue|list|revoke`` on a network's own data
directory (ruling 14, issue 11).

Each test runs the real CLI (click's runner) on the data folder and database a running
service uses (the in-process app of tests/api_support.py), then uses the printed token
over HTTP. SQLite by default; the ``postgres`` tests use 127.0.0.1:5432, database
``test``, in a schema of their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fastapi.routing import APIRoute

from network.api import db
from network.cli import main
from tests.api_support import PG_URL, Api, auth, make_api, pg_schema

CLAIM = {"target": "demo", "node": "root"}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    """The service on SQLite in ``tmp_path/data``, graph ``tmp_path/graph``."""
    yield from make_api(tmp_path)


def _state(api: Api, url: str | None = None) -> list[str]:
    st = api.svc.settings
    out = ["--data", str(st.data_dir), "--graph", str(st.graph)]
    return out + (["--database-url", url] if url else [])


def _cli(api: Api, *args: str, url: str | None = None) -> Result:
    head, rest = list(args[:2]), list(args[2:])
    return CliRunner().invoke(main, head + rest + _state(api, url))


def _issue(api: Api, pseudonym: str, *extra: str, url: str | None = None) -> dict[str, Any]:
    r = _cli(api, "token", "issue", "--pseudonym", pseudonym, "--dco", "--operator", "olga",
             "--json", *extra, url=url)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)  # type: ignore[no-any-return]


def _refused(r: Result, code: str) -> None:
    assert r.exit_code == 1, r.output
    assert f"[{code}]" in r.output or code in r.output, r.output


def _check_flow(api: Api, url: str | None = None) -> None:
    receipt = _issue(api, "newcomer", url=url)
    assert receipt["created"] is True and receipt["token"].startswith("lmt_")
    assert receipt["recovery_code"].startswith("lmr_")
    assert receipt["vouched"]["by"] == "olga" and receipt["lapse_days"] >= 1
    tok = receipt["token"]
    r = api.client.post("/claims", json=CLAIM, headers=auth(tok))
    assert r.status_code == 201, r.text
    mine = api.client.get("/claims/mine", headers=auth(tok)).json()
    assert "newcomer" in json.dumps(mine), mine
    with api.svc.sessions() as s:
        ident = s.query(db.IdentityRow).filter_by(pseudonym_key="newcomer").one()
        assert (ident.proof_kind, ident.vouched_by) == ("operator", "olga")
        assert ident.vouched_at is not None and ident.dco_version == api.svc.settings.dco_version
    listed = _cli(api, "token", "list", "--json", url=url)
    assert listed.exit_code == 0, listed.output
    [row] = json.loads(listed.output)
    assert (row["pseudonym"], row["vouched_by"], row["live_tokens"]) == ("newcomer", "olga", 1)
    ledger = api.client.get("/ledger.json").json()
    assert ledger["vouched"] == {"newcomer": {"by": "olga", "at": row["vouched_at"]}}
    gone = _cli(api, "token", "revoke", "--pseudonym", "NEWCOMER", url=url)
    assert gone.exit_code == 0, gone.output
    assert json.loads(gone.output) == {"pseudonym": "newcomer", "tokens_retired": 1,
                                       "recovery_codes_retired": 1, "sessions_ended": 0}
    r = api.client.post("/claims", json={"target": "demo", "node": "proved"},
                        headers=auth(tok))
    assert r.status_code == 401 and r.json()["code"] == "token-invalid", r.text
    assert "operator revocation" in r.json()["detail"], r.text
    r = api.client.post("/tokens/recover", json={"pseudonym": "newcomer",
                                                 "recovery_code": receipt["recovery_code"]})
    assert r.json()["code"] == "recovery-invalid", r.text
    [row] = json.loads(_cli(api, "token", "list", "--json", url=url).output)
    assert row["live_tokens"] == 0
    again = _issue(api, "newcomer", url=url)  # the operator may vouch for it once more
    assert again["created"] is False
    r = api.client.get("/claims/mine", headers=auth(again["token"]))
    assert r.status_code == 200, r.text
    assert api.client.get("/claims/mine", headers=auth(tok)).status_code == 401


def test_issue_authenticates_a_write_list_shows_it_revoke_retires_it(api: Api) -> None:
    _check_flow(api)


def test_printed_receipt_shows_token_recovery_code_and_how_to_use_it(api: Api) -> None:
    r = _cli(api, "token", "issue", "--pseudonym", "printer", "--dco", "--operator", "olga")
    assert r.exit_code == 0, r.output
    tok = re.search(r"^token:\s+(lmt_\S+)$", r.output, re.MULTILINE)
    assert tok and re.search(r"^recovery code:\s+lmr_\S+$", r.output, re.MULTILINE)
    assert f"Authorization: Bearer {tok.group(1)}" in r.output
    assert "LEMMATA_TOKEN=" in r.output and "vouched by olga" in r.output
    assert r.output.count(tok.group(1)) == 3  # the line, the header, the stdio hint
    listed = _cli(api, "token", "list")
    assert "printer\tvouched by olga" in listed.output and "lmt_" not in listed.output


def test_without_dco_nothing_is_issued(api: Api) -> None:
    r = _cli(api, "token", "issue", "--pseudonym", "nodco", "--operator", "olga")
    _refused(r, "dco-not-accepted")
    with api.svc.sessions() as s:
        assert s.query(db.IdentityRow).count() == 0


@pytest.mark.parametrize("name,code", [
    ("admin", "pseudonym-reserved"),        # the service's reserved names
    ("OPERATOR", "pseudonym-reserved"),     # case-insensitively
    ("steve", "pseudonym-reserved"),        # the graph's steward: a role pseudonym
    ("STEVE", "pseudonym-reserved"),
    ("r00t", "pseudonym-confusable"),       # looks like reserved `root`
    ("5teve", "pseudonym-confusable"),      # looks like the steward
    ("bad/name", "pseudonym-invalid"),
    ("аlice", "pseudonym-invalid"),         # Cyrillic а: not ASCII
])
def test_reserved_role_and_look_alike_pseudonyms_are_refused(api: Api, name: str,
                                                             code: str) -> None:
    _refused(_cli(api, "token", "issue", "--pseudonym", name, "--dco", "--operator", "olga"),
             code)
    with api.svc.sessions() as s:
        assert s.query(db.IdentityRow).count() == 0 and s.query(db.TokenRow).count() == 0


def test_existing_identities_are_neither_taken_over_nor_imitated(api: Api) -> None:
    api.token("alice")  # a GitHub-proved identity
    _refused(_cli(api, "token", "issue", "--pseudonym", "ALICE", "--dco", "--operator",
                  "olga"), "pseudonym-taken")
    _refused(_cli(api, "token", "issue", "--pseudonym", "aIice", "--dco", "--operator",
                  "olga"), "pseudonym-confusable")
    _issue(api, "ophelia")
    r = api.client.post("/tokens", json={"pseudonym": "0phelia", "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-x"}})
    assert r.json()["code"] == "pseudonym-confusable", r.text
    r = api.client.post("/tokens", json={"pseudonym": "ophelia", "dco": "1.1",
                                         "proof": {"kind": "github", "token": "gh-ophelia"}})
    assert r.json()["code"] == "pseudonym-taken", r.text  # GitHub cannot take it over


@pytest.mark.parametrize("operator", ["", "two words", "x" * 65, "olga\nroot"])
def test_operator_name_must_be_a_name(api: Api, operator: str) -> None:
    _refused(_cli(api, "token", "issue", "--pseudonym", "someone", "--dco", "--operator",
                  operator), "operator-invalid")


def test_revoke_of_an_unknown_identity_is_refused(api: Api) -> None:
    _refused(_cli(api, "token", "revoke", "--pseudonym", "ghost"), "identity-unknown")


def test_no_http_route_or_mcp_tool_issues_operator_tokens(api: Api) -> None:
    """D-35: POST /tokens stays the one endpoint that makes an identity; the operator's
    act is the CLI's alone."""
    from network.api import tools
    from network.api.identity import identity

    touching = {(m, r.path) for r in api.app.routes if isinstance(r, APIRoute)
                for m in r.methods if "token" in r.path or "identit" in r.path
                or "vouch" in r.path or "operator" in r.path}
    assert touching == {("POST", "/tokens"), ("POST", "/tokens/renew"),
                        ("POST", "/tokens/recover")}
    for r in api.app.routes:
        fn = getattr(r, "endpoint", None)
        assert getattr(fn, "__wrapped__", fn) not in (identity.issue_operator_token,
                                                      identity.revoke_tokens)
    impls = {op.function for op in tools.TOOLS}
    assert identity.issue_token in impls  # the table is the one the service serves
    assert not impls & {identity.issue_operator_token, identity.revoke_tokens,
                        identity.vouched_identities}
    assert not [op.tool for op in tools.TOOLS if "vouch" in op.tool or "operator" in op.tool]


@pytest.fixture
def pg_api(tmp_path: Path) -> Iterator[tuple[Api, str]]:
    """The service on PostgreSQL in a schema of its own (dropped afterwards), and the URL
    the CLI opens the same schema with."""
    with pg_schema() as schema:
        for a in make_api(tmp_path, settings={"database_url": PG_URL},
                          engine_connect_args={"options": f"-csearch_path={schema}"}):
            yield a, f"{PG_URL}?options=-csearch_path%3D{schema}"


@pytest.mark.postgres
def test_issue_list_revoke_on_postgres(pg_api: tuple[Api, str]) -> None:
    api, url = pg_api
    _check_flow(api, url)
    with api.svc.sessions() as s:  # the CLI wrote into the service's own schema
        assert s.query(db.IdentityRow).filter_by(proof_kind="operator").count() == 1


def _up_network(tmp_path: Path, root: Path) -> Iterator[Any]:
    """The in-process service over a ``lemmata up`` data directory ``root``: its forge
    seeded from a project's graph/ (steward ``steve``), its ``state.db``."""
    from fastapi.testclient import TestClient

    from network import up
    from network.api.app import create_app
    from network.api.graphs import GraphProvider
    from network.api.settings import ServiceSettings
    from network.record.read.loader import load_graph
    from tests.api_support import FakeClock, github_verifier
    from tests.graphs import GraphBuilder, git_commit

    project = tmp_path / "project"
    b = GraphBuilder(project / "graph")
    b.base()
    b.target("demo")
    b.node("demo", "root")
    git_commit(project, "graph")
    data = up.DataDir(root)
    root.mkdir(parents=True)
    up.seed_forge(data.forge, project / "graph")
    st = ServiceSettings(data_dir=root, database_url=data.database_url, graph=data.forge)
    app = create_app(st, graph_loader=GraphProvider(lambda: load_graph(data.forge, up.MAIN)),
                     github_verifier=github_verifier, clock=FakeClock())
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize("explicit", [True, False])
def test_an_up_data_directory_is_read_as_up_runs_it(tmp_path: Path, explicit: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``--data .lemmata`` (or nothing, from the folder `make run` ran in) opens up's
    state.db and reads the reserved roles from its forge's main branch."""
    monkeypatch.chdir(tmp_path)  # no graph/ here: the roles can come only from the forge
    root = tmp_path / ".lemmata"
    for client in _up_network(tmp_path, root):
        where = ["--data", str(root)] if explicit else []
        r = CliRunner().invoke(main, ["token", "issue", "--pseudonym", "steve", "--dco",
                                      "--operator", "olga", *where])
        _refused(r, "pseudonym-reserved")  # the forge graph's steward
        r = CliRunner().invoke(main, ["token", "issue", "--pseudonym", "newbie", "--dco",
                                      "--operator", "olga", "--json", *where])
        assert r.exit_code == 0, r.output
        tok = json.loads(r.output)["token"]
        r2 = client.post("/claims", json=CLAIM, headers=auth(tok))
        assert r2.status_code == 201, r2.text
        assert (root / "state.db").exists() and not (root / "service.sqlite3").exists()
        assert not (tmp_path / "lemmata-data").exists()


def test_the_site_says_which_contributors_an_operator_vouched_for(tmp_path: Path) -> None:
    """``lemmata site build --database-url`` reads the vouches; bob's page names the
    operator, alice's (not vouched) does not."""
    from tests.site_support import require_dot
    from tests.sitegraph import build_rich_graph

    require_dot()
    graph, data, out = tmp_path / "graph", tmp_path / "data", tmp_path / "site"
    _, sha = build_rich_graph(graph)
    assert sha is not None
    url = f"sqlite:///{data / 'service.sqlite3'}"
    data.mkdir()
    db.migrate(db.make_engine(url))  # the database a service on this folder made
    r = CliRunner().invoke(main, ["token", "issue", "--pseudonym", "bob", "--dco",
                                  "--operator", "olga", "--data", str(data),
                                  "--graph", str(graph)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["site", "build", str(graph), str(out), "--commit", sha,
                                  "--strict", "--database-url", url])
    assert r.exit_code == 0, r.output
    bob = (out / "contributors" / "bob.html").read_text(encoding="utf-8")
    assert "Operator-vouched" in bob and "<strong>olga</strong>" in bob
    alice = (out / "contributors" / "alice.html").read_text(encoding="utf-8")
    assert "Operator-vouched" not in alice
    index = (out / "contributors" / "index.html").read_text(encoding="utf-8")
    assert index.count("operator-vouched by olga") == 1


def test_a_folder_no_network_runs_on_is_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A token written into a fresh database would reach no service: refused, nothing made."""
    monkeypatch.chdir(tmp_path)
    for where in (["--data", str(tmp_path / "elsewhere")], []):
        r = CliRunner().invoke(main, ["token", "issue", "--pseudonym", "lost", "--dco",
                                      "--operator", "olga", *where])
        _refused(r, "network-state-missing")
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "lemmata-data").exists()
