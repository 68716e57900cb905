"""Initial schema

Revision ID: 0001
Revises:
Create Date: 2026-12-02 13:28:24.139587
"""

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('aggregate_config',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('nova_id', sa.Integer(), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('marker', sa.String(length=8), nullable=False),
    sa.Column('no_op_mode', sa.Boolean(), nullable=False),
    sa.Column('no_op_reason', sa.Text(), nullable=True),
    sa.Column('lb_period', sa.Integer(), nullable=False),
    sa.Column('lb_weights', sa.JSON(), nullable=False),
    sa.Column('lb_overload_threshold', sa.Float(), nullable=False),
    sa.Column('lb_target_max_load', sa.Float(), nullable=False),
    sa.Column('deleted', sa.Boolean(), nullable=False),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name', name='uniq_aggregate_config0name')
    )
    op.create_table('app_config',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('period', sa.Integer(), nullable=False),
    sa.Column('nova_filters', sa.JSON(), nullable=False),
    sa.Column('ha_fence_ceph', sa.Boolean(), nullable=False),
    sa.Column('ha_fence_bmc', sa.Boolean(), nullable=False),
    sa.Column('ha_fence_nova', sa.Boolean(), nullable=False),
    sa.Column('ha_fence_interfaces', sa.JSON(), nullable=False),
    sa.Column('ha_power_check_timeout', sa.Integer(), nullable=False),
    sa.Column('ha_vm_reset_state_timeout', sa.Integer(), nullable=False),
    sa.Column('ha_no_evacuate_key', sa.String(length=255), nullable=False),
    sa.Column('lb_no_migrate_key', sa.String(length=255), nullable=False),
    sa.Column('executor_max_attempts', sa.Integer(), nullable=False),
    sa.Column('executor_max_repeated_errors', sa.Integer(), nullable=False),
    sa.Column('executor_manual_action_timeout', sa.Integer(), nullable=False),
    sa.Column('lb_recommendations_auto_run', sa.Boolean(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('updated_by', sa.String(length=255), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('config_audit',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('scope', sa.String(length=16), nullable=False),
    sa.Column('target', sa.String(length=255), nullable=True),
    sa.Column('field', sa.String(length=64), nullable=False),
    sa.Column('old_value', sa.JSON(), nullable=True),
    sa.Column('new_value', sa.JSON(), nullable=True),
    sa.Column('changed_by', sa.String(length=255), nullable=False),
    sa.Column('changed_at', sa.DateTime(), nullable=False),
    sa.Column('request_id', sa.String(length=64), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('config_audit', schema=None) as batch_op:
        batch_op.create_index('config_audit_scope_target_idx', ['scope', 'target'], unique=False)

    op.create_table('region_data',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('region', sa.String(length=255), nullable=False),
    sa.Column('taken_at', sa.DateTime(), nullable=False),
    sa.Column('format_version', sa.Integer(), nullable=False),
    sa.Column('hypervisor_count', sa.Integer(), nullable=False),
    sa.Column('vm_count', sa.Integer(), nullable=False),
    sa.Column('sources', sa.JSON(), nullable=False),
    sa.Column('size_bytes', sa.Integer(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('region_data', schema=None) as batch_op:
        batch_op.create_index('region_data_taken_at_idx', ['taken_at'], unique=False)

    op.create_table('vm_history',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('vm_id', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('message', sa.Text(), nullable=True),
    sa.Column('recommendation_id', sa.String(length=36), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('duration_s', sa.Float(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('vm_history', schema=None) as batch_op:
        batch_op.create_index('vm_history_vm_started_idx', ['vm_id', 'started_at'], unique=False)

    op.create_table('vm_state',
    sa.Column('vm_id', sa.String(length=36), nullable=False),
    sa.Column('desired_host', sa.String(length=255), nullable=True),
    sa.Column('desired_status', sa.String(length=32), nullable=True),
    sa.Column('observed_host', sa.String(length=255), nullable=True),
    sa.Column('observed_status', sa.String(length=32), nullable=True),
    sa.Column('observed_at', sa.DateTime(), nullable=True),
    sa.Column('locked', sa.Boolean(), nullable=False),
    sa.Column('lock_owner', sa.String(length=255), nullable=True),
    sa.Column('locked_at', sa.DateTime(), nullable=True),
    sa.Column('transitional_state', sa.String(length=32), nullable=True),
    sa.Column('deadline_at', sa.DateTime(), nullable=True),
    sa.Column('failure_state', sa.String(length=32), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('vm_id')
    )
    op.create_table('cycles',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('reason_code', sa.String(length=64), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('snapshot_id', sa.Integer(), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['snapshot_id'], ['region_data.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('cycles', schema=None) as batch_op:
        batch_op.create_index('cycles_started_at_idx', ['started_at'], unique=False)

    op.create_table('events',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('aggregate_name', sa.String(length=255), nullable=False),
    sa.Column('kind', sa.String(length=8), nullable=False),
    sa.Column('marker', sa.String(length=8), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=True),
    sa.Column('reason_code', sa.String(length=64), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('cycle_id', sa.Integer(), nullable=True),
    sa.Column('snapshot_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['cycle_id'], ['cycles.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['snapshot_id'], ['region_data.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index('events_aggregate_created_idx', ['aggregate_name', 'created_at'], unique=False)

    op.create_table('hypervisor_state',
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('fencing', sa.JSON(), nullable=True),
    sa.Column('fenced_at', sa.DateTime(), nullable=True),
    sa.Column('event_id', sa.String(length=36), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('host')
    )
    op.create_table('recommendations',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('event_id', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.Column('vm_id', sa.String(length=36), nullable=False),
    sa.Column('source_host', sa.String(length=255), nullable=False),
    sa.Column('target_host', sa.String(length=255), nullable=True),
    sa.Column('ha_round', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('load_calculation', sa.JSON(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('recommendations', schema=None) as batch_op:
        batch_op.create_index('recommendations_event_idx', ['event_id'], unique=False)
        batch_op.create_index('recommendations_status_idx', ['status'], unique=False)
        batch_op.create_index('recommendations_vm_idx', ['vm_id'], unique=False)

    op.create_table('operations',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('recommendation_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('message', sa.Text(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('duration_s', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['recommendation_id'], ['recommendations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('operations', schema=None) as batch_op:
        batch_op.create_index('operations_recommendation_idx', ['recommendation_id'], unique=False)

