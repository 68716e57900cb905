"""The fast path's harvest: a few aggregates' slices of the newest snapshot, with fresh reads of what HA judges.

When the watch sees a host's signal turn bad, HA must not wait for a whole region to be
harvested (at 10,000 hosts that is the slowest part of a cycle). The suspect hosts'
aggregates are taken from the newest stored snapshot (at most one period old) and what
the HA decision matrix and the evacuation plan read is read again now: every compute
service (one Nova call: state, forced down, last report), every heartbeat (one read), the
suspects' metrics targets (one TSDB query) and the servers on each suspect host (one
paged Nova call per host, so VMs booted since the snapshot are evacuated too). Capacity
(Placement), metrics, server groups and images stay as the snapshot had them; the
executor checks each target again before Nova is asked. A fresh read that fails fails
its source in the new snapshot, and HA fences nothing on a failed source, as in any cycle.
"""

from __future__ import annotations

import functools

from keyvrm.harvest import assemble
from keyvrm.model import snapshot as m


def _union(views) -> m.RegionSnapshot:
    """One snapshot holding every record of ``views`` once (slices of one snapshot overlap)."""
    first = views[0]

    def unique(attr, key):
        seen, out = set(), []
        for view in views:
            for record in getattr(view, attr):
                if getattr(record, key) not in seen:
                    seen.add(getattr(record, key))
                    out.append(record)
        return tuple(out)

    return m.replace(first, availability_zones=unique("availability_zones", "name"),
                     aggregates=unique("aggregates", "name"), hypervisors=unique("hypervisors", "name"),
                     vms=unique("vms", "id"), server_groups=unique("server_groups", "id"),
                     images=unique("images", "id"), migrations=unique("migrations", "id"))


def refresh(views, sources: assemble.HarvestSources, app_config, suspects, *, now_s: float) -> m.RegionSnapshot:
    """The fast path's snapshot: ``views`` (slices) with fresh services, heartbeats and servers of ``suspects``."""
    base = _union(views)
    cloud = sources.cloud
    reads = [(m.SOURCE_NOVA, "services", cloud.list_compute_services)]
    reads += [(m.SOURCE_NOVA, "servers on %s" % host, functools.partial(cloud.list_servers_on, host))
              for host in suspects]
    if sources.heartbeat is not None:
        reads.append((m.SOURCE_HEARTBEAT, "heartbeats", sources.heartbeat.last_heartbeats))
    if sources.metrics is not None:
        reads.append((m.SOURCE_METRICS, "targets_up", functools.partial(sources.metrics.targets_up, suspects)))
    results, statuses = assemble.collect(sources, now_s, reads)
    if sources.heartbeat is None:
        statuses[m.SOURCE_HEARTBEAT] = m.SourceStatus(m.SOURCE_HEARTBEAT, False, "no heartbeat driver configured")
    hypervisors = base.hypervisors
    if "services" in results:
        by_host = {s.host: s for s in results["services"]}
        hypervisors = tuple(m.replace(h, service=by_host.get(h.name)) for h in hypervisors)
    if "heartbeats" in results:
        beats = results["heartbeats"]
        hypervisors = tuple(m.replace(h, heartbeat_at=beats.get(h.name)) for h in hypervisors)
    if "targets_up" in results:
        up = results["targets_up"]
        hypervisors = tuple(m.replace(h, target_up=up[h.name]) if h.name in up else h for h in hypervisors)
    fresh = [vm for host in suspects for vm in results.get("servers on %s" % host, ())]
    reread = {host for host in suspects if "servers on %s" % host in results}
    metrics = {vm.id: vm.metrics for vm in base.vms}
    fresh = assemble.join_vms(fresh, metrics, app_config)
    fresh_ids = {vm.id for vm in fresh}
    vms = tuple(vm for vm in base.vms if vm.host not in reread and vm.id not in fresh_ids) + fresh
    return m.replace(base, taken_at=now_s, hypervisors=hypervisors, vms=vms,
                     sources={**base.sources, **statuses})
