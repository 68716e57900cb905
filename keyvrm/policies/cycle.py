"""Policy rules of cycles (history and "cycle now")."""

from keyvrm.policies import base

LIST = "keyvrm:cycle:list"
GET = "keyvrm:cycle:get"
RUN = "keyvrm:cycle:run"

rules = [
    base.rule(LIST, base.RULE_READER, "List cycles with their reasons.", [("GET", "/v1/cycles")]),
    base.rule(GET, base.RULE_READER, "Show a cycle.", [("GET", "/v1/cycles/{cycle_id}")]),
    base.rule(RUN, base.RULE_ADMIN, "Request a cycle now.", [("POST", "/v1/cycles")]),
]
