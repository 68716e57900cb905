"""The LB dial of an aggregate: the level whose thresholds it was set with (issue 29)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 10:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

# keyvrm.model.settings.DEFAULT_LB_LEVEL when this revision was written: the level whose
# thresholds (80 / 70, the shipped ceilings) every aggregate had before the dial existed
DEFAULT_LB_LEVEL = 3


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('lb_level', sa.Integer(), nullable=True))
    table = sa.table('aggregate_config', sa.column('lb_level', sa.Integer()))
    op.execute(table.update().values(lb_level=DEFAULT_LB_LEVEL))
    with op.batch_alter_table('aggregate_config') as batch:
        batch.alter_column('lb_level', existing_type=sa.Integer(), nullable=False)
