"""The embedded default in one process: a simulated region, SQLite, and a KeyVRM engine acting on it.

``EmbeddedRegion`` wires the sim drivers, a ``SimTimeClock``, the fencers the business
config enables over the simulated BMCs, Ceph cluster and Nova, the TaskFlow persistence
in the same database and an engine (``keyvrm.engine.service.Engine`` over a
``LocalDispatcher``, in-process messaging).
Tests drive it cycle by cycle with the engine's dispatcher and persistence alone
(``start_dispatcher``, ``run_cycle``, and the leader's housekeeping between cycles with
``housekeep``: the sweep and history retention when due on the region's clock; the clock
advanced by the waits and ``advance``); the demo starts the whole engine (``start_engine``:
its schedule on the region's clock, which a ``RealTimeRunner`` moves).
"""

from __future__ import annotations

import dataclasses

from oslo_config import cfg
import oslo_messaging

from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.engine import dispatch
from keyvrm.engine import housekeeping
from keyvrm.engine import persistence
from keyvrm.engine import service
from keyvrm.executor import settings as executor_settings
from keyvrm.fencing import blocklist
from keyvrm.fencing import factory
from keyvrm.fencing import nova
from keyvrm.fencing import power
from keyvrm.flows import resources as flow_resources
from keyvrm.harvest import sources
from keyvrm.simulator import baton
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import simclock

# Executor waits in the region's time: a poll every 5 s, a retry after 10 s.
SIM_EXECUTOR = executor_settings.ExecutorSettings(poll_interval_s=5.0, retry_delay_s=10.0)
SIM_POWER_POLL_S = 2.0  # how often a fencer asks a simulated BMC whether the host is off
IN_TURN_WORKERS = 256  # flows in turn each keep their thread while waiting: more than ever live at once


def engine_conf(connection_url: str, rpc: bool = False) -> cfg.ConfigOpts:
    """A private config for the embedded default: one process, no Redis, fake:// messaging, API noauth."""
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm", default_config_files=[])
    conf.set_override("connection", connection_url, group="database")
    conf.set_override("rpc_enabled", rpc, group="engine")
    conf.set_override("conductor_name", "embedded", group="engine")
    conf.set_override("auth_strategy", "noauth", group="api")
    return conf


