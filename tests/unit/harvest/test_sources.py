"""sources_from_conf(): the real drivers from [harvest], [metrics] and [heartbeat]."""

import sys
import types

from oslo_config import cfg
import pytest

from keyvrm import conf as keyvrm_conf
from keyvrm.drivers.heartbeat.sentinel import SentinelHeartbeatDriver
from keyvrm.drivers.metrics.prometheus import PrometheusMetricsDriver
from keyvrm import exception
from keyvrm.harvest import sources


def _conf(**groups):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    for group, values in groups.items():
        for name, value in values.items():
            conf.set_override(name, value, group)
    return conf


REAL = dict(harvest={"cloud_driver": "openstack", "region_name": "RegionTwo", "source_timeout": 20},
            metrics={"driver": "prometheus", "url": "http://tsdb:8428", "window": 600},
            heartbeat={"driver": "sentinel", "sentinels": ["10.0.0.1:26379", "10.0.0.2:26379"],
                       "service_name": "hb"})


class _FakeOpenStackDriver:
    def __init__(self, conf, clock):
        self.conf, self.clock = conf, clock


def test_real_drivers_are_built_from_the_options(monkeypatch):
    module = types.ModuleType(sources.OPENSTACK_DRIVER)
    module.from_conf = _FakeOpenStackDriver
    monkeypatch.setitem(sys.modules, sources.OPENSTACK_DRIVER, module)
    clock = object()
    built = sources.sources_from_conf(_conf(**REAL), clock=clock)
    assert isinstance(built.cloud, _FakeOpenStackDriver) and built.cloud.clock is clock
    assert built.metrics.clock is clock
    assert isinstance(built.metrics, PrometheusMetricsDriver)
    assert built.metrics.url == "http://tsdb:8428/api/v1/query" and built.metrics.window_s == 600
    assert isinstance(built.heartbeat, SentinelHeartbeatDriver) and built.heartbeat.service_name == "hb"
    assert (built.region_name, built.timeout_s, built.migrations_since_s) == ("RegionTwo", 20, 86400)


@pytest.mark.parametrize("module", [None, types.ModuleType(sources.OPENSTACK_DRIVER)])
def test_a_missing_openstack_driver_is_a_clear_error(monkeypatch, module):
    monkeypatch.setitem(sys.modules, sources.OPENSTACK_DRIVER, module)
    with pytest.raises(exception.InvalidField, match="harvest.cloud_driver: 'openstack' needs"):
        sources.sources_from_conf(_conf(**REAL))


def test_sim_drivers_are_refused_naming_the_option():
    with pytest.raises(exception.InvalidField, match="metrics.driver: 'sim' needs a simulated region"):
        sources.sources_from_conf(_conf(**dict(REAL, metrics={"driver": "sim"})))
