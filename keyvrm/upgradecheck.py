"""``keyvrm-status upgrade check``: is this deployment ready to run (oslo.upgradecheck)?

Checks, each Success, Warning or Failure with what to do:

* **Database schema** is at the revision this code ships (else ``keyvrm-manage db sync``);
  a ``[database] connection`` that cannot be opened (its Python driver missing) is a failure
  naming the package.
* **No other automatic evacuation or balancing**: the operator guide forbids running
  KeyVRM beside Masakari's ``instance-ha`` or Watcher's ``resource-optimization`` service;
  either in the Keystone catalog is a warning (an unreadable catalog too).
* **Fencing for HA aggregates**: when any aggregate runs HA, at least one fencer is
  enabled in the business config (``ha_fence_bmc``, ``ha_fence_ceph``, ``ha_fence_nova``).
* **Storage mode of HA aggregates** is declared (HA waits on an undeclared one).
* **Failover reserve of HA aggregates**: the last cycle found none whose failover
  tolerance is below its ``ha_failover_reserve`` (a warning names those that are).
* **Metrics source** and **heartbeat source** answer (``[metrics]``, ``[heartbeat]``).
"""

from __future__ import annotations

from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.db import session as db_session
from keyvrm import exception

Code = upgradecheck.Code
Result = upgradecheck.Result
# Service types of the automatic HA and optimisation services KeyVRM must not run beside.
RIVAL_SERVICES = {"instance-ha": "Masakari", "resource-optimization": "Watcher"}


def _catalog_service_types(conf) -> set:
    """Service types in the Keystone catalog the [cloud] credentials see; LookupError without a Keystone."""
    from keyvrm.drivers.cloud import openstack as openstack_driver
    connection = openstack_driver.connection_from_conf(conf)
    auth = connection.session.auth
    if auth is None or not hasattr(auth, "get_access"):
        # no Keystone (noauth endpoints, a token-less plugin): there is no catalog to read
        raise LookupError("the [cloud] credentials reach no Keystone (auth plugin %s), so there is no catalog to"
                          " read: with [cloud] auth_type = password and its options this check looks for rival"
                          " services" % (type(auth).__name__ if auth is not None else "none"))
    access = auth.get_access(connection.session)
    return {entry.get("type") for entry in access.service_catalog.catalog}


def _metrics_driver(conf):
    from keyvrm.drivers.metrics import prometheus
    return prometheus.PrometheusMetricsDriver.from_conf(conf)


def _heartbeat_driver(conf):
    from keyvrm.drivers.heartbeat import sentinel
    return sentinel.SentinelHeartbeatDriver.from_conf(conf)


