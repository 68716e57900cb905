"""Repositories on SQLite: validated, audited, all-or-nothing writes."""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.model import snapshot as m


def test_app_config_starts_with_the_spec_defaults(sqlite_db):
    config = db_api.get_app_config(sqlite_db)
    assert config.enabled is False and config.period == 60 and config.ha_fence_nova is True


def test_app_config_change_is_audited_with_who_old_and_new(sqlite_db):
    db_api.update_app_config(sqlite_db, {"period": 120, "enabled": True}, changed_by="alice")
    assert db_api.get_app_config(sqlite_db).period == 120
    audit = {row["field"]: row for row in db_api.list_config_audit(sqlite_db, scope="app")}
    assert audit["period"]["old_value"] == 60 and audit["period"]["new_value"] == 120
    assert audit["enabled"]["changed_by"] == "alice"


def test_bad_app_config_change_writes_nothing(sqlite_db):
    with pytest.raises(exception.InvalidField) as caught:
        db_api.update_app_config(sqlite_db, {"period": 30, "nova_filters": ["Nope"]},
                                 changed_by="alice")
    assert caught.value.field == "nova_filters"
    assert db_api.get_app_config(sqlite_db).period == 60
    assert db_api.list_config_audit(sqlite_db) == []


def test_unchanged_value_leaves_no_audit_row(sqlite_db):
    db_api.update_app_config(sqlite_db, {"period": 60}, changed_by="alice")
    assert db_api.list_config_audit(sqlite_db) == []


def _agg(name, nova_id=1, az="az1"):
    return m.Aggregate(name=name, nova_id=nova_id, availability_zone=az)


def test_new_aggregates_are_created_noop_and_removed_ones_marked_deleted(sqlite_db):
    first = db_api.sync_aggregates(sqlite_db, [_agg("a", 1), _agg("b", 2)])
    assert first.created == ("a", "b")
    assert db_api.get_aggregate_config(sqlite_db, "a").no_op_mode is True
    second = db_api.sync_aggregates(sqlite_db, [_agg("b", 2)])
    assert second.deleted == ("a",) and second.created == ()
    assert [r.config.name for r in db_api.list_aggregates(sqlite_db)] == ["b"]
    deleted = [r for r in db_api.list_aggregates(sqlite_db, include_deleted=True) if r.deleted]
    assert [r.config.name for r in deleted] == ["a"]
    third = db_api.sync_aggregates(sqlite_db, [_agg("a", 1), _agg("b", 2)])
    assert third.restored == ("a",)


def test_aggregate_config_change_is_validated_as_a_whole(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [_agg("a")])
    with pytest.raises(exception.InvalidField) as caught:
        db_api.update_aggregate_config(sqlite_db, "a", {"marker": "LB", "lb_target_max_load": 90},
                                       changed_by="bob")
    assert caught.value.field == "lb_target_max_load"
    assert db_api.get_aggregate_config(sqlite_db, "a").marker == ""
    db_api.update_aggregate_config(sqlite_db, "a", {"marker": "LB", "no_op_mode": False},
                                   changed_by="bob")
    config = db_api.get_aggregate_config(sqlite_db, "a")
    assert config.runs_lb and not config.runs_ha
    fields = {r["field"] for r in db_api.list_config_audit(sqlite_db, target="a")}
    assert fields == {"marker", "no_op_mode", "no_op_reason"}


def test_lb_weights_are_merged_into_the_stored_weights(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [_agg("agg-w")])
    db_api.update_aggregate_config(sqlite_db, "agg-w", {"lb_weights": {"cpu": 2.0}}, "ops")
    after = db_api.update_aggregate_config(sqlite_db, "agg-w", {"lb_weights": {"ram": 3.0}}, "ops")
    assert after.lb_weights == {"cpu": 2.0, "ram": 3.0, "net": 0.5, "hugepages": 0.0}
    with pytest.raises(exception.InvalidField, match="lb_weights"):
        db_api.update_aggregate_config(sqlite_db, "agg-w", {"lb_weights": {"disk": 1.0}}, "ops")
    assert db_api.get_aggregate_config(sqlite_db, "agg-w").lb_weights["cpu"] == 2.0


def test_unknown_aggregate_is_not_found(sqlite_db):
    with pytest.raises(exception.NotFound):
        db_api.update_aggregate_config(sqlite_db, "ghost", {"marker": "HA"}, changed_by="bob")


def _snapshot(taken_at):
    return m.RegionSnapshot(region="r", taken_at=taken_at,
                            hypervisors=(m.Hypervisor("h1"),),
                            sources={"nova": m.SourceStatus("nova", True)})


