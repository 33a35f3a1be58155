"""The ``lemmata`` command: one boundary from errors to exit codes (STYLE.md rule 1).

Exit codes: 0 pass, 1 a check that failed (a refusal with a catalog code), 3 a bug.
``--debug`` re-raises instead of mapping.

The boundary is :mod:`network.cli_base`'s; the gate's, pregate's and toolchain's commands
are :mod:`network.cli_gate`'s, the target re-pin :mod:`network.cli_target`'s (issue 37) and
the trainer's :mod:`network.cli_trainer`'s, registered on :func:`main` here (issue 17).
Every name of those modules a caller used is re-exported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from network.cli_base import EXIT_BUG, EXIT_FAILED, EXIT_HELD, EXIT_OK, guarded
from network.cli_gate import gate_group, pregate_cmd, toolchain_group
from network.cli_target import target_group
from network.cli_trainer import trainer_group
from network.errors import LemmataError, ValidationFailed
from network.record import schemas

__all__ = [
    "EXIT_BUG",
    "EXIT_FAILED",
    "EXIT_HELD",
    "EXIT_OK",
    "gate_group",
    "guarded",
    "import_erdosproblems",
    "import_formal_conjectures",
    "import_group",
    "main",
    "mcp_cmd",
    "pregate_cmd",
    "products",
    "schemas_cmd",
    "serve",
    "session_group",
    "session_link",
    "sign_record",
    "site_build",
    "site_group",
    "target_group",
    "token_group",
    "token_issue",
    "token_list",
    "token_revoke",
    "toolchain_group",
    "trainer_group",
    "up",
    "validate",
]

if TYPE_CHECKING:
    from network.api.settings import ServiceSettings



@click.group()
@click.option("--debug", is_flag=True, help="Re-raise errors with a traceback.")
def main(debug: bool) -> None:
    """Lemmata: a git-backed proof network for open mathematics."""


@main.command("sign-record")
@click.argument("path", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--graph", "graph", type=click.Path(path_type=Path, file_okay=False),
              default=Path("."), show_default=True,
              help="The graph work tree the record lies in (its root).")
@click.option("--key", "key_path", required=True,
              type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="Your private SSH key: the one identities/<signer>.yaml lists.")
@click.option("--signer", required=True, help="Your pseudonym: the record's actor.")
@guarded
def sign_record(path: Path, graph: Path, key_path: Path, signer: str) -> int:
    """Sign a role act (shelving, dispute, dormancy, steward, a withdrawal of another's
    record, a steward's literature reading) in place with your SSH key, for a plain-git
    pull request (ruling 9, ruling 14). The gate verifies it against identities/."""
    from network.gate.artifacts import Kind, record_model
    from network.record import layout, trust

    try:
        rel = path.resolve().relative_to(graph.resolve()).as_posix()
    except ValueError as exc:
        raise LemmataError("path-not-permitted", f"{path} is not inside {graph}") from exc
    found = layout.match(rel)
    model = record_model(Kind(found[0].kind)) if found and found[0].kind else None
    if found is None or not found[0].record or model is None:
        raise LemmataError("path-not-permitted", f"{rel} is not a record a role signs")
    signed = trust.sign_record_ssh(rel, path.read_bytes(), model, key_path, signer)
    tmp = path.with_name(path.name + ".signing")
    tmp.write_bytes(signed)
    tmp.replace(path)  # atomic: the record is either as it was or signed
    click.echo(f"signed {rel} as {signer}")
    return EXIT_OK


@main.command()
@click.argument("graph", type=click.Path(path_type=Path))
@click.option("--commit", default=None, help="Read this git revision instead of the work tree.")
@guarded
def validate(graph: Path, commit: str | None) -> int:
    """Check every file of GRAPH against its schema; report all problems at once."""
    from network.record.validate import validate_graph

    problems = validate_graph(graph, commit)
    if problems:
        raise ValidationFailed(problems)
    click.echo("ok: the graph is valid")
    return EXIT_OK


@main.command()
@click.argument("graph", type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Exit 1 naming each product that differs.")
@click.option("--commit", default=None, help="Read this git revision instead of the work tree.")
@guarded
def products(graph: Path, check: bool, commit: str | None) -> int:
    """Write (or --check) the derived products of GRAPH, byte-for-byte deterministic."""
    from network.record.products.products import check_products, write_products
    from network.record.read.loader import load_graph

    g = load_graph(graph, commit)
    if check:
        differ = check_products(g, graph)
        for path in differ:
            click.echo(f"differs: {path}", err=True)
        if differ:
            raise LemmataError("products-differ", f"{len(differ)} product file(s) differ")
        click.echo("ok: products are up to date")
        return EXIT_OK
    written = write_products(g, graph)
    click.echo(json.dumps({"written": len(written)}))
    return EXIT_OK


@main.command("schemas")
@click.option("--check", "check_", is_flag=True,
              help="Exit 1 naming each schema that differs from its model or is missing.")
@click.option("--write", "write_", is_flag=True, help="Write the missing schema files.")
@click.option("--force", is_flag=True,
              help="With --write, rewrite changed files too (only before first publication).")
@click.option("--root", type=click.Path(path_type=Path), default=None,
              help="The schemas folder (default: this repository's schemas/).")
@guarded
def schemas_cmd(check_: bool, write_: bool, force: bool, root: Path | None) -> int:
    """List, --check or --write the JSON Schemas of every record kind (D-34, ruling 10)."""
    base = root or schemas.SCHEMAS_DIR
    if write_:
        written = schemas.write(base, force=force)
        for rel in written:
            click.echo(f"wrote: {rel}")
        click.echo(f"{len(written)} schema file(s) written")
    differ = schemas.check(base)
    if check_:
        for line in differ:
            click.echo(f"differs: {line}", err=True)
        if differ:
            raise LemmataError("schemas-differ", f"{len(differ)} schema file(s) differ")
        click.echo(f"ok: {len(schemas.all_kinds())} schemas match their models")
        return EXIT_OK
    if not write_:
        bad = {line.split(":", 1)[0] for line in differ}
        for kind in schemas.all_kinds():
            rel = schemas.schema_path(kind)
            click.echo(f"{kind}\t{'differs' if rel in bad else 'ok'}")
    return EXIT_OK


def _state_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options ``serve`` and ``mcp`` share: --data, --database-url, --graph."""
    fn = click.option("--graph", type=click.Path(path_type=Path), default=None,
                      help="The graph repository to serve (default ./graph).")(fn)
    fn = click.option("--database-url", default=None,
                      help="SQLAlchemy URL (default: SQLite in the data folder).")(fn)
    return click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
                        help="The network's data directory (default ./.lemmata, the one "
                        "`lemmata up` runs on).")(fn)


