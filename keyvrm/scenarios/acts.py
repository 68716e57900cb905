"""What a scenario's operator does: business config to start with, and actions at given times.

Scenario keys (see ``keyvrm.scenarios.scenario``)::

    config:                            # PATCH /v1/config and /v1/aggregates/{name} before the first cycle
      app: {enabled: true, ha_fence_bmc: true}
      aggregates:
        agg-001: {marker: HA, no_op_mode: false, storage_mode: shared}
      changes:                         # the same, later: applied at the first cycle boundary >= at
        - at: 10m
          aggregates: {agg-001: {lb_period: 60}}
    operator:                          # REST calls at the first cycle boundary at or after ``at``
                                       #   (or at ``at`` itself: ``mid_cycle``)
      - at: 5m
        action: noop_on                # noop_on (reason) | noop_off | run | cancel | restore
        aggregate: agg-001             #   (host, failback) | drain (host, reason, allow_cold) |
                                       #   unlock (vm or recommendation) | cycle_now |
                                       #   nova_live_migrate (vm, host: by hand, with Nova's API)
        reason: maintenance of rack 2
      - at: 6m
        action: run                    # run/cancel/unlock pick recommendations by their fields:
        recommendation: {action: live_migrate, status: manual_action}   # all that match,
        limit: 1                       #   oldest first, at most ``limit``
        expect_status: 202             # what the API must answer (default: any 2xx)
      - at: 4m
        action: restore
        host: cmp-00002
        mid_cycle: true                # at ``at`` itself, while a cycle runs (e.g. between two polls
                                       #   of a migration), not at the next cycle boundary

Every call goes through KeyVRM's REST API, but ``nova_live_migrate``: the operator's own
live migration through Nova's API (``openstack server migrate --live-migration --host``),
which KeyVRM only sees in its next snapshot. A config the API refuses at the start is a
scenario error naming the field.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.db import api as db_api

ACTIONS = ("set_config", "set_aggregate", "noop_on", "noop_off", "run", "cancel", "restore", "drain", "unlock",
           "cycle_now", "nova_live_migrate")
_FIELDS = {"type": "object"}
_PICK = {"type": "object", "additionalProperties": False, "minProperties": 1,
         "properties": {"action": {"enum": ["evacuate", "live_migrate", "cold_migrate", "stop"]},
                        "status": {"type": "string"}, "source_host": {"type": "string"},
                        "target_host": {"type": "string"}, "vm_id": {"type": "string"},
                        "aggregate": {"type": "string"}}}


def schemas(duration):
    """The JSON schemas of ``config`` and ``operator`` (``duration``: the scenario's duration schema)."""
    change = {"type": "object", "additionalProperties": False, "required": ["at"],
              "properties": {"at": duration, "app": _FIELDS,
                             "aggregates": {"type": "object", "additionalProperties": _FIELDS}}}
    config = {"type": "object", "additionalProperties": False,
              "properties": {"app": _FIELDS, "aggregates": {"type": "object", "additionalProperties": _FIELDS},
                             "changes": {"type": "array", "items": change}}}
    operator = {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["at", "action"],
        "properties": {"at": duration, "action": {"enum": list(ACTIONS)},
                       "aggregate": {"type": "string"}, "reason": {"type": "string"},
                       "host": {"type": "string"}, "vm": {"type": "string"}, "fields": _FIELDS,
                       "failback": {"type": "boolean"}, "allow_cold": {"type": "boolean"},
                       "recommendation": _PICK, "limit": {"type": "integer", "minimum": 1},
                       "mid_cycle": {"type": "boolean"},
                       "expect_status": {"type": "integer", "minimum": 100, "maximum": 599}}}}
    return config, operator


@dataclasses.dataclass
class Act:
    """One operator action: when (seconds after the start), what, and where it was written."""

    at_s: float
    action: str
    params: dict
    path: tuple

    def describe(self) -> str:
        shown = {k: v for k, v in self.params.items() if k not in ("expect_status", "mid_cycle")}
        return "%s %s" % (self.action, " ".join("%s=%s" % kv for kv in sorted(shown.items(), key=str)))