def test_snapshots_are_stored_compressed_and_retained_by_count(sqlite_db):
    ids = [db_api.store_snapshot(sqlite_db, _snapshot(1000.0 + i), keep_count=3)
           for i in range(5)]
    listed = db_api.list_snapshots(sqlite_db)
    assert [s["id"] for s in listed] == ids[:1:-1]
    assert db_api.load_snapshot(sqlite_db, ids[-1]).taken_at == 1004.0
    with pytest.raises(exception.NotFound):
        db_api.load_snapshot(sqlite_db, ids[0])


def test_snapshots_older_than_keep_days_are_deleted(sqlite_db):
    old = db_api.store_snapshot(sqlite_db, _snapshot(1.0), keep_count=10)
    later = db_api.utcnow() + datetime.timedelta(days=3)
    new = db_api.store_snapshot(sqlite_db, _snapshot(2.0), keep_count=10, keep_days=2, now=later)
    assert [s["id"] for s in db_api.list_snapshots(sqlite_db)] == [new]
    assert old != new


def test_skipped_cycle_must_say_why(sqlite_db):
    cycle = db_api.start_cycle(sqlite_db)
    with pytest.raises(exception.InvalidField) as caught:
        db_api.finish_cycle(sqlite_db, cycle, "skipped")
    assert caught.value.field == "reason"
    db_api.finish_cycle(sqlite_db, cycle, "skipped", "disabled", "KeyVRM is disabled")


def test_event_recommendation_operation_chain_and_busy_set(sqlite_db):
    event = db_api.create_event(sqlite_db, "agg1", "HA", "HA+LB")
    rec = db_api.create_recommendation(sqlite_db, event, "evacuate", "vm1", "h1", "h2",
                                       auto_run=True, ha_round=1)
    manual = db_api.create_recommendation(sqlite_db, event, "live_migrate", "vm2", "h3", "h4",
                                          auto_run=False, load_calculation={"source": {}})
    busy = db_api.busy_set(sqlite_db)
    assert busy.vms == {"vm1", "vm2"} and busy.hosts == {"h1", "h2", "h3", "h4"}
    db_api.set_recommendation_status(sqlite_db, rec, "running")
    db_api.add_operation(sqlite_db, rec, "start", attempt=1, message="locked vm1")
    db_api.set_recommendation_status(sqlite_db, rec, "succeeded")
    db_api.set_recommendation_status(sqlite_db, manual, "cancelled", reason="timed out")
    assert db_api.busy_set(sqlite_db).hosts == frozenset()
    assert [o["kind"] for o in db_api.list_operations(sqlite_db, rec)] == ["start"]
    with pytest.raises(exception.Conflict):
        db_api.set_recommendation_status(sqlite_db, rec, "running")
    db_api.set_event_status(sqlite_db, event, "completed", state="warning")


@pytest.mark.parametrize("call, field", [
    (lambda db: db_api.create_event(db, "a", "XX", "HA"), "kind"),
    (lambda db: db_api.create_event(db, "a", "HA", "HB"), "marker"),
    (lambda db: db_api.create_recommendation(db, "no-event", "evacuate", "v", "h", "t",
                                             True, ha_round=1), "event_id"),
    (lambda db: db_api.add_operation(db, "no-rec", "start", 1), "recommendation_id"),
    (lambda db: db_api.set_hypervisor_state(db, "h1", "fenced"), "fencing"),
    (lambda db: db_api.set_hypervisor_state(db, "h1", "sleeping"), "state"),
])
def test_bad_values_are_refused_naming_the_field(sqlite_db, call, field):
    with pytest.raises(exception.InvalidField) as caught:
        call(sqlite_db)
    assert caught.value.field == field


def test_evacuation_needs_its_ha_round(sqlite_db):
    event = db_api.create_event(sqlite_db, "agg1", "HA", "HA")
    with pytest.raises(exception.InvalidField) as caught:
        db_api.create_recommendation(sqlite_db, event, "evacuate", "v", "h", "t", True)
    assert caught.value.field == "ha_round"


def test_fenced_host_keeps_its_fencing_record(sqlite_db):
    record = [{"fencer": "nova", "confirmed": True, "finished_at": "2026-12-02T10:00:00"}]
    db_api.set_hypervisor_state(sqlite_db, "h1", "fenced", fencing=record)
    state = db_api.get_hypervisor_state(sqlite_db, "h1")
    assert state["state"] == "fenced" and state["fencing"] == record and state["fenced_at"]


