"""Per candidate host, why an HA or LB run found no target: events.no_target (issue 17)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04 03:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('events') as batch:
        batch.add_column(sa.Column('no_target', sa.JSON(), nullable=True))
