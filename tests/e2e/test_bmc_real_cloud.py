"""BMC fencing end to end on real Nova: every compute has an IPMI BMC that really cuts its power.

One deployment for the module (``Deployment(bmc=True)``: the BMC farm, KeyVRM with the
BMCs' credentials file and BMC fencing on, every other option shipped), tests in file
order. Four computes in the HA aggregate ``agg-ha`` (storage shared): two servers on
compute000, one on compute001, one on compute002. ``ipmitool`` (another IPMI implementation than the
farm's pyghmi and KeyVRM's) plays the operator's hand on a BMC. compute000's power loss
and compute001's cut-off happen at one moment (``power_loss_and_cut_off``): their two
tests wait at the same time.
"""

import datetime
import os
import signal
import subprocess
import time

import pytest
import redis

from keyvrm.conf import heartbeat as heartbeat_conf
from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.heartbeat import sentinel
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.functional.harvest import conftest as peers
from tests.nova import conftest as nova_helpers

AGGREGATE = "agg-ha"
# Power off -> every server ACTIVE elsewhere: the stall guard of test_ha_real_cloud (CI's
# parallel load once made it 58 s). That the host was condemned on its BMC's word, before
# Nova's verdict, is checked on the fencing record's times; the speed is the benchmark's.
RECOVERY_BUDGET_S = 90.0
ENGINE_PAUSE_S = 20.0
REDIS_PROCESSES = ("master", "replica", "sentinel-0", "sentinel-1", "sentinel-2")


def _default(opts, name):
    return next(opt.default for opt in opts if opt.name == name)


HEARTBEAT_STALE_S = _default(heartbeat_conf.opts, "stale_after")  # the shipped defaults the engine runs
HEARTBEAT_INTERVAL_S = _default(heartbeat_conf.opts, "interval")
# Redis unreachable until a cycle has judged the region without its heartbeats (one requested as
# the outage begins: the period's may be 60 s away), and for at least twice the stale time, so
# that every heartbeat is stale when Redis answers again.
REDIS_OUTAGE_MIN_S = 2.0 * HEARTBEAT_STALE_S


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    """The deployment with BMCs; KeyVRM not yet enabled."""
    nova_helpers.require_nova()
    peers.require_binary("ipmitool")
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e-bmc"), pg_databases(), computes=4, bmc=True)
    try:
        deployed.start()
        deployed.driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        deployed.hosts = deployed.cloud.endpoints["hosts"]
        yield deployed
    finally:
        deployed.stop()


@pytest.fixture(scope="module")
def ha_region(region):
    """The region with servers, KeyVRM enabled and the aggregate under HA (NOOP off, storage shared)."""
    hosts = region.hosts
    nova_helpers.aggregate(region.driver, AGGREGATE, hosts)
    region.servers = {nova_helpers.boot(region.driver, "vm-%d" % i, host): host
                      for i, host in enumerate([hosts[0]] * 2 + [hosts[1], hosts[2]])}
    metrics_feeder.feed(region.tsdb_url, {h: (20.0, 30.0, 5.0) for h in hosts},
                        {s: (0.2, 256.0, 1.0) for s in region.servers})
    region.openstack("config", "set", "--enabled", "true")
    region.openstack("cycle", "run")  # the first enabled cycle brings Nova's aggregates in
    region.wait(lambda: any(a["name"] == AGGREGATE for a in region.api("/aggregates")["aggregates"]), 90,
                "the aggregate did not appear")
    region.openstack("aggregate", "set", AGGREGATE, "--marker", "HA", "--no-noop", "--storage-mode", "shared")
    return region


