"""The failover tolerance the last cycle found for an aggregate (issue 28)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 01:05:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('failover_tolerance', sa.Integer(), nullable=True))
