"""Alembic environment of the service's operational database (network/api/db.py).

Run only through :func:`network.api.db.migrate`, which hands over an open connection in
``config.attributes["connection"]``; there is no alembic.ini and nothing reads the
environment.
"""

from __future__ import annotations

from alembic import context

from network.api.db import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - offline mode is not supported
    raise RuntimeError("run migrations through network.api.db.migrate(engine)")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
