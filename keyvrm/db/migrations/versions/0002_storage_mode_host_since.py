"""Aggregate storage mode; since when a hypervisor is in its KeyVRM state

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 21:40:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('storage_mode', sa.String(length=16), nullable=True))
    with op.batch_alter_table('hypervisor_state') as batch:
        batch.add_column(sa.Column('state_since', sa.DateTime(), nullable=True))
    op.execute("UPDATE hypervisor_state SET state_since = updated_at")
