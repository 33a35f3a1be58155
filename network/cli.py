"""The ``lemmata`` command: one boundary from errors to exit codes (STYLE.md rule 1).

Exit codes: 0 pass, 1 a check that failed (a refusal with a catalog code), 3 a bug.
``--debug`` re-raises instead of mapping.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from network.errors import LemmataError, ValidationFailed

if TYPE_CHECKING:
    from network.api.settings import ServiceSettings

EXIT_OK, EXIT_FAILED, EXIT_HELD, EXIT_BUG = 0, 1, 2, 3


def _report(exc: LemmataError) -> None:
    if isinstance(exc, ValidationFailed):
        for p in exc.problems:
            click.echo(f"error: {p}", err=True)
        click.echo(f"{len(exc.problems)} problem(s) found", err=True)
    else:
        click.echo(f"error: {exc}", err=True)
        click.echo(f"  what to do: {exc.entry.action}", err=True)


def guarded(fn: Callable[..., int]) -> Callable[..., None]:
    """Wrap a command body: LemmataError → exit 1 with its code; anything else → exit 3."""

    def wrapper(*args: Any, **kwargs: Any) -> None:
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            rc = fn(*args, **kwargs)
        except LemmataError as exc:
            if debug:
                raise
            _report(exc)
            sys.exit(EXIT_FAILED)
        except Exception as exc:
            if debug:
                raise
            click.echo(f"internal error (a bug): {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_BUG)
        sys.exit(rc)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


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
    from network.record.loader import load_graph
    from network.record.products import check_products, write_products

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
    from network.record import schemas

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
    from network.record import blob_cache

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
        from network.gate.queue_health import HEARTBEAT_FILE

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
    branch, unless ``--database-url``/``--graph`` say otherwise.

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

    settings, loader = _network_settings(record=False, data_dir=data_dir,
                                         database_url=database_url, graph=graph)
    url = settings.resolved_database_url()
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        raise LemmataError("network-state-missing", f"{settings.data_dir} holds no service "
                           "database; no network runs on it")
    engine = db.make_engine(url)
    db.migrate(engine)
    return Service(settings=settings, engine=engine,
                   sessions=sessionmaker(engine, expire_on_commit=False),
                   graphs=loader or GraphProvider.for_path(settings.graph), clock=time.time)


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name known: --operator is then required
        return ""


@token_group.command("issue")
@click.option("--pseudonym", required=True, help="The new identity's pseudonym (D-19 rules).")
@click.option("--dco", "dco", is_flag=True,
              help="Confirm that the identity's holder accepts the Developer Certificate of "
              "Origin (GET /dco.json) in its current version; refused without it.")
@click.option("--operator", default=None,
              help="Your name, recorded as vouching for the identity (default: the OS user).")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt as JSON.")
@_state_options
@guarded
def token_issue(pseudonym: str, dco: bool, operator: str | None, as_json: bool,
                data_dir: Path | None, database_url: str | None, graph: Path | None) -> int:
    """Issue a write token for an identity you vouch for, under POST /tokens's rules
    (reserved, role and look-alike pseudonyms refused, the DCO, a recovery code, the
    lapse). The token and recovery code are printed once."""
    from network.api.identity import issue_operator_token

    svc = _operator_service(data_dir, database_url, graph)
    receipt = issue_operator_token(
        svc, pseudonym=pseudonym, dco=svc.settings.dco_version if dco else None,
        operator=operator if operator is not None else _os_user())
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
    return EXIT_OK


@token_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_state_options
@guarded
def token_list(as_json: bool, data_dir: Path | None, database_url: str | None,
               graph: Path | None) -> int:
    """List the identities an operator vouched for, with their live token counts."""
    from network.api.identity import vouched_identities

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
    from network.api.identity import revoke_tokens

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
    (good for fifteen minutes, once). The service's address is LEMMATA_PUBLIC_URL and the
    site's LEMMATA_SITE_ORIGIN (make run's by default)."""
    from network.api.web_session import issue_sign_in_link

    svc = _operator_service(data_dir, database_url, graph)
    out = issue_sign_in_link(svc, pseudonym=pseudonym, return_to=return_to,
                             operator=operator if operator is not None else _os_user())
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return EXIT_OK
    click.echo(f"sign in as {out['pseudonym']} (once, until {out['expires_at']}):")
    click.echo(f"  {out['url']}")
    click.echo(f"open it in the browser that will use the site ({out['return_to']}).")
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
@click.option("--trainer-history", type=click.Path(path_type=Path, dir_okay=False,
                                                   exists=True), default=None,
              help="A trainer history.json (lemmata trainer sft/eval): trainer.html shows it.")
