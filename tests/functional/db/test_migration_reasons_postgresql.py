"""Migration 0008 on PostgreSQL: reason text becomes the list of entries, as on SQLite."""

from tests.unit.db import test_migration_reasons


def test_reason_text_becomes_entries_on_postgresql(pg_databases):
    test_migration_reasons.check_conversion(pg_databases())