class EmbeddedRegion:
    """A simulated region with a KeyVRM engine on it (see the module docstring)."""

    def __init__(self, region, connection_url: str, *, driven: bool = True, fencers=None,
                 flow_settings: flow_resources.FlowSettings = None, rpc: bool = False,
                 notifier=None, flows_in_memory: bool = False, in_turn: bool = False):
        self.region = region
        self.drivers = simulated.for_region(region)
        # in_turn: flows run one at a time on the driven clock (keyvrm.simulator.baton), each in a thread
        self.baton = baton.Baton(region) if in_turn and driven else None
        self.clock = simclock.SimTimeClock(region, driven=driven, baton=self.baton)
        self.db = db_api.Database(connection_url, clock=self.clock)  # records on the region's time
        migration.upgrade(self.db.engine)
        self.conf = engine_conf(connection_url, rpc=rpc)
        # the engine is configured with the simulated Nova's service_down_time, as an operator sets it
        self.flow_settings = dataclasses.replace(flow_settings or flow_resources.FlowSettings(executor=SIM_EXECUTOR),
                                                 nova_service_down_time_s=region.options.service_down_time_s)
        self._fencers = fencers or self.sim_fencers
        self.notifier = notifier
        self.flows_in_memory = flows_in_memory
        # One in-process transport: the engine's RPC server and the API's client meet on it.
        self.transport = oslo_messaging.get_rpc_transport(self.conf, url="fake://") if rpc else None
        self.engine = None
        self.dispatcher = None
        self._housekeeping = None

    def sim_fencers(self, app_config) -> factory.Fencers:
        """The fencers ``app_config`` enables, over the region's BMCs, Ceph cluster and Nova.

        The same fencer classes production builds (``keyvrm.fencing.factory``) over the
        simulated drivers; each waits on the region's clock, so the region's faults (a BMC
        that refuses or never answers, a host that does not go dark) reach HA as a real
        peer's would.
        """
        timing = dict(clock=self.clock.time, sleep=self.clock.sleep)
        bmc = power.PowerFencer(self.drivers.power, app_config.ha_power_check_timeout,
                                poll_interval_s=SIM_POWER_POLL_S, **timing)
        return factory.Fencers(
            bmc=(lambda host: bmc) if app_config.ha_fence_bmc else None,
            ceph=blocklist.BlocklistFencer(self.drivers.blocklist, self._ceph_addresses, **timing)
            if app_config.ha_fence_ceph else None,
            nova=nova.NovaFencer(self.drivers.cloud, **timing) if app_config.ha_fence_nova else None)

    def _ceph_addresses(self, host):
        """The host's Ceph client entity addresses (every client of its IP)."""
        known = self.region.hosts.get(host)
        return ["%s:0/0" % known.host_ip] if known is not None and known.host_ip else []

    def resources(self, dispatcher) -> flow_resources.EngineResources:
        """The engine's resources over the simulated region."""
        return flow_resources.EngineResources(
            db=self.db, cloud=self.drivers.cloud, clock=self.clock, dispatcher=dispatcher,
            fencers=self._fencers, metrics=self.drivers.metrics, heartbeat=self.drivers.heartbeat,
            notifier=self.notifier, conf=self.flow_settings, harvest_sources=sources.sources_for_sim(self.drivers))

    def sync_aggregates(self) -> None:
        """Make the database know the region's aggregates (new ones NOOP) before the first cycle."""
        db_api.sync_aggregates(self.db, self.drivers.cloud.list_aggregates())

    def configure(self, app: dict = None, aggregates: dict = None) -> None:
        """Set business config: ``app`` changes, and per aggregate name its changes."""
        if app:
            db_api.update_app_config(self.db, app, "keyvrm-demo")
        for name, changes in (aggregates or {}).items():
            db_api.update_aggregate_config(self.db, name, changes, "keyvrm-demo")

    def start_engine(self) -> None:
        """Start a keyvrm-engine (schedule, resume, RPC if asked) on this region."""
        self.engine = service.Engine(self.conf, self.resources, clock=self.clock, rpc_transport=self.transport)
        self.engine.start()
        self.dispatcher = self.engine.dispatcher

    def start_dispatcher(self) -> None:
        """Only the engine's local dispatcher and persistence: cycles run when asked (tests)."""
        self._persistence = persistence.Persistence(self.conf.database.connection,
                                                    in_memory=self.flows_in_memory)
        self._persistence.upgrade()
        workers = IN_TURN_WORKERS if self.baton is not None else self.conf.engine.executor_workers
        self.dispatcher = dispatch.LocalDispatcher(self.resources, self._persistence, workers=workers,
                                                   baton=self.baton)
        self.dispatcher.resume_unfinished()

    def run_cycle(self, timeout_s: float = 120.0) -> bool:
        """One MasterFlow and every flow it started, to the end; False if they did not finish in time."""
        self.dispatcher.dispatch("master", {})
        return self.dispatcher.wait_idle(timeout_s)

    def housekeep(self) -> housekeeping.Done:
        """The leader's housekeeping at this tick, as the engine's (``keyvrm.engine.housekeeping``); what it did.

        For ``start_dispatcher`` (an engine started with ``start_engine`` ticks by itself).
        The first call is the engine's first tick as leader (it sweeps); then the sweep and
        the purge run when their intervals have passed on the region's clock. Flows the
        sweep resumes run in the dispatcher: ``wait_idle`` waits for them.
        """
        first = self._housekeeping is None
        if first:
            self._housekeeping = housekeeping.Housekeeping(self.clock, self.conf.database.history_keep_days,
                                                           self.conf.database.purge_max_rows)
        return self._housekeeping.run(self.dispatcher, self._persistence, first=first)

    def busy(self) -> bool:
        """Whether a flow of the engine is working now rather than waiting on the region's clock."""
        working = self.dispatcher.running + self.clock.side_working if self.dispatcher is not None else 0
        return working > self.clock.asleep

    def wait_idle(self, timeout_s: float = 120.0) -> bool:
        """Wait until every dispatched flow has finished; False if they did not in time."""
        return self.dispatcher.wait_idle(timeout_s)

    def advance(self, seconds: float) -> None:
        """Let the region live ``seconds`` of simulated time."""
        with self.region.lock:
            self.region.clock.advance(seconds)

    def stop(self) -> None:
        """Stop the engine (or the dispatcher) and close the database."""
        if self.engine is not None:
            self.engine.stop()
        elif self.dispatcher is not None:
            self.dispatcher.stop()
            self._persistence.close()
        self.db.dispose()
