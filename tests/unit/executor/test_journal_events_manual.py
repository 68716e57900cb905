"""Reading a run's progress back from its journal; an event's final state and counts; the manual-action timeout."""

import time

import pytest

from keyvrm.db import api as db_api
from keyvrm.executor import classify
from keyvrm.executor import events
from keyvrm.executor import journal
from keyvrm.executor import manual
from keyvrm.model import snapshot as m
from tests.unit.executor import helpers as h


def _op(kind, attempt, message=None, error=None):
    return {"kind": kind, "attempt": attempt, "message": message, "error": error}


def test_progress_reads_the_open_attempt_its_migration_and_the_retried_errors():
    vm = m.VM("vm-1", "vm-1", "cmp-1", "p", m.Flavor("f", 1, 512, 1), status="ACTIVE")
    verdict = classify.Verdict("migration_error", classify.RETRY, ())
    ops = [_op("start", 0, "live_migrate of VM vm-1"),
           _op("prepare", 1, journal.prepared_message(vm, vm.status, "cmp-2")),
           _op("execute", 1, journal.accepted_message("live_migrate", "cmp-2", 7)),
           _op("retry", 1, journal.retry_message(verdict, 1), "live-migration ended error"),
           _op("prepare", 2, journal.prepared_message(vm, vm.status, "cmp-2")),
           _op("execute", 2, journal.accepted_message("live_migrate", "cmp-2", 8))]
    done = journal.progress(ops)
    assert done == journal.Progress(attempt=2, attempt_closed=False, migration_id=8,
                                    first_status="ACTIVE",
                                    error_keys=(("migration_error", "live-migration ended error"),))
    assert journal.progress(ops[:4]).attempt_closed
    assert journal.progress(ops[:2]).migration_id is None


def test_only_an_operators_cancel_line_counts_as_a_cancel_request():
    assert journal.cancel_request([_op("cancel", 0, "VM is locked: vm-1")]) is None
    assert journal.cancel_request([_op("start", 0), _op("cancel", 1, "cancel requested by ann")]) \
        == "cancel requested by ann"


@pytest.mark.parametrize("statuses,state", [
    ([], "healthy"),
    (["succeeded", "succeeded"], "healthy"),
    (["succeeded", "failed"], "warning"),
    (["succeeded", "cancelled"], "warning"),
    (["cancelled", "cancelled"], "warning"),
    (["failed", "cancelled"], "warning"),
    (["failed", "failed"], "error"),
    (["succeeded", "running"], None),
    (["failed", "created"], None),
    (["manual_action"], None),
])
def test_event_state_matrix(statuses, state):
    assert events.state_of(statuses) == state


def test_final_counts_are_per_final_status_in_a_fixed_order():
    assert events.final_counts(["cancelled", "succeeded", "failed", "succeeded"]) == {
        "succeeded": 2, "failed": 1, "cancelled": 1}
    assert list(events.final_counts(["cancelled", "succeeded"])) == ["succeeded", "cancelled"]
    assert events.final_counts([]) == {}


def test_manual_recommendations_older_than_the_timeout_are_cancelled_with_the_reason(sqlite_db):
    event_id, old = h.recommendation(sqlite_db, "live_migrate", "vm-1", auto_run=False)
    _, auto = h.recommendation(sqlite_db, "live_migrate", "vm-2", event_id=event_id)
    now_s = time.time()
    assert manual.cancel_expired_manual(sqlite_db, now_s, 1800) == []
    assert manual.cancel_expired_manual(sqlite_db, now_s + 1801, 1800) == [old]
    rec = db_api.get_recommendation(sqlite_db, old)
    assert rec["status"] == "cancelled"
    assert rec["reason"] == ("manual action not started within 30 min "
                             "(executor_manual_action_timeout)")
    assert h.kinds(sqlite_db, old) == ["cancel"]
    assert db_api.get_recommendation(sqlite_db, auto)["status"] == "created"
