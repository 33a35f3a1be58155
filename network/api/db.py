"""Operational state of the protocol service, in SQL through SQLAlchemy 2 (D-35).

Nothing here is evidentiary: identities and tokens, claims, rate buckets, precheck jobs,
check logs, the submissions index and web sessions can all be lost or rebuilt without a
verdict changing (DESIGN.md, "Service state"). Times are integer seconds since the Unix
epoch (UTC), so SQLite and PostgreSQL store and compare them identically.

Secrets are never stored: tokens, recovery codes and session ids are kept as the
lowercase hex SHA-256 of their bytes (they are 256-bit random, so a plain hash suffices).

The schema is owned by the Alembic migrations under ``network/api/migrations``;
:func:`migrate` applies them through Alembic's API when the service starts, and a test
holds these models and the migrations equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Engine,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import QueuePool

from network.forge.rows import ForgeBase

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


class Base(DeclarativeBase):
    """Declarative base of every operational table. It shares the forge's ``MetaData``, so
    the forge's own table (network.forge.rows: ``pull_requests``) is part of the one schema
    the migrations own."""

    metadata = ForgeBase.metadata


class IdentityRow(Base):
    """One identity: a pseudonym, unique without regard to case (D-19 v3.28).

    ``pseudonym_key`` is the case-folded pseudonym and carries the uniqueness;
    ``github_key`` likewise for the GitHub login bound by a GitHub proof (ruling 9).
    ``dco_version`` is the Developer Certificate of Origin version last accepted (D-23).
    ``vouched_by``/``vouched_at`` name the operator who issued the identity's first token
    with ``lemmata token issue`` and when (epoch seconds; ruling 14, issue 11); both are
    None for an identity a GitHub or precheck proof made (``proof_kind`` ``operator``
    otherwise).
    """

    __tablename__ = "identities"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    pseudonym: Mapped[str] = mapped_column(String(64), nullable=False)
    pseudonym_key: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    github_login: Mapped[str | None] = mapped_column(String(64), nullable=True)
    github_key: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    proof_kind: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    dco_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    dco_accepted_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    vouched_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    vouched_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class TokenRow(Base):
    """One write token, stored hashed. Lapses ``lapse`` days after ``last_used_at``
    (D-19 v3.29); ``retired_at`` is set by renewal or recovery."""

    __tablename__ = "tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    identity_id: Mapped[int] = mapped_column(ForeignKey("identities.id"), nullable=False, index=True)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    last_used_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    retired_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    retire_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)


class RecoveryCodeRow(Base):
    """A single-use recovery code for the human operator, stored hashed (D-19 v3.29)."""

    __tablename__ = "recovery_codes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    identity_id: Mapped[int] = mapped_column(ForeignKey("identities.id"), nullable=False, index=True)
    code_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    used_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    retired_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class ClaimRow(Base):
    """One advisory claim on a node (D-25); rows are never deleted, so history is kept.

    ``live_key`` is ``"<identity id>:<target>/<node>"`` while the claim holds the node
    and NULL once it is released or reaped after expiry (migration 0006; before it,
    ``"<target>/<node>"``). Claims are advisory, so a node may have several live holders
    (ruling 14); the UNIQUE constraint is what makes "one live claim per identity and
    node" hold under any concurrency, in SQLite and PostgreSQL alike (NULLs are
    distinct). A claim whose ``expires_at`` has passed is read as released even before it
    is reaped (auto-release derived at read time).
    """

    __tablename__ = "claims"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    public_id: Mapped[str] = mapped_column(String(40), nullable=False, unique=True)
    target: Mapped[str] = mapped_column(String(64), nullable=False)
    node: Mapped[str] = mapped_column(String(200), nullable=False)
    identity_id: Mapped[int] = mapped_column(ForeignKey("identities.id"), nullable=False, index=True)
    ttl_s: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    expires_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    released_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    release_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    renewals: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    live_key: Mapped[str | None] = mapped_column(String(300), nullable=True, unique=True)
    __table_args__ = (Index("ix_claims_target_node", "target", "node"),)


class RateBucketRow(Base):
    """A fixed-window rate counter: ``key`` (``identity:<id>`` or ``address:<hash>``
    plus the limit's name), the window's start (epoch seconds) and the count so far."""

    __tablename__ = "rate_buckets"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, nullable=False)


class PrecheckJobRow(Base):
    """A precheck job (D-4, D-28 precheck_submission): state and results, not the bundle.

    ``state`` is queued, running, pass, fail, toolchain-missing or error.
    ``used_for_identity_id`` marks a passing tutorial precheck already spent as the proof
    of one identity (D-19, D-27). ``bundle_json`` is the built bundle (graph path → text),
    kept so a job queued or running when the service stopped is resumed at its next start
    (migration 0003); ``code`` is the first failing step's catalog code.
    """

    __tablename__ = "precheck_jobs"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    identity_id: Mapped[int | None] = mapped_column(ForeignKey("identities.id"), nullable=True)
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    target: Mapped[str] = mapped_column(String(64), nullable=False)
    node: Mapped[str] = mapped_column(String(200), nullable=False)
    tutorial: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    bundle_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    state: Mapped[str] = mapped_column(String(32), nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    finished_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    diagnostics_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    attestation_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    used_for_identity_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id"), nullable=True, unique=True
    )
    artifact_type: Mapped[str | None] = mapped_column(String(32), nullable=True)
    pseudonym: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bundle_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    base_sha: Mapped[str | None] = mapped_column(String(40), nullable=True)
    head_sha: Mapped[str | None] = mapped_column(String(40), nullable=True)
    started_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class CheckLogRow(Base):
    """One ``check_lean`` call, logged by metadata and content hash, never its text
    (D-4 v3.14, D-35)."""

    __tablename__ = "check_logs"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    identity_id: Mapped[int | None] = mapped_column(ForeignKey("identities.id"), nullable=True)
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    target: Mapped[str] = mapped_column(String(64), nullable=False)
    node: Mapped[str | None] = mapped_column(String(200), nullable=True)
    mode: Mapped[str] = mapped_column(String(16), nullable=False)
    content_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    content_bytes: Mapped[int] = mapped_column(Integer, nullable=False)
    checker: Mapped[str] = mapped_column(String(300), nullable=False)
    outcome: Mapped[str] = mapped_column(String(32), nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)


class SubmissionRow(Base):
    """The submissions index: every open pull request on the graph, the service's own
    and hand-opened ones (ruling 12), keyed by node, kind, chain head and normalized hash
    so copies are refused before a pull request opens (D-25 v3.21)."""

    __tablename__ = "submissions"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    target: Mapped[str] = mapped_column(String(64), nullable=False)
    node: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    chain_head: Mapped[str | None] = mapped_column(String(400), nullable=True)
    normalized_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    pull_request: Mapped[str | None] = mapped_column(String(200), nullable=True)
    pull_request_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    identity_id: Mapped[int | None] = mapped_column(ForeignKey("identities.id"), nullable=True)
    pseudonym: Mapped[str | None] = mapped_column(String(64), nullable=True)
    opened_by_service: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    state: Mapped[str] = mapped_column(String(16), nullable=False)
    opened_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    closed_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    precheck_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    head_sha: Mapped[str | None] = mapped_column(String(40), nullable=True)
    close_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The catalog code its pull request was closed with, copied from the forge's row
    (issue 16: the submitter is told why, e.g. ``merge-conflict``)."""
    close_detail: Mapped[str | None] = mapped_column(String(500), nullable=True)
    __table_args__ = (
        Index("ix_submissions_key", "target", "node", "kind", "chain_head", "normalized_sha256"),
        UniqueConstraint("pull_request", name="uq_submissions_pull_request"),
    )


class FileNameRow(Base):
    """A record file name the service chose for a pull request it is about to open
    (``network.api.submit.names``): the primary key makes two writers in the same second choose
    different names, whatever process they run in. Rows older than the opening lease are
    purged; a name can only collide with one chosen in the same second."""

    __tablename__ = "file_names"
    path: Mapped[str] = mapped_column(String(512), primary_key=True)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False, index=True)


