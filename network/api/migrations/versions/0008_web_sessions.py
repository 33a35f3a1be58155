"""Web sessions (issue 13, D-35 v3.33): a session may belong to a login bound to no
identity yet (``identity_id`` NULL until ``POST /session/pseudonym``) or to an identity an
operator opened it for with no login (``github_login`` NULL, ``opened_by``
``operator:<name>``); single-use CSRF tokens per session; GitHub sign-ins under way (the
OAuth state, its browser binding and PKCE verifier); and operators' one-time sign-in links.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 15:10:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | Sequence[str] | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('web_sessions') as batch:
        batch.alter_column('identity_id', existing_type=sa.Integer(), nullable=True)
        batch.alter_column('github_login', existing_type=sa.String(length=64), nullable=True)
        batch.add_column(sa.Column('opened_by', sa.String(length=80), nullable=False,
                                   server_default='github'))
    op.create_table(
        'web_session_csrf',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('session_id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('used_at', sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(['session_id'], ['web_sessions.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    with op.batch_alter_table('web_session_csrf') as batch:
        batch.create_index(batch.f('ix_web_session_csrf_session_id'), ['session_id'],
                           unique=False)
    op.create_table(
        'oauth_states',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('state_hash', sa.String(length=64), nullable=False),
        sa.Column('browser_hash', sa.String(length=64), nullable=False),
        sa.Column('return_to', sa.String(length=2000), nullable=False),
        sa.Column('code_verifier', sa.String(length=128), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('expires_at', sa.BigInteger(), nullable=False),
        sa.Column('used_at', sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('state_hash'),
    )
    with op.batch_alter_table('oauth_states') as batch:
        batch.create_index(batch.f('ix_oauth_states_created_at'), ['created_at'], unique=False)
    op.create_table(
        'sign_in_links',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('link_hash', sa.String(length=64), nullable=False),
        sa.Column('identity_id', sa.Integer(), nullable=False),
        sa.Column('issued_by', sa.String(length=64), nullable=False),
        sa.Column('return_to', sa.String(length=2000), nullable=False),
        sa.Column('created_at', sa.BigInteger(), nullable=False),
        sa.Column('expires_at', sa.BigInteger(), nullable=False),
        sa.Column('used_at', sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('link_hash'),
    )
    with op.batch_alter_table('sign_in_links') as batch:
        batch.create_index(batch.f('ix_sign_in_links_identity_id'), ['identity_id'],
                           unique=False)


def downgrade() -> None:
    """Downgrade schema: sessions without an identity or a login cannot be kept."""
    for table, index in (('sign_in_links', 'ix_sign_in_links_identity_id'),
                         ('oauth_states', 'ix_oauth_states_created_at'),
                         ('web_session_csrf', 'ix_web_session_csrf_session_id')):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(batch.f(index))
        op.drop_table(table)
    op.execute("DELETE FROM web_sessions WHERE identity_id IS NULL OR github_login IS NULL")
    with op.batch_alter_table('web_sessions') as batch:
        batch.drop_column('opened_by')
        batch.alter_column('github_login', existing_type=sa.String(length=64), nullable=False)
        batch.alter_column('identity_id', existing_type=sa.Integer(), nullable=False)