def _service_settings(**given: Any) -> ServiceSettings:
    """ServiceSettings from the environment, overridden by the flags actually given."""
    from network.api.settings import ServiceSettings

    flags: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    return ServiceSettings(**flags)


@main.command()
@click.option("--host", default=None, help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="TCP port (default 8000).")
@_state_options
@click.option("--forge", type=click.Choice(["local", "github"]), default=None,
              help="Where pull requests open: the data folder's LocalForge (default) or "
              "GitHub (token from $LEMMATA_GITHUB_TOKEN).")
@click.option("--github-repo", default=None, metavar="OWNER/NAME",
              help="The graph repository on GitHub, with --forge github.")
@guarded
def serve(host: str | None, port: int | None, data_dir: Path | None,
          database_url: str | None, graph: Path | None, forge: str | None,
          github_repo: str | None) -> int:
    """Run the protocol service (D-35) with the MCP adapter at /mcp (D-28)."""
    import uvicorn

    from network.api.app import create_app

    settings, loader = _network_settings(host=host, port=port, data_dir=data_dir,
                                         database_url=database_url, graph=graph, forge=forge,
                                         github_repo=github_repo)
    from network.record.read import blob_cache

    blob_cache.configure(blob_cache.default_dir(settings.data_dir))  # issue 17
    app = create_app(settings, graph_loader=loader, **_service_parts(settings))
    uvicorn.run(app, host=settings.host, port=settings.port)
    return EXIT_OK


