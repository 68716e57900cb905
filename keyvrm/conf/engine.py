"""[engine] options: the keyvrm-engine service (schedule, TaskFlow, scale-out)."""

import socket

from oslo_config import cfg

GROUP = "engine"

opts = [
    cfg.StrOpt("coordination_url", default="", secret=True,
               help="tooz backend URL used to elect the engine that runs the schedule, e.g. "
                    "redis://127.0.0.1:6379. Empty: a single engine, no election."),
    cfg.IntOpt("leader_lock_ttl", default=30, min=2,
               help="Seconds the leader's tooz lock lives without a refresh: how long a dead "
                    "leader blocks the schedule before another engine takes it over."),
    cfg.StrOpt("jobboard_url", default="", secret=True,
               help="TaskFlow jobboard (Redis URL, e.g. redis://127.0.0.1:6379/0) for spreading "
                    "per-aggregate and executor flows across engines. Empty: run flows in the "
                    "engine that created them."),
    cfg.StrOpt("namespace", default="keyvrm",
               help="Prefix of every key the engines share in Redis (jobboard, liveness keys, "
                    "leader lock): engines with the same namespace form one cluster."),
    cfg.StrOpt("conductor_name", default=socket.gethostname(),
               sample_default="<hostname>",
               help="This engine's conductor name on the jobboard; unique per engine. Keep it "
                    "stable across restarts so a restarted engine takes back its own jobs at once."),
    cfg.IntOpt("conductor_liveness_ttl", default=30, min=2,
               help="Seconds a conductor's liveness key lives; jobs owned by a conductor whose "
                    "key expired are abandoned so another engine resumes them."),
    cfg.IntOpt("reaper_interval", default=10, min=1,
               help="Seconds between two looks of the reaper for jobs of dead conductors."),
    cfg.IntOpt("executor_workers", default=8, min=1,
               help="Flows (recommendations, aggregates) one engine runs in parallel."),
    cfg.BoolOpt("rpc_enabled", default=True,
                help="Serve the RPC API (cycle now, run/cancel a recommendation) on "
                     "[DEFAULT] transport_url."),
    cfg.StrOpt("rpc_topic", default="keyvrm-engine",
               help="oslo.messaging topic of the engine's RPC server."),
    cfg.IntOpt("max_rejected_hosts", default=100, min=0,
               help="Most (candidate host, check) items an event keeps per VM (HA) or overloaded "
                    "host (LB) that found no target, in the no_target entries of GET "
                    "/v1/events/{event_id}; more_hosts counts the items left out. The event's "
                    "no_target reason counts every host per check whatever this value."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
