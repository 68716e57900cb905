"""Schemas of the global business config (SPEC section 2) and its audit log."""

from keyvrm.api import ids
from keyvrm.api.schemas import common
from keyvrm.model import settings

MAX_LIST_ITEMS = 64  # interface and filter lists: a handful in practice
_NAMES = {"type": "array", "maxItems": MAX_LIST_ITEMS, "items": {"type": "string", "minLength": 1, "maxLength": 255}}

FIELDS = {
    "enabled": common.BOOLEAN,
    "period": {"type": "integer", "minimum": 1, "maximum": settings.MAX_PERIOD_S},
    "nova_filters": dict(_NAMES, items={"type": "string", "enum": list(settings.KNOWN_NOVA_FILTERS)}),
    "ha_fence_ceph": common.BOOLEAN,
    "ha_fence_bmc": common.BOOLEAN,
    "ha_fence_nova": common.BOOLEAN,
    "ha_fence_interfaces": _NAMES,
    "ha_power_check_timeout": {"type": "integer", "minimum": 1, "maximum": ids.INT32_MAX},
    "ha_vm_reset_state_timeout": {"type": "integer", "minimum": 0, "maximum": ids.INT32_MAX},
    "ha_no_evacuate_key": {"type": "string", "minLength": 1, "maxLength": 255},
    "lb_no_migrate_key": {"type": "string", "minLength": 1, "maxLength": 255},
    "executor_max_attempts": {"type": "integer", "minimum": 1, "maximum": ids.INT32_MAX},
    "executor_max_repeated_errors": {"type": "integer", "minimum": 1, "maximum": ids.INT32_MAX},
    "executor_manual_action_timeout": {"type": "integer", "minimum": 1, "maximum": ids.INT32_MAX},
    "lb_recommendations_auto_run": common.BOOLEAN,
}
assert set(FIELDS) == set(settings.APP_CONFIG_FIELDS)

CONFIG = common.obj({"config": common.obj(FIELDS)})
PATCH = {"type": "object", "properties": FIELDS, "additionalProperties": False, "minProperties": 1}

AUDIT_ENTRY = common.obj({"scope": common.STRING, "target": common.OPT_STRING, "field": common.STRING,
                          "old_value": {}, "new_value": {}, "changed_by": common.STRING,
                          "changed_at": common.TIMESTAMP})
AUDIT = common.obj({"audit": {"type": "array", "items": AUDIT_ENTRY}})
