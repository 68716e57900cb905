"""How long an overload must last before LB acts, and the least gain of a move (issue 29)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07 10:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

# keyvrm.model.settings' defaults when this revision was written: what every aggregate did
# before the fields existed (act on the first run that finds an overload; 2-point gain)
DEFAULT_LB_PERSISTENCE = 1
DEFAULT_LB_MIN_GAIN = 2.0


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('lb_persistence', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('lb_min_gain', sa.Float(), nullable=True))
    table = sa.table('aggregate_config', sa.column('lb_persistence', sa.Integer()),
                     sa.column('lb_min_gain', sa.Float()))
    op.execute(table.update().values(lb_persistence=DEFAULT_LB_PERSISTENCE, lb_min_gain=DEFAULT_LB_MIN_GAIN))
    with op.batch_alter_table('aggregate_config') as batch:
        batch.alter_column('lb_persistence', existing_type=sa.Integer(), nullable=False)
        batch.alter_column('lb_min_gain', existing_type=sa.Float(), nullable=False)
