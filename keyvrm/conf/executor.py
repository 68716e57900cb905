"""[executor] options: running recommendations and raising alerts."""

from oslo_config import cfg

GROUP = "executor"

opts = [
    cfg.FloatOpt("poll_interval", default=5.0, min=0.1,
                 help="Seconds between migration status polls."),
    cfg.URIOpt("alertmanager_url", default=None,
               help="Optional Alertmanager-compatible endpoint that final errors are POSTed to."),
    cfg.BoolOpt("allow_rebuild_local_disk", default=False,
                help="Evacuate VMs on local disk by rebuilding them (their disk is lost)."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
