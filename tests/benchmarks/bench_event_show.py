"""Benchmark of `openstack keyvrm event show` on an LB event of a hot aggregate (issue 25): size, lines, time.

One aggregate of ``--hosts`` hypervisors of which ``--hot`` are CPU-hot (issue 16's
CPU-hot shape, tests/unit/planning/regiongen.py, 20 VMs per host) is planned by LB with
the shipped defaults; the run is recorded as the LB flow records it (an event with its
reasons, no-target entries and manual recommendations) in a fresh SQLite database. The
API serves it on a loopback port and the real `openstack keyvrm event show` (auth
``none``) reads it, ``--runs`` times. Printed: how many hosts the plan found overloaded
and how many moves it made, the API's response (bytes) at each microversion the server
serves, and the CLI's table output (bytes, lines, longest line, p50 and max wall time);
then the reason rows of the table as an operator sees them (``--show-lines`` of them).
The last line is one JSON document with every figure.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.api import serve  # noqa: E402
from keyvrm.db import api as db_api  # noqa: E402
from keyvrm.db import migration  # noqa: E402
from keyvrm.flows import events  # noqa: E402
from keyvrm.flows import recommend  # noqa: E402
from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.planning import lb  # noqa: E402
from tests.unit.api import seed  # noqa: E402
from tests.unit.planning import regiongen  # noqa: E402


def hot_region(hosts, hot, seed_value):
    """One aggregate of ``hosts`` hypervisors, ``hot`` of them CPU-hot."""
    shape = regiongen.RegionShape(**dict(regiongen.cpu_hot_shape(hosts, hosts).__dict__,
                                         hotspot_share=(hot / hosts, hot / hosts)))
    return regiongen.generate_region(shape, seed_value)


def record_lb_event(db, snap):
    """The LB run of the region's aggregate recorded as the LB flow records it; (event id, plan)."""
    name = snap.aggregates[0].name
    db_api.sync_aggregates(db, [m.Aggregate(name, 1, None, "az1")])
    db_api.update_aggregate_config(db, name, {"marker": "LB", "no_op_mode": False}, "bench")
    plan = lb.plan_balancing(snap, AppConfig(), AggregateConfig(name=name, marker="LB", no_op_mode=False,
                                                                no_op_reason=None),
                             m.BusySet(), now_s=snap.taken_at, max_rejected_hosts=100)
    cycle_id = db_api.start_cycle(db)
    event_id = events.open_event(db, cycle_id, name, "LB", "LB", None)
    if plan.moves:
        events.add_reasons(db, event_id, plan.reasons, status="generated", max_rejected_hosts=100)
        recommend.create_recommendations(db, event_id, plan.moves, auto_run=False)
        db_api.set_event_status(db, event_id, "manual_action")
    else:
        events.complete_event(db, event_id, "warning", plan.reasons, max_rejected_hosts=100)
    return event_id, plan


def _overloaded_count(plan):
    """How many hypervisors the plan found overloaded (its ``overloaded`` reason says: "N hypervisors of ...")."""
    for reason in plan.reasons:
        found = re.match(r"(\d+) hypervisors? of ", reason.message) if reason.code == "overloaded" else None
        if found:
            return int(found.group(1))
    return 0


def _response_bytes(url, version):
    request = urllib.request.Request(url, headers={"OpenStack-API-Version": "vm-resource-manager " + version})
    with urllib.request.urlopen(request) as response:
        return len(response.read())


def _served_versions(base):
    with urllib.request.urlopen(base + "/v1") as response:
        document = json.load(response)["version"]
    low, high = (tuple(int(p) for p in document[k].split(".")) for k in ("min_version", "max_version"))
    return ["%d.%d" % (low[0], minor) for minor in range(low[1], high[1] + 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=320)
    parser.add_argument("--hot", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--show-lines", type=int, default=40)
    parser.add_argument("--openstack", default=os.path.join(os.path.dirname(sys.executable), "openstack"))
    parser.add_argument("--output", help="also write the CLI's table output to this file")
    parser.add_argument("--api-version", help="the microversion the CLI asks for (default: negotiated), "
                                              "e.g. 1.0 for the reasons as one text")
    args = parser.parse_args()

    snap = hot_region(args.hosts, args.hot, args.seed)
    with tempfile.TemporaryDirectory(prefix="keyvrm-bench-event-") as tmp:
        db = db_api.Database("sqlite:///%s/keyvrm.sqlite" % tmp)
        migration.upgrade(db.engine)
        event_id, plan = record_lb_event(db, snap)
        server = serve.serve_in_thread(seed.make_app(db), "127.0.0.1", 0)
        try:
            api = {v: _response_bytes("%s/v1/events/%s" % (server.url, event_id), v)
                   for v in _served_versions(server.url)}
            command = [args.openstack, "--os-auth-type", "none", "--os-endpoint", server.url]
            command += ["--os-keyvrm-api-version", args.api_version] if args.api_version else []
            command += ["keyvrm", "event", "show", event_id]
            times, output = [], ""
            for _ in range(args.runs):
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                                      env=dict(os.environ, PYTHONWARNINGS="ignore"))
                times.append(time.perf_counter() - started)
                if done.returncode != 0:
                    sys.exit(done.stderr)
                output = done.stdout
        finally:
            server.shutdown()
            db.dispose()
    lines = output.splitlines()
    figures = {"hosts": args.hosts, "hot": args.hot,
               "overloaded": _overloaded_count(plan),
               "moves": len(plan.moves), "api_bytes": api, "cli_bytes": len(output.encode()),
               "cli_lines": len(lines), "cli_longest_line": max(map(len, lines)),
               "cli_p50_s": round(statistics.median(times), 3), "cli_max_s": round(max(times), 3)}
    print("LB event on %(hosts)d hosts, %(overloaded)d overloaded: %(moves)d moves planned" % figures)
    print("API GET /v1/events/{id}: " + ", ".join("%s bytes at %s" % (n, v) for v, n in api.items()))
    print("CLI event show: %(cli_bytes)d bytes, %(cli_lines)d lines, longest %(cli_longest_line)d characters,"
          " p50 %(cli_p50_s).2f s, max %(cli_max_s).2f s" % figures)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(output)
    print("--- the table's first %d lines, each cut at 200 characters ---" % args.show_lines)
    for line in lines[:args.show_lines]:
        print(line[:200] + (" [...%d more]" % (len(line) - 200) if len(line) > 200 else ""))
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
