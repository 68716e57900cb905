"""Recommendations with their newest journal line, on SQLite (the PostgreSQL twin is in tests/functional/api)."""

from tests.unit.db import latest_operations


def test_each_recommendation_of_a_page_carries_its_newest_journal_line(sqlite_db):
    latest_operations.check_latest_lines(sqlite_db)


def test_a_page_of_recommendations_with_their_latest_lines_is_one_query_whatever_its_size(sqlite_db):
    latest_operations.check_one_query_per_page(sqlite_db)
