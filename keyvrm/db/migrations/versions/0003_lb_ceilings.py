"""Per-resource LB ceilings of an aggregate (issue 16)

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03 16:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

# keyvrm.model.settings.DEFAULT_LB_CEILINGS when this revision was written
DEFAULT_LB_CEILINGS = {"cpu": 85.0, "ram": 95.0, "net": 90.0, "hugepages": None}


def upgrade():
    with op.batch_alter_table('aggregate_config') as batch:
        batch.add_column(sa.Column('lb_ceilings', sa.JSON(), nullable=True))
    table = sa.table('aggregate_config', sa.column('lb_ceilings', sa.JSON()))
    op.execute(table.update().values(lb_ceilings=DEFAULT_LB_CEILINGS))
    with op.batch_alter_table('aggregate_config') as batch:
        batch.alter_column('lb_ceilings', existing_type=sa.JSON(), nullable=False)
