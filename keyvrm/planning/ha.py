"""HA planning: which hypervisors of an aggregate to fence, and where their VMs go.

Detection decision matrix (S = nova-compute service, H = heartbeat, I = the state of
``ha_fence_interfaces`` over the metrics window, T = the host's metrics target (is the
TSDB scraping its exporter now), P = what the host's BMC reports, asked only with
``ha_fence_bmc`` on and only of hosts whose heartbeat is stale (``keyvrm.harvest.power``);
"missing" = the source failed this cycle or has no record of the host):

    | S             | H             | I                  | T    | P       | verdict                       |
    |---------------|---------------|--------------------|------|---------|-------------------------------|
    | any           | any           | a fence iface down | any  | any     | unsafe: fence, evacuate       |
    | down          | stale         | up or missing      | any  | any     | failed: fence, evacuate       |
    | up or missing | stale         | up or missing      | any  | off     | powered_off: fence, evacuate  |
    | up or missing | stale         | up or missing      | down | on      | unresponsive: fence, evacuate |
    | down          | fresh         | up or missing      | any  | any     | host_alive_service_down       |
    | up            | stale <= SDT  | up or missing      | any  | other   | host_silent                   |
    | up            | stale > SDT   | up or missing      | any  | other   | heartbeat_path_broken         |
    | down          | missing       | up or missing      | any  | any     | insufficient_evidence         |
    | missing       | stale         | up or missing      | any  | other   | insufficient_evidence         |
    | up or missing | fresh/missing | up or missing      | any  | any     | healthy (nothing to say)      |

"stale <= SDT": the heartbeat has been stale (older than ``stale_after``) for at most
Nova's ``service_down_time`` (SDT, ``[ha] nova_service_down_time``, 60 s by default), i.e.
``now - heartbeat <= stale_after + service_down_time``. A host that dies stops its
heartbeat and its reports to Nova together, and Nova shows its service down
``service_down_time`` after its last report; since ``stale_after`` (10 s) is shorter, every
dead host first reads "stale heartbeat, service up": ``host_silent``, likely down, Nova's
verdict still to come. Once the heartbeat has been stale for longer than that (the
``stale_after`` margin covers a last report up to a beat after the last heartbeat), Nova
would have shown a dead host down: a service still up then means the host lives and its
heartbeat does not arrive, ``heartbeat_path_broken`` (or a hang nova-compute outlives).

``powered_off`` and ``unresponsive`` are the fast verdicts. A stale heartbeat alone may
be a broken heartbeat path, which is why HA otherwise waits for Nova's own verdict
(``service_down_time``, 60 s by default). But a BMC that reports the host powered off is
proof -- a host without power writes to no disk and runs no VM; and a host whose
heartbeat and exporter both went silent while its BMC answers "on" has hung (its
nova-compute may still report to Nova for a while), and its BMC can make that certain.
Either host is fenced as a failed one: the BMC fencer powers it off and confirms it off,
then Nova's fencer forces its compute service down, which is what lets Nova accept the
evacuations at once. A BMC that does not answer proves nothing (a partition cuts the
BMC network too): HA waits for Nova's verdict, as it does without BMC fencing.

A fence interface is only "down" when the metrics source answered and knows the host's
interfaces; so a missing source never alone condemns a host, and a source that failed is
reported as insufficient evidence, never read as health. Hosts an earlier HA run already
handled are reported and left alone. Above the matrix sits the mass-failure guard: if
more than one host and more than ``max_condemned_share`` of the aggregate are newly
condemned in one cycle, nothing is fenced (partition or monitoring fault). Condemned
hosts that an enabled fencer cannot handle are not fenced (``fencing_impossible``); with
no fencer enabled nothing is (``no_fencer``).

Evacuation (``plan_evacuation``) skips ``no_evac`` VMs and, unless ``allow_rebuild``,
image-backed VMs of an aggregate whose storage is not declared shared (their disk would
be rebuilt, ``keyvrm.planning.storage``); orders VMs by ``evacuate_order`` (lower first), the others
alternating largest vCPUs / largest RAM; and places each through the busy set, the
online check, Placement capacity and the Nova filters, counting it before the next.
Targets are the aggregate's other hosts; the VMs are spread over them: each goes to the
passing host that received the fewest VMs of this plan so far, the one with most free
RAM (Nova's RAM weigher) among equals; a member of a soft (anti-)affinity group goes
first by its group's members on each host (``ordered_pass``).
VMs this ordered pass leaves without a target get a second chance (see
``keyvrm.planning.repack``): smallest first, ``evacuate_order`` ones before the others,
by re-packing only the VMs this plan placed; a VM the ordered pass placed is never
dropped for one it did not place. Spreading is kept only when it costs nothing
(``place_evacuees``): if the spread plan leaves a VM without a target, the plan placing
each VM on the passing host with most free RAM is made too, and kept if it places more
VMs, in all or of the first ``evacuate_order`` tiers.
"""

