"""A hypervisors API 2.87 entry becomes a Hypervisor with what the API reports, no more."""

from keyvrm.drivers.cloud import openstack_parse as parse
from keyvrm.model import codec
from keyvrm.model import snapshot as m
from keyvrm.scheduling.host_state import HostState

BODY_2_87 = {
    "id": "c1a3e0f5-7c2b-4a89-9a55-0d5e3f9c1a01", "hypervisor_hostname": "node1.example",
    "state": "up", "status": "enabled", "hypervisor_type": "QEMU", "hypervisor_version": 8002000,
    "host_ip": "10.0.0.7", "vcpus": 64, "memory_mb": 262144, "local_gb": 2000,
    "cpu_info": {"arch": "x86_64", "model": "Cascadelake-Server", "vendor": "Intel",
                 "topology": {"cells": 2, "sockets": 1, "cores": 16, "threads": 2},
                 "features": ["vmx", "avx512f"], "maxphysaddr": {"mode": "emulate", "bits": 46}},
    "service": {"id": "5d0e3b8e-0000-4000-8000-000000000001", "host": "cmp1", "disabled_reason": None},
}


def test_a_2_87_entry_keeps_cpu_info_and_says_huge_pages_are_not_reported():
    hyp = parse.hypervisor(BODY_2_87, {"cmp1": "az1"}, {"cmp1": ["agg1"]}, ("HW_ARCH_X86_64",))
    assert (hyp.name, hyp.availability_zone, hyp.aggregates) == ("cmp1", "az1", ("agg1",))
    assert (hyp.hypervisor_type, hyp.hypervisor_version, hyp.host_ip) == ("QEMU", 8002000, "10.0.0.7")
    assert hyp.cpu_arch == "x86_64" and hyp.capabilities["cpu_info"]["maxphysaddr"]["bits"] == 46
    assert hyp.hugepages is None and "supported_instances" not in hyp.capabilities
    state = HostState(hyp, ())
    assert not state.hugepages_known and state.capabilities["hypervisor_type"] == "QEMU"


def test_an_entry_without_cpu_info_has_no_architecture():
    hyp = parse.hypervisor(dict(BODY_2_87, cpu_info={}), {}, {}, ())
    assert hyp.capabilities == {} and hyp.cpu_arch is None


def test_the_snapshot_codec_keeps_unreported_huge_pages_and_cpu_info():
    hyp = parse.hypervisor(BODY_2_87, {}, {}, ())
    known = m.Hypervisor("cmp2", hugepages=(m.HugePages(2048, 10, 4),))
    snap = m.RegionSnapshot(region="r", taken_at=0.0, hypervisors=(hyp, known))
    back = codec.loads(codec.dumps(snap))
    assert back.hypervisors == (hyp, known) and back.hypervisors[0].hugepages is None
