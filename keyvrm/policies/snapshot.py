"""Policy rules of region snapshots (raw download is admin-only)."""

from keyvrm.policies import base

LIST = "keyvrm:snapshot:list"
GET = "keyvrm:snapshot:get"
DOWNLOAD = "keyvrm:snapshot:download"

rules = [
    base.rule(LIST, base.RULE_READER, "List snapshot summaries.", [("GET", "/v1/snapshots")]),
    base.rule(GET, base.RULE_READER, "Show a snapshot summary.", [("GET", "/v1/snapshots/{snapshot_id}")]),
    base.rule(DOWNLOAD, base.RULE_ADMIN, "Download a raw region snapshot.",
              [("GET", "/v1/snapshots/{snapshot_id}/data")]),
]
