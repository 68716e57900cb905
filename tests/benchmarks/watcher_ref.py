"""OpenStack Watcher's own LB strategies as reference rows of bench_lb, run offline.

``run_watcher(snap, config, strategy)`` plans a simulated region (one aggregate holding all
hosts, e.g. from ``tests/unit/planning/regiongen.py``) with one of Watcher's strategies and
returns the figures bench_lb's ``run_greedy`` returns, so bench_lb prints it as a row
(``bench_lb.py --watcher``). The strategies (``STRATEGIES``):

- ``workload_balance_t50``: ``WorkloadBalance`` (``workload_balance``) with metrics
  ``instance_cpu_usage`` and threshold 50, run as a continuous audit: audit, apply its
  migrations, audit again, until an audit proposes nothing (at most ``max_audits``).
  Watcher's strategy proposes at most one migration per audit (its docstring says so).
- ``workload_stabilization``: ``WorkloadStabilization`` with its schema's defaults
  (``instance_cpu_usage``, threshold 0.1 on the normalised host CPU standard deviation,
  ``host_choice`` retry with ``retry_count`` 1), one audit. Its random destination choice
  uses Python's global ``random``, seeded here (``seed``) and restored afterwards.

What is real Watcher code (python-watcher 17.0.0 from PyPI, installed by ``tox -e
bench-watcher``, never copied here): the strategy classes, loaded by name through
Watcher's strategy loader (stevedore entry points, each strategy's config options on an
oslo.config ConfigOpts parsed with no file, i.e. all defaults); their parameters filled
from each strategy's schema by ``StrictDefaultValidatingDraft4Validator``, as Watcher's API
does when an audit is created; the steps of ``BaseStrategy.execute()``, called in its order
(``pre_execute``, ``do_execute``, ``post_execute``, ``solution.compute_global_efficacy``)
so that ``do_execute`` is timed apart, as the decision engine's strategy context runs it;
the compute data model (``ModelRoot``, ``ComputeNode``, ``Instance``) and its deep copy per
audit (``get_latest_cluster_data_model``); the audit scope handler (``ComputeScope``), which
marks the region's ``no_migr`` VMs ``watcher_exclude`` from an audit scope
``[{"compute": [{"exclude": [{"instances": [...]}]}]}]``; ``DefaultSolution`` and its
``migrate`` actions; the metric cache of Watcher's ``DataSourceBase``.

What stands in for Watcher's I/O (nothing else is patched):

- the cluster data model collector: ``SnapshotCollector`` is Watcher's Nova collector with
  ``execute()`` building the model from the snapshot instead of Nova and Placement,
  attribute for attribute as ``NovaModelBuilder.build_compute_node`` /
  ``_build_instance_node`` do from Placement inventories and flavors (VCPU and MEMORY_MB
  total, reserved, allocation ratio; flavor vCPUs and RAM; Nova's ``vm_state``). The
  snapshot models no disk: every instance has 0 GB local disk (boot from volume) and
  every host 0 GB, so no disk check binds. Between the audits of a continuous run the
  collector's model is updated as Watcher's Nova notification handlers update it after a
  live migration (``migrate_instance``), and each audit deep-copies it as Watcher does;
- the datasource: ``SnapshotDatasource`` (a ``DataSourceBase``) answers
  ``statistic_aggregation`` from the snapshot's measures in the units Watcher's Gnocchi
  datasource returns: ``instance_cpu_usage`` in % of the instance's own vCPUs (VM
  ``cpu_cores`` / flavor vCPUs x 100), ``instance_ram_usage`` in MB (resident RAM),
  ``host_cpu_usage`` in % of the host's cores (its measured ``cpu_pct``),
  ``host_ram_usage`` in KiB (``ram_pct`` x MEMORY_MB total x 1024). After a migration the
  hosts' measures are those of the moved region, with bench_lb's arithmetic
  (``scoring.vm_share``, ``scoring.rescaled``, ``Load.shifted``); a VM's own measures move
  with it;
- Nova: ``nova_helper.NovaHelper`` (which the audit scope handler builds) and the
  strategies' OpenStack clients are objects that fail if anything calls them (nothing does).

Deviations from a real deployment: each audit sees the region as it is after the previous
audit's migrations all succeeded (no applier, no Nova scheduler check of the destination:
Watcher's strategies know neither server groups nor Nova's filters, so a move Nova would
refuse is applied here and counted by bench_lb's violation counts); measures are the
snapshot's, not a 300 s/720 s mean; Watcher's log output is silenced below ERROR (its
``LOG.debug(model.to_string())`` arguments are still built, as in Watcher, and counted in the
strategy's CPU time). ``plan_cpu_s`` is the process CPU time of whole audits (the model's
deep copy and those XML dumps included, building the model from the snapshot not),
``do_execute_cpu_s`` that of the strategies' planning phase alone.

What Watcher's own code does that shows in the figures: ``workload_balance`` compares a
host's workload with the mean workload of all hosts in cores, and only moves a VM whose
workload is at most the difference; on the regions' mix of 48-, 64- and 96-core hosts a
48-core host at the mean in cores (~59% CPU) has no such VM, so such hosts stay above the
threshold (the strategy's docstring asks for identical hosts). It checks the destination's
free vCPU, RAM and disk (Placement capacity) and that it stays under the threshold.
``workload_stabilization`` checks no capacity but disk, so it can overcommit a host.

``python tests/benchmarks/watcher_ref.py`` is a smoke check: both strategies on a 32- and
a 300-host CPU-hot region (seed 1).
"""

