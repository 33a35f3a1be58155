"""Advisory claims (D-25, ruling 14, issue 11): a node may have several live holders, one
live claim per (identity, node).

``claims.live_key`` keeps its column and UNIQUE constraint; its value changes from
``"<target>/<node>"`` (one holder per node) to ``"<identity id>:<target>/<node>"``. The
upgrade rewrites every live key in place, so each claim live before it stays live, with
its holder, TTL and history. The downgrade goes back to one holder per node: the oldest
live claim of each node keeps the node, the others are released at the downgrade
(``release_reason = downgraded``).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:30:00

"""
import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | Sequence[str] | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

claims = sa.table(
    'claims',
    sa.column('id', sa.Integer()),
    sa.column('identity_id', sa.Integer()),
    sa.column('target', sa.String()),
    sa.column('node', sa.String()),
    sa.column('live_key', sa.String()),
    sa.column('released_at', sa.BigInteger()),
    sa.column('release_reason', sa.String()),
)


def upgrade() -> None:
    """Rewrite each live key ``<target>/<node>`` as ``<identity id>:<target>/<node>``."""
    conn = op.get_bind()
    rows = conn.execute(sa.select(claims.c.id, claims.c.identity_id, claims.c.target,
                                  claims.c.node)
                        .where(claims.c.live_key.is_not(None))).all()
    for cid, identity_id, target, node in rows:
        conn.execute(sa.update(claims).where(claims.c.id == cid)
                     .values(live_key=f"{identity_id}:{target}/{node}"))


def downgrade() -> None:
    """One holder per node again: the oldest live claim of each node keeps it as
    ``<target>/<node>``; every other live claim is released now as ``downgraded``."""
    conn = op.get_bind()
    now = int(time.time())
    rows = conn.execute(sa.select(claims.c.id, claims.c.target, claims.c.node)
                        .where(claims.c.live_key.is_not(None))
                        .order_by(claims.c.id)).all()
    kept: set[tuple[str, str]] = set()
    for cid, target, node in rows:
        if (target, node) in kept:
            conn.execute(sa.update(claims).where(claims.c.id == cid)
                         .values(live_key=None, released_at=now,
                                 release_reason='downgraded'))
            continue
        kept.add((target, node))
        conn.execute(sa.update(claims).where(claims.c.id == cid)
                     .values(live_key=f"{target}/{node}"))
