"""Why a planner did nothing (or less than asked): machine-readable codes, sentences and figures.

Every "nothing to do" outcome of a planner is a ``Reason``: a stable ``code`` an API or
test can match, a ``message`` an operator can read, the host and VM it is about, and its
figures (``details``: a syn_score and its threshold, a ceiling, hosts rejected per check).
The constructors below are the only place these sentences are written. An event or a
cycle outcome keeps them as entries of a ``keyvrm.model.reason_list.ReasonList``
(``Reason.entry``), ordered by ``rank``, whose first code is the event's ``reason_code``.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.drivers.fencing.base import POWER_ON
from keyvrm.drivers.fencing.base import POWER_UNREACHABLE
from keyvrm.model import reason_list
from keyvrm.model import states

DISABLED = "disabled"
NOOP = "noop"
NO_MARKER = "no_marker"
NO_FILTERS = "no_filters"
LB_TOO_EARLY = "lb_too_early"
NO_OVERLOAD = "no_overload"
OVERLOADED = "overloaded"
NO_TARGET = "no_target"
NO_FENCER = "no_fencer"
FENCING_IMPOSSIBLE = "fencing_impossible"
NO_METRICS = "no_metrics"
MIXED_HUGEPAGES = "mixed_hugepages"
EXCLUDED_BY_METADATA = "excluded_by_metadata"
MASS_FAILURE_GUARD = "mass_failure_guard"
NO_FAILURE = "no_failure"
HOST_ALIVE_SERVICE_DOWN = "host_alive_service_down"
HEARTBEAT_PATH_BROKEN = "heartbeat_path_broken"
HOST_SILENT = "host_silent"  # heartbeat stale, Nova's verdict not due yet: likely a dead host
INSUFFICIENT_EVIDENCE = "insufficient_evidence"
LOCAL_DISK = "local_disk"
STORAGE_UNDECLARED = "storage_undeclared"
BUSY = "busy"
COOLDOWN = "cooldown"
NOT_IMPROVING = "not_improving"
NOT_MIGRATABLE = "not_migratable"
VMS_REMAIN = "vms_remain"
ALREADY_HANDLED = "already_handled"
FILTER_INPUT_UNKNOWN = "filter_input_unknown"  # info: a check passed hosts on an input no API reports
HA_ACTED = "ha_acted"  # HA+LB: LB skipped in a cycle where HA recommended evacuations
ENGINE_LOST_DATABASE = "engine_lost_database"  # the sweep settled work whose flow was lost
SOURCE_FAILED = "source_failed"  # LB: Nova or Placement failed this cycle, nothing planned
LB_NO_TARGET = "lb_no_target"  # LB found overloaded hosts and could relieve none of them
# LB: hosts overloaded in fewer consecutive runs than the aggregate's lb_persistence: not relieved yet
LB_IMBALANCE_PENDING = "lb_imbalance_pending"
# LB: a host a move left or reached within the metrics window: its metrics predate the move
METRICS_SETTLING = "metrics_settling"
# An operator's drain of a host: what it plans, and how it ended
DRAIN = "drain"
DRAINED = "drained"  # every VM left the host: maintenance
DRAIN_INCOMPLETE = "drain_incomplete"  # VMs remain on the host when the drain's moves ended
FAILBACK = "failback"  # what a failback to a restored host plans
FAILBACK_SKIPPED = "failback_skipped"  # a VM KeyVRM moved off the host is not its to bring back any more
RECOMMENDATIONS_FINAL = "recommendations_final"  # a settled event: how its recommendations ended
# HA: the failover tolerance is below the aggregate's ha_failover_reserve (keyvrm.planning.failover)
INSUFFICIENT_FAILOVER_CAPACITY = "insufficient_failover_capacity"
# Capacity codes (keyvrm.scheduling.capacity) are reasons too:
# cpu_depleted, ram_depleted, hugepages_depleted, no_inventory, quota_exceeded,
# no_online_hypervisor, vm_not_on_expected_host.

# Reasons that make an HA/LB event end in the error state (SPEC 4).
ERROR_CODES = frozenset({NO_FENCER, FENCING_IMPOSSIBLE, MIXED_HUGEPAGES, MASS_FAILURE_GUARD})
# Runs with only these reasons had nothing to do: recorded on the cycle, not as events (the
# aggregate's event history keeps the runs that acted or that an operator should read).
NOTHING_TO_DO_CODES = frozenset({LB_TOO_EARLY, HA_ACTED, NO_OVERLOAD, NO_FAILURE, ALREADY_HANDLED,
                                 FILTER_INPUT_UNKNOWN, SOURCE_FAILED, LB_IMBALANCE_PENDING, METRICS_SETTLING})
# Alerts: nothing was done, but an operator should look (the event ends at least ``warning``).
WARNING_CODES = frozenset({HOST_ALIVE_SERVICE_DOWN, HEARTBEAT_PATH_BROKEN, HOST_SILENT, INSUFFICIENT_EVIDENCE,
                           ENGINE_LOST_DATABASE, LB_NO_TARGET, INSUFFICIENT_FAILOVER_CAPACITY, DRAIN_INCOMPLETE})
# Notes on how a run planned, not what it found: never an event's code while another applies.
INFO_CODES = frozenset({NO_FILTERS, FILTER_INPUT_UNKNOWN, DRAIN, FAILBACK})


def rank(code: str) -> int:
    """Where ``code`` stands among a run's reasons, most telling first: the first is the run's reason_code.

    0: an error (``ERROR_CODES``: the run could not do its job); 1: a finding, any
    other code (what the run found: overloaded hosts, no target, a busy host, a stale
    heartbeat ...); 2: ``recommendations_final``, how the recommendations of a settled
    event ended; 3: a note on how the run planned (``INFO_CODES``). Codes of one rank
    keep the order in which the run found them.
    """
    if code in ERROR_CODES:
        return 0
    if code == RECOMMENDATIONS_FINAL:
        return 2
    return 3 if code in INFO_CODES else 1


@dataclasses.dataclass(frozen=True, slots=True)
class Reason:
    """One outcome explained; ``details`` is a tuple of (name, value) pairs, values numbers or short text.

    ``rejected_hosts`` is set on a "no target" outcome only (``no_target`` or the capacity
    code that stood for it): ((candidate host, check, VMs it rejected there), ...), sorted
    by host then check (see ``rejected_hosts``), perhaps capped by the planner, which then
    counts the items left out in ``more_hosts``; None on every other reason.
    """

    code: str
    message: str
    vm_id: Optional[str] = None
    host: Optional[str] = None
    details: tuple = ()
    rejected_hosts: Optional[tuple] = None
    more_hosts: int = 0

    @property
    def is_error(self) -> bool:
        return self.code in ERROR_CODES

    def entry(self) -> reason_list.Entry:
        """This reason as an event or a cycle outcome keeps it."""
        return reason_list.Entry(self.code, self.message, self.host, self.vm_id, self.details)

    @property
    def is_warning(self) -> bool:
        return self.code in WARNING_CODES


def nothing_to_do(found) -> bool:
    """Whether a run that created nothing only found that there was nothing to do."""
    return all(reason.code in NOTHING_TO_DO_CODES for reason in found)


def state_of(found) -> str:
    """The event state a run that created nothing ends in: error, warning (an alert) or healthy."""
    found = tuple(found)
    if any(reason.is_error for reason in found):
        return states.EventState.ERROR
    return states.EventState.WARNING if any(reason.is_warning for reason in found) else states.EventState.HEALTHY


def disabled() -> Reason:
    return Reason(DISABLED, "KeyVRM is disabled (app_config.enabled=false)")


def noop(aggregate: str, why: Optional[str]) -> Reason:
    return Reason(NOOP, "aggregate %s is in NOOP mode: %s" % (aggregate, why or "no reason"))


def no_marker(aggregate: str) -> Reason:
    return Reason(NO_MARKER, "aggregate %s has no HA/LB marker" % aggregate)


def no_filters() -> Reason:
    return Reason(NO_FILTERS, "nova_filters is empty: targets are chosen without Nova filters")


def lb_too_early(aggregate: str, wait_s: float) -> Reason:
    return Reason(LB_TOO_EARLY, "LB on %s too early: next run allowed in %d s" % (
        aggregate, int(round(wait_s))), details=(("wait_s", round(wait_s, 3)),))


def _ceilings_text(ceilings: dict) -> str:
    listed = ["%s %g%%" % (key, value) for key, value in ceilings.items() if value is not None]
    return ", ".join(listed) if listed else "none"


def no_overload(aggregate: str, threshold_pct: float, ceilings: Optional[dict] = None) -> Reason:
    return Reason(NO_OVERLOAD, "no hypervisor of %s above %g%% syn_score or at a resource"
                  " ceiling (%s)" % (aggregate, threshold_pct, _ceilings_text(ceilings or {})))


def overload_cause(measure: str, value_pct: float, limit_pct: float) -> str:
    """One reason a host is overloaded: "cpu 100% >= ceiling 90%", "syn_score 82.5% > 80%"."""
    if measure == "syn_score":
        return "syn_score %g%% > threshold %g%%" % (round(value_pct, 1), limit_pct)
    return "%s %g%% >= ceiling %g%%" % (measure, round(value_pct, 1), limit_pct)


def _overload_figures(why) -> tuple:
    """(name, value) pairs of a host's overload: syn_score and threshold, or e.g. cpu and cpu_ceiling."""
    figures = []
    for measure, value_pct, limit_pct in why:
        limit = "threshold" if measure == "syn_score" else measure + "_ceiling"
        figures += [(measure, round(value_pct, 1)), (limit, limit_pct)]
    return tuple(figures)


