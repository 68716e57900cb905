"""What a scenario expects of KeyVRM at the end of its run, and the check of it.

Scenario key ``expect`` (every part optional)::

    expect:
      events:                  # each item: records matching its fields; count default ">= 1"
        - {aggregate: agg-001, kind: HA, state: healthy, status: completed,
           reason_code: recommendations_final, reason_contains: "fenced by nova", count: 1}
        - {aggregate: agg-002, count: 0}        # no event at all on agg-002
      recommendations:         # fields: action, status, vm_id, source_host, target_host,
        - {action: evacuate, status: succeeded, source_host: cmp-00001, count: 3}   # ha_round,
      cycles:                  #   attempts, aggregate, reason_contains, by, after, count
        - {status: completed, reason_contains: "agg-001: [noop]"}
      alerts:                  # kind fencing|recommendation|ha|failover and payload fields (host, reason_code, ...)
        - {kind: fencing, host: cmp-00001}
      runs:                    # the reason codes of an aggregate's runs of a kind, oldest first:
        agg-001:               #   its event's, or the cycle outcome's when nothing was to do
          HA: [no_failure, recommendations_final, already_handled]   # exactly these, or
          LB: {first: [no_overload], last: lb_too_early, contains: [no_overload], excludes: [ha_acted]}
      hypervisors:             # KeyVRM's host state, or state and confirmed fencers in order
        cmp-00001: maintenance
        cmp-00002: {state: fenced, fenced_by: [ceph, bmc, nova], reason_contains: refused}
      vms_on_host: {cmp-00001: 0}      # VMs on a host in the region at the end
      vms_moved: {min: 1, max: 4}      # VMs whose host changed (a number: exactly)
      start_order_kept: true   # each host's evacuations reached Nova in the order planned (a tier's
                               #   runs start side by side, on the driven clock in planned order)
      tiers_kept: true         # each host's evacuations were accepted tier by tier (evacuate_order
                               #   ascending, VMs without one last): none before a lower tier's
      failover_prediction_kept: true   # a host_dies was compared with the failover analysis before it
                               #   (a mismatch fails every scenario: keyvrm.scenarios.prediction)
      sweeps:                  # the engine's sweeps (when it begins to lead, then every 10 min):
        - {after: 5m, by: 12m, found: nothing lost, count: 1}   # found: text of what one did
      region: {hosts_by_state: {off: 1}}   # the bare region's expectations (see scenario)

``count`` is a number or ``{min: N, max: M}``; ``by``/``after`` are durations from the
start that the record's ``created_at`` (a sweep's time) must be at or before / after
(timing tolerance).
"""

from __future__ import annotations

import datetime
from typing import Callable

from keyvrm.db import api as db_api
from keyvrm.model import reason_list
from keyvrm.simulator import report

_COUNT = {"anyOf": [{"type": "integer", "minimum": 0},
                    {"type": "object", "additionalProperties": False, "minProperties": 1,
                     "properties": {"min": {"type": "integer", "minimum": 0},
                                    "max": {"type": "integer", "minimum": 0}}}]}
_TEXT = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
_CODES = {"type": "array", "items": {"type": "string"}}
_RUN_CODES = {"anyOf": [_CODES, {"type": "object", "additionalProperties": False, "minProperties": 1,
                                 "properties": {"first": _CODES, "last": {"type": "string"},
                                                "contains": _CODES, "excludes": _CODES}}]}
_HYPERVISOR = {"anyOf": [{"type": "string"},
                         {"type": "object", "additionalProperties": False,
                          "properties": {"state": {"type": "string"}, "fenced_by": _CODES,
                                         "reason_contains": _TEXT}}]}

_EVENT_FIELDS = ("aggregate", "kind", "marker", "state", "status", "reason_code")
_RECOMMENDATION_FIELDS = ("action", "status", "vm_id", "source_host", "target_host", "aggregate")
_CYCLE_FIELDS = ("status", "reason_code")


def _matcher(fields, numbers, duration):
    props = {name: {"type": "string"} for name in fields}
    props.update({name: {"type": "integer"} for name in numbers})
    props.update(count=_COUNT, reason_contains=_TEXT, by=duration, after=duration)
    return {"type": "object", "additionalProperties": False, "properties": props}