@guarded
def site_build(graph: Path, out: Path, commit: str | None, strict: bool,
               featured: str | None, repository_url: str | None,
               database_url: str | None, service_url: str | None,
               trainer_history: Path | None) -> int:
    """Build the static site of GRAPH into OUT, in named stages (D-36)."""
    from network.site.build import build_site
    from network.site.config import SiteConfig

    vouched: dict[str, dict[str, str]] = {}
    if database_url:
        from network.api.identity import read_vouches

        vouched = read_vouches(database_url)
    config = SiteConfig(graph=graph, out=out, commit=commit, strict=strict,
                        featured_target=featured, repository_url=repository_url,
                        vouched=vouched, service_url=service_url,
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


# --- the gate (D-4, D-5, D-27) ---------------------------------------------------------


def _read_precheck(path: Path | None) -> str | None:
    """A precheck attestation file: raw JSON, or a pull-request body with a fenced block."""
    if path is None:
        return None
    from network.forge.types import precheck_from_body

    text = path.read_text(encoding="utf-8")
    return precheck_from_body(text) or text


def _gate_key(key: Path | None) -> Any:
    if key is None:
        return None
    from network.signing import load_private_key

    return load_private_key(key)


@main.group("gate")
def gate_group() -> None:
    """The gate: steps 0-9 over a pull request, attestations, reproduction (D-4, D-5)."""


@gate_group.command("run")
@click.option("--graph", "graph", required=True, type=click.Path(path_type=Path),
              help="The graph repository.")
@click.option("--base", required=True, help="The main commit the pull request is against.")
@click.option("--head", required=True, help="The pull request's head commit.")
@click.option("--precheck-attestation", "precheck", type=click.Path(path_type=Path),
              default=None, help="The precheck attestation (JSON, or a body with a fenced "
              "precheck-attestation block).")
@click.option("--submitter", default=None, help="The pseudonym credited.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder to write attestations/<id>.json into (default: print only).")
@click.option("--key", type=click.Path(path_type=Path), default=None,
              help="The gate's Ed25519 private key (PEM); unsigned without it.")
@click.option("--key-id", default="gate", help="The key's id under keys/.")
@click.option("--runner", type=click.Choice(["local", "hosted"]), default="local",
              help="The runner class recorded on the attestation.")
@click.option("--reviewer", default=None, help="An approving non-author review's pseudonym.")
@click.option("--sign-off", "sign_off", multiple=True,
              help="A waiver the review signs off (native_decide).")
@click.option("--record-cache", "record_cache", type=click.Path(path_type=Path), default=None,
              help="Cache parsed records by git blob id in this folder (e.g. "
              "<data>/record-cache; safe to delete). Default: no cache.")
@guarded
def gate_run(graph: Path, base: str, head: str, precheck: Path | None, submitter: str | None,
             out_dir: Path | None, key: Path | None, key_id: str, runner: str,
             reviewer: str | None, sign_off: tuple[str, ...], record_cache: Path | None) -> int:
    """Run steps 0-9 on BASE..HEAD of GRAPH; exit 0 merge, 1 refused, 2 held, 3 a bug."""
    from network.gate.run import Review, attestation_files, run_gate
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.record import blob_cache

    blob_cache.configure(record_cache)  # the base graph's records (issue 17)

    review = Review(reviewer, signs_off=sign_off) if reviewer else None
    outcome = run_gate(graph, base, head, toolchain=detect_toolchain, sandbox=Sandbox(),
                       precheck_raw=_read_precheck(precheck), submitter=submitter,
                       gate_key=_gate_key(key), key_id=key_id, runner=runner,  # type: ignore[arg-type]
                       review=review)
    written: list[str] = []
    if out_dir is not None:
        for rel, data in attestation_files(outcome).items():
            full = out_dir / rel
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_bytes(data)
            written.append(str(full))
    click.echo(json.dumps({**outcome.to_dict(), "written": written}, indent=2,
                          ensure_ascii=False))
    return outcome.exit_code


@gate_group.command("export")
@click.option("--graph", "graph", required=True, type=click.Path(path_type=Path),
              help="The graph repository (the pull request's checkout).")
@click.option("--base", required=True, help="The main commit the pull request is against.")
@click.option("--head", required=True, help="The pull request's head commit.")
@click.option("--pull-request", "pull_request", required=True, type=int,
              help="The pull request's number (recorded as a claim only).")
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="The export folder (the artifact to upload).")
@click.option("--login", default="", help="The GitHub login that opened the pull request.")
@click.option("--service-login", "service_logins", multiple=True,
              help="The service's GitHub login (its pull requests credit the head commit's "
              "sign-off here, and the signed lemmata-submitter block in the trusted job).")