import argparse
import collections
import contextlib
import logging
import os
import random
import statistics
import sys
import time
from unittest import mock
import uuid
import warnings

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.scheduling import scoring  # noqa: E402
from tests.unit.planning import regiongen  # noqa: E402


@contextlib.contextmanager
def _quiet():
    """No warnings shown while Watcher's modules are imported.

    They set their own filters on import (``simplefilter("once")``), so the deprecation
    warnings of eventlet, oslo and WebOb go to a null sink instead.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.showwarning = lambda *args, **kwargs: None
        yield


with _quiet():
    from oslo_config import cfg  # noqa: E402
    from watcher.common import utils as watcher_utils  # noqa: E402
    from watcher.decision_engine.datasources import base as ds_base  # noqa: E402
    from watcher.decision_engine.loading import default as loading  # noqa: E402
    from watcher.decision_engine.model.collector import nova as nova_collector  # noqa: E402
    from watcher.decision_engine.model import element  # noqa: E402
    from watcher.decision_engine.model import model_root  # noqa: E402
    from watcher.decision_engine.scope import compute as compute_scope  # noqa: E402

logging.getLogger("watcher").setLevel(logging.ERROR)

STRATEGIES = {
    "workload_balance_t50": dict(name="workload_balance", continuous=True,
                                 parameters={"metrics": "instance_cpu_usage", "threshold": 50.0}),
    "workload_stabilization": dict(name="workload_stabilization", continuous=False, parameters={}),
}
# rows bench_lb prints, per strategy above
ROWS = {"watcher_wb_t50": "workload_balance_t50", "watcher_ws": "workload_stabilization"}
MAX_AUDITS = 500

# Nova's vm_state per API status (Watcher's model holds the vm_state)
_VM_STATES = {"ACTIVE": "active", "PAUSED": "paused", "SUSPENDED": "suspended", "SHUTOFF": "stopped",
              "RESCUE": "rescued", "RESIZE": "resized", "VERIFY_RESIZE": "resized",
              "SHELVED": "shelved", "SHELVED_OFFLOADED": "shelved", "ERROR": "error",
              "BUILD": "building", "DELETED": "deleted", "SOFT_DELETED": "soft-delete"}
_PROJECTS = uuid.UUID("6f1d5a52-5c2e-4c62-9a43-7e3b1f3f0b11")

Move = collections.namedtuple("Move", "vm_id source target ram_mb")


class _NoIO:
    """Stands in for an OpenStack client or helper: any use of it fails."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        raise AssertionError("Watcher tried to reach OpenStack offline: %s" % name)


