"""[harvest] options: how each cycle's region snapshot is collected from the cloud."""

from oslo_config import cfg

GROUP = "harvest"

opts = [
    cfg.StrOpt("cloud_driver", default="openstack", choices=["openstack", "sim"],
               help="Where the region comes from: the OpenStack cloud (Nova, Placement, Glance "
                    "through the session [harvest] cloud names). 'sim' is the demo's embedded "
                    "simulated region only: keyvrm-engine refuses it."),
    cfg.StrOpt("cloud", default="",
               help="clouds.yaml entry used for the OpenStack session (empty: the [keystone_authtoken]"
                    "-style auth of the environment, OS_* variables)."),
    cfg.IntOpt("page_size", default=1000, min=1, help="Page size of paginated list calls."),
    cfg.IntOpt("servers_full_read_interval", default=3600, min=0,
               help="Seconds between two reads of every server. In between, a harvest reads only "
                    "the servers Nova changed (changes-since, from the newest change seen less "
                    "60 s, deleted ones included) and merges them into the list it keeps. 0: "
                    "every harvest reads every server."),
    cfg.IntOpt("source_timeout", default=60, min=1,
               help="Seconds one source may take before it is recorded as failed."),
    cfg.StrOpt("region_name", default="RegionOne",
               help="Name of the region the snapshot describes (the Keystone region of the "
                    "endpoints is [cloud] region_name)."),
    cfg.IntOpt("migrations_since", default=86400, min=0,
               help="Only migrations changed in the last this many seconds are read "
                    "(0: all of them)."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
