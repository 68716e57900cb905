"""Safety invariants of KeyVRM, checked after every cycle of every scenario.

1. No evacuation of a host that was not confirmed fenced: when Nova is asked to evacuate
   from a host, KeyVRM has recorded a confirmed fencing of it, and the region shows the
   host isolated (powered off, forced down in Nova, or blocklisted in Ceph).
2. No action on a NOOP aggregate or while the service is disabled: a recommendation is
   only created where the business config of that cycle allows its kind (evacuate/stop:
   HA or HA+LB, live_migrate: LB or HA+LB), never NOOP or disabled. Work already running
   finishes. An operator's drain of a host (event kind ``drain``) and the failback of a
   restore are asked for by name and may run on any aggregate.
3. No VM acted on twice at once: one unfinished Nova migration that may still end and one
   running recommendation per VM (Nova leaves records that never end: one to a target
   whose nova-compute died, one an older record superseded).
4. No capacity, filter or server-group violation KeyVRM caused: no host above its
   allocation limits, no hard anti-affinity or affinity group more broken than at the
   start, no VM moved out of its aggregate.
5. No lost or duplicated record: every Nova migration has its recommendation (but those
   the scenario's operator asked of Nova by hand, ``nova_live_migrate``), never
   more Nova calls for a VM than its recommendations' attempts, no two unfinished
   recommendations for one VM, a journal for every recommendation that ran.
6. Every finished cycle, and every aggregate in it, has a recorded outcome (an event, a
   cycle outcome, or the aggregate named in the cycle's reason).
"""

from __future__ import annotations

import collections

from keyvrm.db import api as db_api
from keyvrm.model import snapshot
from keyvrm.model import states
from keyvrm.simulator import compute

_ALLOWED_MARKERS = {"evacuate": ("HA", "HA+LB"), "stop": ("HA", "HA+LB"), "live_migrate": ("LB", "HA+LB")}
_NOVA_ACTION = {compute.EVACUATION: "evacuate", compute.LIVE_MIGRATION: "live_migrate",
                compute.COLD_MIGRATION: "cold_migrate"}
_OPEN = ("created", "manual_action", "running")


