"""API answers as KeyVRM's REST API gives them (shapes of keyvrm/api/schemas), for the view tests."""

import copy

EVENT = {'id': 'ev-1', 'aggregate_name': 'agg-a', 'kind': 'LB', 'marker': 'LB', 'status': 'manual_action',
         'state': None, 'reason_code': 'overloaded', 'reason': 'cmp-1 syn_score 91.2% > 80%',
         'cycle_id': 7, 'snapshot_id': 3, 'created_at': '2026-12-04T00:10:00Z',
         'updated_at': '2026-12-04T00:10:05Z', 'finished_at': None, 'recommendations': {'manual_action': 2}}

AGGREGATE = {'name': 'agg-a', 'nova_id': 1, 'availability_zone': 'az1', 'deleted': False,
             'marker': 'LB', 'no_op_mode': False, 'no_op_reason': None, 'lb_period': 600,
             'lb_weights': {'cpu': 1.0, 'ram': 1.0, 'net': 0.5, 'hugepages': 0.0},
             'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0,
             'lb_ceilings': {'cpu': 85.0, 'ram': 95.0, 'net': None, 'hugepages': None},
             'storage_mode': 'shared', 'ha_failover_reserve': 1, 'failover_tolerance': None, 'failover_short': False,
             'lb_level': 3, 'lb_level_overridden': [], 'lb_persistence': 1, 'lb_min_gain': 2.0, 'failback': 'recommend',
             'created_at': '2026-12-01T00:00:00Z', 'updated_at': '2026-12-01T00:00:00Z',
             'last_event': EVENT, 'last_event_state': None, 'current_event': EVENT, 'host_count': 2}

NOOP_AGGREGATE = dict(AGGREGATE, name='agg-b', marker='HA', no_op_mode=True, no_op_reason='maintenance CHG-42',
                      last_event=None, current_event=None, failover_tolerance=0, failover_short=True,
                      lb_level=4, lb_level_overridden=['lb_overload_threshold'], host_count=0)

HYPERVISORS = [
    {'host': 'cmp-1', 'state': 'ok', 'state_since': '2026-12-01T00:00:00Z', 'reason': None, 'event_id': None,
     'fenced_at': None, 'fencing': [], 'availability_zone': 'az1', 'aggregates': ['agg-a'],
     'service': {'state': 'up', 'status': 'enabled', 'forced_down': False, 'disabled_reason': None},
     'snapshot_id': 3, 'seen_at': '2026-12-04T00:10:00Z', 'restorable': False},
    {'host': 'cmp-2', 'state': 'maintenance', 'state_since': '2026-12-03T22:00:00Z',
     'reason': 'evacuated after fencing by BMC', 'event_id': 'ev-0', 'fenced_at': '2026-12-03T21:59:00Z',
     'fencing': [], 'availability_zone': 'az1', 'aggregates': ['agg-a'],
     'service': {'state': 'down', 'status': 'disabled', 'forced_down': True, 'disabled_reason': 'keyvrm: fenced'},
     'snapshot_id': 3, 'seen_at': '2026-12-04T00:10:00Z', 'restorable': True},
]

# A host just fenced (API 1.12): KeyVRM's record has each method, while the snapshot still saw Nova's service up.
JUST_FENCED_HYPERVISOR = dict(
    HYPERVISORS[0], host='cmp-6', state='evacuating', state_since='2026-12-04T00:11:05Z',
    reason=None, event_id='ev-6', fenced_at='2026-12-04T00:11:04Z', restorable=False,
    fencing=[{'fencer': 'ipmi', 'method': 'bmc_power_off', 'outcome': 'confirmed', 'confirmed': True,
              'message': 'power off confirmed', 'started_at': '2026-12-04T00:11:00Z',
              'finished_at': '2026-12-04T00:11:03Z'},
             {'fencer': 'nova', 'method': 'nova_force_down', 'outcome': 'confirmed', 'confirmed': True,
              'message': 'forced down and disabled', 'started_at': '2026-12-04T00:11:03Z',
              'finished_at': '2026-12-04T00:11:04Z'}],
    service={'state': 'up', 'status': 'enabled', 'forced_down': False, 'disabled_reason': None,
             'seen_at': '2026-12-04T00:10:00Z'})

