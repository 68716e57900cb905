"""The heartbeat driver over Redis, behind Sentinel or plain, and the write side the agent uses.

Key layout (one string key per hypervisor, in the master's database 0)::

    keyvrm:heartbeat:<host>  ->  "<POSIX time of the last heartbeat, seconds, float>"

written with ``SET key value EX ttl`` by ``keyvrm-heartbeat-agent`` on ``<host>`` (the
Nova compute host name), every ``[heartbeat] interval`` seconds; the prefix is
``[heartbeat] key_prefix``. The TTL only removes hosts gone for good (see
``keyvrm.conf.heartbeat``). The reader returns the stored times; whether one is stale
is the planner's call against the cycle's time (``keyvrm.planning.ha.judge_host``).

With ``[heartbeat] driver = sentinel`` the master is found through the Sentinels on every
new connection (redis-py's ``Sentinel.master_for``), so after a failover the next command
reaches the promoted replica; with ``driver = redis`` one Redis at ``[heartbeat] redis_url``
is used. No master known to any Sentinel, or no answer, raises ``DriverUnavailable``.
Reading costs one SCAN round trip per 1,000 keys plus one MGET per 1,000 keys.
"""

from __future__ import annotations

from typing import Iterable, Optional

import redis
from redis import backoff
from redis import retry as redis_retry
from redis import sentinel as redis_sentinel

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.heartbeat import base

SCAN_BATCH = 1000

# What redis-py raises when the master cannot be found or reached (ReadOnlyError: a
# demoted master answered a write before the pool noticed the failover).
STORE_ERRORS = (redis_sentinel.MasterNotFoundError, redis.ConnectionError,
                redis.TimeoutError, redis.ReadOnlyError)


def parse_address(text: str) -> tuple:
    """``host:port`` -> (host, port); ``[v6]:port`` works too."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError("Sentinel address %r is not host:port" % text)
    return host.strip("[]"), int(port)


def _quick_retry():
    return redis_retry.Retry(backoff.ConstantBackoff(0.05), 1)


def connect(sentinels: Iterable[str], service_name: str, *, password: str = "",
            sentinel_password: str = "", socket_timeout_s: float = 2.0):
    """A client of the current master of ``service_name`` that follows failovers.

    A command is retried once after 50 ms (redis-py's default backs off for seconds):
    callers retry on their own schedule and must learn of an outage quickly.
    """
    sentinel_kwargs = {"socket_timeout": socket_timeout_s, "retry": _quick_retry()}
    if sentinel_password:
        sentinel_kwargs["password"] = sentinel_password
    manager = redis_sentinel.Sentinel([parse_address(a) for a in sentinels],
                                      sentinel_kwargs=sentinel_kwargs,
                                      socket_timeout=socket_timeout_s)
    return manager.master_for(service_name, password=password or None,
                              socket_timeout=socket_timeout_s, retry=_quick_retry(),
                              socket_connect_timeout=socket_timeout_s,
                              decode_responses=True)


def connect_url(url: str, *, socket_timeout_s: float = 2.0):
    """A client of the one Redis at ``url`` (``redis://[:password@]host:port/db``, or ``rediss://``)."""
    return redis.Redis.from_url(url, socket_timeout=socket_timeout_s, socket_connect_timeout=socket_timeout_s,
                                retry=_quick_retry(), decode_responses=True)


def client_from_conf(group):
    """The store client ``[heartbeat]`` describes: Sentinel's master, or one Redis (``driver = redis``)."""
    if group.driver == "redis":
        return connect_url(group.redis_url, socket_timeout_s=group.socket_timeout)
    return connect(group.sentinels, group.service_name, password=group.password,
                   sentinel_password=group.sentinel_password, socket_timeout_s=group.socket_timeout)


def store_name(group) -> str:
    """How errors name the store: the Sentinel service, or the Redis address without its password."""
    if group.driver == "redis":
        parsed = redis.connection.parse_url(group.redis_url)
        return "redis %s:%s" % (parsed.get("host", "localhost"), parsed.get("port", 6379))
    return group.service_name


def store_failure(exc, service_name: str) -> DriverUnavailable:
    """The ``DriverUnavailable`` for a redis-py error while reaching the store."""
    if isinstance(exc, redis_sentinel.MasterNotFoundError):
        # redis-py appends the repr of every Sentinel connection after " : "; the sentence is enough
        return DriverUnavailable("heartbeat store unavailable: no Sentinel knows a master for "
                                 "service %r (%s)" % (service_name, str(exc).split(" : ")[0]))
    return DriverUnavailable("heartbeat store unavailable (service %r): %s: %s"
                             % (service_name, type(exc).__name__, exc))


def write_heartbeat(client, key_prefix: str, host: str, now_s: float, ttl_s: int) -> None:
    """Record that ``host`` was alive at ``now_s`` (the key layout of the module docstring)."""
    client.set(key_prefix + host, "%.3f" % now_s, ex=int(ttl_s))


class SentinelHeartbeatDriver(base.HeartbeatDriver):
    """``HeartbeatDriver`` reading the heartbeat keys through Sentinel's master (or one plain Redis)."""

    def __init__(self, client, service_name: str, key_prefix: str = "keyvrm:heartbeat:"):
        self.client = client
        self.service_name = service_name
        self.key_prefix = key_prefix
        self.request_count = 0

    @classmethod
    def from_conf(cls, conf) -> "SentinelHeartbeatDriver":
        """The driver the ``[heartbeat]`` options describe."""
        group = conf.heartbeat
        return cls(client_from_conf(group), store_name(group), group.key_prefix)

    def last_heartbeats(self):
        """Host -> POSIX time of its last heartbeat; a value that is not a number is skipped."""
        try:
            return self._read()
        except STORE_ERRORS as exc:
            raise store_failure(exc, self.service_name) from exc

    def _read(self) -> dict:
        out = {}
        cursor, pattern, start = 0, self.key_prefix + "*", len(self.key_prefix)
        while True:
            cursor, keys = self.client.scan(cursor, match=pattern, count=SCAN_BATCH)
            self.request_count += 1
            if keys:
                self.request_count += 1
                for key, value in zip(keys, self.client.mget(keys)):
                    at = _as_time(value)
                    if at is not None:
                        out[key[start:]] = at
            if not cursor:
                return out


def _as_time(value) -> Optional[float]:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