def _begin_migration(db, vm_id, owner):
    db_api.begin_vm_transition(db, vm_id, owner, "migrating", datetime.datetime(2026, 12, 2, 16, 0, 0))


def test_a_second_transition_on_a_vm_is_refused_with_vm_is_locked(sqlite_db):
    _begin_migration(sqlite_db, "vm1", "executor-1")
    with pytest.raises(exception.VMLocked) as caught:
        _begin_migration(sqlite_db, "vm1", "executor-2")
    assert "VM is locked" in str(caught.value) and caught.value.owner == "executor-1"


def test_only_the_owner_or_a_call_naming_no_owner_ends_a_transition(sqlite_db):
    _begin_migration(sqlite_db, "vm1", "executor-1")
    assert db_api.end_vm_transition(sqlite_db, "vm1", owner="executor-2") is False
    assert db_api.get_vm_state(sqlite_db, "vm1")["locked"] is True
    assert db_api.end_vm_transition(sqlite_db, "vm1") is True
    assert db_api.get_vm_state(sqlite_db, "vm1")["locked"] is False


def test_vm_history_records_duration(sqlite_db):
    start = datetime.datetime(2026, 12, 2, 10, 0, 0)
    db_api.add_vm_history(sqlite_db, "vm1", "evacuate", "succeeded", start,
                          start + datetime.timedelta(seconds=42), message="to h2")
    assert db_api.list_vm_history(sqlite_db, "vm1")[0]["duration_s"] == 42.0
    assert db_api.get_vm_state(sqlite_db, "vm1")["locked"] is False  # a VM with history is known
    with pytest.raises(exception.InvalidField):
        db_api.add_vm_history(sqlite_db, "vm1", "evacuate", "failed", start,
                              start - datetime.timedelta(seconds=1))


def test_recent_moves_and_failed_migrations_are_the_latest_of_each_vm_since_a_time(sqlite_db):
    event = db_api.create_event(sqlite_db, "agg", "LB", "LB")
    before = db_api.utcnow()
    moves = {}
    for vm, status in (("vm-1", "succeeded"), ("vm-1", "succeeded"), ("vm-2", "failed"), ("vm-3", "succeeded")):
        rec = db_api.create_recommendation(sqlite_db, event, "live_migrate", vm, "h1", "h2", True)
        db_api.set_recommendation_status(sqlite_db, rec, "running")
        db_api.set_recommendation_status(sqlite_db, rec, status)
        moves[vm] = db_api.get_recommendation(sqlite_db, rec)["finished_at"]
    recent = db_api.recent_moves(sqlite_db, before)
    assert recent == {"vm-1": moves["vm-1"], "vm-3": moves["vm-3"]}  # vm-1's second move; vm-2 failed
    assert db_api.recent_moves(sqlite_db, db_api.utcnow()) == {}
    assert db_api.recent_failed_migrations(sqlite_db, before) == {("vm-2", "h2"): moves["vm-2"]}
    assert db_api.recent_failed_migrations(sqlite_db, db_api.utcnow()) == {}


def test_the_db_refuses_a_move_the_transition_table_forbids(sqlite_db):
    # (an event's status only moves on: one it has passed is no move, tests/unit/db/test_event_rerun.py)
    cycle = db_api.start_cycle(sqlite_db)
    db_api.finish_cycle(sqlite_db, cycle, "skipped", "disabled", "KeyVRM is disabled")
    with pytest.raises(exception.InvalidTransition):
        db_api.finish_cycle(sqlite_db, cycle, "completed")
    with pytest.raises(exception.InvalidTransition) as caught:
        db_api.set_hypervisor_state(sqlite_db, "h1", "restoring")
    assert caught.value.field == "hypervisor.state" and caught.value.old == "ok"
    assert db_api.get_hypervisor_state(sqlite_db, "h1")["state"] == "ok"


def test_a_cycle_finished_again_with_its_own_status_is_left_as_it_was(sqlite_db):
    # the finishing task ran again: its engine lost the database after the commit (functional outage test)
    cycle = db_api.start_cycle(sqlite_db)
    db_api.finish_cycle(sqlite_db, cycle, "completed", "all_processed", "every aggregate processed")
    db_api.finish_cycle(sqlite_db, cycle, "completed", "all_processed", "every aggregate processed")
    [row] = [c for c in db_api.page_cycles(sqlite_db, 10) if c["id"] == cycle]
    assert (row["status"], row["reason_code"]) == ("completed", "all_processed")
