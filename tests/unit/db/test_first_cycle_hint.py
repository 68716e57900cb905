"""A first deployment: changing an aggregate before KeyVRM's first cycle says how aggregates appear."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.unit.api import seed


def test_before_the_first_cycle_an_unknown_aggregate_says_to_run_one(sqlite_db):
    with pytest.raises(exception.NotFound) as raised:
        db_api.update_aggregate_config(sqlite_db, "agg-1", {"marker": "HA"}, "ada")
    assert "learns the aggregates from Nova at its first cycle" in str(raised.value)
    assert "openstack keyvrm cycle run" in str(raised.value)


def test_after_a_cycle_an_unknown_aggregate_is_just_unknown(sqlite_db):
    seed.seed(sqlite_db)
    with pytest.raises(exception.NotFound) as raised:
        db_api.update_aggregate_config(sqlite_db, "agg-nope", {"marker": "HA"}, "ada")
    assert str(raised.value) == "aggregate 'agg-nope' is not known to KeyVRM"