from __future__ import annotations

import collections
import dataclasses
import heapq
from typing import Optional

from keyvrm.drivers.fencing.base import POWER_OFF
from keyvrm.drivers.fencing.base import POWER_ON
from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning.plan import EVACUATE
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.planning import repack
from keyvrm.planning import storage
from keyvrm.scheduling import capacity
from keyvrm.scheduling.selector import is_online
from keyvrm.scheduling.selector import UncheckedInputs

FAILED = "failed"
UNSAFE = "unsafe"
POWERED_OFF = "powered_off"
UNRESPONSIVE = "unresponsive"
HOST_SILENT = reasons.HOST_SILENT
HEARTBEAT_PATH_BROKEN = reasons.HEARTBEAT_PATH_BROKEN
HEALTHY = "healthy"
CONDEMNED_VERDICTS = (FAILED, UNSAFE, POWERED_OFF, UNRESPONSIVE)

DEFAULT_MAX_CONDEMNED_SHARE = 0.5
NOVA_SERVICE_DOWN_TIME_S = 60.0  # Nova's own default of [DEFAULT] service_down_time

_MISSING, _UP, _DOWN = "missing", "up", "down"
_RAM_MARGIN_MB = 1.0  # free RAM read apart from Placement's own sum (float rounding)


@dataclasses.dataclass(frozen=True, slots=True)
class HostVerdict:
    """The detection outcome for one host, with the signals it was decided from."""

    host: str
    verdict: str
    service: str
    heartbeat: str
    interfaces: str
    reason: Optional[reasons.Reason] = None
    power: Optional[str] = None


@dataclasses.dataclass(frozen=True, slots=True)
class Detection:
    """Hosts to fence now, every host's verdict, and the reasons (alerts included)."""

    to_fence: tuple = ()
    verdicts: tuple = ()
    reasons: tuple = ()

    @property
    def is_error(self) -> bool:
        return any(reason.is_error for reason in self.reasons)

    @property
    def state(self) -> str:
        """The state of an event that fences nothing: error, warning (an alert) or healthy."""
        return reasons.state_of(self.reasons)


def _service_signal(snapshot, hypervisor):
    if not snapshot.source_ok(m.SOURCE_NOVA) or hypervisor.service is None:
        return _MISSING
    return _UP if hypervisor.service.is_up else _DOWN


def _heartbeat_signal(snapshot, hypervisor, stale_after_s, now_s):
    if not snapshot.source_ok(m.SOURCE_HEARTBEAT) or hypervisor.heartbeat_at is None:
        return _MISSING
    return "stale" if now_s - hypervisor.heartbeat_at > stale_after_s else "fresh"


def _interface_signal(snapshot, hypervisor, fence_interfaces):
    metrics = hypervisor.metrics
    if (not fence_interfaces or not snapshot.source_ok(m.SOURCE_METRICS) or metrics is None
            or not metrics.interfaces_known):
        return _MISSING
    return _DOWN if set(metrics.down_interfaces) & set(fence_interfaces) else _UP


def _target_signal(snapshot, hypervisor):
    if not snapshot.source_ok(m.SOURCE_METRICS) or hypervisor.target_up is None:
        return _MISSING
    return _UP if hypervisor.target_up else _DOWN


def _power_signal(hypervisor, power_proof_on):
    """What the host's BMC said (``keyvrm.harvest.power``), counted only with BMC fencing on."""
    return hypervisor.power if power_proof_on else None


def _stale_heartbeat_verdict(name, hypervisor, stale_after_s, service_down_time_s, now_s, power):
    """``host_silent`` while Nova's verdict may still come, ``heartbeat_path_broken`` after (module docstring)."""
    silent_s = now_s - hypervisor.heartbeat_at
    verdict_due_s = stale_after_s + service_down_time_s - silent_s
    if verdict_due_s >= 0:
        return HOST_SILENT, reasons.host_silent(name, silent_s, verdict_due_s, power)
    return HEARTBEAT_PATH_BROKEN, reasons.heartbeat_path_broken(name, silent_s - stale_after_s,
                                                                service_down_time_s, power)


