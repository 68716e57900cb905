"""Migration 0013 gives every aggregate what LB did before: act on the first overloaded run, 2-point gain."""

import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.model import settings


def test_existing_aggregates_act_on_the_first_run_with_the_2_point_gain(tmp_path):
    db = db_api.Database("sqlite:///%s/lb_persistence.sqlite" % tmp_path)
    try:
        migration.upgrade(db.engine, "0012")
        with db.engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO aggregate_config (name, marker, no_op_mode, lb_period, lb_weights,"
                " lb_overload_threshold, lb_target_max_load, lb_ceilings, ha_failover_reserve, failover_short,"
                " deleted, created_at, updated_at, lb_level) VALUES ('agg-old', 'LB', 0, 600,"
                " '{\"cpu\": 1.0}', 80.0, 70.0, '{\"cpu\": 85.0}', 1, 0, 0, '2026-12-05 10:00:00',"
                " '2026-12-05 10:00:00', 3)"))
        migration.upgrade(db.engine)
        config = db_api.get_aggregate_config(db, "agg-old")
        assert (config.lb_persistence, config.lb_min_gain) == (1, 2.0)
        assert (settings.DEFAULT_LB_PERSISTENCE, settings.DEFAULT_LB_MIN_GAIN) == (1, 2.0)
        with db.engine.begin() as connection:
            nullable = {c["name"]: c["nullable"] for c in sa.inspect(connection).get_columns("aggregate_config")}
        assert nullable["lb_persistence"] is False and nullable["lb_min_gain"] is False
    finally:
        db.dispose()
