"""Benchmark: kill a compute on real Nova, time each step until its servers run elsewhere, per size and fencing.

The deployment of the end-to-end tests (``tests/e2e/deployment.py``: the fake cloud,
VictoriaMetrics, Redis Sentinel, heartbeat agents, PostgreSQL, ``keyvrm-engine`` and
``keyvrm-api`` with shipped defaults), once per size of ``--computes`` (8 and 500: one
after the other, each its own deployment). Every compute is in one HA aggregate, the TSDB
shows every host and server at a steady load, and ``--servers`` servers run on the other
computes. Each run boots ``--victim-servers`` servers on the last compute, kills it, and
records from the kill when Nova first shows its service down, when KeyVRM claims the host,
when it is fenced, and when every one of its servers is ACTIVE on another host; once KeyVRM
has put the host in maintenance, those servers are deleted and the host is revived and
returned to service (``openstack keyvrm hypervisor restore``) for the next run. So every
run of every size evacuates the same servers from the same kind of host.

``--fencing`` says how KeyVRM fences, each given mode measured with every size, each its
own deployment: ``nova`` (the shipped default: Nova force-down only) and ``bmc`` (every
compute has an IPMI BMC that really cuts its power, ``Deployment(bmc=True)``: the kill is
the host's power off through its BMC's path, and KeyVRM fences through the BMC and Nova).
In ``bmc`` runs the step ``power_off`` is when KeyVRM's BMC fencer confirmed the host off
(its record on the host, ``openstack keyvrm hypervisor show``).

Both sizes run with the same Nova timers (``--nova-timers``, default Nova's own 60 s / 10 s)
and the same heartbeat layout: every compute's ``keyvrm-heartbeat-agent`` code in one
``heartbeat_farm`` process (``--agent-processes``: one process per compute, as deployed).
Prints a table per run with the 1-minute load average at the kill, the medians per size,
KeyVRM's own share (all ACTIVE - Nova down), the difference of the all-ACTIVE medians
between the first size and each other, and one JSON line. SIGTERM stops it as Ctrl-C does
(the deployment is stopped, its database dropped). Needs the ``nova`` tox env:

    tox -e nova --notest
    .tox/nova/bin/python -m tests.benchmarks.bench_recovery --computes 8 500 --runs 5
    .tox/nova/bin/python -m tests.benchmarks.bench_recovery --computes 8 --fencing nova bmc

A soak (``--minutes``, ``--every``): one region killed and restored every ``--every`` seconds
for ``--minutes`` minutes; each run's line gives the minutes since the region was ready, so a
deployment that wears out after an hour (the fake cloud's in-memory database once did) shows
as a run that never recovers, or a Nova error, past that minute:

    .tox/nova/bin/python -m tests.benchmarks.bench_recovery --computes 8 --minutes 75 --every 600
"""

import argparse
import datetime
import itertools
import json
import os
import pathlib
import signal
import statistics
import sys
import tempfile
import time

from keyvrm.drivers.cloud import openstack
from tests.benchmarks import throwaway_db
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.nova import conftest as nova_helpers

STEPS = ("nova_down", "claimed", "power_off", "fenced", "all_active")
HOST_LOAD = (20.0, 30.0, 5.0)  # cpu, ram, net %
VM_LOAD = (0.2, 256.0, 1.0)  # busy vCPUs, RAM MB, Mbit/s
METRICS_STEP_S, METRICS_AFTER_S = 60, 4 * 3600  # a steady TSDB for the whole benchmark
FENCING = ("nova", "bmc")


def _populate(region, servers_count):
    """The HA aggregate of every compute, ``servers_count`` servers off the victim, the TSDB fed."""
    driver = openstack.from_endpoints(region.cloud.service_endpoints)
    hosts = region.cloud.endpoints["hosts"]
    nova_helpers.aggregate(driver, "agg-ha", hosts)
    others = hosts[:-1]
    servers = [nova_helpers.boot(driver, "vm-%d" % i, others[i % len(others)]) for i in range(servers_count)]
    metrics_feeder.feed(region.tsdb_url, {h: HOST_LOAD for h in hosts}, {s: VM_LOAD for s in servers},
                        step_s=METRICS_STEP_S, after_s=METRICS_AFTER_S)
    region.openstack("config", "set", "--enabled", "true")
    region.openstack("cycle", "run")  # the first enabled cycle brings Nova's aggregates in
    region.wait(lambda: any(a["name"] == "agg-ha" for a in region.api("/aggregates")["aggregates"]), 300,
                "the aggregate did not appear")
    region.openstack("aggregate", "set", "agg-ha", "--marker", "HA", "--no-noop", "--storage-mode", "shared")
    return driver, hosts[-1]


def _delete(driver, server_ids):
    for server_id in server_ids:
        nova_helpers.nova(driver, "DELETE", "/servers/%s" % server_id)
    nova_helpers.wait_for(lambda: not [s for s in server_ids if nova_helpers.nova(
        driver, "GET", "/servers?uuid=%s" % s)["servers"]], timeout_s=120)


