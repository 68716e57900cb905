"""Other runs' work on fenced hosts, read in one statement (SQLite; PostgreSQL in tests/functional/db)."""

from tests.unit.db import work_on_hosts


def test_work_on_fenced_hosts_counts_either_end_and_the_aggregates_evacuations_not_the_runs_own(sqlite_db):
    work_on_hosts.check_work_touching_hosts(sqlite_db)
