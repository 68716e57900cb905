"""[fencing] options: where BMC and Ceph fencing credentials come from."""

from oslo_config import cfg

GROUP = "fencing"

opts = [
    cfg.StrOpt("credentials_file", default="/etc/keyvrm/fencing.yaml",
               help="YAML file with each hypervisor's BMC address, protocol (ipmi|redfish), "
                    "user, password and Ceph client addresses. Readable by KeyVRM only; "
                    "passwords are never logged nor returned by the API."),
    cfg.IntOpt("bmc_request_timeout", default=10, min=1,
               help="Seconds one Redfish request may take to connect, and again to answer. "
                    "IPMI sessions keep pyghmi's own retry timers."),
    cfg.FloatOpt("power_poll_interval", default=2.0, min=0.1,
                 help="Seconds between power-state polls while confirming power-off."),
    cfg.StrOpt("ceph_conf", default="/etc/ceph/ceph.conf", help="ceph.conf for blocklisting."),
    cfg.StrOpt("ceph_client_name", default="client.admin",
               help="Ceph client with `osd blocklist` rights."),
    cfg.IntOpt("ceph_blocklist_expire", default=7 * 24 * 3600, min=60,
               help="Seconds a Ceph blocklist entry lasts: long enough for an operator to "
                    "repair the host and remove the entry by hand (Ceph's own default is one "
                    "hour, after which a half-dead host could write again)."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
