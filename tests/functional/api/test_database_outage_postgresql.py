"""PostgreSQL going away under the API: 503 with Retry-After while it is gone, one log line, then back by itself.

The database is on a PostgreSQL cluster of the test's own, which it stops (every session
cut) and starts again; the machine's server is never touched.
"""

import logging

import pytest
import sqlalchemy as sa
import webob

from keyvrm.db import api as db_api
from keyvrm.db import availability
from keyvrm.db import migration
from tests.unit.api import hostile
from tests.unit.api import seed
from tests.unit.api import test_hostile_input


@pytest.fixture
def seeded_private_pg(private_pg):
    """The private cluster with a migrated, seeded KeyVRM database; (cluster, its URL)."""
    url = private_pg.create_database("keyvrm")
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    seed.seed(db)
    db.dispose()
    return private_pg, url


def _statuses(app, paths):
    return [webob.Request.blank(p).get_response(app) for p in paths]


def test_api_answers_503_during_an_outage_logs_once_and_recovers(seeded_private_pg, caplog):
    cluster, url = seeded_private_pg
    db = db_api.Database(url)
    app = seed.make_app(db)
    # No serial ids: the run's tests share PostgreSQL sequences, so the seeded cycle is not always 1.
    paths = ["/v1/events", "/v1/config", "/v1/cycles", "/v1/recommendations/rec-done"] * 5
    assert {r.status_int for r in _statuses(app, paths)} == {200}
    caplog.set_level(logging.INFO)

    cluster.stop("fast")
    refused = _statuses(app, paths)
    assert {r.status_int for r in refused} == {503}, [r.text for r in refused if r.status_int != 503]
    assert {r.headers["Retry-After"] for r in refused} == {"5"}  # [api] retry_after
    assert {r.json["errors"][0]["code"] for r in refused} == {"keyvrm.database_unavailable"}
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in warnings] == ["keyvrm.api.outage"], [r.getMessage() for r in warnings]
    assert warnings[0].exc_info is None and "\n" not in warnings[0].getMessage()

    cluster.start()
    assert {r.status_int for r in _statuses(app, paths)} == {200}
    ended = [r.getMessage() for r in caplog.records if r.name == "keyvrm.api.outage"][-1]
    assert ended.startswith("database available again after")
    assert "Traceback" not in caplog.text
    db.dispose()


def test_a_cancelled_statement_is_not_an_outage(pg_db):
    with pytest.raises(Exception) as raised:
        with pg_db.engine.connect() as conn:
            conn.execute(sa.text("SET statement_timeout = 1"))
            conn.execute(sa.text("SELECT pg_sleep(1)"))
    assert "statement timeout" in str(raised.value)
    assert not availability.is_database_unavailable(raised.value)


@pytest.mark.parametrize("case", hostile.all_cases(), ids=lambda case: case.name)
def test_hostile_input_is_refused_naming_its_field_on_postgresql(pg_db, case):
    seed.seed(pg_db)
    test_hostile_input.assert_refused_naming(case.send(seed.make_app(pg_db)), case.field)
