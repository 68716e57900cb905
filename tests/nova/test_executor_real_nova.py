"""The executor against real Nova: live and cold migration, evacuation, anti-affinity conflict, stuck migration.

Each test boots its own servers on hosts it names; wall times of the successful runs are
printed (``-s``) for the notes.
"""

import contextlib
import time

from keyvrm.clock import WallClock
from keyvrm.db import api as db_api
from keyvrm.drivers.cloud import openstack
from keyvrm.executor import runner
from keyvrm.executor.settings import ExecutorSettings
from tests.nova import conftest as c

TIMEOUTS_S = {"starting": 60, "stopping": 60, "suspending": 60, "resuming": 60,
              "creating": 60, "deleting": 60, "migrating": 60, "restoring": 60}
SETTINGS = ExecutorSettings(max_attempts=2, max_repeated_errors=2, poll_interval_s=0.2,
                            retry_delay_s=0.1, allow_rebuild_local_disk=True,
                            lifecycle_timeouts_s=TIMEOUTS_S)


def _recommend(db, action, vm_id, source, target):
    event_id = db_api.create_event(db, "agg-exec", "HA" if action == "evacuate" else "LB", "HA+LB")
    if action == "evacuate":  # the caller forced the source's service down: KeyVRM's fence record
        db_api.set_hypervisor_state(db, source, "fenced", event_id=event_id,
                                    fencing=[{"fencer": "nova", "host": source, "confirmed": True}])
    return db_api.create_recommendation(db, event_id, action, vm_id, source, target, auto_run=True,
                                        ha_round=1 if action == "evacuate" else None)


def _run(db, driver, rec_id, settings=SETTINGS):
    started = time.monotonic()
    status = runner.run_recommendation(db, driver, rec_id, clock=WallClock(), settings=settings)
    return status, time.monotonic() - started


def _kinds(db, rec_id):
    return [op["kind"] for op in db_api.list_operations(db, rec_id)]


def test_live_migration_ends_with_the_vm_on_the_target_as_nova_reports(sqlite_db, driver):
    vm = c.boot(driver, "exec-live", "compute002")
    rec_id = _recommend(sqlite_db, "live_migrate", vm, "compute002", "compute003")
    status, took_s = _run(sqlite_db, driver, rec_id)
    print("live migration wall time: %.2f s" % took_s)
    assert status == "succeeded", db_api.list_operations(sqlite_db, rec_id)
    assert c.host_of(driver, vm) == "compute003"
    assert not db_api.get_vm_state(sqlite_db, vm)["locked"]


def test_cold_migration_of_a_stopped_server_is_confirmed_and_leaves_it_shutoff_on_the_target(sqlite_db, driver):
    vm = c.boot(driver, "exec-cold", "compute002")
    c.nova(driver, "POST", "/servers/%s/action" % vm, "2.53", json={"os-stop": None})
    c.wait_for(lambda: c.server(driver, vm)["status"] == "SHUTOFF")
    rec_id = _recommend(sqlite_db, "cold_migrate", vm, "compute002", "compute003")
    status, took_s = _run(sqlite_db, driver, rec_id)
    print("cold migration wall time: %.2f s" % took_s)
    assert status == "succeeded", db_api.list_operations(sqlite_db, rec_id)
    server = c.server(driver, vm)
    assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("SHUTOFF", "compute003"), server
    migrations = c.nova(driver, "GET", "/os-migrations?instance_uuid=%s" % vm, "2.80")["migrations"]
    assert [(m["migration_type"], m["status"], m["source_compute"], m["dest_compute"]) for m in migrations] == [
        ("migration", "confirmed", "compute002", "compute003")], migrations
    assert _kinds(sqlite_db, rec_id) == ["start", "prepare", "execute", "execute", "success"]
    assert not db_api.get_vm_state(sqlite_db, vm)["locked"]


def test_a_restarted_engine_reads_a_migration_record_among_its_servers_only(sqlite_db, driver, fake_cloud):
    vm = c.boot(driver, "exec-restart", "compute002")
    moved = driver.live_migrate(vm, "compute003")
    for name in ("exec-later-1", "exec-later-2"):  # newer records of other servers
        driver.live_migrate(c.boot(driver, name, "compute002"), "compute003")
    # knows no migration it started; pages of one record: a scan would read one page per newer record
    restarted = openstack.from_endpoints(fake_cloud.service_endpoints, page_size=1)
    before = restarted.requests.by_service().get("compute", 0)
    record = restarted.get_migration(moved.id, server_id=vm)
    assert record.id == moved.id and record.server_id == vm
    assert restarted.requests.by_service()["compute"] - before <= 2  # that server's page, and the empty one