def _network_settings(*, record: bool = True, **given: Any) -> tuple[ServiceSettings, Any]:
    """The settings of a process on a network's data directory, and the graph it serves.

    Every process on one data directory serves one state (issue 11): the database is the
    one the directory's ``service.json`` names (checked by
    :meth:`network.up.DataDir.bind_database`; SQLite in WAL mode or a shared PostgreSQL
    URL), and in a ``lemmata up`` directory (one holding ``forge.git``) the graph is its
    forge's main branch unless ``--graph``/``LEMMATA_GRAPH`` says otherwise.

    Returns:
        ``(settings, graph_loader)``; ``graph_loader`` is None where ``settings.graph`` is
        served.

    Raises:
        LemmataError: ``data-dir-other-database``; ``data-dir-invalid``.
    """
    from network.up import DataDir

    settings = _service_settings(**given)
    data = DataDir(settings.data_dir)
    data.bind_database(settings.resolved_database_url(), given=settings.database_url is not None,
                       record=record)
    loader = None
    if "graph" not in settings.model_fields_set and (data.forge / "HEAD").exists():
        loader = data.graph_provider()
    return settings, loader


def _service_parts(settings: ServiceSettings) -> dict[str, Any]:
    """The keys (created on first run, D-35: the service key signs precheck attestations)
    and the forge submissions open pull requests on: GitHubForge when ``settings.forge``
    is ``github``, else the LocalForge repository the data folder holds (``lemmata up``'s
    ``forge.git``), if any, with the :class:`~network.api.service.HeartbeatQueue` of the
    merge queue that writes ``queue-heartbeat.json`` there (issue 16).

    Raises:
        LemmataError: ``forge-misconfigured`` (github without a repository or token).
    """
    from sqlalchemy.orm import sessionmaker

    from network.api import db
    from network.forge.local import LocalForge
    from network.up import DataDir, ensure_keys

    data = DataDir(settings.data_dir)
    data.root.mkdir(parents=True, exist_ok=True)
    parts: dict[str, Any] = {"keys": ensure_keys(data)}
    if settings.forge == "github":
        parts["forge"] = _github_forge(settings, parts["keys"].get("service"))
    elif (data.forge / "HEAD").exists():
        from network.api.service import HeartbeatQueue
        from network.gate.queue.queue_health import HEARTBEAT_FILE

        engine = db.make_engine(settings.resolved_database_url())
        db.migrate(engine)
        parts["forge"] = LocalForge(data.forge, sessionmaker(engine, expire_on_commit=False))
        # the queue runs elsewhere (`lemmata up` on this data folder): its heartbeat says
        # whether it is up; without one, writes that open a pull request are refused
        parts["queue"] = HeartbeatQueue(data.root / HEARTBEAT_FILE, settings.queue_stale_s,
                                        settings.queue_max_failures)
    return parts


def _github_forge(settings: ServiceSettings, submitter_key: Any = None) -> Any:
    """GitHubForge on ``settings.github_repo`` with ``$LEMMATA_GITHUB_TOKEN``; with
    ``submitter_key`` (the service key ``(key_id, key)``) its pull requests carry the signed
    ``lemmata-submitter`` block the trusted gate job credits (issue 11).

    Raises:
        LemmataError: ``forge-misconfigured`` when either is missing or malformed.
    """
    from network.forge.github import GitHubForge, parse_repo

    if not settings.github_repo:
        raise LemmataError("forge-misconfigured", "--forge github needs --github-repo "
                           "OWNER/NAME (or LEMMATA_GITHUB_REPO)")
    owner, name = parse_repo(settings.github_repo)
    token = settings.github_token.get_secret_value() if settings.github_token else ""
    if not token:
        raise LemmataError("forge-misconfigured", "LEMMATA_GITHUB_TOKEN is not set")
    return GitHubForge(owner, name, token, api_url=settings.github_api_url,
                       timeout_s=settings.github_timeout_s, submitter_key=submitter_key)