def _ipmitool(region, host, action):
    """``ipmitool ... power ACTION`` on ``host``'s BMC with the credentials KeyVRM has; its output."""
    bmc = region.bmc_credentials[host]
    result = subprocess.run([peers.require_binary("ipmitool"), "-I", "lanplus", "-H", bmc.address,
                             "-p", str(bmc.port), "-U", bmc.username, "-P", bmc.password.reveal(),
                             "power", action], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, (host, action, result.stderr)
    return result.stdout.strip()


def _power(region, host):
    """What ``host``'s BMC reads over IPMI: on or off."""
    return _ipmitool(region, host, "status").rsplit(" ", 1)[-1]


def _heartbeat(region, host):
    """``host``'s last heartbeat in Redis (POSIX s), as KeyVRM's heartbeat source reads it."""
    client = sentinel.connect(region.sentinels.sentinels, peers.SERVICE, socket_timeout_s=1.0)
    return sentinel.SentinelHeartbeatDriver(client, peers.SERVICE, "keyvrm:heartbeat:").last_heartbeats().get(host)


def _service(region, host):
    """``host``'s nova-compute service as Nova's API shows it now."""
    return nova_helpers.nova(region.driver, "GET", "/os-services?binary=nova-compute&host=%s" % host,
                             "2.53")["services"][0]


def _posix(nova_time):
    """A UTC time text, Nova's (``2026-12-04T20:28:13.000000``) or KeyVRM's (ISO 8601, ``...Z``), as POSIX seconds."""
    return datetime.datetime.fromisoformat(nova_time).replace(tzinfo=datetime.timezone.utc).timestamp()


def _server(region, server_id):
    return nova_helpers.server(region.driver, server_id)


def _servers_on(region, host):
    return [s for s, h in region.servers.items() if h == host]


def _evacuations(region):
    return [r for r in region.api("/recommendations?limit=200")["recommendations"] if r["action"] == "evacuate"]


def _state(region, host):
    """``host``'s state in KeyVRM's API."""
    return region.api("/hypervisors/%s" % host)["hypervisor"]["state"]


def _event_ids(region):
    return {e["id"] for e in region.api("/events?aggregate=%s&limit=100" % AGGREGATE)["events"]}


def _warnings_about(region, host, seen):
    """(event, reason) of each new warning HA event of the aggregate with a reason about ``host``."""
    events = region.api("/events?aggregate=%s&kind=HA&state=warning&limit=50" % AGGREGATE, "1.1")["events"]
    return [(e, r) for e in events if e["id"] not in seen for r in e["reasons"] if r["host"] == host]


def _cycle_without_heartbeats(region, after_id):
    """The first completed cycle after ``after_id`` whose heartbeat source failed (no heartbeat judged), else None."""
    return next((c for c in region.api("/cycles?limit=10")["cycles"]
                 if c["id"] > after_id and c["status"] == "completed" and c["reason_code"] == "sources_failed"
                 and "heartbeat failed" in c["reason"]), None)


def _fenced_so_far(region):
    """What fencing has done in the region: KeyVRM's host states, Nova's forced-down services, IPMI power-offs."""
    return {"states": {h: region.api("/hypervisors/%s" % h)["hypervisor"]["state"] for h in region.hosts},
            "forced_down": sorted(h for h in region.hosts if _service(region, h)["forced_down"]),
            "ipmi_power_offs": {h: region.machine("state", h)["ipmi_power_offs"] for h in region.hosts},
            "evacuations": len(_evacuations(region))}


def _untouched(region, host):
    """``host`` is as before: KeyVRM's state ok, Nova's service up and enabled, power on, no power-off asked."""
    service = _service(region, host)
    assert region.api("/hypervisors/%s" % host)["hypervisor"]["state"] == "ok"
    assert (service["state"], service["status"], service["forced_down"]) == ("up", "enabled", False), service
    assert region.machine("state", host)["ipmi_power_offs"] == 0


def test_a_bmc_reads_the_power_it_cuts_and_the_host_follows_it(region):
    host = region.hosts[-1]
    assert _power(region, host) == "on"

    assert _ipmitool(region, host, "off") == "Chassis Power Control: Down/Off"
    region.wait(lambda: _power(region, host) == "off", 30, "the BMC did not read off")
    cut_s = time.time()
    assert host in region.cloud.stopped_computes()
    last_report = _service(region, host)["updated_at"]
    # a report interval after its last report and a heartbeat interval after the cut: a running host would have both
    time.sleep(max(0.0, _posix(last_report) + e2e.NOVA_TIMERS[1] + 1 - time.time(),
                   cut_s + HEARTBEAT_INTERVAL_S + 1 - time.time()))
    assert _service(region, host)["updated_at"] == last_report
    assert _heartbeat(region, host) <= cut_s
    state = region.machine("state", host)
    assert (state["power"], state["heartbeat"], state["ipmi_power_offs"]) == ("off", False, 1)

    assert _ipmitool(region, host, "on") == "Chassis Power Control: Up/On"
    region.wait(lambda: _power(region, host) == "on", 30, "the BMC did not read on")
    on_s = time.time()
    assert host not in region.cloud.stopped_computes()
    region.wait(lambda: _service(region, host)["updated_at"] != last_report, e2e.NOVA_TIMERS[1] + 5,
                "nova-compute did not report after power on")
    region.wait(lambda: _heartbeat(region, host) > on_s, HEARTBEAT_INTERVAL_S + 5,
                "the heartbeat did not come back after power on")


def test_a_sentinel_failover_and_a_redis_outage_fence_no_host(ha_region):
    region, sentinels = ha_region, ha_region.sentinels
    before = _fenced_so_far(region)

    started_s = time.time()
    old_master = sentinels.master_address()
    sentinel_port = int(sentinels.sentinels[0].rsplit(":", 1)[1])
    redis.Redis(port=sentinel_port, socket_timeout=5).execute_command("SENTINEL", "FAILOVER", peers.SERVICE)
    region.wait(lambda: sentinels.master_address() not in (None, old_master), 30, "the replica was not promoted")
    promoted_s = time.time()
    region.wait(lambda: all(_heartbeat(region, h) > promoted_s for h in region.hosts), HEARTBEAT_INTERVAL_S + 15,
                "the heartbeats did not reach the promoted master")

    failover_s = time.time() - started_s
    paused = [sentinels.processes[name].pid for name in REDIS_PROCESSES]
    newest = region.newest_cycle()
    outage_began = time.monotonic()
    for pid in paused:
        os.kill(pid, signal.SIGSTOP)  # every Redis server and Sentinel stops answering
    try:
        region.openstack("cycle", "run")
        blind = region.wait(lambda: _cycle_without_heartbeats(region, newest), 120,
                            "no cycle completed without the heartbeats during the Redis outage")
        time.sleep(max(0.0, outage_began + REDIS_OUTAGE_MIN_S - time.monotonic()))
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
    outage_s = time.monotonic() - outage_began
    back_s = time.time()
    region.wait(lambda: all((_heartbeat(region, h) or 0) > back_s for h in region.hosts), 60,
                "the heartbeats did not come back after the outage")
    newest = region.newest_cycle()
    region.openstack("cycle", "run")
    region.cycle_after(newest, 90, "no cycle completed after the outage")
    print("failover and the heartbeats on the new master %.1f s, outage %.1f s (cycle %s without heartbeats), "
          "heartbeats back and a cycle %.1f s" % (failover_s, outage_s, blind["id"], time.time() - back_s))

    assert _fenced_so_far(region) == before


def test_an_engine_paused_a_tsdb_unreachable_and_an_agent_restarted_at_once_fence_no_host(ha_region):
    # The other false positives at one moment: keyvrm-engine SIGSTOPped 20 s, VictoriaMetrics
    # SIGSTOPped (unreachable) as long, one host's heartbeat agent restarted (silent 4 s).
    region = ha_region
    before = _fenced_so_far(region)
    newest = region.newest_cycle()
    paused = [region.services["keyvrm-engine"].pid, region.tsdb_process.pid]
    restarted = region.hosts[3]
    for pid in paused:
        os.kill(pid, signal.SIGSTOP)
    try:
        region.machine("hang", restarted)  # the agent stops...
        time.sleep(4.0)
        region.machine("resume", restarted)  # ...and starts again, within the stale time
        time.sleep(ENGINE_PAUSE_S - 4.0)
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
    resumed_s = time.time()
    region.wait(lambda: (_heartbeat(region, restarted) or 0) > resumed_s - HEARTBEAT_INTERVAL_S, 30,
                "the restarted agent does not write")
    region.openstack("cycle", "run")
    region.cycle_after(newest, 120, "no cycle completed after the pause")
    assert _fenced_so_far(region) == before


@pytest.fixture(scope="module")
def power_loss_and_cut_off(ha_region):
    """At one moment compute000 loses power through its BMC and compute001 is cut off; compute001 joined again after.

    Cut off: its heartbeat stops, its nova-compute reports on, its BMC answers nothing (a
    partition, or a hang with the BMC's network down). The two share the moment so that
    the waits of both tests (Nova's service_down_time, the heartbeat's stale time) overlap.
    Yields ``time.monotonic()`` of the power-off.
    """
    region, (victim, cut) = ha_region, ha_region.hosts[:2]
    region.events_before_cut = _event_ids(region)
    region.machine("unreachable", cut)
    region.machine("hang", cut)
    try:
        assert _ipmitool(region, victim, "off") == "Chassis Power Control: Down/Off"
        cut_at = time.monotonic()
        # its nova-compute has stopped: Nova calls it down service_down_time after this last report
        region.victim_last_report_s = _posix(_service(region, victim)["updated_at"])
        yield cut_at
    finally:
        region.machine("reachable", cut)
        region.machine("resume", cut)


def test_a_host_that_loses_power_is_fenced_through_its_bmc_and_its_servers_run_elsewhere(
        ha_region, power_loss_and_cut_off):
    region, victim = ha_region, ha_region.hosts[0]
    victims = _servers_on(region, victim)

    region.wait(lambda: all(_server(region, s)["status"] == "ACTIVE"
                            and _server(region, s)["OS-EXT-SRV-ATTR:host"] != victim for s in victims),
                240, "the servers of the powered-off host were not ACTIVE elsewhere")
    recovered_s = time.monotonic() - power_loss_and_cut_off
    print("power off -> all %d servers ACTIVE elsewhere: %.1f s" % (len(victims), recovered_s))
    assert recovered_s <= RECOVERY_BUDGET_S, recovered_s

    region.wait(lambda: _state(region, victim) == "maintenance", 60, "the powered-off host did not end in maintenance")
    state = region.openstack("hypervisor", "show", victim)
    assert state["state"] == "maintenance", state
    # KeyVRM forced the service down before Nova would have called it down on its own
    novas_verdict_s = region.victim_last_report_s + e2e.NOVA_TIMERS[0]
    (nova_fence,) = [step for step in state["fencing"] if step["fencer"] == "nova"]
    forced_down_s = _posix(nova_fence["started_at"])  # ISO 8601 since API 1.12
    assert nova_fence["confirmed"] and forced_down_s < novas_verdict_s, (nova_fence, novas_verdict_s)
    print("forced down %.1f s before Nova's own verdict" % (novas_verdict_s - forced_down_s))
    power_fences = [step for step in state["fencing"] if step["fencer"] == "ipmi"]
    assert power_fences and all(step["confirmed"] for step in power_fences), state["fencing"]
    assert power_fences[-1]["message"] in ("power already off", "power off confirmed"), power_fences
    assert _power(region, victim) == "off"
    assert sorted(r["vm_id"] for r in _evacuations(region)) == sorted(victims)  # one per server
    assert {r["status"] for r in _evacuations(region)} == {"succeeded"}


def test_a_host_cut_off_with_its_bmc_is_left_alone_and_a_warning_says_why(ha_region, power_loss_and_cut_off):
    region, host = ha_region, ha_region.hosts[1]
    servers = _servers_on(region, host)

    warned = region.wait(lambda: _warnings_about(region, host, region.events_before_cut), HEARTBEAT_STALE_S + 90,
                         "no warning about the cut-off host")
    region.cycle_after(min(e["cycle_id"] or 0 for e, _ in warned), 90, "no cycle after the first warning")
    print("cut off -> warned (%s), then a cycle: %.1f s"
          % (sorted({r["code"] for _, r in warned}), time.monotonic() - power_loss_and_cut_off))
    assert time.monotonic() - power_loss_and_cut_off > HEARTBEAT_STALE_S
    _untouched(region, host)
    assert all(_server(region, s)["status"] == "ACTIVE" and _server(region, s)["OS-EXT-SRV-ATTR:host"] == host
               for s in servers)
    assert not [r for r in _evacuations(region) if r["vm_id"] in servers]
    state = region.machine("state", host)
    assert (state["power"], state["heartbeat"], state["answering"]) == ("on", False, False), state


def test_a_host_that_hangs_with_nova_compute_reporting_is_powered_off_through_its_bmc_and_evacuated(
        ha_region, power_loss_and_cut_off):
    region, host = ha_region, ha_region.hosts[2]
    servers = [s["id"] for s in nova_helpers.nova(region.driver, "GET", "/servers/detail?all_tenants=1&host=%s" % host,
                                                  "2.53")["servers"]]
    assert servers
    hung_at = time.monotonic()
    region.machine("hang", host)  # its heartbeat stops; its power and nova-compute stay on
    metrics_feeder.feed_target_down(region.tsdb_url, host)  # and the TSDB finds its exporter down

    region.wait(lambda: _state(region, host) == "maintenance", 120, "the hung host was not fenced and evacuated")
    state = region.openstack("hypervisor", "show", host)
    assert state["state"] == "maintenance", state
    region.wait(lambda: all(_server(region, s)["status"] == "ACTIVE" and _server(region, s)["OS-EXT-SRV-ATTR:host"]
                            != host for s in servers), 60, "the hung host's servers were not ACTIVE elsewhere")
    print("hang -> all %d servers ACTIVE elsewhere: %.1f s" % (len(servers), time.monotonic() - hung_at))
    fencers = [(step["fencer"], step["confirmed"], step["message"]) for step in state["fencing"]]
    assert fencers[0] == ("ipmi", True, "power off confirmed"), fencers  # it was on: KeyVRM cut the power
    assert fencers[-1][:2] == ("nova", True), fencers
    assert _power(region, host) == "off" and region.machine("state", host)["ipmi_power_offs"] == 1
    assert host in region.cloud.stopped_computes()
    assert sorted(r["vm_id"] for r in _evacuations(region) if r["source_host"] == host) == sorted(servers)
