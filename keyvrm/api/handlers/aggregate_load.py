"""An aggregate's load per host from the newest snapshot, judged as the LB planner judges it."""

from keyvrm.api import route
from keyvrm.api.schemas import aggregate_load as schema
from keyvrm.db import api as db_api
from keyvrm.planning import lb
from keyvrm.planning import reasons
from keyvrm.policies import aggregate as policy
from keyvrm.scheduling import scoring


def _pct(value):
    return None if value is None else round(value, 2)


def host_load(hyper, vm_count, config):
    """One host's utilisations, syn_score and overload causes with the aggregate's settings.

    Hugepages appear only for a host that has HugePages pools; a metric the TSDB did not
    return is null and named in ``missing``.
    """
    load = scoring.load_of(hyper)
    score = scoring.syn_score(load, config.lb_weights)
    causes = lb.overload_causes(load, score, config)
    values = dict(zip(scoring.METRICS, load.values()))
    shown = [k for k in scoring.METRICS if k != "hugepages" or hyper.hugepages]
    item = {k: _pct(values[k]) for k in shown}
    item.update(host=hyper.name, syn_score=_pct(score), overloaded=bool(causes),
                causes=[reasons.overload_cause(*c) for c in causes],
                missing=[k for k in shown if values[k] is None], vm_count=vm_count)
    return item


def show_aggregate_load(call, name):
    """Per-host load of an aggregate now; no hosts (``snapshot_id`` null) before the first snapshot."""
    config, snapshot_id, taken_at, snap = db_api.get_aggregate_with_latest_snapshot(call.db, name)
    hosts = []
    if snap is not None:
        index = snap.index()
        hosts = [host_load(h, len(index.vms_on(h.name)), config) for h in index.hypervisors_of(name)]
    return {"aggregate_load": {
        "aggregate": name, "snapshot_id": snapshot_id, "taken_at": taken_at,
        "lb_weights": config.lb_weights, "lb_overload_threshold": config.lb_overload_threshold,
        "lb_target_max_load": config.lb_target_max_load, "lb_ceilings": config.lb_ceilings,
        "lb_hysteresis_pct": config.lb_hysteresis_pct, "hosts": hosts}}


ROUTES = [
    route.Route("GET", "/v1/aggregates/{name}/load", show_aggregate_load,
                "Show an aggregate's load per host from the newest snapshot.", schema.AGGREGATE_LOAD,
                policy=policy.GET, errors=(404,),
                links=(route.Link("show_aggregate", {"name": route.member("aggregate_load", "aggregate")}),)),
]
