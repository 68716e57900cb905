"""Failback: per-aggregate mode, and a restored host's pending failback (issue 30)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 12:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

# keyvrm.model.settings.DEFAULT_FAILBACK when this revision was written
DEFAULT_FAILBACK = "recommend"


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('failback', sa.String(16), nullable=True))
    table = sa.table('aggregate_config', sa.column('failback', sa.String(16)))
    op.execute(table.update().values(failback=DEFAULT_FAILBACK))
    with op.batch_alter_table('aggregate_config') as batch:
        batch.alter_column('failback', existing_type=sa.String(16), nullable=False)
    with op.batch_alter_table('hypervisor_state') as batch:
        batch.add_column(sa.Column('failback_pending', sa.Boolean(), nullable=False, server_default=sa.false()))
