"""The embedded forge's SQL rows (D-35): one pull request per row.

Operational state, like the rest of the service's database (network.api.db): losing a row
loses the merge queue's bookkeeping, never a verdict, which lives in the graph's
attestations. The forge sits below the service, so its table is declared here, on the
:class:`ForgeBase` whose ``MetaData`` the service's own declarative base shares: one
schema, owned by the Alembic migrations under ``network/api/migrations``, and a test holds
the models and the migrations equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import BigInteger, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker


class ForgeBase(DeclarativeBase):
    """Declarative base of the forge's tables; its ``metadata`` is the service's one
    ``MetaData`` (network.api.db.Base shares it)."""


class PullRequestRow(ForgeBase):
    """One pull request on the LocalForge (network.forge.local); its branch is
    ``refs/heads/pr/<number>``. Operational: the verdicts live in the graph's attestations."""

    __tablename__ = "pull_requests"
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    title: Mapped[str] = mapped_column(String(300), nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False, default="")
    base_sha: Mapped[str] = mapped_column(String(40), nullable=False)
    head_sha: Mapped[str] = mapped_column(String(40), nullable=False)
    author: Mapped[str] = mapped_column(String(64), nullable=False)
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="open")
    merge_sha: Mapped[str | None] = mapped_column(String(40), nullable=True)
    precheck_attestation: Mapped[str | None] = mapped_column(Text, nullable=True)
    opened_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    closed_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    close_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The catalog code it was closed with by the merge queue (issue 16), if any."""
    close_detail: Mapped[str | None] = mapped_column(String(500), nullable=True)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work commits on success and rolls back on any exception."""
    with factory() as session, session.begin():
        yield session
