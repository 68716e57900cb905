"""BMC fencing end to end on real Nova: every compute has an IPMI BMC that really cuts its power.

One deployment for the module (``Deployment(bmc=True)``: the BMC farm, KeyVRM with the
BMCs' credentials file and BMC fencing on, every other option shipped), tests in file
order, four computes. ``ipmitool`` (another IPMI implementation than the
farm's pyghmi and KeyVRM's) plays the operator's hand on a BMC.
"""

import subprocess
import time

import pytest

from keyvrm.conf import heartbeat as heartbeat_conf
from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.heartbeat import sentinel
from tests.e2e import deployment as e2e
from tests.functional.harvest import conftest as peers
from tests.nova import conftest as nova_helpers


def _default(opts, name):
    return next(opt.default for opt in opts if opt.name == name)


HEARTBEAT_INTERVAL_S = _default(heartbeat_conf.opts, "interval")  # the shipped default the agents run


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


def test_a_bmc_reads_the_power_it_cuts_and_the_host_follows_it(region):
    host = region.hosts[-1]
    assert _power(region, host) == "on"

    assert _ipmitool(region, host, "off") == "Chassis Power Control: Down/Off"
    region.wait(lambda: _power(region, host) == "off", 30, "the BMC did not read off")
    cut_s = time.time()
    assert host in region.cloud.stopped_computes()
    last_report = _service(region, host)["updated_at"]
    time.sleep(e2e.NOVA_TIMERS[1] + 1)  # a report interval: a running compute would have reported
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
