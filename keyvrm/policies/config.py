"""Policy rules of the global business config."""

from keyvrm.policies import base

GET = "keyvrm:config:get"
UPDATE = "keyvrm:config:update"
AUDIT = "keyvrm:config:audit"

rules = [
    base.rule(GET, base.RULE_READER, "Show the global business config.", [("GET", "/v1/config")]),
    base.rule(UPDATE, base.RULE_ADMIN, "Change the global business config.", [("PATCH", "/v1/config")]),
    base.rule(AUDIT, base.RULE_READER, "Show who changed business config, when, from what to what.",
              [("GET", "/v1/config/audit")]),
]
