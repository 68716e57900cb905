"""An index on events.cycle_id: the history purge finds the cycles no event refers to (issue 26)

Without it, each cycle deleted makes the database scan every event (the foreign key's
ON DELETE SET NULL) and each purge page's "no event refers to it" reads them all.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 17:30:00
"""

from alembic import op


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('events_cycle_idx', 'events', ['cycle_id'])
