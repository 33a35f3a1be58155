"""Why a pull request closed unmerged (issue 16): the catalog code and detail the merge
queue closed it with (``merge-conflict``, a gate refusal), on the forge's row and copied
onto the submission the service shows its submitter.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 12:30:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | Sequence[str] | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    for table in ('pull_requests', 'submissions'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('close_code', sa.String(length=64), nullable=True))
            batch.add_column(sa.Column('close_detail', sa.String(length=500), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    for table in ('submissions', 'pull_requests'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('close_detail')
            batch.drop_column('close_code')
