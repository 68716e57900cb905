"""VM lifecycle: lock with deadline, result handler, undelivered commands, late answers."""

import datetime

from oslo_config import cfg
import pytest

from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.lifecycle import states
from keyvrm.lifecycle import tracker

T0 = datetime.datetime(2026, 12, 2, 10, 0, 0)


@pytest.fixture
def timeouts():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    return tracker.timeouts_from_conf(conf)


def test_migration_deadline_is_six_hours_from_the_seed(sqlite_db, timeouts):
    transition = tracker.begin(sqlite_db, "vm1", "live_migrate", "exec-1", T0, timeouts,
                               desired_host="h2")
    assert transition.deadline_at - T0 == datetime.timedelta(hours=6)
    state = db_api.get_vm_state(sqlite_db, "vm1")
    assert state["locked"] and state["transitional_state"] == "migrating"
    assert state["desired_host"] == "h2"


def test_a_second_action_on_a_vm_in_transition_is_refused(sqlite_db, timeouts):
    tracker.begin(sqlite_db, "vm1", "evacuate", "exec-1", T0, timeouts)
    with pytest.raises(exception.VMLocked):
        tracker.begin(sqlite_db, "vm1", "stop", "exec-2", T0, timeouts)


def test_result_handler_unlocks_and_records_observed_state_and_history(sqlite_db, timeouts):
    transition = tracker.begin(sqlite_db, "vm1", "evacuate", "exec-1", T0, timeouts,
                               desired_host="h2", recommendation_id="rec-1")
    done = T0 + datetime.timedelta(seconds=95)
    assert tracker.finish(sqlite_db, transition, done, True, "h2", "SHUTOFF") is True
    state = db_api.get_vm_state(sqlite_db, "vm1")
    assert not state["locked"] and state["transitional_state"] is None
    assert (state["observed_host"], state["observed_status"]) == ("h2", "SHUTOFF")
    history = db_api.list_vm_history(sqlite_db, "vm1")
    assert [(h["action"], h["status"], h["duration_s"]) for h in history] == [
        ("evacuate", "succeeded", 95.0)]


def test_failed_action_leaves_its_failure_state(sqlite_db, timeouts):
    transition = tracker.begin(sqlite_db, "vm1", "live_migrate", "exec-1", T0, timeouts)
    tracker.finish(sqlite_db, transition, T0, False, "h1", "ACTIVE", message="anti-affinity")
    assert db_api.get_vm_state(sqlite_db, "vm1")["failure_state"] == "migration_failed"


def test_undelivered_command_releases_the_lock_at_once(sqlite_db, timeouts):
    transition = tracker.begin(sqlite_db, "vm1", "stop", "exec-1", T0, timeouts)
    tracker.not_delivered(sqlite_db, transition, T0, "Nova API 503")
    assert not db_api.get_vm_state(sqlite_db, "vm1")["locked"]
    tracker.begin(sqlite_db, "vm1", "stop", "exec-2", T0, timeouts)
    assert db_api.list_vm_history(sqlite_db, "vm1")[0]["status"] == "not_delivered"


def test_an_answer_after_the_transition_was_ended_elsewhere_is_stored_as_observed(sqlite_db, timeouts):
    transition = tracker.begin(sqlite_db, "vm1", "live_migrate", "exec-1", T0, timeouts,
                               desired_host="h2")
    late = T0 + datetime.timedelta(hours=7)
    assert db_api.force_unlock_vm(sqlite_db, "vm1", "admin") is True  # the operator gave up waiting
    assert tracker.finish(sqlite_db, transition, late, True, "h2", "ACTIVE") is False
    state = db_api.get_vm_state(sqlite_db, "vm1")
    assert not state["locked"] and (state["observed_host"], state["observed_status"]) == ("h2", "ACTIVE")


def test_every_transitional_state_has_a_failure_state():
    assert set(states.TRANSITIONAL_STATE_OF_ACTION.values()) == set(states.FAILURE_STATE_OF)
