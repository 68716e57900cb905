"""A drain's allow_cold: cold-migrate the VMs a live migration cannot move (issue 30)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-08 12:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('hypervisor_state') as batch:
        batch.add_column(sa.Column('drain_allow_cold', sa.Boolean(), nullable=False, server_default=sa.false()))
