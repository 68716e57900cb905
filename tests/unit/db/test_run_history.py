"""LB run history for lb_persistence on SQLite (the PostgreSQL twin is in tests/functional/db)."""

from tests.unit.db import run_history


def test_recent_runs_name_their_overloaded_hosts_newest_first_skipping_runs_that_did_not_happen(sqlite_db):
    run_history.check_history(sqlite_db)
