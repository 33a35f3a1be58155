"""``lemmata up``: the whole network on its embedded defaults (README command one).

It initialises a data directory — the gate, approval and service keys, the SQLite state,
and a LocalForge bare repository seeded from ``graph/`` with its history — builds the site,
and starts on loopback the service (HTTP + MCP), the merge-queue runner and a static
server for the site. A second run finds everything in place and resumes the same network.

Nothing here is evidentiary (DESIGN.md): the data directory can be deleted and rebuilt
from the graph; only the forge repository's commits are the record.

The forge's seeding and the published keys are :mod:`network.up_forge`'s, the static
site server :mod:`network.up_site`'s (issue 17); both are re-exported here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import signal
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pygit2
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.errors import LemmataError, define
from network.record import derive
from network.up_forge import MAIN, publish_keys, seed_forge
from network.up_site import LIVE_CLAIMS_PATH, live_claims_json, static_server

__all__ = [
    "FORGE_DIR",
    "KEY_KINDS",
    "LIVE_CLAIMS_PATH",
    "MAIN",
    "SERVICE_FILE",
    "SITE_DIR",
    "DataDir",
    "QueueRunner",
    "banner",
    "build_site",
    "calibration_nodes",
    "calibration_targets",
    "ensure_keys",
    "existing_keys",
    "key_id_for",
    "live_claims_json",
    "publish_keys",
    "run",
    "say",
    "seed_forge",
    "serve_in_thread",
    "static_server",
    "toolchain_line",
]

define("data-dir-invalid", None, 500, "The data directory exists but is not a Lemmata network.",
       "Point --data at an empty folder or at one a previous `lemmata up` created.")
define("data-dir-other-database", None, 409,
       "The network on this data directory keeps its state in another database than the "
       "one this process would open, so it would not serve the same claims and tokens.",
       "Pass the network's own database (--database-url or LEMMATA_DATABASE_URL, named in "
       "the detail). To move the network to a new database on purpose, delete the data "
       "directory's service.json first.")

KEY_KINDS = ("gate", "approval", "service")
FORGE_DIR = "forge.git"
SITE_DIR = "site"
#: The file in a data directory naming the database its network's state lives in.
SERVICE_FILE = "service.json"


@dataclass(frozen=True)
class DataDir:
    """The paths of one network's data directory.

    Attributes:
        root: the directory.
        forge: the LocalForge bare repository.
        keys: where the Ed25519 private keys live (PEM, mode 0600).
        site: the built static site.
        database_url: SQLAlchemy URL of the operational state (SQLite in ``root``).
    """

    root: Path

    @property
    def forge(self) -> Path:
        return self.root / FORGE_DIR

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def site(self) -> Path:
        return self.root / SITE_DIR

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.root / 'state.db'}"

    def database_name(self, url: str) -> str:
        """How ``service.json`` names the database at ``url``: ``sqlite:<file>`` for a
        SQLite file inside this directory (so the folder may be moved), else the URL with
        any password masked (``***``); never a secret."""
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and parsed.database:
            path = Path(parsed.database).resolve()
            if path.parent == self.root.resolve():
                return f"sqlite:{path.name}"
        return parsed.render_as_string(hide_password=True)

    def bind_database(self, url: str, *, given: bool, record: bool = True) -> None:
        """Hold every process on this data directory to one database (issue 11: a second
        ``serve``/``mcp``/``token`` beside a running network serves its state, or says
        why not). The first process records the database's name (:meth:`database_name`)
        in ``service.json``; a later one whose database differs is refused.

        Args:
            url: the database this process would open.
            given: whether ``url`` was given (flag or environment) rather than defaulted.
            record: write ``service.json`` when absent (False: only compare).

        Raises:
            LemmataError: ``data-dir-other-database`` naming the recorded database;
                ``data-dir-invalid`` when ``service.json`` is not this format.
        """
        path = self.root / SERVICE_FILE
        name = self.database_name(url)
        if not path.exists():
            if record:
                self.root.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_text(json.dumps({"database": name}, indent=2) + "\n",
                               encoding="utf-8")
                tmp.replace(path)
            return
        try:
            recorded = json.loads(path.read_text(encoding="utf-8"))["database"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LemmataError("data-dir-invalid", f"{path} is not a service.json "
                               f"({type(exc).__name__})") from None
        if recorded == name:
            return
        how = (f"this process was given {name}" if given
               else f"without --database-url it would open {name}")
        raise LemmataError("data-dir-other-database", f"the network on {self.root} keeps "
                           f"its state in {recorded}; {how}")

    def record_addresses(self, public_url: str, site_origin: str) -> None:
        """Record where the network this directory runs is served, beside the database
        in ``service.json`` (``public_url``: the service's base URL; ``site_origin``: its
        site's origin), so an operator's command on the folder (``lemmata session link``)
        prints links that reach it whatever ports it runs on (issue 40). ``lemmata up``
        writes them at each start; the database entry is kept as it is.

        Raises:
            LemmataError: ``data-dir-invalid`` when ``service.json`` is not this format.
        """
        path = self.root / SERVICE_FILE
        recorded = self._service_json(path) if path.exists() else {}
        recorded.update({"public_url": public_url, "site_origin": site_origin})
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)

    def addresses(self) -> dict[str, str]:
        """``{public_url, site_origin}`` as ``service.json`` records them (those of the
        last ``lemmata up`` on this folder, :meth:`record_addresses`); empty when none
        are recorded or the file is unreadable (an operator's command then falls back to
        its settings)."""
        path = self.root / SERVICE_FILE
        try:
            recorded = self._service_json(path)
        except (OSError, LemmataError):
            return {}
        return {k: v for k in ("public_url", "site_origin")
                if isinstance(v := recorded.get(k), str) and v}

    @staticmethod
    def _service_json(path: Path) -> dict[str, Any]:
        """``service.json``'s object.

        Raises:
            OSError: it cannot be read.
            LemmataError: ``data-dir-invalid`` when it is not a JSON object.
        """
        try:
            recorded = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            recorded = None
        if not isinstance(recorded, dict):
            raise LemmataError("data-dir-invalid", f"{path} is not a service.json")
        return recorded

    def graph_provider(self) -> Any:
        """The :class:`network.api.graphs.GraphProvider` of the network's record: its
        forge's main branch, versioned by main's commit (what ``lemmata up`` serves)."""
        from network.api.graphs import GraphProvider
        from network.record.read import blob_cache
        from network.record.read.loader import load_graph

        forge = self.forge

        def load_main() -> Any:
            return load_graph(forge, MAIN, cache=blob_cache.configured())

        def main_version() -> str:
            return str(pygit2.Repository(str(forge)).references[MAIN].target)

        return GraphProvider(load_main, main_version)


def say(message: str) -> None:
    """Progress for long steps, on standard output, flushed at once."""
    print(message, flush=True)


# --- keys ------------------------------------------------------------------------------


def key_id_for(kind: str, key: Ed25519PrivateKey) -> str:
    """``<kind>-<first 12 hex of SHA-256 of the raw public key>``: stable for a key."""
    raw = signing.public_key_b64(key).encode("ascii")
    return f"{kind}-{hashlib.sha256(raw).hexdigest()[:12]}"


def existing_keys(data: DataDir) -> dict[str, tuple[str, Ed25519PrivateKey]]:
    """The gate, approval and service keys the data directory holds, creating none (an
    operator's command on the folder signs with them, issue 40).

    Returns:
        kind → (key id, private key), for each key file present.

    Raises:
        LemmataError: ``bad-key`` (from :mod:`network.signing`) for an unreadable key file.
    """
    out: dict[str, tuple[str, Ed25519PrivateKey]] = {}
    for kind in KEY_KINDS:
        path = data.keys / f"{kind}.pem"
        if path.is_file():
            key = signing.load_private_key(path)
            out[kind] = (key_id_for(kind, key), key)
    return out


def ensure_keys(data: DataDir) -> dict[str, tuple[str, Ed25519PrivateKey]]:
    """Load the gate, approval and service keys, creating any that are missing.

    Returns:
        kind → (key id, private key).

    Raises:
        LemmataError: ``bad-key`` (from :mod:`network.signing`) for an unreadable key file.
    """
    data.keys.mkdir(parents=True, exist_ok=True)
    out: dict[str, tuple[str, Ed25519PrivateKey]] = {}
    for kind in KEY_KINDS:
        path = data.keys / f"{kind}.pem"
        key = signing.load_private_key(path) if path.exists() else \
            signing.generate_private_key(path)
        out[kind] = (key_id_for(kind, key), key)
    return out


# --- the service in a thread ---------------------------------------------------------------


@contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 8000, *,
                    start_timeout_s: float = 60.0) -> Iterator[Any]:
    """Serve ``app`` with uvicorn (one worker, lifespan on) in a daemon thread until the
    block ends, then stop it; yields the ``uvicorn.Server`` once it listens. The test
    networks (tests/api_flow_support.py) and the benchmarks (benchmarks/soak.py) start the
    service this way; :func:`run` has its own start-up (signals, banner, the queue).

    Raises:
        LemmataError: ``listen-failed`` when it does not listen within
            ``start_timeout_s`` seconds (the port is taken, or start-up failed).
    """
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, workers=1,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=_service_main, args=(server,), name="service",
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise LemmataError("listen-failed", f"the service did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=30)


# --- the banner ---------------------------------------------------------------------------


def banner(*, api: str, site: str, toolchain_line: str, checkable: bool = True,
           calibration: Sequence[str] = ()) -> str:
    """What `make run` prints once everything is up: URLs, MCP configs, first steps.

    Args:
        api, site: the service's and the site's base URLs.
        toolchain_line: :func:`toolchain_line`'s sentence.
        checkable: whether the tutorial target's pinned toolchain is installed here. When
            it is not, the first steps start from an operator token and say that proofs
            end ``toolchain-missing`` (issue 11), in the words of
            :mod:`network.api.guidance`.
        calibration: the graph's calibration nodes as ``<target>/<node>``
            (:func:`calibration_nodes`), named once, in full, in the step that claims one.
    """
    from network.api.guidance import WAY_FORWARD

    mcp = f"{api}/mcp"
    generic = json.dumps({"mcpServers": {"lemmata": {"type": "http", "url": mcp}}}, indent=2)
    cal = (("the calibration node " if len(calibration) == 1 else "a calibration node: ")
           + ", ".join(f"`{c}`" for c in calibration) if calibration
           else "a node of a calibration target (this graph has none)")
    if checkable:
        steps = f"""First three steps for an agent:
  1. list_frontier, then get_node on the tutorial node (target `tutorial`).
  2. precheck_submission of a tutorial proof, then get_token with that precheck:
     keep the token where the machine remembers it, and tell your operator the
     recovery code.
  3. claim_node on {cal}, precheck,
     submit_proof, and poll get_submission until the merge queue has judged it."""
    else:
        steps = f"""Proofs are not checked here, so a tutorial precheck cannot prove an identity.
First three steps:
  1. Operator: issue the agent a token on this network's data directory:
       .venv/bin/lemmata token issue --pseudonym NAME --dco
     and hand it the token; keep the recovery code.
  2. Agent: list_frontier, then get_node on the tutorial node (target `tutorial`);
     claim_node on {cal}.
  3. Agent: precheck_submission returns every finding that needs no Lean (step 2)
     and then ends `toolchain-missing`; postmortems (submit_postmortem) need no
     Lean and merge through the queue.
{_wrap(WAY_FORWARD, "  ")}"""
    return f"""
Lemmata is running on loopback.

  service   {api}/        (every route: GET {api}/ ; info: {api}/info.json)
  MCP       {mcp}   (streamable HTTP)
  site      {site}/
  proofs    {toolchain_line}

Connect an agent:
  Claude Code:  claude mcp add --transport http lemmata {mcp}
  Codex:        add to ~/.codex/config.toml
                  [mcp_servers.lemmata]
                  url = "{mcp}"
  Any client:   {generic.replace(chr(10), chr(10) + '                ')}

Plain git (README, "Contributing with plain git"):
  git clone {api}/git/graph.git
  git push http://NAME:TOKEN@{api.removeprefix('http://')}/git/graph.git HEAD:submit/NAME

{steps}

People on the site (stewards, curators; docs/api.md, "The operator's way in"):
  .venv/bin/lemmata token issue --pseudonym NAME --dco [--holds-role]
  .venv/bin/lemmata session link --pseudonym NAME
  print a one-time sign-in link; --holds-role vouches for a curator or steward the
  graph names (graph/curators.json).

Ctrl-C stops everything; `make run` again resumes this network.
"""


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(text, width=88, initial_indent=indent, subsequent_indent=indent)


def calibration_targets(graph: Any) -> list[str]:
    """The ids of ``graph``'s calibration targets (class ``calibration`` or
    ``calibration: true``), sorted: the banner and graph/AGENTS.md name them by id."""
    return sorted(tid for tid, t in graph.targets.items()
                  if t.record.target_class == "calibration" or t.record.calibration)


def calibration_nodes(graph: Any) -> list[str]:
    """Each calibration target's root as a full node id, ``<target>/<node>`` (e.g.
    ``infinite-primes/root``): those authored for this network (no intake, or an intake
    whose provenance is ``authored``) before those imported from a registry, then class ``calibration`` before ``calibration: true`` alone, then by
    id. The banner names the first, once (issue 35, item 7; D-6 v3.17: calibration targets
    need no steward). A target with no root is left out."""
    def first(tid: str) -> tuple[bool, bool, str]:
        rec = graph.targets[tid].record
        imported = rec.intake is not None and rec.intake.provenance.source != "authored"
        return imported, rec.target_class != "calibration", tid

    summaries = (derive.target_summary(graph, tid)
                 for tid in sorted(calibration_targets(graph), key=first))
    return [f"{s['id']}/{s['root']}" for s in summaries if s.get("root")]


def toolchain_line(specs: dict[str, Any], source: Callable[[Any], Any]) -> str:
    """One line saying whether proofs can be checked here (issue 6): per target, whether the
    toolchain its gate-spec pins is found by ``source`` (the same one prechecks and the
    merge queue use, so the banner, the site footer and /info.json agree)."""
    missing = sorted(tid for tid, spec in specs.items() if not source(spec).describe().ok)
    if not specs:
        return "no targets yet."
    if not missing:
        return "checkable here: every target's pinned Lean toolchain was found."
    if len(missing) == len(specs):
        return ("NOT checkable here: no target's pinned Lean toolchain was found. Every "
                "precheck and gate run ends `toolchain-missing`; `lemmata toolchain install` "
                "installs them where the network allows.")
    return (f"partly checkable: no pinned toolchain for {', '.join(missing)} (those end "
            "`toolchain-missing`); `lemmata toolchain install` installs them.")


# --- run everything -----------------------------------------------------------------------


def run(data_root: Path, graph_dir: Path, *, host: str = "127.0.0.1", port: int = 8000,
        site_port: int = 8001, queue_interval_s: float = 2.0,
        stop: threading.Event | None = None,
        ready: Callable[[dict[str, str]], None] | None = None,
        toolchain: Callable[[Any], Any] | None = None) -> int:
    """Initialise (or resume) the network in ``data_root`` and serve until stopped.

    Args:
        data_root: the data directory (created if absent).
        graph_dir: the graph folder seeding the forge on first run.
        host, port: the service's address; the site is served on ``site_port``.
        queue_interval_s: seconds between merge-queue passes.
        stop: an event that ends the run when set (Ctrl-C sets it too).
        ready: called with the URLs once everything listens (tests use it).
        toolchain: ``GateSpec -> Toolchain`` for prechecks and the merge queue; None
            means :func:`~network.gate.lean.detect.detect_toolchain`, the only choice product
            code makes (a test launcher injects the recorded stand-in here).

    Returns:
        0 after a clean stop.

    Raises:
        LemmataError: ``data-dir-invalid``; ``listen-failed`` (a port is taken); anything
            the parts raise while starting.
    """
    import uvicorn

    from network.api.app import create_app
    from network.api.settings import ServiceSettings
    from network.forge.local import LocalForge
    from network.record.read.loader import load_graph

    data = DataDir(data_root)
    data.root.mkdir(parents=True, exist_ok=True)
    if any(data.root.iterdir()) and not (data.forge / "HEAD").exists() and \
            not (data.root / "state.db").exists() and not data.keys.exists():
        raise LemmataError("data-dir-invalid", f"{data.root} holds other files")
    data.bind_database(data.database_url, given=False)  # before anything is written
    say(f"[1/5] data directory {data.root}")
    keys = ensure_keys(data)
    say("[2/5] forge repository (seeded from graph/ with its history on first run)")
    main_sha, written = seed_forge(data.forge, graph_dir)
    say(f"      main is {main_sha[:12]} ({written} commit(s) written)" if written
        else f"      resumed at {main_sha[:12]}")
    settings = ServiceSettings(data_dir=data.root, database_url=data.database_url,
                               graph=data.forge, host=host, port=port,
                               public_url=f"http://{host}:{port}",
                               site_origin=f"http://{host}:{site_port}")
    data.record_addresses(settings.public_url, settings.site_origin)  # issue 40
    from network.record.read import blob_cache

    blob_cache.configure(blob_cache.default_dir(data.root))  # records by blob id (issue 17)
    say("[3/5] service state (SQLite) and keys")

    def load_main() -> Any:
        return load_graph(data.forge, "refs/heads/main", cache=blob_cache.configured())

    from network.gate.lean.detect import detect_toolchain

    toolchain_source = toolchain or detect_toolchain
    provider = data.graph_provider()
    from sqlalchemy.orm import sessionmaker

    from network.api import db

    engine = db.make_engine(settings.resolved_database_url())
    db.migrate(engine)
    forge = LocalForge(data.forge, sessionmaker(engine, expire_on_commit=False))
    from network.api.service import RunnerQueue
    from network.gate.queue.queue_health import health_for

    health = health_for(forge, fresh=True)  # /info.json shows the queue "starting" from now on

    def settle_writes() -> object:
        """Each queue pass settles the record writes whose writer is gone (issue 39)."""
        from network.api.submit import openings

        return openings.reconcile_pending(app.state.svc)

    stop = stop or threading.Event()
    runner = QueueRunner(lambda: threading.Thread(
        target=_queue_loop,
        args=(data, forge, keys, stop, queue_interval_s, note, toolchain_source), name="queue",
        kwargs={"service_url": settings.public_url, "settle_writes": settle_writes,
                "github_sign_in": bool(settings.github_client_id)},
        daemon=True), health)
    app = create_app(settings, graph_loader=provider, toolchain=toolchain_source,
                     forge=forge, keys=keys,
                     queue=RunnerQueue(health.snapshot, runner.alive,
                                       settings.queue_max_failures))
    commit_date = time.strftime("%Y-%m-%d", time.gmtime(
        pygit2.Repository(str(data.forge))[forge.main_sha()].peel(pygit2.Commit).commit_time))
    published = publish_keys(forge, keys, commit_date)
    if published:
        say(f"      published {', '.join(published)}")
    say("[4/5] site")
    main_graph = load_main()
    note = toolchain_line({tid: t.gate_spec for tid, t in main_graph.targets.items()},
                          toolchain_source)
    github_sign_in = bool(settings.github_client_id)
    build_site(data, note, service_url=settings.public_url, github_sign_in=github_sign_in)
    say("[5/5] service, merge queue and site server")
    logging.getLogger("mcp").setLevel(logging.WARNING)  # the banner, not library chatter
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    # uvicorn (>= 0.29) takes SIGINT/SIGTERM only when served from the main thread; the
    # service thread leaves them to on_signal below
    api_thread = threading.Thread(target=_service_main, args=(server,), name="service",
                                  daemon=True)

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous: tuple[Any, Any] | None = None
    if threading.current_thread() is threading.main_thread():
        previous = (signal.signal(signal.SIGINT, on_signal),
                    signal.signal(signal.SIGTERM, on_signal))
    try:
        tutorial = main_graph.targets.get("tutorial")
        first_steps = {
            "checkable": tutorial is None or bool(
                toolchain_source(tutorial.gate_spec).describe().ok),
            "calibration": calibration_nodes(main_graph)[:1]}
        _serve(data, server, api_thread, runner, stop, host, port, site_port, note, ready,
               first_steps)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous[0])
            signal.signal(signal.SIGTERM, previous[1])
    say("stopped cleanly; `make run` resumes this network.")
    return 0


def _service_main(server: Any) -> None:
    """The service thread: uvicorn's ``run``; its ``sys.exit`` on a start-up failure (a
    taken port) ends the thread quietly, and :func:`_serve` reports ``listen-failed``."""
    try:
        server.run()
    except SystemExit:
        pass


class QueueRunner:
    """The merge-queue thread of ``lemmata up`` (issue 16: the runner never dies): made by
    ``make``, restarted by :meth:`supervise` when it has died while the network runs, and
    heard by the service through :meth:`alive` (its
    :class:`~network.api.service.RunnerQueue`), which refuses writes that open a pull
    request while it is down. :meth:`beat` writes the heartbeat
    (``<data>/queue-heartbeat.json``) a service in another process reads.

    Args:
        make: builds a fresh, unstarted runner thread.
        health: the runner's :class:`~network.gate.queue.queue_health.QueueHealth`, shared by every
            thread it makes.
    """

    def __init__(self, make: Callable[[], threading.Thread], health: Any) -> None:
        self._make = make
        self.health = health
        self.thread: threading.Thread | None = None
        self._last_beat = 0.0

    def start(self) -> None:
        """Start a fresh runner thread."""
        self.thread = self._make()
        self.thread.start()

    def alive(self) -> bool:
        """Whether the runner runs (True before the first start: it is starting)."""
        return self.thread is None or self.thread.is_alive()

    def supervise(self, stop: threading.Event) -> bool:
        """Restart the runner when its thread has died and ``stop`` is not set (a
        BaseException the loop does not catch). Returns whether it restarted it."""
        if self.thread is None or self.thread.is_alive() or stop.is_set():
            return False
        logging.getLogger(__name__).error("merge queue: the runner thread died; restarted")
        say("merge queue: the runner died; restarted")
        self.health.restarted()
        self.start()
        return True

    def beat(self, path: Path, now: float, *, every_s: float | None = None) -> None:
        """Write the heartbeat to ``path`` when ``every_s`` seconds (default
        ``network.gate.queue.queue_health.HEARTBEAT_S``) have passed since the last one (always when 0);
        a refused write is logged, never raised."""
        from network.gate.queue.queue_health import HEARTBEAT_S, write_heartbeat

        if now - self._last_beat < (HEARTBEAT_S if every_s is None else every_s):
            return
        self._last_beat = now
        try:
            write_heartbeat(path, self.health.snapshot(), alive=self.alive(), now=now)
        except OSError as exc:
            logging.getLogger(__name__).error("merge queue: heartbeat not written: %s", exc)

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the runner thread to end."""
        if self.thread is not None:
            self.thread.join(timeout=timeout)


