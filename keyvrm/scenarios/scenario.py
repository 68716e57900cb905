"""Scenario files: a YAML description of a simulated region, its faults and expectations.

Schema (every key except ``name`` is optional; unknown keys are refused)::

    name: demo-small                  # string
    description: ...                  # string
    seed: 42                          # integer: same seed, same region, same run
    duration: 1h                      # how long ``keyvrm-sim run`` simulates by default
    region:                           # keyvrm.simulator.region.RegionOptions fields
      name: RegionOne
      service_down_time_s: 60         # Nova's service_down_time
      report_interval_s: 10           # nova-compute report interval
      heartbeat_interval_s: 10        # heartbeat agent period
      evacuate_to_shutoff: true       # microversion >= 2.95: evacuated servers end SHUTOFF
      instance_storage: shared        # shared (Ceph RBD) | local: local image-backed disks
                                      #   are rebuilt from the image by an evacuation
      scheduling_delay_s, evacuation_s, migration_bandwidth_mbps, migration_base_s,
      migration_failure_rate (0..1), stop_delay_s, power_off_delay_s,
      diurnal_amplitude, noise, noise_period_s
    topology:                         # generator parameters (or ``inventory``, not both)
      hosts: 20                       # hypervisors
      hosts_per_aggregate: 10
      hosts_per_rack: 10              # racks are named rack-0001, ...
      availability_zones: 2
      hugepages_aggregates: 0         # the first N aggregates get 1 GB HugePages hosts
      aggregate_metadata: {}          # copied to every aggregate
      host: {vcpus, ram_mb, disk_gb, cpu_allocation_ratio, ram_allocation_ratio,
             reserved_vcpus, reserved_ram_mb, net_capacity_mbps, interfaces: [..]}
    inventory:                        # an explicit region: {file: PATH} (relative to
      file: region.json               # this file; YAML or JSON, as ``keyvrm-sim
                                      # generate`` writes) or the document inline
    workload:                         # generator parameters (with ``topology``)
      vms_per_host: 8
      projects: 20
      flavors: [{name, vcpus, ram_mb, disk_gb, weight, extra_specs}]
      hugepages_flavors: [...]
      volume_backed_fraction: 0.6
      server_group_fraction: 0.1      # share of VMs in server groups
      server_group_size: 3
      server_group_policies: {anti-affinity: 0.6, affinity: 0.1, ...}
      no_evacuate_fraction, no_migrate_fraction, evacuate_order_fraction
      cpu_util: 0.3                   # mean busy share of a VM's vCPUs
      ram_util, net_mbps, dirty_mbps
    timeline:                         # faults, in any order
      - at: 5m                        # duration: 90, "90s", "5m", "1h30m"
        fault: host_dies              # see keyvrm.simulator.faults.FAULTS
        hosts: [cmp-00003]            # host selector: hosts, rack, or random_hosts
        # rack: rack-0002             #   (+ aggregate: agg-001 to draw from one)
        # random_hosts: 2
        bmc: off                      # host_dies: off | unreachable
        mode: refuse                  # bmc_fault: refuse | timeout
        duration: 10m                 # faults that heal by themselves
        interface: bond0              # interface_down
        count: 1                      # migration_stuck, migration_fails (next N live migrations),
                                      # engine_loses_flow (next N migrations' flows), scheduler_refuses
                                      # (next N targets, of hosts if given: NoValidHost),
                                      # evacuation_target_dies (next N evacuations' targets)
        step: accepted                # evacuation_target_dies: before_accept | accepted |
                                      #   rebuilding | done (when the target dies)
        # aggregate: agg-002          # aggregate_deleted: the aggregate Nova deletes
        cpu_factor: 2.5               # overload (also net_factor, ramp)
        ramp: 10m
    expectations:                     # checked against the final state of the run
      hosts_by_state: {off: 1}        # region host states: off, partitioned,
      vms_by_host_state: {off: 8}     #   compute_down, disabled, up
      vms_by_status: {ACTIVE: 8}      # VMs by Nova's status
      migrations_by_status: {}
      services_down: 1
      faults_fired: 2

With KeyVRM acting on the region (``keyvrm-sim check``, ``tests/scenarios``)::

    run:                              # keyvrm.scenarios.check
      cycles: 6                       # KeyVRM cycles to run (default 6)
      every: 60s                      # simulated time between two cycles (default 60 s)
      durable_flows: false            # TaskFlow's flows in SQLite instead of memory
      executor: {max_concurrent_per_host: 2}   # [executor] bounds (also max_concurrent_per_region)
    config: ...                       # business config, and changes at given times
    operator: [...]                   # REST calls at given times (keyvrm.scenarios.acts)
    expect: ...                       # KeyVRM's outcomes (keyvrm.scenarios.expect)

Errors raise ``ScenarioError`` naming the field path (``timeline[1].hosts[0]``) and,
for files, the line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
from typing import Optional

import jsonschema
import yaml

from keyvrm.exception import InvalidField
from keyvrm.scenarios import acts as scenario_acts
from keyvrm.scenarios import expect as scenario_expect
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import inventory
from keyvrm.simulator import region as r
from keyvrm.simulator import report

_DURATION_RE = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*)+$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}

DURATION = {"anyOf": [{"type": "number", "minimum": 0},
                      {"type": "string", "pattern": _DURATION_RE.pattern}]}
_NUM = {"type": "number", "minimum": 0}
_POS_INT = {"type": "integer", "minimum": 1}
_NONNEG_INT = {"type": "integer", "minimum": 0}
_HOST_COUNTS = {"type": "object", "propertyNames": {"enum": list(r.HOST_STATES)},
                "additionalProperties": _NONNEG_INT}
_MIGRATION_COUNTS = {"type": "object", "additionalProperties": _NONNEG_INT,
                     "propertyNames": {"enum": ["accepted", "pre-migrating", "preparing", "running", "done",
                                                "completed", "migrating", "post-migrating", "finished",
                                                "confirming", "confirmed", "error", "failed", "cancelled"]}}
_FLAVOR = {"type": "object", "required": ["name", "vcpus", "ram_mb"],
           "additionalProperties": False,
           "properties": {"name": {"type": "string"}, "vcpus": _POS_INT, "ram_mb": _POS_INT,
                          "disk_gb": _NONNEG_INT, "weight": _NUM,
                          "extra_specs": {"type": "object"}}}
_FRACTION = {"type": "number", "minimum": 0, "maximum": 1}

_CONFIG, _OPERATOR = scenario_acts.schemas(DURATION)
_RUN = {"type": "object", "additionalProperties": False,
        "properties": {"cycles": _POS_INT, "every": DURATION, "durable_flows": {"type": "boolean"},
                       "executor": {"type": "object", "additionalProperties": False,
                                    "properties": {"max_concurrent_per_host": _POS_INT,
                                                   "max_concurrent_per_region": {"type": "integer", "minimum": 0}}}}}

_REGION_PROPS = {f.name: _NUM for f in dataclasses.fields(r.RegionOptions)
                 if f.type in ("float", float)}
_REGION_PROPS.update({"name": {"type": "string"}, "evacuate_to_shutoff": {"type": "boolean"},
                      "migration_failure_rate": _FRACTION,
                      "instance_storage": {"enum": list(r.INSTANCE_STORAGES)}})

# What the bare region must show at the end (``expectations``, and ``expect.region`` with KeyVRM acting).
REGION_EXPECTATIONS = {
    "type": "object", "additionalProperties": False,
    "properties": {"hosts_by_state": _HOST_COUNTS,
                   "vms_by_host_state": _HOST_COUNTS,
                   "vms_by_status": {"type": "object", "additionalProperties": _NONNEG_INT},
                   "migrations_by_status": _MIGRATION_COUNTS,
                   "services_down": _NONNEG_INT,
                   "faults_fired": _NONNEG_INT}}

SCHEMA = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "seed": {"type": "integer"},
        "duration": DURATION,
        "region": {"type": "object", "additionalProperties": False,
                   "properties": _REGION_PROPS},
        "topology": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "hosts": _POS_INT, "hosts_per_aggregate": _POS_INT, "hosts_per_rack": _POS_INT,
                "availability_zones": _POS_INT, "hugepages_aggregates": _NONNEG_INT,
                "aggregate_metadata": {"type": "object",
                                       "additionalProperties": {"type": "string"}},
                "host": {"type": "object", "additionalProperties": False,
                         "properties": {
                             "vcpus": _POS_INT, "ram_mb": _POS_INT, "disk_gb": _NONNEG_INT,
                             "cpu_allocation_ratio": _NUM, "ram_allocation_ratio": _NUM,
                             "reserved_vcpus": _NONNEG_INT, "reserved_ram_mb": _NONNEG_INT,
                             "net_capacity_mbps": _NUM,
                             "interfaces": {"type": "array", "items": {"type": "string"}}}},
            }},
        "inventory": {"type": "object"},
        "workload": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "vms_per_host": _NONNEG_INT, "projects": _POS_INT,
                "flavors": {"type": "array", "minItems": 1, "items": _FLAVOR},
                "hugepages_flavors": {"type": "array", "minItems": 1, "items": _FLAVOR},
                "volume_backed_fraction": _FRACTION, "server_group_fraction": _FRACTION,
                "server_group_size": {"type": "integer", "minimum": 2},
                "server_group_policies": {
                    "type": "object", "minProperties": 1,
                    "propertyNames": {"enum": ["affinity", "anti-affinity", "soft-affinity",
                                               "soft-anti-affinity"]},
                    "additionalProperties": _NUM},
                "no_evacuate_fraction": _FRACTION, "no_migrate_fraction": _FRACTION,
                "evacuate_order_fraction": _FRACTION, "cpu_util": _FRACTION,
                "ram_util": _FRACTION, "net_mbps": _NUM, "dirty_mbps": _NUM,
            }},
        "timeline": {
            "type": "array",
            "items": {
                "type": "object", "required": ["at", "fault"], "additionalProperties": False,
                "properties": {
                    "at": DURATION,
                    "fault": {"enum": sorted(faults.FAULTS)},
                    "hosts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                    "rack": {"type": "string"},
                    "random_hosts": _POS_INT,
                    "aggregate": {"type": "string"},
                    "bmc": {"enum": ["off", "unreachable"]},
                    "mode": {"enum": [r.BMC_REFUSE, r.BMC_TIMEOUT]},
                    "duration": DURATION,
                    "interface": {"type": "string"},
                    "count": _POS_INT,
                    "step": {"enum": list(faults.EVACUATION_STEPS)},
                    "cpu_factor": _NUM,
                    "net_factor": _NUM,
                    "ramp": DURATION,
                }}},
        "expectations": REGION_EXPECTATIONS,
        "config": _CONFIG,
        "operator": _OPERATOR,
        "run": _RUN,
        "expect": scenario_expect.schema(DURATION, REGION_EXPECTATIONS),
    },
}

DEFAULT_CYCLES = 6
DEFAULT_CYCLE_EVERY_S = 60.0
# Timeline keys that are written as durations and passed to faults as seconds.
_DURATION_PARAMS = {"duration": "duration_s", "ramp": "ramp_s"}
_SELECTORS = ("hosts", "rack", "random_hosts", "aggregate")


class ScenarioError(InvalidField):
    """A scenario is wrong; ``field`` is the path of the bad value, ``line`` its line."""

    code = "invalid_scenario"

    def __init__(self, field: str, message: str, source: Optional[str] = None,
                 line: Optional[int] = None):
        super().__init__(field or "(scenario)", message)
        self.source = source
        self.line = line
        where = ":".join(str(p) for p in (source, line) if p is not None)
        if where:
            self.message = f"{where}: {self.message}"

    def __str__(self):
        return self.message


def parse_duration_s(value) -> float:
    """Seconds of a duration written as a number (seconds) or like ``1h30m``/``90s``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or not _DURATION_RE.match(value):
        raise ValueError(f"{value!r} is not a duration (e.g. 90, '90s', '5m', '1h30m')")
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)", value)
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def path_text(path) -> str:
    """``timeline[1].hosts[0]`` for the path ``('timeline', 1, 'hosts', 0)``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _line_of(node, path) -> Optional[int]:
    """1-based line of the YAML node at ``path`` (or of its deepest existing parent)."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in path:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    child = value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
        line = node.start_mark.line + 1
    return line


