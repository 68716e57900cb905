"""Benchmark of LB plans on issue 16's hot-spot regions, against a greedy reference balancer.

For each region shape (``cpu``: 10% of hosts at 85-100% CPU, RAM resident ~45%; ``ram``:
10% of hosts with resident RAM at 93-99%; both 20 VMs per host, 70% allocated,
anti-affinity groups, see tests/unit/planning/regiongen.py) and size, one region-wide
aggregate is planned with the shipped defaults, once with the Nova filters (the default
``nova_filters``) and once without (empty list), and the moved region is compared with
the same hosts before. Printed per row: migrations, GB of RAM moved (flavor RAM),
weighted (syn_score) and hot-resource standard deviation before/after, the most loaded
host per resource after, hosts still overloaded (at/above a ceiling or above the
threshold), violations (capacity, anti-affinity), plan time (wall, and the process's CPU
time: on a shared machine the wall time also counts other work), and a second plan on
the moved region (moves it would add: 0 means no ping-pong). Beside each result, two
lower bounds on its migrations (``tests/benchmarks/lb_bounds.py``) and its ratio to
them: ``LB(sd)``, the least migrations an optimistic relaxation needs to reach the
hot-resource spread the result reached, and "to limit", the least that take every host
at or above the hot resource's ceiling to the target ceiling (exact for the sources).
``LBjoint`` is the least migrations that bring both the CPU and the RAM spread to where the
result brought them in one plan (valid for any plan, see ``lb_bounds.moves_to_sds``; at
least LB(sd) on every region measured), and ``GB(M)`` the least GB any plan of the result's
M migrations that takes every hot host to the target ceiling copies. Where a plan that takes
every hot host to the target ceiling misses the issue's target of ``TARGET_RATIO`` x LBjoint,
"relief floor" is the least ratio to LBjoint any plan of as many migrations doing that can
have (``lb_bounds.relief_floor``): above the target, the target is out of reach for such plans.
The last table gives, per region size and planner, the medians over the seeds (the floors
seed by seed, "-" where the target is met or the plan does not take every hot host there).

With ``--watcher`` (``tox -e bench-watcher``, which installs python-watcher), regions of
up to ``--watcher-max-hosts`` hosts are also planned by OpenStack Watcher's own strategies,
run offline on the same region (tests/benchmarks/watcher_ref.py): ``watcher_wb_t50``
(workload_balance, CPU, threshold 50, continuous audits until one proposes nothing) and
``watcher_ws`` (workload_stabilization with its defaults, one audit).

The reference ("greedy") is the one-move-per-pass balancer of issue 16: the host most
loaded in the shape's hot resource gives its largest VM (flavor RAM, then vCPUs) that
fits (capacity only: it knows no filters or server groups) to the least loaded host,
repeated until that move no longer lowers the pair's maximum. Ratios are KeyVRM with
filters over greedy. Targets (issue 16): on CPU-hot regions every host ends under the
ceiling and threshold, zero violations, CPU std-dev <= greedy's with <= 0.6x its
migrations and <= 0.5x its GB moved; plan <= 1 s at 10k hosts. The last line is one JSON
document with every figure.
"""

import argparse
import bisect
import collections
import dataclasses
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model import settings  # noqa: E402
from keyvrm.model.settings import AggregateConfig  # noqa: E402
from keyvrm.model.settings import AppConfig  # noqa: E402
from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.planning import lb  # noqa: E402
from keyvrm.scheduling import scoring  # noqa: E402
from tests.benchmarks import lb_bounds  # noqa: E402
from tests.unit.planning import regiongen  # noqa: E402

SHAPES = {"cpu": regiongen.cpu_hot_shape, "ram": regiongen.ram_hot_shape}
RESOURCES = ("cpu", "ram", "net")
TARGET_RATIO = 1.15  # issue 29: every level's migrations at most this many times LBjoint