def _serve(data: DataDir, server: Any, api_thread: threading.Thread, runner: QueueRunner,
           stop: threading.Event, host: str, port: int, site_port: int, note: str,
           ready: Callable[[dict[str, str]], None] | None,
           first_steps: dict[str, Any] | None = None) -> None:
    """Start the site server, the service and the queue; wait for ``stop``, restarting a
    dead queue runner and writing its heartbeat meanwhile; stop them.

    Raises:
        LemmataError: ``listen-failed`` when the site or the service cannot listen.
    """
    first_steps = first_steps or {}
    from network.site.csp import header_policy

    live = partial(live_claims_json, server.config.app.state.svc)
    with static_server(data.site, host, site_port, live,
                       csp=header_policy(f"http://{host}:{port}")):
        api_thread.start()
        while not server.started and api_thread.is_alive():
            time.sleep(0.05)
        if not server.started:
            raise LemmataError("listen-failed", f"the service did not start on {host}:{port} "
                               "(its error is printed above)")
        from network.gate.queue.queue_health import HEARTBEAT_FILE

        beat = data.root / HEARTBEAT_FILE
        runner.start()
        runner.beat(beat, time.time(), every_s=0)
        urls = {"api": f"http://{host}:{port}", "site": f"http://{host}:{site_port}"}
        say(banner(api=urls["api"], site=urls["site"], toolchain_line=note,
                   checkable=first_steps.get("checkable", True),
                   calibration=first_steps.get("calibration", ())))
        if ready is not None:
            ready(urls)
        while not stop.is_set() and api_thread.is_alive():
            stop.wait(0.2)
            runner.supervise(stop)
            runner.beat(beat, time.time())
        say("stopping…")
        server.should_exit = True
        api_thread.join(timeout=10)
        runner.join(timeout=10)
        runner.beat(beat, time.time(), every_s=0)  # says "stopped" to any other reader