def overloaded(aggregate: str, causes) -> list:
    """The hypervisors an LB run relieves: how many, then one reason per host, worst first.

    ``causes`` is [(host, ((measure, value %, limit %), ...))]: the score above the
    threshold and/or each resource at or above its ceiling.
    """
    count = Reason(OVERLOADED, "%d hypervisor%s of %s overloaded" % (
        len(causes), "" if len(causes) == 1 else "s", aggregate), details=(("hypervisors", len(causes)),))
    return [count] + [Reason(OVERLOADED, "%s %s" % (host, ", ".join(overload_cause(*cause) for cause in why)),
                             host=host, details=_overload_figures(why)) for host, why in causes]


def metrics_settling(aggregate: str, settling, window_s: float) -> list:
    """Overloaded hosts LB leaves alone while their metrics predate a move: how many, then one reason per host.

    ``settling`` is [(host, seconds before the snapshot that a move left or reached it)], not empty:
    the count comes first, about the aggregate, with the seconds until the first of them
    has metrics all taken after its move; then each host with its seconds, the one moved
    longest ago first. The shared sentence is the count's alone: a region's hundreds of
    hosts read as one line and a short line each (the reason list keeps the first few).
    """
    ordered = sorted(settling, key=lambda item: (-item[1], item[0]))
    first_in_s = max(0.0, window_s - ordered[0][1])
    count = Reason(METRICS_SETTLING, "LB waits on %d overloaded hypervisor%s of %s: a VM moved off or onto each less"
                   " than %.0f s (the metrics window) before these metrics; the first one's metrics postdate its"
                   " move in %.0f s" % (len(ordered), "" if len(ordered) == 1 else "s", aggregate, window_s,
                                        first_in_s),
                   details=(("hypervisors", len(ordered)), ("window_s", window_s),
                            ("first_in_s", round(first_in_s, 1))))
    return [count] + [Reason(METRICS_SETTLING, "%s: a move %.0f s before these metrics" % (host, moved_s_before),
                             host=host, details=(("moved_s_before", round(moved_s_before, 1)), ("window_s", window_s)))
                      for host, moved_s_before in ordered]


