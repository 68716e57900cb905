"""The Prometheus metrics collector's default queries against a real VictoriaMetrics."""

import time

import pytest

from tests.functional.harvest.conftest import default_metrics_driver

STEP_S = 60
T = (int(time.time()) // 60) * 60 - 3600  # an hour back: well inside any retention


class FixedClock:
    def __init__(self, now_s):
        self.now_s = now_s

    def time(self):
        return self.now_s

    def sleep(self, seconds):
        self.now_s += seconds


def _driver(tsdb, window_s=300):
    return default_metrics_driver(tsdb.url, window_s, FixedClock(T))


def _series(name, labels, value_at):
    """Exposition lines of one series sampled every minute over the 15 minutes up to T."""
    text = ",".join('%s="%s"' % item for item in sorted(labels.items()))
    return ["%s{%s} %r %d" % (name, text, float(value_at(t)), t * 1000)
            for t in range(T - 900, T + 1, STEP_S)]


def _node_exporter_lines():
    a, b = {"instance": "cmp-1:9100", "job": "node"}, {"instance": "cmp-2", "job": "node"}
    lines = []
    # cmp-1: idle 0.2 and 0.4 s/s on two CPUs -> 70 % busy.
    lines += _series("node_cpu_seconds_total", dict(a, cpu="0", mode="idle"), lambda t: 0.2 * (t - T + 900))
    lines += _series("node_cpu_seconds_total", dict(a, cpu="1", mode="idle"), lambda t: 0.4 * (t - T + 900))
    lines += _series("node_cpu_seconds_total", dict(a, cpu="0", mode="user"), lambda t: 0.8 * (t - T + 900))
    # RAM: 600 of 1000 available until T-300, then 200.
    lines += _series("node_memory_MemTotal_bytes", a, lambda t: 1000)
    lines += _series("node_memory_MemAvailable_bytes", a, lambda t: 600 if t <= T - 300 else 200)
    lines += _series("node_memory_HugePages_Total", a, lambda t: 100)
    lines += _series("node_memory_HugePages_Free", a, lambda t: 25)
    # eno1: 10 Gbit/s link receiving 125 MB/s -> 5 % of full duplex; vnet0 and lo ignored.
    for device, rx in (("eno1", 125e6), ("vnet0", 5e9), ("lo", 5e9)):
        labels = dict(a, device=device)
        lines += _series("node_network_receive_bytes_total", labels, lambda t, rx=rx: rx * (t - T + 900))
        lines += _series("node_network_transmit_bytes_total", labels, lambda t: 0)
        lines += _series("node_network_speed_bytes", labels, lambda t: 1.25e9)
    lines += _series("node_network_up", dict(a, device="eno1"), lambda t: 1)
    lines += _series("node_network_up", dict(a, device="eno2"), lambda t: 0 if t == T - 120 else 1)
    lines += _series("node_network_up", dict(a, device="bond0"), lambda t: 0 if t == T - 600 else 1)
    lines += _series("node_network_up", dict(a, device="vnet0"), lambda t: 0)
    # cmp-2: CPU only (idle 0.9 s/s on its one CPU), no HugePages.
    lines += _series("node_cpu_seconds_total", dict(b, cpu="0", mode="idle"), lambda t: 0.9 * (t - T + 900))
    lines += _series("node_memory_HugePages_Total", b, lambda t: 0)
    lines += _series("node_memory_HugePages_Free", b, lambda t: 0)
    return lines


def _libvirt_lines():
    a = {"domain": "instance-00000001", "uuid": "vm-a", "instance": "cmp-1:9177"}
    b = {"domain": "instance-00000002", "uuid": "vm-b", "instance": "cmp-1:9177"}
    lines = []
    lines += _series("libvirt_domain_info_cpu_time_seconds_total", a, lambda t: 1.5 * (t - T + 900))
    lines += _series("libvirt_domain_info_memory_usage_bytes", a,
                     lambda t: 2 * 2 ** 30 if t <= T - 300 else 3 * 2 ** 30)
    for target, rx in (("tap1", 1.25e6), ("tap2", 0.0)):
        labels = dict(a, target_device=target)
        lines += _series("libvirt_domain_interface_stats_receive_bytes_total", labels,
                         lambda t, rx=rx: rx * (t - T + 900))
        lines += _series("libvirt_domain_interface_stats_transmit_bytes_total", labels, lambda t: 0)
    lines += _series("libvirt_domain_info_cpu_time_seconds_total", b, lambda t: 0.25 * (t - T + 900))
    return lines


def test_default_host_queries_read_node_exporter_series(tsdb):
    tsdb.import_lines(_node_exporter_lines())
    hosts = _driver(tsdb).host_metrics()
    assert set(hosts) == {"cmp-1", "cmp-2"}
    one = hosts["cmp-1"]
    assert one.cpu_pct == pytest.approx(70.0)
    assert one.ram_pct == pytest.approx(80.0)
    assert one.net_pct == pytest.approx(5.0)
    assert one.hugepages_pct == pytest.approx(75.0)
    assert one.interfaces_known and one.down_interfaces == ("eno2",)


def test_series_a_host_lacks_are_missing_not_zero(tsdb):
    tsdb.import_lines(_node_exporter_lines())
    two = _driver(tsdb).host_metrics()["cmp-2"]
    assert two.cpu_pct == pytest.approx(10.0)
    assert (two.ram_pct, two.net_pct, two.hugepages_pct) == (None, None, None)
    assert not two.interfaces_known and two.down_interfaces == ()


def test_values_are_averaged_over_the_configured_window(tsdb):
    tsdb.import_lines(_node_exporter_lines() + _libvirt_lines())
    long = _driver(tsdb, window_s=900)
    one = long.host_metrics(["cmp-1"])
    assert set(one) == {"cmp-1"}
    # 10 samples of 600 available and 5 of 200 in (T-900, T].
    assert one["cmp-1"].ram_pct == pytest.approx(100 * (1 - 7000 / 15 / 1000))
    assert one["cmp-1"].down_interfaces == ("bond0", "eno2")
    assert long.vm_metrics(["vm-a"])["vm-a"].ram_mb == pytest.approx((10 * 2048 + 5 * 3072) / 15)


def test_default_vm_queries_read_libvirt_exporter_series(tsdb):
    tsdb.import_lines(_libvirt_lines())
    vms = _driver(tsdb).vm_metrics()
    assert set(vms) == {"vm-a", "vm-b"}
    assert vms["vm-a"].cpu_cores == pytest.approx(1.5)
    assert vms["vm-a"].ram_mb == pytest.approx(3072.0)
    assert vms["vm-a"].net_mbps == pytest.approx(10.0)
    assert vms["vm-b"].cpu_cores == pytest.approx(0.25)
    assert (vms["vm-b"].ram_mb, vms["vm-b"].net_mbps) == (None, None)


def test_a_tsdb_without_data_returns_no_hosts_and_no_vms(tsdb):
    driver = _driver(tsdb)
    assert driver.host_metrics() == {} and driver.vm_metrics() == {}
    assert driver.request_count == 8
