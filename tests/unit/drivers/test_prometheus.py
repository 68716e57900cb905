"""The Prometheus metrics driver: result mapping, missing values, and TSDB failures."""

import pytest

from keyvrm.drivers.errors import DriverError
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.metrics import prometheus
from keyvrm.drivers.metrics.prometheus import MetricQueries
from keyvrm.drivers.metrics.prometheus import PrometheusMetricsDriver
from tests.unit.harvest.tsdb_stub import series
from tests.unit.harvest.tsdb_stub import StubTSDB

QUERIES = MetricQueries(**{name: name + "[{window}]" for name in (
    "host_cpu", "host_ram", "host_net", "host_hugepages", "host_interface_up", "host_target_up",
    "vm_cpu", "vm_ram", "vm_net")})


class Clock:
    def time(self):
        return 1700000000.0

    def sleep(self, seconds):
        raise AssertionError("the driver never waits")


def _driver(stub, **kwargs):
    return PrometheusMetricsDriver(stub.url, QUERIES, window_s=120, clock=Clock(), **kwargs)


HOST_ANSWERS = {
    "host_cpu[120s]": [series(42.5, instance="cmp-1:9100"), series(10, instance="cmp-2")],
    "host_ram[120s]": [series("NaN", instance="cmp-1:9100"), series(55, instance="cmp-2")],
    "host_net[120s]": [series("+Inf", instance="cmp-2")],
    "host_hugepages[120s]": [series(0, instance="cmp-1:9100")],
    "host_interface_up[120s]": [series(1, instance="cmp-1:9100", device="eno1"),
                                series(0, instance="cmp-1:9100", device="eno2"),
                                series("NaN", instance="cmp-1:9100", device="eno3")],
}


def test_hosts_are_named_without_the_exporter_port_and_nan_is_missing():
    with StubTSDB(HOST_ANSWERS) as stub:
        hosts = _driver(stub).host_metrics()
    assert set(hosts) == {"cmp-1", "cmp-2"}
    one, two = hosts["cmp-1"], hosts["cmp-2"]
    assert (one.cpu_pct, one.ram_pct, one.net_pct, one.hugepages_pct) == (42.5, None, None, 0.0)
    assert one.interfaces_known and one.down_interfaces == ("eno2",)
    assert (two.cpu_pct, two.ram_pct, two.net_pct) == (10.0, 55.0, None)
    assert not two.interfaces_known


def test_each_metric_is_one_query_at_the_clock_time_with_the_window():
    with StubTSDB(HOST_ANSWERS) as stub:
        driver = _driver(stub)
        driver.host_metrics()
        driver.vm_metrics()
        driver.targets_up()
    assert sorted(q for q, _ in stub.queries) == sorted(f + "[120s]" for f in QUERIES.__dataclass_fields__)
    assert {t for _, t in stub.queries} == {"1700000000.000"}
    assert driver.request_count == 9


def test_a_target_is_up_only_at_1_and_a_host_it_does_not_return_is_not_known():
    answers = {"host_target_up[120s]": [series(1, instance="cmp-1:9100"), series(0, instance="cmp-2:9100"),
                                        series("NaN", instance="cmp-3:9100")]}
    with StubTSDB(answers) as stub:
        driver = _driver(stub)
        assert driver.targets_up() == {"cmp-1": True, "cmp-2": False, "cmp-3": False}
        assert driver.targets_up(["cmp-2", "cmp-9"]) == {"cmp-2": False}


def test_host_and_vm_filters_keep_only_the_asked_ones():
    answers = dict(HOST_ANSWERS, **{"vm_cpu[120s]": [series(1.5, uuid="a"), series(2, uuid="b")],
                                    "vm_ram[120s]": [series(512, uuid="a")]})
    with StubTSDB(answers) as stub:
        driver = _driver(stub)
        assert set(driver.host_metrics(["cmp-2", "cmp-9"])) == {"cmp-2"}
        vms = driver.vm_metrics(["a", "z"])
    assert set(vms) == {"a"} and (vms["a"].cpu_cores, vms["a"].ram_mb, vms["a"].net_mbps) == (1.5, 512.0, None)


def test_host_label_keeps_its_port_when_told():
    with StubTSDB(HOST_ANSWERS) as stub:
        hosts = _driver(stub, strip_port=False).host_metrics()
    assert "cmp-1:9100" in hosts


def test_a_tsdb_answering_500_is_unavailable_naming_the_query():
    with StubTSDB(status=500) as stub:
        with pytest.raises(DriverUnavailable, match=r"answered 500 to \[metrics\] host_cpu_query"):
            _driver(stub).host_metrics()


def test_a_tsdb_that_does_not_answer_in_time_is_unavailable():
    with StubTSDB(delay_s=2) as stub:
        with pytest.raises(DriverUnavailable, match="did not answer"):
            _driver(stub, timeout_s=0.2).vm_metrics()


def test_nothing_listening_is_unavailable():
    driver = PrometheusMetricsDriver("http://127.0.0.1:9", QUERIES, timeout_s=1)
    with pytest.raises(DriverUnavailable, match="did not answer"):
        driver.host_metrics()


def test_a_password_in_the_tsdb_url_never_reaches_the_error_text():
    driver = PrometheusMetricsDriver("http://keyvrm:tsdb-pa55word@127.0.0.1:9", QUERIES, timeout_s=1)
    with pytest.raises(DriverUnavailable) as error:
        driver.host_metrics()
    assert "tsdb-pa55word" not in str(error.value)
    assert "http://keyvrm:***@127.0.0.1:9" in str(error.value)


@pytest.mark.parametrize("userinfo, masked", [
    ("keyvrm:tsdb-pa55word", "keyvrm:***"), (":tsdb-pa55word", ":***"), ("keyvrm:tsdb@pa55word", "keyvrm:***"),
    ("keyvrm:tsdb/pa55word", "keyvrm:***"), ("keyvrm:t@s/d:b-pa55word", "keyvrm:***")],
    ids=["plain", "empty-user", "at-sign", "slash", "all-of-them"])
def test_every_form_of_a_tsdb_password_is_masked(userinfo, masked):
    text = "GET http://%s@tsdb.example:8428/api/v1/query failed: refused" % userinfo
    assert prometheus._without_credentials(text) == (
        "GET http://%s@tsdb.example:8428/api/v1/query failed: refused" % masked)


def test_a_refused_expression_is_an_error_naming_the_option():
    with StubTSDB(status=422) as stub:
        with pytest.raises(DriverError, match=r"refused \[metrics\] vm_cpu_query \(HTTP 422\)") as err:
            _driver(stub).vm_metrics()
    assert not isinstance(err.value, DriverUnavailable)