def imbalance_pending(aggregate: str, waiting, persistence: int) -> list:
    """Overloaded hosts LB leaves for now: how many, then one reason per host with its run count.

    ``waiting`` is [(host, causes, runs)]: ``causes`` as ``overloaded`` takes them, ``runs``
    the consecutive LB runs (this one included) that found it overloaded, fewer than the
    aggregate's ``lb_persistence``.
    """
    count = Reason(LB_IMBALANCE_PENDING, "%d hypervisor%s of %s overloaded for fewer than %d consecutive LB runs"
                   " (lb_persistence): LB relieves a host once its overload lasts that long" % (
                       len(waiting), "" if len(waiting) == 1 else "s", aggregate, persistence),
                   details=(("hypervisors", len(waiting)), ("lb_persistence", persistence)))
    return [count] + [Reason(LB_IMBALANCE_PENDING, "%s %s, run %d of %d" % (
        host, ", ".join(overload_cause(*cause) for cause in why), runs, persistence), host=host,
        details=_overload_figures(why) + (("runs", runs), ("lb_persistence", persistence)))
        for host, why, runs in waiting]


def drain(host: str, moving: int, staying: int, cold: int = 0, allow_cold: bool = False,
          after_event: Optional[str] = None) -> Reason:
    """What a drain of ``host`` plans: how many VMs it live-migrates, cold-migrates, how many stay (with reasons).

    ``allow_cold``: whether the drain was asked to cold-migrate what a live migration
    cannot move; the message says so and the details carry it. ``after_event``: this is
    the drain's cold round, for the VMs whose live migration failed in that event.
    """
    moves = "%d VM(s) to live-migrate" % moving
    if allow_cold:
        moves += ", %d to cold-migrate (cold migration allowed)" % cold
    staying_text = ", %d stay (see their reasons)" % staying if staying else ""
    which = " (cold round after the failed live migrations of event %s)" % after_event if after_event else ""
    details = (("moving", moving + cold), ("staying", staying), ("cold", cold), ("allow_cold", allow_cold))
    return Reason(DRAIN, "drain of %s%s: %s%s" % (host, which, moves, staying_text), host=host,
                  details=details + ((("after_event", after_event),) if after_event else ()))