def from_document(config: dict, operator: list, parse_duration_s) -> list[Act]:
    """Every act of a scenario's ``config`` and ``operator``, in time order (the start config at 0)."""
    acts = []
    start = config or {}
    for key, action in (("app", "set_config"), ("aggregates", "set_aggregate")):
        acts.extend(_config_acts(0.0, action, start.get(key), ("config", key)))
    for i, change in enumerate(start.get("changes", [])):
        at_s = parse_duration_s(change["at"])
        for key, action in (("app", "set_config"), ("aggregates", "set_aggregate")):
            acts.extend(_config_acts(at_s, action, change.get(key), ("config", "changes", i, key)))
    for i, item in enumerate(operator or []):
        params = {k: v for k, v in item.items() if k not in ("at", "action")}
        acts.append(Act(parse_duration_s(item["at"]), item["action"], params, ("operator", i)))
    return sorted(acts, key=lambda a: a.at_s)


def _config_acts(at_s, action, fields, path):
    if not fields:
        return []
    if action == "set_config":
        return [Act(at_s, action, {"fields": fields}, path)]
    return [Act(at_s, action, {"aggregate": name, "fields": changes}, path + (name,))
            for name, changes in fields.items()]


_REQUIRED = {"set_config": ("fields",), "set_aggregate": ("aggregate", "fields"),
             "noop_on": ("aggregate", "reason"), "noop_off": ("aggregate",),
             "run": ("recommendation",), "cancel": ("recommendation",), "restore": ("host",),
             "drain": ("host", "reason"), "nova_live_migrate": ("vm", "host")}


def missing_parameter(act: Act) -> Optional[str]:
    """The first parameter ``act`` needs and lacks, or None."""
    for name in _REQUIRED.get(act.action, ()):
        if name not in act.params:
            return name
    if act.action == "unlock" and not ({"vm", "recommendation"} & set(act.params)):
        return "vm"
    return None


def pick_recommendations(db, pick: dict, limit: Optional[int]) -> list[dict]:
    """Recommendations whose fields equal ``pick`` (``aggregate`` via their event), oldest first."""
    wanted = {k: v for k, v in pick.items() if k != "aggregate"}
    found = [r for r in db_api.list_recommendations(db) if all(r.get(k) == v for k, v in wanted.items())]
    if "aggregate" in pick:
        aggregate_of = {e["id"]: e["aggregate_name"] for e in db_api.list_events(db)}
        found = [r for r in found if aggregate_of.get(r["event_id"]) == pick["aggregate"]]
    found.sort(key=lambda r: (r["created_at"], r["id"]))
    return found[:limit] if limit else found


def calls(db, act: Act) -> list[tuple[str, str, Optional[dict]]]:
    """The REST calls (method, path, body) that perform ``act`` now."""
    p = act.params
    if act.action == "set_config":
        return [("PATCH", "/v1/config", p["fields"])]
    if act.action == "set_aggregate":
        return [("PATCH", "/v1/aggregates/%s" % p["aggregate"], p["fields"])]
    if act.action == "noop_on":
        return [("PATCH", "/v1/aggregates/%s" % p["aggregate"], {"no_op_mode": True, "no_op_reason": p["reason"]})]
    if act.action == "noop_off":
        return [("PATCH", "/v1/aggregates/%s" % p["aggregate"], {"no_op_mode": False})]
    if act.action == "restore":
        return [("POST", "/v1/hypervisors/%s/restore" % p["host"], {"failback": True} if p.get("failback") else {})]
    if act.action == "drain":
        body = {"reason": p["reason"]}
        if "allow_cold" in p:
            body["allow_cold"] = p["allow_cold"]
        return [("POST", "/v1/hypervisors/%s/drain" % p["host"], body)]
    if act.action == "cycle_now":
        return [("POST", "/v1/cycles", {})]
    if act.action == "unlock" and "vm" in p:
        return [("POST", "/v1/vms/%s/unlock" % p["vm"], {})]
    picked = pick_recommendations(db, p["recommendation"], p.get("limit"))
    if act.action == "unlock":
        return [("POST", "/v1/vms/%s/unlock" % r["vm_id"], {}) for r in picked]
    return [("POST", "/v1/recommendations/%s/%s" % (r["id"], act.action), {}) for r in picked]
