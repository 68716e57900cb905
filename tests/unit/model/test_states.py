"""The statuses and their one transition table: every value reachable, final values final, refusals named."""

import pytest

from keyvrm import exception
from keyvrm.model import states

# What a new row starts in (``keyvrm.db``: create_event, create_recommendation, start_cycle and
# request_cycle; a host without a row is ok).
FIRST = {"event.status": ("created",), "recommendation.status": ("created", "manual_action"),
         "cycle.status": ("running", "requested"), "hypervisor.state": ("ok",)}
ENUM_OF_FIELD = {"event.status": states.EventStatus, "recommendation.status": states.RecommendationStatus,
                 "cycle.status": states.CycleStatus, "hypervisor.state": states.HypervisorState}


def test_statuses_compare_equal_to_the_strings_already_stored():
    assert states.EventStatus.MANUAL_ACTION == "manual_action"
    assert "cancelled" in states.RECOMMENDATION_FINAL
    assert f"{states.HypervisorState.RESTORING}" == "restoring"


@pytest.mark.parametrize("field", sorted(states.TRANSITIONS))
def test_the_table_names_every_value_of_its_field_and_nothing_else(field):
    table = states.TRANSITIONS[field]
    assert set(table) == set(ENUM_OF_FIELD[field])
    assert {to for allowed in table.values() for to in allowed} <= set(ENUM_OF_FIELD[field])


@pytest.mark.parametrize("field", sorted(states.TRANSITIONS))
def test_every_value_is_reachable_from_a_new_row(field):
    reached = set(FIRST[field])
    frontier = list(reached)
    while frontier:
        for to in states.TRANSITIONS[field][frontier.pop()]:
            if to not in reached:
                reached.add(to)
                frontier.append(to)
    assert reached == set(ENUM_OF_FIELD[field])


def test_a_final_recommendation_never_moves_and_a_completed_event_stays_completed():
    for final in states.RECOMMENDATION_FINAL:
        assert states.TRANSITIONS["recommendation.status"][final] == ()
    assert states.TRANSITIONS["event.status"][states.EventStatus.COMPLETED] == (states.EventStatus.COMPLETED,)


def test_only_a_host_keyvrm_holds_can_be_restoring():
    assert set(states.sources("hypervisor.state", states.HypervisorState.RESTORING)) == \
        set(states.HYPERVISOR_RESTORABLE) | {states.HypervisorState.RESTORING}


def test_a_refused_move_names_the_field_both_values_and_the_row():
    with pytest.raises(exception.InvalidTransition) as caught:
        states.check_move("event.status", "executing", "generating", "event e-1")
    assert (caught.value.field, caught.value.old, caught.value.new) == ("event.status", "executing", "generating")
    assert str(caught.value) == "event.status of event e-1 cannot move from executing to generating"
    assert isinstance(caught.value, exception.Conflict) and caught.value.code == "invalid_transition"


def test_an_unknown_value_can_become_nothing():
    with pytest.raises(exception.InvalidTransition):
        states.check_move("recommendation.status", "sleeping", "running")
