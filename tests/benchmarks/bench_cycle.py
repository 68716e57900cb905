"""Benchmark: one KeyVRM cycle through the engine at region scale (issue 24), before and after in one run.

What runs is what ``keyvrm-engine`` runs: MasterFlow and every flow it starts on TaskFlow,
persisted in a PostgreSQL database this script creates and drops, through the engine's
local dispatcher (4 workers, the default), over a simulated region's drivers
(``keyvrm.simulator.drivers.simulated``) and fencers. A region has ``--vms-per-host`` VMs per host
in aggregates of ``--hosts-per-aggregate`` hosts, every aggregate HA+LB with NOOP off and
shared storage; one host is dead and 2% of the hosts are hot (CPU ramped x2.5) before the
first cycle. Each size runs ``--cycles`` cycles 60 s (simulated) apart: the first fences
and evacuates the dead host and plans LB everywhere; the later ones are the steady cycle
(nothing failed, LB too early); ``--history-days`` fills the database with that much
history first (a cycle a minute with every aggregate's outcomes, and LB events). Then
the engine's HA fast path: another host dies and
the seconds from the watch's look that sees it to HA's claim of the host (the fence
decision) and to the end of what that look started are printed.

Per cycle: wall and CPU seconds of the process, peak RSS during the cycle (VmHWM, reset
before it), RSS of the simulated region alone (it lives in the same process), SQL
statements sent (every engine), flows persisted by name, and the time split by flow step
(wall seconds summed over every run of the step, e.g. ``lb.lb_plan``). Printed as tables
per tree and size, then the steady cycle (median of cycles 2..N) side by side with
ratios, and one JSON line with every figure.

``--baseline REV`` also measures git revision REV (a temporary ``git worktree``) in the
same run, with the same script: each size of each tree runs in a fresh subprocess, so
peak RSS is its own. Needs the functional tox env (PostgreSQL driver) and PostgreSQL at
``KEYVRM_TEST_PG_SERVER`` (default 127.0.0.1:5432, trust). From the repository root:

    .tox/functional/bin/python tests/benchmarks/bench_cycle.py --sizes 200 1000 --baseline HEAD~5
    .tox/functional/bin/python tests/benchmarks/bench_cycle.py --sizes 10000 --cycles 4
"""

import argparse
import collections
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PERIOD_S = 60.0


# --- the worker: one size, one tree, in its own process ------------------------------------------

def _rss_mb(field="VmRSS"):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def _reset_peak_rss():
    """Make VmHWM start again from the current RSS (Linux: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def _cpu_s():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class _Counters:
    """SQL statements, flows persisted and step times of the cycle being measured."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.statements = 0
        self.flows = collections.Counter()
        self.steps = collections.defaultdict(float)

    def add_step(self, name, seconds):
        with self.lock:
            self.steps[name] += seconds


def _step_listener_factory(counters):
    from taskflow.listeners import base
    from taskflow import states

    class StepTimer(base.Listener):
        def __init__(self, engine, flow_name):
            super().__init__(engine, task_listen_for=(states.RUNNING, states.SUCCESS, states.FAILURE),
                             flow_listen_for=())
            self._flow_name = flow_name
            self._started = {}

        def _task_receiver(self, state, details):
            name = details.get("task_name")
            if state == states.RUNNING:
                self._started[name] = time.perf_counter()
            elif name in self._started:
                counters.add_step("%s.%s" % (self._flow_name, name), time.perf_counter() - self._started.pop(name))

    return lambda engine, record: StepTimer(engine, record.flow_name)


