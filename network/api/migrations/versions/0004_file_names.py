"""Record file names the service reserved before opening their pull requests, so two
writes in the same second never choose the same ``<ts>-<pseudonym>`` name (issue 16).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | Sequence[str] | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        'file_names',
        sa.Column('path', sa.String(length=512), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('path'),
    )
    op.create_index(op.f('ix_file_names_created_at'), 'file_names', ['created_at'],
                    unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f('ix_file_names_created_at'), table_name='file_names')
    op.drop_table('file_names')
