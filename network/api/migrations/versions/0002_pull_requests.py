"""LocalForge pull requests: a row per pull request beside its branch (D-35).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 19:50:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | Sequence[str] | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('pull_requests',
    sa.Column('number', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('base_sha', sa.String(length=40), nullable=False),
    sa.Column('head_sha', sa.String(length=40), nullable=False),
    sa.Column('author', sa.String(length=64), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('merge_sha', sa.String(length=40), nullable=True),
    sa.Column('precheck_attestation', sa.Text(), nullable=True),
    sa.Column('opened_at', sa.BigInteger(), nullable=False),
    sa.Column('closed_at', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('number')
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('pull_requests')