class Region:
    """The simulated region as it is after the migrations applied so far.

    Host loads follow bench_lb's arithmetic for a moved VM (``scoring.vm_share`` on the
    source, ``scoring.rescaled`` to the target, ``Load.shifted``); ``after()`` is the
    snapshot with the moves applied (``regiongen.moved_region``).
    """

    def __init__(self, snap):
        self.snap = snap
        self.index = snap.index()
        self.hosts = {h.name: h for h in snap.hypervisors}
        self.placement = {vm.id: vm.host for vm in snap.vms}
        self.counts = collections.Counter(self.placement.values())
        self.loads = {name: scoring.load_of(h) for name, h in self.hosts.items()}
        self.moves = []

    def apply(self, vm_id, source, target):
        vm = self.index.vms[vm_id]
        share = scoring.vm_share(vm, self.hosts[source], self.counts[source])
        delta = scoring.rescaled(share, self.hosts[source], self.hosts[target])
        self.loads[source] = self.loads[source].shifted(share, -1)
        self.loads[target] = self.loads[target].shifted(delta, 1)
        self.counts[source] -= 1
        self.counts[target] += 1
        self.placement[vm_id] = target
        self.moves.append(Move(vm_id, source, target, vm.flavor.ram_mb))

    def after(self):
        return regiongen.moved_region(self.snap, self.moves, self.loads)


def build_model(region):
    """Watcher's compute data model of the region, as NovaModelBuilder builds it."""
    model = model_root.ModelRoot()
    nodes = {}
    for h in region.snap.hypervisors:
        vcpu, ram = h.inventories[m.VCPU], h.inventories[m.MEMORY_MB]
        service = h.service or m.ComputeService(host=h.name)
        node = element.ComputeNode(
            uuid=h.name, hostname=h.name,
            memory=ram.total, memory_mb_reserved=ram.reserved, memory_ratio=float(ram.allocation_ratio),
            disk=0, disk_gb_reserved=0, disk_ratio=1.0,
            vcpus=vcpu.total, vcpu_reserved=vcpu.reserved, vcpu_ratio=float(vcpu.allocation_ratio),
            state=(element.ServiceState.ONLINE.value if service.is_up
                   else element.ServiceState.OFFLINE.value),
            status=service.status, disabled_reason=service.disabled_reason)
        model.add_node(node)
        nodes[h.name] = node
    for vm in region.snap.vms:
        host = region.placement.get(vm.id)
        if host not in nodes:
            continue
        instance = element.Instance(
            uuid=vm.id, name=vm.name, memory=vm.flavor.ram_mb, disk=0, vcpus=vm.flavor.vcpus,
            state=_VM_STATES.get(vm.status, vm.status.lower()), metadata=dict(vm.metadata),
            project_id=str(uuid.uuid5(_PROJECTS, vm.project_id)), locked=False,
            host=host, hypervisor_hostname=host, flavor_extra_specs={}, pinned_az="")
        model.add_instance(instance)
        model.map_instance(instance, nodes[host])
    return model


class SnapshotCollector(nova_collector.NovaClusterDataModelCollector):
    """Watcher's Nova collector whose model comes from the region, not from Nova."""

    def __init__(self, region):
        config = watcher_utils.Struct((opt.dest, opt.default) for opt in self.get_config_opts())
        super().__init__(config, osc=_NoIO())
        self.region = region

    def execute(self):
        return build_model(self.region)


class _Collectors:
    """Stands in for Watcher's CollectorManager: only the compute model exists."""

    def __init__(self, collector):
        self.collector = collector

    def get_cluster_model_collector(self, name, osc=None):
        if name != "compute":
            raise AssertionError("no %s model offline" % name)
        return self.collector


