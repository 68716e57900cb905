"""[heartbeat] options: hypervisor heartbeats kept in Redis, behind Sentinel or plain.

Key layout: ``{key_prefix}{host}`` holds the POSIX time of the host's last heartbeat,
written by keyvrm-heartbeat-agent every ``interval`` seconds with a TTL of ``ttl``
seconds. The TTL only clears out hosts that are gone for good: it must be much longer
than any outage HA has to judge, or a dead host's heartbeat would read "missing"
instead of "stale" (and HA would see insufficient evidence instead of a failure).
"""

import socket

from oslo_config import cfg

GROUP = "heartbeat"

opts = [
    cfg.StrOpt("driver", default="sentinel", choices=["sentinel", "redis", "sim"],
               help="Where heartbeats are kept: 'sentinel' (Redis behind the Sentinels of "
                    "[heartbeat] sentinels, following failovers) or 'redis' (one Redis at "
                    "[heartbeat] redis_url). 'sim' is the demo's embedded region only: "
                    "keyvrm-engine refuses it."),
    cfg.StrOpt("redis_url", secret=True, default="redis://127.0.0.1:6379/0",
               help="The Redis of driver 'redis': redis://[:PASSWORD@]HOST:PORT/DB "
                    "(rediss:// for TLS)."),
    cfg.ListOpt("sentinels", default=["127.0.0.1:26379"],
                help="Redis Sentinel addresses, host:port."),
    cfg.StrOpt("service_name", default="keyvrm", help="Sentinel master name."),
    cfg.StrOpt("password", secret=True, default="",
               help="Redis password of driver 'sentinel' (driver 'redis': in redis_url)."),
    cfg.StrOpt("sentinel_password", secret=True, default="",
               help="Password of the Sentinels themselves (empty: none)."),
    cfg.StrOpt("key_prefix", default="keyvrm:heartbeat:", help="Prefix of heartbeat keys."),
    cfg.FloatOpt("socket_timeout", default=2.0, min=0.1,
                 help="Seconds a Redis or Sentinel command may take."),
    cfg.IntOpt("interval", default=2, min=1,
               help="Seconds between an agent's heartbeats. With the default stale_after (10 s) a host "
                    "that dies is seen silent 10-12 s later; a Redis write every 2 s per host is "
                    "5,000 writes/s at 10,000 hosts, well within one Redis."),
    cfg.IntOpt("ttl", default=7 * 86400, min=2,
               help="Seconds a heartbeat key lives after its last write (see the module "
                    "docstring: keep it far above stale_after)."),
    cfg.IntOpt("stale_after", default=10, min=2,
               help="A heartbeat older than this (against the cycle's time) is stale: five missed "
                    "beats at the default interval. A stale heartbeat alone never condemns a host: "
                    "HA then also needs Nova's verdict (the compute service down) or, with BMC "
                    "fencing on, its BMC reporting it powered off (the admin guide's decision "
                    "matrix). Keep it above the longest pause of an agent you expect (a restart, "
                    "a Sentinel failover is covered by the mass-failure guard)."),
    cfg.StrOpt("host", default=socket.gethostname(), sample_default="<hostname>",
               help="Name the agent writes its heartbeat under: the hypervisor's Nova "
                    "compute host name."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
