"""An HA round's evacuations start tier by tier (evacuate_order) and keep within the in-flight bounds.

The runs go through ``recommend.run_all`` (what the HAFlow's Execute task calls) against
the sim cloud of a generated region, on the simulator's in-turn clock (as scenarios run
them: the same interleaving every run) unless a test says otherwise; the cloud records
when each evacuation was asked for and accepted, and how many migrations were in flight
to each target at that moment.
"""

import contextlib
import dataclasses
import threading
import types

from keyvrm.db import api as db_api
from keyvrm.drivers.errors import CloudError
from keyvrm.executor import watch
from keyvrm.flows import ha
from keyvrm.flows import recommend
from keyvrm.flows import resources as flow_resources
from keyvrm.simulator import baton as baton_mod
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import generator
from keyvrm.simulator import region as r
from keyvrm.simulator import simclock
from tests.unit.executor import helpers as h


class RecordingCloud(SimCloudDriver):
    """The sim cloud that logs evacuation requests; ``refusals`` {vm id: n} answers the first n with a 503."""

    def __init__(self, region, refusals=None):
        super().__init__(region)
        self.refusals = dict(refusals or {})
        self.log = []  # (what, vm id, simulated time)
        self.in_flight_at_accept = []  # (target, migrations to it not final, all not final)
        self._lock = threading.Lock()

    def evacuate(self, server_id, target_host):
        with self._lock:
            self.log.append(("ask", server_id, self.region.clock.now))
            if self.refusals.get(server_id):
                self.refusals[server_id] -= 1
                self.log.append(("refused", server_id, self.region.clock.now))
                raise CloudError(503, "Service Unavailable")
            migration = super().evacuate(server_id, target_host)
            running = [m for m in self.region.migrations.values() if m.status not in watch.FINAL]
            self.in_flight_at_accept.append(
                (target_host, sum(1 for m in running if m.dest_host == target_host), len(running)))
            self.log.append(("accepted", server_id, self.region.clock.now))
            return migration

    def start_server(self, server_id):
        with self._lock:
            self.log.append(("start", server_id, self.region.clock.now))
        return super().start_server(server_id)

    def get_server(self, server_id):
        server = super().get_server(server_id)
        if server is not None and server.status == "ACTIVE" and server.task_state is None:
            with self._lock:
                self.log.append(("active", server_id, self.region.clock.now))
        return server

    def first(self, what, vm_id, after=-1):
        """Log position and time of the first ``what`` of ``vm_id`` (past position ``after``)."""
        for index, (kind, vm, at) in enumerate(self.log):
            if kind == what and vm == vm_id and index > after:
                return index, at
        raise AssertionError("no %s of %s in %s" % (what, vm_id, self.log))


def _region(vms_per_host=3, **options):
    region = generator.generate(
        {"hosts": 4, "hosts_per_aggregate": 4, "availability_zones": 1},
        {"vms_per_host": vms_per_host, "volume_backed_fraction": 1.0, "server_group_fraction": 0.0,
         "no_evacuate_fraction": 0.0, "no_migrate_fraction": 0.0, "evacuate_order_fraction": 0.0},
        r.RegionOptions(seed=3, **options))
    h.source_down(region)
    return region


def _resources(db, region, cloud, clock=None, **settings):
    """The engine's resources; the clock is the region's in-turn one unless given."""
    db_api.update_app_config(db, {"executor_max_attempts": 10, "executor_max_repeated_errors": 10}, "test")
    executor = dataclasses.replace(h.SETTINGS, **settings)
    if clock is None:
        clock = simclock.SimTimeClock(region, driven=True, baton=baton_mod.Baton(region))
    return flow_resources.EngineResources(db=db, cloud=cloud, clock=clock, dispatcher=None,
                                          fencers=None, conf=flow_resources.FlowSettings(executor=executor))


def _run_all(res, ids, orders=None):
    """``recommend.run_all`` from a flow (holding the baton of an in-turn clock, as the HAFlow does)."""
    baton = getattr(res.clock, "baton", None)
    with contextlib.ExitStack() as stack:
        if baton is not None:
            baton.enter(baton.admit())
            stack.callback(baton.leave)
        return recommend.run_all(res, ids, orders)


def _evacuations(db, region, targets):
    """Recommendations of one event evacuating the source's VMs, the i-th to ``targets[i]``."""
    event_id, ids = None, []
    for vm, target in zip(list(region.hosts[h.SOURCE].vms), targets):
        event_id, rec_id = h.recommendation(db, "evacuate", vm.id, target=target, event_id=event_id)
        ids.append((vm.id, rec_id))
    return ids


def test_a_tier_2_vm_never_asks_nova_before_every_tier_1_vm_is_accepted(sqlite_db):
    region = _region()
    (first, rec1), (second, rec2), (later, rec3) = _evacuations(sqlite_db, region, [h.TARGET, h.OTHER, h.TARGET])
    # Nova refuses tier 1's first VM twice: its retries come 10 s apart, well inside tier_wait
    cloud = RecordingCloud(region, refusals={first: 2})
    res = _resources(sqlite_db, region, cloud, tier_wait_s=60.0)
    statuses = _run_all(res, [rec1, rec2, rec3], {rec1: 1, rec2: 1, rec3: 2})
    assert set(statuses.values()) == {"succeeded"}
    asked_later, _ = cloud.first("ask", later)
    assert asked_later > cloud.first("accepted", first)[0]
    assert asked_later > cloud.first("accepted", second)[0]
    # the tier-2 run says in its journal what it waited for
    waits = [op["message"] for op in db_api.list_operations(sqlite_db, rec3) if op["message"]
             and op["message"].startswith("evacuate_order tier")]
    assert waits and "tier 2 of 2" in waits[0] and "every evacuation of tier 1 was accepted" in waits[0]


