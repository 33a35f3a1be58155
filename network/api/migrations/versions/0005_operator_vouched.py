"""Identities an operator vouched for with ``lemmata token issue`` (ruling 14, issue 11):
who vouched and when.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 11:10:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | Sequence[str] | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('identities') as batch:
        batch.add_column(sa.Column('vouched_by', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('vouched_at', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('identities') as batch:
        batch.drop_column('vouched_at')
        batch.drop_column('vouched_by')
