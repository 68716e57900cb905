"""Business configuration (SPEC section 2): the global and per-aggregate settings, and their rules.

These are the values operators change live through the API/CLI/Horizon. The database
stores them; planners receive them as these frozen dataclasses. ``validate_*`` decides
whether a set of changes is acceptable and returns the coerced values, or raises
``InvalidField`` naming the first bad field. Nothing is stored by this module.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Optional

from keyvrm.exception import InvalidField

# Nova filters KeyVRM emulates (keyvrm.scheduling.filters registers exactly these).
KNOWN_NOVA_FILTERS = (
    "AggregateImagePropertiesIsolation",
    "AggregateInstanceExtraSpecsFilter",
    "AggregateMultiTenancyIsolation",
    "AggregateNumInstancesFilter",
    "AggregateTypeAffinityFilter",
    "ComputeCapabilitiesFilter",
    "ComputeFilter",
    "DifferentHostFilter",
    "ImagePropertiesFilter",
    "IsolatedHostsFilter",
    "NUMATopologyFilter",
    "NumInstancesFilter",
    "SameHostFilter",
    "ServerGroupAffinityFilter",
    "ServerGroupAntiAffinityFilter",
)

# Nova's default enabled_filters (those KeyVRM emulates), the default of nova_filters.
DEFAULT_NOVA_FILTERS = (
    "ComputeFilter",
    "ComputeCapabilitiesFilter",
    "ImagePropertiesFilter",
    "ServerGroupAntiAffinityFilter",
    "ServerGroupAffinityFilter",
)

MARKERS = ("", "HA", "LB", "HA+LB")
# How an aggregate's instance disks are stored: on shared storage (Ceph RBD, NFS: an evacuated
# VM keeps its disk) or on each hypervisor's local disk (an evacuation rebuilds it from its image).
STORAGE_SHARED = "shared"
STORAGE_LOCAL = "local"
STORAGE_MODES = (STORAGE_SHARED, STORAGE_LOCAL)
LB_WEIGHT_KEYS = ("cpu", "ram", "net", "hugepages")
DEFAULT_LB_WEIGHTS = {"cpu": 1.0, "ram": 1.0, "net": 0.5, "hugepages": 0.0}
# Per-resource ceilings in %: a host with any resource at or above its ceiling is overloaded
# whatever its syn_score (None: no ceiling). 85% CPU is where a hypervisor is hot (its VMs
# queue for cores); resident RAM near full means swapping or ballooning; HugePages are an
# allocation, full by design, so they have none.
LB_CEILING_KEYS = LB_WEIGHT_KEYS
DEFAULT_LB_CEILINGS = {"cpu": 85.0, "ram": 95.0, "net": 90.0, "hugepages": None}
# The LB dial (``lb_level``, as vSphere DRS's migration threshold): the thresholds each level
# sets when it is chosen; the operator may still override any of them afterwards.
# 1: only hosts at or above a ceiling, relieved to just under it (syn_score is not read);
# 2: also a syn_score above 90, relieved to 85 (targets 5 below a ceiling);
# 3 (default): today's hot-spot relief (80 / 70);
# 4: earlier (70 / 60, lower ceilings); 5: balance -- as 4, the resources spread wider than
# half of LB_BALANCE_BAND_PCT are evened out together while a move pays (LB_BALANCE_WORTH),
# and a host still more than the band above the aggregate's mean on a measure is overloaded
# on it and relieved to half the band above the mean (keyvrm.planning.lb.balance_config).
_LB_EARLIER = {"lb_overload_threshold": 70.0, "lb_target_max_load": 60.0,
               "lb_ceilings": {"cpu": 80.0, "ram": 90.0, "net": 85.0, "hugepages": None}}
LB_LEVELS = {
    1: {"lb_overload_threshold": 100.0, "lb_target_max_load": 98.0, "lb_ceilings": DEFAULT_LB_CEILINGS},
    2: {"lb_overload_threshold": 90.0, "lb_target_max_load": 85.0, "lb_ceilings": DEFAULT_LB_CEILINGS},
    3: {"lb_overload_threshold": 80.0, "lb_target_max_load": 70.0, "lb_ceilings": DEFAULT_LB_CEILINGS},
    4: _LB_EARLIER,
    5: _LB_EARLIER,  # its limits come down to the aggregate's mean at each run (LB_BALANCE_BAND_PCT)
}
DEFAULT_LB_LEVEL = 3
LB_BALANCE_LEVEL = 5
LB_BALANCE_BAND_PCT = 25.0
# Level 5's price of balance: it makes a move only while the move lowers the sum, over the
# resources it evens out, of the hosts' squared deviations from the aggregate's mean by at
# least this many points^2 per GB of RAM it copies plus lb.MIGRATION_COST_GB (32 GB per
# migration; keyvrm.planning.lb._Evener): a 16 GB VM must take 276 points^2 off (5 points
# moved from a host 20 above the mean to one 16 below it take 5 * 35 + 5 * 27 = 310). On the
# LB benchmark's 300-host CPU-hot regions (medians of seeds 1-3) 5.75 reaches a CPU spread of
# 7.61 points with 131 moves and 2,192 GB (6 stops at 7.86 with 127 moves and 2,144 GB, 5.5 at
# 7.48 with 132 moves and 2,224 GB); on the RAM-hot ones it stops about where the RAM spread
# no longer narrows (7.13 points), past which moves narrow only CPU's, at a growing ratio
# to the least migrations that reach both spreads.
LB_BALANCE_WORTH = 5.75
# How many consecutive LB runs must find a host overloaded before LB moves VMs off it. Each
# run already reads loads averaged over [metrics] window (300 s): 1 acts on the first run
# that finds an overload; 2 or more wait that many lb_period for a burst to pass.
DEFAULT_LB_PERSISTENCE = 1
MAX_LB_PERSISTENCE = 10
# The least a move must narrow the gap between its source and its target, in points of each
# measure it relieves: a move gaining less is not worth a migration (and could ping-pong).
DEFAULT_LB_MIN_GAIN = 2.0
MAX_LB_MIN_GAIN = 50.0
# After a host is returned to service, its VMs KeyVRM moved off it (drain, HA evacuation)
# may go back (failback): off (never), recommend (manual recommendations, as LB's) or auto.
FAILBACK_MODES = ("off", "recommend", "auto")
DEFAULT_FAILBACK = "recommend"


@dataclasses.dataclass(frozen=True)
class AppConfig:
    """The global business config (``app_config``), with SPEC section 2's defaults."""

    enabled: bool = False
    period: int = 60
    nova_filters: tuple = DEFAULT_NOVA_FILTERS
    ha_fence_ceph: bool = False
    ha_fence_bmc: bool = False
    ha_fence_nova: bool = True
    ha_fence_interfaces: tuple = ()
    ha_power_check_timeout: int = 60
    ha_vm_reset_state_timeout: int = 300
    ha_no_evacuate_key: str = "ha_no_evacuate"
    lb_no_migrate_key: str = "lb_no_migrate"
    executor_max_attempts: int = 3
    executor_max_repeated_errors: int = 2
    executor_manual_action_timeout: int = 30
    lb_recommendations_auto_run: bool = False