class Checks(upgradecheck.UpgradeCommands):
    """KeyVRM's upgrade checks; the catalog and the two sources can be replaced (tests)."""

    def __init__(self, conf, catalog_types=_catalog_service_types, metrics=_metrics_driver,
                 heartbeat=_heartbeat_driver):
        super().__init__()
        self.conf = conf
        self._catalog_types = catalog_types
        self._metrics = metrics
        self._heartbeat = heartbeat
        self._db = None

    @property
    def db(self):
        if self._db is None:
            self._db = db_session.database_from_conf(self.conf)
        return self._db

    def _revision(self):
        """(the database's revision, None), or (None, the InvalidField that keeps it shut: a missing driver)."""
        try:
            return migration.current_revision(self.db.engine), None
        except exception.InvalidField as exc:
            return None, exc

    def _schema_is_current(self) -> bool:
        current, error = self._revision()
        return error is None and current == migration.head_revision()

    def _not_checked(self):
        return Result(Code.WARNING, "not checked: the database is not open at the current schema (see Database "
                                    "schema)")

    def _schema(self):
        (current, error), head = self._revision(), migration.head_revision()
        if error is not None:
            return Result(Code.FAILURE, "invalid %s" % error)
        if current == head:
            return Result(Code.SUCCESS, "at revision %s" % head)
        return Result(Code.FAILURE, "the database is at revision %s, this code needs %s: run keyvrm-manage "
                                    "db sync" % (current or "none (empty)", head))

    def _ha_aggregates(self):
        return [record.config for record in db_api.list_aggregates(self.db) if record.config.runs_ha]

    def _rivals(self):
        try:
            types = self._catalog_types(self.conf)
        except LookupError as exc:  # no Keystone to ask
            return Result(Code.WARNING, "not checked: %s" % exc)
        except Exception as exc:  # any auth or connection failure: reported, never fatal
            return Result(Code.WARNING, "could not read the Keystone catalog with the [cloud] credentials: %s"
                                        % exc)
        found = sorted("%s (%s)" % (RIVAL_SERVICES[t], t) for t in types if t in RIVAL_SERVICES)
        if found:
            return Result(Code.WARNING, "%s in the catalog: run only one automatic evacuation and balancing "
                                        "service per region (disable it, or keep its aggregates NOOP in "
                                        "KeyVRM)" % " and ".join(found))
        return Result(Code.SUCCESS, None)

    def _fencers(self):
        if not self._schema_is_current():
            return self._not_checked()
        ha = self._ha_aggregates()
        if not ha:
            return Result(Code.SUCCESS, "no aggregate runs HA")
        app = db_api.get_app_config(self.db)
        enabled = [name for name in ("bmc", "ceph", "nova") if getattr(app, "ha_fence_" + name)]
        if enabled:
            return Result(Code.SUCCESS, "fencers enabled: %s" % ", ".join(enabled))
        return Result(Code.FAILURE, "aggregates %s run HA but no fencer is enabled: HA will fence nothing and "
                                    "evacuate nothing (set ha_fence_nova, ha_fence_bmc or ha_fence_ceph)"
                                    % ", ".join(sorted(a.name for a in ha)))

    def _storage_modes(self):
        if not self._schema_is_current():
            return self._not_checked()
        undeclared = sorted(a.name for a in self._ha_aggregates() if not a.storage_mode)
        if undeclared:
            return Result(Code.WARNING, "HA waits on aggregates %s until their storage_mode is declared "
                                        "(openstack keyvrm aggregate set NAME --storage-mode shared|local|none)"
                                        % ", ".join(undeclared))
        return Result(Code.SUCCESS, None)

    def _failover_reserves(self):
        if not self._schema_is_current():
            return self._not_checked()
        short = sorted((record.config.name, record.config.ha_failover_reserve)
                       for record in db_api.list_aggregates(self.db)
                       if record.config.runs_ha and record.failover_short)
        if short:
            return Result(Code.WARNING, "aggregates %s cannot absorb as many host failures as their failover "
                                        "reserve asks: HA would leave VMs without a target (openstack keyvrm "
                                        "aggregate failover NAME shows which)"
                          % ", ".join("%s (reserve %d)" % found for found in short))
        return Result(Code.SUCCESS, None)

    @staticmethod
    def _source(what, read, empty):
        """Failure if ``read`` raises, ``empty`` (a warning) if it finds no hypervisor, else how many."""
        try:
            found = read()
        except Exception as exc:  # any driver error: the source does not answer
            return Result(Code.FAILURE, "the %s source did not answer: %s" % (what, exc))
        if not found:
            return Result(Code.WARNING, empty)
        return Result(Code.SUCCESS, "%s for %d hypervisors" % (what, len(found)))

    def _metrics_source(self):
        return self._source("metrics", lambda: self._metrics(self.conf).host_metrics(),
                            "the metrics source answered with no hypervisor: LB will find no load")

    def _heartbeat_source(self):
        return self._source("heartbeat", lambda: self._heartbeat(self.conf).last_heartbeats(),
                            "no heartbeat recorded yet: is keyvrm-heartbeat-agent running on the computes?")

    def _policy_file(self):
        return common_checks.check_policy_json(self, self.conf)

    _upgrade_checks = (
        ("Database schema", _schema),
        ("No other automatic evacuation or balancing", _rivals),
        ("Fencing for HA aggregates", _fencers),
        ("Storage mode of HA aggregates", _storage_modes),
        ("Failover reserve of HA aggregates", _failover_reserves),
        ("Metrics source", _metrics_source),
        ("Heartbeat source", _heartbeat_source),
        ("Policy file in YAML", _policy_file),
    )
