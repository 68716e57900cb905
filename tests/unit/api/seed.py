"""A small, fixed KeyVRM state for API tests: aggregates, cycles, events, recommendations, VMs, a snapshot."""

import datetime

from keystonemiddleware import auth_token
from oslo_config import cfg
from oslo_middleware import opts as middleware_opts

from keyvrm.api import app as api_app
from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.db import models
from keyvrm.model import reason_list
from keyvrm.model import snapshot as m
from keyvrm.planning import reasons

T0 = datetime.datetime(2026, 12, 1, 10, 0, 0)
LOAD = {"source": {"before": {"cpu": 91.0, "ram": 70.0, "net": 10.0, "syn_score": 88.0},
                   "after": {"cpu": 70.0, "ram": 60.0, "net": 8.0, "syn_score": 72.0}},
        "target": {"before": {"cpu": 30.0, "ram": 40.0, "net": 5.0, "syn_score": 33.0},
                   "after": {"cpu": 51.0, "ram": 50.0, "net": 7.0, "syn_score": 50.0}}}


NO_TARGET = reasons.no_target("vm-9", {"ServerGroupAntiAffinityFilter": 1}, vm_id="vm-9", host="cmp-1")
NO_TARGET_MESSAGE = NO_TARGET.message
# ev-2's run: 12 hypervisors of agg-b overloaded, more than an event keeps of one code
HOT_HOSTS = ["cmp-%02d" % i for i in range(3, 15)]


def _stored(found):
    """``found`` reasons as an event or outcome stores them (ranked, bounded per code)."""
    return reason_list.ReasonList().added(r.entry() for r in found).ranked(reasons.rank).to_json()


def _at(minutes):
    return T0 + datetime.timedelta(minutes=minutes)


def snapshot():
    """A two-host region snapshot."""
    return m.RegionSnapshot(
        region="RegionOne", taken_at=1764583200.0, availability_zones=(m.AvailabilityZone("az1"),),
        aggregates=(m.Aggregate("agg-a", 1, None, "az1", {}, ("cmp-1", "cmp-2")),),
        hypervisors=(m.Hypervisor("cmp-1", "az1", ("agg-a",)),
                     m.Hypervisor("cmp-2", "az1", ("agg-a",), service=m.ComputeService("cmp-2"))),
        sources={m.SOURCE_NOVA: m.SourceStatus(m.SOURCE_NOVA, True, requests=3)})


def loaded_snapshot():
    """The snapshot a minute later with load on agg-a: cmp-1 at 100% cpu with 2 VMs, cmp-2 without net."""
    base = snapshot()
    hot_metrics = m.HostMetrics(cpu_pct=100.0, ram_pct=40.123, net_pct=10.0)
    hot = m.Hypervisor("cmp-1", "az1", ("agg-a",), metrics=hot_metrics)
    partial = m.Hypervisor("cmp-2", "az1", ("agg-a",), metrics=m.HostMetrics(cpu_pct=30.0, ram_pct=50.0))
    flavor = m.Flavor("small", 1, 512)
    vms = tuple(m.VM(vm_id, vm_id, host, "project", flavor)
                for vm_id, host in (("vm-1", "cmp-1"), ("vm-2", "cmp-1"), ("vm-3", "cmp-2")))
    return m.replace(base, taken_at=base.taken_at + 60, hypervisors=(hot, partial), vms=vms)


def store(db, snap):
    """Store ``snap`` as harvest does: its region_data row and its hosts' rows; returns its id."""
    snapshot_id = db_api.store_snapshot(db, snap, keep_count=10)
    hypervisors_db.replace_hypervisors(db, snapshot_id, snap)
    return snapshot_id