@dataclasses.dataclass(frozen=True)
class AggregateConfig:
    """One aggregate's business config (``aggregate_config``); new aggregates are NOOP."""

    name: str
    marker: str = ""
    no_op_mode: bool = True
    no_op_reason: Optional[str] = "new aggregate: NOOP until an operator enables it"
    lb_period: int = 600
    lb_weights: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_LB_WEIGHTS))
    lb_overload_threshold: float = 80.0
    lb_target_max_load: float = 70.0
    lb_ceilings: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_LB_CEILINGS))
    storage_mode: Optional[str] = None  # STORAGE_MODES; None: undeclared, HA does not run
    # hosts whose failure HA must be able to absorb (keyvrm.planning.failover); 0: no reserve
    ha_failover_reserve: int = 1
    lb_level: int = DEFAULT_LB_LEVEL  # LB_LEVELS: the dial that set the thresholds above
    lb_persistence: int = DEFAULT_LB_PERSISTENCE  # consecutive LB runs a host is overloaded before LB acts
    lb_min_gain: float = DEFAULT_LB_MIN_GAIN  # points a move must narrow its source-target gap
    failback: str = DEFAULT_FAILBACK  # FAILBACK_MODES: what a restore of one of its hosts does with its VMs

    @property
    def lb_level_overridden(self) -> tuple:
        """The LB thresholds that differ from what ``lb_level`` sets (names, sorted)."""
        preset = LB_LEVELS[self.lb_level]
        return tuple(sorted(name for name, value in preset.items() if getattr(self, name) != value))

    @property
    def lb_hysteresis_pct(self) -> float:
        """How far below an overload limit a target must stay: threshold - target limit."""
        return max(0.0, self.lb_overload_threshold - self.lb_target_max_load)

    def lb_target_ceiling(self, resource: str) -> Optional[float]:
        """The most a target may reach on ``resource`` after a move, None without a ceiling.

        That is the resource's ceiling less the hysteresis.
        """
        ceiling = self.lb_ceilings.get(resource)
        return None if ceiling is None else ceiling - self.lb_hysteresis_pct

    @property
    def runs_ha(self) -> bool:
        return not self.no_op_mode and self.marker in ("HA", "HA+LB")

    @property
    def runs_lb(self) -> bool:
        return not self.no_op_mode and self.marker in ("LB", "HA+LB")


