"""Failover analysis: which hosts of an HA aggregate HA could not fully evacuate if they died now.

For each host of the aggregate the analysis asks HA's own planner
(``planning.ha.plan_evacuation``, no copy of its logic) to evacuate that host from the
snapshot as it is, the other hosts staying as they are. The VMs that plan leaves
without a target are the VMs that host would leave behind; their reasons are the
``no_target`` (or capacity-code) reasons an HA event would carry, with the per-host
rejection entries. The planner is asked only what it leaves behind (``left_behind_only``):
where placing by free RAM alone leaves no VM, it does not plan HA's spread placement
too, which would leave none either. VMs HA does not evacuate at all (``no_evac``, local
disks without rebuild, busy) are not counted: their host failing loses them whatever the
capacity.

The aggregate's **tolerance** is the largest k (0 .. ``max_k``) such that any k hosts
failing together leave no evacuable VM without a target:

- k = 1 is exact: every host is planned.
- k = 2 is exact for aggregates of at most ``EXACT_PAIRS_MAX_HOSTS`` hosts (every pair
  is planned). In larger aggregates only the pairs among the ``WORST_HOSTS`` hosts with
  the most evacuable RAM are planned: the tolerance is then an upper bound (a pair
  outside that set could break it), which ``FailoverAnalysis.exact`` says.
- k > 2 is never searched: the tolerance stops at 2 whatever ``max_k`` asks above that.

**Failure domains** (racks): where hosts carry a domain label (``planning.failure_domains``:
``ha_failure_domain`` aggregate metadata, or the HA aggregate's
``ha_failure_domain_pattern`` on host names), each domain with a host of the aggregate
is planned failing as a whole, the same way (``FailoverAnalysis.failure_domains``). The
domains are a separate answer, analysed whatever k the host search reached; the
tolerance (and so the ``insufficient_failover_capacity`` warning) stays about hosts.
Without labels nothing more is planned; a caller that reads only the tolerance (the
engine's cycle) asks for no domains (``with_domains=False``). A pattern that is not a regular expression
analyses no domain and says why (``domain_error``).

An engine keeps each aggregate's last analysis with a fingerprint of everything its plans
read (``AnalysisCache``): the aggregate's hypervisors, their VMs, those VMs' server groups
(with where every member runs) and images, the aggregates' metadata, the busy set, the
unfit targets, the configs. Load metrics and heartbeat times are left out (a plan does not
read them; the verdicts they lead to are in), so a cycle in which nothing an evacuation
depends on changed reuses the analysis instead of planning every host again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import threading
from typing import Optional

import msgspec

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import failure_domains
from keyvrm.planning import gc_pause
from keyvrm.planning import ha
from keyvrm.planning import reasons

# Reason codes that mean "this evacuable VM found no target" (planning.ha._no_target_reason).
NO_TARGET_CODES = frozenset({"no_target", "no_online_hypervisor", "ram_depleted", "cpu_depleted",
                             "quota_exceeded"})
# k = 2: every pair is planned up to this many hosts (28 pairs), else only the worst hosts' pairs.
EXACT_PAIRS_MAX_HOSTS = 8
WORST_HOSTS = 6
# The largest k searched.
MAX_SEARCHED_K = 2


@dataclasses.dataclass(frozen=True, slots=True)
class HostsAtRisk:
    """Hosts failing together and the reasons of their evacuable VMs that would find no target."""

    hosts: tuple
    without_target: tuple  # reasons.Reason with a NO_TARGET_CODES code, one per VM

    @property
    def vm_ids(self) -> tuple:
        return tuple(sorted(reason.vm_id for reason in self.without_target))


@dataclasses.dataclass(frozen=True, slots=True)
class FailureDomain(HostsAtRisk):
    """A failure domain (rack) of the aggregate: its hosts failing together (``without_target`` empty: absorbed)."""

    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class FailoverAnalysis:
    """An aggregate's tolerance and the host sets that break it (see the module docstring)."""

    aggregate: str
    tolerance: int
    max_k: int
    exact: bool  # False: the k = 2 answer came from the worst pairs only (an upper bound)
    hosts: int
    at_risk: tuple = ()  # HostsAtRisk of single hosts
    pairs_at_risk: tuple = ()  # HostsAtRisk of pairs (only when every single host passed)
    failure_domains: tuple = ()  # FailureDomain of every labelled domain, at risk or not (by name)
    domain_error: Optional[str] = None  # why no domain was analysed (a pattern that does not compile)

    @property
    def domains(self) -> int:
        """How many failure domains were analysed."""
        return len(self.failure_domains)

    @property
    def domains_at_risk(self) -> tuple:
        """The failure domains whose failure leaves VMs without a target."""
        return tuple(domain for domain in self.failure_domains if domain.without_target)

    @property
    def hosts_at_risk(self) -> tuple:
        """Names of the single hosts whose failure leaves VMs without a target."""
        return tuple(risk.hosts[0] for risk in self.at_risk)

    @property
    def vms_without_target(self) -> int:
        """How many VMs the single-host failures would leave behind, summed over hosts."""
        return sum(len(risk.without_target) for risk in self.at_risk)

    def below(self, reserve: int) -> bool:
        """Whether a reserve of ``reserve`` hosts is not met (0: no reserve, never below)."""
        return reserve > 0 and self.tolerance < reserve