@main.command("mcp")
@_state_options
@guarded
def mcp_cmd(data_dir: Path | None, database_url: str | None, graph: Path | None) -> int:
    """Serve the MCP adapter over stdio (D-28); write tools use $LEMMATA_TOKEN when a call
    passes no token."""
    import os

    import anyio

    from network.api.app import create_app
    from network.api.tools import build_mcp

    settings, loader = _network_settings(data_dir=data_dir, database_url=database_url,
                                         graph=graph)
    app = create_app(settings, graph_loader=loader, **_service_parts(settings))
    server = build_mcp(app.state.svc, default_token=os.environ.get("LEMMATA_TOKEN"))
    anyio.run(server.run_stdio_async)
    return EXIT_OK


@main.group("token")
def token_group() -> None:
    """Operator-issued tokens (ruling 14, issue 11): acts of whoever holds a network's data
    directory, never HTTP routes (POST /tokens stays the one endpoint, D-35)."""


def _operator_service(data_dir: Path | None, database_url: str | None,
                      graph: Path | None) -> Any:
    """The :class:`network.api.service.Service` of a network's state, for an operator's
    act: the database the network's service opens (migrated) and the graph it serves (for
    the reserved and role pseudonyms). Starts no server, worker or forge.

    The data directory (``--data``, default ``.lemmata``: the one ``lemmata up`` runs
    on) is read as every process on it reads it (:func:`_network_settings`): the database
    its ``service.json`` names, and in a ``lemmata up`` directory its forge's main
    branch, unless ``--database-url``/``--graph`` say otherwise. The service's URL and
    the site's origin are the ones ``service.json`` records for the network last run on
    the folder (``lemmata up``, issue 40), unless ``LEMMATA_PUBLIC_URL`` or
    ``LEMMATA_SITE_ORIGIN`` say otherwise.

    Raises:
        LemmataError: ``network-state-missing`` when the SQLite database is not there (a
            token written into a new one would reach no service);
            ``data-dir-other-database``.
    """
    import time

    from sqlalchemy.orm import sessionmaker

    from network.api import db
    from network.api.graphs import GraphProvider
    from network.api.service import Service
    from network.up import DataDir

    settings, loader = _network_settings(record=False, data_dir=data_dir,
                                         database_url=database_url, graph=graph)
    # the running network's own addresses (issue 40), unless the environment names others
    served = {k: v for k, v in DataDir(settings.data_dir).addresses().items()
              if k not in settings.model_fields_set}
    if served:
        settings = settings.model_copy(update=served)
    url = settings.resolved_database_url()
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        raise LemmataError("network-state-missing", f"{settings.data_dir.resolve()} holds no "
                           "service database; no network runs on it")
    engine = db.make_engine(url)
    db.migrate(engine)
    return Service(settings=settings, engine=engine,
                   sessions=sessionmaker(engine, expire_on_commit=False),
                   graphs=loader or GraphProvider.for_path(settings.graph), clock=time.time)


def _filing_service(svc: Any) -> Any:
    """``svc`` as an operator's command files a record with it (issue 40): the data
    folder's LocalForge (``lemmata up``'s ``forge.git``) and the graph its main branch
    holds, and the keys the folder holds (none created). None where the folder holds no
    forge: nothing can be filed from here, and the receipt says so. The merge queue is
    not asked: a pull request opened while the network is stopped waits for it."""
    import dataclasses

    from network.forge.local import LocalForge
    from network.up import DataDir, existing_keys

    data = DataDir(svc.settings.data_dir)
    if not (data.forge / "HEAD").exists():
        return None
    return dataclasses.replace(svc, graphs=data.graph_provider(), keys=existing_keys(data),
                               forge=LocalForge(data.forge, svc.sessions), queue=None)