def seed(db):
    """Write the fixed state into a migrated, empty ``db``."""
    db_api.sync_aggregates(db, [m.Aggregate("agg-a", 1, None, "az1"), m.Aggregate("agg-b", 2, None, "az1"),
                                m.Aggregate("agg-c", 3, None, "az2"), m.Aggregate("agg-gone", 4, None, "az2")])
    db_api.sync_aggregates(db, [m.Aggregate("agg-a", 1, None, "az1"), m.Aggregate("agg-b", 2, None, "az1"),
                                m.Aggregate("agg-c", 3, None, "az2")])
    db_api.update_aggregate_config(db, "agg-a", {"marker": "HA", "no_op_mode": False}, "seed")
    db_api.update_aggregate_config(db, "agg-b", {"marker": "LB"}, "seed")
    snapshot_id = store(db, snapshot())
    with db.writer() as session:
        done = models.Cycle(status="completed", snapshot_id=snapshot_id, started_at=_at(0), finished_at=_at(1))
        session.add(done)
        session.flush()
        session.add(models.Cycle(status="skipped", reason_code="disabled", reason="KeyVRM is disabled",
                                 started_at=_at(10), finished_at=_at(10)))
        session.add(models.CycleOutcome(cycle_id=done.id, aggregate_name="agg-c", kind="LB",
                                        reason_code="lb_too_early",
                                        reasons=_stored([reasons.lb_too_early("agg-c", 120.0)]),
                                        ran_at=_at(0), next_run_at=_at(2), created_at=_at(0)))
        session.add(models.CycleOutcome(cycle_id=done.id, aggregate_name="agg-c", kind="NOOP",
                                        reason_code="no_marker", reasons=_stored([reasons.no_marker("agg-c")]),
                                        ran_at=_at(0), created_at=_at(0)))
        session.flush()
        session.add_all([
            models.Event(id="ev-1", aggregate_name="agg-a", kind="HA", marker="HA", status="completed",
                         state="healthy", cycle_id=done.id, snapshot_id=snapshot_id, created_at=_at(0),
                         updated_at=_at(1), finished_at=_at(1), reason_code="recommendations_final",
                         reasons=_stored([reasons.no_filters(), reasons.recommendations_final({"succeeded": 1})])),
            models.Event(id="ev-2", aggregate_name="agg-b", kind="LB", marker="LB", status="manual_action",
                         cycle_id=done.id, created_at=_at(2), updated_at=_at(2), reason_code="overloaded",
                         reasons=_stored(reasons.overloaded("agg-b", [(h, (("cpu", 95.0, 90.0),))
                                                                      for h in HOT_HOSTS]))),
            models.Event(id="ev-3", aggregate_name="agg-a", kind="HA", marker="HA", status="executing",
                         cycle_id=done.id, created_at=_at(3), updated_at=_at(3), reason_code="no_target",
                         reasons=_stored([NO_TARGET]), no_target=[{
                             "vm_id": "vm-9", "source_host": "cmp-1", "code": "no_target",
                             "message": NO_TARGET_MESSAGE,
                             "rejected_hosts": [{"host": "cmp-2", "check": "ServerGroupAntiAffinityFilter",
                                                 "vms": 1}],
                             "more_hosts": 0}]),
        ])
        session.flush()
        session.add_all([
            models.Recommendation(id="rec-done", event_id="ev-1", action="evacuate", vm_id="vm-1",
                                  source_host="cmp-1", target_host="cmp-2", ha_round=1, status="succeeded",
                                  attempts=1, created_at=_at(0), updated_at=_at(1)),
            models.Recommendation(id="rec-manual", event_id="ev-2", action="live_migrate", vm_id="vm-2",
                                  source_host="cmp-3", target_host="cmp-4", status="manual_action",
                                  load_calculation=LOAD, created_at=_at(2), updated_at=_at(2)),
            models.Recommendation(id="rec-auto", event_id="ev-2", action="live_migrate", vm_id="vm-3",
                                  source_host="cmp-3", target_host="cmp-4", status="created",
                                  load_calculation=LOAD, created_at=_at(2, ), updated_at=_at(2)),
            models.Recommendation(id="rec-running", event_id="ev-3", action="evacuate", vm_id="vm-locked",
                                  source_host="cmp-2", target_host="cmp-1", ha_round=1, status="running",
                                  attempts=1, created_at=_at(3), updated_at=_at(3)),
        ])
        session.flush()
        session.add_all([
            models.Operation(recommendation_id="rec-done", kind="start", attempt=1, created_at=_at(0)),
            models.Operation(recommendation_id="rec-done", kind="execute", attempt=1, message="evacuate",
                             created_at=_at(0)),
            models.Operation(recommendation_id="rec-done", kind="success", attempt=1, duration_s=42.0,
                             created_at=_at(1)),
            models.VMState(vm_id="vm-locked", locked=True, lock_owner="executor:rec-running", locked_at=_at(3),
                           desired_host="cmp-1", observed_host="cmp-2", observed_status="ACTIVE",
                           transitional_state="migrating", deadline_at=_at(363), updated_at=_at(3)),
            models.VMState(vm_id="vm-1", locked=False, observed_host="cmp-2", observed_status="ACTIVE",
                           updated_at=_at(1)),
            models.HypervisorState(host="cmp-1", state="fenced", reason="fenced by ipmi", event_id="ev-1",
                                   fencing=[{"fencer": "ipmi", "confirmed": True, "message": "power off",
                                             "started_at": 1764583200.0, "finished_at": 1764583203.0}],
                                   fenced_at=_at(0), state_since=_at(0), updated_at=_at(0)),
            models.VMHistory(vm_id="vm-1", action="evacuate", status="succeeded", recommendation_id="rec-done",
                             started_at=_at(0), finished_at=_at(1), duration_s=60.0),
        ])
    return snapshot_id


class CastRecorder:
    """Stands in for ``EngineAPI``: remembers each cast (method, kwargs)."""

    def __init__(self):
        self.casts = []

    def cycle_now(self, ctxt):
        self.casts.append(("cycle_now", {}))

    def run_recommendation(self, ctxt, recommendation_id):
        self.casts.append(("run_recommendation", {"recommendation_id": recommendation_id}))

    def cancel_recommendation(self, ctxt, recommendation_id):
        self.casts.append(("cancel_recommendation", {"recommendation_id": recommendation_id}))


def make_conf(auth_strategy="noauth", overrides=None):
    """A private ConfigOpts with every KeyVRM group, parsed from no files.

    With ``keystone`` auth, keystonemiddleware's options are registered and point at an
    identity URI that is never contacted (tests patch token validation).
    """
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    for group, options in middleware_opts.list_opts_cors() + middleware_opts.list_opts_http_proxy_to_wsgi():
        conf.register_opts(options, group=group)
    if auth_strategy == "keystone":
        for group, options in auth_token.list_opts():
            conf.register_opts(options, group=group)
        overrides = dict(overrides or {})
        overrides.setdefault(("keystone_authtoken", "www_authenticate_uri"), "http://keystone.invalid/identity")
    conf([], project="keyvrm", default_config_files=[])
    conf.set_override("auth_strategy", auth_strategy, "api")
    for (group, name), value in (overrides or {}).items():
        conf.set_override(name, value, group)
    return conf


def make_app(db, auth_strategy="noauth", rpc=None, overrides=None):
    """The real WSGI pipeline over ``db``; ``overrides``: {(group, option): value}."""
    return api_app.build_app(make_conf(auth_strategy, overrides), db=db, rpc=rpc or CastRecorder())