APP_CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(AppConfig))
AGGREGATE_CONFIG_FIELDS = tuple(
    f.name for f in dataclasses.fields(AggregateConfig) if f.name != "name")


def _as_bool(field, value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
    raise InvalidField(field, f"expected true or false, got {value!r}")


def _as_int(field, value, minimum=None, maximum=None):
    if isinstance(value, bool):
        raise InvalidField(field, f"expected an integer, got {value!r}")
    try:
        number = int(value) if not isinstance(value, float) or value.is_integer() else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        raise InvalidField(field, f"expected an integer, got {value!r}")
    if minimum is not None and number < minimum:
        raise InvalidField(field, f"must be >= {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise InvalidField(field, f"must be <= {maximum}, got {number}")
    return number


def _as_float(field, value, minimum=None, maximum=None):
    if isinstance(value, bool):
        raise InvalidField(field, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidField(field, f"expected a number, got {value!r}") from None
    if number != number:  # NaN
        raise InvalidField(field, "expected a number, got NaN")
    if minimum is not None and number < minimum:
        raise InvalidField(field, f"must be between {minimum} and {maximum}, got {number:g}")
    if maximum is not None and number > maximum:
        raise InvalidField(field, f"must be between {minimum} and {maximum}, got {number:g}")
    return number


def _as_list(field, value):
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise InvalidField(field, f"expected a JSON list, got {value!r}") from None
        else:
            value = [item.strip() for item in text.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidField(field, f"expected a list of names, got {value!r}")
    return tuple(value)


def _as_str(field, value, allow_empty=False):
    if not isinstance(value, str):
        raise InvalidField(field, f"expected a string, got {value!r}")
    if not allow_empty and not value.strip():
        raise InvalidField(field, "must not be empty")
    return value


def _nova_filters(field, value):
    names = _as_list(field, value)
    unknown = [n for n in names if n not in KNOWN_NOVA_FILTERS]
    if unknown:
        raise InvalidField(field, "unknown filter(s) %s; known: %s" % (
            ", ".join(unknown), ", ".join(KNOWN_NOVA_FILTERS)))
    if len(set(names)) != len(names):
        raise InvalidField(field, "a filter is listed twice")
    return names


# The largest failover reserve: the failover analysis searches at most 2 failing hosts.
MAX_FAILOVER_RESERVE = 2

# The longest cycle period: HA acts only at cycles (and the fast path), so a day is already lax.
MAX_PERIOD_S = 86400

_APP_RULES = {
    "enabled": _as_bool,
    "period": lambda f, v: _as_int(f, v, minimum=1, maximum=MAX_PERIOD_S),
    "nova_filters": _nova_filters,
    "ha_fence_ceph": _as_bool,
    "ha_fence_bmc": _as_bool,
    "ha_fence_nova": _as_bool,
    "ha_fence_interfaces": _as_list,
    "ha_power_check_timeout": lambda f, v: _as_int(f, v, minimum=1),
    "ha_vm_reset_state_timeout": lambda f, v: _as_int(f, v, minimum=0),
    "ha_no_evacuate_key": _as_str,
    "lb_no_migrate_key": _as_str,
    "executor_max_attempts": lambda f, v: _as_int(f, v, minimum=1),
    "executor_max_repeated_errors": lambda f, v: _as_int(f, v, minimum=1),
    "executor_manual_action_timeout": lambda f, v: _as_int(f, v, minimum=1),
    "lb_recommendations_auto_run": _as_bool,
}


def _per_resource(field, value, what):
    """``value`` (an object, or its JSON) with keys of LB_WEIGHT_KEYS only; ``what``: its values."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InvalidField(field, f"expected a JSON object, got {value!r}") from None
    if not isinstance(value, dict):
        raise InvalidField(field, f"expected an object of {what}s, got {value!r}")
    unknown = sorted(set(value) - set(LB_WEIGHT_KEYS))
    if unknown:
        raise InvalidField(field, "unknown %s(s) %s; known: %s" % (
            what, ", ".join(unknown), ", ".join(LB_WEIGHT_KEYS)))
    return value


def _lb_weights(field, value):
    weights = dict(DEFAULT_LB_WEIGHTS)
    for key, weight in _per_resource(field, value, "weight").items():
        weights[key] = _as_float(f"{field}.{key}", weight, minimum=0, maximum=1000)
    if sum(weights.values()) <= 0:
        raise InvalidField(field, "at least one weight must be > 0")
    return weights


def _lb_ceilings(field, value):
    ceilings = dict(DEFAULT_LB_CEILINGS)
    for key, ceiling in _per_resource(field, value, "ceiling").items():
        ceilings[key] = None if ceiling is None else _as_float(
            f"{field}.{key}", ceiling, minimum=1, maximum=100)
    return ceilings


def _marker(field, value):
    if value is None:
        value = ""
    if value not in MARKERS:
        raise InvalidField(field, "unknown marker %r; allowed: HA, LB, HA+LB or empty" % (value,))
    return value


def _choice(field, value, allowed):
    if value not in allowed:
        raise InvalidField(field, "unknown value %r; allowed: %s" % (value, ", ".join(allowed)))
    return value


def _storage_mode(field, value):
    if value is None or value == "":
        return None
    if value not in STORAGE_MODES:
        raise InvalidField(field, "unknown storage mode %r; allowed: shared (e.g. Ceph RBD, NFS), "
                                  "local, or empty (undeclared)" % (value,))
    return value


_AGGREGATE_RULES = {
    "marker": _marker,
    "no_op_mode": _as_bool,
    "no_op_reason": lambda f, v: None if v is None else _as_str(f, v, allow_empty=True),
    "lb_period": lambda f, v: _as_int(f, v, minimum=0),
    "lb_weights": _lb_weights,
    "lb_overload_threshold": lambda f, v: _as_float(f, v, minimum=0, maximum=100),
    "lb_target_max_load": lambda f, v: _as_float(f, v, minimum=0, maximum=100),
    "lb_ceilings": _lb_ceilings,
    "storage_mode": _storage_mode,
    "ha_failover_reserve": lambda f, v: _as_int(f, v, minimum=0, maximum=MAX_FAILOVER_RESERVE),
    "lb_level": lambda f, v: _as_int(f, v, minimum=min(LB_LEVELS), maximum=max(LB_LEVELS)),
    "lb_persistence": lambda f, v: _as_int(f, v, minimum=1, maximum=MAX_LB_PERSISTENCE),
    "lb_min_gain": lambda f, v: _as_float(f, v, minimum=0, maximum=MAX_LB_MIN_GAIN),
    "failback": lambda f, v: _choice(f, v, FAILBACK_MODES),
}


def _coerce(rules, changes):
    coerced = {}
    for field, value in changes.items():
        rule = rules.get(field)
        if rule is None:
            raise InvalidField(field, "unknown field; known: %s" % ", ".join(rules))
        coerced[field] = rule(field, value)
    return coerced


def validate_app_config(current: AppConfig, changes: dict) -> AppConfig:
    """Return ``current`` with ``changes`` applied, or raise InvalidField for the first bad one."""
    coerced = _coerce(_APP_RULES, changes)
    return dataclasses.replace(current, **coerced)


def validate_aggregate_config(current: AggregateConfig, changes: dict) -> AggregateConfig:
    """Return ``current`` with ``changes`` applied, checking rules that span fields.

    Choosing an ``lb_level`` sets its thresholds (``LB_LEVELS``) except those the same
    changes give. Turning NOOP on needs a reason; the LB target limit must stay below the
    overload threshold (else a move could overload its target), and each ceiling above
    that gap (targets stay that far below a ceiling, so none could take anything).
    """
    coerced = _coerce(_AGGREGATE_RULES, changes)
    if "lb_level" in coerced:
        preset = LB_LEVELS[coerced["lb_level"]]
        coerced = {**{name: (dict(value) if isinstance(value, dict) else value)
                      for name, value in preset.items()}, **coerced}
    updated = dataclasses.replace(current, **coerced)
    if coerced.get("no_op_mode") is True and not (updated.no_op_reason or "").strip():
        raise InvalidField("no_op_reason", "a reason is required when NOOP mode is turned on")
    if updated.lb_target_max_load >= updated.lb_overload_threshold:
        field = "lb_target_max_load" if "lb_target_max_load" in coerced else "lb_overload_threshold"
        raise InvalidField(field, "lb_target_max_load (%g) must be below lb_overload_threshold (%g)"
                           % (updated.lb_target_max_load, updated.lb_overload_threshold))
    for key in LB_CEILING_KEYS:
        ceiling = updated.lb_ceilings.get(key)
        if ceiling is not None and ceiling <= updated.lb_hysteresis_pct:
            field = ("lb_ceilings.%s" % key if "lb_ceilings" in coerced else
                     "lb_overload_threshold" if "lb_overload_threshold" in coerced else
                     "lb_target_max_load")
            raise InvalidField(field, "lb_ceilings.%s (%g) must be above lb_overload_threshold -"
                               " lb_target_max_load (%g): targets stay that far below a ceiling"
                               % (key, ceiling, updated.lb_hysteresis_pct))
    if coerced.get("no_op_mode") is False and "no_op_reason" not in coerced:
        updated = dataclasses.replace(updated, no_op_reason=None)
    return updated
