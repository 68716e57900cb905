"""Failback's history of KeyVRM's moves off a host, on SQLite (the PostgreSQL twin is in tests/functional/db)."""

from tests.unit.db import moves_history


def test_only_the_vms_drains_and_ha_moved_off_the_host_and_left_there_count(sqlite_db):
    moves_history.check_moved_off(sqlite_db)