@dataclasses.dataclass
class FaultEntry:
    """One timeline entry, durations in seconds, host selector still unresolved."""

    index: int
    at_s: float
    fault: str
    selector: dict
    params: dict


@dataclasses.dataclass
class Scenario:
    """A validated scenario; ``start()`` builds its region with the faults scheduled."""

    name: str
    seed: int
    options: r.RegionOptions
    duration_s: float
    timeline: list
    expectations: dict
    description: str = ""
    topology: Optional[dict] = None
    workload: Optional[dict] = None
    inventory: Optional[dict] = None
    source: Optional[str] = None
    acts: list = dataclasses.field(default_factory=list)
    expect: dict = dataclasses.field(default_factory=dict)
    cycles: int = DEFAULT_CYCLES
    cycle_every_s: float = DEFAULT_CYCLE_EVERY_S
    durable_flows: bool = False
    executor: dict = dataclasses.field(default_factory=dict)  # [executor] bounds the engine runs with
    _node: object = None

    def error(self, path, message) -> ScenarioError:
        """A ScenarioError for ``path`` (tuple of keys/indices) with the file's line."""
        return ScenarioError(path_text(path), message, self.source, _line_of(self._node, path))

    def build_region(self) -> r.Region:
        """The region the scenario describes, before any fault."""
        if self.inventory is not None:
            return inventory.load(self.inventory, self.options)
        return generator.generate(self.topology, self.workload, self.options)

    def start(self) -> r.Region:
        """Build the region and schedule the timeline's faults on its clock."""
        region = self.build_region()
        rng = random.Random(self.seed)
        for entry in self.timeline:
            params = dict(entry.params)
            if faults.FAULTS[entry.fault][2] or entry.selector:
                params["hosts"] = self._resolve_hosts(region, entry, rng)
            faults.schedule(region, entry.at_s, entry.fault, params)
        return region

    def _resolve_hosts(self, region, entry, rng) -> list:
        base = ("timeline", entry.index)
        sel = entry.selector
        if "hosts" in sel:
            for i, name in enumerate(sel["hosts"]):
                if name not in region.hosts:
                    raise self.error(base + ("hosts", i), f"unknown host {name!r}")
            return list(sel["hosts"])
        if "rack" in sel:
            hosts = [h.name for h in region.hosts.values() if h.rack == sel["rack"]]
            if not hosts:
                raise self.error(base + ("rack",), f"no host in rack {sel['rack']!r}")
            return hosts
        pool = list(region.hosts)
        if "aggregate" in sel:
            agg = region.aggregates.get(sel["aggregate"])
            if agg is None:
                raise self.error(base + ("aggregate",),
                                 f"unknown aggregate {sel['aggregate']!r}")
            pool = list(agg.hosts)
        count = sel.get("random_hosts", 1)
        if count > len(pool):
            raise self.error(base + ("random_hosts",),
                             f"{count} hosts asked, only {len(pool)} to draw from")
        return sorted(rng.sample(pool, count))

    def run(self, until_s: Optional[float] = None):
        """Run the bare region (nobody acting) for ``until_s`` (default: ``duration``).

        Returns (region, summary); the summary has ``expectations_failed`` when the
        scenario has expectations.
        """
        region = self.start()
        region.clock.run_until(region.clock.start_s + (self.duration_s if until_s is None
                                                       else until_s))
        summary = report.summarize(region)
        summary["scenario"] = self.name
        if self.expectations:
            summary["expectations_failed"] = report.unmet_expectations(summary,
                                                                       self.expectations)
        return region, summary


