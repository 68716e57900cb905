"""claim_hypervisor: one HA event owns a condemned host; a re-run of that event keeps it."""

from keyvrm.db import api as db_api


def _event(db):
    return db_api.create_event(db, "agg-1", "HA", "HA")


def test_the_first_event_claims_a_host_and_a_second_is_refused(sqlite_db):
    first, second = _event(sqlite_db), _event(sqlite_db)
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", first) is True
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", second) is False
    state = db_api.get_hypervisor_state(sqlite_db, "cmp-1")
    assert state["state"] == "fencing"


def test_the_same_event_claims_its_host_again_after_a_crash(sqlite_db):
    event = _event(sqlite_db)
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", event)
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", event)


def test_a_host_given_its_outcome_is_not_claimed_until_it_is_back_in_service(sqlite_db):
    first, second, third = _event(sqlite_db), _event(sqlite_db), _event(sqlite_db)
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", first)
    db_api.set_hypervisor_state(sqlite_db, "cmp-1", "fenced", fencing=[{"fencer": "ipmi", "confirmed": True}],
                                event_id=first)
    db_api.set_hypervisor_state(sqlite_db, "cmp-1", "evacuating", event_id=first)
    db_api.set_hypervisor_state(sqlite_db, "cmp-1", "maintenance", event_id=first)
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", second) is False
    db_api.set_hypervisor_state(sqlite_db, "cmp-1", "ok")  # an operator returned it to service
    assert db_api.claim_hypervisor(sqlite_db, "cmp-1", third) is True
