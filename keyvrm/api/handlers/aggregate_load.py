"""An aggregate's load per host from the newest snapshot's host rows, judged as the LB planner judges it."""

from keyvrm.api import route
from keyvrm.api.schemas import aggregate_load as schema
from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.planning import lb
from keyvrm.planning import reasons
from keyvrm.policies import aggregate as policy
from keyvrm.scheduling import scoring


def _pct(value):
    return None if value is None else round(value, 2)


def host_load(host, config):
    """One host's utilisations, syn_score and overload causes with the aggregate's settings.

    ``host`` is its stored row (``keyvrm.db.hypervisors.HostLoad``). Hugepages appear only
    for a host that has HugePages pools; a metric the TSDB did not return is null and
    named in ``missing``.
    """
    load = scoring.Load(host.cpu_pct, host.ram_pct, host.net_pct, host.hugepages_pct)
    score = scoring.syn_score(load, config.lb_weights)
    causes = lb.overload_causes(load, score, config)
    values = dict(zip(scoring.METRICS, load.values()))
    shown = [k for k in scoring.METRICS if k != "hugepages" or host.has_hugepages]
    item = {k: _pct(values[k]) for k in shown}
    item.update(host=host.host, syn_score=_pct(score), overloaded=bool(causes),
                causes=[reasons.overload_cause(*c) for c in causes],
                missing=[k for k in shown if values[k] is None], vm_count=host.vm_count)
    return item


def show_aggregate_load(call, name):
    """Per-host load of an aggregate now; no hosts (``snapshot_id`` null) before the first snapshot."""
    found = hypervisors_db.list_aggregate_hosts(call.db, name)
    config = lb.balance_config(db_api.get_aggregate_config(call.db, name), (
        scoring.Load(h.cpu_pct, h.ram_pct, h.net_pct, h.hugepages_pct) for h in found.hosts))
    return {"aggregate_load": {
        "aggregate": name, "snapshot_id": found.snapshot_id, "taken_at": found.taken_at,
        "lb_weights": config.lb_weights, "lb_overload_threshold": config.lb_overload_threshold,
        "lb_target_max_load": config.lb_target_max_load, "lb_ceilings": config.lb_ceilings,
        "lb_hysteresis_pct": config.lb_hysteresis_pct, "hosts": [host_load(h, config) for h in found.hosts]}}


ROUTES = [
    route.Route("GET", "/v1/aggregates/{name}/load", show_aggregate_load,
                "Show an aggregate's load per host from the newest snapshot.", schema.AGGREGATE_LOAD,
                policy=policy.GET, errors=(404,),
                links=(route.Link("show_aggregate", {"name": route.member("aggregate_load", "aggregate")}),)),
]
