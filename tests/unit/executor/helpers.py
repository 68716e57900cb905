"""A small generated region, a clock over its simulated time, and recommendation builders."""

import dataclasses
import threading

from keyvrm.db import api as db_api
from keyvrm.executor.runner import ExecutorSettings
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import generator
from keyvrm.simulator import region as r

SOURCE, TARGET, OTHER = "cmp-00001", "cmp-00002", "cmp-00003"

# Short lifecycle timeouts keep the simulated waits (and the polls they cost) few.
TIMEOUTS_S = {"starting": 120, "stopping": 120, "suspending": 120, "resuming": 120,
              "creating": 600, "deleting": 600, "migrating": 600, "restoring": 600}

SETTINGS = ExecutorSettings(max_attempts=3, max_repeated_errors=2, poll_interval_s=5.0,
                            retry_delay_s=10.0, lifecycle_timeouts_s=TIMEOUTS_S)


class RegionClock:
    """The executor's clock over a simulated region: ``sleep`` advances simulated time."""

    def __init__(self, region):
        self.region = region
        self.slept_s = 0.0

    def time(self):
        return self.region.clock.now

    def sleep(self, seconds):
        with self.region.lock:
            self.slept_s += seconds
            self.region.clock.advance(seconds)


class StepClock:
    """A clock whose ``sleep`` moves its time at once (a simulated clock without a region)."""

    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def small_region(seed=3, **options):
    """Four volume-backed hosts in one aggregate, two VMs each, no server groups or exclusions."""
    return generator.generate(
        {"hosts": 4, "hosts_per_aggregate": 4, "availability_zones": 1},
        {"vms_per_host": 2, "volume_backed_fraction": 1.0, "server_group_fraction": 0.0,
         "no_evacuate_fraction": 0.0, "no_migrate_fraction": 0.0},
        r.RegionOptions(seed=seed, **options))


def vm_on(region, host):
    """The first VM placed on ``host``."""
    return region.hosts[host].vms[0]


def source_down(region, host=SOURCE):
    """nova-compute of ``host`` stops and the host is forced down (what fencing leaves)."""
    region.set_host_condition(region.hosts[host], compute_running=False)
    region.hosts[host].forced_down = True


def recommendation(db, action, vm_id, source=SOURCE, target=TARGET, auto_run=True, event_id=None,
                   fenced=True):
    """A recommendation of a fresh (or the given) event; returns (event_id, recommendation_id).

    For an evacuation the source is recorded as fenced, as the HAFlow does, unless ``fenced``
    is False.
    """
    if event_id is None:
        event_id = db_api.create_event(db, "agg-001", "HA" if action == "evacuate" else "LB",
                                       "HA+LB")
    if action == "evacuate" and fenced:
        db_api.set_hypervisor_state(db, source, "fenced", event_id=event_id,
                                    fencing=[{"fencer": "test", "host": source, "confirmed": True}])
    rec_id = db_api.create_recommendation(db, event_id, action, vm_id, source, target,
                                          auto_run=auto_run,
                                          ha_round=1 if action == "evacuate" else None)
    return event_id, rec_id


def kinds(db, rec_id):
    """The journal's operation kinds, in order."""
    return [op["kind"] for op in db_api.list_operations(db, rec_id)]


class RecordingNotifier:
    """Collects the payloads of ``recommendation_error`` (the Notifier's interface)."""

    def __init__(self):
        self.errors = []

    def recommendation_error(self, payload):
        self.errors.append(payload)


class NotificationEndpoint:
    """An oslo.messaging notification endpoint that keeps what arrives at ``error`` and ``warn``."""

    def __init__(self):
        self.received = []
        self.priorities = []
        self.arrived = threading.Event()

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self.received.append((publisher_id, event_type, payload))
        self.priorities.append("error")
        self.arrived.set()

    def warn(self, ctxt, publisher_id, event_type, payload, metadata):
        self.received.append((publisher_id, event_type, payload))
        self.priorities.append("warn")
        self.arrived.set()


class ScriptedCloud(SimCloudDriver):
    """The sim cloud whose action calls first raise the scripted errors, in order."""

    def __init__(self, region, live_migrate_errors=(), crash_on=None):
        super().__init__(region)
        self.live_migrate_errors = list(live_migrate_errors)
        self.crash_on = crash_on

    def live_migrate(self, server_id, target_host, block_migration="auto"):
        if self.live_migrate_errors:
            raise self.live_migrate_errors.pop(0)
        migration = super().live_migrate(server_id, target_host, block_migration)
        if self.crash_on == "after_accept":
            self.crash_on = None
            raise Crash("engine died right after Nova accepted")
        return migration

    def get_migration(self, migration_id, server_id=None):
        if self.crash_on == "poll":
            self.crash_on = None
            raise Crash("engine died while polling")
        return super().get_migration(migration_id, server_id)


class Crash(BaseException):
    """The engine process dying: nothing in the executor catches it."""


def with_settings(**changes):
    return dataclasses.replace(SETTINGS, **changes)
