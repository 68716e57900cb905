"""The heartbeat farm: every host's heartbeat through Sentinel from one process, a stopped host's no more."""

import os
import sys
import time

from keyvrm.drivers.heartbeat import sentinel
from tests.e2e import heartbeat_farm
from tests.functional.harvest.conftest import sentinel_set  # noqa: F401  the fixture
from tests.functional.harvest.conftest import SERVICE
from tests.functional.harvest.conftest import wait_for

PREFIX = "keyvrm:heartbeat:"
HOSTS = ("cmp-a", "cmp-b", "cmp-c")


def _heartbeats(cluster):
    client = sentinel.connect(cluster.sentinels, SERVICE, socket_timeout_s=0.5)
    return sentinel.SentinelHeartbeatDriver(client, SERVICE, PREFIX).last_heartbeats()


def test_a_farmed_host_that_is_stopped_writes_no_more_while_the_others_beat_on(sentinel_set, tmp_path):  # noqa: F811
    conf = tmp_path / "agent.conf"
    conf.write_text("[heartbeat]\nsentinels = %s\nservice_name = %s\ninterval = 1\n"
                    % (",".join(sentinel_set.sentinels), SERVICE))
    with open(tmp_path / "farm.log", "w") as log:
        farm = heartbeat_farm.FarmProcess(sys.executable, conf, log, dict(os.environ))
        try:
            agents = {host: farm.agent(host) for host in HOSTS}
            wait_for(lambda: set(HOSTS) <= set(_heartbeats(sentinel_set)), 20, "not every host beat")
            agents["cmp-b"].kill()
            stopped_s = time.time()
            assert agents["cmp-b"].poll() == 0 and agents["cmp-a"].poll() is None
            time.sleep(2.5)  # two intervals and a half
            beats = _heartbeats(sentinel_set)
            assert beats["cmp-b"] <= stopped_s
            assert beats["cmp-a"] > stopped_s + 1 and beats["cmp-c"] > stopped_s + 1
        finally:
            farm.stop()
    assert farm.process.returncode == 0, (tmp_path / "farm.log").read_text()
