"""The target commands: ``lemmata target repin`` (issue 37 "re-pin, the way out"; D-4 step
1, D-9 Detail, D-28 gate-spec). Registered on the root group by :mod:`network.cli`; each
body imports what it needs inside the function, so ``lemmata --help`` stays light.

``lemmata target repin TARGET --toolchain leanprover/lean4:vX.Y.Z [--mathlib REV]
[--package NAME=REV ...]`` moves a target to a new pin: it checks the new pin (a value
gate-spec/v1 holds, a change, not itself known unsound), re-elaborates every merged file
of the target under it (:func:`network.gate.repin.drift_report`), writes the new
``gate-spec.json`` as one commit on a new branch ``repin/<target>-<tag>``
(:mod:`network.gate.repin_branch`) and opens a pull request whose body is the drift
report and the new pin's soundness. Where the network has a forge (``--data``, or the
default data directory of ``lemmata up`` when ``--graph`` is not given) the branch and the
pull request are the forge's; otherwise the branch is written in the graph's repository
and the body printed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from network.cli_base import EXIT_OK, guarded
from network.errors import LemmataError, define

define("network-state-missing", None, 404,
       "The data directory holds no network state (no service database or forge), so a "
       "token issued there would reach no running service. A relative --data (the "
       "default, .lemmata) is read from the folder the command runs in.",
       "Point at the data directory the network runs on: run the command from the checkout "
       "where `make run` runs (it keeps its state in CHECKOUT/.lemmata), or pass --data "
       "CHECKOUT/.lemmata, or set LEMMATA_DATA_DIR=CHECKOUT/.lemmata; or pass the "
       "network's --database-url.")


@click.group("target")
def target_group() -> None:
    """Targets: re-pin a target's toolchain (issue 37)."""


def _forge_at(data_dir: Path | None, database_url: str | None, *, required: bool) -> Any:
    """The LocalForge of a network's data directory (``lemmata up``'s ``forge.git`` with its
    database, as every process on that directory opens it), or None when the directory
    holds none and ``required`` is False. Nothing is written here: the database is
    migrated only before a pull request is opened (:func:`_migrated`).

    Raises:
        LemmataError: ``network-state-missing`` when ``required`` and there is no forge;
            ``data-dir-other-database``; ``data-dir-invalid``.
    """
    from sqlalchemy.orm import sessionmaker

    from network.api import db
    from network.api.settings import ServiceSettings
    from network.forge.local import LocalForge
    from network.up import DataDir

    given: dict[str, Any] = {k: v for k, v in (("data_dir", data_dir),
                                                ("database_url", database_url))
                             if v is not None}
    settings = ServiceSettings(**given)
    data = DataDir(settings.data_dir)
    if not (data.forge / "HEAD").exists():
        if not required:
            return None
        raise LemmataError("network-state-missing",
                           f"{settings.data_dir.resolve()} holds no forge (forge.git); run "
                           "`lemmata up` there, or pass --graph")
    url = settings.resolved_database_url()
    data.bind_database(url, given=settings.database_url is not None, record=False)
    return LocalForge(data.forge, sessionmaker(db.make_engine(url), expire_on_commit=False))


def _migrated(forge: Any) -> Any:
    """``forge`` with its database brought to the newest migration (idempotent)."""
    from network.api import db

    db.migrate(forge.sessions.kw["bind"])
    return forge


@target_group.command("repin")
@click.argument("target")
@click.option("--toolchain", required=True, metavar="leanprover/lean4:vX.Y.Z",
              help="The new Lean toolchain pin.")
@click.option("--mathlib", default=None, metavar="REV",
              help="The new Mathlib revision (40 hex); unchanged when absent.")
@click.option("--package", "packages", multiple=True, metavar="NAME=REV",
              help="A pinned package's new revision (repeatable); unchanged when absent.")
@click.option("--graph", "graph", type=click.Path(path_type=Path, file_okay=False),
              default=None, help="The graph (its folder in a git work tree, or a repository); "
              "default ./graph, or the forge of --data / the default data directory.")
@click.option("--base", default="HEAD", show_default=True,
              help="The commit of --graph's repository to branch from (a forge branches "
              "from its main).")
@click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
              help="A network's data directory (`lemmata up`): open the pull request on its "
              "forge.")
@click.option("--database-url", default=None,
              help="With --data: the SQLAlchemy URL of its state (default: its own).")
@click.option("--dry-run", is_flag=True,
              help="Check and print the pull request body; write nothing.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {branch, commit, pull_request, drift} as JSON.")
@guarded
def target_repin(target: str, toolchain: str, mathlib: str | None, packages: tuple[str, ...],
                 graph: Path | None, base: str, data_dir: Path | None,
                 database_url: str | None, dry_run: bool, as_json: bool) -> int:
    """Re-pin TARGET's gate-spec.json to a new toolchain (and Mathlib): one commit on a new
    branch repin/<TARGET>-<tag>, and a pull request whose body is the drift report (every
    merged file re-elaborated under the new pin) and the new pin's soundness. Refused: an
    unknown or malformed TARGET, a pin gate-spec.json cannot hold, a change that changes
    nothing, and a pin that is itself known unsound. Exit 0 written, 1 refused, 3 a bug."""
    from network.gate import repin_branch as rb
    from network.gate.lean.detect import detect_toolchain
    from network.gate.lean.kernels import pin_soundness
    from network.gate.repin import drift_report
    from network.gate.sandbox.sandbox import Sandbox
    from network.ids import check_target_id

    check_target_id(target)  # before anything is opened: ../x, a/b
    pkgs = rb.parse_packages(packages)
    rb.check_pins(toolchain, mathlib, pkgs)
    forge: Any = _forge_at(data_dir, database_url, required=data_dir is not None) \
        if data_dir is not None or graph is None else None
    if forge is not None:
        graph_path: Path = forge.path
        repo = rb.GraphRepo(forge.repo, "")
        start = forge.main_sha()
    else:
        graph_path = graph if graph is not None else Path("graph")
        repo = rb.open_graph_repo(graph_path)
        start = repo.resolve(base)
    plan = rb.plan_repin(repo, start, target, toolchain, mathlib, pkgs)
    report = drift_report(graph_path, start, target, plan.new_spec, detect_toolchain,
                          Sandbox())
    body = rb.pr_body(plan, report, pin_soundness(plan.new_spec))
    out: dict[str, Any] = {"branch": plan.branch_name, "commit": None, "pull_request": None,
                           "written": False, "drift": report.to_dict()}
    if not dry_run:
        head = rb.write_branch(repo, plan)
        out.update(commit=head, written=True)
        if forge is not None:
            try:
                pr = _migrated(forge).open_from_commit(
                    head, title=plan.title, body=body, author="lemmata-repin",
                    base_sha=start)
            except BaseException:
                rb.drop_branch(repo, plan, head)  # nothing half-written
                raise
            out["pull_request"] = pr.number
    if as_json:
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return EXIT_OK
    if dry_run:
        click.echo(f"dry run: would write branch {plan.branch_name} from {start[:12]}")
    elif out["pull_request"] is not None:
        click.echo(f"pull request #{out['pull_request']} opened on {forge.path}: branch "
                   f"{plan.branch_name} at {out['commit']}")
    else:
        click.echo(f"branch {plan.branch_name} written at {out['commit']} (no forge: open the "
                   "pull request with the body below)")
    click.echo("")
    click.echo(body)
    return EXIT_OK
