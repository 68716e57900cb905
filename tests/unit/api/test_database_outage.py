"""An unreachable database is a 503 with Retry-After, logged once per outage without a traceback."""

import logging
import shutil

import jsonschema
from oslo_db import exception as db_exception
import pytest
import sqlalchemy as sa
import webob

from keyvrm.api import openapi
from keyvrm.api import outage
from keyvrm.db import api as db_api
from keyvrm.db import availability
from keyvrm.db import migration
from tests.unit.api import seed

READS = ("/v1/events", "/v1/config", "/v1/cycles/1", "/v1/aggregates/agg-a", "/v1/recommendations")


def _keyvrm_records(caplog):
    return [r for r in caplog.records if r.name.startswith("keyvrm") and r.levelno >= logging.WARNING]


def assert_each_refused_and_logged_once(app, caplog, retry_after="5"):
    caplog.set_level(logging.DEBUG)
    for _ in range(4):
        for path in READS:
            response = webob.Request.blank(path).get_response(app)
            assert response.status_int == 503, (path, response.text)
            assert response.headers["Retry-After"] == retry_after
            jsonschema.validate(response.json, openapi.document()["components"]["schemas"]["Error"])
            assert response.json["errors"][0]["code"] == "keyvrm.database_unavailable"
    logged = _keyvrm_records(caplog)
    assert len(logged) == 1, [r.getMessage() for r in logged]
    assert logged[0].levelno == logging.WARNING
    assert logged[0].exc_info is None
    assert "\n" not in logged[0].getMessage()
    assert "Traceback" not in caplog.text


def test_postgresql_on_a_closed_port_is_a_503_logged_once(caplog):
    db = db_api.Database("postgresql+psycopg2://postgres@127.0.0.1:1/keyvrm")
    assert_each_refused_and_logged_once(seed.make_app(db), caplog)


def test_sqlite_file_in_a_removed_directory_is_a_503_logged_once(tmp_path, caplog):
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    db = db_api.Database("sqlite:///%s/keyvrm.sqlite" % state_dir)
    migration.upgrade(db.engine)
    seed.seed(db)
    app = seed.make_app(db)
    assert webob.Request.blank("/v1/events").get_response(app).status_int == 200
    shutil.rmtree(state_dir)
    db.dispose()  # pooled connections keep the unlinked file open; new ones cannot open it
    assert_each_refused_and_logged_once(app, caplog)


def test_retry_after_is_the_configured_seconds(caplog):
    db = db_api.Database("postgresql+psycopg2://postgres@127.0.0.1:1/keyvrm")
    app = seed.make_app(db, overrides={("api", "retry_after"): 30})
    assert_each_refused_and_logged_once(app, caplog, retry_after="30")


def test_version_discovery_answers_while_the_database_is_down():
    app = seed.make_app(db_api.Database("postgresql+psycopg2://postgres@127.0.0.1:1/keyvrm"))
    assert webob.Request.blank("/v1").get_response(app).status_int == 200


def test_a_statement_error_is_not_an_outage(sqlite_db):
    with pytest.raises(db_exception.DBError) as raised:  # oslo.db's DBNonExistentTable
        with sqlite_db.reader() as session:
            session.execute(sa.text("SELECT * FROM no_such_table"))
    assert not availability.is_database_unavailable(raised.value)
    assert not availability.is_database_unavailable(ValueError("no database involved"))


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _refusal():
    engine = sa.create_engine("postgresql+psycopg2://postgres@127.0.0.1:1/keyvrm")
    try:
        with engine.connect():
            pass
    except sa.exc.OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("port 1 accepted a connection")


def test_a_long_outage_is_reminded_once_a_minute_and_its_end_logged(caplog):
    caplog.set_level(logging.INFO, logger="keyvrm.api.outage")
    clock, exc = _Clock(), _refusal()
    log = outage.OutageLog(5, clock)
    for _ in range(150):  # one refusal a second for 150 s
        log.refused(exc, "req-x")
        clock.now += 1.0
    log.served()
    log.served()
    messages = [r.getMessage() for r in caplog.records if r.name == "keyvrm.api.outage"]
    assert len(messages) == 4, messages
    assert messages[0].startswith("database unavailable")
    assert messages[1].startswith("database still unavailable after 60 s, 61 requests refused")
    assert messages[2].startswith("database still unavailable after 120 s, 121 requests refused")
    assert messages[3] == "database available again after 150.0 s; 150 requests were refused"
    log.refused(exc, "req-y")
    assert caplog.records[-1].getMessage().startswith("database unavailable"), "a new outage is logged anew"
