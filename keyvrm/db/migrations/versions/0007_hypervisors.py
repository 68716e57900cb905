"""Hosts of the newest snapshot as rows: hypervisors and hypervisor_aggregates (issues 24, 25)

Empty after the upgrade: harvest fills them when it next stores a snapshot with hosts.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 10:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'hypervisors',
        sa.Column('name', sa.String(255), primary_key=True),
        sa.Column('snapshot_id', sa.Integer(), sa.ForeignKey('region_data.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('taken_at', sa.DateTime(), nullable=False),
        sa.Column('availability_zone', sa.String(255), nullable=True),
        sa.Column('aggregates', sa.JSON(), nullable=False),
        sa.Column('service_state', sa.String(16), nullable=True),
        sa.Column('service_status', sa.String(16), nullable=True),
        sa.Column('service_forced_down', sa.Boolean(), nullable=True),
        sa.Column('service_disabled_reason', sa.Text(), nullable=True),
        sa.Column('service_updated_at', sa.DateTime(), nullable=True),
        sa.Column('cpu_pct', sa.Float(), nullable=True),
        sa.Column('ram_pct', sa.Float(), nullable=True),
        sa.Column('net_pct', sa.Float(), nullable=True),
        sa.Column('hugepages_pct', sa.Float(), nullable=True),
        sa.Column('has_hugepages', sa.Boolean(), nullable=False),
        sa.Column('vm_count', sa.Integer(), nullable=False),
        sa.Column('heartbeat_at', sa.DateTime(), nullable=True),
    )
    op.create_index('hypervisors_snapshot_idx', 'hypervisors', ['snapshot_id'])
    op.create_table(
        'hypervisor_aggregates',
        sa.Column('host', sa.String(255), sa.ForeignKey('hypervisors.name', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('aggregate', sa.String(255), primary_key=True),
        sa.Column('position', sa.Integer(), nullable=False),
    )
    op.create_index('hypervisor_aggregates_aggregate_idx', 'hypervisor_aggregates', ['aggregate', 'position'])
