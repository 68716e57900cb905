"""A generic live-migration failure is a migration failure, never a port-binding leftover."""

import pytest

from keyvrm.executor import classify as c

GENERIC = "Live migration failed: libvirt error: operation failed: migration job: unexpectedly failed"


@pytest.mark.parametrize("status,rule", [("failed", "migration_failed"), ("error", "migration_error")])
def test_a_generic_libvirt_failure_with_nothing_left_behind_is_a_plain_retry(status, rule):
    failure = c.Failure(c.MIGRATION, GENERIC, migration_status=status)
    assert c.classify(failure) == c.Verdict(rule, c.RETRY, ())


def test_the_failure_text_alone_never_asks_for_a_port_binding_cleanup():
    for origin in (c.MIGRATION, c.CALL):
        verdict = c.classify(c.Failure(origin, GENERIC, status_code=None, migration_status="failed"))
        assert verdict.rule != "inactive_port_binding"
        assert c.DELETE_INACTIVE_PORT_BINDINGS not in verdict.cleanup


def test_only_an_inactive_binding_found_on_the_target_means_inactive_port_binding():
    failure = c.Failure(c.MIGRATION, GENERIC, migration_status="failed", leftovers=frozenset({c.INACTIVE_BINDING}))
    assert c.classify(failure) == c.Verdict("inactive_port_binding", c.RETRY_AFTER_CLEANUP,
                                            (c.DELETE_INACTIVE_PORT_BINDINGS,))
