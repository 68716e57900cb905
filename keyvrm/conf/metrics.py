"""[metrics] options: the Prometheus-compatible TSDB and one PromQL expression per metric.

Defaults follow node_exporter (hypervisors, label ``instance`` = host name) and
libvirt exporter (VMs, label ``domain`` = instance name, ``uuid``) conventions. Each
expression is a template: ``{window}`` becomes the averaging window (e.g. ``5m``).
"""

from oslo_config import cfg

GROUP = "metrics"

opts = [
    cfg.StrOpt("driver", default="sim", choices=["prometheus", "sim"],
               help="Where metrics come from."),
    cfg.URIOpt("url", default="http://127.0.0.1:8428",
               help="Base URL of the Prometheus HTTP API (VictoriaMetrics in production)."),
    cfg.IntOpt("window", default=300, min=30,
               help="Seconds over which values are averaged."),
    cfg.IntOpt("timeout", default=30, min=1, help="HTTP timeout of one query, s."),
    cfg.StrOpt("host_label", default="instance",
               help="Label that carries the hypervisor's name in host series."),
    cfg.StrOpt("host_cpu_query",
               default='100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[{window}])))',
               help="Hypervisor CPU utilisation, %."),
    cfg.StrOpt("host_ram_query",
               default="100 * (1 - avg_over_time(node_memory_MemAvailable_bytes[{window}]) "
                       "/ avg_over_time(node_memory_MemTotal_bytes[{window}]))",
               help="Hypervisor RAM utilisation, %."),
    cfg.StrOpt("host_net_query",
               default='sum by (instance) (rate(node_network_receive_bytes_total{device!="lo"}[{window}]) '
                       '+ rate(node_network_transmit_bytes_total{device!="lo"}[{window}])) * 8 / 1e6',
               help="Hypervisor network throughput, Mbit/s (divided by the host's capacity "
                    "to give %)."),
    cfg.StrOpt("host_hugepages_query",
               default="100 * (1 - avg_over_time(node_memory_HugePages_Free[{window}]) "
                       "/ avg_over_time(node_memory_HugePages_Total[{window}]))",
               help="Hypervisor HugePages utilisation, %."),
    cfg.StrOpt("host_interface_up_query",
               default='min_over_time(node_network_up{device!="lo"}[{window}])',
               help="Interface state per (instance, device): 1 up, 0 down at any time in the window."),
    cfg.StrOpt("vm_cpu_query",
               default="sum by (uuid) (rate(libvirt_domain_info_cpu_time_seconds_total[{window}]))",
               help="VM CPU, busy vCPUs."),
    cfg.StrOpt("vm_ram_query",
               default="avg_over_time(libvirt_domain_info_memory_usage_bytes[{window}]) / 1048576",
               help="VM RAM used, MB."),
    cfg.StrOpt("vm_net_query",
               default="sum by (uuid) (rate(libvirt_domain_interface_stats_receive_bytes_total[{window}]) "
                       "+ rate(libvirt_domain_interface_stats_transmit_bytes_total[{window}])) * 8 / 1e6",
               help="VM network throughput, Mbit/s."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
