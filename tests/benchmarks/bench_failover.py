"""Benchmark of the failover analysis (issue 28): CPU seconds per cycle at 1k / 3k / 10k hosts.

For each size it generates a seeded region (tests/unit/planning/regiongen.py) of 20 VMs
per host in aggregates of ``--aggregate-size`` hosts (10,000 hosts: 200,000 VMs in 100
aggregates), every aggregate HA+LB, and runs ``planning.failover.analyse_failover`` on
every aggregate as a cycle would (the snapshot index built once, outside the timing),
at k = 1 and at k = 2, through an engine's ``AnalysisCache``, for three cycles:

- ``cold``: the engine's first cycle, every aggregate planned;
- ``steady``: the next snapshot, in which every host's and VM's load and every heartbeat
  changed and nothing a plan reads did (fingerprints only);
- ``churn``: one VM deleted in ``--churn`` of the aggregates (default 10%): those planned again.

With ``--hosts-per-rack N`` every aggregate's hosts are also put, N at a time, in Nova
aggregates labelled ``ha_failure_domain`` (one per rack), so each cycle also plans every
rack failing as a whole (``planning.failure_domains``); without it no rack is labelled.

Printed per size, k and cycle: CPU seconds (process time), wall seconds, aggregates
planned, aggregates below a reserve of 1 and 2, hosts at risk, VMs without a target,
racks analysed and racks at risk, peak RSS; then one JSON line. Targets (k = 1): <= 0.2 s
CPU at 1,000 hosts, <= 2 s at 10,000.

    .tox/py3/bin/python tests/benchmarks/bench_failover.py --sizes 1000 3000 10000
"""

import argparse
import json
import os
import random
import resource
import sys
import time

import msgspec

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.planning import failover  # noqa: E402
from keyvrm.planning import failure_domains  # noqa: E402
from tests.unit.planning.regiongen import generate_region  # noqa: E402
from tests.unit.planning.regiongen import RegionShape  # noqa: E402

APP = AppConfig(enabled=True)


def _analyse_region(snap, index, max_k, cache):
    configs = [AggregateConfig(name=a.name, marker="HA+LB", no_op_mode=False, no_op_reason=None,
                               storage_mode="shared") for a in snap.aggregates
               if failure_domains.DOMAIN_KEY not in a.metadata]  # rack aggregates are not HA ones
    misses = cache.misses
    cpu, wall = time.process_time(), time.perf_counter()
    analyses = [failover.analyse_failover(snap, APP, c, max_k=max_k, index=index, cache=cache) for c in configs]
    return analyses, time.process_time() - cpu, time.perf_counter() - wall, cache.misses - misses


def _next_cycle(snap):
    """The next snapshot: new load on every host and VM, new heartbeats, nothing a plan reads changed."""
    later = snap.taken_at + 60.0
    hosts = tuple(msgspec.structs.replace(h, heartbeat_at=later - 1.0, metrics=m.HostMetrics(
        cpu_pct=random.uniform(5, 95), ram_pct=random.uniform(20, 90))) for h in snap.hypervisors)
    vms = tuple(msgspec.structs.replace(vm, metrics=m.VMMetrics(cpu_cores=random.uniform(0, 2)))
                for vm in snap.vms)
    return msgspec.structs.replace(snap, taken_at=later, hypervisors=hosts, vms=vms)


def _churned(snap, index, share):
    """``snap`` with one VM deleted in ``share`` of its aggregates."""
    aggregates = sorted(a.name for a in snap.aggregates if failure_domains.DOMAIN_KEY not in a.metadata)
    chosen = random.sample(aggregates, max(1, round(share * len(aggregates))))
    gone = set()
    for name in chosen:
        for host in index.hypervisors_of(name):
            on_host = index.vms_on(host.name)
            if on_host:
                gone.add(on_host[0].id)
                break
    return msgspec.structs.replace(snap, vms=tuple(vm for vm in snap.vms if vm.id not in gone))


def _racked(snap, hosts_per_rack):
    """``snap`` with each aggregate's hosts in rack aggregates of ``hosts_per_rack`` labelled ha_failure_domain."""
    racks, rack_of = [], {}
    for agg in snap.aggregates:
        for start in range(0, len(agg.hosts), hosts_per_rack):
            name = "rack-%05d" % (len(racks) + 1)
            members = agg.hosts[start:start + hosts_per_rack]
            racks.append(m.Aggregate(name, 100000 + len(racks), metadata={failure_domains.DOMAIN_KEY: name},
                                     hosts=tuple(members)))
            rack_of.update((host, name) for host in members)
    hosts = tuple(msgspec.structs.replace(h, aggregates=h.aggregates + (rack_of[h.name],)) if h.name in rack_of
                  else h for h in snap.hypervisors)
    return msgspec.structs.replace(snap, aggregates=snap.aggregates + tuple(racks), hypervisors=hosts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--aggregate-size", type=int, default=100)
    parser.add_argument("--vms-per-host", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--churn", type=float, default=0.10)
    parser.add_argument("--hosts-per-rack", type=int, default=0, help="label racks of this many hosts (0: none)")
    opts = parser.parse_args()
    random.seed(opts.seed)
    rows = []
    print("%7s %8s %2s %7s %8s %8s %7s %5s %5s %8s %8s %6s %7s %7s" % (
        "hosts", "vms", "k", "cycle", "cpu_s", "wall_s", "planned", "<r1", "<r2", "at_risk", "no_tgt", "racks",
        "rk_risk", "rss_mb"))
    for hosts in opts.sizes:
        shape = RegionShape(hosts=hosts, aggregate_size=opts.aggregate_size,
                            vms_per_host=(opts.vms_per_host, opts.vms_per_host))
        first = generate_region(shape, opts.seed)
        if opts.hosts_per_rack > 0:
            first = _racked(first, opts.hosts_per_rack)
        steady = _next_cycle(first)
        cycles = [("cold", first), ("steady", steady), ("churn", _churned(steady, steady.index(), opts.churn))]
        for k in (1, 2):
            cache = failover.AnalysisCache()
            for cycle, snap in cycles:
                index = snap.index()
                analyses, cpu_s, wall_s, planned = _analyse_region(snap, index, k, cache)
                row = dict(hosts=hosts, vms=len(snap.vms), aggregates=len(analyses), k=k, cycle=cycle,
                           cpu_s=round(cpu_s, 3), wall_s=round(wall_s, 3), planned=planned,
                           below_reserve_1=sum(a.below(1) for a in analyses),
                           below_reserve_2=sum(a.below(2) for a in analyses),
                           hosts_at_risk=sum(len(a.at_risk) for a in analyses),
                           vms_without_target=sum(a.vms_without_target for a in analyses),
                           inexact=sum(not a.exact for a in analyses),
                           racks=sum(a.domains for a in analyses),
                           racks_at_risk=sum(len(a.domains_at_risk) for a in analyses),
                           peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
                rows.append(row)
                print("%7d %8d %2d %7s %8.3f %8.3f %7d %5d %5d %8d %8d %6d %7d %7d" % (
                    hosts, row["vms"], k, cycle, cpu_s, wall_s, planned, row["below_reserve_1"],
                    row["below_reserve_2"], row["hosts_at_risk"], row["vms_without_target"], row["racks"],
                    row["racks_at_risk"], row["peak_rss_mb"]),
                    flush=True)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