def _config(name, level=settings.DEFAULT_LB_LEVEL):
    """An LB aggregate at ``level`` with that level's thresholds (``settings.LB_LEVELS``)."""
    preset = {k: (dict(v) if isinstance(v, dict) else v) for k, v in settings.LB_LEVELS[level].items()}
    return AggregateConfig(name=name, marker="LB", no_op_mode=False, no_op_reason=None, lb_level=level, **preset)


def histogram(snap, resource="cpu", width=40):
    """Text picture of the hosts' load on ``resource``: one bar per 10% bin (hosts per bin)."""
    values = [getattr(scoring.load_of(h), resource + "_pct") for h in snap.hypervisors]
    bins = collections.Counter(min(int(v // 10), 10) for v in values if v is not None)
    most = max(bins.values()) if bins else 1
    return ["  %3d-%-3d%% %5d %s" % (b * 10, b * 10 + 9 if b < 10 else 999, bins.get(b, 0),
                                     "#" * round(width * bins.get(b, 0) / most)) for b in range(11)]


def greedy(snap):
    """The reference balancer (module docstring) on the shape's hot resource: its moves and loads."""
    index = snap.index()
    hot = 0 if snap.region.endswith("cpu") else 1
    hosts = {h.name: h for h in snap.hypervisors}
    loads = {n: scoring.load_of(h) for n, h in hosts.items()}
    vms = {n: sorted(index.vms_on(n), key=lambda v: (-v.flavor.ram_mb, -v.flavor.vcpus, v.id))
           for n in hosts}
    free = {n: [h.inventories[m.VCPU].capacity - h.inventories[m.VCPU].used,
                h.inventories[m.MEMORY_MB].capacity - h.inventories[m.MEMORY_MB].used]
            for n, h in hosts.items()}
    ranked = sorted((loads[n].values()[hot], n) for n in hosts)
    moves = []
    while True:
        top, source = ranked[-1]
        low, target = ranked[0]
        chosen = None
        for vm in vms[source]:
            if vm.no_migr:
                continue
            if vm.flavor.vcpus <= free[target][0] and vm.flavor.ram_mb <= free[target][1]:
                chosen = vm
                break
        if chosen is None:
            break
        share = scoring.vm_share(chosen, hosts[source], len(vms[source]))
        delta = scoring.rescaled(share, hosts[source], hosts[target])
        t_after = loads[target].shifted(delta, 1)
        if t_after.values()[hot] >= top:
            break
        s_after = loads[source].shifted(share, -1)
        for name, load in ((source, s_after), (target, t_after)):
            del ranked[bisect.bisect_left(ranked, (loads[name].values()[hot], name))]
            loads[name] = load
            bisect.insort(ranked, (load.values()[hot], name))
        vms[source].remove(chosen)
        bisect.insort(vms[target], chosen, key=lambda v: (-v.flavor.ram_mb, -v.flavor.vcpus, v.id))
        free[source][0] += chosen.flavor.vcpus
        free[source][1] += chosen.flavor.ram_mb
        free[target][0] -= chosen.flavor.vcpus
        free[target][1] -= chosen.flavor.ram_mb
        moves.append(lb.PlannedMove(chosen.id, lb.LIVE_MIGRATE, source, target,
                                    ram_mb=chosen.flavor.ram_mb))
    return moves, loads


def violations(snap):
    """(capacity, anti-affinity) violations of a region: hosts over an allocation, groups over a host."""
    index = snap.index()
    over = sum(1 for h in snap.hypervisors
               if h.inventories[m.VCPU].used > h.inventories[m.VCPU].capacity
               or h.inventories[m.MEMORY_MB].used > h.inventories[m.MEMORY_MB].capacity)
    location = {vm.id: vm.host for vm in snap.vms}
    groups = 0
    for group in snap.server_groups:
        if group.policy == m.ANTI_AFFINITY:
            per_host = collections.Counter(location[v] for v in group.members if v in location)
            groups += sum(1 for n in per_host.values() if n > group.rules.get("max_server_per_host", 1))
    del index
    return over, groups


def describe(snap, config):
    """Load figures of a region: std-devs, maxima per resource, hosts still overloaded.

    A saturated host's CPU is read by its VMs' demand (``scoring.demand_load``), so a host
    asked for 115% counts as 115%, not as the 100% it measures.
    """
    index = snap.index()
    loads = [scoring.demand_load(h, index.vms_on(h.name)) for h in snap.hypervisors]
    scores = [scoring.syn_score(load, config.lb_weights) for load in loads]
    figures = dict(syn_std=round(statistics.pstdev(s for s in scores if s is not None), 2))
    for i, key in enumerate(RESOURCES):
        values = [load.values()[i] for load in loads if load.values()[i] is not None]
        figures[key + "_std"] = round(statistics.pstdev(values), 2)
        figures[key + "_max"] = round(max(values), 1)
        figures[key + "_mean"] = round(sum(values) / len(values), 2)
    figures["overloaded"] = sum(1 for load, score in zip(loads, scores)
                                if lb.overload_causes(load, score, config))
    return figures


def relieved(snap, after, resource, ceiling, target):
    """Whether every host of ``snap`` at or above ``ceiling`` on ``resource`` is at or below ``target`` in ``after``."""
    k = RESOURCES.index(resource)
    index, after_index = snap.index(), after.index()
    hot = {h.name for h in snap.hypervisors
           if (scoring.demand_load(h, index.vms_on(h.name)).values()[k] or 0.0) >= ceiling}
    return all((scoring.demand_load(h, after_index.vms_on(h.name)).values()[k] or 0.0) <= target + 1e-9
               for h in after.hypervisors if h.name in hot)


def bounds(snap, config, resource, result, after=None):
    """``result`` with the least migrations beside its own (``lb_bounds``): to its spread and to the limit.

    ``lb_sd``: LB(sd reached), the larger of LB(sd reached on CPU) and LB(sd reached on RAM)
    (``lb_sd_cpu``, ``lb_sd_ram``): a plan that narrows both spreads needs at least as many
    migrations as either asks (one move may serve both, so not their sum); on a region hot on
    one resource the other's is usually 0 or small. ``lb_joint``: LBjoint, the least migrations
    that reach both spreads in one plan. ``lb_limit``: the least migrations that take every host
    at or above the ceiling on ``resource`` (the plan's, after ``balance_config``) to the target
    ceiling; ``gb_limit``: the least GB any plan doing that copies; ``gb_moves``: GB(M), the
    least any plan of the result's count of migrations doing that copies. Each with the ratio of
    the result's migrations (GB) to it. ``relief_floor``: where the result (moved region
    ``after``) takes every hot host to the target ceiling with more than ``TARGET_RATIO`` x
    LBjoint, the least ratio to LBjoint any plan of as many migrations doing that can have.
    """
    index = snap.index()
    effective = lb.balance_config(config, [scoring.demand_load(h, index.vms_on(h.name)) for h in snap.hypervisors])
    ceiling, target = effective.lb_ceilings.get(resource), effective.lb_target_ceiling(resource)
    per_resource = {key: lb_bounds.moves_to_sd(snap, key, result["after"][key + "_std"]) for key in ("cpu", "ram")}
    lb_sd = max((v for v in per_resource.values() if v is not None), default=None)
    lb_joint = lb_bounds.moves_to_sds(snap, {key: result["after"][key + "_std"] for key in ("cpu", "ram")})
    lb_limit = lb_bounds.moves_to_limit(snap, resource, ceiling, target) if ceiling is not None else None
    gb_limit = lb_bounds.gb_to_limit(snap, resource, ceiling, target) if ceiling is not None else None
    moves = result["migrations"]
    gb_moves = lb_bounds.gb_for_moves(snap, resource, ceiling, target, moves) if ceiling is not None else None
    floor = None
    if (ceiling is not None and after is not None and lb_joint and moves > TARGET_RATIO * lb_joint
            and relieved(snap, after, resource, ceiling, target)):
        floor = lb_bounds.relief_floor(snap, resource, ceiling, target, moves)
    return dict(result, lb_sd=lb_sd, lb_sd_cpu=per_resource["cpu"], lb_sd_ram=per_resource["ram"],
                vs_lb_sd=_ratio(moves, lb_sd), relief_floor=floor and round(floor, 3),
                lb_joint=lb_joint, vs_lb_joint=_ratio(moves, lb_joint),
                lb_limit=lb_limit, vs_lb_limit=_ratio(moves, lb_limit),
                gb_limit=gb_limit, vs_gb_limit=_ratio(result["gb_moved"], gb_limit),
                gb_moves=gb_moves, vs_gb_moves=_ratio(result["gb_moved"], gb_moves),
                mean_shift=round(result["after"][resource + "_mean"] - describe(snap, config)[resource + "_mean"], 2))


def run_planner(snap, app, config, resource="cpu"):
    index = snap.index()
    start, start_cpu = time.perf_counter(), time.process_time()
    plan = lb.plan_balancing(snap, app, config, m.BusySet(), index=index)
    plan_s, plan_cpu_s = time.perf_counter() - start, time.process_time() - start_cpu
    after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
    recent = {mv.vm_id: snap.taken_at for mv in plan.moves}
    again = lb.plan_balancing(after, app, config, m.BusySet(), recent_moves=recent,
                              now_s=snap.taken_at)
    over, groups = violations(after)
    return bounds(snap, config, resource, dict(
        plan_s=round(plan_s, 3), plan_cpu_s=round(plan_cpu_s, 3), migrations=len(plan.moves),
        gb_moved=round(sum(mv.ram_mb for mv in plan.moves) / 1024.0, 1),
        after=describe(after, config), capacity_violations=over,
        anti_affinity_violations=groups, second_plan_moves=len(again.moves),
        picture=histogram(after, resource)), after)


def run_greedy(snap, config, resource):
    start, start_cpu = time.perf_counter(), time.process_time()
    moves, loads = greedy(snap)
    plan_s, plan_cpu_s = time.perf_counter() - start, time.process_time() - start_cpu
    after = regiongen.moved_region(snap, moves, loads)
    over, groups = violations(after)
    return bounds(snap, config, resource, dict(
        plan_s=round(plan_s, 3), plan_cpu_s=round(plan_cpu_s, 3), migrations=len(moves),
        gb_moved=round(sum(mv.ram_mb for mv in moves) / 1024.0, 1),
        after=describe(after, config), capacity_violations=over,
        anti_affinity_violations=groups, second_plan_moves=None), after)


def _ratio(a, b):
    """a / b, None where the bound b is 0 or infinite (no plan of that count relieves every hot host)."""
    return round(a / b, 3) if b and b != math.inf else None


def run_size(shape_name, hosts, seed, levels=(), cpu_demand_max_pct=100.0, watcher=False,
             watcher_max_audits=None):
    shape = SHAPES[shape_name](hosts, hosts)
    if shape.hot_resource == "cpu":
        shape = dataclasses.replace(shape, cpu_demand_max_pct=cpu_demand_max_pct)
    snap = regiongen.generate_region(shape, seed)
    snap = m.replace(snap, region="bench-" + shape_name)
    config = _config(snap.aggregates[0].name)
    hot = shape_name
    result = dict(shape=shape_name, hosts=hosts, vms=len(snap.vms), seed=seed,
                  before=describe(snap, config), picture=histogram(snap, hot))
    result["keyvrm"] = run_planner(snap, AppConfig(enabled=True), config, hot)
    for level in levels:
        result["level%d" % level] = run_planner(snap, AppConfig(enabled=True), _config(config.name, level), hot)
    result["keyvrm_no_filters"] = run_planner(snap, AppConfig(enabled=True, nova_filters=()), config, hot)
    result["greedy"] = run_greedy(snap, config, hot)
    if watcher:
        from tests.benchmarks import watcher_ref

        for row, strategy in watcher_ref.ROWS.items():
            result[row] = bounds(snap, config, hot, watcher_ref.run_watcher(
                snap, config, strategy, seed=seed, max_audits=watcher_max_audits or watcher_ref.MAX_AUDITS))
    k, g = result["keyvrm"], result["greedy"]
    result["vs_greedy"] = dict(
        migrations=_ratio(k["migrations"], g["migrations"]),
        gb_moved=_ratio(k["gb_moved"], g["gb_moved"]),
        hot_std=_ratio(k["after"][hot + "_std"], g["after"][hot + "_std"]))
    return result


def _row(name, r, hot, before):
    a = r["after"]
    return ("  %-17s moves %6d  GB %8.1f  syn std %5.2f->%5.2f  %s std %5.2f->%5.2f  max cpu/ram/net"
            " %5.1f/%5.1f/%5.1f  overloaded %d->%d  violations cap %d aa %d  plan %.3fs (cpu %.3fs)"
            "  2nd plan %s  LB(sd) %s (%sx; cpu %s ram %s)  LBjoint %s (%sx; relief floor %sx)"
            "  to limit %s (%sx), %s GB (%sx), GB(M) %s (%sx)"
            % (name, r["migrations"], r["gb_moved"], before["syn_std"], a["syn_std"], hot,
               before[hot + "_std"], a[hot + "_std"], a["cpu_max"], a["ram_max"], a["net_max"],
               before["overloaded"], a["overloaded"], r["capacity_violations"],
               r["anti_affinity_violations"], r["plan_s"], r["plan_cpu_s"],
               "-" if r["second_plan_moves"] is None else r["second_plan_moves"],
               r["lb_sd"], r["vs_lb_sd"], r["lb_sd_cpu"], r["lb_sd_ram"], r["lb_joint"], r["vs_lb_joint"],
               r["relief_floor"], r["lb_limit"], r["vs_lb_limit"], r["gb_limit"], r["vs_gb_limit"], r["gb_moves"],
               r["vs_gb_moves"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,300,1000,10000",
                        help="comma-separated host counts, one aggregate each (default %(default)s)")
    parser.add_argument("--shapes", default="cpu,ram", help="cpu and/or ram (default %(default)s)")
    parser.add_argument("--seeds", type=int, default=1,
                        help="seeds per size from --seed on; medians of the ratios are printed"
                        " (default %(default)s)")
    parser.add_argument("--seed", type=int, default=42, help="first seed (default %(default)s)")
    parser.add_argument("--levels", default="1,2,3,4,5",
                        help="comma-separated lb_level values also planned, each with its preset thresholds,"
                        " with a picture of the hot resource per host before and after (default %(default)s)")
    parser.add_argument("--pictures", action="store_true", help="print the per-host pictures")
    parser.add_argument("--watcher", action="store_true",
                        help="also plan with OpenStack Watcher's workload_balance and workload_stabilization"
                        " strategies (tox -e bench-watcher; tests/benchmarks/watcher_ref.py)")
    parser.add_argument("--watcher-max-hosts", type=int, default=300,
                        help="plan with Watcher only regions of at most this many hosts: workload_stabilization"
                        " weighs each VM against the whole region, and each audit copies Watcher's model"
                        " (default %(default)s)")
    parser.add_argument("--watcher-max-audits", type=int, default=None,
                        help="audits of workload_balance's continuous run at most (default: watcher_ref's)")
    parser.add_argument("--cpu-demand-max", type=float, default=100.0,
                        help="CPU-hot hosts' VMs ask for up to this %% of the cores (above 100 the host"
                        " reads 100%%, saturated; default %(default)s)")
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.levels.split(",") if level.strip()]
    watcher_rows = []
    if args.watcher:
        try:
            from tests.benchmarks import watcher_ref
        except ImportError as exc:
            parser.error("--watcher needs python-watcher (tox -e bench-watcher): %s" % exc)
        watcher_rows = list(watcher_ref.ROWS)
    results = []
    for shape in [s for s in args.shapes.split(",") if s]:
        for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
            runs = []
            for seed in range(args.seed, args.seed + args.seeds):
                r = run_size(shape, size, seed, levels, args.cpu_demand_max,
                             args.watcher and size <= args.watcher_max_hosts, args.watcher_max_audits)
                runs.append(r)
                print("%s-hot hosts=%d vms=%d seed=%d" % (shape, size, r["vms"], seed))
                names = ["keyvrm"] + ["level%d" % level for level in levels] + ["keyvrm_no_filters", "greedy"]
                names += [row for row in watcher_rows if row in r]
                for name in names:
                    print(_row(name, r[name], shape, r["before"]))
                if args.pictures:
                    for name in ["before"] + names[:1 + len(levels)]:
                        print("  %s: hosts per %s load bin" % (name, shape))
                        print("\n".join(r["picture"] if name == "before" else r[name]["picture"]))
                print("  keyvrm/greedy: migrations %sx, GB %sx, %s std %sx" % (
                    r["vs_greedy"]["migrations"], r["vs_greedy"]["gb_moved"], shape,
                    r["vs_greedy"]["hot_std"]))
                sys.stdout.flush()
            results.extend(runs)
            if args.seeds > 1:
                med = {key: statistics.median(r["vs_greedy"][key] for r in runs
                                              if r["vs_greedy"][key] is not None)
                       for key in ("migrations", "gb_moved", "hot_std")}
                print("%s-hot hosts=%d median of %d seeds vs greedy: migrations %.2fx, GB %.2fx,"
                      " %s std %.2fx, plan %.3fs (cpu %.3fs)" % (
                          shape, size, args.seeds, med["migrations"], med["gb_moved"], shape,
                          med["hot_std"], statistics.median(r["keyvrm"]["plan_s"] for r in runs),
                          statistics.median(r["keyvrm"]["plan_cpu_s"] for r in runs)))
    print_summary(results, ["keyvrm"] + ["level%d" % level for level in levels] + ["greedy"] + watcher_rows)
    print(json.dumps({"benchmark": "lb", "results": results}))


def print_summary(results, names):
    """Per shape, size and planner: medians over the seeds of the figures the targets read.

    The ratios to LBjoint and GB(M) and the relief floors also seed by seed ("/"-separated).
    """
    print("%-5s %6s %-14s %7s %8s %7s %7s %7s %8s %6s %7s %6s %-17s %-17s %6s %6s %7s %6s %-17s %8s" % (
        "shape", "hosts", "planner", "moves", "GB", "sd", "sd oth", "max", "LB(sd)", "x LB", "LBjoint", "x LBj",
        "x LBj by seed", "floor by seed", "limit", "x lim", "x GB lim", "x GB(M)", "x GB(M) by seed", "plan cpu"))
    groups = collections.defaultdict(list)
    for r in results:
        groups[(r["shape"], r["hosts"])].append(r)
    for (shape, hosts), runs in groups.items():
        for name in names:
            rows = [r[name] for r in runs if name in r]
            if not rows:
                continue

            def med(key, rows=rows):
                values = [row[key] for row in rows if row[key] is not None]
                return statistics.median(values) if values else float("nan")

            def seeds(key, rows=rows):
                return "/".join("-" if row[key] is None else "%.3f" % row[key] for row in rows)

            other = "ram" if shape == "cpu" else "cpu"
            print("%-5s %6d %-14s %7.1f %8.0f %7.2f %7.2f %7.1f %8.1f %6.2f %7.1f %6.2f %-17s %-17s %6.1f %6.2f %7.2f"
                  " %6.2f %-17s %8.3f" % (
                      shape, hosts, name, med("migrations"), med("gb_moved"),
                      statistics.median(row["after"][shape + "_std"] for row in rows),
                      statistics.median(row["after"][other + "_std"] for row in rows),
                      statistics.median(row["after"][shape + "_max"] for row in rows),
                      med("lb_sd"), med("vs_lb_sd"), med("lb_joint"), med("vs_lb_joint"), seeds("vs_lb_joint"),
                      seeds("relief_floor"), med("lb_limit"), med("vs_lb_limit"), med("vs_gb_limit"),
                      med("vs_gb_moves"), seeds("vs_gb_moves"), med("plan_cpu_s")))


if __name__ == "__main__":
    main()
