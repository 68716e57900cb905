"""Build the harvest's drivers: the real ones from configuration, or the simulated region's."""

from __future__ import annotations

import importlib

from keyvrm.drivers.heartbeat.sentinel import SentinelHeartbeatDriver
from keyvrm.drivers.metrics.prometheus import PrometheusMetricsDriver
from keyvrm import exception
from keyvrm.harvest.assemble import HarvestSources

OPENSTACK_DRIVER = "keyvrm.drivers.cloud.openstack"


def _openstack_cloud(conf, clock):
    try:
        module = importlib.import_module(OPENSTACK_DRIVER)
        build = module.from_conf
    except (ImportError, AttributeError) as exc:
        raise exception.InvalidField(
            "harvest.cloud_driver", "'openstack' needs %s (OpenStackCloudDriver and its "
            "from_conf), which cannot be loaded: %s" % (OPENSTACK_DRIVER, exc)) from exc
    return build(conf, clock=clock)


def _harvest_options(conf):
    group = conf.harvest
    return dict(region_name=group.region_name, migrations_since_s=group.migrations_since or None,
                timeout_s=group.source_timeout)


def sources_from_conf(conf, clock=None) -> HarvestSources:
    """The real drivers ``[harvest]``, ``[metrics]`` and ``[heartbeat]`` name.

    ``sim`` drivers are not built here (they need a simulated region: use
    ``sources_for_sim``); asking for them raises ``InvalidField`` naming the option.
    """
    for option, value in (("harvest.cloud_driver", conf.harvest.cloud_driver),
                          ("metrics.driver", conf.metrics.driver),
                          ("heartbeat.driver", conf.heartbeat.driver)):
        if value == "sim":
            raise exception.InvalidField(option, "'sim' needs a simulated region: use "
                                                 "keyvrm.harvest.sources.sources_for_sim")
    return HarvestSources(cloud=_openstack_cloud(conf, clock),
                          metrics=PrometheusMetricsDriver.from_conf(conf, clock=clock),
                          heartbeat=SentinelHeartbeatDriver.from_conf(conf),
                          **_harvest_options(conf))


def sources_for_sim(drivers, conf=None) -> HarvestSources:
    """The sources of a simulated region (``keyvrm.simulator.drivers.simulated.SimDrivers``)."""
    options = _harvest_options(conf) if conf is not None else {}
    options["region_name"] = drivers.cloud.region.name
    return HarvestSources(cloud=drivers.cloud, metrics=drivers.metrics,
                          heartbeat=drivers.heartbeat, **options)
