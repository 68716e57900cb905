"""[executor] options: running recommendations and raising alerts."""

from oslo_config import cfg

GROUP = "executor"

opts = [
    cfg.FloatOpt("poll_interval", default=2.0, min=0.1,
                 help="Seconds between migration (and server status) polls: one Nova request "
                      "per running recommendation each time. It bounds how late KeyVRM notices "
                      "an evacuation ended and starts the VM again."),
    cfg.FloatOpt("retry_delay", default=10.0, min=0.0,
                 help="Seconds to wait after a failed attempt (and its cleanup) before the next one."),
    cfg.URIOpt("alertmanager_url", default=None,
               help="Optional Alertmanager-compatible endpoint that final errors are POSTed to "
                    "(base URL; /api/v2/alerts is appended unless the URL already ends with it)."),
    cfg.FloatOpt("alertmanager_timeout", default=5.0, min=0.1,
                 help="Seconds one POST to the Alertmanager endpoint may take."),
    cfg.BoolOpt("allow_rebuild_local_disk", default=False,
                help="Evacuate VMs on local disk by rebuilding them (their disk is lost)."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