class SnapshotDatasource(ds_base.DataSourceBase):
    """Answers Watcher's metric queries from the region's measures (module docstring)."""

    NAME = "keyvrm-snapshot"
    METRIC_MAP = {name: name for name in ds_base.DataSourceBase.METRIC_MAP}

    def __init__(self, region):
        super().__init__()
        self.region = region

    def _statistic_aggregation(self, resource=None, resource_type=None, meter_name=None, period=300,
                               aggregate="mean", granularity=300):
        self._get_meter(meter_name)
        if resource_type == "instance":
            vm = self.region.index.vms[resource.uuid]
            metrics = vm.metrics
            if metrics is None:
                return None
            if meter_name == "instance_cpu_usage":
                if metrics.cpu_cores is None or not vm.flavor.vcpus:
                    return None
                return 100.0 * metrics.cpu_cores / vm.flavor.vcpus
            if meter_name == "instance_ram_usage":
                return metrics.ram_mb
            if meter_name == "instance_ram_allocated":
                return float(vm.flavor.ram_mb)
            return None
        if resource_type == "compute_node":
            load = self.region.loads[resource.hostname]
            if meter_name == "host_cpu_usage":
                # measured: a host asked for more than its cores reads 100%
                return None if load.cpu_pct is None else min(100.0, load.cpu_pct)
            if meter_name == "host_ram_usage":
                total = self.region.hosts[resource.hostname].inventories[m.MEMORY_MB].total
                return None if load.ram_pct is None else load.ram_pct / 100.0 * total * 1024.0
            return None
        return None

    def statistic_series(self, *args, **kwargs):
        raise NotImplementedError("the benchmark's strategies ask for no series")

    def list_metrics(self):
        return set(self.METRIC_MAP)

    def check_availability(self):
        return "available"

    def query_retry_reset(self, exception_instance):
        pass

    def _get(self, resource, resource_type, meter, period, aggregate, granularity):
        return self.statistic_aggregation(resource, resource_type, meter, period, aggregate, granularity)

    def get_host_cpu_usage(self, resource, period, aggregate, granularity=None):
        return self._get(resource, "compute_node", "host_cpu_usage", period, aggregate, granularity)

    def get_host_ram_usage(self, resource, period, aggregate, granularity=None):
        return self._get(resource, "compute_node", "host_ram_usage", period, aggregate, granularity)

    def get_instance_cpu_usage(self, resource, period, aggregate, granularity=None):
        return self._get(resource, "instance", "instance_cpu_usage", period, aggregate, granularity)

    def get_instance_ram_usage(self, resource, period, aggregate, granularity=None):
        return self._get(resource, "instance", "instance_ram_usage", period, aggregate, granularity)

    def get_instance_ram_allocated(self, resource, period, aggregate, granularity=None):
        return self._get(resource, "instance", "instance_ram_allocated", period, aggregate, granularity)

    def _none(self, *args, **kwargs):
        return None

    get_host_outlet_temp = get_host_inlet_temp = get_host_airflow = get_host_power = _none
    get_instance_l3_cache_usage = get_instance_root_disk_size = _none


_CONF = []


def _strategy_loader():
    """Watcher's strategy loader on a ConfigOpts of its own, parsed with no config file."""
    if not _CONF:
        conf = cfg.ConfigOpts()
        conf(args=[], project="watcher", default_config_files=[], default_config_dirs=[])
        _CONF.append(conf)
    loader = loading.DefaultStrategyLoader()
    loader.conf = _CONF[0]
    return loader