def schema(duration, region_expectations) -> dict:
    """The JSON schema of ``expect``.

    ``duration``: the scenario's duration schema; ``region_expectations``: that of the bare
    region's expectations, which ``expect.region`` takes (checked as ``expectations`` are).
    """
    matchers = {}
    for key, fields, numbers in (("events", _EVENT_FIELDS, ()),
                                 ("recommendations", _RECOMMENDATION_FIELDS, ("ha_round", "attempts")),
                                 ("cycles", _CYCLE_FIELDS, ())):
        matchers[key] = {"type": "array", "items": _matcher(fields, numbers, duration)}
    alert = {"type": "object", "required": ["kind"], "properties": {
        "kind": {"enum": ["fencing", "recommendation", "ha", "failover"]}, "count": _COUNT}}
    return {"type": "object", "additionalProperties": False, "properties": dict(
        matchers,
        alerts={"type": "array", "items": alert},
        runs={"type": "object", "additionalProperties": {
            "type": "object", "propertyNames": {"enum": ["HA", "LB"]}, "additionalProperties": _RUN_CODES}},
        hypervisors={"type": "object", "additionalProperties": _HYPERVISOR},
        vms_on_host={"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        vms_moved=_COUNT,
        start_order_kept={"type": "boolean"},
        tiers_kept={"type": "boolean"},
        failover_prediction_kept={"type": "boolean"},
        sweeps={"type": "array", "items": {"type": "object", "additionalProperties": False, "properties": {
            "found": _TEXT, "count": _COUNT, "by": duration, "after": duration}}},
        region=region_expectations)}


def count_problem(count, got: int) -> str:
    """Why ``got`` records do not satisfy ``count`` (None: they do; no count means at least one)."""
    if count is None:
        return None if got >= 1 else "none found"
    if isinstance(count, int):
        return None if got == count else "%d found, %d expected" % (got, count)
    low, high = count.get("min", 0), count.get("max")
    if got < low or (high is not None and got > high):
        return "%d found, expected %s" % (got, " and ".join(
            part for part in ("at least %d" % low if "min" in count else "",
                              "at most %d" % high if high is not None else "") if part))
    return None


def _texts(value):
    return [value] if isinstance(value, str) else list(value or ())


class Check:
    """The end-of-run check of one scenario: ``problems`` lists every unmet expectation."""

    def __init__(self, harness, parse_duration_s: Callable, start_hosts: dict):
        self.h = harness
        self.db = harness.db
        self.parse_duration_s = parse_duration_s
        self.start_hosts = start_hosts  # vm id -> host at the start
        self.start = datetime.datetime.fromtimestamp(harness.region.clock.start_s, datetime.timezone.utc
                                                     ).replace(tzinfo=None)
        self.problems: list[str] = []

    def run(self, expect: dict) -> list[str]:
        """Check every part of ``expect``; the problems found (empty: all met)."""
        events = db_api.list_events(self.db)
        aggregate_of = {e["id"]: e["aggregate_name"] for e in events}
        recommendations = [dict(r, aggregate=aggregate_of.get(r["event_id"]))
                           for r in db_api.list_recommendations(self.db)]
        # an event's reason_contains reads its reasons as the one line API 1.0 renders
        records = {"events": [dict(e, aggregate=e["aggregate_name"],
                                   reason=reason_list.ReasonList.from_json(e["reasons"]).text())
                              for e in events],
                   "recommendations": recommendations,
                   "cycles": db_api.page_cycles(self.db, 100000)}
        for key in ("events", "recommendations", "cycles"):
            for i, wanted in enumerate(expect.get(key, ())):
                self._match("%s[%d]" % (key, i), wanted, records[key])
        for i, wanted in enumerate(expect.get("alerts", ())):
            self._alerts("alerts[%d]" % i, wanted)
        for aggregate, kinds in expect.get("runs", {}).items():
            for kind, wanted in kinds.items():
                self._runs("runs.%s.%s" % (aggregate, kind), aggregate, kind, wanted)
        for host, wanted in expect.get("hypervisors", {}).items():
            self._hypervisor("hypervisors.%s" % host, host, wanted)
        for host, wanted in expect.get("vms_on_host", {}).items():
            got = len(self.h.region.hosts[host].vms) if host in self.h.region.hosts else None
            if got != wanted:
                self.problems.append("vms_on_host.%s: %s VMs, %d expected" % (host, got, wanted))
        if "vms_moved" in expect:
            moved = sum(1 for vm_id, host in self.start_hosts.items()
                        if vm_id in self.h.region.vms and self.h.region.vms[vm_id].host != host)
            problem = count_problem(expect["vms_moved"], moved)
            if problem:
                self.problems.append("vms_moved: " + problem)
        if expect.get("start_order_kept"):
            self._start_order(recommendations)
        if expect.get("tiers_kept"):
            self._tiers(recommendations)
        for i, wanted in enumerate(expect.get("sweeps", ())):
            self._sweeps("sweeps[%d]" % i, wanted)
        if "region" in expect:
            summary = report.summarize(self.h.region)
            self.problems += ["region." + unmet for unmet in report.unmet_expectations(summary, expect["region"])]
        return self.problems

    def _match(self, where, wanted, records):
        fields = {k: v for k, v in wanted.items() if k not in ("count", "reason_contains", "by", "after")}
        found = [r for r in records if all(r.get(k) == v for k, v in fields.items())
                 and all(t in (r.get("reason") or "") for t in _texts(wanted.get("reason_contains")))
                 and self._in_time(r, wanted)]
        problem = count_problem(wanted.get("count"), len(found))
        if problem:
            close = [r for r in records if all(r.get(k) == v for k, v in fields.items()
                                               if k in ("aggregate", "kind", "action"))]
            seen = sorted({_brief(r) for r in close})[:8]
            self.problems.append("%s %s: %s; seen: %s" % (where, _shown(wanted), problem, "; ".join(seen) or "none"))

    def _in_time(self, record, wanted):
        created = record.get("created_at") or record.get("started_at")
        if created is None:
            return True
        after_start = (created - self.start).total_seconds()
        if "by" in wanted and after_start > self.parse_duration_s(wanted["by"]):
            return False
        return not ("after" in wanted and after_start < self.parse_duration_s(wanted["after"]))

    def _alerts(self, where, wanted):
        fields = {k: v for k, v in wanted.items() if k not in ("kind", "count")}
        found = [a for a in self.h.alerts if a.kind == wanted["kind"]
                 and all(a.payload.get(k) == v for k, v in fields.items())]
        problem = count_problem(wanted.get("count"), len(found))
        if problem:
            seen = ["%s %s" % (a.kind, a.payload.get("host") or a.payload.get("vm_id")) for a in self.h.alerts]
            self.problems.append("%s %s: %s; seen: %s" % (where, _shown(wanted), problem, "; ".join(seen) or "none"))

    def _runs(self, where, aggregate, kind, wanted):
        got = run_codes(self.db, aggregate, kind)
        if isinstance(wanted, list):
            if got != wanted:
                self.problems.append("%s: %s, expected %s" % (where, got, wanted))
            return
        if "first" in wanted and got[:len(wanted["first"])] != wanted["first"]:
            self.problems.append("%s.first: %s, expected to start with %s" % (where, got, wanted["first"]))
        if "last" in wanted and (not got or got[-1] != wanted["last"]):
            self.problems.append("%s.last: %s, expected to end with %s" % (where, got, wanted["last"]))
        for code in wanted.get("contains", ()):
            if code not in got:
                self.problems.append("%s.contains: %s not in %s" % (where, code, got))
        for code in wanted.get("excludes", ()):
            if code in got:
                self.problems.append("%s.excludes: %s in %s" % (where, code, got))

    def _sweeps(self, where, wanted):
        """Whether ``count`` sweeps in the ``after``/``by`` window found what ``found`` says (a problem if not)."""
        swept = [(at_s, done.swept.describe()) for at_s, done in self.h.housekept if done.swept is not None]
        low = self.parse_duration_s(wanted.get("after", 0))
        high = self.parse_duration_s(wanted["by"]) if "by" in wanted else float("inf")
        found = [(at_s, text) for at_s, text in swept if low <= at_s <= high
                 and all(t in text for t in _texts(wanted.get("found")))]
        problem = count_problem(wanted.get("count"), len(found))
        if problem:
            seen = ["at %ds: %s" % (at_s, text) for at_s, text in swept]
            self.problems.append("%s %s: %s; seen: %s" % (where, _shown(wanted), problem, "; ".join(seen)))

    def _hypervisor(self, where, host, wanted):
        wanted = {"state": wanted} if isinstance(wanted, str) else wanted
        state = db_api.get_hypervisor_state(self.db, host)  # "ok" for a host KeyVRM never recorded
        if "state" in wanted and state["state"] != wanted["state"]:
            self.problems.append("%s: %s (%s), expected %s"
                                 % (where, state["state"], state.get("reason"), wanted["state"]))
        if "fenced_by" in wanted:
            fencers = [f["fencer"] for f in state.get("fencing") or () if f["confirmed"]]
            if fencers != wanted["fenced_by"]:
                self.problems.append("%s.fenced_by: %s, expected %s" % (where, fencers, wanted["fenced_by"]))
        for text in _texts(wanted.get("reason_contains")):
            if text not in (state.get("reason") or ""):
                self.problems.append("%s: reason %r lacks %r" % (where, state.get("reason"), text))

    def _evacuations_from(self, host) -> list:
        """The servers of Nova's evacuation records from ``host``, oldest record first.

        A VM evacuated from one host and later from another (its new host died too) is
        judged among each host's evacuations by the record from that host.
        """
        return [m.server_id for m in sorted(self.h.region.migrations.values(), key=lambda m: m.id)
                if m.migration_type == "evacuation" and m.source_host == host]

    def _start_order(self, recommendations):
        for host in sorted({r["source_host"] for r in recommendations if r["action"] == "evacuate"}):
            planned = [r["vm_id"] for r in recommendations if r["action"] == "evacuate"
                       and r["source_host"] == host and r["status"] != "cancelled"]
            order = [vm for vm in self._evacuations_from(host) if vm in planned]
            first_asks = list(dict.fromkeys(order))
            if first_asks != [vm for vm in planned if vm in first_asks]:
                self.problems.append("start_order_kept: %s planned %s, Nova asked %s" % (host, planned, first_asks))

    def _tiers(self, recommendations):
        """Per host, the first acceptance (migration record) of each VM in tier order (SPEC 5.4 tiers)."""
        for host in sorted({r["source_host"] for r in recommendations if r["action"] == "evacuate"}):
            evacuated = {r["vm_id"] for r in recommendations if r["action"] == "evacuate" and r["source_host"] == host}
            firsts = [vm for vm in dict.fromkeys(self._evacuations_from(host)) if vm in evacuated]
            ranks = [_tier_rank(self.h.region.vms[vm].metadata) for vm in firsts]
            if ranks != sorted(ranks):
                shown = ["%s(%s)" % (vm, (self.h.region.vms[vm].metadata or {}).get("evacuate_order", "-"))
                         for vm in firsts]
                self.problems.append("tiers_kept: %s: Nova accepted %s" % (host, ", ".join(shown)))


def _tier_rank(metadata) -> tuple:
    """Sort key of a VM's evacuation tier: its evacuate_order ascending, VMs without one last."""
    value = (metadata or {}).get("evacuate_order")
    try:
        return (0, int(value))
    except (TypeError, ValueError):
        return (1, 0)


def run_codes(db, aggregate, kind) -> list[str]:
    """The reason codes of ``aggregate``'s runs of ``kind``, oldest cycle first: events, then outcomes."""
    found = []
    events = db_api.list_events(db, aggregate_name=aggregate, kind=kind)
    by_cycle = {}
    for event in events:
        by_cycle.setdefault(event["cycle_id"], []).append(event["reason_code"])
    for cycle in sorted(db_api.page_cycles(db, 100000), key=lambda c: c["id"]):
        found += by_cycle.get(cycle["id"], [])
        found += [o["reason_code"] for o in db_api.get_cycle_summary(db, cycle["id"])["outcomes"]
                  if o["aggregate_name"] == aggregate and o["kind"] == kind]
    return found


def _brief(record) -> str:
    parts = [str(record.get(k)) for k in ("aggregate", "kind", "action", "vm_id", "source_host", "state",
                                          "status", "reason_code") if record.get(k) is not None]
    return " ".join(parts)


def _shown(wanted) -> str:
    return "{%s}" % ", ".join("%s: %s" % kv for kv in wanted.items())
