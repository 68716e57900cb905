"""The error classification table, row by row, and what makes two errors the same."""

import pytest

from keyvrm.drivers.errors import CloudError
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import NotFoundInCloud
from keyvrm.executor import classify as c

VM = "00000003-0001-4000-8000-000000000001"


def _call(error):
    return c.call_failure(error)


# One example per row of c.RULES: (failure, row name, class, cleanups).
EXAMPLES = [
    (c.Failure(c.MIGRATION, "live-migration to cmp-2 ended error", migration_status="error",
               leftovers=frozenset({c.INACTIVE_BINDING})),
     "inactive_port_binding", c.RETRY_AFTER_CLEANUP, (c.DELETE_INACTIVE_PORT_BINDINGS,)),
    (c.Failure(c.MIGRATION, "evacuation to cmp-2 ended error", migration_status="error",
               leftovers=frozenset({c.STALE_ATTACHMENT})),
     "stale_volume_attachment", c.RETRY_AFTER_CLEANUP, (c.DELETE_STALE_VOLUME_ATTACHMENTS,)),
    (_call(CloudError(400, "Binding for port port-1 for host cmp-2 already exists.")),
     "port_binding_exists", c.RETRY_AFTER_CLEANUP, (c.DELETE_INACTIVE_PORT_BINDINGS,)),
    (_call(CloudError(400, "Invalid volume: volume vol-1 is still attached to host cmp-2")),
     "volume_still_attached", c.RETRY_AFTER_CLEANUP, (c.DELETE_STALE_VOLUME_ATTACHMENTS,)),
    (c.Failure(c.TARGET_DOWN, "the compute service of the target cmp-2 is down: migration 4 left accepted",
               migration_status="accepted"), "target_down", c.FATAL, ()),
    (c.Failure(c.TIMEOUT, "migration 4 did not end within the migrating timeout (21600 s)"),
     "migration_timeout", c.FATAL, ()),
    (c.Failure(c.OUTCOME, "migration 4 ended done but the VM is on cmp-3"),
     "wrong_host_after_migration", c.FATAL, ()),
    (c.Failure(c.CONFIRM, "migration 4 finished (VM VERIFY_RESIZE on cmp-2) but confirmResize failed: ...",
               status_code=403, migration_status="finished"), "confirm_refused", c.FATAL, ()),
    (_call(CloudError(400, "Compute service of cmp-1 is still in use.", "service_in_use")),
     "source_service_in_use", c.FATAL, ()),
    (_call(CloudError(400, "Compute service of cmp-1 is unavailable at this time.")),
     "source_service_unavailable", c.FATAL, ()),
    (_call(CloudError(400, "The target host can't be the same one.", "same_host")),
     "same_host", c.FATAL, ()),
    (_call(NotFoundInCloud("Instance %s could not be found." % VM)), "not_found", c.FATAL, ()),
    (_call(CloudError(409, "Cannot 'evacuate' instance %s while it is in vm_state "
                           "building" % VM, "vm_state")), "vm_state_forbids", c.FATAL, ()),
    (_call(CloudError(409, "Cannot 'os-migrateLive' instance %s while it is in task_state "
                           "migrating" % VM, "task_state")), "task_state_busy", c.RETRY, ()),
    (_call(CloudError(503, "Service Unavailable")), "api_unavailable", c.RETRY, ()),
    (_call(DriverUnavailable("Nova did not answer in 30 s")), "no_answer", c.RETRY, ()),
    (c.Failure(c.MIGRATION, "live-migration to cmp-2 ended error", migration_status="error"),
     "migration_error", c.RETRY, ()),
    (c.Failure(c.MIGRATION, "live-migration to cmp-2 ended failed", migration_status="failed"),
     "migration_failed", c.RETRY, ()),
    (_call(CloudError(403, "Policy doesn't allow os_compute_api:os-evacuate")), "refused",
     c.FATAL, ()),
    (c.Failure("call", "something odd", status_code=302), "unknown", c.RETRY, ()),
]


@pytest.mark.parametrize("failure,rule,verdict,cleanup", EXAMPLES,
                         ids=[e[1] for e in EXAMPLES])
def test_each_row_of_the_table_classifies_its_example(failure, rule, verdict, cleanup):
    assert c.classify(failure) == c.Verdict(rule, verdict, cleanup)


def test_every_row_of_the_table_has_an_example():
    assert [e[1] for e in EXAMPLES] == [rule.name for rule in c.RULES]


def test_both_leftovers_are_cleaned_up_when_an_attempt_left_both():
    failure = c.Failure(c.MIGRATION, "evacuation to cmp-2 ended failed",
                        migration_status="failed",
                        leftovers=frozenset({c.INACTIVE_BINDING, c.STALE_ATTACHMENT}))
    verdict = c.classify(failure)
    assert verdict.rule == "inactive_port_binding"
    assert verdict.cleanup == (c.DELETE_INACTIVE_PORT_BINDINGS,
                               c.DELETE_STALE_VOLUME_ATTACHMENTS)


def test_errors_differing_only_in_ids_and_numbers_are_the_same_error():
    one = c.error_key("migration_error", "live-migration to cmp-00002 ended error (migration 4)")
    two = c.error_key("migration_error", "live-migration to cmp-00003 ended error (migration 9)")
    assert one == two
    assert c.error_key("not_found", "Instance %s could not be found." % VM) == \
        c.error_key("not_found", "Instance 11111111-2222-3333-4444-555555555555 could not be found.")
    assert one != c.error_key("migration_failed", "live-migration to cmp-00002 ended error")