def _generate(hosts, vms_per_host, hosts_per_aggregate, seed):
    from keyvrm.simulator import faults
    from keyvrm.simulator import generator
    from keyvrm.simulator import region as r
    region = generator.generate(
        {"hosts": hosts, "hosts_per_aggregate": hosts_per_aggregate, "hosts_per_rack": 20,
         "availability_zones": 3},
        {"vms_per_host": vms_per_host, "cpu_util": 0.35},
        r.RegionOptions(seed=seed))
    names = sorted(region.hosts)
    dead = names[len(names) // 2 + 3]
    hot = names[7::50]  # 2% of the hosts, spread over the aggregates
    faults.host_dies(region, {"hosts": [dead]})
    faults.overload(region, {"hosts": [h for h in hot if h != dead], "cpu_factor": 2.5, "ramp_s": 60.0})
    return region, dead, len(hot)


def _fast_path(embedded_region, dispatcher, counters, victim):
    """The engine's HA fast path at work: seconds from the watch's look that sees ``victim`` dead to HA's claim.

    The engine's own ``watch_once`` (on a dispatcher-only engine, the sole leader): its
    first look learns the states, the host dies, 61 simulated seconds pass (Nova reports
    it down, its heartbeat is stale), the next look starts what the engine starts for it.
    Also: to the end of everything that look started (fenced and evacuated), and the SQL
    statements sent meanwhile.
    """
    from keyvrm.db import api as db_api
    from keyvrm.engine import leader
    from keyvrm.engine import service
    from keyvrm.simulator import faults

    engine = service.Engine(embedded_region.conf, embedded_region.resources, clock=embedded_region.clock)
    engine.dispatcher, engine.leader = dispatcher, leader.SoleLeader()
    engine.watch_once()
    faults.host_dies(embedded_region.region, {"hosts": [victim]})
    embedded_region.advance(61.0)
    counters.reset()
    started = time.perf_counter()
    engine.watch_once()
    decided_s = None
    while decided_s is None and time.perf_counter() - started < 600:
        if db_api.get_hypervisor_state(embedded_region.db, victim)["state"] != "ok":
            decided_s = time.perf_counter() - started
        else:
            time.sleep(0.01)
    dispatcher.wait_idle(3600.0)
    moved = [r for r in db_api.list_recommendations(embedded_region.db) if r["source_host"] == victim]
    return {"host": victim, "signal_to_decision_s": None if decided_s is None else round(decided_s, 3),
            "signal_to_done_s": round(time.perf_counter() - started, 3),
            "state": db_api.get_hypervisor_state(embedded_region.db, victim)["state"],
            "evacuations_succeeded": sum(r["status"] == "succeeded" for r in moved),
            "sql_statements": counters.statements, "flows": dict(counters.flows)}


def _fill_history(url, aggregates, days, now_s):
    """Write ``days`` of history before ``now_s`` with COPY; returns the rows written.

    As KeyVRM leaves it: a cycle a minute, each aggregate's HA and LB outcomes (LB too
    early, every tenth cycle nothing overloaded), an LB event every tenth cycle on every
    fifth aggregate.
    """
    import datetime
    import io

    import sqlalchemy as sa

    def at(seconds):
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(tzinfo=None).isoformat()

    cycles, outcomes, events = io.StringIO(), io.StringIO(), io.StringIO()
    count = int(days * 1440)
    rows = 0
    for number in range(1, count + 1):
        when = now_s - (count - number + 1) * PERIOD_S
        cycles.write("%d\tcompleted\tall_processed\tevery aggregate processed\t%s\t%s\n"
                     % (number, at(when), at(when + 1)))
        lb_ran = number % 10 == 0
        for name in aggregates:
            outcomes.write("%d\t%s\tHA\tno_failure\t[no_failure] no failed host\t%s\t%s\n"
                           % (number, name, at(when), at(when)))
            code = "no_overload" if lb_ran else "lb_too_early"
            outcomes.write("%d\t%s\tLB\t%s\t[%s] ...\t%s\t%s\n" % (number, name, code, code, at(when), at(when)))
            rows += 2
        if lb_ran:
            for name in aggregates[::5]:
                events.write("hist-%d-%s\t%s\tLB\tLB\tcompleted\thealthy\trecommendations_final\t"
                             "[recommendations_final] 1 succeeded\t%d\t%s\t%s\t%s\n"
                             % (number, name, name, number, at(when), at(when + 30), at(when + 30)))
                rows += 1
    engine = sa.create_engine(url)
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        for table, columns, text in (
                ("cycles", "id, status, reason_code, reason, started_at, finished_at", cycles),
                ("cycle_outcomes", "cycle_id, aggregate_name, kind, reason_code, reason, ran_at, created_at",
                 outcomes),
                ("events", "id, aggregate_name, kind, marker, status, state, reason_code, reason, cycle_id, "
                           "created_at, updated_at, finished_at", events)):
            text.seek(0)
            cursor.copy_expert("COPY %s (%s) FROM STDIN" % (table, columns), text)
        cursor.execute("SELECT setval('cycles_id_seq', %d)" % count)
        connection.commit()
        connection.set_isolation_level(0)
        cursor.execute("VACUUM ANALYZE")
    finally:
        connection.close()
        engine.dispose()
    return rows + count


def run_worker(args):
    """Measure ``args.cycles`` cycles of one size on the tree at ``args.tree``; print one JSON line."""
    sys.path.insert(0, args.tree)
    import sqlalchemy as sa

    from keyvrm.db import api as db_api
    from keyvrm.demo import embedded
    from keyvrm.engine import dispatch
    from keyvrm.engine import persistence as engine_persistence
    from tests.benchmarks import throwaway_db

    started = time.perf_counter()
    region, dead, hot = _generate(args.hosts, args.vms_per_host, args.hosts_per_aggregate, args.seed)
    generate_s = time.perf_counter() - started
    rss_region_mb = _rss_mb()
    counters = _Counters()

    def count_statement(*_args, **_kwargs):
        counters.statements += 1

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", count_statement)
    db_name, url = throwaway_db.create()
    try:
        embedded_region = embedded.EmbeddedRegion(region, url, driven=True)
        embedded_region.sync_aggregates()
        aggregates = {name: {"marker": "HA+LB", "no_op_mode": False, "storage_mode": "shared"}
                      for name in region.aggregates}
        embedded_region.configure(app={"enabled": True}, aggregates=aggregates)
        history_rows = _fill_history(url, sorted(region.aggregates), args.history_days, region.now) \
            if args.history_days else 0
        persistence = engine_persistence.Persistence(url)
        persistence.upgrade()
        create = persistence.create

        def counting_create(flow_name, store, mode):
            counters.flows[flow_name] += 1
            return create(flow_name, store, mode)

        persistence.create = counting_create
        dispatcher = dispatch.LocalDispatcher(embedded_region.resources, persistence, workers=4,
                                              listener_factories=[_step_listener_factory(counters)])
        embedded_region.advance(120.0)  # Nova sees the dead host down, its heartbeat is stale
        cycles = []
        for number in range(1, args.cycles + 1):
            counters.reset()
            _reset_peak_rss()
            cpu0, wall0 = _cpu_s(), time.perf_counter()
            dispatcher.dispatch("master", {})
            finished = dispatcher.wait_idle(3600.0)
            wall = time.perf_counter() - wall0
            cycles.append({
                "cycle": number, "finished": finished, "wall_s": round(wall, 3),
                "cpu_s": round(_cpu_s() - cpu0, 3), "peak_rss_mb": round(_rss_mb("VmHWM"), 1),
                "sql_statements": counters.statements, "flows": dict(counters.flows),
                "steps_s": {k: round(v, 3) for k, v in sorted(counters.steps.items(), key=lambda kv: -kv[1])},
            })
            print("  %s hosts, cycle %d: %.1f s wall, %.1f s CPU, %.0f MB peak, %d SQL statements"
                  % (args.hosts, number, wall, cycles[-1]["cpu_s"], cycles[-1]["peak_rss_mb"],
                     counters.statements), file=sys.stderr, flush=True)
            embedded_region.advance(PERIOD_S)
        evacuated = [r for r in db_api.list_recommendations(embedded_region.db) if r["source_host"] == dead]
        fast_path = _fast_path(embedded_region, dispatcher, counters, sorted(region.hosts)[len(region.hosts) // 3])
        dispatcher.stop()
        persistence.close()
        embedded_region.db.dispose()
    finally:
        throwaway_db.drop(db_name)
    print(json.dumps({"hosts": args.hosts, "vms": len(region.vms), "aggregates": len(region.aggregates),
                      "hot_hosts": hot, "dead_host": dead, "evacuations": len(evacuated),
                      "evacuations_succeeded": sum(r["status"] == "succeeded" for r in evacuated),
                      "generate_s": round(generate_s, 2), "rss_region_mb": round(rss_region_mb, 1),
                      "history_days": args.history_days, "history_rows": history_rows,
                      "cycles": cycles, "fast_path": fast_path}))


# --- the parent: trees x sizes, tables ----------------------------------------------------------

def _measure(tree, hosts, args):
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--tree", tree, "--hosts", str(hosts),
               "--cycles", str(args.cycles), "--vms-per-host", str(args.vms_per_host),
               "--hosts-per-aggregate", str(args.hosts_per_aggregate), "--seed", str(args.seed),
               "--history-days", str(args.history_days)]
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + REPO, PYTHONHASHSEED="0")
    done = subprocess.run(command, env=env, cwd=tree, stdout=subprocess.PIPE, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"hosts": hosts, "error": "worker exited %d" % done.returncode}
    return json.loads(lines[-1])


def _steady(result, key):
    values = [c[key] for c in result["cycles"][1:]] or [c[key] for c in result["cycles"]]
    return statistics.median(values)


def _print_tree(label, results):
    print("\n%s" % label)
    columns = ("hosts/VMs/aggregates", "cycle", "wall s", "CPU s", "peak MB", "region MB", "SQL", "flows persisted")
    print("%-22s %6s %8s %8s %9s %9s %6s  %s" % columns)
    for result in results:
        if "error" in result:
            print("%-22s %s" % (result["hosts"], result["error"]))
            continue
        size = "%d/%d/%d" % (result["hosts"], result["vms"], result["aggregates"])
        if result.get("history_rows"):
            print("%22s history before the first cycle: %g days, %d rows" % (
                "", result["history_days"], result["history_rows"]))
        for c in result["cycles"]:
            flows = ", ".join("%s %d" % kv for kv in sorted(c["flows"].items()))
            print("%-22s %6d %8.2f %8.2f %9.0f %9.0f %6d  %s" % (
                size, c["cycle"], c["wall_s"], c["cpu_s"], c["peak_rss_mb"], result["rss_region_mb"],
                c["sql_statements"], flows))
            size = ""
        print("%22s evacuations of the dead host: %d planned, %d succeeded" % (
            "", result["evacuations"], result["evacuations_succeeded"]))
        fast = result["fast_path"]
        figures = ("", fast["host"], fast["signal_to_decision_s"], fast["signal_to_done_s"], fast["state"],
                   fast["evacuations_succeeded"], fast["sql_statements"], fast["flows"])
        print("%22s fast path (%s dies): signal -> fence decision %s s, -> done %.2f s (%s, %d evacuated), "
              "%d SQL statements, flows %s" % figures)
        steady = result["cycles"][-1]["steps_s"]
        top = list(steady.items())[:8]
        print("%22s steady cycle by step (s, summed over runs): %s" % (
            "", ", ".join("%s %.2f" % kv for kv in top)))
        first = list(result["cycles"][0]["steps_s"].items())[:8]
        print("%22s first cycle by step: %s" % ("", ", ".join("%s %.2f" % kv for kv in first)))


def _print_comparison(trees, results):
    if len(trees) < 2:
        return
    (base_label, _), (new_label, _) = trees[0], trees[-1]
    print("\nsteady cycle (median of cycles 2..N): %s -> %s" % (base_label, new_label))
    print("%8s %10s %10s %7s %10s %10s %7s %8s %8s %7s" % (
        "hosts", "wall s", "wall s", "ratio", "peak MB", "peak MB", "ratio", "SQL", "SQL", "ratio"))
    for before, after in zip(results[base_label], results[new_label]):
        if "error" in before or "error" in after:
            continue
        row = [before["hosts"]]
        for key in ("wall_s", "peak_rss_mb", "sql_statements"):
            b, a = _steady(before, key), _steady(after, key)
            row += [b, a, a / b if b else float("nan")]
        print("%8d %10.2f %10.2f %7.3f %10.0f %10.0f %7.3f %8d %8d %7.3f" % tuple(row))
    print("\nfast path: signal -> fence decision (s): %s -> %s" % (base_label, new_label))
    for before, after in zip(results[base_label], results[new_label]):
        if "error" not in before and "error" not in after:
            b, a = before["fast_path"]["signal_to_decision_s"], after["fast_path"]["signal_to_decision_s"]
            print("%8d %10s %10s %7s" % (before["hosts"], b, a, "%.3f" % (a / b) if a and b else "n/a"))


def _worktree(revision):
    path = tempfile.mkdtemp(prefix="keyvrm-baseline-")
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", path, revision], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 3000, 10000], help="hosts")
    parser.add_argument("--cycles", type=int, default=4)
    parser.add_argument("--vms-per-host", type=int, default=20)
    parser.add_argument("--hosts-per-aggregate", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--history-days", type=float, default=0.0,
                        help="days of cycles, outcomes and LB events in the database before the first cycle")
    parser.add_argument("--baseline", help="a git revision measured too, first (e.g. HEAD~10)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default=REPO, help=argparse.SUPPRESS)
    parser.add_argument("--hosts", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return
    trees, worktree = [], None
    if args.baseline:
        worktree = _worktree(args.baseline)
        trees.append(("baseline %s" % args.baseline, worktree))
    trees.append(("this tree", REPO))
    results = {}
    try:
        for label, tree in trees:
            results[label] = []
            for hosts in args.sizes:
                print("%s: %d hosts ..." % (label, hosts), file=sys.stderr, flush=True)
                results[label].append(_measure(tree, hosts, args))
    finally:
        if worktree:
            subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", worktree], check=False)
    for label, _ in trees:
        _print_tree(label, results[label])
    _print_comparison(trees, results)
    print(json.dumps({"cycles": args.cycles, "vms_per_host": args.vms_per_host,
                      "hosts_per_aggregate": args.hosts_per_aggregate, "results": results}))


if __name__ == "__main__":
    main()