def judge_host(snapshot, hypervisor, fence_interfaces, stale_after_s, now_s, power_proof_on=False,
               service_down_time_s: float = NOVA_SERVICE_DOWN_TIME_S) -> HostVerdict:
    """Apply the decision matrix (module docstring) to one host; ``power_proof_on``: BMC fencing is on.

    ``service_down_time_s`` is Nova's: it parts ``host_silent`` from ``heartbeat_path_broken``.
    """
    name = hypervisor.name
    s = _service_signal(snapshot, hypervisor)
    h = _heartbeat_signal(snapshot, hypervisor, stale_after_s, now_s)
    i = _interface_signal(snapshot, hypervisor, fence_interfaces)
    t = _target_signal(snapshot, hypervisor)
    p = _power_signal(hypervisor, power_proof_on)
    verdict, reason = HEALTHY, None
    if i == _DOWN:
        verdict = UNSAFE
    elif s == _DOWN and h == "stale":
        verdict = FAILED
    elif h == "stale" and p == POWER_OFF:
        verdict = POWERED_OFF
    elif h == "stale" and t == _DOWN and p == POWER_ON:
        verdict = UNRESPONSIVE
    elif s == _DOWN and h == "fresh":
        verdict, reason = "host_alive_service_down", reasons.host_alive_service_down(name)
    elif s == _UP and h == "stale":
        verdict, reason = _stale_heartbeat_verdict(name, hypervisor, stale_after_s, service_down_time_s, now_s, p)
    elif s == _DOWN and h == _MISSING:
        verdict, reason = "insufficient_evidence", reasons.insufficient_evidence(
            name, m.SOURCE_HEARTBEAT)
    elif s == _MISSING and h == "stale":
        verdict, reason = "insufficient_evidence", reasons.insufficient_evidence(
            name, m.SOURCE_NOVA)
    return HostVerdict(name, verdict, s, h, i, reason, p)


def fencing_obstacle(app_config, hypervisor) -> Optional[str]:
    """Why an enabled fencer cannot handle ``hypervisor`` (None if all of them can)."""
    if app_config.ha_fence_ceph and not hypervisor.host_ip:
        return "Ceph fencing is on but the host's client address is unknown"
    if app_config.ha_fence_nova and hypervisor.service is None:
        return "Nova fencing is on but the host has no known compute service"
    return None


def _missing_sources(snapshot, app_config, aggregate) -> list:
    """The reason naming the sources HA judges by that failed this cycle (their silence is not health), if any."""
    judged = [m.SOURCE_NOVA, m.SOURCE_HEARTBEAT] + ([m.SOURCE_METRICS] if app_config.ha_fence_interfaces else [])
    failed = []
    for name in judged:
        if not snapshot.source_ok(name):
            status = snapshot.sources.get(name)
            failed.append((name, status.error if status else None))
    return [reasons.source_missing(aggregate, failed)] if failed else []


def detect_failures(snapshot, app_config, aggregate: str, *, heartbeat_stale_after_s: float,
                    now_s: float, max_condemned_share: float = DEFAULT_MAX_CONDEMNED_SHARE,
                    handled=None, index=None,
                    service_down_time_s: float = NOVA_SERVICE_DOWN_TIME_S) -> Detection:
    """Decide which hosts of ``aggregate`` are condemned and which of them to fence now.

    ``handled`` maps hosts an HA run already owns or has handled (KeyVRM states fenced,
    evacuating, maintenance, error, restoring) to their state: they are reported as
    already handled whatever their verdict (a host under repair may be up with its
    nova-compute still forced down: no warning), never fenced again, and do not count
    toward the mass-failure guard, which weighs only the
    hosts newly condemned in this cycle against the aggregate's size. A condemned host is
    fenced even when an unfinished recommendation touches it: a dead host is never busy
    because of work that cannot progress (``hosts_to_fence``). A source that failed is
    reported as insufficient evidence (the event ends ``warning``), never read as health.
    ``service_down_time_s`` is Nova's (see ``judge_host``).
    """
    handled = handled or {}
    index = index or snapshot.index()
    hosts = index.hypervisors_of(aggregate)
    found = _missing_sources(snapshot, app_config, aggregate)
    verdicts = tuple(judge_host(snapshot, h, app_config.ha_fence_interfaces, heartbeat_stale_after_s, now_s,
                                power_proof_on=app_config.ha_fence_bmc, service_down_time_s=service_down_time_s)
                     for h in hosts)
    found.extend(v.reason for v in verdicts if v.reason is not None and v.host not in handled)
    found.extend(reasons.already_handled(v.host, handled[v.host]) for v in verdicts
                 if v.host in handled and v.verdict != HEALTHY)
    condemned = [v.host for v in verdicts if v.verdict in CONDEMNED_VERDICTS and v.host not in handled]
    if not condemned:
        return Detection((), verdicts, tuple(found) or (reasons.no_failure(aggregate),))
    to_fence, why_not = hosts_to_fence(condemned, app_config, aggregate, len(hosts), max_condemned_share, index)
    return Detection(to_fence, verdicts, tuple(found) + why_not)


