"""Benchmark of the failover analysis (issue 28): CPU seconds per cycle at 1k / 3k / 10k hosts.

For each size it generates a seeded region (tests/unit/planning/regiongen.py) of 20 VMs
per host in aggregates of ``--aggregate-size`` hosts (10,000 hosts: 200,000 VMs in 100
aggregates), every aggregate HA+LB, and runs ``planning.failover.analyse_failover`` on
every aggregate as a cycle would (the snapshot index built once, outside the timing),
at k = 1 and at k = 2. Printed per size and k: CPU seconds (process time), wall seconds,
aggregates below a reserve of 1 and 2, hosts at risk, VMs without a target, peak RSS;
then one JSON line. Targets (k = 1): <= 0.2 s CPU at 1,000 hosts, <= 2 s at 10,000.

    .tox/py3/bin/python tests/benchmarks/bench_failover.py --sizes 1000 3000 10000
"""

import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.planning import failover  # noqa: E402
from tests.unit.planning.regiongen import generate_region  # noqa: E402
from tests.unit.planning.regiongen import RegionShape  # noqa: E402

APP = AppConfig(enabled=True)


def _analyse_region(snap, index, max_k):
    configs = [AggregateConfig(name=a.name, marker="HA+LB", no_op_mode=False, no_op_reason=None,
                               storage_mode="shared") for a in snap.aggregates]
    cpu, wall = time.process_time(), time.perf_counter()
    analyses = [failover.analyse_failover(snap, APP, c, max_k=max_k, index=index) for c in configs]
    return analyses, time.process_time() - cpu, time.perf_counter() - wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--aggregate-size", type=int, default=100)
    parser.add_argument("--vms-per-host", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    opts = parser.parse_args()
    rows = []
    print("%7s %8s %2s %8s %8s %6s %6s %8s %8s %7s" % (
        "hosts", "vms", "k", "cpu_s", "wall_s", "<r1", "<r2", "at_risk", "no_tgt", "rss_mb"))
    for hosts in opts.sizes:
        shape = RegionShape(hosts=hosts, aggregate_size=opts.aggregate_size,
                            vms_per_host=(opts.vms_per_host, opts.vms_per_host))
        snap = generate_region(shape, opts.seed)
        index = snap.index()
        for k in (1, 2):
            analyses, cpu_s, wall_s = _analyse_region(snap, index, k)
            row = dict(hosts=hosts, vms=len(snap.vms), aggregates=len(analyses), k=k,
                       cpu_s=round(cpu_s, 3), wall_s=round(wall_s, 3),
                       below_reserve_1=sum(a.below(1) for a in analyses),
                       below_reserve_2=sum(a.below(2) for a in analyses),
                       hosts_at_risk=sum(len(a.at_risk) for a in analyses),
                       vms_without_target=sum(a.vms_without_target for a in analyses),
                       inexact=sum(not a.exact for a in analyses),
                       peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
            rows.append(row)
            print("%7d %8d %2d %8.3f %8.3f %6d %6d %8d %8d %7d" % (
                hosts, row["vms"], k, cpu_s, wall_s, row["below_reserve_1"], row["below_reserve_2"],
                row["hosts_at_risk"], row["vms_without_target"], row["peak_rss_mb"]))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