def failback(host: str, moving: int, staying: int) -> Reason:
    """What a failback to ``host`` plans: how many VMs go back, how many do not (each with its reason)."""
    return Reason(FAILBACK, "failback to %s: %d VM(s) to live-migrate back%s" % (
        host, moving, ", %d not (see their reasons)" % staying if staying else ""), host=host,
        details=(("moving", moving), ("staying", staying)))


def failback_skipped(vm_id: str, host: str, why: str) -> Reason:
    return Reason(FAILBACK_SKIPPED, "VM %s is not brought back to %s: %s" % (vm_id, host, why), vm_id=vm_id,
                  host=host)


def drained(host: str) -> Reason:
    return Reason(DRAINED, "%s is empty: maintenance (its compute service stays disabled)" % host, host=host)


def drain_incomplete(host: str, vm_ids) -> Reason:
    vm_ids = sorted(vm_ids)
    message = "%d VM(s) remain on %s after its drain: %s; move them or return the host to service" % (
        len(vm_ids), host, ", ".join(vm_ids))
    return Reason(DRAIN_INCOMPLETE, message, host=host, details=(("vms", len(vm_ids)),))


def rejected_hosts(rejected, limit: Optional[int] = None) -> tuple:
    """(((host, check, VMs), ...) sorted by host then check, how many more) from (host, check, VM id).

    A (host, check) pair counts each VM once however often that check rejected it there;
    with ``limit`` only the first ``limit`` items are listed, the others counted.
    """
    vms = {}
    for host, check, vm_id in rejected:
        vms.setdefault((host, check), set()).add(vm_id)
    keys = sorted(vms)
    kept = keys if limit is None else keys[:max(0, limit)]
    return tuple((host, check, len(vms[host, check])) for host, check in kept), len(keys) - len(kept)


def no_target(subject: str, rejections: dict, vm_id: Optional[str] = None,
              host: Optional[str] = None, rejected: Optional[tuple] = None, more: int = 0) -> Reason:
    """No host took ``subject``; ``rejections`` counts rejected hosts per filter or check.

    ``rejected`` is the per-host account of the same checks (``rejected_hosts``), ``more``
    how many of its items a cap left out.
    """
    ordered = sorted(rejections.items(), key=lambda item: (-item[1], item[0]))
    parts = ["%d host%s rejected by %s" % (n, "" if n == 1 else "s", name)
             for name, n in ordered]
    text = ", ".join(parts) if parts else "no candidate host"
    return Reason(NO_TARGET, "no target for %s: %s" % (subject, text), vm_id=vm_id, host=host,
                  details=tuple(ordered), rejected_hosts=rejected, more_hosts=more)


def capacity(code: str, vm_id: str, message: str, host: Optional[str] = None,
             details: tuple = (), rejected: Optional[tuple] = None, more: int = 0) -> Reason:
    """A capacity refusal (one of keyvrm.scheduling.capacity's codes).

    ``rejected`` and ``more`` (as for ``no_target``) when it is why ``vm_id`` found no target.
    """
    return Reason(code, message, vm_id=vm_id, host=host, details=details, rejected_hosts=rejected,
                  more_hosts=more)


