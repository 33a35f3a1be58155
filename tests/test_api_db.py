"""The operational schema: Alembic migrations equal the models and apply idempotently."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from network.api import db
from network.forge.rows import PullRequestRow

OWN_TABLES = {t.__tablename__ for t in (
    db.IdentityRow, db.TokenRow, db.RecoveryCodeRow, db.ClaimRow, db.RateBucketRow,
    db.PrecheckJobRow, db.CheckLogRow, db.SubmissionRow, db.WebSessionRow,
    db.CsrfTokenRow, db.OAuthStateRow, db.SignInLinkRow,
    PullRequestRow)}


def _table_of(diff: object) -> str | None:
    item = diff[0] if isinstance(diff, list) else diff
    for part in item[1:] if isinstance(item, tuple) else ():
        name = getattr(part, "name", None)
        table = getattr(part, "table", None)
        if table is not None and getattr(table, "name", None):
            return str(table.name)
        if isinstance(part, str) and part in OWN_TABLES:
            return part
        if name in OWN_TABLES:
            return str(name)
    return None


def test_migrations_match_the_models(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    db.migrate(engine)
    db.migrate(engine)  # idempotent
    assert OWN_TABLES <= set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), db.Base.metadata)
    own = [d for d in diffs if _table_of(d) in OWN_TABLES]
    assert own == [], own


def test_live_claim_key_is_unique(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    db.migrate(engine)
    uniques = inspect(engine).get_unique_constraints("claims")
    assert any(u["column_names"] == ["live_key"] for u in uniques)
