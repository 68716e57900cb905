"""[engine] options: the keyvrm-engine service (schedule, TaskFlow, scale-out)."""

from oslo_config import cfg

GROUP = "engine"

opts = [
    cfg.StrOpt("coordination_url", default="",
               help="tooz backend URL used to elect the engine that runs the schedule, e.g. "
                    "redis://127.0.0.1:6379. Empty: a single engine, no election."),
    cfg.StrOpt("jobboard_url", default="",
               help="TaskFlow jobboard (Redis) for spreading per-aggregate and executor flows "
                    "across engines. Empty: run flows in the engine that created them."),
    cfg.IntOpt("conductor_liveness_ttl", default=30, min=5,
               help="Seconds a conductor's liveness key lives; jobs owned by a conductor whose "
                    "key expired are abandoned so another engine resumes them."),
    cfg.IntOpt("executor_workers", default=8, min=1,
               help="Recommendations one engine executes in parallel."),
    cfg.StrOpt("rpc_topic", default="keyvrm-engine",
               help="oslo.messaging topic of the engine's RPC server."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