def no_fencer() -> Reason:
    return Reason(NO_FENCER, "no fencer enabled (ha_fence_ceph, ha_fence_bmc, ha_fence_nova"
                  " are all false): nothing is fenced or evacuated")


def fencing_impossible(host: str, why: str) -> Reason:
    return Reason(FENCING_IMPOSSIBLE, "host %s cannot be fenced: %s" % (host, why), host=host)


def no_metrics(host: Optional[str] = None, aggregate: Optional[str] = None) -> Reason:
    if host is not None:
        return Reason(NO_METRICS, "no metrics for hypervisor %s: not scored" % host, host=host)
    return Reason(NO_METRICS, "no metrics for any hypervisor of %s" % aggregate)


def mixed_hugepages(aggregate: str, hugepage_vms: int, ordinary_vms: int) -> Reason:
    return Reason(MIXED_HUGEPAGES, "aggregate %s mixes %d HugePages VMs and %d ordinary VMs:"
                  " LB refused" % (aggregate, hugepage_vms, ordinary_vms),
                  details=(("hugepage_vms", hugepage_vms), ("ordinary_vms", ordinary_vms)))


def excluded_by_metadata(vm_id: str, key: str, host: Optional[str] = None) -> Reason:
    return Reason(EXCLUDED_BY_METADATA, "VM %s excluded by metadata key %s" % (vm_id, key),
                  vm_id=vm_id, host=host, details=(("key", key),))


def mass_failure_guard(aggregate: str, condemned: int, total: int, max_share: float) -> Reason:
    return Reason(MASS_FAILURE_GUARD, "%d of %d hypervisors of %s newly condemned at once (more than"
                  " %g%%, [ha] mass_failure_share): looks like a partition or a monitoring fault,"
                  " nothing fenced" % (
                      condemned, total, aggregate, max_share * 100),
                  details=(("condemned", condemned), ("total", total)))


def no_failure(aggregate: str) -> Reason:
    return Reason(NO_FAILURE, "no failed or unsafe hypervisor in %s" % aggregate)


def host_alive_service_down(host: str) -> Reason:
    return Reason(HOST_ALIVE_SERVICE_DOWN, "nova-compute on %s is down but its heartbeat is"
                  " fresh and interfaces are up: alert, no fencing" % host, host=host)


def _bmc_said(power: Optional[str]) -> str:
    return {POWER_ON: "; its BMC reports it powered on",
            POWER_UNREACHABLE: "; its BMC did not answer (no proof of power loss)"}.get(power, "")


def host_silent(host: str, silent_s: float, verdict_due_s: float, power: Optional[str] = None) -> Reason:
    """A stale heartbeat while Nova, whose verdict is not due yet, still shows the compute service up.

    ``silent_s``: seconds since the last heartbeat; ``verdict_due_s``: seconds until its heartbeat
    has been stale for Nova's ``service_down_time`` (by then Nova shows a dead host down);
    ``power``: what its BMC said, if asked.
    """
    details = (("silent_s", round(silent_s)), ("nova_verdict_due_s", round(verdict_due_s)))
    return Reason(HOST_SILENT, "%s silent for %d s (no heartbeat) while Nova still shows nova-compute up%s:"
                  " likely down, waiting for Nova's verdict (due within %d s); no fencing before it" % (
                      host, round(silent_s), _bmc_said(power), round(verdict_due_s)),
                  host=host, details=details + ((("bmc_power", power),) if power else ()))


def heartbeat_path_broken(host: str, stale_s: float, service_down_time_s: float,
                          power: Optional[str] = None) -> Reason:
    """A heartbeat stale for longer than Nova's ``service_down_time`` while Nova still shows the service up.

    ``stale_s``: seconds the heartbeat has been stale; ``power``: what its BMC said, if asked.
    """
    details = (("stale_s", round(stale_s)), ("service_down_time_s", round(service_down_time_s)))
    return Reason(HEARTBEAT_PATH_BROKEN, "heartbeat of %s stale for %d s, longer than Nova's service_down_time"
                  " (%d s), yet nova-compute is up%s: the heartbeat path (agent, Redis, Sentinel) is"
                  " likely broken, or the host hangs with nova-compute still reporting; no fencing" % (
                      host, round(stale_s), round(service_down_time_s), _bmc_said(power)),
                  host=host, details=details + ((("bmc_power", power),) if power else ()))


