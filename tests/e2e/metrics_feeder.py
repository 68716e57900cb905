"""node_exporter- and libvirt-exporter-shaped series for the e2e region, written into VictoriaMetrics.

What the default ``[metrics]`` queries read: per host (label ``instance`` = ``HOST:9100``)
``node_cpu_seconds_total{mode="idle"}``, ``node_memory_MemTotal/MemAvailable_bytes``,
``node_network_{receive,transmit}_bytes_total``/``speed_bytes``/``up`` of ``eth0``; per VM
(label ``uuid``) ``libvirt_domain_info_cpu_time_seconds_total``,
``libvirt_domain_info_memory_usage_bytes`` and interface byte counters. Counters grow at
the rate that gives the wanted load; samples every 15 s from 15 minutes before now to 30
minutes after, so every query window of the test run sees steady values.
"""

from __future__ import annotations

import time

import requests

STEP_S = 15
BEFORE_S, AFTER_S = 900, 1800
MEM_TOTAL_B = 8 * 1024 ** 3  # MediumFakeDriver's 8192 MB
LINK_SPEED_B = 1.25e9  # 10 Gbit/s


def _series(name, labels, rate_or_value, start, counter):
    text = ",".join('%s="%s"' % item for item in sorted(labels.items()))
    return ["%s{%s} %r %d" % (name, text, float(rate_or_value * (t - start) if counter else rate_or_value),
                              t * 1000)
            for t in range(start, start + BEFORE_S + AFTER_S + 1, STEP_S)]


def host_lines(host, cpu_pct, ram_pct, net_pct, start):
    """One hypervisor at ``cpu_pct``/``ram_pct``/``net_pct`` % (net: of eth0's full duplex)."""
    node = {"instance": "%s:9100" % host, "job": "node"}
    eth0 = dict(node, device="eth0")
    rx_rate = net_pct / 100.0 * 2 * LINK_SPEED_B
    return (_series("node_cpu_seconds_total", dict(node, cpu="0", mode="idle"), 1 - cpu_pct / 100.0, start, True)
            + _series("node_memory_MemTotal_bytes", node, MEM_TOTAL_B, start, False)
            + _series("node_memory_MemAvailable_bytes", node, MEM_TOTAL_B * (1 - ram_pct / 100.0), start, False)
            + _series("node_network_receive_bytes_total", eth0, rx_rate, start, True)
            + _series("node_network_transmit_bytes_total", eth0, 0.0, start, True)
            + _series("node_network_speed_bytes", eth0, LINK_SPEED_B, start, False)
            + _series("node_network_up", eth0, 1, start, False))


def vm_lines(server_id, busy_vcpus, ram_mb, mbps, start):
    """One server using ``busy_vcpus``, ``ram_mb`` and ``mbps`` (received)."""
    domain = {"uuid": server_id, "job": "libvirt"}
    vnic = dict(domain, target_device="tap0")
    return (_series("libvirt_domain_info_cpu_time_seconds_total", domain, busy_vcpus, start, True)
            + _series("libvirt_domain_info_memory_usage_bytes", domain, ram_mb * 1048576.0, start, False)
            + _series("libvirt_domain_interface_stats_receive_bytes_total", vnic, mbps * 1e6 / 8, start, True)
            + _series("libvirt_domain_interface_stats_transmit_bytes_total", vnic, 0.0, start, True))


def feed(tsdb_url, hosts: dict, vms: dict, now_s=None):
    """Write ``hosts`` {host: (cpu, ram, net) %} and ``vms`` {id: (vcpus, ram MB, Mbit/s)}; flush."""
    start = int(now_s if now_s is not None else time.time()) - BEFORE_S
    lines = []
    for host, load in hosts.items():
        lines += host_lines(host, *load, start)
    for server_id, load in vms.items():
        lines += vm_lines(server_id, *load, start)
    response = requests.post(tsdb_url + "/api/v1/import/prometheus", data="\n".join(lines) + "\n", timeout=30)
    response.raise_for_status()
    requests.get(tsdb_url + "/internal/force_flush", timeout=30).raise_for_status()
