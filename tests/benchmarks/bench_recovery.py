"""Benchmark: kill a compute on real Nova and time each step until its servers run elsewhere.

The deployment of the end-to-end tests (``tests/e2e/deployment.py``: the fake cloud with
Nova's default timers, VictoriaMetrics, Redis Sentinel, heartbeat agents, PostgreSQL,
``keyvrm-engine`` and ``keyvrm-api`` with shipped defaults). Each run kills the compute
that carries the most servers and records, from the kill, when Nova first shows its
service down, when KeyVRM claims the host, when it is fenced, and when every one of its
servers is ACTIVE on another host; then the host is revived and returned to service
(``openstack keyvrm hypervisor restore``) for the next run. Prints a table per run, the
medians, and one JSON line. Needs the ``nova`` tox env (Nova and Placement installed):

    tox -e nova --notest && .tox/nova/bin/python -m tests.benchmarks.bench_recovery --runs 5
"""

import argparse
import datetime
import json
import pathlib
import statistics
import tempfile
import time

from keyvrm.drivers.cloud import openstack
from tests.benchmarks import throwaway_db
from tests.e2e import deployment as e2e
from tests.nova import conftest as nova_helpers

STEPS = ("nova_down", "claimed", "fenced", "all_active")


def _populate(region, servers_count):
    driver = openstack.from_endpoints(region.cloud.service_endpoints)
    hosts = region.cloud.endpoints["hosts"]
    nova_helpers.aggregate(driver, "agg-ha", hosts)
    servers = [nova_helpers.boot(driver, "vm-%d" % i, hosts[i % len(hosts)]) for i in range(servers_count)]
    region.openstack("config", "set", "--enabled", "true")
    region.openstack("cycle", "run")  # the first enabled cycle brings Nova's aggregates in
    region.wait(lambda: any(a["name"] == "agg-ha" for a in region.api("/aggregates")["aggregates"]), 90,
                "the aggregate did not appear")
    region.openstack("aggregate", "set", "agg-ha", "--marker", "HA", "--no-noop", "--storage-mode", "shared")
    return driver, servers


def _one_run(region, driver, servers):
    placement = {s: nova_helpers.server(driver, s)["OS-EXT-SRV-ATTR:host"] for s in servers}
    victim = max(set(placement.values()), key=lambda h: list(placement.values()).count(h))
    victims = [s for s, h in placement.items() if h == victim]
    seen, active = {}, {}
    killed_wall = time.time()
    killed_at = region.kill_compute(victim)
    while "all_active" not in seen and time.monotonic() - killed_at < 300:
        now = time.monotonic() - killed_at
        if "nova_down" not in seen and driver.get_service(victim).state == "down":
            seen["nova_down"] = now
        state = region.api("/hypervisors/%s" % victim)["hypervisor"]["state"]
        if "claimed" not in seen and state != "ok":
            seen["claimed"] = now
        if "fenced" not in seen and state in ("fenced", "evacuating", "maintenance"):
            seen["fenced"] = now
        for server in (nova_helpers.server(driver, s) for s in victims if s not in active):
            if server["status"] == "ACTIVE" and server["OS-EXT-SRV-ATTR:host"] != victim:
                active[server["id"]] = now
        if len(active) == len(victims):
            seen["all_active"] = now
        time.sleep(0.25)
    timeline = _evacuation_timeline(region, victims, killed_wall, active)
    region.revive_compute(victim)
    region.wait(lambda: region.api("/hypervisors/%s" % victim)["hypervisor"]["state"] == "maintenance", 120,
                "the host did not reach maintenance")
    region.openstack("hypervisor", "restore", victim)
    region.openstack("cycle", "run")
    region.wait(lambda: region.api("/hypervisors/%s" % victim)["hypervisor"]["state"] == "ok", 180,
                "the host did not return to service")
    return victim, len(victims), seen, timeline


def _seconds_after(stamp, wall_s):
    if not stamp:
        return None
    at = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if at.tzinfo is None:
        at = at.replace(tzinfo=datetime.timezone.utc)
    return at.timestamp() - wall_s


def _evacuation_timeline(region, victims, killed_wall, active):
    """Per server: its evacuation recommendation created and started (KeyVRM's records), ACTIVE (Nova)."""
    rows = []
    for server_id in victims:
        recs = [r for r in region.api("/recommendations?vm_id=%s&limit=50" % server_id)["recommendations"]
                if r["action"] == "evacuate"]
        rec = max(recs, key=lambda r: r["created_at"]) if recs else {}
        rows.append((server_id, _seconds_after(rec.get("created_at"), killed_wall),
                     _seconds_after(rec.get("started_at"), killed_wall), active.get(server_id)))
    return rows


def _print_timeline(victim, timeline):
    print("timeline of the first run (s after killing %s):" % victim)
    print("  %-36s %9s %9s %9s" % ("server", "planned", "started", "ACTIVE"))
    for server_id, planned, started, up in sorted(timeline, key=lambda row: row[3] or 1e9):
        print("  %-36s %9s %9s %9s" % (server_id, *("%.1f" % v if v is not None else "-"
                                                    for v in (planned, started, up))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--computes", type=int, default=5)
    parser.add_argument("--servers", type=int, default=11)
    args = parser.parse_args()
    name, url = throwaway_db.create()
    workdir = tempfile.TemporaryDirectory()
    region = e2e.Deployment(pathlib.Path(workdir.name), url, computes=args.computes)
    runs = []
    try:
        print("starting the deployment (fake cloud, TSDB, Sentinels, agents, engine, API)...", flush=True)
        region.start()
        driver, servers = _populate(region, args.servers)
        print("%-4s %-11s %7s  %s" % ("run", "host", "servers", "  ".join("%10s" % s for s in STEPS)))
        for run in range(1, args.runs + 1):
            victim, count, seen, timeline = _one_run(region, driver, servers)
            runs.append(seen)
            if run == 1:
                first = (victim, timeline)
            print("%-4d %-11s %7d  %s" % (run, victim, count, "  ".join(
                "%9.1fs" % seen[s] if s in seen else "%10s" % "-" for s in STEPS)), flush=True)
    finally:
        region.stop()
        workdir.cleanup()
        throwaway_db.drop(name)
    if runs:
        _print_timeline(*first)
    medians = {s: statistics.median(r[s] for r in runs) for s in STEPS if all(s in r for r in runs)}
    print("median  " + "  ".join("%s %.1f s" % (s, v) for s, v in medians.items()))
    if "all_active" in medians:
        print("kill -> all ACTIVE: median %.1f s = %.2f x Nova's service_down_time (%d s)"
              % (medians["all_active"], medians["all_active"] / e2e.NOVA_TIMERS[0], e2e.NOVA_TIMERS[0]))
    print(json.dumps({"runs": runs, "medians": medians, "nova_timers": e2e.NOVA_TIMERS}))


if __name__ == "__main__":
    main()