def hosts_to_fence(condemned, app_config, aggregate: str, host_count: int, max_condemned_share: float,
                   index) -> tuple:
    """(hosts to fence now, reasons why the others are not) of the ``condemned`` hosts of an aggregate.

    None when more than one and more than ``max_condemned_share`` of its ``host_count``
    hosts are condemned at once (the mass-failure guard) or no fencer is enabled; else
    every condemned host that is not impossible to fence. Busy or not: the migrations to
    or from a dead host cannot progress, so they never keep it from being fenced (the HA
    run ends them before it plans, ``flows.dead_work``).
    """
    if len(condemned) > 1 and len(condemned) > max_condemned_share * host_count:
        return (), (reasons.mass_failure_guard(aggregate, len(condemned), host_count, max_condemned_share),)
    if not (app_config.ha_fence_ceph or app_config.ha_fence_bmc or app_config.ha_fence_nova):
        return (), (reasons.no_fencer(),)
    to_fence, found = [], []
    for name in condemned:
        obstacle = fencing_obstacle(app_config, index.hypervisors[name])
        if obstacle is not None:
            found.append(reasons.fencing_impossible(name, obstacle))
            continue
        to_fence.append(name)
    return tuple(to_fence), tuple(found)


def evacuation_order(vms) -> list:
    """Order VMs for evacuation.

    ``evacuate_order`` ascending first (ties by id); then the rest alternating the
    largest by vCPUs and the largest by RAM among those left.
    """
    ordered = sorted((vm for vm in vms if vm.evacuate_order is not None),
                     key=lambda vm: (vm.evacuate_order, vm.id))
    rest = [vm for vm in vms if vm.evacuate_order is None]
    by_cpu = sorted(rest, key=lambda vm: (-vm.flavor.vcpus, -vm.flavor.ram_mb, vm.id))
    by_ram = sorted(rest, key=lambda vm: (-vm.flavor.ram_mb, -vm.flavor.vcpus, vm.id))
    taken = set()
    cursors = [0, 0]
    lists = (by_cpu, by_ram)
    turn = 0
    while len(taken) < len(rest):
        queue = lists[turn]
        while queue[cursors[turn]].id in taken:
            cursors[turn] += 1
        vm = queue[cursors[turn]]
        taken.add(vm.id)
        ordered.append(vm)
        turn = 1 - turn
    return ordered


def _skip_reason(vm, app_config, busy, storage_mode, allow_rebuild):
    if vm.no_evac:
        return reasons.excluded_by_metadata(vm.id, app_config.ha_no_evacuate_key, vm.host)
    if vm.id in busy.vms:
        return reasons.busy(vm.id, vm.host)
    if storage.evacuation_loses_disk(vm, storage_mode) and not allow_rebuild:
        return reasons.local_disk(vm.id, vm.host)
    return None


def _no_target_reason(vm, rejected, online_candidates, max_rejected_hosts=None):
    """The most specific reason: no online host, one capacity code everywhere, or counts.

    ``rejected`` is [(host, check)] of every candidate examined; the reason lists them
    per host (``Reason.rejected_hosts``, at most ``max_rejected_hosts``) besides counting
    them per check.
    """
    # each candidate is examined once per VM: one item per host, VMs 1
    listed = sorted(rejected)[:max_rejected_hosts] if rejected else ()
    per_host, more = tuple([(host, why, 1) for host, why in listed]), len(rejected) - len(listed)
    if not online_candidates:
        return reasons.capacity(capacity.NO_ONLINE_HYPERVISOR, vm.id,
                                "no available online hypervisor for %s" % vm.id, vm.host,
                                rejected=per_host, more=more)
    rejections = collections.Counter(why for _, why in rejected)
    if len(rejections) == 1:
        [code] = rejections
        if code in (capacity.RAM_DEPLETED, capacity.CPU_DEPLETED):
            what = "RAM" if code == capacity.RAM_DEPLETED else "CPU"
            return reasons.capacity(code, vm.id, "aggregate %s depleted: no host has room for"
                                    " %s" % (what, vm.id), vm.host,
                                    details=((code, rejections[code]),), rejected=per_host,
                                    more=more)
        if code == capacity.QUOTA_EXCEEDED:
            return reasons.capacity(code, vm.id, "project quota exceeded for %s" % vm.id,
                                    vm.host, rejected=per_host, more=more)
    return reasons.no_target(vm.id, dict(rejections), vm_id=vm.id, host=vm.host,
                             rejected=per_host, more=more)


def _left_over_order(left_over, vms) -> list:
    """The order in which VMs the ordered pass could not place get a second chance.

    ``evacuate_order`` keeps its priority (ascending); among the rest, the smallest RAM
    first, so that as many of them as possible run again.
    """
    chosen = [vm for vm in vms if vm.id in left_over]
    return [vm.id for vm in sorted(chosen, key=lambda vm: (
        vm.evacuate_order is None, vm.evacuate_order or 0, vm.flavor.ram_mb,
        vm.flavor.vcpus, vm.id))]


@dataclasses.dataclass(frozen=True, slots=True)
class OrderedPass:
    """The outcome of the ordered pass: targets (in order), requests, left-over reasons."""

    targets: dict
    requests: dict
    left_over: dict