def build_site(data: DataDir, toolchain_note: str, *, service_url: str | None = None,
               github_sign_in: bool = False) -> None:
    """Render main of the forge into ``data.site`` (D-36); the footer says ``toolchain_note``;
    with ``service_url`` (the service's origin) the pages draw the person controls (D-36
    v3.33, :attr:`network.site.config.SiteConfig.service_url`), offering GitHub sign-in only
    with ``github_sign_in`` (the service has an OAuth app) and the operator's sign-in link
    otherwise (issue 35).

    Raises:
        LemmataError: ``site-tool-missing`` (no Graphviz) and the builder's other codes.
    """
    from network.api.identity.identity import read_vouches
    from network.site.build import build_site as site_build
    from network.site.config import SiteConfig

    site_build(SiteConfig(graph=data.forge, out=data.site, commit="refs/heads/main",
                          toolchain_note=toolchain_note, service_url=service_url,
                          vouched=read_vouches(data.database_url),
                          sign_in="github" if github_sign_in else "operator"))


def _queue_loop(data: DataDir, forge: Any, keys: dict[str, tuple[str, Ed25519PrivateKey]],
                stop: threading.Event, interval_s: float, note: str,
                toolchain: Callable[[Any], Any], *, max_backoff_s: float = 60.0,
                service_url: str | None = None,
                settle_writes: Callable[[], object] | None = None,
                github_sign_in: bool = False) -> None:
    """Run merge-queue passes until ``stop`` is set; rebuild the site when main moves
    (naming ``service_url``, see :func:`build_site`); after each pass, ``settle_writes``
    (the service's :func:`network.api.submit.openings.reconcile_pending`: a record write whose
    writer is gone is recorded open or merged, or expires, issue 39).

    Each pass completes the merge journal's unfinished merges and gates the open pull
    requests oldest first (network.gate.queue.queue), with the toolchain each target pins when
    it is installed here, else ``toolchain-missing``. The runner never dies (issue 16): a
    pass that raises anything is logged with its code and retried after a back-off
    (``interval_s`` doubling per failure in a row, at most ``max_backoff_s``); should the
    loop itself raise, it is restarted. Its health (:class:`~network.gate.queue.queue_health.QueueHealth`:
    last pass, last error) is what ``GET /info.json`` shows under ``service.queue``.
    """
    from network.gate.queue.queue_health import health_for

    health = health_for(forge)
    while not stop.is_set():
        try:
            _queue_passes(data, forge, keys, stop, interval_s, note, toolchain, health,
                          max_backoff_s, service_url, settle_writes, github_sign_in)
        except Exception:  # the loop itself restarts (issue 16)
            logging.getLogger(__name__).exception("merge queue: runner loop restarted")
            health.restarted()
            stop.wait(min(max_backoff_s, interval_s))
    health.stopped()


