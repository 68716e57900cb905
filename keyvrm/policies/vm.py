"""Policy rules of VM states (list, show), history and the admin-only unlock."""

from keyvrm.policies import base

LIST = "keyvrm:vm:list"
GET = "keyvrm:vm:get"
UNLOCK = "keyvrm:vm:unlock"

rules = [
    base.rule(LIST, base.RULE_READER, "List the VMs KeyVRM holds a state for (e.g. the locked ones).",
              [("GET", "/v1/vms")]),
    base.rule(GET, base.RULE_READER, "Show a VM's state and history.",
              [("GET", "/v1/vms/{vm_id}"), ("GET", "/v1/vms/{vm_id}/history")]),
    base.rule(UNLOCK, base.RULE_ADMIN, "Release a VM's lock by hand (admin only).",
              [("POST", "/v1/vms/{vm_id}/unlock")]),
]
