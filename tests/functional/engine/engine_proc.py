"""A keyvrm-engine process for the functional tests: the real Engine over the test-only flows.

Tests fork it (``multiprocessing`` fork context, ``main`` as target) so a start costs no
imports; ``python -m tests.functional.engine.engine_proc`` runs it by hand:

  python -m tests.functional.engine.engine_proc --db URL --ledger FILE [--jobboard REDIS_URL]
      [--name NAME] [--namespace NS] [--exit-when-idle] [--purge-interval S] [--purge-max-rows N]

With a jobboard, the MasterFlows the engine posts and the purge batches it commits are
traced in Redis (``<namespace>:test:scheduled``, ``<namespace>:test:purged``).

KEYVRM_TEST_KILL_AT=<task>:<before|after> makes the process SIGKILL itself when that task
starts (state RUNNING persisted) or has finished (result persisted).
"""

import argparse
import json
import os
import signal
import sys
import threading
import time

from oslo_config import cfg
import redis
from taskflow.listeners import base as listener_base
from taskflow import states

from keyvrm import clock
from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.engine import housekeeping
from keyvrm.engine import service
from keyvrm.flows import resources as flow_resources
from tests.functional.engine import miniflows


class KillAt(listener_base.Listener):
    """SIGKILLs this process at one task boundary."""

    def __init__(self, engine, task_name, when):
        super().__init__(engine, task_listen_for=(states.RUNNING, states.SUCCESS), flow_listen_for=())
        self._task_name = task_name
        self._state = states.RUNNING if when == "before" else states.SUCCESS

    def _task_receiver(self, state, details):
        if details["task_name"] == self._task_name and state == self._state:
            os.kill(os.getpid(), signal.SIGKILL)


def listener_factories():
    spec = os.environ.get("KEYVRM_TEST_KILL_AT")
    if not spec:
        return ()
    task_name, when = spec.split(":")
    return (lambda engine, record: KillAt(engine, task_name, when),)


def record_scheduling(engine, ctx):
    """Make every MasterFlow this engine posts leave [engine name, time] in Redis (the scheduler's trace)."""
    dispatch = engine.dispatcher.dispatch

    def recording_dispatch(name, store):
        if name == "master":
            ctx.redis.rpush(ctx.namespace + ":test:scheduled", json.dumps([ctx.engine_name, time.time()]))
        dispatch(name, store)
    engine.dispatcher.dispatch = recording_dispatch


def record_purging(ctx):
    """Make every purge batch this engine commits leave [engine name, table, rows, time] in Redis."""
    purge_history = db_api.purge_history

    def recording_purge_history(db, before, max_rows):
        for table, rows in purge_history(db, before, max_rows):
            ctx.redis.rpush(ctx.namespace + ":test:purged", json.dumps([ctx.engine_name, table, rows, time.time()]))
            yield table, rows
    db_api.purge_history = recording_purge_history


def main(argv=None):
    """Run one engine until SIGTERM (or, with --exit-when-idle, until its flows are done)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--placement", default="{}")
    parser.add_argument("--jobboard", default="")
    parser.add_argument("--name", default="engine-1")
    parser.add_argument("--namespace", default="keyvrm-test")
    parser.add_argument("--ttl", type=int, default=2)
    parser.add_argument("--exit-when-idle", action="store_true")
    parser.add_argument("--purge-interval", type=float, default=housekeeping.PURGE_INTERVAL_S)
    parser.add_argument("--purge-max-rows", type=int, default=1000)
    args = parser.parse_args(argv)

    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    conf.set_override("connection", args.db, group="database")
    conf.set_override("purge_max_rows", args.purge_max_rows, group="database")
    housekeeping.PURGE_INTERVAL_S = args.purge_interval  # this process's engine only
    for name, value in (("jobboard_url", args.jobboard), ("coordination_url", args.jobboard),
                        ("conductor_name", args.name), ("namespace", args.namespace),
                        ("leader_lock_ttl", args.ttl), ("conductor_liveness_ttl", args.ttl),
                        ("reaper_interval", 1), ("rpc_enabled", False)):
        conf.set_override(name, value, group="engine")

    ctx = miniflows.TestContext(engine_name=args.name, namespace=args.namespace,
                                redis=redis.Redis.from_url(args.jobboard) if args.jobboard else None,
                                cloud=miniflows.LedgerCloud(args.ledger, json.loads(args.placement)))
    db = db_api.Database(args.db)

    def resources_factory(dispatcher):
        return flow_resources.EngineResources(db=db, cloud=ctx.cloud, clock=clock.WallClock(),
                                              dispatcher=dispatcher, fencers=lambda app: None)

    engine = service.Engine(conf, resources_factory, flows=miniflows.build_registry(ctx),
                            listener_factories=listener_factories())
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    if ctx.redis is not None:
        record_purging(ctx)
    engine.start()
    if ctx.redis is not None:
        record_scheduling(engine, ctx)
    print("started resumed=%d" % engine.resumed_count, flush=True)
    if args.exit_when_idle:
        engine.dispatcher.wait_idle(60)
    else:
        stop.wait()
    engine.stop()
    print("stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