def insufficient_evidence(host: str, missing: str) -> Reason:
    return Reason(INSUFFICIENT_EVIDENCE, "%s looks failed but the %s source is missing:"
                  " insufficient evidence, no fencing" % (host, missing), host=host)


def _failed_sources(failed) -> str:
    return ", ".join("the %s source failed this cycle (%s)" % (source, error or "no answer")
                     for source, error in failed)


def source_missing(aggregate: str, failed) -> Reason:
    """The sources HA judges hosts by that failed this cycle: not evidence of health (SPEC 3 step 4).

    ``failed`` is ((source, error), ...): one reason names them all (it is about the
    aggregate, not a host).
    """
    it = "it" if len(failed) == 1 else "them"
    return Reason(INSUFFICIENT_EVIDENCE, "%s: the hosts of %s cannot be judged by %s; insufficient evidence,"
                  " nothing fenced on %s account" % (_failed_sources(failed), aggregate, it,
                                                     "its" if len(failed) == 1 else "their"),
                  details=(("failed_sources", len(failed)),))


def source_failed(aggregate: str, failed) -> Reason:
    """The sources an LB plan is made from that failed this cycle: nothing planned from partial data.

    ``failed`` is ((source, error), ...), all named by the one reason.
    """
    return Reason(SOURCE_FAILED, "%s: LB plans nothing for %s from partial data; it runs again next cycle"
                  % (_failed_sources(failed), aggregate), details=(("failed_sources", len(failed)),))


def already_handled(host: str, state: str) -> Reason:
    """A condemned host an HA run owns or has handled (it neither counts for the guard nor is fenced again)."""
    return Reason(ALREADY_HANDLED, "host %s is already in KeyVRM state %s (an earlier HA run); an admin"
                  " returns it to service with `openstack keyvrm hypervisor restore %s`" % (host, state, host),
                  host=host, details=(("state", state),))


def local_disk(vm_id: str, host: str) -> Reason:
    return Reason(LOCAL_DISK, "VM %s has its root disk on %s's local storage (aggregate storage_mode"
                  " local): not evacuated, a rebuild would lose the disk ([executor]"
                  " allow_rebuild_local_disk is off)" % (vm_id, host), vm_id=vm_id, host=host)


def storage_undeclared(aggregate: str) -> Reason:
    return Reason(STORAGE_UNDECLARED, "aggregate %s has HA in its marker but no storage_mode: HA does"
                  " not run until an operator declares where its instance disks live (shared, e.g."
                  " Ceph RBD or NFS; or local)" % aggregate)


def busy(vm_id: Optional[str], host: Optional[str]) -> Reason:
    what = ("VM %s" % vm_id) if vm_id else ("host %s" % host)
    return Reason(BUSY, "%s is touched by an unfinished recommendation" % what,
                  vm_id=vm_id, host=host)


def cooldown(vm_id: str, host: str, after_snapshot: bool = False) -> Reason:
    if after_snapshot:
        return Reason(COOLDOWN, "VM %s was moved after this snapshot was taken: not planned from"
                      " it" % vm_id, vm_id=vm_id, host=host)
    return Reason(COOLDOWN, "VM %s was moved recently: in cool-down" % vm_id,
                  vm_id=vm_id, host=host)


def not_improving(host: str, score_pct: float) -> Reason:
    return Reason(NOT_IMPROVING, "no move relieves %s (syn_score %.1f%%) enough while keeping"
                  " its target under the limits" % (host, score_pct), host=host)


def not_migratable(vm_id: str, host: str, status: str, task_state: Optional[str], live_failed: bool = False,
                   cold_possible: bool = False) -> Reason:
    """A VM Nova will not move now, in its state (status/task).

    ``live_failed``: its live migration failed and Nova refuses to cold-migrate it;
    ``cold_possible``: a drain with ``allow_cold`` would cold-migrate it.
    """
    state = "%s%s" % (status, "/" + task_state if task_state else "")
    if live_failed:
        message = "VM %s is %s: its live migration failed and Nova refuses to cold-migrate it" % (vm_id, state)
    else:
        message = "VM %s is %s: Nova refuses to live-migrate it%s" % (
            vm_id, state, " (a drain with allow_cold would cold-migrate it)" if cold_possible else "")
    return Reason(NOT_MIGRATABLE, message, vm_id=vm_id, host=host)