def _bind(svc: Any, pseudonym: str) -> dict[str, Any]:
    """File the operator binding of ``pseudonym`` from the data folder
    (:func:`network.api.people.identity_records.bind_operator_identity`), or say why not."""
    from network.api.people.identity_records import bind_operator_identity

    filer = _filing_service(svc)
    if filer is None:
        return {"state": "not-filed", "path": f"identities/{pseudonym}.yaml",
                "code": "forge-not-configured",
                "reason": f"{svc.settings.data_dir} holds no forge (forge.git): run this "
                          "on the data folder of `lemmata up`"}
    return bind_operator_identity(filer, pseudonym)


def _echo_binding(binding: dict[str, Any] | None) -> None:
    """One line saying where the identity's binding stands (issue 40)."""
    if binding is None:
        return
    state, path = binding["state"], binding["path"]
    if state == "on-record":
        click.echo(f"binding:       {path} is on main: the roles the graph names are this "
                   "identity's")
    elif state == "open":
        click.echo(f"binding:       {path} filed as pull request {binding['pull_request']}; "
                   "once the merge queue merges it, the roles the graph names are this "
                   "identity's")
    else:
        click.echo(f"binding:       not filed ({binding['code']}: {binding['reason']}); "
                   "until it is on main, an act resting on a role is refused")


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name known: --operator is then required
        return ""


def _name_graphs(svc: Any) -> list[Any]:
    """The graphs whose reserved and role names a new operator-vouched pseudonym is checked
    against (issue 39): the one ``--graph`` names, read at its ``main`` branch when it is a
    bare repository (a forge, such as ``lemmata up``'s ``forge.git``), and the forge main
    of a ``lemmata up`` data directory, which its service serves whatever ``--graph``
    says. A graph that cannot be read refuses the token (``graph-unavailable``)."""
    from network.api.graphs import GraphProvider
    from network.forge.types import MAIN
    from network.record.read import blob_cache
    from network.record.read.loader import load_graph
    from network.up import DataDir

    def at_main(repo: Path) -> Any:
        return GraphProvider(lambda: load_graph(repo, MAIN, cache=blob_cache.configured()))

    out = [svc.graphs]
    given = Path(svc.settings.graph)
    if "graph" in svc.settings.model_fields_set:
        if (given / "HEAD").is_file() and not (given / ".git").exists():
            out = [at_main(given)]  # a bare repository: its main is the record
        forge = DataDir(svc.settings.data_dir).forge
        if (forge / "HEAD").exists() and forge.resolve() != given.resolve():
            out.append(at_main(forge))
    return out


@token_group.command("issue")
@click.option("--pseudonym", required=True, help="The new identity's pseudonym (D-19 rules).")
@click.option("--dco", "dco", is_flag=True,
              help="Confirm that the identity's holder accepts the Developer Certificate of "
              "Origin (GET /dco.json) in its current version; refused without it.")
@click.option("--operator", default=None,
              help="Your name, recorded as vouching for the identity (default: the OS user).")
@click.option("--holds-role", "holds_role", is_flag=True,
              help="Vouch that this person holds the role the graph names under the "
              "pseudonym (a curator, steward or the owner with no GitHub or SSH binding): "
              "the identity is made and its binding identities/<pseudonym>.yaml, signed "
              "by the network's approval key, is filed (issue 40).")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt as JSON.")
