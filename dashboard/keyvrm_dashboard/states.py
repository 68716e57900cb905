"""The statuses and states the KeyVRM API serves, as the panels colour and act on them.

The dashboard keeps its own copy (it talks only to the REST API); a test of the server
(``tests/unit/api/test_states_match_clients.py``) compares them with the ``enum`` lists of
the served OpenAPI document. This module imports nothing, so that test can read it
without Django. Colours are Horizon's status column: True green, False red, None pending.
"""

EVENT_STATE_COLOURS = (('healthy', True), ('warning', False), ('error', False))
EVENT_STATUS_DONE = (('completed', True), ('created', None), ('generating', None), ('generated', None),
                     ('manual_action', None), ('executing', None))
EVENT_FINAL = ('completed',)
RECOMMENDATION_STATUS_COLOURS = (('succeeded', True), ('failed', False), ('cancelled', False),
                                 ('created', None), ('manual_action', None), ('running', None))
RECOMMENDATION_FINAL = ('succeeded', 'failed', 'cancelled')  # nothing changes after these
MANUAL_ACTION = 'manual_action'  # Run and Cancel are the operator's answer to a manual recommendation
HOST_STATE_COLOURS = (('ok', True), ('maintenance', True), ('error', False), ('fencing', None),
                      ('fenced', None), ('evacuating', None), ('restoring', None), ('draining', None),
                      ('drain_incomplete', False))
# A cycle still running has not decided for every aggregate yet.
CYCLE_FINISHED = ('completed', 'skipped')
# What the VM list filters by (API 1.10): the transitions KeyVRM puts a VM in, and the failures they may leave.
VM_STATES = ('creating', 'deleting', 'migrating', 'restoring', 'resuming', 'starting', 'stopping', 'suspending',
             'creation_failed', 'deletion_failed', 'migration_failed', 'restore_failed', 'resume_failed',
             'start_failed', 'stop_failed', 'suspend_failed')
# The Nova scheduler filters KeyVRM emulates: the choices of the global config's nova_filters (API 1.0).
NOVA_FILTERS = ('AggregateImagePropertiesIsolation', 'AggregateInstanceExtraSpecsFilter',
                'AggregateMultiTenancyIsolation', 'AggregateNumInstancesFilter', 'AggregateTypeAffinityFilter',
                'ComputeCapabilitiesFilter', 'ComputeFilter', 'DifferentHostFilter', 'ImagePropertiesFilter',
                'IsolatedHostsFilter', 'NUMATopologyFilter', 'NumInstancesFilter', 'SameHostFilter',
                'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter')