@guarded
def gate_export(graph: Path, base: str, head: str, pull_request: int, out_dir: Path,
                login: str, service_logins: tuple[str, ...]) -> int:
    """Build the pull request's Lean in the sandbox and export the compiled files: data
    for the trusted job, never a verdict (ruling 14). Exit 0 once the export is written."""
    import pygit2

    from network.gate.github_export import export_build, submitter_of
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.record.loader import load_graph

    repo = pygit2.Repository(str(graph))
    message = repo.revparse_single(head).peel(pygit2.Commit).message
    submitter = submitter_of(login, message, load_graph(graph, commit=base), service_logins)
    rep = export_build(graph, base, head, toolchain=detect_toolchain, sandbox=Sandbox(),
                       out=out_dir, pull_request=pull_request, submitter=submitter)
    click.echo(json.dumps({"out": str(rep.out), "modules": sorted(rep.modules),
                           "builds": rep.builds}, indent=2))
    return EXIT_OK


@gate_group.command("trusted")
@click.option("--event", "event_path", type=click.Path(path_type=Path), default=None,
              help="The workflow_run event JSON ($GITHUB_EVENT_PATH).")
@click.option("--run-id", "run_id", type=click.IntRange(min=1), default=None,
              help="Instead of --event: the gate run to re-judge, read from the REST API "
              "(a workflow_dispatch from gate-rejudge.yml; needs --repository).")
@click.option("--repository", default="",
              help="With --run-id: the graph repository, owner/name ($GITHUB_REPOSITORY).")
@click.option("--run-token-env", default="GITHUB_TOKEN", show_default=True,
              help="With --run-id: the environment variable holding a token that reads "
              "Actions runs (the job's own github.token).")
@click.option("--artifact", "artifact", required=True, type=click.Path(path_type=Path),
              help="The downloaded export of the unprivileged gate job.")
@click.option("--graph", "graph", type=click.Path(path_type=Path), default=Path("."),
              show_default=True, help="The checkout of main (never the pull request).")
@click.option("--base", default="HEAD", show_default=True,
              help="The main commit to judge against.")
@click.option("--key-env", default="LEMMATA_GATE_KEY", show_default=True,
              help="The environment variable holding the gate key's PEM.")
@click.option("--key-id", default="gate", show_default=True,
              help="The key's id under keys/ at main.")
@click.option("--token-env", default="GITHUB_TOKEN", show_default=True,
              help="The environment variable holding the token that publishes and merges.")
@click.option("--api-url", default="https://api.github.com", show_default=True,
              help="The GitHub REST API base.")
@click.option("--fetch/--no-fetch", default=True, show_default=True,
              help="Fetch refs/pull/<n>/head from origin (as data) before judging.")
@click.option("--service-login", "service_logins", multiple=True,
              help="The service's GitHub login: its pull requests credit the commit author "
              "(repeatable; others are credited through identities/).")
