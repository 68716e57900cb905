"""Per-aggregate slices: a slice plans as the whole region does, and the parts give the region back."""

import dataclasses

import pytest

from keyvrm.harvest import assemble
from keyvrm.harvest import sources
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import slices
from keyvrm.model import snapshot as m
from keyvrm.planning import ha
from keyvrm.planning import lb
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r

APP = settings.AppConfig(enabled=True)
AGG = settings.AggregateConfig(name="x", marker="HA+LB", no_op_mode=False, storage_mode="shared",
                               lb_overload_threshold=50, lb_target_max_load=45)


def _region(seed):
    region = generator.generate({"hosts": 40, "hosts_per_aggregate": 10, "hosts_per_rack": 5},
                                {"vms_per_host": 8, "server_group_fraction": 0.3, "cpu_util": 0.5},
                                r.RegionOptions(seed=seed))
    faults.host_dies(region, {"hosts": ["cmp-00012"]})
    faults.overload(region, {"hosts": ["cmp-00003", "cmp-00025"], "ramp_s": 1.0})
    region.clock.advance(300.0)
    return region


def _snapshot(seed=3):
    """A harvested region where hosts share aggregates, one host is in none, and groups span aggregates."""
    region = _region(seed)
    snap = assemble.harvest(sources.sources_for_sim(simulated.for_region(region)), APP, now_s=region.now)
    aggregates = list(snap.aggregates)
    # cmp-00011..13 are in agg-002 and also in agg-001; cmp-00040 is in no aggregate
    aggregates[0] = m.replace(aggregates[0], hosts=aggregates[0].hosts + ("cmp-00011", "cmp-00012", "cmp-00013"))
    aggregates[3] = m.replace(aggregates[3], hosts=tuple(h for h in aggregates[3].hosts if h != "cmp-00040"))
    hypervisors = tuple(m.replace(h, aggregates=("agg-002", "agg-001")) if h.name in ("cmp-00011", "cmp-00012",
                                                                                      "cmp-00013")
                        else m.replace(h, aggregates=()) if h.name == "cmp-00040" else h
                        for h in snap.hypervisors)
    # one anti-affinity group with a member in agg-001 and one in agg-003
    a, b = next(v for v in snap.vms if v.host == "cmp-00002"), next(v for v in snap.vms if v.host == "cmp-00023")
    group = m.ServerGroup("sg-span", "span", m.ANTI_AFFINITY, (a.id, b.id))
    vms = tuple(m.replace(v, server_group_id="sg-span") if v.id in (a.id, b.id) else v for v in snap.vms)
    vms += (m.VM("no-host", "shelved", None, "p", m.Flavor("m1.small", 1, 2048)),)
    return m.replace(snap, aggregates=tuple(aggregates), hypervisors=hypervisors, vms=vms,
                     server_groups=snap.server_groups + (group,))


def test_the_stored_parts_give_back_exactly_the_whole_snapshot():
    snap = _snapshot()
    slicer = slices.Slicer(snap)
    region = codec.unpack(codec.pack(slicer.region_part()), codec.RegionPart)
    parts = {name: codec.unpack(codec.pack(slicer.part_of(name)), codec.AggregatePart)
             for name in slicer.aggregate_names()}
    assert slices.merge(region, parts) == snap
    # a host of two aggregates is stored in both slices, its home is the first aggregate
    assert "cmp-00012" in {h.name for h in parts["agg-001"].snapshot.hypervisors}
    assert "cmp-00012" in {h.name for h in parts["agg-002"].snapshot.hypervisors}
    assert {h.name for h in region.snapshot.hypervisors} == {"cmp-00040"}
    assert [v.id for v in region.snapshot.vms if v.host is None] == ["no-host"]


def test_a_slice_holds_its_hosts_their_vms_and_every_member_of_their_groups():
    snap = _snapshot()
    view = slices.Slicer(snap).slice_of("agg-003")
    hosts = {h.name for h in view.hypervisors}
    assert hosts == set(next(a for a in snap.aggregates if a.name == "agg-003").hosts)
    on_hosts = {v.id for v in snap.vms if v.host in hosts}
    span = next(g for g in view.server_groups if g.id == "sg-span")
    assert on_hosts < {v.id for v in view.vms} and set(span.members) <= {v.id for v in view.vms}
    assert {v.id for v in view.vms} - on_hosts <= {member for g in view.server_groups for member in g.members}
    assert {a.name for a in view.aggregates} == {"agg-003"}
    assert view.sources == snap.sources and view.taken_at == snap.taken_at


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_planning_an_aggregate_from_its_slice_gives_the_plan_of_the_whole_region(seed):
    snap = _snapshot(seed)
    slicer = slices.Slicer(snap)
    planned_something = False
    for name in slicer.aggregate_names():
        agg = dataclasses.replace(AGG, name=name)
        whole = _plans(snap, agg)
        assert _plans(slicer.slice_of(name), agg) == whole, name
        planned_something = planned_something or bool(whole[2] or whole[4])
    assert planned_something


def _plans(snap, agg):
    """Detection, an evacuation of cmp-00012 where the aggregate has it, and the LB plan."""
    detection = ha.detect_failures(snap, APP, agg.name, heartbeat_stale_after_s=30.0, now_s=snap.taken_at)
    hosts = next(a for a in snap.aggregates if a.name == agg.name).hosts
    evacuation = ha.plan_evacuation(snap, APP, agg, m.BusySet(), [h for h in ("cmp-00012",) if h in hosts],
                                    max_rejected_hosts=20)
    balancing = lb.plan_balancing(snap, APP, agg, now_s=snap.taken_at, max_rejected_hosts=20)
    return (detection.to_fence, detection.reasons, evacuation.moves, evacuation.reasons,
            balancing.moves, balancing.reasons)