def test_vms_without_evacuate_order_wait_for_the_ordered_ones(sqlite_db):
    region = _region()
    (first, rec1), (unordered, rec2), (ordered, rec3) = _evacuations(sqlite_db, region, [h.TARGET, h.OTHER, h.TARGET])
    cloud = RecordingCloud(region, refusals={ordered: 1})
    res = _resources(sqlite_db, region, cloud)
    _run_all(res, [rec1, rec2, rec3], {rec1: 5, rec3: 7})
    assert cloud.first("ask", unordered)[0] > cloud.first("accepted", ordered)[0] > cloud.first("accepted", first)[0]


def test_a_tier_nova_does_not_accept_delays_the_next_by_tier_wait_and_never_blocks_it(sqlite_db):
    region = _region(vms_per_host=2)
    (stuck, rec1), (after, rec2) = _evacuations(sqlite_db, region, [h.TARGET, h.OTHER])
    # refused 8 times, 10 s apart: Nova accepts tier 1 only after some 80 s
    cloud = RecordingCloud(region, refusals={stuck: 8})
    res = _resources(sqlite_db, region, cloud, tier_wait_s=30.0)
    start = region.clock.now
    statuses = _run_all(res, [rec1, rec2], {rec1: 1, rec2: 2})
    assert statuses == {rec1: "succeeded", rec2: "succeeded"}
    asked, asked_at = cloud.first("ask", after)
    assert asked < cloud.first("accepted", stuck)[0]  # it did not wait for the stuck VM
    assert asked_at - start >= 30.0  # but it waited the bound
    waits = [op["message"] for op in db_api.list_operations(sqlite_db, rec2)
             if (op["message"] or "").startswith("evacuate_order tier")]
    assert "[executor] tier_wait (30 s) passed" in waits[0]


def test_evacuations_to_one_target_keep_within_max_concurrent_per_host(sqlite_db):
    region = _region()
    ids = _evacuations(sqlite_db, region, [h.TARGET, h.TARGET, h.TARGET])
    cloud = RecordingCloud(region)
    res = _resources(sqlite_db, region, cloud, max_concurrent_per_host=1)
    statuses = _run_all(res, [rec for _, rec in ids])
    assert set(statuses.values()) == {"succeeded"}
    assert all(region.vms[vm_id].host == h.TARGET for vm_id, _ in ids)
    assert [to_target for _, to_target, _ in cloud.in_flight_at_accept] == [1, 1, 1]
    assert res.in_flight.total == 0  # every place was given back
    waited = [op["message"] for _, rec in ids for op in db_api.list_operations(sqlite_db, rec)
              if (op["message"] or "").startswith("waited")]
    assert waited and "max_concurrent_per_host = 1" in waited[0] and h.TARGET in waited[0]


def test_a_place_in_flight_is_free_once_the_migration_ends_not_once_the_vm_is_started(sqlite_db):
    region = _region(vms_per_host=2, evacuate_to_shutoff=True)
    (first, rec1), (second, rec2) = _evacuations(sqlite_db, region, [h.TARGET, h.TARGET])
    cloud = RecordingCloud(region)
    res = _resources(sqlite_db, region, cloud, max_concurrent_per_host=1)
    _run_all(res, [rec1, rec2])
    # the start after the evacuation (Nova >= 2.95) is no migration: the second goes meanwhile
    start, started_at = cloud.first("start", first)
    # the start after the evacuation (Nova >= 2.95) holds no place: the second goes while it runs
    assert started_at <= cloud.first("accepted", second)[1] < cloud.first("active", first, after=start)[1]


def test_evacuations_keep_within_max_concurrent_per_region_whatever_their_targets(sqlite_db):
    region = _region()
    ids = _evacuations(sqlite_db, region, [h.TARGET, h.OTHER, "cmp-00004"])
    cloud = RecordingCloud(region)
    res = _resources(sqlite_db, region, cloud, max_concurrent_per_region=2)
    statuses = _run_all(res, [rec for _, rec in ids])
    assert set(statuses.values()) == {"succeeded"}
    assert max(in_region for _, _, in_region in cloud.in_flight_at_accept) == 2
    assert res.in_flight.total == 0


def test_the_ha_round_reads_each_vms_evacuate_order_from_the_snapshot(sqlite_db):
    event_id, first = h.recommendation(sqlite_db, "evacuate", "vm-a")
    _, second = h.recommendation(sqlite_db, "evacuate", "vm-b", event_id=event_id)
    _, gone = h.recommendation(sqlite_db, "evacuate", "vm-c", event_id=event_id)
    snapshot = types.SimpleNamespace(vms=(types.SimpleNamespace(id="vm-a", evacuate_order=3),
                                          types.SimpleNamespace(id="vm-b", evacuate_order=None)))
    assert ha.evacuate_orders(sqlite_db, snapshot, [first, second, gone]) == {first: 3, second: None, gone: None}
