"""The API's paged reads and recorded requests on PostgreSQL (the production database)."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.unit.api import seed
from tests.unit.db import latest_operations


def test_pages_chain_without_gaps_or_repeats(pg_db):
    seed.seed(pg_db)
    first = db_api.page_events(pg_db, 2)
    second = db_api.page_events(pg_db, 2, marker=first[-1]["id"])
    assert [e["id"] for e in first + second] == ["ev-3", "ev-2", "ev-1"]
    names = [a["name"] for a in db_api.page_aggregates(pg_db, 1, marker="agg-a")]
    assert names == ["agg-b"]
    with pytest.raises(exception.InvalidField) as raised:
        db_api.page_recommendations(pg_db, 5, marker="nope")
    assert raised.value.field == "marker"


def test_aggregates_carry_their_newest_event(pg_db):
    seed.seed(pg_db)
    by_name = {a["name"]: a for a in db_api.page_aggregates(pg_db, 10)}
    assert by_name["agg-a"]["last_event"]["id"] == "ev-3"
    assert by_name["agg-b"]["last_event"]["id"] == "ev-2"
    assert by_name["agg-c"]["last_event"] is None
    assert db_api.get_aggregate_summary(pg_db, "agg-a")["current_event"]["id"] == "ev-3"


def test_a_requested_cycle_is_claimed_once(pg_db):
    seed.seed(pg_db)
    requested = db_api.request_cycle(pg_db, "ada@system")
    assert db_api.claim_requested_cycle(pg_db) == requested
    assert db_api.claim_requested_cycle(pg_db) is None
    assert db_api.get_cycle_summary(pg_db, requested)["status"] == "running"


def test_run_request_moves_only_a_manual_recommendation(pg_db):
    seed.seed(pg_db)
    assert db_api.request_recommendation_run(pg_db, "rec-manual", "ada")["status"] == "created"
    with pytest.raises(exception.Conflict):
        db_api.request_recommendation_run(pg_db, "rec-manual", "ada")
    kinds = [op["kind"] for op in db_api.list_recommendation_operations(pg_db, "rec-manual")]
    assert kinds == ["start"]


def test_each_recommendation_of_a_page_carries_its_newest_journal_line(pg_db):
    latest_operations.check_latest_lines(pg_db)


def test_a_page_of_recommendations_with_their_latest_lines_is_one_query_whatever_its_size(pg_db):
    latest_operations.check_one_query_per_page(pg_db)
