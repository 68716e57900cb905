"""Benchmark of the planning core on seeded synthetic regions: HA and LB plan times.

For each size it generates a region (tests/unit/planning/regiongen.py) and prints: the
HA plan time for one failed host and for a 5% rack failure, the LB plan time over all
aggregates, peak RSS, LB imbalance (std dev of syn_score) before/after, migrations, GB
of RAM moved, and HA VMs placed against a simple capacity upper bound. The last line is
one JSON document with every figure. Targets: LB <= 1 s at 1k hosts / 20k VMs and
<= 15 s at 10k / 200k; HA <= 200 ms for one host at 10k hosts.
"""

import argparse
import json
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.planning import ha  # noqa: E402
from keyvrm.planning import lb  # noqa: E402
from keyvrm.scheduling import hugepages  # noqa: E402
from keyvrm.scheduling import scoring  # noqa: E402
from tests.unit.planning.regiongen import generate_region  # noqa: E402
from tests.unit.planning.regiongen import RegionShape  # noqa: E402

APP = AppConfig(enabled=True)


def _config(name):
    return AggregateConfig(name=name, marker="HA+LB", no_op_mode=False, no_op_reason=None)


def _is_huge_aggregate(index, agg):
    hosts = index.hypervisors_of(agg.name)
    return any(h.hugepages for h in hosts)


def _capacity_bound(index, agg_name, fenced, evacuable):
    """Upper bound on evacuable VMs placeable: fractional fit into summed free RAM/vCPU."""
    free_ram = free_cpu = 0.0
    for h in index.hypervisors_of(agg_name):
        if h.name in fenced:
            continue
        ram, cpu = h.inventories[m.MEMORY_MB], h.inventories[m.VCPU]
        free_ram += ram.capacity - ram.used
        free_cpu += cpu.capacity - cpu.used
    count = 0
    for vm in sorted(evacuable, key=lambda v: (v.flavor.ram_mb, v.flavor.vcpus)):
        if vm.flavor.ram_mb > free_ram or vm.flavor.vcpus > free_cpu:
            break
        free_ram -= vm.flavor.ram_mb
        free_cpu -= vm.flavor.vcpus
        count += 1
    return count


def _evacuable(index, hosts):
    return [vm for h in hosts for vm in index.vms_on(h)
            if not vm.no_evac and not vm.local_disk]


def _ha_plan(snap, index, fenced_by_agg):
    start = time.perf_counter()
    placed = 0
    for agg_name, fenced in fenced_by_agg.items():
        plan = ha.plan_evacuation(snap, APP, _config(agg_name), m.BusySet(), fenced,
                                  index=index)
        placed += len(plan.moves)
    elapsed = time.perf_counter() - start
    bound = sum(_capacity_bound(index, a, set(f), _evacuable(index, f))
                for a, f in fenced_by_agg.items())
    return elapsed, placed, bound


def _lb_run(snap, index):
    start = time.perf_counter()
    plans = []
    for agg in snap.aggregates:
        plans.append((agg.name, lb.plan_balancing(snap, APP, _config(agg.name), m.BusySet(),
                                                  index=index)))
    elapsed = time.perf_counter() - start
    weights = _config("x").lb_weights
    before = {h.name: scoring.syn_score(scoring.load_of(h), weights) for h in snap.hypervisors
              if not h.hugepages}
    after = dict(before)
    moves = [mv for _, plan in plans for mv in plan.moves]
    for mv in moves:
        after[mv.source] = mv.load.source.syn_score_after_pct
        after[mv.target] = mv.load.target.syn_score_after_pct
    scored_before = [s for s in before.values() if s is not None]
    scored_after = [s for s in after.values() if s is not None]
    return dict(lb_plan_s=round(elapsed, 4), migrations=len(moves),
                ram_moved_gb=round(sum(mv.ram_mb for mv in moves) / 1024.0, 1),
                imbalance_before_pct=round(statistics.pstdev(scored_before), 2),
                imbalance_after_pct=round(statistics.pstdev(scored_after), 2),
                overloaded_before=sum(1 for s in scored_before if s > 80),
                overloaded_after=sum(1 for s in scored_after if s > 80),
                mixed_hugepages_errors=sum(1 for _, p in plans if p.is_error))


def run_size(hosts, seed, aggregate_size):
    start = time.perf_counter()
    snap = generate_region(RegionShape(hosts=hosts, aggregate_size=aggregate_size), seed)
    gen_s = time.perf_counter() - start
    index = snap.index()
    plain = [a for a in snap.aggregates if not _is_huge_aggregate(index, a)]
    one_agg = plain[0] if plain else snap.aggregates[0]
    failed = max(one_agg.hosts, key=lambda h: (len(index.vms_on(h)), h))
    ha_one_s, one_placed, one_bound = _ha_plan(snap, index, {one_agg.name: [failed]})
    rack = max(1, hosts // 20)
    names = [h.name for h in snap.hypervisors]
    first = len(names) // 3
    rack_hosts = set(names[first:first + rack])
    fenced_by_agg = {}
    for agg in snap.aggregates:
        hit = [h for h in agg.hosts if h in rack_hosts]
        if hit:
            fenced_by_agg[agg.name] = hit
    ha_rack_s, rack_placed, rack_bound = _ha_plan(snap, index, fenced_by_agg)
    result = dict(hosts=hosts, vms=len(snap.vms), seed=seed, aggregate_size=aggregate_size,
                  aggregates=len(snap.aggregates), generate_s=round(gen_s, 3),
                  ha_one_host_s=round(ha_one_s, 4), ha_one_host_placed=one_placed,
                  ha_one_host_bound=one_bound, ha_rack_hosts=rack,
                  ha_rack_s=round(ha_rack_s, 4), ha_rack_placed=rack_placed,
                  ha_rack_bound=rack_bound)
    result.update(_lb_run(snap, index))
    result["peak_rss_mb"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    huge_vms = sum(1 for vm in snap.vms if hugepages.wants_hugepages(
        hugepages.requested_page_size(vm.flavor)))
    result["hugepage_vms"] = huge_vms
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000",
                        help="comma-separated host counts to benchmark (default %(default)s)")
    parser.add_argument("--seed", type=int, default=42,
                        help="seed of the region generator (default %(default)s)")
    parser.add_argument("--aggregate-size", type=int, default=200,
                        help="hosts per aggregate (default %(default)s); use the largest size"
                        " to plan one region-wide aggregate")
    args = parser.parse_args(argv)
    results = []
    for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
        r = run_size(size, args.seed, args.aggregate_size)
        results.append(r)
        print("hosts=%(hosts)d vms=%(vms)d gen=%(generate_s).2fs | HA one host "
              "%(ha_one_host_s).4fs placed %(ha_one_host_placed)d/%(ha_one_host_bound)d | "
              "HA rack(%(ha_rack_hosts)d) %(ha_rack_s).3fs placed %(ha_rack_placed)d/"
              "%(ha_rack_bound)d | LB %(lb_plan_s).3fs moves %(migrations)d "
              "(%(ram_moved_gb).1f GB) imbalance %(imbalance_before_pct).2f -> "
              "%(imbalance_after_pct).2f overloaded %(overloaded_before)d -> "
              "%(overloaded_after)d | peak RSS %(peak_rss_mb).0f MB" % r)
        sys.stdout.flush()
    print(json.dumps({"benchmark": "planning", "results": results}))


if __name__ == "__main__":
    main()