def _boot_victims(region, driver, victim, count, run):
    """``count`` servers on ``victim`` (the TSDB shows them); once KeyVRM's snapshot has them too."""
    victims = [nova_helpers.boot(driver, "victim-%d-%d" % (run, i), victim) for i in range(count)]
    metrics_feeder.feed(region.tsdb_url, {}, {s: VM_LOAD for s in victims},
                        step_s=METRICS_STEP_S, after_s=METRICS_AFTER_S)
    return victims


def _one_run(region, driver, victim, victims):
    """Kill ``victim``; seconds from the kill to each step, and the evacuation timeline."""
    seen, active = {}, {}
    killed_wall = time.time()
    killed_at = region.kill_compute(victim)
    while "all_active" not in seen and time.monotonic() - killed_at < 600:
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
    power_off = _power_off_confirmed(region, victim)
    if power_off is not None:
        seen["power_off"] = _seconds_after(power_off, killed_wall)
    return seen, _evacuation_timeline(region, victims, killed_wall, active)


def _power_off_confirmed(region, victim):
    """When KeyVRM's BMC fencer confirmed ``victim`` off (its record on the host), or None."""
    steps = region.api("/hypervisors/%s" % victim)["hypervisor"]["fencing"] or []
    return next((step["finished_at"] for step in steps if step["fencer"] == "ipmi" and step["confirmed"]), None)


def _restore(region, driver, victim, victims):
    """Once KeyVRM has ended the host's recovery (maintenance), its servers deleted, the host back (``ok``)."""
    region.wait(lambda: region.api("/hypervisors/%s" % victim)["hypervisor"]["state"] == "maintenance", 300,
                "the host did not reach maintenance")
    _delete(driver, victims)
    region.revive_compute(victim)
    region.openstack("hypervisor", "restore", victim)
    region.openstack("cycle", "run")
    region.wait(lambda: region.api("/hypervisors/%s" % victim)["hypervisor"]["state"] == "ok", 600,
                "the host did not return to service")


def _seconds_after(stamp, wall_s):
    """Seconds from ``wall_s`` to ``stamp`` (POSIX s, or an ISO 8601 text as the API writes it)."""
    if stamp is None or stamp == "":
        return None
    if isinstance(stamp, (int, float)):
        return stamp - wall_s
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


def _print_timeline(victim, timeline, fencing):
    print("timeline of the first run with %s fencing (s after killing %s):" % (fencing, victim))
    print("  %-36s %9s %9s %9s" % ("server", "planned", "started", "ACTIVE"))
    for server_id, planned, started, up in sorted(timeline, key=lambda row: row[3] or 1e9):
        print("  %-36s %9s %9s %9s" % (server_id, *("%.1f" % v if v is not None else "-"
                                                    for v in (planned, started, up))))


def keyvrm_share(seen):
    """KeyVRM's own part of a recovery: all ACTIVE - Nova down (None if either is missing)."""
    if "all_active" in seen and "nova_down" in seen:
        return seen["all_active"] - seen["nova_down"]
    return None


def medians(runs):
    """Median seconds per step (and KeyVRM's share) over the steps every run reached."""
    out = {s: statistics.median(r[s] for r in runs) for s in STEPS if runs and all(s in r for r in runs)}
    shares = [keyvrm_share(r) for r in runs]
    if runs and None not in shares:
        out["keyvrm_share"] = statistics.median(shares)
    return out


def measure_size(computes, fencing, args):
    """Deploy a region of ``computes`` computes fenced by ``fencing``, kill its victim ``args.runs`` times; the runs."""
    name, url = throwaway_db.create()
    workdir = tempfile.TemporaryDirectory()
    region = e2e.Deployment(pathlib.Path(workdir.name), url, computes=computes, nova_timers=args.nova_timers,
                            farm_heartbeats=not args.agent_processes, bmc=fencing == "bmc")
    runs = []
    try:
        print("%d computes, %s fencing: starting the deployment (fake cloud, TSDB, Sentinels, agents%s, "
              "engine, API)..." % (computes, fencing, ", BMCs" if fencing == "bmc" else ""), flush=True)
        started = time.monotonic()
        region.start()
        driver, victim = _populate(region, args.servers)
        print("%d computes, %s fencing: deployed and populated in %.0f s (load %.2f)"
              % (computes, fencing, time.monotonic() - started, os.getloadavg()[0]), flush=True)
        print("%-4s %5s %-11s %7s %6s  %s  %10s" % ("run", "min", "host", "servers", "load", "  ".join(
            "%10s" % s for s in STEPS), "keyvrm"))
        ready = time.monotonic()
        for run in itertools.count(1):
            if not _another_run(run, ready, args):
                break
            victims = _boot_victims(region, driver, victim, args.victim_servers, run)
            load = os.getloadavg()[0]
            seen, timeline = _one_run(region, driver, victim, victims)
            seen["load"] = load
            runs.append(seen)
            share = keyvrm_share(seen)
            steps = "  ".join("%9.1fs" % seen[s] if s in seen else "%10s" % "-" for s in STEPS)
            print("%-4d %5.1f %-11s %7d %6.2f  %s  %s" % (
                run, (time.monotonic() - ready) / 60.0, victim, len(victims), load, steps,
                "%9.1fs" % share if share is not None else "%10s" % "-"), flush=True)
            if run == 1:
                _print_timeline(victim, timeline, fencing)
            if "all_active" not in seen:
                break  # the host is not recovered: the next run would measure what is left of this one
            _restore(region, driver, victim, victims)
    finally:
        region.stop()
        workdir.cleanup()
        throwaway_db.drop(name)
    return runs