# Hosts KeyVRM holds that may not be drained: fenced (HA's), draining and drain_incomplete (an operator's drain).
FENCED_HYPERVISOR = dict(HYPERVISORS[1], host='cmp-3', state='fenced', reason='fenced by BMC', event_id='ev-2')
DRAINING_HYPERVISOR = dict(
    HYPERVISORS[0], host='cmp-4', state='draining', state_since='2026-12-04T00:20:00Z',
    reason='drain requested by admin: CHG-1042 new DIMMs', event_id='ev-4', restorable=True,
    service={'state': 'up', 'status': 'disabled', 'forced_down': False,
             'disabled_reason': 'KeyVRM drain: CHG-1042 new DIMMs'})
DRAIN_INCOMPLETE_HYPERVISOR = dict(
    DRAINING_HYPERVISOR, host='cmp-5', state='drain_incomplete',
    reason='1 VM(s) remain on cmp-5 after its drain: vm-7; move them or return the host to service')
HELD_HYPERVISORS = [FENCED_HYPERVISOR, DRAINING_HYPERVISOR, DRAIN_INCOMPLETE_HYPERVISOR]

CYCLE = {'id': 7, 'status': 'completed', 'reason_code': None, 'reason': None, 'snapshot_id': 3,
         'started_at': '2026-12-04T00:10:00Z', 'finished_at': '2026-12-04T00:10:02Z', 'event_count': 1,
         'outcomes': [{'aggregate_name': 'agg-b', 'kind': 'HA', 'reason_code': 'noop',
                       'reason': 'aggregate in NOOP: maintenance CHG-42', 'ran_at': '2026-12-04T00:10:01Z',
                       'next_run_at': None}]}

LOAD = {'source': {'cpu_before_pct': 91.234, 'cpu_after_pct': 70.01, 'ram_before_pct': 60.0,
                   'ram_after_pct': 50.0, 'net_before_pct': 10.0, 'net_after_pct': 8.0,
                   'syn_score_before_pct': 81.456, 'syn_score_after_pct': 66.0},
        'target': {'cpu_before_pct': 20.0, 'cpu_after_pct': 41.2, 'ram_before_pct': 30.0,
                   'ram_after_pct': 40.0, 'net_before_pct': 1.0, 'net_after_pct': 3.0,
                   'syn_score_before_pct': 25.0, 'syn_score_after_pct': 40.55}}

RECOMMENDATIONS = [
    {'id': 'rec-manual', 'event_id': 'ev-1', 'action': 'live_migrate', 'vm_id': 'vm-1', 'source_host': 'cmp-1',
     'target_host': 'cmp-3', 'ha_round': None, 'status': 'manual_action', 'load_calculation': LOAD,
     'reason': None, 'attempts': 0, 'created_at': '2026-12-04T00:10:01Z', 'updated_at': '2026-12-04T00:10:01Z',
     'started_at': None, 'finished_at': None, 'latest_operation': None},
    {'id': 'rec-done', 'event_id': 'ev-1', 'action': 'live_migrate', 'vm_id': 'vm-2', 'source_host': 'cmp-1',
     'target_host': 'cmp-4', 'ha_round': None, 'status': 'succeeded', 'load_calculation': LOAD,
     'reason': None, 'attempts': 1, 'created_at': '2026-12-04T00:10:01Z', 'updated_at': '2026-12-04T00:11:00Z',
     'started_at': '2026-12-04T00:10:30Z', 'finished_at': '2026-12-04T00:11:00Z',
     'latest_operation': {'kind': 'success', 'attempt': 1, 'message': 'VM on cmp-4', 'error': None,
                          'created_at': '2026-12-04T00:11:00Z'}},
]

