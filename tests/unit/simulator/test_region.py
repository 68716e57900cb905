"""Clock, heartbeats, compute-service liveness and host faults of the simulated region."""

import pytest

from keyvrm.drivers import errors
from keyvrm.drivers.fencing.base import POWER_OFF
from keyvrm.simulator import clock
from keyvrm.simulator import compute
from keyvrm.simulator import faults
from keyvrm.simulator import power
from keyvrm.simulator import region as r
from keyvrm.simulator import runner as runner_mod
from tests.unit.simulator.helpers import add_vm
from tests.unit.simulator.helpers import small_region


def test_clock_runs_callbacks_in_time_order_and_skips_cancelled():
    sim = clock.SimClock(start_s=0)
    seen = []
    sim.call_later(5, seen.append, "b")
    sim.call_later(1, seen.append, "a")
    sim.call_later(3, seen.append, "x").cancel()
    sim.run_until(4)
    assert seen == ["a"] and sim.now == 4
    sim.advance(10)
    assert seen == ["a", "b"] and sim.now == 14


def test_dead_host_heartbeat_stops_and_service_goes_down_after_service_down_time():
    region = small_region()
    host = region.hosts["cmp-1"]
    region.clock.advance(100)
    died_at = region.now
    faults.host_dies(region, {"hosts": ["cmp-1"]})
    last = region.last_heartbeat(host)
    assert died_at - 10 <= last <= died_at
    region.clock.advance(45)
    assert region.last_heartbeat(host) == last
    assert not region.service_is_down(host)  # within service_down_time
    region.clock.advance(30)
    assert region.service_is_down(host)
    assert region.now - region.last_heartbeat(region.hosts["cmp-2"]) <= 10


def test_partitioned_host_keeps_running_vms_and_its_bmc_answers_on():
    region = small_region()
    vm = add_vm(region, "vm-1", "cmp-1")
    faults.network_partition(region, {"hosts": ["cmp-1"]})
    region.clock.advance(120)
    host = region.hosts["cmp-1"]
    assert region.service_is_down(host) and vm.running
    assert region.now - region.last_heartbeat(host) > 100
    assert power.BMC(region).power_state("cmp-1") == "on"


def test_bmc_power_off_stops_the_host_after_a_delay():
    region = small_region()
    vm = add_vm(region, "vm-1", "cmp-1")
    bmc = power.BMC(region)
    bmc.power_off("cmp-1")
    assert bmc.power_state("cmp-1") == "on"
    region.clock.advance(10)
    assert bmc.power_state("cmp-1") == POWER_OFF and not vm.running


def test_recovered_host_reports_again_and_drops_evacuated_allocations():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    faults.host_dies(region, {"hosts": ["cmp-1"]})
    region.clock.advance(120)
    compute.Compute(region).evacuate("vm-1", "cmp-2")
    region.clock.advance(300)
    faults.host_recovers(region, {"hosts": ["cmp-1"]})
    region.clock.advance(20)
    host = region.hosts["cmp-1"]
    assert not region.service_is_down(host)
    assert region.now - region.last_heartbeat(host) <= 10
    assert host.used_vcpus == 0 and region.host_state(host) == r.HOST_UP


def test_real_time_runner_follows_the_wall_clock_at_its_speed():
    region = small_region()
    wall = [100.0]
    runner = runner_mod.RealTimeRunner(region, speed=60.0, wall=lambda: wall[0])
    faults.schedule(region, 90, "host_dies", {"hosts": ["cmp-1"]})
    wall[0] += 1.0
    runner.step()
    assert region.clock.elapsed_s == 60 and region.hosts["cmp-1"].powered
    wall[0] += 1.0
    runner.step()
    assert region.clock.elapsed_s == 120 and not region.hosts["cmp-1"].powered


def test_wall_time_while_keyvrm_is_busy_does_not_move_the_clock_unless_busy_too_long():
    region = small_region()
    wall, busy = [100.0], [True]
    runner = runner_mod.RealTimeRunner(region, speed=60.0, wall=lambda: wall[0], busy=lambda: busy[0],
                                       max_busy_wall_s=10.0)
    wall[0] += 2.0
    runner.step()
    assert region.clock.elapsed_s == 0 and runner.busy_wall_s == 2.0
    busy[0] = False
    wall[0] += 1.0
    runner.step()
    assert region.clock.elapsed_s == 60
    busy[0] = True
    for _ in range(13):  # a flow that never waits on the clock must not stop the region: the
        wall[0] += 1.0   # stretch is seen busy from its first step; 10 s later the wall counts again
        runner.step()
    assert region.clock.elapsed_s == 60 + 2 * 60 and runner.busy_wall_s == 2.0 + 11.0


def test_stopped_heartbeat_agent_goes_stale_while_compute_stays_up_until_restarted():
    region = small_region()
    host = region.hosts["cmp-1"]
    faults.heartbeat_stops(region, {"hosts": ["cmp-1"], "duration_s": 300})
    region.clock.advance(200)
    assert region.now - region.last_heartbeat(host) >= 200
    assert not region.service_is_down(host)
    region.clock.advance(150)
    assert region.now - region.last_heartbeat(host) <= 10


def test_a_ceph_outage_refuses_blocklist_reads_and_writes_until_it_ends():
    region = small_region()
    blocklist = power.Blocklist(region)
    faults.ceph_outage(region, {"duration_s": 60})
    with pytest.raises(errors.FencingError, match="Ceph monitors did not answer"):
        blocklist.add("10.0.0.1:0/0")
    with pytest.raises(errors.FencingError):
        blocklist.entries()
    region.clock.advance(61)
    blocklist.add("10.0.0.1:0/0")
    assert blocklist.entries() == ["10.0.0.1:0/0"]


def test_a_deleted_aggregate_leaves_nova_and_its_hosts_keep_running():
    region = small_region()
    faults.aggregate_deleted(region, {"aggregate": "agg-1"})
    assert region.aggregates == {} and region.hosts["cmp-1"].aggregates == []
    assert region.faults_fired[-1]["kind"] == "aggregate_deleted"