def _another_run(run, ready, args) -> bool:
    """Whether run ``run`` happens; with ``--every`` it first waits for its turn (one kill every so many s).

    ``--minutes``: runs go on while fewer minutes than that have passed since the region was
    ready (a soak), else ``--runs`` runs.
    """
    elapsed_s = time.monotonic() - ready
    if args.minutes is not None and elapsed_s >= args.minutes * 60.0:
        return False
    if args.minutes is None and run > args.runs:
        return False
    if args.every:
        time.sleep(max(0.0, (run - 1) * args.every - elapsed_s))
    return True


def _timers(text):
    down, report = (int(v) for v in text.split(","))
    return down, report


def _comparisons(args):
    """Pairs of (fencing, computes) to compare: each size with the first, then each fencing with the first."""
    by_size = [((f, args.computes[0]), (f, c)) for f in args.fencing for c in args.computes[1:]]
    by_fencing = [((args.fencing[0], c), (f, c)) for c in args.computes for f in args.fencing[1:]]
    return by_size + by_fencing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--every", type=float, default=0.0,
                        help="Seconds from one kill to the next (0: each run as soon as the last one is restored).")
    parser.add_argument("--minutes", type=float, default=None,
                        help="A soak: runs go on until this many minutes have passed since the region was ready "
                             "(instead of --runs), e.g. --minutes 75 --every 600.")
    parser.add_argument("--computes", type=int, nargs="+", default=[8, 500],
                        help="Region sizes, measured in this order; differences are against the first.")
    parser.add_argument("--servers", type=int, default=11, help="Servers on the computes other than the victim.")
    parser.add_argument("--victim-servers", type=int, default=4, help="Servers booted on the victim before each kill.")
    parser.add_argument("--nova-timers", type=_timers, default=e2e.NOVA_TIMERS,
                        help="Nova's service_down_time,report_interval in s, the same for every size "
                             "(default: Nova's %d,%d)." % e2e.NOVA_TIMERS)
    parser.add_argument("--agent-processes", action="store_true",
                        help="One keyvrm-heartbeat-agent process per compute instead of the farm.")
    parser.add_argument("--fencing", nargs="+", choices=FENCING, default=["nova"],
                        help="How KeyVRM fences, each mode measured in this order: nova (the shipped default, "
                             "Nova force-down) and/or bmc (each compute has an IPMI BMC; BMC and Nova fencing).")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
    results = {}
    for fencing in args.fencing:
        for computes in args.computes:
            results[fencing, computes] = measure_size(computes, fencing, args)
    summary = {key: medians(runs) for key, runs in results.items()}
    print("Nova timers: service_down_time %d s, report_interval %d s" % args.nova_timers)
    print("%7s %8s %5s %6s  %s  %10s" % ("fencing", "computes", "runs", "load", "  ".join(
        "%10s" % s for s in STEPS), "keyvrm"))
    for (fencing, computes), runs in results.items():
        med = summary[fencing, computes]
        load = statistics.median(r["load"] for r in runs) if runs else float("nan")
        print("%7s %8d %5d %6.2f  %s" % (fencing, computes, len(runs), load, "  ".join(
            "%9.1fs" % med[s] if s in med else "%10s" % "-" for s in STEPS + ("keyvrm_share",))))
    for base, other in _comparisons(args):
        if "all_active" in summary[base] and "all_active" in summary[other]:
            print("kill -> all ACTIVE, median: %s fencing, %d computes %.1f s; %s fencing, %d computes %.1f s: "
                  "difference %+.1f s" % (*base, summary[base]["all_active"], *other, summary[other]["all_active"],
                                          summary[other]["all_active"] - summary[base]["all_active"]))
    print(json.dumps({"runs": {"%s/%d" % key: runs for key, runs in results.items()},
                      "medians": {"%s/%d" % key: med for key, med in summary.items()},
                      "nova_timers": args.nova_timers, "heartbeats": "processes" if args.agent_processes else "farm"}))


if __name__ == "__main__":
    main()