def _queue_passes(data: DataDir, forge: Any, keys: dict[str, tuple[str, Ed25519PrivateKey]],
                  stop: threading.Event, interval_s: float, note: str,
                  toolchain: Callable[[Any], Any], health: Any, max_backoff_s: float,
                  service_url: str | None = None,
                  settle_writes: Callable[[], object] | None = None,
                  github_sign_in: bool = False) -> None:
    """The body of :func:`_queue_loop`: passes until ``stop``; a pass's exception is
    logged, recorded in ``health`` and retried after the back-off."""
    from network.gate.queue.queue import process_queue
    from network.gate.sandbox.sandbox import Sandbox

    sandbox = Sandbox()
    key_id, key = keys["gate"]
    seen = forge.main_sha()
    while not stop.is_set():
        delay = interval_s
        try:
            items = process_queue(forge, toolchain=toolchain, sandbox=sandbox,
                                  gate_key=key, key_id=key_id, work_dir=data.root / "work")
            for item in items:
                say(f"merge queue: #{item.number} {item.verdict}"
                    + (f" ({item.code})" if item.code else ""))
            if settle_writes is not None:
                settle_writes()
            if forge.main_sha() != seen:
                seen = forge.main_sha()
                build_site(data, note, service_url=service_url, github_sign_in=github_sign_in)
            health.passed(time.time())
        except Exception as exc:  # noqa: BLE001 - logged, retried with a back-off
            code, detail = ((exc.code, exc.detail) if isinstance(exc, LemmataError) else
                            ("gate-internal-error", f"{type(exc).__name__}: {exc}"[:500]))
            delay = min(max_backoff_s, interval_s * 2 ** min(health.failures_in_a_row, 16))
            health.failed(code, detail, time.time(), delay)
            logging.getLogger(__name__).error("merge queue: pass failed: %s: %s (retry in "
                                              "%.1f s)", code, detail, delay)
            say(f"merge queue: {code}: {detail} (retry in {delay:.1f} s)")
        stop.wait(delay)
