"""Why a migration failed, read from Nova's instance actions (os-instance-actions at 2.84)."""

from keyvrm.drivers.cloud import openstack_parse as parse

# os-instance-actions, newest first, as Nova 34 lists them for a server evacuated twice
ACTIONS = [
    {"action": "evacuate", "request_id": "req-new", "start_time": "2026-12-05T08:43:20.100000", "message": None},
    {"action": "evacuate", "request_id": "req-refused", "start_time": "2026-12-05T08:42:58.552371",
     "message": "Error"},
    {"action": "live-migration", "request_id": "req-live", "start_time": "2026-12-05T08:42:56.358274",
     "message": "Error"},
    {"action": "create", "request_id": "req-boot", "start_time": "2026-12-05T08:42:55.966339", "message": None},
]


def test_the_action_that_made_a_record_is_the_newest_of_its_kind_begun_by_then():
    refused_record_made = parse.posix("2026-12-05T08:42:58.596195")
    assert parse.action_of(ACTIONS, "evacuate", refused_record_made)["request_id"] == "req-refused"
    assert parse.action_of(ACTIONS, "live-migration", refused_record_made)["request_id"] == "req-live"
    assert parse.action_of(ACTIONS, "evacuate", None)["request_id"] == "req-new"
    assert parse.action_of(ACTIONS, "evacuate", parse.posix("2026-12-05T08:40:00")) is None


def test_the_fault_is_the_details_of_the_failed_event_without_nova_s_trailing_space():
    body = {"action": "evacuate", "events": [
        {"event": "rebuild_server", "result": "Error", "details": "No valid host was found. "}]}
    assert parse.action_fault(body) == "No valid host was found."
    assert parse.action_fault({"events": [{"event": "rebuild_server", "result": "Success"}]}) is None
    assert parse.action_fault({"events": [{"event": "rebuild_server", "result": "Error"}]}) is None