@_state_options
@guarded
def token_issue(pseudonym: str, dco: bool, operator: str | None, holds_role: bool,
                as_json: bool, data_dir: Path | None, database_url: str | None,
                graph: Path | None) -> int:
    """Issue a write token for an identity you vouch for, under POST /tokens's rules
    (reserved, role and look-alike pseudonyms refused, the DCO, a recovery code, the
    lapse). The token and recovery code are printed once. For a pseudonym the graph names
    as a role holder (with --holds-role, or for an identity you vouched for before), the
    binding that lets the identity hold the role is filed as a pull request."""
    import dataclasses

    from network.api.identity import pseudonyms
    from network.api.identity.identity import check_new_name, issue_operator_token

    svc = _operator_service(data_dir, database_url, graph)
    graphs = _name_graphs(svc)
    for names in graphs:  # issue 39: whatever --graph says
        check_new_name(dataclasses.replace(svc, graphs=names), pseudonym,
                       holds_role=holds_role)
    svc = dataclasses.replace(svc, graphs=graphs[0])
    receipt = issue_operator_token(
        svc, pseudonym=pseudonym, dco=svc.settings.dco_version if dco else None,
        operator=operator if operator is not None else _os_user(), holds_role=holds_role)
    if holds_role or any(pseudonyms.role_holder(dataclasses.replace(svc, graphs=names),
                                                pseudonym) for names in graphs):
        receipt["binding"] = _bind(svc, receipt["pseudonym"])
    if as_json:
        click.echo(json.dumps(receipt, indent=2))
        return EXIT_OK
    v = receipt["vouched"]
    click.echo(f"identity:      {receipt['pseudonym']} "
               f"({'new' if receipt['created'] else 'fresh token'}; vouched by {v['by']} "
               f"at {v['at']}; DCO {receipt['dco_version']})")
    click.echo(f"token:         {receipt['token']}")
    click.echo(f"recovery code: {receipt['recovery_code']}")
    click.echo(f"lapses after:  {receipt['lapse_days']} days without use")
    click.echo("shown once: neither secret is stored in the clear.")
    click.echo("use it:")
    click.echo(f"  HTTP / MCP client header:  Authorization: Bearer {receipt['token']}")
    click.echo(f"  lemmata mcp (stdio):       LEMMATA_TOKEN={receipt['token']} lemmata mcp")
    click.echo(f"  {receipt['next']}")
    _echo_binding(receipt.get("binding"))
    return EXIT_OK


@token_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_state_options
@guarded
def token_list(as_json: bool, data_dir: Path | None, database_url: str | None,
               graph: Path | None) -> int:
    """List the identities an operator vouched for, with their live token counts."""
    from network.api.identity.identity import vouched_identities

    rows = vouched_identities(_operator_service(data_dir, database_url, graph))
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return EXIT_OK
    for r in rows:
        click.echo(f"{r['pseudonym']}\tvouched by {r['vouched_by']} at {r['vouched_at']}"
                   f"\t{r['live_tokens']} live token(s)\tlast used {r['last_used_at'] or '-'}")
    click.echo(f"{len(rows)} operator-vouched identit{'y' if len(rows) == 1 else 'ies'}")
    return EXIT_OK


@token_group.command("revoke")
@click.option("--pseudonym", required=True, help="The identity whose tokens are retired.")
@_state_options
@guarded
def token_revoke(pseudonym: str, data_dir: Path | None, database_url: str | None,
                 graph: Path | None) -> int:
    """Retire every live token and unused recovery code of an identity at once."""
    from network.api.identity.identity import revoke_tokens

    out = revoke_tokens(_operator_service(data_dir, database_url, graph), pseudonym=pseudonym)
    click.echo(json.dumps(out))
    return EXIT_OK


@main.group("session")
def session_group() -> None:
    """Web sessions an operator opens (issue 13, ruling 14): acts of whoever holds a
    network's data directory, for a network with no GitHub sign-in (``make run``)."""


@session_group.command("link")
@click.option("--pseudonym", required=True, help="The existing identity to sign in as.")
@click.option("--operator", default=None,
              help="Your name, recorded as opening the session (default: the OS user).")
@click.option("--return-to", "return_to", default=None,
              help="The page of the site to land on (default: the site's home page).")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt as JSON.")
