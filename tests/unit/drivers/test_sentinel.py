"""The Sentinel heartbeat driver's key layout and the agent's recovery, on the local Redis.

The Sentinel part (master discovery, failover) is in tests/functional/harvest/; here
the driver gets a plain client of the Redis every machine runs on 127.0.0.1:6379.
"""

import logging
import os
import uuid

import pytest
import redis
from redis import backoff
from redis import retry

from keyvrm.cmd import heartbeat_agent
from keyvrm.cmd.heartbeat_agent import HeartbeatAgent
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.heartbeat import sentinel
from keyvrm.drivers.heartbeat.sentinel import SentinelHeartbeatDriver


class Clock:
    def __init__(self, now_s):
        self.now_s = now_s

    def time(self):
        return self.now_s

    def sleep(self, seconds):
        self.now_s += seconds


def _dead_store():
    return redis.Redis(host="127.0.0.1", port=9, socket_connect_timeout=0.5,
                       retry=retry.Retry(backoff.NoBackoff(), 0))


@pytest.fixture
def client():
    """A client of the local Redis; the test's keys live under a fresh prefix, deleted after."""
    conn = redis.Redis(host="127.0.0.1", port=6379, socket_timeout=2, decode_responses=True)
    try:
        conn.ping()
    except redis.RedisError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Redis on 127.0.0.1:6379 is required in CI: %s" % exc)
        pytest.skip("no Redis on 127.0.0.1:6379")
    conn.test_prefix = "keyvrm-test:%s:hb:" % uuid.uuid4().hex[:8]
    yield conn
    keys = list(conn.scan_iter(match=conn.test_prefix + "*"))
    if keys:
        conn.delete(*keys)
    conn.close()


def test_heartbeats_are_read_back_per_host_with_their_ttl(client):
    prefix = client.test_prefix
    with client.pipeline(transaction=False) as pipe:
        for i in range(2500):
            sentinel.write_heartbeat(pipe, prefix, "cmp-%05d" % i, 1700000000.0 + i, ttl_s=600)
        pipe.execute()
    client.set(prefix + "garbled", "not-a-time")
    driver = SentinelHeartbeatDriver(client, "svc", prefix)
    beats = driver.last_heartbeats()
    assert len(beats) == 2500 and beats["cmp-00007"] == 1700000007.0
    assert 590 < client.ttl(prefix + "cmp-00007") <= 600
    # SCAN pages of ~1,000 keys: a handful of round trips, not one per host.
    assert driver.request_count <= 10


def test_a_store_that_does_not_answer_is_unavailable():
    dead = _dead_store()
    with pytest.raises(DriverUnavailable, match="heartbeat store unavailable .service 'svc'.: ConnectionError"):
        SentinelHeartbeatDriver(dead, "svc").last_heartbeats()


def test_sentinel_addresses_must_be_host_and_port():
    assert sentinel.parse_address("10.0.0.5:26379") == ("10.0.0.5", 26379)
    assert sentinel.parse_address("[fd00::1]:26379") == ("fd00::1", 26379)
    with pytest.raises(ValueError, match="not host:port"):
        sentinel.parse_address("sentinel-1")


def test_agent_keeps_beating_through_a_store_outage_with_a_fresh_client(client, caplog):
    caplog.set_level(logging.INFO)
    clients = [_dead_store(), client]
    agent = HeartbeatAgent(lambda: clients.pop(0), "cmp-1", key_prefix=client.test_prefix,
                           interval_s=5, ttl_s=60, service_name="svc", clock=Clock(1700000000.0))
    assert agent.beat() is False
    assert "heartbeat of cmp-1 not written" in caplog.text
    assert agent.beat() is True
    assert client.get(client.test_prefix + "cmp-1") == "1700000000.000"
    assert (agent.written, agent.failed) == (1, 1)
    assert "written again after 1 failed attempt" in caplog.text


def test_plain_redis_driver_and_agent_with_host_flag_share_one_redis(client, tmp_path):
    config = tmp_path / "agent.conf"
    config.write_text("[heartbeat]\ndriver = redis\nredis_url = redis://127.0.0.1:6379/0\n"
                      "key_prefix = %s\nhost = from-config\n" % client.test_prefix)
    conf = heartbeat_agent.parse_conf(["--config-file", str(config), "--host", "cmp-cli"])
    agent = HeartbeatAgent.from_conf(conf, clock=Clock(1700000123.0), host=conf.host)
    assert agent.host == "cmp-cli" and agent.service_name == "redis 127.0.0.1:6379"
    assert agent.beat() is True
    assert SentinelHeartbeatDriver.from_conf(conf).last_heartbeats() == {"cmp-cli": 1700000123.0}
    without_flag = heartbeat_agent.parse_conf(["--config-file", str(config)])
    assert HeartbeatAgent.from_conf(without_flag, host=without_flag.host).host == "from-config"


def test_an_unreachable_plain_redis_is_unavailable_without_its_password(tmp_path):
    config = tmp_path / "agent.conf"
    config.write_text("[heartbeat]\ndriver = redis\nredis_url = redis://:s3cr3t@127.0.0.1:9/0\n")
    conf = heartbeat_agent.parse_conf(["--config-file", str(config)])
    with pytest.raises(DriverUnavailable) as caught:
        SentinelHeartbeatDriver.from_conf(conf).last_heartbeats()
    assert "redis 127.0.0.1:9" in str(caught.value) and "s3cr3t" not in str(caught.value)
