"""What an operator reads when LB waits for metrics that postdate moves, in a region of 240 hosts.

Four aggregates of 60 hosts; Nova's records show many moves between hosts of different
aggregates (an operator's live migrations, evacuations, resizes), some into and out of
``agg-a``. The reasons of ``agg-a``'s LB run go through the engine's storage (at most
``PER_CODE`` entries a code, the rest counted) and the CLI's rendering.
"""

import re

from keyvrm.flows import events
from keyvrm.model import reason_list
from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import lb
from keyvrm.planning import reasons
from keyvrmclient.osc.v1 import event as cli_event
from keyvrmclient.osc.v1 import reasons as cli_reasons
from tests.unit.planning import builders as b

AGGREGATES = ("a", "b", "c", "d")
PER_AGGREGATE = 60
HOT = range(40)  # each aggregate's hosts 0-39 at 90% cpu/ram, 40-59 at 20%
WINDOW_S = 300.0


def _name(aggregate, i):
    return "cmp-%s-%03d" % (aggregate, i)


def _region():
    """The 240 hosts, the VMs of the hot ones, and Nova's records of moves between aggregates."""
    hosts, vms = [], []
    for agg in AGGREGATES:
        for i in range(PER_AGGREGATE):
            hot = i in HOT
            name = _name(agg, i)
            hosts.append(b.host(name, vcpus=40, ram_mb=81920, cpu_pct=90.0 if hot else 20.0,
                                ram_pct=90.0 if hot else 20.0, used_vcpus=36 if hot else 8,
                                used_ram_mb=73728 if hot else 16384, aggregates=("agg-" + agg,)))
            vms += [b.vm("%s-vm%d" % (name, k), name, vcpus=9, ram_mb=18432,
                         metrics=m.VMMetrics(cpu_cores=9, ram_mb=18432)) for k in range(4 if hot else 0)]
    records = []  # (status, type, source, dest, seconds before the snapshot)
    for i in range(30):  # agg-a's hot hosts 0-29 gave a VM to agg-b; agg-c filled every cool host of agg-a
        records.append(("completed", "live-migration", _name("a", i), _name("b", (7 * i) % 60), 20 + 8 * i))
        records.append(("done", "evacuation", _name("c", i), _name("a", 40 + i % 20), 25 + i))
    for i in range(30, 40):  # moves of agg-a's other hot hosts that left the VM where it was
        records.append(("error", "live-migration", _name("a", i), _name("d", i), 10))
    for i in range(60):  # moves between the other aggregates
        records.append(("confirmed", "resize", _name("b", i), _name("d", (i + 5) % 60), 15 + i))
        records.append(("running", "live-migration", _name("d", i), _name("c", (i + 11) % 60), 3))
    migrations = tuple(m.Migration(id=n, server_id="vm-%d" % n, migration_type=kind, status=status,
                                   source_host=source, dest_host=dest, created_at=b.NOW_S - ago - 5,
                                   updated_at=b.NOW_S - ago)
                       for n, (status, kind, source, dest, ago) in enumerate(records, 1))
    aggregates = tuple(m.Aggregate("agg-" + agg, n, hosts=tuple(_name(agg, i) for i in range(PER_AGGREGATE)))
                       for n, agg in enumerate(AGGREGATES, 1))
    return m.RegionSnapshot(region="r1", taken_at=b.NOW_S, aggregates=aggregates, hypervisors=tuple(hosts),
                            vms=tuple(vms), migrations=migrations, metrics_window_s=WINDOW_S,
                            sources={name: m.SourceStatus(name, True) for name in m.SOURCES})


def _plan_a(snap):
    config = AggregateConfig(name="agg-a", marker="LB", no_op_mode=False,
                             lb_weights={"cpu": 1.0, "ram": 1.0, "net": 0.0, "hugepages": 0.0})
    return lb.plan_balancing(snap, AppConfig(), config, m.BusySet(), max_rejected_hosts=100)


def _group(lines, code):
    """The lines of ``code``'s group in the CLI's rendering: its first line and the indented ones under it."""
    start = next(i for i, line in enumerate(lines) if line.startswith(code))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(cli_reasons.INDENT)), len(lines))
    return lines[start:end]


def test_an_aggregates_settling_hosts_are_its_own_listed_as_data_and_read_in_a_bounded_text():
    snap = _region()
    plan = _plan_a(snap)
    own = {_name("a", i) for i in range(PER_AGGREGATE)}
    others = re.compile(r"cmp-[bcd]-\d{3}")

    assert plan.moves == ()  # agg-a's 10 hot hosts still judged find every cool host settling
    assert all(r.host in own | {None} and not others.search(r.message) for r in plan.reasons)
    assert all(host in own for r in plan.reasons for host, _, _ in r.rejected_hosts or ())

    settling = [r for r in plan.reasons if r.code == reasons.METRICS_SETTLING]
    head, hosts = settling[0], settling[1:]
    assert head.host is None and dict(head.details)["hypervisors"] == 30
    assert {r.host for r in hosts} == {_name("a", i) for i in range(30)}
    moved_s_before = {r.host: dict(r.details)["moved_s_before"] for r in hosts}
    assert moved_s_before == {_name("a", i): 20 + 8 * i for i in range(30)}

    listed = reason_list.ReasonList.from_json(events.describe(plan.reasons)[1])
    shown = cli_reasons.ReasonsColumn([e.to_json() for e in listed.entries], listed.more()).human_readable()
    group = _group(shown.splitlines(), reasons.METRICS_SETTLING)
    assert group[0].startswith("metrics_settling: LB waits on 30 overloaded hypervisors of agg-a:")
    assert len(group[0]) < 300 and sum("metrics window" in line for line in group) == 1
    assert len(group) == 1 + (events.PER_CODE - 1) + 1 and group[-1] == cli_reasons.INDENT + "(+21 more)"
    assert all(len(line) < 60 for line in group[1:])  # 9 hosts with their seconds, the rest counted
    assert len("\n".join(group)) < 700

    no_target = cli_event.NoTargetColumn([events.no_target_entry(r) for r in plan.reasons
                                          if r.rejected_hosts is not None]).human_readable().splitlines()
    assert len(no_target) == 10 and all(len(line) < 300 and "(+" in line for line in no_target)
