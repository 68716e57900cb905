"""An aggregate's failover capacity now: its tolerance against its reserve, from the newest snapshot.

The analysis is the engine's (``keyvrm.planning.failover.analyse_failover``), planned on the
aggregate's slice of the newest snapshot with the busy set and the hosts already handled as
the database holds them now, up to ``[ha] failover_max_k``. From 1.5 the answer also
carries the aggregate's failure domains (racks), each planned failing as a whole. It
writes nothing.
"""

import datetime

from keyvrm.api.handlers import aggregate_what_if
from keyvrm.api import microversion
from keyvrm.api import route
from keyvrm.api.schemas import aggregate_failover as schema
from keyvrm.db import api as db_api
from keyvrm.flows import events
from keyvrm.flows import resources
from keyvrm.planning import failover
from keyvrm.planning import gate
from keyvrm.policies import aggregate as policy


def show_failover(call, name):
    """The aggregate's tolerance, reserve and the hosts whose failure would leave VMs without a target."""
    db = call.db
    agg_config, snapshot_id, snapshot = aggregate_what_if.newest_ha_slice(db, name)
    app_config = db_api.get_app_config(db)
    settings = resources.FlowSettings.from_conf(call.conf)
    analysis = failover.analyse_failover(
        snapshot, app_config, agg_config, busy=db_api.busy_set(db), max_k=settings.failover_max_k,
        heartbeat_stale_after_s=settings.heartbeat_stale_after_s, max_rejected_hosts=settings.max_rejected_hosts,
        handled=frozenset(db_api.claimed_hypervisors(db)))
    why_not = gate.aggregate_gate(app_config, agg_config)
    at_risk = analysis.at_risk or analysis.pairs_at_risk

    def without_target(found):
        return [events.no_target_entry(r, settings.max_rejected_hosts) for r in found.without_target]

    body = {
        "aggregate": name, "snapshot_id": snapshot_id, "taken_at": aggregate_what_if.taken_at(snapshot),
        "computed_at": db.now().replace(tzinfo=datetime.timezone.utc),
        "tolerance": analysis.tolerance, "max_k": analysis.max_k, "exact": analysis.exact,
        "reserve": agg_config.ha_failover_reserve, "below_reserve": analysis.below(agg_config.ha_failover_reserve),
        "hosts": analysis.hosts,
        "at_risk": [{"hosts": list(risk.hosts), "vms_without_target": without_target(risk)} for risk in at_risk],
        "ha_runs": why_not.run_ha,
        "ha_not_run": None if why_not.run_ha else why_not.reason.entry().to_json()}
    if call.version >= microversion.FAILURE_DOMAINS:
        body.update(failure_domains=[{"name": domain.name, "hosts": list(domain.hosts),
                                      "vms_without_target": without_target(domain)}
                                     for domain in analysis.failure_domains],
                    failure_domain_error=analysis.domain_error)
    return {"failover": body}


ROUTES = [
    route.Route("GET", "/v1/aggregates/{name}/failover", show_failover,
                "Show the aggregate's failover tolerance against its reserve, planned now.", schema.FAILOVER,
                policy=policy.GET, errors=(400, 404, 409), since=microversion.FAILOVER,
                links=(route.Link("show_aggregate", {"name": route.member("failover", "aggregate")}),)),
]
