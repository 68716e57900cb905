"""Policy rules of events."""

from keyvrm.policies import base

LIST = "keyvrm:event:list"
GET = "keyvrm:event:get"

rules = [
    base.rule(LIST, base.RULE_READER, "List events.", [("GET", "/v1/events")]),
    base.rule(GET, base.RULE_READER, "Show an event with its reason.", [("GET", "/v1/events/{event_id}")]),
]