@click.option("--dry-run", is_flag=True, help="Decide and print; publish and merge nothing.")
@guarded
def gate_trusted(event_path: Path | None, run_id: int | None, repository: str,
                 run_token_env: str, artifact: Path, graph: Path, base: str, key_env: str,
                 key_id: str, token_env: str, api_url: str, fetch: bool,
                 service_logins: tuple[str, ...], dry_run: bool) -> int:
    """The trusted workflow_run job: take the pull request and head from the EVENT (or,
    re-judging a held pull request, from the gate run RUN_ID as the REST API reports it),
    check the ARTIFACT against them, judge with the gate's own checks (no contributor
    code runs), sign, publish, and merge only on its own signed pass (ruling 14). Exit 0
    merged, 1 refused or failed, 2 held, 3 a bug."""
    import os

    from network.forge.github import GitHubForge, parse_repo
    from network.gate import github_rejudge as R
    from network.gate import github_trusted as T
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.signing import private_key_from_env

    if (event_path is None) == (run_id is None):
        raise LemmataError("trusted-event-malformed", "give exactly one of --event and "
                           "--run-id")
    if run_id is not None:
        api = R.RestClient(repository, os.environ.get(run_token_env, ""), api_url=api_url)
        try:
            ev = R.event_from_run(api, run_id)
        finally:
            api.close()
    else:
        assert event_path is not None
        try:
            data = json.loads(event_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LemmataError("trusted-event-malformed", f"{event_path}: {exc}") from None
        ev = T.parse_event(data if isinstance(data, dict) else {})
    key = private_key_from_env(key_env)
    owner, name = parse_repo(ev.repository)
    forge = GitHubForge(owner, name, os.environ.get(token_env, ""), api_url=api_url)
    try:
        pr = T.resolve_pull_request(ev, forge)
        if fetch:
            T.fetch_head(graph, pr.number, ev.head_sha)
        decision = T.decide(graph, ev, pr, artifact, toolchain=detect_toolchain,
                            sandbox=Sandbox(), gate_key=key, key_id=key_id, base=base,
                            approvals=forge.approvals(pr.number),
                            service_logins=service_logins)
        merged = None
        if not dry_run:
            decision, merged = T.publish_and_merge(decision, forge)
    finally:
        forge.close_connections()
    click.echo(json.dumps({**decision.to_dict(), "merged": merged, "dry_run": dry_run},
                          indent=2, ensure_ascii=False))
    return decision.exit_code


@gate_group.command("rejudge")
@click.option("--graph", "graph", type=click.Path(path_type=Path), default=Path("."),
              show_default=True, help="The checkout of main (never a pull request).")
@click.option("--repository", required=True,
              help="The graph repository, owner/name ($GITHUB_REPOSITORY).")
@click.option("--ref", default="main", show_default=True,
              help="The default branch: pull requests against it, gate-publish run on it.")
@click.option("--token-env", default="GITHUB_TOKEN", show_default=True,
              help="The environment variable holding the job's token (actions: write).")
@click.option("--api-url", default="https://api.github.com", show_default=True,
              help="The GitHub REST API base.")
@click.option("--limit", default=1, show_default=True, type=click.IntRange(min=1),
              help="The most pull requests dispatched by one run.")
@click.option("--dry-run", is_flag=True, help="List what would be re-judged; dispatch nothing.")
@guarded
def gate_rejudge(graph: Path, repository: str, ref: str, token_env: str, api_url: str,
                 limit: int, dry_run: bool) -> int:
    """Dispatch gate-publish.yml for every open pull request whose latest attestation on
    main is held and named by a merged review record, to re-judge it from its gate run's
    export (gate-rejudge.yml; no contributor code runs, ruling 14). Exit 0."""
    import os

    from network.gate import github_rejudge as R
    from network.record.loader import load_graph

    g = load_graph(graph)
    api = R.RestClient(repository, os.environ.get(token_env, ""), api_url=api_url)
    try:
        done = R.rejudge(g, api, ref=ref, limit=limit, dry_run=dry_run)
    finally:
        api.close()
    click.echo(json.dumps({"rejudged": [d.to_dict() for d in done], "dry_run": dry_run},
                          indent=2))
    return EXIT_OK


@gate_group.command("keygen")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="Where to write the new private key (PEM, mode 0600; must not exist).")
@click.option("--key-id", default="gate", show_default=True, help="The key's id under keys/.")
@click.option("--valid-from", required=True, help="ISO date from which the key signs.")
@guarded
def gate_keygen(out: Path, key_id: str, valid_from: str) -> int:
    """Make a gate key for GitHub's protected environment: write the private PEM to OUT
    and print the ``keys/<key-id>.json`` record to commit on main (ruling 9, docs/github.md)."""
    from network.signing import generate_private_key, public_key_record

    if out.exists():
        raise LemmataError("bad-private-key", f"{out} exists; refusing to overwrite a key")
    key = generate_private_key(out)
    rec = public_key_record(key, key_id, "gate", valid_from)
    click.echo(json.dumps(rec.model_dump(mode="json", by_alias=True, exclude_none=True),
                          indent=2, sort_keys=True))
    return EXIT_OK


