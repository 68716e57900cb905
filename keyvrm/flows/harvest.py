"""HarvesterFlow: one region snapshot from every source, stored, and aggregates synced with Nova."""

from __future__ import annotations

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.flows import context
from keyvrm.flows import steps
from keyvrm.harvest import assemble
from keyvrm.harvest import power
from keyvrm.harvest import store
from keyvrm.model import slices

LOG = logging.getLogger(__name__)


def with_bmc_power(resources, snapshot, app_config, only=None):
    """``snapshot`` with the BMC power of its stale hosts (``keyvrm.harvest.power``) when BMC fencing is on.

    The fencers (the credentials file) and the hosts HA already handles (the database) are
    read only when some host of ``only`` (default: any) has a stale heartbeat.
    """
    if not app_config.ha_fence_bmc:
        return snapshot
    conf = resources.conf
    stale = power.stale_hosts(snapshot, conf.heartbeat_stale_after_s, snapshot.taken_at)
    if only is not None:
        stale &= set(only)
    fencers = resources.fencers(app_config) if stale else None
    if fencers is None or fencers.bmc is None:
        return snapshot
    return power.with_power(snapshot, fencers.bmc, stale, max_condemned_share=conf.max_condemned_share,
                            timeout_s=conf.bmc_request_timeout_s,
                            handled=set(db_api.claimed_hypervisors(resources.db)))


def take_snapshot(resources, app_config):
    """A fresh snapshot of the region at the clock's now (failed sources recorded in it), BMC power included."""
    snapshot = assemble.harvest(resources.sources(), app_config, now_s=resources.clock.time(),
                                metrics_window_s=resources.conf.metrics_window_s)
    return with_bmc_power(resources, snapshot, app_config)


class Harvest(steps.FlowTask):
    """Collect, store (with retention) and sync aggregates; provides ``snapshot_id`` (None: disabled)."""

    default_provides = "snapshot_id"

    def __init__(self, resources):
        super().__init__(resources, "harvest")

    def execute(self, enabled=True):
        if not enabled:
            return None
        res = self.resources
        snapshot = take_snapshot(res, db_api.get_app_config(res.db))
        slicer = slices.Slicer(snapshot)
        snapshot_id, sync = store.store_and_sync(
            res.db, snapshot, keep_count=res.conf.snapshot_keep_count,
            keep_days=res.conf.snapshot_keep_days, now_s=snapshot.taken_at, slicer=slicer)
        context.remember(res.db, snapshot_id, slicer)
        failed = sorted(name for name, status in snapshot.sources.items() if not status.ok)
        LOG.info("snapshot %s: %d hypervisors, %d VMs%s", snapshot_id, len(snapshot.hypervisors),
                 len(snapshot.vms), "; sources failed: %s" % ", ".join(failed) if failed else "")
        return snapshot_id


def build(resources, **store):
    """The HarvesterFlow (also MasterFlow's second step)."""
    return linear_flow.Flow("harvest").add(Harvest(resources))
