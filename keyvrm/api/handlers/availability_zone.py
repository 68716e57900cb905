"""Availability zones, as the aggregates KeyVRM knows place them."""

from keyvrm.api import route
from keyvrm.api.schemas import availability_zone as schema
from keyvrm.db import api as db_api
from keyvrm.policies import availability_zone as policy


def list_availability_zones(call):
    """AZs with the number of (not deleted) aggregates in each."""
    return {"availability_zones": db_api.list_availability_zones(call.db)}


ROUTES = [
    route.Route("GET", "/v1/availability-zones", list_availability_zones, "List availability zones.",
                schema.ZONES, policy=policy.LIST,
                links=(route.Link("list_aggregates",
                                  {"availability_zone": route.first("availability_zones", "name")}),)),
]