def _yaml_boolean_trap(data, path=()):
    """Path and value of the first YAML 1.1 boolean where a name was meant, or None.

    ``off``, ``on``, ``yes``, ``no`` unquoted are booleans to YAML: as mapping keys they
    are never right here, and as values only where a boolean is expected.
    """
    if isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                return path, key
            found = _yaml_boolean_trap(value, path + (key,))
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = _yaml_boolean_trap(value, path + (i,))
            if found:
                return found
    return None


def _validate_schema(data, source, node):
    trap = _yaml_boolean_trap(data)
    if trap:
        path, key = trap
        raise ScenarioError(path_text(path), f"key {key!r} is not a name: quote it "
                            f"(YAML reads off/on/yes/no as booleans)", source,
                            _line_of(node, path))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = list(validator.iter_errors(data))
    if not errors:
        return
    error = jsonschema.exceptions.best_match(errors)
    path = list(error.absolute_path)
    message = error.message
    duration_branches = [DURATION] + DURATION["anyOf"]
    if any(error.schema is b for b in duration_branches) or \
            any(e.schema is DURATION for e in [error.parent] if e is not None):
        message = f"{error.instance!r} is not a duration (e.g. 90, '90s', '5m', '1h30m')"
    elif error.validator == "enum" and isinstance(error.instance, bool):
        message += " (quote it: YAML reads off/on/yes/no as booleans)"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        if extra:
            path.append(extra[0])
            message = f"unknown field {extra[0]!r}"
    elif error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        if missing:
            path.append(missing[0])
            message = "is required"
    raise ScenarioError(path_text(path), message, source, _line_of(node, path))