class _MostFreeRam:
    """Candidate hosts, most free RAM first (Nova's RAM weigher): one heap keyed by free RAM.

    An entry whose host's free RAM changed since it was pushed is refreshed when popped,
    so a VM examines only the hosts it needs (all of them only when it finds no target).
    """

    def __init__(self, entries, states):
        self._heap = list(entries)  # (-free RAM, host)
        heapq.heapify(self._heap)
        self._states = states

    def names(self) -> list:
        return [name for _, name in self._heap]

    def received(self, name) -> None:
        """``name`` was sent a VM by ``_soft_group_target``: its entry is refreshed when next popped."""

    def may_free_ram(self) -> None:
        """A VM counted on a candidate host is placed: its free RAM may rise (nothing to do here)."""

    def target(self, selector, request, avoid) -> tuple:
        """(the first host in this order that passes ``request``, or None; [(host, check)] of those that did not)."""
        heap, states = self._heap, self._states
        target, rejected, examined = None, [], []
        while heap:
            neg_free, name = heapq.heappop(heap)
            current = -states.free_of(name, m.MEMORY_MB)
            if current != neg_free:
                heapq.heappush(heap, (current, name))
                continue
            examined.append((neg_free, name))
            if name == avoid:
                continue
            why = selector.host_rejection(request, name)
            if why is None:
                target = name
                break
            rejected.append((name, why))
        for entry in examined:
            heapq.heappush(heap, entry)
        return target, rejected


class _FewestReceived:
    """Candidate hosts by the VMs this pass sent them, fewest first, then most free RAM.

    One heap keyed by free RAM per count of VMs received, lowest count searched first. A
    host ``target`` returns counts one more VM at once (the pass places the VM there); an
    entry is moved to its host's count, and its free RAM refreshed, when popped. While free RAM only
    falls (until ``may_free_ram``), a count whose roomiest host lacks the RAM a VM asks
    is skipped whole: every host there would reject it for RAM, and none is examined (nor
    its state built) unless the VM finds no target at all.
    """

    def __init__(self, entries, states):
        first = list(entries)  # (-free RAM, host)
        heapq.heapify(first)
        self._levels = [first]
        self._received = {}
        self._states = states
        self._prune = True

    def names(self) -> list:
        return [name for level in self._levels for _, name in level]

    def received(self, name) -> None:
        """``name`` was sent a VM by ``_soft_group_target``: one more to its count."""
        self._received[name] = self._received.get(name, 0) + 1

    def may_free_ram(self) -> None:
        """A VM counted on a candidate host is placed: that host's free RAM may rise, so no count is skipped."""
        self._prune = False

    def target(self, selector, request, avoid) -> tuple:
        """(the first host in this order that passes ``request``, or None; [(host, check)] of those that did not)."""
        levels, states, received = self._levels, self._states, self._received
        ram_mb = request.resources.ram_mb
        # a margin for float rounding: Placement's check is used + asked > capacity
        too_little = ram_mb - _RAM_MARGIN_MB if self._prune and ram_mb > 0 else None
        target, rejected, examined, skipped = None, [], [], []
        for count, heap in enumerate(levels):  # a level appended meanwhile is searched too
            while heap:
                neg_free, name = heap[0]
                now_count, current = received.get(name, 0), -states.free_of(name, m.MEMORY_MB)
                if now_count != count or current != neg_free:
                    heapq.heappop(heap)
                    while len(levels) <= now_count:
                        levels.append([])
                    heapq.heappush(levels[now_count], (current, name))
                    continue
                if too_little is not None and -neg_free < too_little:
                    skipped.append(heap)
                    break
                heapq.heappop(heap)
                examined.append((heap, neg_free, name))
                if name == avoid:
                    continue
                why = selector.host_rejection(request, name)
                if why is None:
                    target = name
                    received[name] = count + 1
                    break
                rejected.append((name, why))
            if target is not None:
                break
        if target is None:  # the reason names every host's check: those skipped too
            rejected.extend((name, selector.host_rejection(request, name))
                            for heap in skipped for _, name in heap if name != avoid)
        for heap, neg_free, name in examined:
            heapq.heappush(heap, (neg_free, name))
        return target, rejected


