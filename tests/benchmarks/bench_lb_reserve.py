"""Benchmark: LB that keeps the failover reserve (issue 28) against LB without it, on CPU-hot regions.

For each size and fill, a seeded CPU-hot region (tests/unit/planning/regiongen.py: 10% of
hosts at 85-100% CPU, 20 VMs per host, anti-affinity groups) in HA+LB aggregates of
``--aggregate-size`` hosts (storage shared) is planned by LB once per reserve in
``--reserves`` (0: no reserve, the LB of earlier releases). Each moved region is then
analysed with ``planning.failover`` (k up to 2) against the region before, per aggregate:

- ``moves`` and ``GB`` (flavor RAM) of the plans, CPU std-dev and max host CPU after;
- ``plan cpu``: process CPU seconds of the LB plans (the reserve guard's plans included)
  and ``guard plans``: evacuation plans the guard made;
- ``worse``: host failures (single hosts, every host) that leave more VMs behind after
  the plan than before; ``broken``: aggregates whose tolerance fell below the reserve
  the row keeps (for reserve 0: below 1) although it met it before.

Then per size and fill, moves of each reserve against reserve 0 (target: within 10% of
LB without the reserve, 0 moves that break it). One JSON line at the end. Never a timed test.

    .tox/py3/bin/python tests/benchmarks/bench_lb_reserve.py --sizes 300 1000 --fills 0.70 0.95
"""

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.planning import failover  # noqa: E402
from keyvrm.planning import lb  # noqa: E402
from keyvrm.planning import reserve  # noqa: E402
from keyvrm.scheduling import scoring  # noqa: E402
from tests.unit.planning import regiongen  # noqa: E402

APP = AppConfig(enabled=True)


def _config(name, reserve_hosts):
    return AggregateConfig(name=name, marker="HA+LB", no_op_mode=False, no_op_reason=None,
                           storage_mode="shared", ha_failover_reserve=reserve_hosts)


def _left_behind(analysis) -> dict:
    return {risk.hosts[0]: len(risk.without_target) for risk in analysis.at_risk}


def _count_guard_plans():
    """Wrap ReserveGuard._plan to count its plans; returns the counter dict."""
    counter = {"plans": 0}
    original = reserve.ReserveGuard._plan

    def counted(self, hosts):
        counter["plans"] += 1
        return original(self, hosts)

    reserve.ReserveGuard._plan = counted
    return counter


def run(snap, reserve_hosts, counter):
    index = snap.index()
    moves, cpu = [], 0.0
    configs = [_config(a.name, reserve_hosts) for a in snap.aggregates]
    plans_before = counter["plans"]
    for config in configs:
        start = time.process_time()
        plan = lb.plan_balancing(snap, APP, config, m.BusySet(), index=index)
        cpu += time.process_time() - start
        moves.extend(plan.moves)
    after = regiongen.moved_region(snap, moves, regiongen.loads_after(moves))
    after_index = after.index()
    worse = broken = 0
    keep = max(reserve_hosts, 1)
    for config in configs:
        before_a = failover.analyse_failover(snap, APP, config, max_k=keep, index=index)
        after_a = failover.analyse_failover(after, APP, config, max_k=keep, index=after_index)
        was, now = _left_behind(before_a), _left_behind(after_a)
        worse += sum(1 for host, left in now.items() if left > was.get(host, 0))
        broken += before_a.tolerance >= keep > after_a.tolerance
    cpu_after = [scoring.load_of(h).cpu_pct for h in after.hypervisors if scoring.load_of(h).cpu_pct is not None]
    return dict(reserve=reserve_hosts, moves=len(moves), gb=round(sum(mv.ram_mb for mv in moves) / 1024.0, 1),
                cpu_sd=round(statistics.pstdev(cpu_after), 2), cpu_max=round(max(cpu_after), 1),
                plan_cpu_s=round(cpu, 3), guard_plans=counter["plans"] - plans_before, worse=worse, broken=broken)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--fills", type=float, nargs="+", default=[0.70, 0.95],
                        help="allocated share of each host's RAM (the CPU-hot shape's is 0.70)")
    parser.add_argument("--reserves", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--aggregate-size", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args(argv)
    counter = _count_guard_plans()
    results = []
    print("%-6s %-5s %-5s %-8s %6s %8s %7s %7s %9s %12s %6s %7s" % (
        "hosts", "fill", "seed", "reserve", "moves", "GB", "cpu sd", "cpu max", "plan cpu", "guard plans",
        "worse", "broken"))
    for hosts in args.sizes:
        for fill in args.fills:
            shape = dataclasses.replace(regiongen.cpu_hot_shape(hosts, args.aggregate_size),
                                        fill=(fill, min(1.0, fill + 0.04)))
            rows = []
            for seed in args.seeds:
                snap = regiongen.generate_region(shape, seed)
                for reserve_hosts in args.reserves:
                    row = dict(hosts=hosts, fill=fill, seed=seed, **run(snap, reserve_hosts, counter))
                    rows.append(row)
                    print("%-6d %-5.2f %-5d %-8d %6d %8.1f %7.2f %7.1f %9.3f %12d %6d %7d" % (
                        hosts, fill, seed, reserve_hosts, row["moves"], row["gb"], row["cpu_sd"], row["cpu_max"],
                        row["plan_cpu_s"], row["guard_plans"], row["worse"], row["broken"]), flush=True)
            for reserve_hosts in args.reserves:
                if reserve_hosts == 0:
                    continue
                ratios = [with_["moves"] / without["moves"] for with_, without in zip(
                    [r for r in rows if r["reserve"] == reserve_hosts], [r for r in rows if r["reserve"] == 0])
                    if without["moves"]]
                cpu = [r["plan_cpu_s"] for r in rows if r["reserve"] == reserve_hosts]
                cpu0 = [r["plan_cpu_s"] for r in rows if r["reserve"] == 0]
                print("hosts %d fill %.2f reserve %d: moves %.2fx of LB without reserve (median of %d seeds),"
                      " plan cpu %.3f s vs %.3f s (medians), moves that broke the reserve: %d" % (
                          hosts, fill, reserve_hosts, statistics.median(ratios) if ratios else float("nan"),
                          len(ratios), statistics.median(cpu), statistics.median(cpu0),
                          sum(r["broken"] for r in rows if r["reserve"] == reserve_hosts)))
            results.extend(rows)
    print(json.dumps({"benchmark": "lb_reserve", "results": results}))


if __name__ == "__main__":
    main()
