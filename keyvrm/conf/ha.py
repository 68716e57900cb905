"""[ha] options: the mass-failure guard and the fast path that starts HA runs between cycles."""

from oslo_config import cfg

GROUP = "ha"

opts = [
    cfg.FloatOpt("mass_failure_share", default=0.5, min=0.0, max=1.0,
                 help="Mass-failure guard: when more than one host, and more than this share of "
                      "an aggregate's hosts, are newly condemned in one cycle, nothing is fenced "
                      "and an alert is raised (a partition or a monitoring fault looks like "
                      "that). Hosts KeyVRM already fenced, evacuated or put in maintenance do "
                      "not count."),
    cfg.BoolOpt("fast_path", default=True,
                help="Watch heartbeats and compute services between cycles: a host whose "
                     "heartbeat goes stale or whose compute service goes down has its aggregates "
                     "judged at once (a fast cycle from the newest snapshot and fresh reads of "
                     "services, heartbeats and its servers; same detection matrix, same "
                     "fencing), then a periodic cycle runs."),
    cfg.IntOpt("failover_max_k", default=2, min=0, max=2,
               help="Failover analysis: the most hosts failing together an HA aggregate's tolerance "
                    "is searched for (each cycle, see the admin guide). 1: every host's failure is "
                    "planned (exact); 2: pairs too, every pair up to 8 hosts, else the pairs of the 6 "
                    "hosts with the most evacuable RAM (an upper bound); 0: no analysis. A cycle searches "
                    "no further than the aggregate's ha_failover_reserve; a reserve above this "
                    "value is never met."),
    cfg.IntOpt("nova_service_down_time", default=60, min=1,
               help="Nova's [DEFAULT] service_down_time on the region's controllers (Nova's default: "
                    "60): how long after a compute's last report Nova shows its service down. KeyVRM "
                    "does not read Nova's configuration: set the same value. A host whose heartbeat "
                    "is stale while Nova still shows its service up is reported host_silent (likely "
                    "down, Nova's verdict still to come) until its heartbeat has been stale for this "
                    "long, and heartbeat_path_broken after (Nova would have seen a dead host down by "
                    "then)."),
    cfg.FloatOpt("watch_interval", default=2.0, min=0.5,
                 help="Seconds between two looks of the fast path at heartbeats and compute "
                      "services (one Redis scan and one Nova request each)."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