def audit(collector, region, name, parameters, scope):
    """One audit of Watcher's strategy ``name``: its moves, times and efficacy indicators.

    Returns (migrate actions as (vm, source, target), CPU s, do_execute CPU s, wall s,
    the solution's efficacy indicators by name). Run as the decision engine's strategy
    context runs it: the strategy loaded by name, its parameters, its audit scope, then
    ``execute()``'s steps (``pre_execute``, ``do_execute``, ``post_execute``,
    ``solution.compute_global_efficacy``), ``do_execute`` timed apart: the rest is
    Watcher's per-audit copy of the model and the XML dumps of it that its ``LOG.debug``
    calls build.
    """
    with _quiet():
        strategy = _strategy_loader().load(name, osc=_NoIO())
    params = dict(parameters)
    # as Watcher's API does on audit creation: validate, filling the schema's defaults
    watcher_utils.StrictDefaultValidatingDraft4Validator(strategy.get_schema()).validate(params)
    strategy.input_parameters.update(params)
    strategy.audit_scope = scope
    strategy._collector_manager = _Collectors(collector)
    strategy._datasource_backend = SnapshotDatasource(region)
    # BaseStrategy.execute()'s steps, the phase that plans timed apart
    start, start_cpu = time.perf_counter(), time.process_time()
    strategy.pre_execute()
    do_cpu = time.process_time()
    strategy.do_execute(audit=None)
    do_cpu = time.process_time() - do_cpu
    strategy.post_execute()
    strategy.solution.compute_global_efficacy()
    solution = strategy.solution
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    indicators = {indicator.name: indicator.value for indicator in solution.efficacy_indicators}
    moves = []
    for action in solution.actions:
        if action["action_type"] != "migrate":
            raise AssertionError("unexpected action %s" % action["action_type"])
        p = action["input_parameters"]
        moves.append((p["resource_id"], p["source_node"], p["destination_node"]))
    return moves, cpu, do_cpu, wall, indicators


def run_strategy(snap, strategy, max_audits=MAX_AUDITS, seed=1):
    """Plan ``snap`` with ``STRATEGIES[strategy]``: (moves, Region after them, figures).

    ``moves`` is a list of (vm_id, source host, target host). A continuous strategy is
    audited again after its moves are applied, until an audit proposes nothing or
    ``max_audits`` audits ran.
    """
    spec = STRATEGIES[strategy]
    region = Region(snap)
    collector = SnapshotCollector(region)
    excluded = [{"uuid": vm.id} for vm in snap.vms if vm.no_migr]
    scope = [{"compute": [{"exclude": [{"instances": excluded}]}]}] if excluded else []
    moves, cpu, do_cpu, wall, audits, indicators = [], 0.0, 0.0, 0.0, 0, {}
    state = random.getstate()
    random.seed(seed)
    try:
        with mock.patch.object(compute_scope.nova_helper, "NovaHelper", _NoIO):
            # the model as the collector holds it before the first audit (a new audit scope
            # drops a collector's model: set it after the scope, outside the strategy's time)
            collector.get_audit_scope_handler(scope)
            collector.cluster_data_model = build_model(region)
            while audits < (max_audits if spec["continuous"] else 1):
                found, a_cpu, a_do_cpu, a_wall, a_indicators = audit(
                    collector, region, spec["name"], spec["parameters"], scope)
                indicators = indicators or a_indicators
                audits += 1
                cpu += a_cpu
                do_cpu += a_do_cpu
                wall += a_wall
                if not found:
                    break
                model = collector.cluster_data_model
                for vm_id, source, target in found:
                    # what Watcher's Nova notification handler does after a live migration
                    model.migrate_instance(model.get_instance_by_uuid(vm_id), model.get_node_by_uuid(source),
                                           model.get_node_by_uuid(target))
                    region.apply(vm_id, source, target)
                moves.extend(found)
    finally:
        random.setstate(state)
    return moves, region, dict(audits=audits, plan_cpu_s=cpu, do_execute_cpu_s=do_cpu, plan_s=wall,
                               indicators=indicators)


