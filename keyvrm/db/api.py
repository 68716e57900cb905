"""Every read and write KeyVRM makes to its database, by name: the resource modules of ``keyvrm.db`` in one place.

Each resource has its own module (``events``, ``recommendations``, ``cycles``, ...), as
placement's ``objects/<resource>.py``; callers keep calling ``db_api.<function>(db, ...)``.
A bad value raises ``InvalidField`` naming the field before anything is written; each
public function runs in a single transaction, so a failure leaves nothing half-written.
"""

from keyvrm.db import aggregates
from keyvrm.db import config
from keyvrm.db import cycles
from keyvrm.db import database
from keyvrm.db import events
from keyvrm.db import hypervisor_state
from keyvrm.db import open_work
from keyvrm.db import operations
from keyvrm.db import outcomes
from keyvrm.db import purge
from keyvrm.db import recommendations
from keyvrm.db import snapshots
from keyvrm.db import vms


# aggregates
get_aggregate_config = aggregates.get_aggregate_config
AggregateRecord = aggregates.AggregateRecord
list_aggregates = aggregates.list_aggregates
update_aggregate_config = aggregates.update_aggregate_config
set_failover = aggregates.set_failover
AggregateSync = aggregates.AggregateSync
sync_aggregates = aggregates.sync_aggregates
page_aggregates = aggregates.page_aggregates
get_aggregate_summary = aggregates.get_aggregate_summary
list_availability_zones = aggregates.list_availability_zones

# config
get_app_config = config.get_app_config
update_app_config = config.update_app_config
list_config_audit = config.list_config_audit

# cycles
start_cycle = cycles.start_cycle
finish_cycle = cycles.finish_cycle
request_cycle = cycles.request_cycle
claim_requested_cycle = cycles.claim_requested_cycle
page_cycles = cycles.page_cycles
get_cycle_summary = cycles.get_cycle_summary
fail_lost_cycle = cycles.fail_lost_cycle

# database
utcnow = database.utcnow
Database = database.Database

# events
create_event = events.create_event
set_event_status = events.set_event_status
update_event_reasons = events.update_event_reasons
settle_event = events.settle_event
EVENT_SORT_KEYS = events.EVENT_SORT_KEYS
page_events = events.page_events
get_event_summary = events.get_event_summary
list_events = events.list_events
waiting_events_without_open_work = events.waiting_events_without_open_work
discard_empty_event = events.discard_empty_event

# hypervisor_state
set_hypervisor_state = hypervisor_state.set_hypervisor_state
claim_hypervisor = hypervisor_state.claim_hypervisor
claimed_hypervisors = hypervisor_state.claimed_hypervisors
get_hypervisor_state = hypervisor_state.get_hypervisor_state
request_hypervisor_restore = hypervisor_state.request_hypervisor_restore
list_hypervisors_restoring = hypervisor_state.list_hypervisors_restoring
request_hypervisor_drain = hypervisor_state.request_hypervisor_drain
list_hypervisors_draining = hypervisor_state.list_hypervisors_draining
complete_hypervisor_restore = hypervisor_state.complete_hypervisor_restore
list_failbacks_pending = hypervisor_state.list_failbacks_pending
clear_failback = hypervisor_state.clear_failback
release_lost_hypervisor = hypervisor_state.release_lost_hypervisor

# open_work
list_open_work = open_work.list_open_work

# operations
add_operation = operations.add_operation
list_operations = operations.list_operations
list_recommendation_operations = operations.list_recommendation_operations

# outcomes
record_cycle_outcome = outcomes.record_cycle_outcome
list_cycle_outcomes = outcomes.list_cycle_outcomes
record_cycle_outcomes = outcomes.record_cycle_outcomes
latest_outcome = outcomes.latest_outcome
get_cycle_outcome = outcomes.get_cycle_outcome
last_run_at = outcomes.last_run_at
recent_run_hosts = outcomes.recent_run_hosts

# purge
purge_history = purge.batches

# recommendations
create_recommendation = recommendations.create_recommendation
set_recommendation_status = recommendations.set_recommendation_status
get_recommendation = recommendations.get_recommendation
list_recommendations = recommendations.list_recommendations
busy_set = recommendations.busy_set
work_touching_hosts = recommendations.work_touching_hosts
page_recommendations = recommendations.page_recommendations
request_recommendation_run = recommendations.request_recommendation_run
request_recommendation_cancel = recommendations.request_recommendation_cancel
cancel_unstarted = recommendations.cancel_unstarted
recent_moves = recommendations.recent_moves
recent_failed_migrations = recommendations.recent_failed_migrations
moved_off = recommendations.moved_off
recent_moved_hosts = recommendations.recent_moved_hosts

# snapshots
STORED_WHOLE = snapshots.STORED_WHOLE
STORED_SLICED = snapshots.STORED_SLICED
SNAPSHOT_SCOPES = snapshots.SNAPSHOT_SCOPES
store_snapshot = snapshots.store_snapshot
load_snapshot = snapshots.load_snapshot
newest_region_snapshot_id = snapshots.newest_region_snapshot_id
load_snapshot_region = snapshots.load_snapshot_region
load_snapshot_slice = snapshots.load_snapshot_slice
list_snapshots = snapshots.list_snapshots
page_snapshots = snapshots.page_snapshots
get_snapshot_summary = snapshots.get_snapshot_summary

# vms
get_vm_state = vms.get_vm_state
page_vm_states = vms.page_vm_states
add_vm_history = vms.add_vm_history
list_vm_history = vms.list_vm_history
begin_vm_transition = vms.begin_vm_transition
end_vm_transition = vms.end_vm_transition
record_vm_observation = vms.record_vm_observation
force_unlock_vm = vms.force_unlock_vm
list_locked_vms = vms.list_locked_vms
