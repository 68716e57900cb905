"""Policy rules of availability zones."""

from keyvrm.policies import base

LIST = "keyvrm:availability_zone:list"

rules = [
    base.rule(LIST, base.RULE_READER, "List availability zones with their aggregate counts.",
              [("GET", "/v1/availability-zones")]),
]
