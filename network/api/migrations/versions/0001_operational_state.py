"""Operational state of the protocol service: identities, tokens, recovery codes, claims,
rate buckets, precheck jobs, check logs, the submissions index and web sessions (D-35).

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29 19:22:32.004914

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0001'
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('identities',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('pseudonym', sa.String(length=64), nullable=False),
    sa.Column('pseudonym_key', sa.String(length=64), nullable=False),
    sa.Column('github_login', sa.String(length=64), nullable=True),
    sa.Column('github_key', sa.String(length=64), nullable=True),
    sa.Column('proof_kind', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('dco_version', sa.String(length=32), nullable=True),
    sa.Column('dco_accepted_at', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('github_key'),
    sa.UniqueConstraint('pseudonym_key')
    )
    op.create_table('rate_buckets',
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('window_start', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('key', 'window_start')
    )
    op.create_table('check_logs',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=True),
    sa.Column('address_hash', sa.String(length=64), nullable=True),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('node', sa.String(length=200), nullable=True),
    sa.Column('mode', sa.String(length=16), nullable=False),
    sa.Column('content_sha256', sa.String(length=64), nullable=False),
    sa.Column('content_bytes', sa.Integer(), nullable=False),
    sa.Column('checker', sa.String(length=300), nullable=False),
    sa.Column('outcome', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('claims',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('node', sa.String(length=200), nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=False),
    sa.Column('ttl_s', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.Column('released_at', sa.BigInteger(), nullable=True),
    sa.Column('release_reason', sa.String(length=16), nullable=True),
    sa.Column('renewals', sa.Integer(), nullable=False),
    sa.Column('live_key', sa.String(length=300), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('live_key'),
    sa.UniqueConstraint('public_id')
    )
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_claims_identity_id'), ['identity_id'], unique=False)
        batch_op.create_index('ix_claims_target_node', ['target', 'node'], unique=False)

    op.create_table('precheck_jobs',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=True),
    sa.Column('address_hash', sa.String(length=64), nullable=True),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('node', sa.String(length=200), nullable=False),
    sa.Column('tutorial', sa.Integer(), nullable=False),
    sa.Column('bundle_sha256', sa.String(length=64), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('finished_at', sa.BigInteger(), nullable=True),
    sa.Column('diagnostics_json', sa.Text(), nullable=True),
    sa.Column('attestation_json', sa.Text(), nullable=True),
    sa.Column('used_for_identity_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.ForeignKeyConstraint(['used_for_identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('used_for_identity_id')
    )
    op.create_table('recovery_codes',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('used_at', sa.BigInteger(), nullable=True),
    sa.Column('retired_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('code_hash')
    )
    with op.batch_alter_table('recovery_codes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_recovery_codes_identity_id'), ['identity_id'], unique=False)

    op.create_table('submissions',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('node', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('chain_head', sa.String(length=400), nullable=True),
    sa.Column('normalized_sha256', sa.String(length=64), nullable=False),
    sa.Column('pull_request', sa.String(length=200), nullable=True),
    sa.Column('pull_request_url', sa.String(length=500), nullable=True),
    sa.Column('identity_id', sa.Integer(), nullable=True),
    sa.Column('pseudonym', sa.String(length=64), nullable=True),
    sa.Column('opened_by_service', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('opened_at', sa.BigInteger(), nullable=False),
    sa.Column('closed_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('pull_request', name='uq_submissions_pull_request')
    )
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.create_index('ix_submissions_key', ['target', 'node', 'kind', 'chain_head', 'normalized_sha256'], unique=False)

    op.create_table('tokens',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('last_used_at', sa.BigInteger(), nullable=False),
    sa.Column('retired_at', sa.BigInteger(), nullable=True),
    sa.Column('retire_reason', sa.String(length=32), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    with op.batch_alter_table('tokens', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tokens_identity_id'), ['identity_id'], unique=False)

    op.create_table('web_sessions',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('session_hash', sa.String(length=64), nullable=False),
    sa.Column('identity_id', sa.Integer(), nullable=False),
    sa.Column('github_login', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('expires_at', sa.BigInteger(), nullable=False),
    sa.Column('ended_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['identity_id'], ['identities.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('session_hash')
    )
    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_web_sessions_identity_id'), ['identity_id'], unique=False)



def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_web_sessions_identity_id'))

    op.drop_table('web_sessions')
    with op.batch_alter_table('tokens', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tokens_identity_id'))

    op.drop_table('tokens')
    with op.batch_alter_table('submissions', schema=None) as batch_op:
        batch_op.drop_index('ix_submissions_key')

    op.drop_table('submissions')
    with op.batch_alter_table('recovery_codes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_recovery_codes_identity_id'))

    op.drop_table('recovery_codes')
    op.drop_table('precheck_jobs')
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.drop_index('ix_claims_target_node')
        batch_op.drop_index(batch_op.f('ix_claims_identity_id'))

    op.drop_table('claims')
    op.drop_table('check_logs')
    op.drop_table('rate_buckets')
    op.drop_table('identities')
