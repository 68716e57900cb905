"""One process with a simulated region, a KeyVRM engine and the REST API, on the region's clock.

The scenario checks (``keyvrm-sim check``, the ``tests/scenarios`` plugin) run on it:
the engine's local dispatcher runs one MasterFlow per ``cycle()`` on the driven clock (a
wait moves simulated time, not the wall), ``tick()`` runs the leader's housekeeping
between cycles as the engine's tick does (the sweep of lost work when the engine begins
to lead and every 10 simulated minutes, history retention hourly; kept in
``housekept``), the region lives on between cycles
(``advance``), operators act through the real WSGI application (``api``: routing,
validation, policy, the same records a CLI call leaves) and alerts are kept in
``alerts``. Fencing goes through the simulated BMCs, Ceph cluster and Nova
(``EmbeddedRegion.sim_fencers``), so a BMC that refuses reaches HA as in production.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import json
import os
import shutil
import tempfile
from typing import Any, Optional

import webob

from keyvrm.api import app as api_app
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.demo import embedded
from keyvrm.flows import resources as flow_resources

DATABASE_FILE = "keyvrm.sqlite"


def _tmp_root():
    """tmpfs when there is one: the engine commits often and fsyncs cost seconds."""
    return "/dev/shm" if os.path.isdir("/dev/shm") else None


@functools.lru_cache(maxsize=None)
def _migrated_database() -> str:
    """A SQLite file migrated to head once per process: every harness starts from a copy of it."""
    workdir = tempfile.mkdtemp(prefix="keyvrm-schema-", dir=_tmp_root())
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    path = os.path.join(workdir, DATABASE_FILE)
    db = db_api.Database("sqlite:///%s" % path)
    migration.upgrade(db.engine)
    db.dispose()
    return path


@dataclasses.dataclass
class Alert:
    """One alert KeyVRM raised: ``kind`` ``fencing``, ``recommendation``, ``ha`` or ``failover``, its payload, when."""

    kind: str
    payload: dict
    at_s: float


class RecordingNotifier:
    """The notifier of a harness: keeps every alert instead of sending it."""

    def __init__(self, clock):
        self._clock = clock
        self.alerts: list[Alert] = []

    def fencing_error(self, payload: dict) -> None:
        """Keep a fencing alert."""
        self.alerts.append(Alert("fencing", dict(payload), self._clock.time()))

    def recommendation_error(self, payload: dict) -> None:
        """Keep a recommendation alert."""
        self.alerts.append(Alert("recommendation", dict(payload), self._clock.time()))

    def ha_error(self, payload: dict) -> None:
        """Keep an HA error alert (kind ``ha``, payload ``severity`` error)."""
        self.alerts.append(Alert("ha", dict(payload, severity="error"), self._clock.time()))

    def ha_warning(self, payload: dict) -> None:
        """Keep an HA warning alert (kind ``ha``, payload ``severity`` warning)."""
        self.alerts.append(Alert("ha", dict(payload, severity="warning"), self._clock.time()))

    def failover_capacity(self, payload: dict) -> None:
        """Keep a failover-capacity alert (kind ``failover``; ``cleared`` says whether it starts or ends)."""
        self.alerts.append(Alert("failover", dict(payload), self._clock.time()))


@dataclasses.dataclass
class Reply:
    """What the API answered: status code and decoded JSON body (None when empty)."""

    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Harness:
    """A started scenario region with a KeyVRM engine and API over it (see the module docstring).

    ``durable_flows`` keeps TaskFlow's flows in the SQLite database as the engine does in
    production; by default they are kept in memory (five times faster, same flows).
    ``executor``: ``[executor]`` bounds to run with instead of the embedded engine's.
    """

    def __init__(self, region, workdir: Optional[str] = None, durable_flows: bool = False,
                 executor: Optional[dict] = None):
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory(dir=_tmp_root())
            workdir = self._tmp.name
        self.region = region
        database = os.path.join(workdir, DATABASE_FILE)
        if not os.path.exists(database):
            shutil.copyfile(_migrated_database(), database)
        flow_settings = flow_resources.FlowSettings(
            executor=dataclasses.replace(embedded.SIM_EXECUTOR, **(executor or {})))
        self.emb = embedded.EmbeddedRegion(region, "sqlite:///%s" % database, flow_settings=flow_settings,
                                           flows_in_memory=not durable_flows, in_turn=True)
        self.notifier = RecordingNotifier(self.emb.clock)
        self.housekept = []  # [(seconds after the start, keyvrm.engine.housekeeping.Done)]
        self.operator_migrations = set()  # ids of the Nova migrations the operator asked for by hand
        self.emb.notifier = self.notifier
        self.emb.sync_aggregates()
        self._app = api_app.build_app(self.emb.conf, db=self.emb.db, rpc=None)
        self.emb.start_dispatcher()

    @property
    def db(self):
        return self.emb.db

    @property
    def elapsed_s(self) -> float:
        """Simulated seconds since the region started."""
        return self.region.clock.elapsed_s

    @property
    def alerts(self) -> list[Alert]:
        return self.notifier.alerts

    def api(self, method: str, path: str, body: Optional[dict] = None, version: Optional[str] = None) -> Reply:
        """One REST call through the WSGI application, as the embedded admin (``noauth``), at ``version``."""
        request = webob.Request.blank(path, method=method)
        if version is not None:
            request.headers["OpenStack-API-Version"] = "vm-resource-manager %s" % version
        if body is not None:
            request.content_type = "application/json"
            request.body = json.dumps(body).encode()
        response = request.get_response(self._app)
        return Reply(response.status_int, response.json_body if response.body else None)

    def cycle(self, timeout_s: float = 120.0) -> bool:
        """One MasterFlow and every flow it started, to the end; False if they did not finish in time."""
        return self.emb.run_cycle(timeout_s)

    def tick(self, timeout_s: float = 120.0) -> bool:
        """The engine's housekeeping now and every flow its sweep resumed, to the end; False if not in time."""
        self.housekept.append((self.elapsed_s, self.emb.housekeep()))
        return self.emb.wait_idle(timeout_s)

    def advance(self, seconds: float) -> None:
        """Let the region live ``seconds`` of simulated time."""
        self.emb.advance(seconds)

    def close(self) -> None:
        """Stop the engine and remove the database."""
        self.emb.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
