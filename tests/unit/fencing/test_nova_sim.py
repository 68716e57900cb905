"""The Nova fencer against the simulated Nova: fencing is what makes evacuation possible."""

import pytest

from keyvrm.drivers import errors
from keyvrm.fencing import nova
from keyvrm.fencing import step
from keyvrm.model import settings
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import generator
from keyvrm.simulator import region as r


def _region():
    return generator.generate({"hosts": 4, "hosts_per_aggregate": 4},
                              {"vms_per_host": 3}, r.RegionOptions(seed=5))


def test_sim_nova_refuses_evacuation_until_the_nova_fencer_confirms():
    region = _region()
    cloud = SimCloudDriver(region)
    source = sorted(region.hosts)[0]
    target = sorted(region.hosts)[1]
    server = next(vm.id for vm in cloud.list_servers() if vm.host == source)
    with pytest.raises(errors.CloudError) as refused:
        cloud.evacuate(server, target)
    assert refused.value.status_code == 400 and "still in use" in str(refused.value)

    result = nova.NovaFencer(cloud).fence(source)
    assert result.confirmed, result.message
    service = cloud.get_service(source)
    assert service.forced_down and service.status == "disabled"
    assert cloud.evacuate(server, target).status in ("accepted", "pre-migrating", "running")


def test_fencing_step_with_only_nova_enabled_fences_through_the_sim():
    region = _region()
    cloud = SimCloudDriver(region)
    host = sorted(region.hosts)[2]
    outcome = step.fence_host(host, settings.AppConfig(), nova=nova.NovaFencer(cloud))
    assert outcome.fenced
    assert [res.fencer for res in outcome.results] == ["nova"]


def test_get_service_of_an_unknown_host_is_not_found():
    cloud = SimCloudDriver(_region())
    with pytest.raises(errors.NotFoundInCloud) as missing:
        cloud.get_service("no-such-host")
    assert missing.value.status_code == 404
