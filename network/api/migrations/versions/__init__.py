"""Alembic revisions, applied in order by network.api.db.migrate."""