def vms_remain(host: str, count: int, down: bool = True) -> Reason:
    what = ("down with the host (nothing sent to Nova)" if down
            else "stop requested (the fence left the host running)")
    return Reason(VMS_REMAIN, "%d VM(s) remain on fenced host %s: host in error, no maintenance;"
                  " remaining VMs %s" % (count, host, what), host=host, details=(("remaining", count),))


def filter_input_unknown(unchecked) -> list:
    """One info reason for a plan's unchecked inputs (``selector.UncheckedInput``s), or none.

    Each names the check, the input, on how many hosts for how many VMs, and why KeyVRM
    cannot know it; all were treated as passing (Nova validates the host when asked).
    """
    unchecked = tuple(unchecked)
    if not unchecked:
        return []
    parts = ["%s could not check %s on %d host%s for %d VM%s (%s)" % (
        u.check, u.what, u.hosts, "" if u.hosts == 1 else "s", u.vms, "" if u.vms == 1 else "s", u.why)
        for u in unchecked]
    details = tuple(sorted(("%s %s" % (u.check, u.what), u.hosts) for u in unchecked))
    return [Reason(FILTER_INPUT_UNKNOWN, "; ".join(parts) + ": treated as passing, Nova checks the"
                   " host itself when asked to move a VM there", details=details)]


def engine_lost_database(what: str) -> Reason:
    """Work no flow carries on any more (its flow failed on a database error), settled by the sweep."""
    return Reason(ENGINE_LOST_DATABASE, "engine lost its database mid-step: %s" % what)


def ha_acted(aggregate: str, evacuations: int) -> Reason:
    """HA+LB: HA recommended evacuations this cycle, so LB does not run (SPEC 3 step 6)."""
    return Reason(HA_ACTED, "aggregate %s: HA recommended %d evacuation(s) this cycle; LB skipped"
                  % (aggregate, evacuations))


def lb_no_target(aggregate: str, overloaded: int) -> Reason:
    """LB found overloaded hosts it could act on and moved nothing: a stuck LB, never a healthy run."""
    return Reason(LB_NO_TARGET, "LB could not act on aggregate %s: %d overloaded host(s), no VM of them has a "
                  "target (the no-target entries say which check refused each host)" % (aggregate, overloaded))


def recommendations_final(counts: dict) -> Reason:
    """How a settled event's recommendations ended: ``counts`` by final status ("2 succeeded, 1 failed")."""
    text = ", ".join("%d %s" % (n, status) for status, n in counts.items())
    return Reason(RECOMMENDATIONS_FINAL, text or "nothing to do", details=tuple(counts.items()))


# Hosts an insufficient_failover_capacity message names (the details count them all).
MAX_HOSTS_NAMED = 10


def insufficient_failover_capacity(aggregate: str, tolerance: int, reserve: int, hosts_at_risk,
                                   vms_without_target: int) -> Reason:
    """HA could not absorb ``reserve`` host failures: ``tolerance`` is less (see ``planning.failover``).

    ``hosts_at_risk``: the single hosts whose failure would leave ``vms_without_target``
    evacuable VMs (summed over those hosts) without a target; empty when every single
    host passes and only pairs break the reserve.
    """
    hosts = sorted(hosts_at_risk)
    named = ", ".join(hosts[:MAX_HOSTS_NAMED]) + (" and %d more" % (len(hosts) - MAX_HOSTS_NAMED)
                                                  if len(hosts) > MAX_HOSTS_NAMED else "")
    where = ("host(s) %s would leave %d VM(s) without a target" % (named, vms_without_target) if hosts
             else "some pair of hosts failing together would leave VMs without a target")
    return Reason(INSUFFICIENT_FAILOVER_CAPACITY,
                  "aggregate %s tolerates %d host failure(s), below its failover reserve of %d: %s"
                  % (aggregate, tolerance, reserve, where),
                  details=(("tolerance", tolerance), ("reserve", reserve), ("hosts_at_risk", len(hosts)),
                           ("vms_without_target", vms_without_target)))
