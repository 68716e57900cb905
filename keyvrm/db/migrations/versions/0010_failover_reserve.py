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


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('ha_failover_reserve', sa.Integer(), nullable=False,
                                   server_default='1'))
        batch.add_column(sa.Column('failover_short', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