@_state_options
@guarded
def session_link(pseudonym: str, operator: str | None, return_to: str | None,
                 as_json: bool, data_dir: Path | None, database_url: str | None,
                 graph: Path | None) -> int:
    """Print a one-time sign-in URL that opens a web session for an existing identity
    (good for fifteen minutes, once). The addresses are the running network's, as the
    data folder's service.json records them (LEMMATA_PUBLIC_URL and LEMMATA_SITE_ORIGIN
    override them). For an identity you vouched for, the binding that lets it hold the
    roles the graph gives its pseudonym is filed first, if main lacks it (issue 40)."""
    from network.api.identity import pseudonyms
    from network.api.people.web_session import issue_sign_in_link

    svc = _operator_service(data_dir, database_url, graph)
    out = issue_sign_in_link(svc, pseudonym=pseudonym, return_to=return_to,
                             operator=operator if operator is not None else _os_user())
    if pseudonyms.operator_made(svc, out["pseudonym"]):
        out["binding"] = _bind(svc, out["pseudonym"])
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return EXIT_OK
    click.echo(f"sign in as {out['pseudonym']} (once, until {out['expires_at']}):")
    click.echo(f"  {out['url']}")
    click.echo(f"open it in the browser that will use the site ({out['return_to']}).")
    _echo_binding(out.get("binding"))
    return EXIT_OK


@main.group("site")
def site_group() -> None:
    """The static, read-only website of a graph (D-36)."""


@site_group.command("build")
@click.argument("graph", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--commit", default=None, help="Render this git revision instead of the work tree.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on any warning.")
@click.option("--featured", default=None, help="The target drawn on the home page.")
@click.option("--repository-url", default=None,
              help="https URL where the graph repository is browsable (proof links).")
@click.option("--database-url", default=None,
              help="The network's service database: contributor pages then say which "
              "identities an operator vouched for (lemmata token issue).")
@click.option("--service-url", default=None,
              help="The service's origin (scheme://host[:port]): pages then load session.js, "
              "which draws the person controls once GET /session answers (D-36 v3.33).")
@click.option("--sign-in", "sign_in", type=click.Choice(["github", "operator"]),
              default="operator", show_default=True,
              help="github: the service has a GitHub OAuth app, and pages carry the Sign in "
              "with GitHub link; operator: pages say the operator gives sign-in links.")
@click.option("--trainer-history", type=click.Path(path_type=Path, dir_okay=False,
                                                   exists=True), default=None,
              help="A trainer history.json (lemmata trainer sft/eval): trainer.html shows it.")
@guarded
def site_build(graph: Path, out: Path, commit: str | None, strict: bool,
               featured: str | None, repository_url: str | None,
               database_url: str | None, service_url: str | None, sign_in: str,
               trainer_history: Path | None) -> int:
    """Build the static site of GRAPH into OUT, in named stages (D-36)."""
    from network.site.build import build_site
    from network.site.config import SiteConfig

    vouched: dict[str, dict[str, str]] = {}
    if database_url:
        from network.api.identity.identity import read_vouches

        vouched = read_vouches(database_url)
    config = SiteConfig(graph=graph, out=out, commit=commit, strict=strict,
                        featured_target=featured, repository_url=repository_url,
                        vouched=vouched, service_url=service_url,
                        sign_in="github" if sign_in == "github" else "operator",
                        trainer_history=trainer_history)
    report = build_site(config, log=lambda line: click.echo(line, err=True))
    click.echo(json.dumps({"pages": len(report.pages), "warnings": len(report.warnings),
                           "commit": report.commit,
                           "math": "server" if report.math_server_side else "browser",
                           "seconds": {k: round(v, 3) for k, v in report.timings.items()}}))
    return EXIT_OK


@main.group("import")
def import_group() -> None:
    """Import statements and prior art from public registries as a change (D-10)."""


def _finish_import(plan: Any, graph: Path | None, dry_run: bool) -> int:
    from network.importers import write_files

    if graph is not None and not dry_run:
        write_files(graph, plan.files)
    click.echo(json.dumps({**plan.to_dict(), "written": graph is not None and not dry_run},
                          indent=2, ensure_ascii=False))
    warning = plan.report.get("pins", {}).get("warning")
    if warning:  # issue 37: a known-unsound registry pin is said where a person reads it
        click.echo(f"warning: {warning}", err=True)
    return EXIT_OK


@import_group.command("formal-conjectures")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--problem", "problems", multiple=True, help="Import only this problem id "
              "(repeatable): the file's stem, e.g. 242 for ErdosProblems/242.lean; default: "
              "every file of the collection.")
