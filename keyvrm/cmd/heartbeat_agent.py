"""keyvrm-heartbeat-agent: the daemon a hypervisor runs to write its heartbeat to Redis.

``keyvrm-heartbeat-agent [--config-file F] [--host NAME]``: ``--host`` overrides
``[heartbeat] host`` (the Nova compute host name; default this machine's hostname).

Every ``[heartbeat] interval`` seconds it writes ``{key_prefix}{host}`` = now (POSIX
seconds) with a TTL of ``[heartbeat] ttl`` (key layout: keyvrm.drivers.heartbeat.sentinel).
The store is ``[heartbeat] driver``'s: Sentinel's master or one plain Redis. When it
cannot be reached (a failover in progress, Sentinels down) it logs, drops its
connections so the next write asks the Sentinels for the master again, and
keeps going at the same interval; it never exits on a store error. SIGTERM/SIGINT stop
it after the current write.
"""

from __future__ import annotations

import sys
import threading

from oslo_config import cfg
from oslo_log import log as logging

from keyvrm.clock import WallClock
from keyvrm.cmd import stopping
from keyvrm.conf import heartbeat as heartbeat_conf
from keyvrm.drivers.heartbeat import sentinel

LOG = logging.getLogger(__name__)

HOST_OPT = cfg.StrOpt("host", help="Name to write the heartbeat under (overrides [heartbeat] host).")


class HeartbeatAgent:
    """Writes one host's heartbeat every ``interval_s`` and rides out store outages."""

    def __init__(self, client_factory, host: str, *, key_prefix: str, interval_s: float,
                 ttl_s: int, service_name: str, clock=None):
        self.client_factory = client_factory
        self.client = client_factory()
        self.host = host
        self.key_prefix = key_prefix
        self.interval_s = interval_s
        self.ttl_s = ttl_s
        self.service_name = service_name
        self.clock = clock or WallClock()
        self.written = 0
        self.failed = 0
        self._failing = False

    def beat(self) -> bool:
        """Write one heartbeat; False (logged, master re-discovered next time) if it failed."""
        try:
            sentinel.write_heartbeat(self.client, self.key_prefix, self.host, self.clock.time(),
                                     self.ttl_s)
        except sentinel.STORE_ERRORS as exc:
            self.failed += 1
            LOG.warning("heartbeat of %s not written: %s", self.host,
                        sentinel.store_failure(exc, self.service_name))
            self._failing = True
            self.client.connection_pool.disconnect()
            self.client = self.client_factory()
            return False
        if self._failing:
            LOG.info("heartbeat of %s written again after %d failed attempt(s)", self.host,
                     self.failed)
            self._failing = False
        self.written += 1
        return True

    def run(self, stop: threading.Event) -> None:
        """Beat every ``interval_s`` (measured from each beat's start) until ``stop`` is set."""
        while not stop.is_set():
            started = self.clock.time()
            self.beat()
            stop.wait(max(0.0, self.interval_s - (self.clock.time() - started)))

    @classmethod
    def from_conf(cls, conf, clock=None, host=None) -> "HeartbeatAgent":
        """The agent the ``[heartbeat]`` options describe; ``host`` overrides ``[heartbeat] host``."""
        group = conf.heartbeat

        return cls(lambda: sentinel.client_from_conf(group), host or group.host,
                   key_prefix=group.key_prefix, interval_s=group.interval, ttl_s=group.ttl,
                   service_name=sentinel.store_name(group), clock=clock)


def parse_conf(argv) -> cfg.ConfigOpts:
    """The agent's config: ``--config-file`` files, ``[heartbeat]`` options and ``--host``."""
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    heartbeat_conf.register_opts(conf)
    conf.register_cli_opt(HOST_OPT)
    conf(argv, project="keyvrm", prog="keyvrm-heartbeat-agent")
    return conf


def main(argv=None) -> int:
    """Parse the config (``--config-file``, ``--host``), then beat until SIGTERM/SIGINT."""
    conf = parse_conf(sys.argv[1:] if argv is None else argv)
    logging.setup(conf, "keyvrm-heartbeat-agent")
    agent = HeartbeatAgent.from_conf(conf, host=conf.host)
    with stopping.stop_on_signals(threading.Event()) as stop:
        LOG.info("writing the heartbeat of %s every %s s to %s", agent.host, agent.interval_s,
                 agent.service_name)
        agent.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