class AnalysisCache:
    """Each aggregate's last analysis and the fingerprint of its inputs (one per engine, thread-safe)."""

    def __init__(self):
        self._last = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, aggregate: str, fingerprint: bytes):
        """The analysis made from inputs with this ``fingerprint``, or None."""
        with self._lock:
            found = self._last.get(aggregate)
            if found is not None and found[0] == fingerprint:
                self.hits += 1
                return found[1]
            self.misses += 1
            return None

    def put(self, aggregate: str, fingerprint: bytes, analysis: "FailoverAnalysis") -> None:
        """Keep ``analysis`` as the aggregate's last (the one before is dropped)."""
        with self._lock:
            self._last[aggregate] = (fingerprint, analysis)


_ENCODER = msgspec.msgpack.Encoder()


def _steady(hypervisor: m.Hypervisor) -> m.Hypervisor:
    """``hypervisor`` without what changes every cycle and no plan reads (load, beats, report times)."""
    service = hypervisor.service
    if service is not None and service.updated_at is not None:
        service = msgspec.structs.replace(service, updated_at=None)
    return msgspec.structs.replace(hypervisor, metrics=None, heartbeat_at=None, service=service)


def inputs_fingerprint(index, aggregate: str, *settings) -> bytes:
    """A digest of what plans of ``aggregate`` read from the snapshot, plus ``settings`` (their repr).

    ``settings`` must have a stable repr (sorted tuples, not sets).
    """
    hosts = index.hypervisors_of(aggregate)
    vms = [vm for h in hosts for vm in index.vms_on(h.name)]
    groups = sorted({vm.server_group_id for vm in vms if vm.server_group_id})
    images = sorted({vm.image_id for vm in vms if vm.image_id})
    aggregates = sorted({name for h in hosts for name in h.aggregates} | {aggregate})
    digest = hashlib.blake2b(digest_size=20)
    digest.update(_ENCODER.encode([_steady(h) for h in hosts]))
    digest.update(_ENCODER.encode([vm if vm.metrics is None else msgspec.structs.replace(vm, metrics=None)
                                   for vm in vms]))
    for group_id in groups:
        group = index.server_groups.get(group_id)
        where = [] if group is None else [
            (member, index.vms[member].host if member in index.vms else None) for member in group.members]
        digest.update(_ENCODER.encode([group_id, group, where]))
    digest.update(_ENCODER.encode([index.images.get(i) for i in images]))
    digest.update(_ENCODER.encode([index.aggregates.get(a) for a in aggregates]))
    digest.update(repr(settings).encode())
    return digest.digest()


def _without_target(plan) -> tuple:
    return tuple(reason for reason in plan.reasons if reason.code in NO_TARGET_CODES)


def _evacuable_ram_mb(index, app_config, agg_config, host) -> int:
    """RAM of the VMs of ``host`` HA would evacuate (ranks hosts for the k = 2 search)."""
    total = 0
    for vm in index.vms_on(host):
        if not ha._skip_reason(vm, app_config, m.BusySet(), agg_config.storage_mode, False):
            total += vm.flavor.ram_mb
    return total


def _left_behind(ctx, snapshot, app_config, agg_config, busy, hosts, max_rejected_hosts) -> tuple:
    if not any(ctx.index.vms_on(h) for h in hosts):
        return ()
    with ctx.trial():
        plan = ha.plan_evacuation(snapshot, app_config, agg_config, busy, hosts, index=ctx.index,
                                  max_rejected_hosts=max_rejected_hosts, context=ctx, left_behind_only=True)
    return _without_target(plan)


def left_behind(snapshot, app_config, agg_config, hosts, *, busy: m.BusySet = m.BusySet(), index=None,
                heartbeat_stale_after_s=None, max_rejected_hosts=None) -> HostsAtRisk:
    """The VMs HA would leave without a target if exactly ``hosts`` failed now (any number of hosts)."""
    index = index or snapshot.index()
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters, busy, index, None, None,
                        ha.unfit_targets(snapshot, app_config, agg_config.name, heartbeat_stale_after_s, index))
    return HostsAtRisk(tuple(sorted(hosts)), _left_behind(ctx, snapshot, app_config, agg_config, busy,
                                                          sorted(hosts), max_rejected_hosts))