def ordered_pass(ctx, vms, excluded_hosts, avoid_targets, max_rejected_hosts=None, spread=True) -> OrderedPass:
    """Place ``vms`` in order (SPEC 5.4), each on the passing host this pass sent the fewest VMs, most free RAM first.

    So the VMs of a failed host are spread over the targets, not piled on the emptiest
    (often one just restored): among the passing hosts the one that received the fewest
    VMs of this pass so far, the most free RAM (Nova's RAM weigher) parting equals. With
    ``spread`` False, simply the passing host with most free RAM (``place_evacuees``
    chooses between the two). A member of a soft-anti-affinity (soft-affinity) group goes
    first to the passing host with the fewest (most) of its group's members, the
    preference of Nova's soft weighers put before free RAM (``_soft_group_target``), and
    counts as a VM its host received.

    Each placement is counted before the next. Candidates sit in heaps keyed by free RAM
    (``_FewestReceived``, ``_MostFreeRam``), so each VM examines only the hosts it needs
    (all of them only when it finds no target). A VM without a target is kept in
    ``left_over`` with the reason why, which names the check that rejected each candidate
    host, at most ``max_rejected_hosts`` of them (the (host, check) pairs are only kept
    per VM and summed once it has no target).
    """
    ledger = ctx.ledger
    selector = ctx.selector
    online = any(is_online(h) for h in ctx.hosts
                 if h.name not in excluded_hosts and h.name not in selector.busy_hosts)
    order = (_FewestReceived if spread else _MostFreeRam)(
        [entry for entry in ctx.free_ram_order() if entry[1] not in excluded_hosts], ledger.hosts)
    targets, requests, left_over = {}, {}, {}
    for vm in vms:
        request = selector.request_for(vm)
        requests[vm.id] = request
        avoid = avoid_targets.get(vm.id)
        # a failed host is never a target: its state is left unbuilt and unchanged
        source = ledger.location(vm.id)
        release = source not in excluded_hosts
        if release and source in ledger.hosts:
            order.may_free_ram()  # counted on a candidate: moving it frees RAM there
        soft = _soft_group(selector, vm)
        if soft is not None:  # Nova weighs these hosts by the group's members first (a linear pass)
            target, rejected = _soft_group_target(ctx, vm, request, soft, order.names(), avoid)
            if target is not None:
                order.received(target)
        else:
            target, rejected = order.target(selector, request, avoid)
        if target is None:
            left_over[vm.id] = _no_target_reason(vm, rejected, online, max_rejected_hosts)
            continue
        ledger.move(vm, request.resources, target, release=release)
        targets[vm.id] = target
    return OrderedPass(targets, requests, left_over)


def _soft_group(selector, vm):
    """``vm``'s server group when its policy is soft (soft-affinity, soft-anti-affinity), else None."""
    group = selector.server_groups.get(vm.server_group_id)
    return group if group is not None and group.policy in (m.SOFT_AFFINITY, m.SOFT_ANTI_AFFINITY) else None


def _soft_group_target(ctx, vm, request, group, names, avoid):
    """(target, rejections) of a member of a soft group: by its group's members on each host first, then free RAM.

    Nova's ``ServerGroupSoftAntiAffinityWeigher`` (``SoftAffinityWeigher``) prefers hosts
    with fewer (more) of the group's members; here that preference comes first and the
    most free RAM (Nova's RAM weigher) only parts equals. Nova's scheduler instead adds
    the soft weigher to its RAM, CPU and disk weighers, each normalised over the hosts, so
    with the default multipliers an empty host outweighs it: on real Nova 34, evacuations
    without a target put every member of a group on the one freshly restored host
    (``tests/nova/test_ha_soft_anti_affinity_real_nova.py``'s layout), what issue 32 asked
    never to see again. The members counted are where this plan and the region put them.
    """
    states = ctx.ledger.hosts
    on_host = collections.Counter(ctx.ledger.location(member) for member in group.members if member != vm.id)
    sign = 1 if group.policy == m.SOFT_ANTI_AFFINITY else -1
    order = sorted((sign * on_host.get(name, 0), -states.free_of(name, m.MEMORY_MB), name) for name in names)
    rejected = []
    for _, _, name in order:
        if name == avoid:
            continue
        why = ctx.selector.host_rejection(request, name)
        if why is None:
            return name, rejected
        rejected.append((name, why))
    return None, rejected


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """Where a plan sends its VMs: targets (in plan order), the reasons of those left without, its ordered pass."""

    targets: dict
    left_over: dict
    first_pass: OrderedPass


def _placement(ctx, vms, excluded_hosts, avoid_targets, max_rejected_hosts, spread) -> Placement:
    """One rule's plan: the ordered pass, then the repair; the ledger counts it.

    The VMs the ordered pass leaves without a target get a second chance through
    ``repack.place_left_over``, which may move VMs placed by this plan (never others) to
    make room; every VM the pass placed stays placed, so the order keeps its priority.
    """
    first = ordered_pass(ctx, vms, excluded_hosts, avoid_targets, max_rejected_hosts, spread)
    targets = dict(first.targets)
    repaired = frozenset()
    if first.left_over:
        candidate_names = [h.name for h in ctx.hosts if h.name not in excluded_hosts]
        repaired = frozenset(repack.place_left_over(
            ctx, targets, first.requests, _left_over_order(first.left_over, vms),
            candidate_names, avoid_targets, vms))
    left_over = {vm_id: why for vm_id, why in first.left_over.items() if vm_id not in repaired}
    return Placement(targets, left_over, first)


