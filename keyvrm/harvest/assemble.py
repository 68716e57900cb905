"""Build one cycle's RegionSnapshot from the cloud, metrics and heartbeat drivers.

Every read runs in its own thread at once (a dozen of them), so the harvest takes as
long as the slowest source, not their sum. Each read belongs to a source of
``keyvrm.model.snapshot.SOURCES``: Nova (AZs, aggregates, services, hypervisors,
servers, server groups, migrations), Placement (inventories), Glance (images), metrics
(hosts, VMs), heartbeat. A source is ok when all its reads answered; otherwise its
``SourceStatus`` says which read failed and why, and what it would have provided is
left empty or None (never a guess). A driver error, any exception, or a read still
running after ``timeout_s`` fails only that source: ``harvest`` itself never raises for
a source.

Joins: each hypervisor gets its compute service, Placement inventories, metrics and
heartbeat by host name; each VM its metrics by id, and ``no_evac``/``no_migr``/
``evacuate_order`` from its metadata (``app_config.ha_no_evacuate_key``,
``app_config.lb_no_migrate_key``, ``evacuate_order``): a flag is set by the values
true/yes/on/1 (any case); an order that is not an integer is ignored.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time
from typing import Optional

from oslo_log import log as logging

from keyvrm.drivers.cloud.base import CloudDriver
from keyvrm.drivers.heartbeat.base import HeartbeatDriver
from keyvrm.drivers.metrics.base import MetricsDriver
from keyvrm.model import snapshot as m

LOG = logging.getLogger(__name__)

EVACUATE_ORDER_KEY = "evacuate_order"
DEFAULT_WINDOW_S = 300.0
_TRUE = frozenset(("true", "yes", "on", "1"))


@dataclasses.dataclass(frozen=True)
class HarvestSources:
    """The drivers one harvest reads; metrics and heartbeat may be absent (source failed)."""

    cloud: CloudDriver
    metrics: Optional[MetricsDriver] = None
    heartbeat: Optional[HeartbeatDriver] = None
    region_name: str = "RegionOne"
    migrations_since_s: Optional[float] = 86400.0
    timeout_s: float = 60.0


def _reads(sources, now_s):
    """(source, read name, callable) of every read of this harvest."""
    cloud = sources.cloud
    since = now_s - sources.migrations_since_s if sources.migrations_since_s else None
    reads = [
        (m.SOURCE_NOVA, "availability_zones", cloud.list_availability_zones),
        (m.SOURCE_NOVA, "aggregates", cloud.list_aggregates),
        (m.SOURCE_NOVA, "services", cloud.list_compute_services),
        (m.SOURCE_NOVA, "hypervisors", cloud.list_hypervisors),
        (m.SOURCE_NOVA, "servers", cloud.list_servers),
        (m.SOURCE_NOVA, "server_groups", cloud.list_server_groups),
        (m.SOURCE_NOVA, "migrations", lambda: cloud.list_migrations(changes_since=since)),
        (m.SOURCE_PLACEMENT, "inventories", cloud.list_inventories),
        (m.SOURCE_GLANCE, "images", cloud.list_images),
    ]
    if sources.metrics is not None:
        reads += [(m.SOURCE_METRICS, "host_metrics", sources.metrics.host_metrics),
                  (m.SOURCE_METRICS, "vm_metrics", sources.metrics.vm_metrics),
                  (m.SOURCE_METRICS, "targets_up", sources.metrics.targets_up)]
    if sources.heartbeat is not None:
        reads.append((m.SOURCE_HEARTBEAT, "heartbeats", sources.heartbeat.last_heartbeats))
    return reads


def _timed(func):
    started = time.perf_counter()
    try:
        return func(), None, time.perf_counter() - started
    except Exception as exc:  # a failed source is recorded, never raised
        return None, exc, time.perf_counter() - started


def _describe(exc) -> str:
    status = getattr(exc, "status_code", None)
    prefix = "%s (HTTP %s)" % (type(exc).__name__, status) if status else type(exc).__name__
    return "%s: %s" % (prefix, exc)


def _drivers(sources):
    return {m.SOURCE_NOVA: sources.cloud, m.SOURCE_PLACEMENT: sources.cloud,
            m.SOURCE_GLANCE: sources.cloud, m.SOURCE_METRICS: sources.metrics,
            m.SOURCE_HEARTBEAT: sources.heartbeat}


def request_counts(sources) -> dict:
    """Source -> HTTP/Redis requests its driver has made so far (0 when it does not count).

    A driver counts with ``request_counts`` (dict: source name -> int, for a driver that
    serves several sources, e.g. the cloud) or ``request_count`` (int).
    """
    out = {}
    for source, driver in _drivers(sources).items():
        by_source = getattr(driver, "request_counts", None)
        if isinstance(by_source, dict):
            out[source] = int(by_source.get(source, 0))
        else:
            out[source] = int(getattr(driver, "request_count", 0) or 0)
    return out


def collect(sources: HarvestSources, now_s: float, reads=None):
    """Run every read in parallel: (read name -> result, source name -> SourceStatus).

    ``reads``: the (source, read name, callable) to run instead of a whole harvest's; only
    their sources then get a status.
    """
    whole = reads is None
    reads = _reads(sources, now_s) if whole else reads
    counts_before = request_counts(sources)
    results, errors, durations = {}, {}, {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(reads),
                                                 thread_name_prefix="harvest")
    try:
        futures = {pool.submit(_timed, func): (source, name) for source, name, func in reads}
        done, pending = concurrent.futures.wait(futures, timeout=sources.timeout_s)
        for future in done:
            source, name = futures[future]
            value, exc, took = future.result()
            durations[source] = max(durations.get(source, 0.0), took)
            if exc is None:
                results[name] = value
            else:
                errors.setdefault(source, []).append("%s: %s" % (name, _describe(exc)))
        for future in pending:
            source, name = futures[future]
            durations[source] = float(sources.timeout_s)
            errors.setdefault(source, []).append(
                "%s: no answer within %s s" % (name, sources.timeout_s))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    counts_after = request_counts(sources)
    names = [m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE] if whole else \
        sorted({source for source, _, _ in reads})
    missing = {m.SOURCE_METRICS: sources.metrics, m.SOURCE_HEARTBEAT: sources.heartbeat} if whole else {}
    statuses = {}
    for name in names + list(missing):
        if name in missing and missing[name] is None:
            statuses[name] = m.SourceStatus(name, False, "no %s driver configured" % name)
            continue
        failures = errors.get(name)
        statuses[name] = m.SourceStatus(name, not failures, "; ".join(sorted(failures or ())) or None,
                                        round(durations.get(name, 0.0), 3),
                                        counts_after[name] - counts_before[name])
    for status in statuses.values():
        if not status.ok:
            LOG.warning("harvest: source %s failed: %s", status.name, status.error)
    return results, statuses


def _flag(metadata, key) -> bool:
    value = metadata.get(key)
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    return value is True


def _order(metadata) -> Optional[int]:
    value = metadata.get(EVACUATE_ORDER_KEY)
    if value is None:
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def join_vms(servers, vm_metrics, app_config) -> tuple:
    """Servers with their metrics and the flags their metadata sets (module docstring)."""
    no_evac_key, no_migr_key = app_config.ha_no_evacuate_key, app_config.lb_no_migrate_key
    metrics_of = (vm_metrics or {}).get
    replace = m.replace
    out = []
    for vm in servers:
        meta = vm.metadata
        if meta:
            out.append(replace(vm, metrics=metrics_of(vm.id), no_evac=_flag(meta, no_evac_key),
                               no_migr=_flag(meta, no_migr_key), evacuate_order=_order(meta)))
        else:
            out.append(replace(vm, metrics=metrics_of(vm.id)))
    return tuple(out)


def join_hypervisors(hypervisors, services, inventories, host_metrics, heartbeats, targets_up=None) -> tuple:
    """Hypervisor records with their service, inventories, metrics, metrics target and heartbeat (by host)."""
    by_host = {s.host: s for s in services or ()}
    replace = m.replace
    inventories, host_metrics, heartbeats = inventories or {}, host_metrics or {}, heartbeats or {}
    targets_up = targets_up or {}
    return tuple(replace(h, service=by_host.get(h.name), inventories=inventories.get(h.name, {}),
                         metrics=host_metrics.get(h.name), heartbeat_at=heartbeats.get(h.name),
                         target_up=targets_up.get(h.name))
                 for h in hypervisors or ())


def harvest(sources: HarvestSources, app_config, *, now_s: float,
            metrics_window_s: Optional[float] = None) -> m.RegionSnapshot:
    """The region snapshot at ``now_s``; failed sources are recorded in ``sources``, not raised.

    ``metrics_window_s`` is recorded as the window the metrics cover (default: the
    metrics driver's ``window_s``, else 300 s).
    """
    results, statuses = collect(sources, now_s)
    if metrics_window_s is None:
        metrics_window_s = getattr(sources.metrics, "window_s", DEFAULT_WINDOW_S)
    get = results.get
    return m.RegionSnapshot(
        region=sources.region_name, taken_at=now_s,
        availability_zones=tuple(get("availability_zones") or ()),
        aggregates=tuple(get("aggregates") or ()),
        hypervisors=join_hypervisors(get("hypervisors"), get("services"), get("inventories"),
                                     get("host_metrics"), get("heartbeats"), get("targets_up")),
        vms=join_vms(get("servers") or (), get("vm_metrics"), app_config),
        server_groups=tuple(get("server_groups") or ()),
        images=tuple(get("images") or ()),
        migrations=tuple(get("migrations") or ()),
        sources=statuses, metrics_window_s=float(metrics_window_s))