def _check_inventory(doc, fail):
    """Referential checks of an inventory document (fast enough for 200,000 VMs)."""
    if doc.get("format", inventory.FORMAT) != inventory.FORMAT:
        fail(("format",), f"not a {inventory.FORMAT} document")
    flavors, hosts, groups = set(), set(), set()
    for key, required, seen in (("flavors", ("name", "vcpus", "ram_mb"), flavors),
                                ("hosts", ("name",), hosts),
                                ("server_groups", ("id", "policy"), groups)):
        items = doc.get(key, [])
        if not isinstance(items, list):
            fail((key,), "must be a list")
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                fail((key, i), "must be a mapping")
            for field in required:
                if field not in item:
                    fail((key, i, field), "is required")
            seen.add(item[required[0]])
    for i, agg in enumerate(doc.get("aggregates", [])):
        if not isinstance(agg, dict) or "name" not in agg:
            fail(("aggregates", i, "name"), "is required")
        for j, name in enumerate(agg.get("hosts", [])):
            if name not in hosts:
                fail(("aggregates", i, "hosts", j), f"unknown host {name!r}")
    for i, vm in enumerate(doc.get("vms", [])):
        if not isinstance(vm, dict):
            fail(("vms", i), "must be a mapping")
        for field in ("id", "host", "flavor"):
            if field not in vm:
                fail(("vms", i, field), "is required")
        if vm["host"] not in hosts:
            fail(("vms", i, "host"), f"unknown host {vm['host']!r}")
        if vm["flavor"] not in flavors:
            fail(("vms", i, "flavor"), f"unknown flavor {vm['flavor']!r}")
        group = vm.get("server_group_id")
        if group is not None and group not in groups:
            fail(("vms", i, "server_group_id"), f"unknown server group {group!r}")


