"""Per-aggregate slices of a stored snapshot (snapshot_slices), its scope, outcomes indexed by run time (issue 24)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04 14:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('region_data') as batch:
        batch.add_column(sa.Column('scope', sa.String(length=16), nullable=False, server_default='region'))
    op.create_table(
        'snapshot_slices',
        sa.Column('snapshot_id', sa.Integer(), sa.ForeignKey('region_data.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('aggregate', sa.String(length=255), nullable=False),
        sa.Column('hypervisor_count', sa.Integer(), nullable=False),
        sa.Column('vm_count', sa.Integer(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('snapshot_id', 'aggregate'),
    )
    # an aggregate's last LB run is read every cycle: the newest outcome, found from the index's end
    op.drop_index('cycle_outcomes_aggregate_idx', table_name='cycle_outcomes')
    op.create_index('cycle_outcomes_last_run_idx', 'cycle_outcomes', ['aggregate_name', 'kind', 'ran_at'])