def run_watcher(snap, config, strategy, max_audits=MAX_AUDITS, seed=1):
    """bench_lb's row for a Watcher strategy: the dict ``bench_lb.run_greedy`` returns.

    Plus ``audits``, ``do_execute_cpu_s`` (the CPU time of the strategies' planning phase
    alone; ``plan_cpu_s`` is that of whole audits, ``plan_s`` their wall time) and
    ``indicators``, the efficacy indicators of the first audit's solution (Watcher's own
    figures: workload_stabilization's standard deviations before and after, as fractions).
    """
    from tests.benchmarks import bench_lb

    moves, region, figures = run_strategy(snap, strategy, max_audits, seed)
    after = region.after()
    over, groups = bench_lb.violations(after)
    return dict(plan_s=round(figures["plan_s"], 3), plan_cpu_s=round(figures["plan_cpu_s"], 3),
                migrations=len(moves), gb_moved=round(sum(mv.ram_mb for mv in region.moves) / 1024.0, 1),
                after=bench_lb.describe(after, config), capacity_violations=over,
                anti_affinity_violations=groups, second_plan_moves=None, audits=figures["audits"],
                do_execute_cpu_s=round(figures["do_execute_cpu_s"], 3), indicators=figures["indicators"])


def main(argv=None):
    from tests.benchmarks import bench_lb

    parser = argparse.ArgumentParser(description="smoke check: " + __doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,300", help="host counts (default %(default)s)")
    parser.add_argument("--shape", default="cpu", choices=sorted(bench_lb.SHAPES))
    parser.add_argument("--seeds", default="1", help="comma-separated seeds (default %(default)s)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help="comma-separated, of %s (default all)" % ", ".join(STRATEGIES))
    parser.add_argument("--max-audits", type=int, default=MAX_AUDITS,
                        help="audits of a continuous strategy at most (default %(default)s)")
    args = parser.parse_args(argv)
    rows = collections.defaultdict(list)
    for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
        for seed in [int(s) for s in args.seeds.split(",") if s.strip()]:
            snap = regiongen.generate_region(bench_lb.SHAPES[args.shape](size, size), seed)
            snap = m.replace(snap, region="bench-" + args.shape)
            config = bench_lb._config(snap.aggregates[0].name)
            before = bench_lb.describe(snap, config)
            print("%s-hot hosts=%d vms=%d seed=%d  before: cpu std %.2f, max cpu %.1f%%" % (
                args.shape, size, len(snap.vms), seed, before["cpu_std"], before["cpu_max"]))
            for strategy in [s for s in args.strategies.split(",") if s]:
                r = run_watcher(snap, config, strategy, args.max_audits, seed)
                rows[(size, strategy)].append(r)
                print("  %-22s audits %4d  moves %5d  GB %8.1f  cpu std after %5.2f  max host cpu after %5.1f%%"
                      "  violations cap %d aa %d  cpu %.2fs (do_execute %.2fs, wall %.2fs)" % (
                          strategy, r["audits"], r["migrations"], r["gb_moved"], r["after"]["cpu_std"],
                          r["after"]["cpu_max"], r["capacity_violations"], r["anti_affinity_violations"],
                          r["plan_cpu_s"], r["do_execute_cpu_s"], r["plan_s"]))
                if "standard_deviation_before_audit" in r["indicators"]:
                    print("  %-22s Watcher's own CPU std (fraction): before %.4f, after %.4f" % (
                        "", r["indicators"]["standard_deviation_before_audit"],
                        r["indicators"]["standard_deviation_after_audit"]))
                sys.stdout.flush()
    if len([s for s in args.seeds.split(",") if s.strip()]) > 1:
        for (size, strategy), runs in sorted(rows.items()):
            print("hosts=%d %s medians of %d seeds: moves %.1f  GB %.1f  cpu std %.2f  max cpu %.1f%%" % (
                size, strategy, len(runs), statistics.median(r["migrations"] for r in runs),
                statistics.median(r["gb_moved"] for r in runs),
                statistics.median(r["after"]["cpu_std"] for r in runs),
                statistics.median(r["after"]["cpu_max"] for r in runs)))


if __name__ == "__main__":
    main()
