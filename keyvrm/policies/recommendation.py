"""Policy rules of recommendations and their run/cancel actions."""

from keyvrm.policies import base

LIST = "keyvrm:recommendation:list"
GET = "keyvrm:recommendation:get"
RUN = "keyvrm:recommendation:run"
CANCEL = "keyvrm:recommendation:cancel"

rules = [
    base.rule(LIST, base.RULE_READER, "List recommendations.", [("GET", "/v1/recommendations")]),
    base.rule(GET, base.RULE_READER, "Show a recommendation with its load calculation.",
              [("GET", "/v1/recommendations/{recommendation_id}")]),
    base.rule(RUN, base.RULE_ADMIN, "Run a manual recommendation.",
              [("POST", "/v1/recommendations/{recommendation_id}/run")]),
    base.rule(CANCEL, base.RULE_ADMIN, "Cancel a recommendation.",
              [("POST", "/v1/recommendations/{recommendation_id}/cancel")]),
]
