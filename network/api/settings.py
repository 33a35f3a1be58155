"""The protocol service's configuration: one typed class, one docstring per option.

Every option can be set by keyword (tests, ``lemmata serve`` flags) or by an environment
variable named ``LEMMATA_<OPTION>`` (upper case). Nothing is read at import time: the
environment is consulted only when :class:`ServiceSettings` is instantiated (STYLE.md
rules 6 and 7).

Where the graph's ``policy.json`` publishes a number (claim TTL caps, the token lapse,
reserved pseudonyms), the published number wins over the setting here: the settings are
the service's defaults for a graph that publishes none (Foundation ruling 13).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The names the service reserves for itself whatever the graph publishes (D-19 v3.28):
#: the operator's and the gate's own names. Compared without regard to case.
BUILTIN_RESERVED_PSEUDONYMS: tuple[str, ...] = (
    "lemmata", "gate", "service", "operator", "admin", "administrator", "root", "system",
    "curator", "steward", "anonymous", "github-actions", "dependabot", "bot",
)


#: The one default data directory of ``lemmata up``, ``serve``, ``mcp`` and ``token``
#: (issue 11: a second process beside a running network serves the same state).
DEFAULT_DATA_DIR = Path(".lemmata")

#: The SQLite file of the operational state inside a data directory.
STATE_DB = "state.db"
#: What ``lemmata serve`` called it before issue 11; still opened where it is the only one.
LEGACY_STATE_DB = "service.sqlite3"


class ServiceSettings(BaseSettings):
    """Configuration of ``lemmata serve`` and ``lemmata mcp`` (D-35, D-28).

    Raises:
        pydantic.ValidationError: an option has the wrong type or is out of range.
    """

    model_config = SettingsConfigDict(env_prefix="LEMMATA_", extra="forbid",
                                      use_attribute_docstrings=True)

    data_dir: Path = Field(DEFAULT_DATA_DIR)
    """Folder holding the network's operational state: the SQLite database by default,
    the keys, and (for ``lemmata up``) the LocalForge and the site. The same folder
    ``lemmata up`` runs on (``.lemmata``, issue 11), so ``serve`` and ``mcp`` started
    beside a running network serve its state. Created on start. Losing it changes no
    verdict (DESIGN.md)."""

    database_url: str | None = None
    """SQLAlchemy URL of the operational database; ``None`` means
    ``sqlite:///<data_dir>/state.db`` (the file ``lemmata up`` uses; a data folder holding
    only the older ``service.sqlite3`` keeps that one). PostgreSQL:
    ``postgresql+psycopg://...``."""

    graph: Path = Field(Path("graph"))
    """The graph repository the read routes serve: a work tree, or a git repository
    (then its ``HEAD`` commit is read and names the ETag)."""

    host: str = "127.0.0.1"
    """Address ``lemmata serve`` binds to."""

    port: int = Field(8000, ge=1, le=65535)
    """TCP port ``lemmata serve`` listens on."""

    public_url: str = "http://127.0.0.1:8000"
    """The service's own public base URL, published by ``GET /`` beside the MCP address."""

    token_lapse_days: int = Field(180, ge=1)
    """A write token lapses after this many days without use (D-19 v3.29); a token in use
    never lapses. The graph's ``policy.json`` ``token_lapse_days`` wins when present."""

    claim_ttl_min_s: int = Field(3600, ge=60)
    """The shortest claim, in seconds; an undeclared TTL gets exactly this (D-25).
    ``policy.json`` ``claim_ttl.min_s`` wins when the graph publishes one."""

    claim_ttl_max_s: int = Field(14 * 86400, ge=60)
    """The longest claim, in seconds (D-25). ``policy.json`` ``claim_ttl.max_s`` wins."""

    claims_per_identity: int = Field(20, ge=1)
    """Live claims one identity may hold at once (D-25 with D-19's identity-layer limits,
    ruling 14); a claim past it is ``claim-limit-reached``. Claims are advisory: this
    bounds what one identity holds, never how many hold one node."""

    malloc_arena_max: int = Field(2, ge=0, le=64)
    """The most glibc malloc arenas the service process uses (issue 39): many request
    threads with an arena each made RSS creep up with no Python object held; 2 keeps it
    flat under load. 0 leaves glibc's default (eight per core). Set as the app is built
    (``mallopt``); the ``MALLOC_ARENA_MAX`` environment variable, read by glibc at start,
    has the same effect."""

    malloc_trim_s: float = Field(60.0, ge=0)
    """Seconds between two hand-backs of the C allocator's free memory to the kernel
    (glibc ``malloc_trim``, issue 39: RSS stays flat where freed chunks would otherwise
    stay resident); 0 never trims."""

    rate_window_s: int = Field(3600, ge=1)
    """Length of one rate-limit window, in seconds (fixed windows)."""

    rate_writes_per_identity: int = Field(120, ge=1)
    """Authenticated writes one identity may make per window (D-19: limits at the
    identity layer)."""

    rate_writes_per_address: int = Field(600, ge=1)
    """Writes, authenticated or not, one client address may make per window."""

    opening_lease_s: int = Field(600, ge=1)
    """Seconds a record write of *another live process* may stay ``opening`` (its pull
    request asked of the forge but not yet recorded) before a reconcile settles it against
    the forge: a pull request carrying its mark is recorded, else the reservation expires
    and blocks nothing (issue 16: a crashed write never jams its record). A row opened
    before this process started that it is not writing is settled at once, at start and
    on each queue pass (issue 39, network/api/submit/openings.py). Keep it above the forge's
    longest call (``github_timeout_s`` and its retries)."""

    queue_max_failures: int = Field(5, ge=1)
    """Merge-queue passes that may fail in a row before the queue counts as down and
    writes that open a pull request are refused ``queue-down`` (issue 16)."""

    queue_stale_s: int = Field(60, ge=5)
    """Seconds after which a merge queue in another process that stopped writing its
    heartbeat (``<data_dir>/queue-heartbeat.json``, every 5 s while its runner lives)
    counts as down (issue 16)."""

    rate_auth_failures_per_address: int = Field(60, ge=1)
    """Failed authentications (a missing, unknown, retired or lapsed token) one client
    address may make per window, and one token prefix (its first 12 characters) may meet
    from any address; past it, a further failure is answered ``rate-limited`` instead of
    its 401 (issue 16). Only failures count, and a valid token is never refused by this
    limit (issue 39: one caller's bad tokens lock no one else out)."""

    trusted_proxies: list[str] = Field(default_factory=list)
    """Addresses or networks (``10.0.0.1``, ``10.0.0.0/8``, ``::1``) of the reverse proxies
    whose ``X-Forwarded-For`` names the client (issue 39); from any other peer the header
    is ignored and the peer's own address is the client's. Default: none, so the header is
    never read. Environment: ``LEMMATA_TRUSTED_PROXIES='["10.0.0.1"]'`` (JSON)."""

    rate_token_issues_per_address: int = Field(20, ge=1)
    """Token issuances and recoveries one client address may ask for per window."""

    max_body_bytes: int = Field(1_000_000, ge=1024)
    """Largest request body accepted, in bytes; larger ones are refused with
    ``body-too-large`` before they are read."""

    reserved_pseudonyms: list[str] = Field(default_factory=lambda: list(BUILTIN_RESERVED_PSEUDONYMS))
    """Pseudonyms no identity may take, compared without regard to case (D-19 v3.28);
    the graph's ``policy.json`` ``reserved_pseudonyms`` are added to these."""

    dco_version: str = "1.1"
    """The Developer Certificate of Origin version a write token must accept (D-23,
    D-28 get_dco). An identity whose accepted version differs has its writes refused."""

    hosted_checker_url: str | None = None
    """Base URL of the third-party hosted fast Lean checker ``check_lean`` forwards to
    (D-4 v3.14); ``None`` means no hosted checker is configured."""

    hosted_checker_timeout_s: float = Field(60.0, gt=0)
    """Seconds ``check_lean`` waits for the hosted checker before answering
    ``hosted-checker-unavailable`` (D-4 v3.14)."""

    hosted_checker_environments: dict[str, str] = Field(default_factory=dict)
    """Pinned Mathlib commit (40 hex) → the hosted checker's environment name serving it
    (D-4 v3.14, ``GET /hosted-checkers.json``)."""

    github_api_url: str = "https://api.github.com"
    """GitHub REST API base the default identity verifier asks ``GET /user`` of, and the
    GitHub forge sends its calls to (GitHub Enterprise: ``https://HOST/api/v3``)."""

    forge: Literal["local", "github"] = "local"
    """Where record writes open pull requests (DESIGN.md "Forge adapters"): ``local`` is
    the LocalForge in the data folder when it holds one (``lemmata up``'s ``forge.git``);
    ``github`` is GitHubForge on ``github_repo`` with ``github_token``."""

    github_repo: str | None = None
    """The graph repository on GitHub as ``OWNER/NAME``; needed when ``forge`` is
    ``github``."""

    github_token: SecretStr | None = None
    """The token the GitHub forge sends (contents and pull-requests write access on
    ``github_repo``). Set it only through the environment, ``LEMMATA_GITHUB_TOKEN``; it is
    never logged or shown."""

    github_timeout_s: float = Field(30.0, gt=0)
    """Seconds each GitHub forge call may take before it fails with
    ``forge-unreachable``."""

    mcp_allowed_hosts: list[str] = Field(
        default_factory=lambda: ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*",
                                 "[::1]:*", "testserver"]
    )
    """Host headers the ``/mcp`` endpoint accepts (DNS-rebinding protection); add the
    public host name when deploying behind a proxy."""

    read_max_age_s: int = Field(60, ge=0)
    """``Cache-Control: max-age`` of the unauthenticated read routes, in seconds; the
    ETag (the graph commit) lets a client revalidate cheaply after that."""

    precheck_workers: int = Field(2, ge=1, le=64)
    """Threads running precheck jobs (D-28 precheck_submission); each runs the gate's
    steps 1-2 and 4-8 in the sandbox. Queued jobs wait in the database, so a restart
    loses none."""

    rate_anonymous_prechecks_per_address: int = Field(30, ge=1)
    """Prechecks of the tutorial node one client address may ask for without a token per
    window (D-19, D-27: the anonymous precheck is how an identity is first proved)."""

    github_client_id: str | None = None
    """The client id of the network's GitHub OAuth app (GitHub sign-in on the site, D-35
    v3.33, issue 13). ``None``: sign-in is off and ``GET /auth/github/start`` answers
    ``signin-not-configured``; an operator may still open a session with ``lemmata
    session link``."""

    github_client_secret: SecretStr | None = None
    """The OAuth app's client secret. Set it only through the environment,
    ``LEMMATA_GITHUB_CLIENT_SECRET``; it is never logged or shown."""

    github_oauth_url: str = "https://github.com/login/oauth"
    """Base of GitHub's OAuth web flow: ``<base>/authorize`` and ``<base>/access_token``
    (GitHub Enterprise: ``https://HOST/login/oauth``; the tests' stand-in: its own)."""

    site_origin: str = "http://127.0.0.1:8001"
    """The origin (scheme, host, port; no path) of the network's site. Sign-in returns
    only to pages on it, and a web session is accepted only on requests whose ``Origin``
    is exactly this (D-35 v3.33)."""

    session_hours: int = Field(8, ge=1, le=24)
    """How long a web session lasts after sign-in, in hours (D-35 v3.33: eight)."""

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_networks(cls, value: list[str]) -> list[str]:
        """Each trusted proxy must read as an IP address or network (issue 39)."""
        import ipaddress

        for entry in value:
            ipaddress.ip_network(entry.strip(), strict=False)  # ValueError: refused
        return [entry.strip() for entry in value]

    def resolved_database_url(self) -> str:
        """The database URL to connect to: :attr:`database_url`, or SQLite in the data dir."""
        if self.database_url:
            return self.database_url
        name = STATE_DB
        if not (self.data_dir / STATE_DB).exists() and (self.data_dir / LEGACY_STATE_DB).exists():
            name = LEGACY_STATE_DB
        return f"sqlite:///{(self.data_dir / name).resolve()}"
