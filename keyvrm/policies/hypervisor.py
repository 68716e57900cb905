"""Policy rules of KeyVRM's hypervisor states and the admin-only return to service."""

from keyvrm.policies import base

GET = "keyvrm:hypervisor:get"
LIST = "keyvrm:hypervisor:list"
RESTORE = "keyvrm:hypervisor:restore"
DRAIN = "keyvrm:hypervisor:drain"

rules = [
    base.rule(LIST, base.RULE_READER, "List hypervisors with KeyVRM's state of each.",
              [("GET", "/v1/hypervisors")]),
    base.rule(GET, base.RULE_READER, "Show a hypervisor's KeyVRM state, fencing record and service.",
              [("GET", "/v1/hypervisors/{host}")]),
    base.rule(RESTORE, base.RULE_ADMIN, "Return a fenced, maintenance or error host to service (admin only).",
              [("POST", "/v1/hypervisors/{host}/restore")]),
    base.rule(DRAIN, base.RULE_ADMIN, "Drain a host: disable its compute service and live-migrate its VMs away "
              "(admin only).", [("POST", "/v1/hypervisors/{host}/drain")]),
]
