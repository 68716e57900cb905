"""Schemas of availability zones."""

from keyvrm.api.schemas import common

ZONE = common.obj({"name": common.OPT_STRING, "aggregate_count": common.INTEGER})
ZONES = common.obj({"availability_zones": {"type": "array", "items": ZONE}})
