"""[heartbeat] options: hypervisor heartbeats kept in Redis behind Sentinel.

Key layout: ``{key_prefix}{host}`` holds the POSIX time of the host's last heartbeat,
written by keyvrm-heartbeat-agent with a TTL of ``ttl`` seconds.
"""

from oslo_config import cfg

GROUP = "heartbeat"

opts = [
    cfg.StrOpt("driver", default="sim", choices=["sentinel", "sim"],
               help="Where heartbeats come from."),
    cfg.ListOpt("sentinels", default=["127.0.0.1:26379"],
                help="Redis Sentinel addresses, host:port."),
    cfg.StrOpt("service_name", default="keyvrm", help="Sentinel master name."),
    cfg.StrOpt("password", secret=True, default="", help="Redis password."),
    cfg.StrOpt("key_prefix", default="keyvrm:heartbeat:", help="Prefix of heartbeat keys."),
    cfg.IntOpt("interval", default=5, min=1, help="Seconds between an agent's heartbeats."),
    cfg.IntOpt("ttl", default=60, min=2, help="Seconds a heartbeat key lives."),
    cfg.IntOpt("stale_after", default=30, min=2,
               help="A heartbeat older than this (against the cycle's time) is stale."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
