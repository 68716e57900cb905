"""Other runs' work on fenced hosts, read in one statement, on PostgreSQL (the production database)."""

from tests.unit.db import work_on_hosts


def test_work_on_fenced_hosts_counts_either_end_and_the_aggregates_evacuations_not_the_runs_own(pg_db):
    work_on_hosts.check_work_touching_hosts(pg_db)
