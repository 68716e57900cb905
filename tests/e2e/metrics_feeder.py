"""node_exporter- and libvirt-exporter-shaped series for the e2e region, written into VictoriaMetrics.

What the default ``[metrics]`` queries read: per host (label ``instance`` = ``HOST:9100``)
``node_cpu_seconds_total{mode="idle"}``, ``node_memory_MemTotal/MemAvailable_bytes``,
``node_network_{receive,transmit}_bytes_total``/``speed_bytes``/``up`` of ``eth0``; per VM
(label ``uuid``) ``libvirt_domain_info_cpu_time_seconds_total``,
``libvirt_domain_info_memory_usage_bytes`` and interface byte counters. Counters grow at
the rate that gives the wanted load; samples every 15 s from 15 minutes before now to 30
minutes after, so every query window of the test run sees steady values. A region of
hundreds of hosts kept for an hour takes a longer span and a coarser step (a 300 s window
still holds five samples at 60 s); the lines go in posts of ``HOSTS_PER_POST`` hosts or VMs.
"""

from __future__ import annotations

import time

import requests

STEP_S = 15
BEFORE_S, AFTER_S = 900, 1800
HOSTS_PER_POST = 50
MEM_TOTAL_B = 8 * 1024 ** 3  # MediumFakeDriver's 8192 MB
LINK_SPEED_B = 1.25e9  # 10 Gbit/s


def _series(name, labels, rate_or_value, times, counter):
    text = ",".join('%s="%s"' % item for item in sorted(labels.items()))
    start = times[0]
    return ["%s{%s} %r %d" % (name, text, float(rate_or_value * (t - start) if counter else rate_or_value),
                              t * 1000)
            for t in times]


def host_lines(host, cpu_pct, ram_pct, net_pct, times):
    """One hypervisor at ``cpu_pct``/``ram_pct``/``net_pct`` % (net: of eth0's full duplex), at ``times``."""
    node = {"instance": "%s:9100" % host, "job": "node"}
    eth0 = dict(node, device="eth0")
    rx_rate = net_pct / 100.0 * 2 * LINK_SPEED_B
    return (_series("node_cpu_seconds_total", dict(node, cpu="0", mode="idle"), 1 - cpu_pct / 100.0, times, True)
            + _series("node_memory_MemTotal_bytes", node, MEM_TOTAL_B, times, False)
            + _series("node_memory_MemAvailable_bytes", node, MEM_TOTAL_B * (1 - ram_pct / 100.0), times, False)
            + _series("node_network_receive_bytes_total", eth0, rx_rate, times, True)
            + _series("node_network_transmit_bytes_total", eth0, 0.0, times, True)
            + _series("node_network_speed_bytes", eth0, LINK_SPEED_B, times, False)
            + _series("node_network_up", eth0, 1, times, False))


def vm_lines(server_id, busy_vcpus, ram_mb, mbps, times):
    """One server using ``busy_vcpus``, ``ram_mb`` and ``mbps`` (received), at ``times``."""
    domain = {"uuid": server_id, "job": "libvirt"}
    vnic = dict(domain, target_device="tap0")
    return (_series("libvirt_domain_info_cpu_time_seconds_total", domain, busy_vcpus, times, True)
            + _series("libvirt_domain_info_memory_usage_bytes", domain, ram_mb * 1048576.0, times, False)
            + _series("libvirt_domain_interface_stats_receive_bytes_total", vnic, mbps * 1e6 / 8, times, True)
            + _series("libvirt_domain_interface_stats_transmit_bytes_total", vnic, 0.0, times, True))


def _post(tsdb_url, lines):
    response = requests.post(tsdb_url + "/api/v1/import/prometheus", data="\n".join(lines) + "\n", timeout=30)
    response.raise_for_status()


def feed_target_down(tsdb_url, host, from_s=None, step_s=STEP_S, after_s=AFTER_S):
    """``host``'s node exporter target scraped and found down (``up`` 0) from ``from_s`` on; flush.

    ``feed`` writes no ``up`` series: a host whose target was never fed is not known to the
    ``[metrics] host_target_up_query`` (no signal), as a TSDB that scrapes no exporter there.
    """
    start = int(from_s if from_s is not None else time.time())
    times = range(start, start + after_s + 1, step_s)
    _post(tsdb_url, _series("up", {"instance": "%s:9100" % host, "job": "node"}, 0, times, False))
    requests.get(tsdb_url + "/internal/force_flush", timeout=30).raise_for_status()


def feed(tsdb_url, hosts: dict, vms: dict, now_s=None, step_s=STEP_S, after_s=AFTER_S):
    """Write ``hosts`` {host: (cpu, ram, net) %} and ``vms`` {id: (vcpus, ram MB, Mbit/s)}; flush.

    Samples every ``step_s`` from ``BEFORE_S`` before ``now_s`` to ``after_s`` after it.
    """
    start = int(now_s if now_s is not None else time.time()) - BEFORE_S
    times = range(start, start + BEFORE_S + after_s + 1, step_s)
    items = [(host_lines, host, load) for host, load in hosts.items()]
    items += [(vm_lines, server_id, load) for server_id, load in vms.items()]
    for first in range(0, len(items), HOSTS_PER_POST):
        lines = [line for lines_of, name, load in items[first:first + HOSTS_PER_POST]
                 for line in lines_of(name, *load, times)]
        _post(tsdb_url, lines)
    requests.get(tsdb_url + "/internal/force_flush", timeout=30).raise_for_status()