def _places_no_fewer(placement, other, vms) -> bool:
    """``placement`` places no fewer VMs than ``other``: in all, nor of any ``evacuate_order`` tier and those before."""
    placed = collections.Counter(vm.evacuate_order for vm in vms if vm.id in placement.targets)
    placed.subtract(vm.evacuate_order for vm in vms if vm.id in other.targets)
    ahead = 0
    for tier in sorted(order for order in placed if order is not None) + [None]:
        ahead += placed[tier]
        if ahead < 0:
            return False
    return True


def _tried(ctx, collected, spread, keep_if, plan_args) -> tuple:
    """A plan made in a ledger trial, kept if ``keep_if(plan)``: (plan, kept, the inputs its checks could not know)."""
    ctx.selector.unchecked = UncheckedInputs() if collected.collecting else collected
    try:
        with ctx.ledger.trial() as trial:
            placement = _placement(ctx, *plan_args, spread)
            if keep_if(placement):
                trial.keep()
        return placement, trial.kept, ctx.selector.unchecked
    finally:
        ctx.selector.unchecked = collected


def place_evacuees(ctx, vms, excluded_hosts, avoid_targets, max_rejected_hosts=None,
                   left_behind_only=False) -> Placement:
    """Where ``vms`` (in evacuation order) go: spread over the targets, unless that places fewer VMs.

    HA's first duty is to restart as many VMs as it can; spreading them
    (``ordered_pass``) costs VMs when capacity is short, since it fills every host
    where most free RAM first keeps the emptiest hosts for the largest VMs (3-9% fewer
    on rack failures at 85% fill in bench_planning). So the spread plan (pass and repair)
    is kept when it places every VM. Otherwise the most-free-RAM plan is made too (only
    then), and the spread plan is kept only if it places no fewer VMs, in all nor of the
    first ``evacuate_order`` tiers (``_places_no_fewer``): the kept plan places at least as
    many VMs, of each priority and the higher ones, as the most-free-RAM rule alone
    would. Each plan is made in a ledger trial, so the ledger ends counting only the kept
    plan (a plan chosen after the other is counted again, one move per VM, without
    planning it again), and only the kept plan's unchecked inputs are collected.

    ``left_behind_only``: the caller reads only which VMs are left without a target and
    the hosts the placement uses (the failover analysis, the LB reserve guard). The
    most-free-RAM plan is then made first and kept when it places every VM: HA leaves
    none behind then either (its spread plan places them all, or is dropped for that
    one), and that plan touches fewer hosts. Otherwise both are made and chosen as above.
    """
    plan_args = (vms, excluded_hosts, avoid_targets, max_rejected_hosts)
    collected = ctx.selector.unchecked
    spread_first = not left_behind_only
    first, _, unchecked = _tried(ctx, collected, spread_first, lambda placement: not placement.left_over, plan_args)
    kept = first
    if first.left_over:

        def second_is_kept(second):
            spread, fullest = (first, second) if spread_first else (second, first)
            spread_kept = _places_no_fewer(spread, fullest, vms)
            return not spread_kept if spread_first else spread_kept

        second, second_kept, second_unchecked = _tried(ctx, collected, not spread_first, second_is_kept, plan_args)
        if second_kept:
            kept, unchecked = second, second_unchecked
        else:
            _count_targets(ctx.ledger, first, vms, excluded_hosts)
    if unchecked is not collected:
        collected.add(unchecked)
    return kept


def _count_targets(ledger, placement, vms, excluded_hosts) -> None:
    """Count ``placement``'s VMs on their targets, in its order, as its plan did."""
    by_id = {vm.id: vm for vm in vms}
    requests = placement.first_pass.requests
    for vm_id, target in placement.targets.items():
        vm = by_id[vm_id]
        ledger.move(vm, requests[vm_id].resources, target, release=ledger.location(vm_id) not in excluded_hosts)


def _place(ctx, vms, excluded_hosts, ha_round, avoid_targets, max_rejected_hosts=None, left_behind_only=False):
    """Place ``vms`` (``place_evacuees``); return (moves, reasons).

    Moves come in the order of the kept plan: the ordered pass's first, those of the
    VMs the repair placed after them, in the order they were placed.
    """
    placement = place_evacuees(ctx, vms, excluded_hosts, avoid_targets, max_rejected_hosts, left_behind_only)
    by_id = {vm.id: vm for vm in vms}
    moves = [PlannedMove(vm_id, EVACUATE, by_id[vm_id].host, target, ha_round=ha_round,
                         ram_mb=by_id[vm_id].flavor.ram_mb)
             for vm_id, target in placement.targets.items()]
    return moves, list(placement.left_over.values())


