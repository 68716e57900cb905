"""keyvrm-heartbeat-agent and the Sentinel heartbeat collector against real Redis Sentinels."""

import subprocess
import sys
import threading
import time

import pytest

from keyvrm.cmd.heartbeat_agent import HeartbeatAgent
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.heartbeat import sentinel
from keyvrm.drivers.heartbeat.sentinel import SentinelHeartbeatDriver
from tests.functional.harvest.conftest import SERVICE
from tests.functional.harvest.conftest import wait_for

PREFIX = "keyvrm:heartbeat:"


def _agent(cluster, host, interval_s=0.2):
    def client_factory():
        return sentinel.connect(cluster.sentinels, SERVICE, socket_timeout_s=0.5)
    return HeartbeatAgent(client_factory, host, key_prefix=PREFIX, interval_s=interval_s,
                          ttl_s=3600, service_name=SERVICE)


def _collector(cluster):
    return SentinelHeartbeatDriver(sentinel.connect(cluster.sentinels, SERVICE, socket_timeout_s=0.5),
                                   SERVICE, PREFIX)


def _beats_after(collector, host, since_s):
    try:
        at = collector.last_heartbeats().get(host)
    except DriverUnavailable:
        return None
    return at if at is not None and at > since_s else None


def test_agent_and_collector_carry_on_after_a_sentinel_failover(sentinel_set):
    agent = _agent(sentinel_set, "cmp-1")
    stop = threading.Event()
    runner = threading.Thread(target=agent.run, args=(stop,), daemon=True)
    runner.start()
    try:
        collector = _collector(sentinel_set)
        first = wait_for(lambda: _beats_after(collector, "cmp-1", 0), 10, "first heartbeat not read")
        assert abs(first - time.time()) < 5
        killed_at = time.time()
        sentinel_set.kill("master")
        # The replica is promoted; the agent writes there, the same collector reads it there.
        promoted = wait_for(lambda: sentinel_set.master_address() == ("127.0.0.1", sentinel_set.replica_port),
                            20, "replica was not promoted")
        assert promoted
        after = wait_for(lambda: _beats_after(collector, "cmp-1", killed_at + 0.5), 20,
                         "no heartbeat written after the failover")
        assert after > killed_at
        assert agent.written > 1
    finally:
        stop.set()
        runner.join(5)
    assert not runner.is_alive()


def test_heartbeat_agent_command_writes_through_sentinel(shared_sentinel_set, tmp_path):
    conf = tmp_path / "agent.conf"
    conf.write_text("[heartbeat]\nsentinels = %s\nservice_name = %s\nhost = cmp-cli\ninterval = 1\n"
                    % (",".join(shared_sentinel_set.sentinels), SERVICE))
    started = time.time()
    agent = subprocess.Popen([sys.executable, "-m", "keyvrm.cmd.heartbeat_agent",
                              "--config-file", str(conf)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        at = wait_for(lambda: _beats_after(_collector(shared_sentinel_set), "cmp-cli", started - 1), 20,
                      "the agent's heartbeat was not read")
        assert at >= started - 1
    finally:
        agent.terminate()
        output = agent.communicate(timeout=10)[0]
    assert agent.returncode == 0, output


def test_sentinels_that_know_no_master_make_the_collector_unavailable(shared_sentinel_set):
    driver = SentinelHeartbeatDriver(
        sentinel.connect(shared_sentinel_set.sentinels, "no-such-service", socket_timeout_s=0.5),
        "no-such-service", PREFIX)
    with pytest.raises(DriverUnavailable, match="no Sentinel knows a master for service 'no-such-service'"):
        driver.last_heartbeats()
