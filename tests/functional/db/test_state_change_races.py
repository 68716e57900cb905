"""State changes under concurrency on PostgreSQL: each one is judged on the row it replaces.

Every test releases several workers at one barrier (``race.race``), each on its own
connection, for several rounds; without the row lock each of them fails within a few
rounds (READ COMMITTED lets every worker read the same old row).
"""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import snapshot as m
from tests.functional.db import race

ROUNDS = 8


def _outcome(call):
    try:
        call()
        return "ok"
    except exception.Conflict as exc:
        return exc.code
    except exception.InvalidField as exc:
        return "invalid:" + exc.field


def _manual_recommendation(db, i):
    event_id = db_api.create_event(db, "agg-race", "LB", "LB")
    return db_api.create_recommendation(db, event_id, "live_migrate", "vm-%d" % i, "cmp-1", "cmp-2",
                                        auto_run=False)


@pytest.fixture
def aggregate(pg_db):
    db_api.sync_aggregates(pg_db, [m.Aggregate("agg-race", 1, None, "az1")])
    return "agg-race"


@pytest.mark.postgresql
def test_concurrent_threshold_and_target_patches_never_store_an_invalid_pair(pg_db, aggregate):
    for round_number in range(ROUNDS):
        # Each change alone is valid (40 < 50, 60 < 80); both together are not (60 >= 50).
        db_api.update_aggregate_config(pg_db, aggregate, {"lb_overload_threshold": 80.0,
                                                          "lb_target_max_load": 40.0}, "reset")
        changes = [{"lb_overload_threshold": 50.0}, {"lb_target_max_load": 60.0}] * 3
        outcomes = race.race(pg_db.url, lambda db, i: _outcome(
            lambda: db_api.update_aggregate_config(db, aggregate, changes[i], "admin-%d" % i)), len(changes))
        stored = db_api.get_aggregate_config(pg_db, aggregate)
        assert stored.lb_target_max_load < stored.lb_overload_threshold, (round_number, outcomes, stored)
        assert "ok" in outcomes and any(o.startswith("invalid:") for o in outcomes), outcomes


@pytest.mark.postgresql
def test_each_audit_row_of_concurrent_patches_names_the_value_it_replaced(pg_db, aggregate):
    outcomes = race.race(pg_db.url, lambda db, i: _outcome(lambda: db_api.update_aggregate_config(
        db, aggregate, {"lb_period": 1000 + i}, "admin-%d" % i)), 8)
    assert outcomes == ["ok"] * 8
    audit = list(reversed(db_api.list_config_audit(pg_db, scope="aggregate", target=aggregate)))
    periods = [row for row in audit if row["field"] == "lb_period"]
    assert len(periods) == 8
    for previous, row in zip(periods, periods[1:]):
        assert row["old_value"] == previous["new_value"], periods


@pytest.mark.postgresql
@pytest.mark.parametrize("request_call, refused, kind", [
    (db_api.request_recommendation_run, "not_manual", "start"),
    (db_api.request_recommendation_cancel, "already_final", "cancel"),
], ids=["run", "cancel"])
def test_one_of_concurrent_operator_requests_is_accepted_and_journalled(pg_db, request_call, refused, kind):
    for round_number in range(ROUNDS):
        rec_id = _manual_recommendation(pg_db, round_number)
        outcomes = race.race(pg_db.url, lambda db, i: _outcome(lambda: request_call(db, rec_id, "admin-%d" % i)), 6)
        assert sorted(outcomes) == [refused] * 5 + ["ok"], outcomes
        assert len([op for op in db_api.list_operations(pg_db, rec_id) if op["kind"] == kind]) == 1


@pytest.mark.postgresql
def test_an_accepted_cancel_is_never_overwritten_by_the_executor_starting(pg_db):
    for round_number in range(ROUNDS * 2):
        event_id = db_api.create_event(pg_db, "agg-race", "LB", "LB")
        rec_id = db_api.create_recommendation(pg_db, event_id, "live_migrate", "vm-c%d" % round_number,
                                              "cmp-1", "cmp-2", auto_run=True)

        def attempt(db, i):
            if i == 0:
                return _outcome(lambda: db_api.request_recommendation_cancel(db, rec_id, "admin"))
            return _outcome(lambda: db_api.set_recommendation_status(db, rec_id, "running"))
        cancel, start = race.race(pg_db.url, attempt, 2)
        status = db_api.get_recommendation(pg_db, rec_id)["status"]
        journal = [op["message"] for op in db_api.list_operations(pg_db, rec_id) if op["kind"] == "cancel"]
        assert cancel == "ok", cancel
        if start == "ok":  # the executor started first: the cancel is a request it honours
            assert status == "running" and journal == ["cancel requested by admin"]
        else:  # the cancel committed first: the start was refused
            assert status == "cancelled" and journal == ["cancelled by admin"], (start, status)


@pytest.mark.postgresql
def test_a_dead_hosts_cancel_of_work_not_started_and_the_executor_starting_it_never_both_win(pg_db):
    reason = "target cmp-2 failed: HA event ev fenced it"
    for round_number in range(ROUNDS * 2):
        event_id = db_api.create_event(pg_db, "agg-race", "HA", "HA")
        rec_id = db_api.create_recommendation(pg_db, event_id, "evacuate", "vm-d%d" % round_number,
                                              "cmp-1", "cmp-2", auto_run=True, ha_round=1)

        def attempt(db, i):
            if i == 0:
                return db_api.cancel_unstarted(db, rec_id, reason)
            return _outcome(lambda: db_api.set_recommendation_status(db, rec_id, "running"))
        cancelled, start = race.race(pg_db.url, attempt, 2)
        status = db_api.get_recommendation(pg_db, rec_id)["status"]
        journal = [op["message"] for op in db_api.list_operations(pg_db, rec_id) if op["kind"] == "cancel"]
        assert cancelled != (start == "ok"), (cancelled, start)
        assert (status, journal) == (("cancelled", [reason]) if cancelled else ("running", [])), (status, journal)


@pytest.mark.postgresql
def test_one_of_concurrent_unlocks_reports_the_lock_and_writes_one_history_row(pg_db):
    for round_number in range(ROUNDS):
        vm_id = "vm-lock-%d" % round_number
        db_api.begin_vm_transition(pg_db, vm_id, "executor:x", "migrating", datetime.datetime(2026, 12, 2, 16))
        outcomes = race.race(pg_db.url, lambda db, i: db_api.force_unlock_vm(db, vm_id, "admin-%d" % i), 6)
        assert sorted(outcomes) == [False] * 5 + [True], outcomes
        unlocks = [h for h in db_api.list_vm_history(pg_db, vm_id) if h["status"] == "succeeded"]
        assert len(unlocks) == 1


@pytest.mark.postgresql
def test_concurrent_first_reads_of_the_global_config_all_succeed(pg_db):
    for round_number in range(ROUNDS):
        with pg_db.writer() as session:
            session.query(models.AppConfig).delete()

        def first_read(db, i):
            try:
                return db_api.get_app_config(db).period
            except Exception as exc:  # the test reports any error, whatever its type
                return repr(exc)
        outcomes = race.race(pg_db.url, first_read, 8)
        assert outcomes == [60] * 8, outcomes