def unfit_targets(snapshot, app_config, aggregate: str, stale_after_s: Optional[float],
                  index=None) -> dict:
    """Hosts of ``aggregate`` no VM may be sent to although Nova may take them: {host: verdict}.

    Every host the decision matrix does not find healthy: with nova-compute still up, a
    stale heartbeat may be a host dying before Nova notices (``host_silent``; past Nova's
    default ``service_down_time``, ``heartbeat_path_broken``: the name of the rejection
    only) and a fence interface down makes it ``unsafe``; the others are offline anyway. A
    host without heartbeat data (no agent, or the source failed) is judged by Nova
    alone, so a region without heartbeat agents loses no target. None for
    ``stale_after_s``: no host is unfit.
    """
    if stale_after_s is None:
        return {}
    index = index or snapshot.index()
    verdicts = (judge_host(snapshot, h, app_config.ha_fence_interfaces, stale_after_s,
                           snapshot.taken_at) for h in index.hypervisors_of(aggregate))
    return {v.host: v.verdict for v in verdicts if v.verdict != HEALTHY}


def plan_evacuation(snapshot, app_config, agg_config, busy: m.BusySet, fenced_hosts, *,
                    allow_rebuild: bool = False, index=None, filter_options=None,
                    project_headroom=None, max_rejected_hosts=None,
                    heartbeat_stale_after_s: Optional[float] = None, context=None,
                    vms_on=None, left_behind_only: bool = False) -> Plan:
    """Round 1: plan the evacuation of every VM of the fenced hosts of one aggregate.

    A fenced host is planned even when an unfinished recommendation touches it (a dead
    host's work cannot progress); only its VMs such work holds are left (``busy``).
    A VM without a target lists at most ``max_rejected_hosts`` (host, check) items (None: all).
    Hosts ``unfit_targets`` names receive no VM (their verdict is the rejecting check).
    ``context``, when given, is this aggregate's planning context already built from the
    same inputs (a caller planning many host sets of one snapshot builds it once, and
    plans each inside ``AggregateContext.trial``); the other inputs then only name things.
    ``vms_on(host)``, when given, lists the VMs a host carries in that context's ledger
    (a planner that moved VMs asks what its moves would leave a failure); by default the
    snapshot's. ``left_behind_only``: the caller reads only which VMs the plan leaves
    without a target and which hosts it uses, not where each VM goes (``place_evacuees``:
    when every VM has a target the moves may then not be those HA would make).
    """
    index = index or snapshot.index()
    ctx = context or build_context(
        snapshot, agg_config.name, app_config.nova_filters, busy, index, filter_options, project_headroom,
        unfit_targets(snapshot, app_config, agg_config.name, heartbeat_stale_after_s, index))
    fenced = frozenset(fenced_hosts)
    found = [] if app_config.nova_filters else [reasons.no_filters()]
    candidates = []
    for host in sorted(fenced):
        for vm in (vms_on or ctx.index.vms_on)(host):
            why = _skip_reason(vm, app_config, busy, agg_config.storage_mode, allow_rebuild)
            if why is not None:
                found.append(why)
            else:
                candidates.append(vm)
    moves, placed_reasons = _place(ctx, evacuation_order(candidates), fenced, 1, {}, max_rejected_hosts,
                                   left_behind_only)
    unchecked = reasons.filter_input_unknown(ctx.selector.unchecked.summary())
    return Plan(tuple(moves), tuple(found + placed_reasons + unchecked))


def replan_evacuation(snapshot, app_config, agg_config, busy: m.BusySet, fenced_hosts,
                      failed: dict, *, allow_rebuild: bool = False, index=None,
                      filter_options=None, project_headroom=None, max_rejected_hosts=None,
                      heartbeat_stale_after_s: Optional[float] = None) -> Plan:
    """Round 2: re-plan only the VMs whose round-1 recommendation failed.

    ``failed`` maps VM id to the (expected source, failed target) of its round-1
    recommendation. Each gets a fresh target from this (fresher) snapshot, never the
    target that failed; a VM no longer on its expected source is reported, not moved.
    Unfit hosts receive no VM, as in round 1.
    """
    index = index or snapshot.index()
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters, busy, index,
                        filter_options, project_headroom,
                        unfit_targets(snapshot, app_config, agg_config.name, heartbeat_stale_after_s, index))
    fenced = frozenset(fenced_hosts)
    found, candidates, avoid = [], [], {}
    for vm_id in sorted(failed):
        source, failed_target = failed[vm_id]
        vm = ctx.index.vms.get(vm_id)
        if vm is None or vm.host != source:
            where = vm.host if vm is not None else "nowhere"
            found.append(reasons.capacity(
                capacity.VM_NOT_ON_EXPECTED_HOST, vm_id, "VM %s is running on another host"
                " than expected (%s, expected %s)" % (vm_id, where, source), source))
            continue
        why = _skip_reason(vm, app_config, busy, agg_config.storage_mode, allow_rebuild)
        if why is not None:
            found.append(why)
            continue
        candidates.append(vm)
        avoid[vm_id] = failed_target
    moves, placed_reasons = _place(ctx, evacuation_order(candidates), fenced, 2, avoid, max_rejected_hosts)
    unchecked = reasons.filter_input_unknown(ctx.selector.unchecked.summary())
    return Plan(tuple(moves), tuple(found + placed_reasons + unchecked))
