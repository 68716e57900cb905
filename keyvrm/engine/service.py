"""keyvrm-engine: the periodic MasterFlow, the flows it starts, and how several engines share them.

Topology
--------
* **One engine** (embedded default, demo): flows run in this process's thread pool
  (``LocalDispatcher``); TaskFlow persists each flow in the KeyVRM database, so after a
  crash the next start resumes every unfinished flow (the task that was running runs
  again; finished tasks do not). No Redis needed.
* **Several engines** (``[engine] coordination_url`` + ``jobboard_url``, Redis): every
  engine runs a conductor on the TaskFlow Redis jobboard; MasterFlow, per-aggregate and
  executor flows are posted there as jobs (``JobboardDispatcher``) and claimed by any
  conductor. One tooz lock elects the engine that posts the periodic MasterFlow; if it
  dies the lock expires after ``leader_lock_ttl`` and the next engine to tick takes the
  schedule over, keeping its grid (the last tick is shared in Redis). Jobboard claims
  never expire, so each engine refreshes a liveness key every tick and a reaper in every
  engine abandons jobs of conductors whose key expired; they are then claimed anew and
  resume from the database. A restarted engine takes back its own jobs at once.
* **Threads**: the liveness key and the leader lock are beaten on a thread that touches
  only Redis (tooz's heartbeat refreshes the lock besides), the schedule and the reaper
  tick on another, and the leader's housekeeping (``keyvrm.engine.housekeeping``: the
  sweep and the history purge, in committed batches) runs on a third: a long purge or a
  slow database never delays a beat, so it never costs this engine its lock or its jobs.
* **Fast path** (``[ha] fast_path``): the leader also watches heartbeats and compute
  services every ``[ha] watch_interval`` seconds (``keyvrm.engine.fastpath``); a host
  whose signal turns bad gets a FastFlow at once (its aggregates judged from the newest
  snapshot and fresh reads, ``keyvrm.flows.fast``), then a periodic cycle.
* **Stop** (SIGTERM): stop taking work, let running tasks finish, suspend their flows
  (persisted, resumable), hand jobs back to the board, release the leader lock.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Iterable, Mapping, Optional
from urllib import parse

import redis
from taskflow.jobs import backends as jobboard_backends

from keyvrm import clock as keyvrm_clock
from keyvrm.db import api as db_api
from keyvrm.db import availability
from keyvrm.engine import conductor as engine_conductor
from keyvrm.engine import dispatch
from keyvrm.engine import fastpath
from keyvrm.engine import housekeeping
from keyvrm.engine import leader as engine_leader
from keyvrm.engine import persistence as engine_persistence
from keyvrm.engine import reaper
from keyvrm.engine import schedule as engine_schedule
from keyvrm.flows import registry

LOG = logging.getLogger(__name__)
MASTER = "master"
FAST = "fast"


def jobboard_from_url(url: str, namespace: str, backend, name: str):
    """The TaskFlow Redis jobboard at ``url`` (redis://host:port/db), its keys under ``namespace``."""
    parts = parse.urlsplit(url)
    board_conf = {"board": "redis", "host": parts.hostname or "127.0.0.1", "port": parts.port or 6379,
                  "namespace": namespace + "-jobs"}
    if parts.password:
        board_conf["password"] = parse.unquote(parts.password)
    if parts.path.strip("/"):
        board_conf["db"] = int(parts.path.strip("/"))
    return jobboard_backends.fetch(name, board_conf, persistence=backend)


class SharedTick:
    """The schedule's last tick, shared through Redis so a new leader keeps the grid."""

    def __init__(self, client, namespace: str):
        self._client = client
        self._key = "%s:schedule:last_tick_s" % namespace

    def load(self) -> Optional[float]:
        value = self._client.get(self._key)
        return None if value is None else float(value)

    def save(self, tick_s: float) -> None:
        self._client.set(self._key, repr(tick_s))


class Engine:
    """One keyvrm-engine: dispatcher (+ conductor), leader election, schedule, housekeeping, reaper.

    ``resources_factory(dispatcher) -> EngineResources`` builds the live objects flows use.
    ``flows`` defaults to ``keyvrm.flows.registry.FLOWS``; ``listener_factories`` are
    attached to every flow run (tests use one to crash at a task boundary).
    """

    def __init__(self, conf, resources_factory: Callable, *, flows: Optional[Mapping[str, Callable]] = None,
                 clock=None, listener_factories: Iterable = (), rpc_transport=None):
        self._conf = conf
        self._resources_factory = resources_factory
        self.flows = registry.FLOWS if flows is None else flows
        self._clock = clock or keyvrm_clock.WallClock()
        self._listener_factories = tuple(listener_factories)
        self._rpc_transport = rpc_transport
        self._stopping = threading.Event()
        self._threads = []
        self._redis = None
        self._jobboard = None
        self._conductor = None
        self._liveness = None
        self._shared_tick = None
        self._rpc_server = None
        self._schedule = engine_schedule.Schedule()
        self._last_reap = float("-inf")
        self._housekeeping = housekeeping.Housekeeping(
            self._clock, conf.database.history_keep_days, conf.database.purge_max_rows,
            keep_going=lambda: not self._stopping.is_set() and self.leader.is_leader)
        self._scheduling = False  # whether this engine led at its last tick
        self._housekeeping_as_leader = False  # whether it led at its last housekeeping
        self._watch = None
        self._cycle_owed = False
        self._owed_lock = threading.Lock()
        self._database_lost_at = None
        self.name = conf.engine.conductor_name
        self.persistence = None
        self.dispatcher = None
        self.leader = None
        self.resumed_count = 0

    @property
    def tick_s(self) -> float:
        """How often the engine beats its liveness and leadership, looks at the schedule and at housekeeping."""
        ec = self._conf.engine
        return min(1.0, ec.conductor_liveness_ttl / 3.0, ec.leader_lock_ttl / 3.0)

    @property
    def is_leader(self) -> bool:
        """Whether this engine ran the schedule at its last tick."""
        return self.leader is not None and self.leader.is_leader

    def start(self) -> None:
        """Upgrade TaskFlow's schema, resume unfinished flows, join the cluster, start the loop."""
        ec = self._conf.engine
        self.persistence = engine_persistence.Persistence(self._conf.database.connection)
        self.persistence.upgrade()
        if ec.jobboard_url:
            self._start_jobboard()
        else:
            self.dispatcher = dispatch.LocalDispatcher(
                self._resources_factory, self.persistence, flows=self.flows, workers=ec.executor_workers,
                listener_factories=self._listener_factories)
            self.resumed_count = self.dispatcher.resume_unfinished()
        if ec.coordination_url:
            self.leader = engine_leader.LeaderElection(ec.coordination_url, self.name, ec.leader_lock_ttl,
                                                       namespace=ec.namespace)
        else:
            self.leader = engine_leader.SoleLeader()
        self.leader.start()
        self._beat()
        if ec.rpc_enabled:
            self._start_rpc()
        self._spawn(self._beat_loop, "keyvrm-engine-beat")
        self._spawn(lambda: self._every(self.tick_s, self._tick, "engine tick"), "keyvrm-engine-loop")
        self._spawn(lambda: self._every(self.tick_s, self.housekeep_once, "housekeeping"),
                    "keyvrm-housekeeping")
        if self._conf.ha.fast_path:
            self._spawn(self._watch_loop, "keyvrm-fast-path")
        LOG.info("engine %s started (%s, %s); %d unfinished flows resumed", self.name,
                 "jobboard" if ec.jobboard_url else "local flows",
                 "elected schedule" if ec.coordination_url else "sole scheduler", self.resumed_count)

    def watch_once(self) -> bool:
        """One look of the HA fast path (leader only); whether a cycle was started for it.

        Hosts whose signal turned bad get a FastFlow at once (``keyvrm.flows.fast``: their
        aggregates judged without a whole-region harvest), and a periodic cycle is owed:
        it starts at a later look, once neither a FastFlow nor a MasterFlow runs.
        """
        if not self.is_leader:
            return False
        if self._watch is None:
            res = self.dispatcher.resources
            self._watch = fastpath.FailureWatch(res.cloud, res.heartbeat, self._clock,
                                                res.conf.heartbeat_stale_after_s)
        turned = self._watch.look()
        if not turned:
            return self._start_owed_cycle()
        LOG.info("fast path: %s; judging their aggregates now",
                 ", ".join("%s %s" % (host, why) for host, why in sorted(turned.items())))
        self.dispatcher.dispatch(FAST, {"hosts": sorted(turned)})
        self._cycle_owed = True  # the whole region catches up once the fast cycle has finished
        return True

    def run_cycle_now(self) -> bool:
        """Start a MasterFlow now, whoever leads (an operator's "cycle now"); False if one is still running.

        A refused request is not lost: it is a ``requested`` cycle row, and this engine
        starts the MasterFlow that claims it as soon as the running one has finished
        (not at the next period).
        """
        self._cycle_owed = True
        if self._start_owed_cycle():
            return True
        LOG.info("cycle requested while a MasterFlow runs; it starts when that one has finished")
        return False

    def _start_owed_cycle(self) -> bool:
        """Start the cycle owed to an operator or the fast path, unless a MasterFlow still runs."""
        with self._owed_lock:
            if not self._cycle_owed or self.dispatcher.has_pending(MASTER) or self.dispatcher.has_pending(FAST):
                return False
            self._cycle_owed = False
            self.dispatcher.dispatch(MASTER, {})
            return True

    def stop(self) -> None:
        """Graceful stop: no new work; running tasks finish, their flows stay resumable; leadership released."""
        self._stopping.set()
        if self.dispatcher is not None:
            self.dispatcher.stopping.set()
        if self._rpc_server is not None:
            self._rpc_server.stop()
            self._rpc_server.wait()
        if self._conductor is not None:
            self._conductor.stop()
        else:
            self.dispatcher.stop()
        for thread in self._threads:
            thread.join()
        if self.leader is not None:
            self.leader.stop()
        if self._conductor is not None:
            self._liveness.clear(self.name)
            self._jobboard.close()
        self.persistence.close()
        LOG.info("engine %s stopped", self.name)

    # --- internals ---------------------------------------------------------------------------

    def _start_jobboard(self):
        ec = self._conf.engine
        self._redis = redis.Redis.from_url(ec.jobboard_url)
        self._liveness = reaper.Liveness(self._redis, ec.namespace, ec.conductor_liveness_ttl)
        self._liveness.beat(self.name)
        self._shared_tick = SharedTick(self._redis, ec.namespace)
        self._jobboard = jobboard_from_url(ec.jobboard_url, ec.namespace, self.persistence.backend,
                                           "keyvrm-" + self.name)
        self._jobboard.connect()
        self.dispatcher = dispatch.JobboardDispatcher(self._resources_factory, self.persistence,
                                                      self._jobboard, flows=self.flows)
        self.resumed_count = len(reaper.release_own(self._jobboard, self.name))
        dispatcher = self.dispatcher
        self._conductor = engine_conductor.FlowConductor(
            self.name, self._jobboard, self.persistence, lambda: dispatcher.resources, self.flows,
            listener_factories=self._listener_factories, max_simultaneous_jobs=ec.executor_workers)
        self._spawn(self._conductor.run, "keyvrm-conductor")

    def _start_rpc(self):
        from keyvrm.engine import manager
        self._rpc_server = manager.rpc_server(self._conf, self, transport=self._rpc_transport)
        self._rpc_server.start()

    def _spawn(self, target, name):
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _every(self, interval_s, step, what):
        """Run ``step`` every ``interval_s`` until the engine stops; a database outage is logged once."""
        while not self._stopping.is_set():
            try:
                step()
                self._database_back()
            except Exception as exc:
                if availability.is_database_unavailable(exc):
                    self._database_lost(exc)
                else:
                    LOG.exception("%s failed; retrying at the next one", what)
            keyvrm_clock.pause(self._clock, self._stopping, interval_s)

    def _beat_loop(self):
        while not self._stopping.wait(self.tick_s):
            try:
                self._beat()
            except Exception:
                LOG.exception("liveness beat failed; retrying at the next one")

    def _database_lost(self, exc):
        """A tick found the database unreachable: one warning per outage, not a traceback per tick."""
        if self._database_lost_at is None:
            self._database_lost_at = time.monotonic()
            LOG.warning("database unavailable (%s); the schedule waits for it, running steps wait "
                        "and run again", availability.describe(exc))

    def _database_back(self):
        if self._database_lost_at is not None:
            LOG.info("database available again after %.1f s", time.monotonic() - self._database_lost_at)
            self._database_lost_at = None

    def _watch_loop(self):
        while not self._stopping.is_set():
            try:
                self.watch_once()
            except Exception:
                LOG.exception("fast path look failed; retrying at the next one")
            keyvrm_clock.pause(self._clock, self._stopping, self._conf.ha.watch_interval)

    def _beat(self):
        """Refresh this conductor's liveness key and take or keep the leader lock (Redis only, no database)."""
        if self._liveness is not None and not self._liveness.beat(self.name):
            LOG.warning("conductor %s: its liveness key had expired; its jobs may have been reaped", self.name)
        self.leader.tick()

    def _tick(self):
        """Reap jobs of dead conductors when due, start an owed cycle, and (leader) the period's cycle."""
        if self._jobboard is not None and time.monotonic() - self._last_reap >= self._conf.engine.reaper_interval:
            self._last_reap = time.monotonic()
            reaper.reap(self._jobboard, self._liveness, self.name)
        self._start_owed_cycle()
        was_leader, self._scheduling = self._scheduling, self.leader.is_leader
        if not self._scheduling:
            return
        if not was_leader and self._shared_tick is not None:
            self._schedule = engine_schedule.Schedule(self._shared_tick.load())
        self._run_schedule()

    def housekeep_once(self) -> Optional[housekeeping.Done]:
        """The leader's housekeeping when due (the sweep at once when it begins to lead); None if not leading."""
        was_leader, self._housekeeping_as_leader = self._housekeeping_as_leader, self.leader.is_leader
        if not self._housekeeping_as_leader:
            return None
        return self._housekeeping.run(self.dispatcher, self.persistence, first=not was_leader)

    def _run_schedule(self):
        period_s = db_api.get_app_config(self.dispatcher.resources.db).period
        now_s = self._clock.time()
        if not self._schedule.is_due(now_s, period_s):
            return
        with self._owed_lock:
            if self.dispatcher.has_pending(MASTER):
                LOG.info("cycle due but the previous MasterFlow has not finished; skipping this tick")
            else:
                self.dispatcher.dispatch(MASTER, {})
        self._schedule = self._schedule.ticked(now_s, period_s)
        if self._shared_tick is not None:
            self._shared_tick.save(self._schedule.last_tick_s)
