"""Alembic migrations of the service's operational database (network/api/db.py)."""