class WebSessionRow(Base):
    """A web session after GitHub sign-in: an HttpOnly cookie, eight hours long, always
    the same identity as the login's bearer token (D-35 v3.33). Stored hashed.

    Migration 0008 (network/api/people/web_session.py): ``identity_id`` is None while the login
    is bound to no identity yet (``POST /session/pseudonym`` binds it); ``github_login``
    is None for a session an operator opened with ``lemmata session link``; ``opened_by``
    is ``github`` or ``operator:<name>``.
    """

    __tablename__ = "web_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    identity_id: Mapped[int | None] = mapped_column(ForeignKey("identities.id"), nullable=True,
                                                    index=True)
    github_login: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    expires_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    ended_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    opened_by: Mapped[str] = mapped_column(String(80), nullable=False, server_default="github")


class CsrfTokenRow(Base):
    """A single-use CSRF token ``GET /session`` issued for one web session, stored hashed;
    ``used_at`` is set by the one person write that spends it (migration 0008)."""

    __tablename__ = "web_session_csrf"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("web_sessions.id"), nullable=False,
                                            index=True)
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    used_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class OAuthStateRow(Base):
    """One GitHub sign-in under way (migration 0008): the OAuth ``state`` and the browser
    binding cookie, both hashed; where to return; the PKCE verifier. Single use
    (``used_at``), short-lived (``expires_at``)."""

    __tablename__ = "oauth_states"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    state_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    browser_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    return_to: Mapped[str] = mapped_column(String(2000), nullable=False)
    code_verifier: Mapped[str] = mapped_column(String(128), nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False, index=True)
    expires_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    used_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class SignInLinkRow(Base):
    """A one-time sign-in link an operator issued for an existing identity with ``lemmata
    session link`` (ruling 14; migration 0008), stored hashed; ``used_at`` once opened."""

    __tablename__ = "sign_in_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    link_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    identity_id: Mapped[int] = mapped_column(ForeignKey("identities.id"), nullable=False,
                                             index=True)
    issued_by: Mapped[str] = mapped_column(String(64), nullable=False)
    return_to: Mapped[str] = mapped_column(String(2000), nullable=False)
    created_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    expires_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    used_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