OPERATIONS = [{'id': 1, 'recommendation_id': 'rec-done', 'kind': 'start', 'attempt': 1, 'message': 'started',
               'error': None, 'duration_s': None, 'created_at': '2026-12-04T00:10:30Z'},
              {'id': 2, 'recommendation_id': 'rec-done', 'kind': 'success', 'attempt': 1,
               'message': 'VM on cmp-4', 'error': None, 'duration_s': 30.0, 'created_at': '2026-12-04T00:11:00Z'}]

CONFIG = {'enabled': True, 'period': 60, 'nova_filters': ['ComputeFilter', 'ServerGroupAntiAffinityFilter'],
          'ha_fence_ceph': False, 'ha_fence_bmc': True, 'ha_fence_nova': True, 'ha_fence_interfaces': [],
          'ha_power_check_timeout': 60, 'ha_vm_reset_state_timeout': 300, 'ha_no_evacuate_key': 'ha_no_evacuate',
          'lb_no_migrate_key': 'lb_no_migrate', 'executor_max_attempts': 3, 'executor_max_repeated_errors': 2,
          'executor_manual_action_timeout': 30, 'lb_recommendations_auto_run': False}

AUDIT = [{'scope': 'aggregate', 'target': 'agg-b', 'field': 'no_op_mode', 'old_value': False, 'new_value': True,
          'changed_by': 'admin', 'changed_at': '2026-12-03T21:00:00Z'}]

VM = {'vm_id': 'vm-1', 'desired_host': 'cmp-3', 'desired_status': 'ACTIVE', 'observed_host': 'cmp-1',
      'observed_status': 'MIGRATING', 'observed_at': '2026-12-04T00:10:40Z', 'locked': True,
      'lock_owner': 'rec-manual', 'locked_at': '2026-12-04T00:10:30Z', 'transitional_state': 'migrating',
      'deadline_at': '2026-12-04T00:20:30Z', 'failure_state': None, 'updated_at': '2026-12-04T00:10:40Z'}

VM_HISTORY = [{'action': 'live_migrate', 'status': 'running', 'message': 'to cmp-3',
               'started_at': '2026-12-04T00:10:30Z', 'finished_at': None, 'duration_s': None}]


# GET /v1/events/{id}'s no_target: one entry per VM without target (HA) or overloaded host without target (LB).
NO_TARGET_HA = {'vm_id': 'vm-9', 'source_host': 'cmp-2', 'code': 'no_target',
                'message': 'no host passes the filters for vm-9',
                'rejected_hosts': [{'host': 'cmp-3', 'check': 'ServerGroupAntiAffinityFilter', 'vms': 1},
                                   {'host': 'cmp-4', 'check': 'RamFilter', 'vms': 1}], 'more_hosts': 0}
NO_TARGET_LB = {'vm_id': None, 'source_host': 'cmp-1', 'code': 'ram_depleted',
                'message': 'no host has RAM for a VM of cmp-1 below the target max',
                'rejected_hosts': [{'host': 'cmp-5', 'check': 'lb_target_max_load', 'vms': 4}], 'more_hosts': 3}
HA_EVENT = dict(EVENT, id='ev-2', kind='HA', marker='HA', status='completed', state='error',
                reason_code='no_target', reason='1 VM of cmp-2 has no target', finished_at='2026-12-04T00:12:00Z',
                recommendations={'succeeded': 3}, no_target=[NO_TARGET_HA])
LB_EVENT = dict(EVENT, id='ev-3', status='completed', state='warning', reason_code='no_target',
                recommendations={}, no_target=[NO_TARGET_LB])


def reason(code, message, host=None, vm_id=None, **details):
    """One entry of an event's or outcome's ``reasons`` (API 1.1+)."""
    return {'code': code, 'message': message, 'host': host, 'vm_id': vm_id, 'details': details}


