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
    cfg.FloatOpt("tier_wait", default=60.0, min=0.0,
                 help="Seconds an evacuate_order tier waits for the one before it. The "
                      "evacuations of an HA round start tier by tier: VMs with the same "
                      "evacuate_order form a tier (lower first), VMs without one the last "
                      "tier. A tier starts when every evacuation of the tier before it was "
                      "accepted by Nova (Nova answered with its migration record) or ended, or "
                      "this many seconds after that tier started, whichever comes first: a "
                      "stuck VM delays the next tier, never blocks it. Inside a tier the "
                      "evacuations start in parallel. 0: tiers do not wait for each other."),
    cfg.IntOpt("max_concurrent_per_host", default=10, min=1,
               help="Most evacuations and live migrations KeyVRM has in flight to one target "
                    "host at once (asked of Nova, migration not yet ended); a run past it "
                    "waits for room (at most until its lifecycle timeout) and says so in its "
                    "journal. An evacuation is a rebuild on the target, which nova-compute "
                    "does not limit itself; the default is Nova's [DEFAULT] "
                    "max_concurrent_builds default (10), the number of builds a compute host "
                    "is meant to take at once. Nova's max_concurrent_live_migrations (default "
                    "1) limits live migrations per source host, and Nova queues the rest "
                    "itself. Counted per engine process (see max_concurrent_per_region)."),
    cfg.IntOpt("max_concurrent_per_region", default=16, min=0,
               help="Most evacuations and live migrations KeyVRM has in flight at once in the "
                    "region, to any host; 0: no bound. The default is two HA rounds' worth of "
                    "runs side by side (an HA round runs at most 8 at once), so that the "
                    "failure of several aggregates does not ask Nova's conductor, Neutron's "
                    "port bindings and Cinder's attachments for every rebuild at once. "
                    "Counted per engine process: with one engine (the default) that is the "
                    "region; engines that share a jobboard each count their own."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
