"""FastFlow: the HA fast path's cycle -- the suspect hosts' aggregates judged now, without a whole-region harvest.

SPEC 5.8. The watch (``keyvrm.engine.fastpath``) saw the compute service or heartbeat of
some hosts turn bad. This cycle takes their aggregates' slices from the newest snapshot
of the region, reads again what HA judges (``keyvrm.harvest.fast``; with BMC fencing on,
also the BMC power of the suspects whose heartbeat is stale), stores that as a
snapshot of scope ``hosts`` and screens only those aggregates, HA only: the same matrix,
the same mass-failure guard, the same fencing and evacuation (an HAFlow where HA acts).
LB waits for the periodic cycle, which the engine starts once this one has finished.
Store: ``hosts`` (the suspects).
"""

from __future__ import annotations

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.flows import context
from keyvrm.flows import harvest as harvest_flow
from keyvrm.flows import master
from keyvrm.flows import steps
from keyvrm.harvest import fast
from keyvrm.model import slices
from keyvrm.model import states

LOG = logging.getLogger(__name__)
FAST_PATH = "fast_path"
NO_SNAPSHOT = "no_snapshot"


class StartFastCycle(steps.FlowTask):
    """Record the fast cycle (provides ``cycle_id``); a failed flow marks it failed on revert."""

    def __init__(self, resources):
        super().__init__(resources, "start_fast_cycle", provides="cycle_id")

    def execute(self):
        return db_api.start_cycle(self.resources.db)

    def revert(self, result=None, flow_failures=None, **kwargs):
        if isinstance(result, int):
            why = "; ".join(str(f.exception) for f in (flow_failures or {}).values()) or "FastFlow failed"
            db_api.finish_cycle(self.resources.db, result, states.CycleStatus.FAILED, reason_code="flow_failed",
                                reason=why[:2000])


class HarvestSuspects(steps.FlowTask):
    """The suspects' aggregates from the newest region snapshot, read again and stored; provides its id and them."""

    def __init__(self, resources):
        super().__init__(resources, "harvest_suspects", provides=("snapshot_id", "fast_aggregates"))

    def execute(self, enabled, hosts):
        if not enabled:
            return None, []
        res = self.resources
        base_id = db_api.newest_region_snapshot_id(res.db)
        if base_id is None:
            return None, []
        suspects = set(hosts)
        region = db_api.load_snapshot_region(res.db, base_id)
        aggregates = sorted(a.name for a in region.aggregates if suspects & set(a.hosts))
        if not aggregates:
            LOG.info("fast path: %s in no aggregate of snapshot %s; the next cycle judges them",
                     ", ".join(sorted(suspects)), base_id)
            return None, []
        views = [context.load_slice(res.db, base_id, name) for name in aggregates]
        app_config = db_api.get_app_config(res.db)
        snapshot = fast.refresh(views, res.sources(), app_config, sorted(suspects), now_s=res.clock.time())
        snapshot = harvest_flow.with_bmc_power(res, snapshot, app_config, only=suspects)
        slicer = slices.Slicer(snapshot)
        snapshot_id = db_api.store_snapshot(res.db, snapshot, res.conf.snapshot_keep_count,
                                            res.conf.snapshot_keep_days, slicer=slicer, scope="hosts")
        context.remember(res.db, snapshot_id, slicer)
        LOG.info("fast path: snapshot %s of %s (%d hosts) for %s", snapshot_id, ", ".join(aggregates),
                 len(snapshot.hypervisors), ", ".join(sorted(suspects)))
        return snapshot_id, aggregates


class FinishFastCycle(steps.FlowTask):
    """Complete the fast cycle: which hosts it judged in which aggregates."""

    def __init__(self, resources):
        super().__init__(resources, "finish_fast_cycle", provides="cycle_status")

    def execute(self, enabled, cycle_id, hosts, snapshot_id, fast_aggregates, aggregate_flows):
        db = self.resources.db
        if not enabled:
            return states.CycleStatus.SKIPPED
        if snapshot_id is None:
            db_api.finish_cycle(db, cycle_id, states.CycleStatus.SKIPPED, reason_code=NO_SNAPSHOT,
                                reason="fast path for %s: no snapshot of the region holds them yet; the periodic "
                                       "cycle judges them" % ", ".join(sorted(hosts)))
            return states.CycleStatus.SKIPPED
        text = "fast path for %s: HA of %s judged (%d flow(s) started, %d quiet)" % (
            ", ".join(sorted(hosts)), ", ".join(fast_aggregates), len(aggregate_flows.get("flows") or {}),
            aggregate_flows.get("quiet", 0))
        db_api.finish_cycle(db, cycle_id, states.CycleStatus.COMPLETED, reason_code=FAST_PATH, reason=text[:8000],
                            snapshot_id=snapshot_id)
        return states.CycleStatus.COMPLETED


def build(resources, **store):
    """The FastFlow of some suspect hosts (store: hosts)."""
    return linear_flow.Flow("fast").add(
        StartFastCycle(resources), master.ReadConfig(resources), master.CollectBusy(resources),
        HarvestSuspects(resources), master.DispatchAggregates(resources), FinishFastCycle(resources))