def overloaded_reasons(hosts, listed=None):
    """An LB run's ``overloaded`` reasons on ``hosts`` hot hosts, worst first, as (reasons, more_reasons).

    The aggregate-wide count first, then one entry per host (cmp-001 hottest); ``listed``:
    how many host entries the API lists (the rest counted in more_reasons), all by default.
    """
    listed = hosts if listed is None else listed
    entries = [reason('overloaded', '%d hypervisors of agg-a overloaded' % hosts, hypervisors=hosts)]
    entries += [reason('overloaded', 'cmp-%03d syn_score %g%% > threshold 80%%' % (n, 180 - n), host='cmp-%03d' % n,
                       syn_score=180 - n, threshold=80) for n in range(1, listed + 1)]
    return entries, ({'overloaded': hosts - listed} if hosts > listed else {})


def copied(value):
    """A deep copy, so a view that annotates an answer never changes the next test's data."""
    return copy.deepcopy(value)


def many_recommendations(count, event_id='ev-1'):
    """``count`` recommendations of one event as GET /v1/recommendations?event_id= gives them at 1.9.

    Every third waits for the operator, every third runs (retried: its latest line is attempt
    2's execute), the others succeeded; VM vm-NN moves from cmp-a-NN to cmp-b-NN.
    """
    shapes = (('manual_action', 0, None),
              ('running', 2, {'kind': 'execute', 'attempt': 2, 'message': 'live_migrate accepted as migration 9',
                              'error': None, 'created_at': '2026-12-04T00:12:00Z'}),
              ('succeeded', 1, {'kind': 'success', 'attempt': 1, 'message': 'VM on target', 'error': None,
                                'created_at': '2026-12-04T00:11:00Z'}))
    recommendations = []
    for index in range(count):
        status, attempts, latest = shapes[index % 3]
        recommendations.append(dict(copied(RECOMMENDATIONS[0]), id='rec-%02d' % index, event_id=event_id,
                                    vm_id='vm-%02d' % index, source_host='cmp-a-%02d' % index,
                                    target_host='cmp-b-%02d' % index, status=status, attempts=attempts,
                                    latest_operation=copied(latest)))
    return recommendations


AGGREGATE_LOAD = {
    'aggregate': 'agg-b', 'snapshot_id': 12, 'taken_at': '2026-12-01T10:00:00',
    'lb_weights': {'cpu': 1.0, 'ram': 1.0, 'net': 0.5}, 'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0,
    'lb_ceilings': {'cpu': 85.0, 'ram': 95.0, 'net': None}, 'lb_hysteresis_pct': 10.0,
    'hosts': [
        {'host': 'cmp-1', 'cpu': 100.0, 'ram': 62.5, 'net': 12.0, 'syn_score': 75.2, 'overloaded': True,
         'causes': ['cpu 100% >= ceiling 85%'], 'missing': [], 'vm_count': 9},
        {'host': 'cmp-2', 'cpu': 31.0, 'ram': 40.0, 'net': None, 'syn_score': 35.5, 'overloaded': False,
         'causes': [], 'missing': ['net'], 'vm_count': 3},
    ]}
NO_SNAPSHOT_LOAD = dict(AGGREGATE_LOAD, snapshot_id=None, taken_at=None, hosts=[])
# A host with HugePages pools (the API reports hugepages only for such hosts) and close limits.
HUGEPAGES_LOAD = dict(AGGREGATE_LOAD, lb_overload_threshold=80.0, lb_target_max_load=78.0,
                      lb_ceilings={'cpu': 85.0, 'ram': 81.0, 'net': None, 'hugepages': 79.0}, hosts=[
                          dict(AGGREGATE_LOAD['hosts'][0], hugepages=88.5),
                          AGGREGATE_LOAD['hosts'][1]])
