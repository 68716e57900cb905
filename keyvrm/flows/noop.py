"""NoopFlow: an aggregate KeyVRM only watches (NOOP, or no marker): counted, nothing created.

MasterFlow no longer starts it (the gate's reason is on the cycle, see ``flows.screen``);
it stays registered so a NoopFlow an earlier release persisted still resumes and ends.
"""

from __future__ import annotations

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.flows import context
from keyvrm.flows import steps

LOG = logging.getLogger(__name__)


class CountAggregate(steps.FlowTask):
    """Count the aggregate's hosts and VMs in the snapshot; provides ``{hosts, vms}``."""

    default_provides = "noop_counts"

    def __init__(self, resources):
        super().__init__(resources, "noop_count")

    def execute(self, aggregate, snapshot_id, reason=None):
        index = context.load_slice(self.resources.db, snapshot_id, aggregate).index()
        hosts = index.hypervisors_of(aggregate)
        vms = sum(len(index.vms_on(h.name)) for h in hosts)
        LOG.info("aggregate %s not processed (%s): %d hosts, %d VMs", aggregate, reason, len(hosts), vms)
        return {"hosts": len(hosts), "vms": vms}


def build(resources, **store):
    """The NoopFlow of one aggregate (store: aggregate, snapshot_id, reason)."""
    return linear_flow.Flow("noop").add(CountAggregate(resources))
