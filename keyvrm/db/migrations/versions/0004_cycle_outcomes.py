"""No-op outcomes of aggregates' runs, on the cycle instead of as events (issue 16)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 17:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'cycle_outcomes',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('cycle_id', sa.Integer(), sa.ForeignKey('cycles.id', ondelete='CASCADE'), nullable=False),
        sa.Column('aggregate_name', sa.String(255), nullable=False),
        sa.Column('kind', sa.String(8), nullable=False),
        sa.Column('reason_code', sa.String(64), nullable=False),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('ran_at', sa.DateTime(), nullable=False),
        sa.Column('next_run_at', sa.DateTime(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('cycle_id', 'aggregate_name', 'kind', name='cycle_outcomes_run_uc'),
    )
    op.create_index('cycle_outcomes_aggregate_idx', 'cycle_outcomes', ['aggregate_name', 'kind'])
