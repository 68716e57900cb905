"""A first deployment: changing an aggregate before KeyVRM's first cycle says how aggregates appear."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.unit.api import seed

ENABLE = "enable KeyVRM (openstack keyvrm config set --enabled true"


def _refusal(db, name):
    with pytest.raises(exception.NotFound) as raised:
        db_api.update_aggregate_config(db, name, {"marker": "HA"}, "ada")
    return str(raised.value)


def test_before_the_first_cycle_an_unknown_aggregate_says_to_run_one(sqlite_db):
    db_api.update_app_config(sqlite_db, {"enabled": True}, "ada")
    message = _refusal(sqlite_db, "agg-1")
    assert "learns the aggregates from Nova at its first cycle" in message
    assert "run one now (openstack keyvrm cycle run, POST /v1/cycles)" in message and ENABLE not in message


def test_before_the_first_cycle_with_keyvrm_disabled_it_says_to_enable_it_first(sqlite_db):
    message = _refusal(sqlite_db, "agg-1")
    assert ENABLE in message and message.index(ENABLE) < message.index("openstack keyvrm cycle run")


def test_after_a_cycle_an_unknown_aggregate_is_just_unknown(sqlite_db):
    seed.seed(sqlite_db)
    assert _refusal(sqlite_db, "agg-nope") == "aggregate 'agg-nope' is not known to KeyVRM"