@click.option("--collection", default=None, metavar="DIR", help="The folder of PATH to "
              "import, e.g. FormalConjectures/Wikipedia (default: "
              "FormalConjectures/ErdosProblems).")
@click.option("--include-test", is_flag=True, help="Also import statements of category test.")
@click.option("--source-commit", default=None, metavar="SHA", help="The upstream commit PATH's "
              "HEAD is a copy of (a snapshot committed into a scratch repository): recorded "
              "instead of HEAD.")
@click.option("--source-date", default=None, metavar="YYYY-MM-DD",
              help="That upstream commit's date (default: HEAD's).")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="Compare against this graph work tree and write the new files into it.")
@click.option("--curator", default=None, help="The curator signing the intake (default: the "
              "graph's '*' curator).")
@click.option("--repository", default=None, help="The https URL to record (default: origin).")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@guarded
def import_formal_conjectures(path: Path, problems: tuple[str, ...], collection: str | None,
                              include_test: bool, source_commit: str | None,
                              source_date: str | None, graph: Path | None,
                              curator: str | None, repository: str | None,
                              dry_run: bool) -> int:
    """Make listed targets from a Formal Conjectures checkout at PATH (D-6, D-10, D-30).

    One file's problem is that file's line in the report (``files``), never the run's end.
    """
    from network.importers.formal_conjectures import plan_formal_conjectures_import

    plan = plan_formal_conjectures_import(
        path, graph, problems=list(problems) or None, include_test=include_test,
        curator=curator or ("importer" if graph is None else None), repository=repository,
        collection=collection, source_commit=source_commit, source_date=source_date)
    return _finish_import(plan, graph, dry_run)


@import_group.command("erdosproblems")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--problem", "problems", multiple=True, help="Consider only this problem number.")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="Attach to this graph work tree's targets and write the changes into it.")
@click.option("--commit", default=None, help="The database commit FILE is an untouched copy "
              "of (for a copy outside git, e.g. an unpacked archive); default: its git HEAD.")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@guarded
def import_erdosproblems(file: Path, problems: tuple[str, ...], graph: Path | None,
                         commit: str | None, dry_run: bool) -> int:
    """Attach an erdosproblems database FILE to matching targets as prior art (D-6, D-10).

    A malformed entry is a report line (``rejected``), never the run's end; every solved/open
    disagreement with Formal Conjectures is listed (``disagreements``) with both dates."""
    from network.importers.erdosproblems import plan_erdosproblems_import

    plan = plan_erdosproblems_import(file, graph, problems=list(problems) or None,
                                     commit=commit)
    return _finish_import(plan, graph, dry_run)


@main.command()
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
              help="The network's data directory (default ./.lemmata, or $LEMMATA_DATA_DIR: "
              "the one serve, mcp and token default to).")
@click.option("--graph", type=click.Path(path_type=Path), default=Path("graph"),
              show_default=True, help="The graph folder that seeds the forge on first run.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address.")
@click.option("--port", type=int, default=8000, show_default=True, help="Service port.")
@click.option("--site-port", type=int, default=8001, show_default=True, help="Site port.")
@guarded
def up(data_dir: Path | None, graph: Path, host: str, port: int, site_port: int) -> int:
    """Run the whole network on the embedded defaults (README command one)."""
    from network.up import run

    root = data_dir if data_dir is not None else _service_settings().data_dir
    return run(root, graph, host=host, port=port, site_port=site_port)


main.add_command(gate_group)
main.add_command(pregate_cmd)
main.add_command(toolchain_group)
main.add_command(target_group)
main.add_command(trainer_group)


if __name__ == "__main__":  # pragma: no cover
    main()