@gate_group.command("reproduce")
@click.option("--graph", "graph", required=True, type=click.Path(path_type=Path),
              help="The graph repository holding the attestation's commits.")
@click.option("--attestation", "att_path", required=True, type=click.Path(path_type=Path),
              help="The published attestations/<id>.json.")
@guarded
def gate_reproduce(graph: Path, att_path: Path) -> int:
    """Re-run steps 1-8 for a published attestation; exit 0 when identical once runner,
    merge_commit and signature are masked (D-5)."""
    from network.gate.pregate import reproduce
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.record.models import Attestation

    original = Attestation.model_validate_json(att_path.read_text(encoding="utf-8"))
    rep = reproduce(graph, original, toolchain=detect_toolchain, sandbox=Sandbox())
    click.echo(json.dumps({"identical": rep.identical, "differing": rep.differing},
                          indent=2))
    return EXIT_OK if rep.identical else EXIT_FAILED


@main.command("pregate")
@click.option("--graph", "graph", type=click.Path(path_type=Path), default=Path("."),
              help="The graph checkout (default: the current folder).")
@click.option("--base", default="main", help="What the change goes against (default main).")
@click.option("--head", default="HEAD", help="The committed change (default HEAD).")
@click.option("--submitter", default=None, help="Your pseudonym.")
@click.option("--sign", "sign_key", type=click.Path(path_type=Path), default=None,
              help="Sign the precheck attestation with this SSH private key (sshsig).")
@click.option("--record", is_flag=True,
              help="Append a precheck record (D-34) under the node's attempts/precheck/.")
@guarded
def pregate_cmd(graph: Path, base: str, head: str, submitter: str | None,
                sign_key: Path | None, record: bool) -> int:
    """Steps 1-2 and 4-8 locally with the gate's own code; prints JSON verdicts and the
    precheck attestation to attach to the pull request (D-27)."""
    from network.gate.pregate import pregate
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain

    res = pregate(graph, base, head, toolchain=detect_toolchain, sandbox=Sandbox(),
                  submitter=submitter, sign_with=sign_key,
                  record_into=graph if record else None)
    click.echo(json.dumps(res.to_dict(), indent=2, ensure_ascii=False))
    return res.outcome.exit_code


@main.group("toolchain")
def toolchain_group() -> None:
    """The pinned Lean toolchains: whether they are here, and installing them."""


def _graph_specs(graph: Path) -> dict[str, Any]:
    from network.record.loader import load_graph

    g = load_graph(graph)
    return {tid: t.gate_spec for tid, t in g.targets.items()}


@toolchain_group.command("status")
@click.option("--graph", type=click.Path(path_type=Path), default=Path("graph"),
              show_default=True, help="The graph whose gate-specs name the pins.")
@guarded
def toolchain_status_cmd(graph: Path) -> int:
    """Say, per target, whether its pinned toolchain can check proofs here."""
    from network.gate.install import toolchain_status

    for tid, line in toolchain_status(_graph_specs(graph)).items():
        click.echo(f"{tid}: {line}")
    return EXIT_OK


@toolchain_group.command("install")
@click.option("--graph", type=click.Path(path_type=Path), default=Path("graph"),
              show_default=True, help="The graph whose gate-specs name the pins.")
@click.option("--pins-root", type=click.Path(path_type=Path), default=None,
              help="Where pin directories go (default ~/.cache/lemmata/pins).")
@guarded
def toolchain_install_cmd(graph: Path, pins_root: Path | None) -> int:
    """Install every pinned toolchain with elan and fetch the Mathlib cache with lake."""
    from network.gate.install import find_elan, install_toolchains

    steps = install_toolchains(list(_graph_specs(graph).values()),
                               pins_root=pins_root or Path.home() / ".cache/lemmata/pins",
                               elan=find_elan(), say=click.echo)
    click.echo(f"ok: {len(steps)} step(s) done")
    return EXIT_OK


@main.group("trainer")
def trainer_group() -> None:
    """Proposer policies learned from the record, judged only by the gate (issue 14)."""


