"""Migration 0012 gives every aggregate the LB level whose thresholds it had: 3, the default."""

import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.model import settings
from keyvrm.model import snapshot as m


def _seed_at_0011(engine):
    migration.upgrade(engine, "0011")
    with engine.begin() as connection:
        for name, threshold in (("agg-default", 80.0), ("agg-tuned", 85.0)):
            connection.execute(sa.text(
                "INSERT INTO aggregate_config (name, marker, no_op_mode, lb_period, lb_weights,"
                " lb_overload_threshold, lb_target_max_load, lb_ceilings, ha_failover_reserve, failover_short,"
                " deleted, created_at, updated_at) VALUES (:name, 'LB', 0, 600, :weights, :threshold, 70.0,"
                " :ceilings, 1, 0, 0, '2026-12-05 10:00:00', '2026-12-05 10:00:00')"),
                {"name": name, "threshold": threshold, "weights": '{"cpu": 1.0, "ram": 1.0, "net": 0.5}',
                 "ceilings": '{"cpu": 85.0, "ram": 95.0, "net": 90.0, "hugepages": null}'})


def test_existing_aggregates_get_level_3_and_a_tuned_threshold_shows_as_overridden(tmp_path):
    db = db_api.Database("sqlite:///%s/lb_level.sqlite" % tmp_path)
    try:
        _seed_at_0011(db.engine)
        migration.upgrade(db.engine)
        default, tuned = (db_api.get_aggregate_config(db, name) for name in ("agg-default", "agg-tuned"))
        assert (default.lb_level, tuned.lb_level) == (settings.DEFAULT_LB_LEVEL, 3)
        assert default.lb_level_overridden == () and tuned.lb_level_overridden == ("lb_overload_threshold",)
        with db.engine.begin() as connection:  # not null from now on
            nullable = {c["name"]: c["nullable"] for c in sa.inspect(connection).get_columns("aggregate_config")}
        assert nullable["lb_level"] is False
    finally:
        db.dispose()


def test_an_aggregate_new_after_the_migration_starts_at_the_default_level(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [m.Aggregate("agg-new", 1, None, "az1")])
    config = db_api.get_aggregate_config(sqlite_db, "agg-new")
    assert config.lb_level == settings.DEFAULT_LB_LEVEL and config.lb_level_overridden == ()
