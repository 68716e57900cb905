"""Policy rules of the operation journal."""

from keyvrm.policies import base

LIST = "keyvrm:operation:list"

rules = [
    base.rule(LIST, base.RULE_READER, "List a recommendation's operations.",
              [("GET", "/v1/recommendations/{recommendation_id}/operations")]),
]
