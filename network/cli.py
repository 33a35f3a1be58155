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
        except Exception as exc:  # noqa: BLE001 - the one bug boundary
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


def _service_settings(**given: Any) -> ServiceSettings:
    """ServiceSettings from the environment, overridden by the flags actually given."""
    from network.api.settings import ServiceSettings

    flags: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    return ServiceSettings(**flags)


@main.command()
@click.option("--host", default=None, help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="TCP port (default 8000).")
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
              help="Folder of the operational state (default ./lemmata-data).")
@click.option("--database-url", default=None,
              help="SQLAlchemy URL (default: SQLite in the data folder).")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="The graph repository to serve (default ./graph).")
@guarded
def serve(host: str | None, port: int | None, data_dir: Path | None,
          database_url: str | None, graph: Path | None) -> int:
    """Run the protocol service (D-35) with the MCP adapter at /mcp (D-28)."""
    import uvicorn

    from network.api.app import create_app

    settings = _service_settings(host=host, port=port, data_dir=data_dir,
                                 database_url=database_url, graph=graph)
    app = create_app(settings)
    uvicorn.run(app, host=settings.host, port=settings.port)
    return EXIT_OK


@main.command("mcp")
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
              help="Folder of the operational state (default ./lemmata-data).")
@click.option("--database-url", default=None,
              help="SQLAlchemy URL (default: SQLite in the data folder).")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="The graph repository to serve (default ./graph).")
@guarded
def mcp_cmd(data_dir: Path | None, database_url: str | None, graph: Path | None) -> int:
    """Serve the MCP adapter over stdio (D-28); write tools use $LEMMATA_TOKEN when a call
    passes no token."""
    import os

    import anyio

    from network.api.app import create_app
    from network.api.tools import build_mcp

    settings = _service_settings(data_dir=data_dir, database_url=database_url, graph=graph)
    app = create_app(settings)
    server = build_mcp(app.state.svc, default_token=os.environ.get("LEMMATA_TOKEN"))
    anyio.run(server.run_stdio_async)
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
@guarded
def site_build(graph: Path, out: Path, commit: str | None, strict: bool,
               featured: str | None, repository_url: str | None) -> int:
    """Build the static site of GRAPH into OUT, in named stages (D-36)."""
    from network.site.build import build_site
    from network.site.config import SiteConfig

    config = SiteConfig(graph=graph, out=out, commit=commit, strict=strict,
                        featured_target=featured, repository_url=repository_url)
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
              "(repeatable); default: every FormalConjectures/ErdosProblems/<N>.lean.")
@click.option("--include-test", is_flag=True, help="Also import statements of category test.")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="Compare against this graph work tree and write the new files into it.")
@click.option("--curator", default=None, help="The curator signing the intake (default: the "
              "graph's '*' curator).")
@click.option("--repository", default=None, help="The https URL to record (default: origin).")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@guarded
def import_formal_conjectures(path: Path, problems: tuple[str, ...], include_test: bool,
                              graph: Path | None, curator: str | None,
                              repository: str | None, dry_run: bool) -> int:
    """Make listed targets from a Formal Conjectures checkout at PATH (D-6, D-10, D-30)."""
    from network.importers.formal_conjectures import plan_formal_conjectures_import

    plan = plan_formal_conjectures_import(
        path, graph, problems=list(problems) or None, include_test=include_test,
        curator=curator or ("importer" if graph is None else None), repository=repository)
    return _finish_import(plan, graph, dry_run)


@import_group.command("erdosproblems")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--problem", "problems", multiple=True, help="Consider only this problem number.")
@click.option("--graph", type=click.Path(path_type=Path), default=None,
              help="Attach to this graph work tree's targets and write the changes into it.")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@guarded
def import_erdosproblems(file: Path, problems: tuple[str, ...], graph: Path | None,
                         dry_run: bool) -> int:
    """Attach an erdosproblems database FILE to matching targets as prior art (D-6, D-10)."""
    from network.importers.erdosproblems import plan_erdosproblems_import

    plan = plan_erdosproblems_import(file, graph, problems=list(problems) or None)
    return _finish_import(plan, graph, dry_run)


@main.command()
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=Path(".lemmata"),
              show_default=True, help="The network's data directory.")
@click.option("--graph", type=click.Path(path_type=Path), default=Path("graph"),
              show_default=True, help="The graph folder that seeds the forge on first run.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address.")
@click.option("--port", type=int, default=8000, show_default=True, help="Service port.")
@click.option("--site-port", type=int, default=8001, show_default=True, help="Site port.")
@guarded
def up(data_dir: Path, graph: Path, host: str, port: int, site_port: int) -> int:
    """Run the whole network on the embedded defaults (README command one)."""
    from network.up import run

    return run(data_dir, graph, host=host, port=port, site_port=site_port)


if __name__ == "__main__":  # pragma: no cover
    main()
