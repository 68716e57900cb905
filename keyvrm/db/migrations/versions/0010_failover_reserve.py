"""The failover reserve of an aggregate and whether the last cycle found it short (issue 28)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04 21:10:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

# keyvrm.model.settings.AggregateConfig.ha_failover_reserve's default when this revision was written
DEFAULT_HA_FAILOVER_RESERVE = 1


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('ha_failover_reserve', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('failover_short', sa.Boolean(), nullable=True))
    table = sa.table('aggregate_config', sa.column('ha_failover_reserve', sa.Integer()),
                     sa.column('failover_short', sa.Boolean()))
    op.execute(table.update().values(ha_failover_reserve=DEFAULT_HA_FAILOVER_RESERVE, failover_short=False))
    with op.batch_alter_table('aggregate_config') as batch:
        batch.alter_column('ha_failover_reserve', existing_type=sa.Integer(), nullable=False)
        batch.alter_column('failover_short', existing_type=sa.Boolean(), nullable=False)
