"""What-if: the plan HA would make now if given hosts of an aggregate died, read from the newest snapshot.

It plans with HA's own code (``keyvrm.planning.what_if`` over ``ha.plan_evacuation``), on
the aggregate's slice of the newest snapshot, with the busy set and the hosts already
handled as the database holds them now and the engine's planning options. It writes
nothing: no event, recommendation, hypervisor state or cycle.
"""

import datetime

from keyvrm.api import microversion
from keyvrm.api import route
from keyvrm.api.schemas import aggregate_what_if as schema
from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.executor import order
from keyvrm.flows import context
from keyvrm.flows import events
from keyvrm.flows import resources
from keyvrm.planning import gate
from keyvrm.planning import reasons
from keyvrm.planning import what_if
from keyvrm.policies import aggregate as policy

HA_MARKERS = ("HA", "HA+LB")
NOTE_CODES = frozenset((reasons.NO_FILTERS, reasons.FILTER_INPUT_UNKNOWN))  # about the plan, not a host


def check_marker(agg_config):
    """Raise ``InvalidField`` ("name") unless the aggregate is marked HA or HA+LB."""
    if agg_config.marker not in HA_MARKERS:
        raise exception.InvalidField("name", "aggregate %s is marked %s: HA plans only for aggregates marked HA"
                                     " or HA+LB" % (agg_config.name, agg_config.marker or "nothing"))


def _check_hosts(db, snapshot_id, name, members, asked):
    """Raise ``InvalidField`` ("fail") naming the first asked host that is not a member of the aggregate."""
    strangers = [host for host in asked if host not in members]
    if not strangers:
        return
    region = db_api.load_snapshot_region(db, snapshot_id)
    homes = {}
    for aggregate in region.aggregates:
        for host in aggregate.hosts:
            homes.setdefault(host, []).append(aggregate.name)
    host = strangers[0]
    if host not in homes:
        raise exception.InvalidField("fail", "host %s is not in the newest snapshot (%d): Nova does not know it"
                                     % (host, snapshot_id))
    raise exception.InvalidField("fail", "host %s is not in aggregate %s (it is in %s)"
                                 % (host, name, ", ".join(sorted(homes[host]))))


def _steps(moves, order_of):
    """[(move, tier, step)] in the order the executor asks Nova: ``order.tiers_by_order`` of the planned order."""
    tiers = order.tiers_by_order(range(len(moves)), {i: order_of.get(m.vm_id) for i, m in enumerate(moves)})
    ranked = [(moves[i], number) for number, tier in enumerate(tiers, 1) for i in tier]
    return [(move, tier, step) for step, (move, tier) in enumerate(ranked, 1)]


def newest_ha_slice(db, name):
    """(config, snapshot id, slice of the newest snapshot) of HA aggregate ``name``, for a plan made now.

    ``InvalidField`` ("name") unless it is marked HA or HA+LB; ``Conflict`` before the first snapshot.
    """
    agg_config = db_api.get_aggregate_config(db, name)
    check_marker(agg_config)
    snapshot_id = db_api.newest_region_snapshot_id(db)
    if snapshot_id is None:
        raise exception.Conflict("no snapshot yet: KeyVRM plans from the newest snapshot, which the next"
                                 " cycle takes")
    return agg_config, snapshot_id, context.load_slice(db, snapshot_id, name)


def taken_at(snapshot):
    """When ``snapshot`` was taken, as an aware UTC datetime."""
    return datetime.datetime.fromtimestamp(snapshot.taken_at, datetime.timezone.utc)


def plan_what_if(call, name):
    """The plan HA would make now if the hosts in ``fail`` died; changes nothing."""
    db = call.db
    agg_config, snapshot_id, snapshot = newest_ha_slice(db, name)
    asked = list(call.body["fail"])
    index = snapshot.index()
    aggregate = index.aggregates.get(name)
    _check_hosts(db, snapshot_id, name, frozenset(aggregate.hosts if aggregate else ()), asked)
    app_config = db_api.get_app_config(db)
    settings = resources.FlowSettings.from_conf(call.conf)
    found = what_if.plan_failure(
        snapshot, app_config, agg_config, db_api.busy_set(db), asked, db_api.claimed_hypervisors(db),
        index=index, max_condemned_share=settings.max_condemned_share,
        allow_rebuild=settings.executor.allow_rebuild_local_disk,
        max_rejected_hosts=settings.max_rejected_hosts, heartbeat_stale_after_s=settings.heartbeat_stale_after_s)
    why_not = gate.aggregate_gate(app_config, agg_config)
    return {"what_if": {
        "aggregate": name, "snapshot_id": snapshot_id, "fail": asked,
        "taken_at": taken_at(snapshot),
        "ha_runs": why_not.run_ha,
        "ha_not_run": None if why_not.run_ha else why_not.reason.entry().to_json(),
        "hosts": _hosts(found, index, settings.max_rejected_hosts),
        "notes": [r.entry().to_json() for r in found.plan.reasons if not _about_a_host(r, asked)]}}


def _about_a_host(reason, asked) -> bool:
    """Whether ``reason`` is about one failed host (its VMs or itself), not the plan as a whole."""
    return reason.host in asked and reason.code not in NOTE_CODES


def _hosts(found, index, max_rejected_hosts):
    """Per failed host, in the order asked: its outcome, its moves (with tier and step), its VMs that stay."""
    steps = _steps(list(found.plan.moves), {vm.id: vm.evacuate_order for vm in index.vms.values()})
    shown = []
    for failed in found.hosts:
        about = [r for r in found.plan.reasons if _about_a_host(r, (failed.host,))]
        shown.append({
            "host": failed.host, "fenced": failed.fenced, "end_state": failed.end_state,
            "handled_state": failed.handled_state,
            "vm_count": len(failed.vm_ids),
            "moves": [{"vm_id": move.vm_id, "name": index.vms[move.vm_id].name, "source": move.source,
                       "target": move.target, "evacuate_order": index.vms[move.vm_id].evacuate_order,
                       "round": move.ha_round, "tier": tier, "step": step}
                      for move, tier, step in steps if move.source == failed.host],
            "skipped": [r.entry().to_json() for r in about if r.rejected_hosts is None],
            "no_target": [events.no_target_entry(r, max_rejected_hosts) for r in about
                          if r.rejected_hosts is not None]})
    return shown


ROUTES = [
    route.Route("POST", "/v1/aggregates/{name}/what-if", plan_what_if,
                "Show the plan HA would make now if given hosts died (changes nothing).", schema.WHAT_IF,
                policy=policy.WHAT_IF, request_schema=schema.REQUEST, errors=(400, 404, 409),
                since=microversion.WHAT_IF,
                links=(route.Link("show_aggregate", {"name": route.member("what_if", "aggregate")}),)),
]
