"""Restore of a draining host on PostgreSQL, the production database: one transaction cancels what has not started."""

from tests.unit.db import drain_cancel


def test_restoring_a_draining_host_cancels_only_the_moves_that_have_not_started(pg_db):
    drain_cancel.check_restore_cancels_unstarted_drain_moves(pg_db)
