"""Restore of a draining host on SQLite (the PostgreSQL twin is in tests/functional/db)."""

from tests.unit.db import drain_cancel


def test_restoring_a_draining_host_cancels_only_the_moves_that_have_not_started(sqlite_db):
    drain_cancel.check_restore_cancels_unstarted_drain_moves(sqlite_db)
