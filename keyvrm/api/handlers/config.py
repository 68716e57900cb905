"""The global business config: show, change (validated as a whole, audited), audit log."""

import dataclasses

from keyvrm.api import route
from keyvrm.api.schemas import config as schema
from keyvrm.db import api as db_api
from keyvrm.policies import config as policy


def _render(app_config):
    return {"config": dataclasses.asdict(app_config)}


def show_config(call):
    """The global business config."""
    return _render(db_api.get_app_config(call.db))


def update_config(call):
    """Apply the changed fields if all are valid together; each changed field is audited."""
    request_id = call.context.request_id
    return _render(db_api.update_app_config(call.db, call.body, call.who, request_id=request_id))


AUDIT_LIMIT = route.Param("limit", {"type": "integer", "minimum": 1, "maximum": 1000},
                          "Number of newest audit rows to return (default 100).")
SCOPE = route.Param("scope", {"type": "string", "enum": ["app", "aggregate", "hypervisor"]},
                    "Only this scope.")
TARGET = route.Param("target", {"type": "string"}, "Only this aggregate or hypervisor (scope aggregate, hypervisor).")


def list_config_audit(call):
    """Who changed which business-config field, newest first."""
    q = call.query
    rows = db_api.list_config_audit(call.db, scope=q.get("scope"), target=q.get("target"),
                                    limit=q.get("limit", 100))
    return {"audit": rows}


ROUTES = [
    route.Route("GET", "/v1/config", show_config, "Show the global business config.", schema.CONFIG,
                policy=policy.GET),
    route.Route("PATCH", "/v1/config", update_config, "Change global business config fields.",
                schema.CONFIG, policy=policy.UPDATE, request_schema=schema.PATCH, errors=(400,)),
    route.Route("GET", "/v1/config/audit", list_config_audit, "Show the business-config audit log.",
                schema.AUDIT, policy=policy.AUDIT, query=(AUDIT_LIMIT, SCOPE, TARGET), errors=(400,)),
]
