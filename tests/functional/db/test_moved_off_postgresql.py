"""Failback's history of KeyVRM's moves off a host on PostgreSQL, the production database."""

from tests.unit.db import moves_history


def test_only_the_vms_drains_and_ha_moved_off_the_host_and_left_there_count(pg_db):
    moves_history.check_moved_off(pg_db)
