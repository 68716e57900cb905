"""PostgreSQL going away under the API: 503 with Retry-After while it is gone, one log line, then back by itself.

The outage is a TCP proxy between the API and the run's PostgreSQL server that the test
closes (dropping every connection) and opens again; the server itself is never touched.
"""

import logging
import socket
import threading

import pytest
import sqlalchemy as sa
import webob

from keyvrm.api import outage
from keyvrm.db import api as db_api
from keyvrm.db import availability
from tests.unit.api import hostile
from tests.unit.api import seed
from tests.unit.api import test_hostile_input


class _Proxy:
    """Forwards 127.0.0.1:<port> to ``upstream``; ``close()`` is an outage, ``open()`` the recovery."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.port = 0
        self._sockets = []
        self._lock = threading.Lock()
        self._listener = None

    def open(self):
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", self.port))
        self._listener.listen(16)
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def close(self):
        with self._lock:
            for sock in [self._listener] + self._sockets:  # shutdown wakes a blocked accept(), close alone does not
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self._sockets.clear()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            with self._lock:
                self._sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def proxied_pg_url(pg_db):
    seed.seed(pg_db)
    url = sa.engine.make_url(pg_db.url)
    proxy = _Proxy((url.host, url.port or 5432))
    proxy.open()
    yield proxy, url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    proxy.close()


def _statuses(app, paths):
    return [webob.Request.blank(p).get_response(app) for p in paths]


def test_api_answers_503_during_an_outage_logs_once_and_recovers(proxied_pg_url, caplog):
    proxy, url = proxied_pg_url
    db = db_api.Database(url)
    app = seed.make_app(db)
    # No serial ids: the run's tests share PostgreSQL sequences, so the seeded cycle is not always 1.
    paths = ["/v1/events", "/v1/config", "/v1/cycles", "/v1/recommendations/rec-done"] * 5
    assert {r.status_int for r in _statuses(app, paths)} == {200}
    caplog.set_level(logging.INFO)

    proxy.close()
    refused = _statuses(app, paths)
    assert {r.status_int for r in refused} == {503}, [r.text for r in refused if r.status_int != 503]
    assert {r.headers["Retry-After"] for r in refused} == {str(outage.RETRY_AFTER_S)}
    assert {r.json["errors"][0]["code"] for r in refused} == {"keyvrm.database_unavailable"}
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in warnings] == ["keyvrm.api.outage"], [r.getMessage() for r in warnings]
    assert warnings[0].exc_info is None and "\n" not in warnings[0].getMessage()

    proxy.open()
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