def _read_document(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        return json.loads(text), None
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), text


def load_inventory_file(path: str) -> dict:
    """Read and check an inventory file (YAML or JSON) written by ``keyvrm-sim generate``."""
    try:
        doc, text = _read_document(path)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ScenarioError("inventory.file", f"cannot read {path}: {exc}") from None
    node = yaml.compose(text) if text is not None and len(text) < 2_000_000 else None
    if not isinstance(doc, dict):
        raise ScenarioError("(inventory)", "must be a mapping", path)

    def fail(p, message):
        raise ScenarioError(path_text(p), message, path, _line_of(node, p))

    _check_inventory(doc, fail)
    return doc


def loads(text: str, source: Optional[str] = None, base_dir: str = ".") -> Scenario:
    """Parse and validate a scenario's YAML text."""
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError("(scenario)", f"not valid YAML: {exc}", source,
                            mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise ScenarioError("(scenario)", "must be a mapping", source, 1)
    _validate_schema(data, source, node)
    scenario = Scenario(name=data["name"], seed=data.get("seed", 0), options=None,
                        duration_s=parse_duration_s(data.get("duration", "1h")), timeline=[],
                        expectations=data.get("expectations", {}),
                        description=data.get("description", ""), source=source, _node=node)
    region_opts = dict(data.get("region", {}))
    scenario.options = r.RegionOptions(seed=scenario.seed, **region_opts)
    if "topology" in data and "inventory" in data:
        raise scenario.error(("inventory",), "give either topology or inventory, not both")
    if "inventory" in data:
        if "workload" in data:
            raise scenario.error(("workload",), "an explicit inventory already has its VMs")
        inv = data["inventory"]
        if set(inv) == {"file"}:
            scenario.inventory = load_inventory_file(os.path.join(base_dir, inv["file"]))
        else:
            def fail(p, message):
                raise scenario.error(("inventory",) + tuple(p), message)
            _check_inventory(inv, fail)
            scenario.inventory = inv
    else:
        scenario.topology = data.get("topology", {})
        scenario.workload = data.get("workload", {})
    for i, item in enumerate(data.get("timeline", [])):
        scenario.timeline.append(_timeline_entry(scenario, i, item))
    _keyvrm_parts(scenario, data)
    return scenario


def _keyvrm_parts(scenario, data):
    """What KeyVRM is told and expected to do: run, config, operator, expect."""
    run = data.get("run", {})
    scenario.cycles = run.get("cycles", DEFAULT_CYCLES)
    scenario.cycle_every_s = parse_duration_s(run.get("every", DEFAULT_CYCLE_EVERY_S))
    scenario.durable_flows = run.get("durable_flows", False)
    scenario.executor = run.get("executor", {})
    scenario.expect = data.get("expect", {})
    scenario.acts = scenario_acts.from_document(data.get("config"), data.get("operator"), parse_duration_s)
    for act in scenario.acts:
        missing = scenario_acts.missing_parameter(act)
        if missing:
            raise scenario.error(act.path + (missing,), "is required for %s" % act.action)


def _timeline_entry(scenario, index, item) -> FaultEntry:
    kind = item["fault"]
    _, accepted, needs_hosts = faults.FAULTS[kind]
    selector = {k: item[k] for k in _SELECTORS if k in item and k not in accepted}
    params = {}
    for key, value in item.items():
        if key in ("at", "fault") or key in selector:
            continue
        name = _DURATION_PARAMS.get(key, key)
        if name not in accepted:
            raise scenario.error(("timeline", index, key), f"not a parameter of {kind}")
        params[name] = parse_duration_s(value) if key in _DURATION_PARAMS else value
    if kind == "interface_down" and "interface" not in params:
        raise scenario.error(("timeline", index, "interface"), "is required for interface_down")
    exclusive = [k for k in ("hosts", "rack", "random_hosts") if k in selector]
    if len(exclusive) > 1:
        raise scenario.error(("timeline", index, exclusive[1]),
                             f"give one host selector, not {' and '.join(exclusive)}")
    if needs_hosts and not exclusive:
        raise scenario.error(("timeline", index, "hosts"),
                             f"{kind} needs hosts, rack or random_hosts")
    if kind == "aggregate_deleted" and "aggregate" not in params:
        raise scenario.error(("timeline", index, "aggregate"), "is required for aggregate_deleted")
    if "aggregate" in selector and "random_hosts" not in selector:
        raise scenario.error(("timeline", index, "aggregate"), "only narrows random_hosts")
    return FaultEntry(index, parse_duration_s(item["at"]), kind, selector, params)


SHIPPED_DIR = os.path.join(os.path.dirname(__file__), "shipped")


def shipped(name: str) -> str:
    """The path of scenario ``name`` shipped with KeyVRM (package data: demo-embedded, demo-small, ...)."""
    return os.path.join(SHIPPED_DIR, name + ".yaml")


def load(path: str) -> Scenario:
    """Read and validate the scenario file at ``path``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise ScenarioError("(scenario)", f"cannot read: {exc}", path) from None
    return loads(text, source=path, base_dir=os.path.dirname(os.path.abspath(path)))
