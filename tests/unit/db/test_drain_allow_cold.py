"""A drain's allow_cold: kept on the host's row for the engine, off unless asked, reset by the next drain."""

import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import migration
from tests.unit.api import seed


def _draining(db):
    return {host: (reason, allow_cold) for host, _, reason, _, allow_cold in db_api.list_hypervisors_draining(db)}


def test_the_engine_reads_whether_a_drain_may_go_cold_and_a_later_drain_without_it_may_not(sqlite_db):
    seed.seed(sqlite_db)  # cmp-2 is ok
    db_api.request_hypervisor_drain(sqlite_db, "cmp-2", "CHG-30", "ada", allow_cold=True)
    assert _draining(sqlite_db) == {"cmp-2": ("drain requested by ada (cold migration allowed): CHG-30", True)}
    db_api.request_hypervisor_restore(sqlite_db, "cmp-2", "ada")
    db_api.complete_hypervisor_restore(sqlite_db, "cmp-2", "back")
    db_api.request_hypervisor_drain(sqlite_db, "cmp-2", "CHG-31", "bob")
    assert _draining(sqlite_db) == {"cmp-2": ("drain requested by bob: CHG-31", False)}
    audit = [(a["field"], a["new_value"], a["changed_by"]) for a in db_api.list_config_audit(
        sqlite_db, scope="hypervisor", target="cmp-2")]
    assert sorted(audit) == sorted([("state", "draining", "ada"), ("drain_allow_cold", True, "ada"),
                                    ("state", "restoring", "ada"), ("state", "draining", "bob")])


def test_migration_0015_leaves_the_hosts_kept_before_it_without_cold_migration(tmp_path):
    db = db_api.Database("sqlite:///%s/allow_cold.sqlite" % tmp_path)
    try:
        migration.upgrade(db.engine, "0014")
        with db.engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO hypervisor_state (host, state, reason, failback_pending, updated_at) VALUES"
                " ('cmp-old', 'draining', 'drain requested by ada: CHG-1', 0, '2026-12-05 10:00:00')"))
        migration.upgrade(db.engine)
        assert db_api.list_hypervisors_draining(db) == [("cmp-old", "draining", "drain requested by ada: CHG-1",
                                                         None, False)]
    finally:
        db.dispose()
