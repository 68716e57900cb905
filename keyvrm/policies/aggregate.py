"""Policy rules of host aggregates."""

from keyvrm.policies import base

LIST = "keyvrm:aggregate:list"
GET = "keyvrm:aggregate:get"
UPDATE = "keyvrm:aggregate:update"
WHAT_IF = "keyvrm:aggregate:what_if"

rules = [
    base.rule(LIST, base.RULE_READER, "List aggregates.", [("GET", "/v1/aggregates")]),
    base.rule(GET, base.RULE_READER, "Show an aggregate, its load per host and its failover capacity.",
              [("GET", "/v1/aggregates/{name}"), ("GET", "/v1/aggregates/{name}/load"),
               ("GET", "/v1/aggregates/{name}/failover")]),
    base.rule(UPDATE, base.RULE_ADMIN, "Change an aggregate's config.", [("PATCH", "/v1/aggregates/{name}")]),
    base.rule(WHAT_IF, base.RULE_READER, "Show the plan HA would make now if given hosts died (a POST"
              " that changes nothing).", [("POST", "/v1/aggregates/{name}/what-if")]),
]