@trainer_group.command("compile")
@click.argument("graph", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--commit", default=None, help="The graph commit to read (default: HEAD).")
@click.option("--minif2f", "minif2f", multiple=True, type=click.Path(path_type=Path),
              help="A miniF2F archive: Valid trains, Test is sealed (repeatable).")
@click.option("--seed", default=None, help="The split seed (default lemmata-split/v1).")
@click.option("--valid-fraction", type=float, default=0.1, show_default=True)
@guarded
def trainer_compile(graph: Path, out: Path, commit: str | None, minif2f: tuple[Path, ...],
                    seed: str | None, valid_fraction: float) -> int:
    """Compile GRAPH's verified attempt corpus into a dataset in OUT (network/trainer)."""
    from network.trainer.dataset import SPLIT_SEED, compile_dataset, write_dataset

    compiled = compile_dataset(graph, commit=commit, minif2f=minif2f,
                               seed=seed or SPLIT_SEED, valid_fraction=valid_fraction)
    path = write_dataset(compiled, out)
    man = compiled["manifest"]
    click.echo(json.dumps({"manifest": str(path), "commit": man["graph"]["commit"],
                           "items": man["split"]["items"],
                           "rows": {k: len(v["rows"]) for k, v in man["files"].items()},
                           "refused": len(man["refused"])}, sort_keys=True))
    return EXIT_OK


@trainer_group.command("sft")
@click.argument("dataset", type=click.Path(path_type=Path, file_okay=False))
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--steps", type=int, default=2, show_default=True)
@click.option("--batch-size", type=int, default=2, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True)
@click.option("--max-length", type=int, default=1024, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--rank", type=int, default=8, show_default=True, help="LoRA rank.")
@click.option("--alpha", type=int, default=16, show_default=True, help="LoRA alpha.")
@click.option("--history", type=click.Path(path_type=Path), default=None,
              help="The history.json to record into (default: RUN_DIR/history.json).")
@guarded
def trainer_sft(dataset: Path, base: Path, run_dir: Path, steps: int, batch_size: int,
                lr: float, max_length: int, seed: int, rank: int, alpha: int,
                history: Path | None) -> int:
    """LoRA SFT of BASE on DATASET's training rows into RUN_DIR, then admission."""
    from network.trainer.pipeline import sft
    from network.trainer.sft import LoraSettings, SFTConfig

    cfg = SFTConfig(steps=steps, batch_size=batch_size, learning_rate=lr,
                    max_length=max_length, seed=seed, lora=LoraSettings(r=rank, alpha=alpha))
    out = sft(dataset, base, run_dir, cfg, history=history or run_dir / "history.json")
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("eval")
@click.argument("dataset", type=click.Path(path_type=Path, file_okay=False))
@click.argument("graph", type=click.Path(path_type=Path, file_okay=False))
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--samples", type=int, default=2, show_default=True)
@click.option("--max-new-tokens", type=int, default=128, show_default=True)
@click.option("--verification-calls", type=int, default=64, show_default=True)
@click.option("--temperature", type=float, default=0.8, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-k", "ks", type=int, multiple=True, help="A k of pass@k (default 1).")
@click.option("--limit", type=int, default=None, help="At most this many sealed items.")
@click.option("--sealed", "sealed", multiple=True,
              type=click.Choice(["frontier", "joined", "minif2f-test"]),
              help="Which sealed rows, by why they are sealed (default: frontier).")
@click.option("--minif2f", "minif2f", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A miniF2F archive the dataset was compiled from: its rows are judged "
                   "by the same gate (a scratch node each) instead of listed as not judged.")
@click.option("--report", type=click.Path(path_type=Path), default=None,
              help="Where to write the report (default: RUN_DIR/eval.json).")
@click.option("--history", type=click.Path(path_type=Path), default=None,
              help="The history.json to record into (default: RUN_DIR/history.json).")
@guarded
def trainer_eval(dataset: Path, graph: Path, base: Path, run_dir: Path, samples: int,
                 max_new_tokens: int, verification_calls: int, temperature: float, seed: int,
                 ks: tuple[int, ...], limit: int | None, sealed: tuple[str, ...],
                 minif2f: tuple[Path, ...], report: Path | None,
                 history: Path | None) -> int:
    """Judge RUN_DIR's admitted policy and the untrained BASE on DATASET's sealed items."""
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.trainer.evaluate import Budget
    from network.trainer.pipeline import eval_run

    budget = Budget(samples=samples, max_new_tokens=max_new_tokens,
                    verification_calls=verification_calls, temperature=temperature, seed=seed)
    rep = eval_run(dataset, graph, base, run_dir, budget, toolchain=detect_toolchain,
                   sandbox=Sandbox(), history=history or run_dir / "history.json",
                   ks=ks or (1,), limit=limit, sealed=sealed or ("frontier",),
                   minif2f=minif2f)
    path = report or run_dir / "eval.json"
    path.write_text(json.dumps(rep, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    click.echo(json.dumps({"report": str(path), "items": len(rep["items"]),
                           "rates": {c: {m: r["value"] for m, r in v["rates"].items()}
                                     for c, v in rep["conditions"].items()}}, sort_keys=True))
    return EXIT_OK


@trainer_group.command("iterate")
@click.argument("dataset", type=click.Path(path_type=Path, file_okay=False))
@click.argument("graph", type=click.Path(path_type=Path, file_okay=False))
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.argument("work", type=click.Path(path_type=Path, file_okay=False))
@click.option("--rounds", type=int, default=2, show_default=True)
@click.option("--samples", type=int, default=2, show_default=True)
@click.option("--max-new-tokens", type=int, default=128, show_default=True)
@click.option("--verification-calls", type=int, default=64, show_default=True)
@click.option("--temperature", type=float, default=0.8, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--steps", type=int, default=2, show_default=True, help="SFT steps a round.")
@click.option("--ray-address", default=None, help="Run the actors on Ray (auto, or an address).")
@click.option("--minif2f", "minif2f", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A miniF2F archive the dataset was compiled from: its train Valid "
                   "statements join the pool (Test stays sealed).")
@click.option("--history", type=click.Path(path_type=Path), default=None,
              help="The history.json to record into (default: WORK/history.json).")
@guarded
def trainer_iterate(dataset: Path, graph: Path, base: Path, work: Path, rounds: int,
                    samples: int, max_new_tokens: int, verification_calls: int,
                    temperature: float, seed: int, steps: int, ray_address: str | None,
                    minif2f: tuple[Path, ...], history: Path | None) -> int:
    """Expert iteration on DATASET's pool from the record: sample, judge by the gate (proved
    nodes as alternates), train SFT on new passes, admit, sync."""
    from dataclasses import asdict

    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.trainer.orchestrate import IterationConfig
    from network.trainer.pipeline import iterate
    from network.trainer.sft import SFTConfig

    cfg = IterationConfig(rounds=rounds, samples=samples, max_new_tokens=max_new_tokens,
                          verification_calls=verification_calls, temperature=temperature,
                          seed=seed)
    work.mkdir(parents=True, exist_ok=True)
    recs = iterate(dataset, graph, base, work, cfg, SFTConfig(steps=steps, seed=seed),
                   toolchain=detect_toolchain, sandbox=Sandbox(),
                   history=history or work / "history.json", ray_address=ray_address,
                   minif2f=minif2f)
    click.echo(json.dumps([asdict(r) for r in recs], sort_keys=True))
    return EXIT_OK


@trainer_group.command("grpo")
@click.argument("dataset", type=click.Path(path_type=Path, file_okay=False))
@click.argument("graph", type=click.Path(path_type=Path, file_okay=False))
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False))
@click.option("--from-run", "init_run", type=click.Path(path_type=Path, file_okay=False),
              default=None, help="Start from this SFT run's admitted adapter (default: "
                                 "a fresh LoRA adapter on BASE).")
@click.option("--steps", type=int, default=2, show_default=True)
@click.option("--num-generations", type=int, default=2, show_default=True,
              help="Completions per prompt (the group; the reward's k).")
@click.option("--prompts-per-step", type=int, default=1, show_default=True)
@click.option("--max-completion-length", type=int, default=64, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True)
@click.option("--beta", type=float, default=0.0, show_default=True, help="KL coefficient.")
@click.option("--temperature", type=float, default=1.0, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--rank", type=int, default=8, show_default=True, help="LoRA rank.")
@click.option("--alpha", type=int, default=16, show_default=True, help="LoRA alpha.")
@click.option("--vllm", "use_vllm", is_flag=True, help="Generate with vLLM (gpu extra).")
@click.option("--minif2f", "minif2f", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A miniF2F archive the dataset was compiled from: its train Valid "
                   "statements join the pool (Test stays sealed).")
@click.option("--history", type=click.Path(path_type=Path), default=None,
              help="The history.json to record into (default: RUN_DIR/history.json).")
@guarded
def trainer_grpo(dataset: Path, graph: Path, base: Path, run_dir: Path, init_run: Path | None,
                 steps: int, num_generations: int, prompts_per_step: int,
                 max_completion_length: int, lr: float, beta: float, temperature: float,
                 seed: int, rank: int, alpha: int, use_vllm: bool, minif2f: tuple[Path, ...],
                 history: Path | None) -> int:
    """GRPO on DATASET's train pool, the gate's verdict as the reward, into RUN_DIR (resumes
    only into the same identity), then saved-policy admission."""
    from network.gate.sandbox import Sandbox
    from network.gate.toolchain import detect_toolchain
    from network.trainer.grpo import GRPOSettings
    from network.trainer.pipeline import grpo
    from network.trainer.sft import LoraSettings

    settings = GRPOSettings(steps=steps, num_generations=num_generations,
                            prompts_per_step=prompts_per_step,
                            max_completion_length=max_completion_length, learning_rate=lr,
                            beta=beta, temperature=temperature, seed=seed, use_vllm=use_vllm,
                            lora=LoraSettings(r=rank, alpha=alpha))
    out = grpo(dataset, graph, base, run_dir, settings, toolchain=detect_toolchain,
               sandbox=Sandbox(), history=history or run_dir / "history.json",
               init_run=init_run, minif2f=minif2f)
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("propose")
@click.argument("service")
@click.argument("base", type=click.Path(path_type=Path, file_okay=False))
@click.option("--adapter", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="An admitted adapter folder (RUN_DIR/adapter) to serve.")
@click.option("--version", "adapter_version", type=int, default=1, show_default=True,
              help="The adapter's version (its served name is v<N>).")
@click.option("--token", envvar="LEMMATA_TOKEN", default=None,
              help="An operator-issued token (default: earn one through the tutorial).")
@click.option("--pseudonym", default=None, help="The pseudonym to earn a token as.")
@click.option("--model", "model_name", default=None,
              help="The base model's name in the disclosure (default: BASE's folder name).")
@click.option("--samples", type=int, default=4, show_default=True)
@click.option("--max-new-tokens", type=int, default=512, show_default=True)
@click.option("--temperature", type=float, default=0.8, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--prechecks-per-node", type=int, default=4, show_default=True)
@click.option("--max-nodes", type=int, default=8, show_default=True)
@click.option("--ttl", type=int, default=None, help="Claim TTL in seconds (default: minimum).")
@click.option("--target", "targets", multiple=True, help="Only this target (repeatable).")
@guarded
def trainer_propose(service: str, base: Path, adapter: Path | None, adapter_version: int,
                    token: str | None, pseudonym: str | None, model_name: str | None,
                    samples: int, max_new_tokens: int, temperature: float, seed: int,
                    prechecks_per_node: int, max_nodes: int, ttl: int | None,
                    targets: tuple[str, ...]) -> int:
    """Work SERVICE's frontier as a contributor with BASE (+ an adapter): claim, precheck,
    submit passes with the disclosure block, release the rest."""
    from network.trainer.engines import HFEngine
    from network.trainer.propose import ProposeConfig, ServiceClient, propose

    engine = HFEngine(base)
    if adapter is not None:
        engine.sync(adapter, adapter_version)
    cfg = ProposeConfig(model=model_name or base.resolve().name, samples=samples,
                        max_new_tokens=max_new_tokens, temperature=temperature, seed=seed,
                        prechecks_per_node=prechecks_per_node, max_nodes=max_nodes,
                        ttl_s=ttl, targets=targets)
    client = ServiceClient(service.rstrip("/"), token)
    try:
        out = propose(client, engine, cfg, pseudonym=pseudonym,
                      on_node=lambda o: click.echo(json.dumps(
                          {"node": f"{o.target}/{o.node}", "prechecks": len(o.prechecks),
                           "submitted": o.submission is not None}), err=True))
    finally:
        client.close()
    if out["token_earned"]:
        click.echo(f"earned a token for {pseudonym}: {client.token} (keep it; pass it as "
                   "--token or LEMMATA_TOKEN next time)", err=True)
    click.echo(json.dumps(out, sort_keys=True))
    return EXIT_OK


@trainer_group.command("status")
@click.argument("history", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@guarded
def trainer_status(history: Path) -> int:
    """Print HISTORY (a history.json): series per run and condition, events, hardware."""
    from network.trainer.history import load, render_status

    click.echo(render_status(load(history)), nl=False)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    main()