#: Execution option naming a connection that only reads: on SQLite its transaction is a
#: plain (deferred) ``BEGIN``, so it neither waits for nor blocks writers.
READ_ONLY = "lemmata_read_only"


#: SQLite connections kept open between requests.
SQLITE_POOL_SIZE = 8
#: More SQLite connections opened under a burst, closed again when returned. SQLite takes
#: one writer at a time whatever the count, so a burst past 16 waits for a connection
#: rather than opening more, each with a page cache of its own (issue 39: a 20-minute
#: soak's one latency stall opened enough of them to add 9 MB of RSS).
SQLITE_MAX_OVERFLOW = 8
#: Each SQLite connection's page cache, in KiB (``PRAGMA cache_size``; SQLite's default is
#: 2000). The pages a pooled connection has read stay in its cache, so with the default the
#: service's memory grew with the database for minutes under load (issue 39); the operating
#: system caches the file beneath it either way.
SQLITE_CACHE_KIB = 512


def make_engine(url: str, *, connect_args: dict[str, Any] | None = None) -> Engine:
    """An engine for ``url``, configured so concurrent writers never lose a write.

    SQLite: WAL journal, a 30 s busy timeout and ``BEGIN IMMEDIATE`` for every
    transaction, so writers queue instead of failing with "database is locked";
    connections are pooled (set up once, not per request: ``benchmarks/api_load.py``).
    PostgreSQL: the driver's default READ COMMITTED plus the unique constraints above.

    Args:
        url: a SQLAlchemy URL (``sqlite:///path`` or ``postgresql+psycopg://...``).
        connect_args: extra DBAPI connect arguments (e.g. a PostgreSQL ``options``
            setting the search_path, as the tests use).
    """
    args = dict(connect_args or {})
    if url.startswith("sqlite"):
        args.setdefault("timeout", 30)
        args.setdefault("check_same_thread", False)
        engine = create_engine(url, connect_args=args, poolclass=QueuePool,
                               pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_MAX_OVERFLOW,
                               pool_pre_ping=False)

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # SQLAlchemy, not pysqlite, opens transactions
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")  # KiB when negative
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # A connection marked READ_ONLY (a per-request read such as the claim
            # registry's version) takes a WAL snapshot instead of the write lock.
            read_only = conn.get_execution_options().get(READ_ONLY, False)
            conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine
    return create_engine(url, connect_args=args, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the database up to the newest migration through Alembic's API.

    Idempotent; safe on every start. Raises whatever the database raises on failure
    (a bug or an unreachable server, not an expected refusal).
    """
    import logging

    from alembic import command
    from alembic.config import Config

    # Alembic says "Context impl …" at INFO on every start; once another library (the MCP
    # SDK) has configured the root logger, that chatter lands in `make run`'s banner.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work commits on success and rolls back on any exception."""
    with factory() as session, session.begin():
        yield session