@contextlib.contextmanager
def _compute_dead(fake_cloud, driver, host):
    """``host``'s nova-compute stopped and its service forced down (as fenced), then back."""
    fake_cloud.stop_compute(host)
    try:
        driver.force_down_service(host)
        yield
    finally:
        fake_cloud.start_compute(host)
        driver.force_down_service(host, False)


def test_evacuation_after_force_down_ends_with_the_vm_on_the_target_and_active(
        sqlite_db, driver, fake_cloud):
    vm = c.boot(driver, "exec-evac", "compute004")
    with _compute_dead(fake_cloud, driver, "compute004"):
        rec_id = _recommend(sqlite_db, "evacuate", vm, "compute004", "compute003")
        status, took_s = _run(sqlite_db, driver, rec_id)
        print("evacuation wall time (incl. the start after it): %.2f s" % took_s)
        assert status == "succeeded", db_api.list_operations(sqlite_db, rec_id)
        raw = c.server(driver, vm)
        assert raw["OS-EXT-SRV-ATTR:host"] == "compute003" and raw["status"] == "ACTIVE"


def test_anti_affinity_conflict_at_execution_fails_and_is_journaled(sqlite_db, driver):
    group = c.server_group(driver, "sg-exec", "anti-affinity")
    vm = c.boot(driver, "exec-anti-1", "compute000", group_id=group)
    rec_id = _recommend(sqlite_db, "live_migrate", vm, "compute000", "compute003")
    c.boot(driver, "exec-anti-2", "compute003", group_id=group)  # the conflict appears now
    status, _ = _run(sqlite_db, driver, rec_id)
    assert status == "failed"
    assert c.host_of(driver, vm) == "compute000"
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert ops[-1]["kind"] == "error" and "execute" in _kinds(sqlite_db, rec_id)
    assert not db_api.get_vm_state(sqlite_db, vm)["locked"]


def test_stuck_migration_hits_the_timeout_and_becomes_migration_failed_unlocked(
        sqlite_db, driver, fake_cloud):
    vm = c.boot(driver, "exec-stuck", "compute001")
    fake_cloud.stall_live_migrations("compute001")
    settings = ExecutorSettings(max_attempts=1, max_repeated_errors=1, poll_interval_s=0.2,
                                retry_delay_s=0.1, lifecycle_timeouts_s=dict(TIMEOUTS_S, migrating=3))
    try:
        rec_id = _recommend(sqlite_db, "live_migrate", vm, "compute001", "compute002")
        status, took_s = _run(sqlite_db, driver, rec_id, settings)
    finally:
        fake_cloud.stall_live_migrations("compute001", False)
    assert status == "failed" and took_s >= 3
    state = db_api.get_vm_state(sqlite_db, vm)
    assert state["failure_state"] == "migration_failed" and not state["locked"]
    assert "timeout" in db_api.list_operations(sqlite_db, rec_id)[-1]["error"]


def test_evacuation_of_a_hard_affinity_member_is_refused_by_nova(sqlite_db, driver, fake_cloud):
    """Nova's ServerGroupAffinityFilter counts the dead host, where the group lives: NoValidHost."""
    group = c.server_group(driver, "sg-affinity-evac", "affinity")
    vm = c.boot(driver, "exec-affinity-evac", "compute004", group_id=group)
    with _compute_dead(fake_cloud, driver, "compute004"):
        rec_id = _recommend(sqlite_db, "evacuate", vm, "compute004", "compute003")
        status, _ = _run(sqlite_db, driver, rec_id)
        assert status == "failed", db_api.list_operations(sqlite_db, rec_id)
        assert c.host_of(driver, vm) == "compute004"
        print("affinity evacuation refused: %s" % db_api.list_operations(sqlite_db, rec_id)[-1]["error"])


def test_live_migration_of_a_lone_hard_affinity_member_is_refused_by_nova(sqlite_db, driver):
    """The group's hosts include the migrating VM's own host, so no other host passes."""
    group = c.server_group(driver, "sg-affinity-live", "affinity")
    vm = c.boot(driver, "exec-affinity-live", "compute002", group_id=group)
    rec_id = _recommend(sqlite_db, "live_migrate", vm, "compute002", "compute003")
    status, _ = _run(sqlite_db, driver, rec_id)
    assert status == "failed", db_api.list_operations(sqlite_db, rec_id)
    assert c.host_of(driver, vm) == "compute002"
    print("affinity live migration refused: %s" % db_api.list_operations(sqlite_db, rec_id)[-1]["error"])
