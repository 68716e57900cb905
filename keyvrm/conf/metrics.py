"""[metrics] options: the Prometheus-compatible TSDB and one PromQL expression per metric.

Defaults follow node_exporter (hypervisors: label ``instance``, ``host:9100`` or the
host name; interfaces by ``device``) and the libvirt exporter (VMs: label ``uuid`` = the
Nova server id) conventions. Each expression is a template: ``{window}`` becomes the
averaging window in seconds (e.g. ``300s``). Host expressions must keep ``host_label``
in their result; VM expressions ``vm_label``; the interface expression also
``interface_label``. A result that is NaN or absent is recorded as missing, never 0.
"""

from oslo_config import cfg

GROUP = "metrics"

# Physical NICs and bonds (and their VLANs); taps, bridges and vnet devices are left out:
# they double-count traffic and report operstate "unknown" (node_network_up = 0).
_UPLINKS = 'device=~"(en|eth|bond|ib).*"'

opts = [
    cfg.StrOpt("driver", default="prometheus", choices=["prometheus", "sim"],
               help="Where metrics come from: a Prometheus-compatible TSDB at [metrics] url. "
                    "'sim' is the demo's embedded region only: keyvrm-engine refuses it."),
    cfg.URIOpt("url", default="http://127.0.0.1:8428", secret=True,
               help="Base URL of the Prometheus HTTP API (VictoriaMetrics in production)."),
    cfg.IntOpt("window", default=300, min=30,
               help="Seconds over which values are averaged."),
    cfg.IntOpt("timeout", default=30, min=1, help="HTTP timeout of one query, s."),
    cfg.StrOpt("host_label", default="instance",
               help="Label that carries the hypervisor's name in host series."),
    cfg.BoolOpt("host_label_strip_port", default=True,
                help="Drop a trailing ':PORT' from the host label (node_exporter's "
                     "instance is host:9100 unless relabelled)."),
    cfg.StrOpt("vm_label", default="uuid",
               help="Label that carries the Nova server id in VM series."),
    cfg.StrOpt("interface_label", default="device",
               help="Label that carries the interface name in the interface-state series."),
    cfg.StrOpt("host_cpu_query",
               default='100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[{window}])))',
               help="Hypervisor CPU utilisation, %."),
    cfg.StrOpt("host_ram_query",
               default="100 * (1 - avg_over_time(node_memory_MemAvailable_bytes[{window}]) "
                       "/ avg_over_time(node_memory_MemTotal_bytes[{window}]))",
               help="Hypervisor RAM utilisation, %."),
    cfg.StrOpt("host_net_query",
               default="100 * sum by (instance) (rate(node_network_receive_bytes_total{%(u)s}[{window}]) "
                       "+ rate(node_network_transmit_bytes_total{%(u)s}[{window}])) "
                       "/ sum by (instance) (2 * avg_over_time(node_network_speed_bytes{%(u)s}[{window}]))"
                       % {"u": _UPLINKS},
               help="Hypervisor network utilisation, % of its uplinks' full-duplex speed."),
    cfg.StrOpt("host_hugepages_query",
               default="100 * (1 - avg_over_time(node_memory_HugePages_Free[{window}]) "
                       "/ avg_over_time(node_memory_HugePages_Total[{window}]))",
               help="Hypervisor HugePages utilisation, % (no HugePages: 0/0, missing)."),
    cfg.StrOpt("host_interface_up_query",
               default="min_over_time(node_network_up{%s}[{window}])" % _UPLINKS,
               help="Interface state per (host, interface): 1 up all the window, 0 down at "
                    "some time in it."),
    cfg.StrOpt("host_target_up_query",
               default='max by (instance) (up{job=~".*node.*"})',
               help="Whether each hypervisor's exporter is scraped now: 1 up, 0 down (the TSDB's own "
                    "``up`` series of its node exporter target, at the last scrape, not averaged). "
                    "With BMC fencing on, a target down beside a stale heartbeat lets HA power off a "
                    "host that hangs although Nova still sees its compute service up. A host the "
                    "expression does not return has no such signal."),
    cfg.StrOpt("vm_cpu_query",
               default="sum by (uuid) (rate(libvirt_domain_info_cpu_time_seconds_total[{window}]))",
               help="VM CPU, busy vCPUs."),
    cfg.StrOpt("vm_ram_query",
               default="sum by (uuid) (avg_over_time(libvirt_domain_info_memory_usage_bytes[{window}])) "
                       "/ 1048576",
               help="VM RAM used, MB."),
    cfg.StrOpt("vm_net_query",
               default="sum by (uuid) (rate(libvirt_domain_interface_stats_receive_bytes_total[{window}]) "
                       "+ rate(libvirt_domain_interface_stats_transmit_bytes_total[{window}])) * 8 / 1e6",
               help="VM network throughput, Mbit/s."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