def analyse_failover(snapshot, app_config, agg_config, *, busy: m.BusySet = m.BusySet(),
                     max_k: int = 2, index=None, heartbeat_stale_after_s=None,
                     filter_options=None, project_headroom=None,
                     max_rejected_hosts=None, handled=frozenset(),
                     cache: AnalysisCache = None, with_domains: bool = True) -> FailoverAnalysis:
    """The failover analysis of one aggregate from ``snapshot`` (k up to ``max_k``, at most 2).

    Each host set is planned with ``plan_evacuation`` and the same inputs an HA run of
    this cycle would have (busy set, unfit targets through ``heartbeat_stale_after_s``),
    on one planning context of the aggregate built once (each plan is a trial on it).
    Hosts already offline are planned too: their VMs are still there to evacuate; hosts
    an HA run already ``handled`` (fenced, maintenance, error ...) are not: they failed
    already, and what they kept is on the event that handled them. With a ``cache``, the
    analysis of the same inputs (``inputs_fingerprint``) is reused. ``with_domains`` False
    plans no failure domain (``failure_domains`` stays empty).
    """
    index = index or snapshot.index()
    unfit = ha.unfit_targets(snapshot, app_config, agg_config.name, heartbeat_stale_after_s, index)
    fingerprint = None
    if cache is not None:
        own = {h.name for h in index.hypervisors_of(agg_config.name)}
        # busy and handled elsewhere in the region change no plan of this aggregate
        busy_vms = sorted(vm_id for vm_id in busy.vms if vm_id in index.vms and index.vms[vm_id].host in own)
        fingerprint = inputs_fingerprint(
            index, agg_config.name, app_config, agg_config, max_k, max_rejected_hosts, filter_options,
            project_headroom, sorted(unfit.items()), sorted(handled & own), sorted(busy.hosts & own), busy_vms,
            with_domains)
        known = cache.get(agg_config.name, fingerprint)
        if known is not None:
            return known
    with gc_pause.cycle_collection_paused():  # as an LB plan: its passes would walk the whole snapshot
        analysis = _analyse(snapshot, app_config, agg_config, busy, max_k, index, filter_options,
                            project_headroom, max_rejected_hosts, handled, unfit, with_domains)
    if cache is not None:
        cache.put(agg_config.name, fingerprint, analysis)
    return analysis


def _analyse(snapshot, app_config, agg_config, busy, max_k, index, filter_options, project_headroom,
             max_rejected_hosts, handled, unfit, with_domains) -> FailoverAnalysis:
    names = [h.name for h in index.hypervisors_of(agg_config.name) if h.name not in handled]
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters, busy, index, filter_options,
                        project_headroom, unfit)

    def at_risk(hosts):
        found = _left_behind(ctx, snapshot, app_config, agg_config, busy, hosts, max_rejected_hosts)
        return HostsAtRisk(tuple(hosts), found) if found else None

    labels = failure_domains.domains_of(index, agg_config.name, names) if with_domains else \
        failure_domains.DomainLabels()
    domains = tuple(
        FailureDomain(hosts, _left_behind(ctx, snapshot, app_config, agg_config, busy, hosts, max_rejected_hosts), name)
        for name, hosts in labels.domains)
    found = _host_search(index, app_config, agg_config, min(max_k, MAX_SEARCHED_K), names, at_risk)
    return dataclasses.replace(found, failure_domains=domains, domain_error=labels.error)


def _host_search(index, app_config, agg_config, max_k, names, at_risk) -> FailoverAnalysis:
    """The tolerance over hosts (module docstring): single hosts, then pairs when every single host passed."""
    singles = tuple(r for r in (at_risk((name,)) for name in names) if r is not None)
    if max_k < 1 or singles or not names:
        tolerance = 0 if singles or not names else max_k
        return FailoverAnalysis(agg_config.name, tolerance, max_k, True, len(names), singles)
    if max_k == 1:
        return FailoverAnalysis(agg_config.name, 1, max_k, True, len(names))
    searched, exact = searched_pairs(index, app_config, agg_config, names)
    pairs = tuple(r for r in (at_risk(pair) for pair in searched) if r is not None)
    return FailoverAnalysis(agg_config.name, 1 if pairs else 2, max_k, exact, len(names), (), pairs)


def searched_pairs(index, app_config, agg_config, names) -> tuple:
    """(the host pairs the k = 2 search plans, whether they are all pairs of ``names``).

    Every pair up to ``EXACT_PAIRS_MAX_HOSTS`` hosts, else the pairs of the
    ``WORST_HOSTS`` hosts with the most evacuable RAM.
    """
    exact = len(names) <= EXACT_PAIRS_MAX_HOSTS
    searched = names
    if not exact:
        load = {name: _evacuable_ram_mb(index, app_config, agg_config, name) for name in names}
        searched = sorted(names, key=lambda n: (-load[n], n))[:WORST_HOSTS]
    return tuple(itertools.combinations(sorted(searched), 2)), exact


def shortfall(analysis: FailoverAnalysis, reserve: int):
    """The ``insufficient_failover_capacity`` warning when ``analysis`` is below ``reserve``, else None."""
    if not analysis.below(reserve):
        return None
    return reasons.insufficient_failover_capacity(analysis.aggregate, analysis.tolerance, reserve,
                                                  analysis.hosts_at_risk, analysis.vms_without_target)
