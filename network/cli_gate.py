"""The gate's commands (D-4, D-5, D-27): ``lemmata gate`` (run, export, trusted, rejudge,
keygen, reproduce), ``lemmata pregate`` (the contributor's local run of the gate's own
steps) and ``lemmata toolchain`` (the pinned Lean toolchains: status, install). Each body
imports its gate module inside the function, so ``lemmata --help`` stays light; they are
registered on the root group by :mod:`network.cli`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from network.cli_base import EXIT_FAILED, EXIT_OK, guarded
from network.errors import LemmataError

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


@click.group("gate")
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
    from network.gate.lean.detect import detect_toolchain
    from network.gate.run import Review, attestation_files, run_gate
    from network.gate.sandbox.sandbox import Sandbox
    from network.record.read import blob_cache

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

    from network.gate.github.github_export import export_build, submitter_of
    from network.gate.lean.detect import detect_toolchain
    from network.gate.sandbox.sandbox import Sandbox
    from network.record.read.loader import load_graph

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
    from network.gate.github import github_rejudge as R
    from network.gate.github import github_trusted as T
    from network.gate.lean.detect import detect_toolchain
    from network.gate.sandbox.sandbox import Sandbox
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

    from network.gate.github import github_rejudge as R
    from network.record.read.loader import load_graph

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
    from network.gate.lean.detect import detect_toolchain
    from network.gate.pregate import reproduce
    from network.gate.sandbox.sandbox import Sandbox
    from network.record.models import attestation_from_json

    original = attestation_from_json(att_path.read_text(encoding="utf-8"))
    rep = reproduce(graph, original, toolchain=detect_toolchain, sandbox=Sandbox())
    click.echo(json.dumps({"identical": rep.identical, "differing": rep.differing},
                          indent=2))
    return EXIT_OK if rep.identical else EXIT_FAILED


@click.command("pregate")
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
    from network.gate.lean.detect import detect_toolchain
    from network.gate.pregate import pregate
    from network.gate.sandbox.sandbox import Sandbox

    res = pregate(graph, base, head, toolchain=detect_toolchain, sandbox=Sandbox(),
                  submitter=submitter, sign_with=sign_key,
                  record_into=graph if record else None)
    click.echo(json.dumps(res.to_dict(), indent=2, ensure_ascii=False))
    return res.outcome.exit_code


@click.group("toolchain")
def toolchain_group() -> None:
    """The pinned Lean toolchains: whether they are here, and installing them."""


def _graph_specs(graph: Path) -> dict[str, Any]:
    from network.record.read.loader import load_graph

    g = load_graph(graph)
    return {tid: t.gate_spec for tid, t in g.targets.items()}


@toolchain_group.command("status")
@click.option("--graph", type=click.Path(path_type=Path), default=Path("graph"),
              show_default=True, help="The graph whose gate-specs name the pins.")
@guarded
def toolchain_status_cmd(graph: Path) -> int:
    """Say, per target, whether its pinned toolchain can check proofs here."""
    from network.gate.lean.install import toolchain_status

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
    """Install every pinned toolchain with elan and fetch the Mathlib cache with lake, build
    the pinned packages' modules the graph imports (Formal Conjectures' utilities), then
    build the independent kernels step 4 runs at the soundness record's pinned commits."""
    from network.gate.lean.install import (
        find_elan,
        install_kernels,
        install_toolchains,
        package_imports,
    )

    root = pins_root or Path.home() / ".cache/lemmata/pins"
    specs = _graph_specs(graph)
    steps = install_toolchains(list(specs.values()), pins_root=root, elan=find_elan(),
                               say=click.echo, modules=package_imports(graph, specs))
    steps += install_kernels(pins_root=root, say=click.echo)  # issue 37: step 4's kernels
    click.echo(f"ok: {len(steps)} step(s) done")
    return EXIT_OK
