"""keyvrm-demo: the embedded default in one process: a simulated region, SQLite, the engine (and the API).

Runs a scenario on the fast clock with a KeyVRM engine acting on the region (its own
schedule, ``LocalDispatcher``, TaskFlow persistence in SQLite, fake:// messaging), shows
a live table per cycle, then a summary and a PNG plot. ``--json`` ends with one JSON
summary; ``--keep-running`` serves the REST API from the start and runs past the
scenario's end until Ctrl-C or SIGTERM; ``--config FILE`` prepares business config.
Exit status: 0 done, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from oslo_log import log as logging
import yaml

from keyvrm.cmd import stopping
from keyvrm.conf import api as api_conf
from keyvrm.db import api as db_api
from keyvrm.demo import embedded
from keyvrm.demo import plot
from keyvrm.demo import summary as demo_summary
from keyvrm.demo import table
from keyvrm import exception
from keyvrm.scenarios import scenario
from keyvrm.simulator import runner

API_PORT = next(opt.default for opt in api_conf.opts if opt.name == "port")

LOG = logging.getLogger(__name__)
DEFAULT_SCENARIO = scenario.shipped("demo-embedded")
# The demo's business config: KeyVRM on, LB runs by itself; first aggregate HA, second HA+LB
# balancing CPU first (the scenario overloads CPU), LB at most every 5 minutes. Both declare
# shared instance storage (Ceph RBD, as most clouds): image-backed VMs keep their disks.
DEMO_APP = {"enabled": True, "lb_recommendations_auto_run": True}
DEMO_HA = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
DEMO_HA_LB = {"marker": "HA+LB", "no_op_mode": False, "storage_mode": "shared", "lb_period": 300,
              "lb_weights": {"cpu": 1.0, "ram": 0.5, "net": 0.0, "hugepages": 0.0},
              "lb_overload_threshold": 60.0, "lb_target_max_load": 50.0}


def build_parser() -> argparse.ArgumentParser:
    """The command line of keyvrm-demo."""
    parser = argparse.ArgumentParser(prog="keyvrm-demo", description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default=os.path.normpath(DEFAULT_SCENARIO),
                        help="scenario YAML file (default: demo-embedded)")
    parser.add_argument("--speed", type=float, default=60.0,
                        help="simulated seconds per wall second (default 60)")
    parser.add_argument("--hosts", type=int, default=None, help="region size (hypervisors)")
    parser.add_argument("--duration", type=float, default=None,
                        help="simulated seconds to run (default: the scenario's duration)")
    parser.add_argument("--state-path", default=os.environ.get("KEYVRM_STATE_PATH", "state"),
                        help="directory of the SQLite database (default $KEYVRM_STATE_PATH or ./state)")
    parser.add_argument("--plot", default=None, help="PNG to write (default STATE_PATH/keyvrm-demo.png)")
    parser.add_argument("--json", action="store_true", help="end with one JSON summary (no live table)")
    parser.add_argument("--keep-running", action="store_true",
                        help="serve the REST API from the start and keep region and engine running "
                             "past the scenario's end until interrupted (SIGINT/SIGTERM)")
    parser.add_argument("--config", default=None,
                        help="YAML business config to prepare: app: {field: value}, "
                             "aggregates: {name: {field: value}} (applied over the demo's own)")
    parser.add_argument("--api-port", type=int, default=API_PORT,
                        help="REST API port with --keep-running (default: keyvrm-api's [api] port)")
    parser.add_argument("--api-config", default=None,
                        help="keyvrm.conf read for the REST API with --keep-running, e.g. [api] "
                             "auth_strategy = keystone and [keystone_authtoken] (default: noauth)")
    return parser


def _region(args):
    scen = scenario.load(args.scenario)
    if args.hosts is not None:
        if args.hosts < 2 or scen.topology is None:
            raise scenario.ScenarioError("--hosts", "needs a generated topology and at least 2 hosts")
        scen.topology = dict(scen.topology, hosts=args.hosts,
                             hosts_per_aggregate=max(1, (args.hosts + 1) // 2))
    return scen, scen.start()


def _configure(emb):
    emb.sync_aggregates()
    names = [record.config.name for record in db_api.list_aggregates(emb.db)]
    emb.configure(app=DEMO_APP, aggregates={name: DEMO_HA if i == 0 else DEMO_HA_LB
                                            for i, name in enumerate(names[:2])})


def use_api_config(conf, path) -> None:
    """Read ``path`` into the embedded ``conf``: its ``[api] auth_strategy`` replaces the noauth default."""
    conf(["--config-file", path], project="keyvrm", default_config_files=[])
    conf.clear_override("auth_strategy", group="api")


def _serve_api(emb, port, out):
    try:
        from keyvrm.api import app as api_app
        from keyvrm.api import serve
    except ImportError:
        out.write("REST API not available in this build\n")
        return None
    from keyvrm.engine import rpcapi
    rpc = rpcapi.EngineAPI(emb.transport, topic=emb.conf.engine.rpc_topic)
    server = serve.serve_in_thread(api_app.build_app(emb.conf, db=emb.db, rpc=rpc), "127.0.0.1", port)
    out.write("REST API on http://127.0.0.1:%d/\n" % port)
    return server


def load_config(path) -> dict:
    """Business config a ``--config`` YAML file prepares: ``app`` changes and ``aggregates`` by name."""
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle) or {}
    if not isinstance(document, dict):
        raise scenario.ScenarioError("config", "a mapping with app: and aggregates: expected")
    unknown = sorted(set(document) - {"app", "aggregates"})
    if unknown:
        raise scenario.ScenarioError("config." + unknown[0], "unknown key; known: app, aggregates")
    for key in ("app", "aggregates"):
        if not isinstance(document.get(key) or {}, dict):
            raise scenario.ScenarioError("config." + key, "a mapping expected")
    return {"app": document.get("app") or {}, "aggregates": document.get("aggregates") or {}}


def run(args, out, stop=None) -> dict:
    """Run the demo; returns its summary.

    The run ends when the scenario's time is up (with ``--keep-running``: when interrupted,
    the clock moving on meanwhile) or on SIGINT/SIGTERM; either way the summary is made.
    With ``--keep-running`` the REST API serves from the start, so the CLI works during the run.
    """
    scen, region = _region(args)
    prepared = load_config(args.config) if args.config else None
    os.makedirs(args.state_path, exist_ok=True)
    db_path = os.path.join(os.path.abspath(args.state_path), "keyvrm-demo.sqlite")
    if os.path.exists(db_path):
        os.remove(db_path)
    emb = embedded.EmbeddedRegion(region, "sqlite:///" + db_path, driven=False, rpc=True)
    try:
        _configure(emb)
        if prepared:
            emb.configure(app=prepared["app"], aggregates=prepared["aggregates"])
    except Exception:
        emb.stop()
        raise
    duration_s = scen.duration_s if args.duration is None else args.duration
    # Simulated time passes only while the engine waits (its flows' work stops the clock).
    clock_runner = runner.RealTimeRunner(region, speed=args.speed, tick_s=0.05, busy=emb.busy)
    stop = stop or threading.Event()
    with stopping.stop_on_signals(stop):  # SIGINT/SIGTERM end the run; the summary is still made
        started = time.monotonic()
        server = None
        emb.start_engine()
        try:
            if args.keep_running:
                if args.api_config:
                    use_api_config(emb.conf, args.api_config)
                server = _serve_api(emb, args.api_port, out)
                out.write("region, engine%s running; Ctrl-C stops\n" % (" and API" if server else ""))
            clock_runner.start()
            shown = 0
            while not stop.is_set() and (args.keep_running or region.clock.elapsed_s < duration_s):
                stop.wait(0.2)
                done = sum(1 for c in db_api.page_cycles(emb.db, 1000) if c["status"] != "running")
                if done != shown and not args.json:
                    shown = done
                    out.write(table.render(emb.db, done, region.clock.elapsed_s) + "\n\n")
                    out.flush()
            # The run is over: the clock stops following the wall; flows still running finish with
            # their own waits moving it (no new cycle falls due unless they wait a whole period).
            clock_runner.stop()
            emb.clock.driven = True
            emb.dispatcher.wait_idle(120)
            result = demo_summary.summarize(emb.db, region, time.monotonic() - started)
            result["scenario"] = scen.name
            result["plot"] = plot.write_plot(args.plot or os.path.join(args.state_path, "keyvrm-demo.png"), result)
        finally:
            if server is not None:
                server.shutdown()
            clock_runner.stop()
            emb.stop()
    return result


def main(argv=None, out=None) -> int:
    """Entry point of the keyvrm-demo console script."""
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    try:
        result = run(args, out)
    except (scenario.ScenarioError, exception.InvalidField, exception.NotFound, OSError,
            yaml.YAMLError) as exc:
        sys.stderr.write("keyvrm-demo: %s\n" % exc)
        return 2
    if args.json:
        out.write(json.dumps(result, sort_keys=True, default=str) + "\n")
    else:
        out.write(demo_summary.render(result) + "\n")
        out.write("plot: %s\n" % (result["plot"] or "none (matplotlib is not installed: pip install keyvrm[demo])"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
