"""Precheck jobs keep their bundle so a restart resumes them; states up to 32 characters
(``toolchain-missing``); submissions name the precheck they carry (D-4, D-25, D-28).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 10:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | Sequence[str] | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('precheck_jobs') as batch:
        batch.alter_column('state', existing_type=sa.String(length=16),
                           type_=sa.String(length=32), existing_nullable=False)
        batch.add_column(sa.Column('artifact_type', sa.String(length=32), nullable=True))
        batch.add_column(sa.Column('pseudonym', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('bundle_json', sa.Text(), nullable=True))
        batch.add_column(sa.Column('code', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('base_sha', sa.String(length=40), nullable=True))
        batch.add_column(sa.Column('head_sha', sa.String(length=40), nullable=True))
        batch.add_column(sa.Column('started_at', sa.BigInteger(), nullable=True))
    with op.batch_alter_table('submissions') as batch:
        batch.add_column(sa.Column('precheck_id', sa.String(length=40), nullable=True))
        batch.add_column(sa.Column('head_sha', sa.String(length=40), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('submissions') as batch:
        batch.drop_column('head_sha')
        batch.drop_column('precheck_id')
    with op.batch_alter_table('precheck_jobs') as batch:
        for name in ('started_at', 'head_sha', 'base_sha', 'code', 'bundle_json',
                     'pseudonym', 'artifact_type'):
            batch.drop_column(name)
        batch.alter_column('state', existing_type=sa.String(length=32),
                           type_=sa.String(length=16), existing_nullable=False)
