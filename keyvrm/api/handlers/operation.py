"""Operations: the execution journal of one recommendation."""

from keyvrm.api import route
from keyvrm.api.schemas import recommendation as schema
from keyvrm.db import api as db_api
from keyvrm.policies import operation as policy


def list_operations(call, recommendation_id):
    """A recommendation's operation journal, oldest first."""
    return {"operations": db_api.list_recommendation_operations(call.db, recommendation_id)}


ROUTES = [
    route.Route("GET", "/v1/recommendations/{recommendation_id}/operations", list_operations,
                "List a recommendation's operations.", schema.OPERATIONS, policy=policy.LIST, errors=(404,)),
]
