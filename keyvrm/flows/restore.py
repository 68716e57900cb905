"""Return to service: hosts an operator released (``POST /v1/hypervisors/{name}/restore``) go back to Nova.

For each host in state ``restoring``: its compute service is no longer forced down; once
Nova shows the service up it is enabled again if KeyVRM's fencing disabled it (a disabled
reason starting with "KeyVRM"); a service an operator disabled for another reason stays
disabled. The host is then ``ok`` (HA watches it again); until then it stays ``restoring``
with the reason saying what it waits for, and HA leaves it alone. Its failback (the VMs
KeyVRM moved off it, back) is pending when the restore asked for it or its aggregate's
``failback`` is ``auto``; ``flows.failback`` plans it in the same cycle.
"""

from __future__ import annotations

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.flows import drain
from keyvrm.flows import steps
from keyvrm.model import snapshot
from keyvrm.model import states

LOG = logging.getLogger(__name__)

KEYVRM_REASON_PREFIX = "KeyVRM"


def return_to_service(cloud, host: str) -> tuple[bool, str]:
    """Unforce ``host``'s compute service, then, once Nova shows it up, enable it: (back, what was done).

    The enable waits for the service to be up because only then does Nova ask the compute
    to drop the ``COMPUTE_STATUS_DISABLED`` trait from its resource provider; enabled while
    down, the trait stays until the compute's periodic task runs and Nova's scheduler
    finds no valid host there meanwhile.
    """
    done = []
    service = cloud.get_service(host)
    if service.forced_down:
        service = cloud.force_down_service(host, forced_down=False)
        done.append("forced_down cleared")
        service = cloud.get_service(host)
    if service.state != snapshot.SERVICE_UP or service.forced_down:
        return False, ", ".join(done + ["waiting for its compute service to report up"])
    if service.status == snapshot.SERVICE_DISABLED and (service.disabled_reason or "").startswith(
            KEYVRM_REASON_PREFIX):
        cloud.enable_service(host)
        done.append("service enabled")
    elif service.status == snapshot.SERVICE_DISABLED:
        done.append(f"left disabled (reason not KeyVRM's: {service.disabled_reason!r})")
    return True, ", ".join(done) or "nothing to undo"


def _failback_mode(db, host):
    """The failback mode (``AggregateConfig.failback``) of the first aggregate of ``host`` KeyVRM knows, or None."""
    aggregate = drain.aggregate_of(db, host)
    return None if aggregate is None else db_api.get_aggregate_config(db, aggregate).failback


class ReturnHostsToService(steps.FlowTask):
    """Bring every ``restoring`` host back (see the module docstring); provides the hosts now ``ok``."""

    def __init__(self, resources):
        super().__init__(resources, "return_hosts_to_service", provides="hosts_restored")

    def execute(self, enabled):
        if not enabled:
            return []
        res, restored = self.resources, []
        for host in db_api.list_hypervisors_restoring(res.db):
            try:
                up, done = return_to_service(res.cloud, host)
            except Exception as exc:  # one host's Nova error must not stop the cycle
                LOG.warning("returning %s to service failed: %s", host, exc)
                continue
            if not up:
                db_api.set_hypervisor_state(res.db, host, states.HypervisorState.RESTORING, reason=done)
                continue
            if db_api.complete_hypervisor_restore(res.db, host, f"returned to service ({done})",
                                                  failback=_failback_mode(res.db, host) == "auto"):
                LOG.info("hypervisor %s returned to service: %s", host, done)
                restored.append(host)
        return restored