class Invariants:
    """Watches one harness; ``after_cycle`` returns the violations found since the last look."""

    def __init__(self, harness):
        self.h = harness
        self.region = harness.region
        self._seen_migrations = set()
        self._seen_recommendations = set()
        self._journal_checked = set()
        self._cycles_checked = set()
        self._group_breaks = self._server_group_breaks()
        self._aggregates_of = {name: set(h.aggregates) for name, h in self.region.hosts.items()}
        self._allowed = {}

    def before_cycle(self) -> None:
        """Note the business config the coming cycle runs with (what may be acted on)."""
        app = db_api.get_app_config(self.h.db)
        self._allowed = {record.config.name: (app.enabled and not record.config.no_op_mode,
                                              record.config.marker)
                         for record in db_api.list_aggregates(self.h.db)}

    def after_cycle(self) -> list[str]:
        """Every invariant checked on what changed during the cycle; the violations."""
        recommendations = db_api.list_recommendations(self.h.db)
        events = {e["id"]: e for e in db_api.list_events(self.h.db)}
        found = []
        found += self._fenced_before_evacuation()
        found += self._created_where_allowed(recommendations, events)
        found += self._one_action_per_vm(recommendations)
        found += self._capacity_and_groups(recommendations)
        found += self._records(recommendations)
        found += self._cycle_outcomes(events)
        return found

    def _new_migrations(self):
        new = [m for m in self.region.migrations.values() if m.id not in self._seen_migrations]
        self._seen_migrations.update(m.id for m in new)
        return sorted(new, key=lambda m: m.id)

    def _fenced_before_evacuation(self):
        found = []
        for migration in self._new_migrations():
            if migration.migration_type != compute.EVACUATION:
                continue
            source = migration.source_host
            state = db_api.get_hypervisor_state(self.h.db, source)
            confirmed = [f for f in state.get("fencing") or () if f.get("confirmed")]
            if not confirmed:
                found.append("evacuation of %s from %s, which KeyVRM never confirmed fenced (state %s)"
                             % (migration.server_id, source, state["state"]))
            host = self.region.hosts[source]
            blocklisted = host.host_ip and any(a.startswith(host.host_ip + ":") for a in self.region.blocklist)
            if host.powered and not host.forced_down and not blocklisted:
                found.append("evacuation of %s from %s while that host runs, is not forced down and not "
                             "blocklisted" % (migration.server_id, source))
        return found

    def _created_where_allowed(self, recommendations, events):
        found = []
        for rec in recommendations:
            if rec["id"] in self._seen_recommendations:
                continue
            self._seen_recommendations.add(rec["id"])
            if events[rec["event_id"]]["kind"] in ("drain", "failback"):
                continue  # an operator's drain (and its failback), asked for by name: any marker, also NOOP
            aggregate = events[rec["event_id"]]["aggregate_name"]
            allowed, marker = self._allowed.get(aggregate, (False, None))
            if not allowed:
                found.append("%s of %s recommended on %s while it was NOOP or the service disabled"
                             % (rec["action"], rec["vm_id"], aggregate))
            elif marker not in _ALLOWED_MARKERS.get(rec["action"], ()):
                found.append("%s of %s recommended on %s, whose marker %s does not allow it"
                             % (rec["action"], rec["vm_id"], aggregate, marker or "none"))
        return found

    def _one_action_per_vm(self, recommendations):
        found = []
        nova = compute.Compute(self.region)
        unfinished = collections.Counter(m.server_id for m in self.region.migrations.values()
                                         if m.status not in compute.FINAL_STATUSES and nova.can_progress(m))
        found += ["%d unfinished Nova migrations of %s" % (n, vm) for vm, n in unfinished.items() if n > 1]
        running = collections.Counter(r["vm_id"] for r in recommendations if r["status"] == "running")
        found += ["%d running recommendations for %s" % (n, vm) for vm, n in running.items() if n > 1]
        return found

    def _capacity_and_groups(self, recommendations):
        found = []
        for host in self.region.hosts.values():
            vcpus = (host.vcpus - host.reserved_vcpus) * host.cpu_allocation_ratio
            ram_mb = (host.ram_mb - host.reserved_ram_mb) * host.ram_allocation_ratio
            if host.used_vcpus > vcpus + 1e-6 or host.used_ram_mb > ram_mb + 1e-6:
                found.append("%s over capacity: %d/%g vCPUs, %d/%g MB"
                             % (host.name, host.used_vcpus, vcpus, host.used_ram_mb, ram_mb))
        breaks = self._server_group_breaks()
        for group, count in breaks.items():
            if count > self._group_breaks.get(group, 0):
                found.append("server group %s broken more than at the start (%d > %d)"
                             % (group, count, self._group_breaks.get(group, 0)))
        self._group_breaks = {g: max(c, self._group_breaks.get(g, 0)) for g, c in breaks.items()}
        for rec in recommendations:
            if rec["status"] == "succeeded" and rec["target_host"] and rec["action"] != "stop":
                source = self._aggregates_of.get(rec["source_host"])
                target = self._aggregates_of.get(rec["target_host"])
                if source is not None and target is not None and not source & target:
                    found.append("%s moved from %s to %s, out of its aggregate" % (rec["vm_id"], rec["source_host"],
                                                                                   rec["target_host"]))
        return found

    def _server_group_breaks(self):
        """Per hard server group: anti-affinity members sharing a host, or extra hosts of an affinity group."""
        breaks = {}
        for group in self.region.server_groups.values():
            hosts = [self.region.vms[m].host for m in group.members if m in self.region.vms]
            if group.policy == snapshot.ANTI_AFFINITY:
                breaks[group.id] = len(hosts) - len(set(hosts))
            elif group.policy == snapshot.AFFINITY:
                breaks[group.id] = max(0, len(set(hosts)) - 1)
        return breaks

    def _records(self, recommendations):
        found = []
        by_vm_action = collections.defaultdict(list)
        for rec in recommendations:
            by_vm_action[(rec["vm_id"], rec["action"])].append(rec)
        calls = collections.Counter((m.server_id, _NOVA_ACTION[m.migration_type])
                                    for m in self.region.migrations.values()
                                    if m.migration_type in _NOVA_ACTION and m.id not in self.h.operator_migrations)
        for key, n in calls.items():
            attempts = sum(r["attempts"] for r in by_vm_action.get(key, ()))
            if not by_vm_action.get(key):
                found.append("Nova %s of %s with no recommendation" % (key[1], key[0]))
            elif n > attempts:
                found.append("%d Nova calls to %s %s for %d attempts" % (n, key[1], key[0], attempts))
        open_by_vm = collections.Counter(r["vm_id"] for r in recommendations if r["status"] in _OPEN)
        found += ["%d unfinished recommendations for %s" % (n, vm) for vm, n in open_by_vm.items() if n > 1]
        for rec in recommendations:
            ran = rec["status"] in states.RECOMMENDATION_FINAL and rec["attempts"]
            if ran and rec["id"] not in self._journal_checked:
                self._journal_checked.add(rec["id"])
                if not db_api.list_operations(self.h.db, rec["id"]):
                    found.append("recommendation %s ran with no journal" % rec["id"])
        return found

    def _cycle_outcomes(self, events):
        found = []
        aggregates = [record.config.name for record in db_api.list_aggregates(self.h.db)]
        for cycle in db_api.page_cycles(self.h.db, 100000):
            if cycle["id"] in self._cycles_checked or cycle["status"] in ("running", "requested"):
                continue
            self._cycles_checked.add(cycle["id"])
            if not cycle["reason_code"] and not cycle["reason"]:
                found.append("cycle %d %s with no reason" % (cycle["id"], cycle["status"]))
            if cycle["status"] != "completed":
                continue
            outcomes = {o["aggregate_name"] for o in db_api.get_cycle_summary(self.h.db, cycle["id"])["outcomes"]}
            with_events = {e["aggregate_name"] for e in events.values() if e["cycle_id"] == cycle["id"]}
            for name in aggregates:
                if name not in outcomes | with_events and "%s: [" % name not in (cycle["reason"] or ""):
                    found.append("cycle %d recorded no outcome for %s" % (cycle["id"], name))
        return found
