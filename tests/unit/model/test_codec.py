"""Snapshot documents (JSON and stored msgpack): round-trip exactly, are versioned, refuse what they cannot read."""

import json
import zlib

import msgspec
import pytest

from keyvrm import exception
from keyvrm.model import codec
from keyvrm.model import snapshot as m


def _snapshot():
    host = m.Hypervisor(
        name="cmp-1", availability_zone="az1", aggregates=("agg1",),
        service=m.ComputeService("cmp-1", state="down", forced_down=True,
                                 disabled_reason="KeyVRM: fenced"),
        inventories={m.VCPU: m.Inventory(64, 4, 4.0, 64, 100),
                     m.MEMORY_MB: m.Inventory(262144, 4096, 1.0, 262144, 131072)},
        hugepages=(m.HugePages(2048, 1024, 512),), traits=("HW_CPU_X86_AVX2",),
        capabilities={"cpu_info": {"vendor": "Intel"}},
        metrics=m.HostMetrics(cpu_pct=55.5, ram_pct=None, down_interfaces=("bond0",),
                              interfaces_known=True),
        heartbeat_at=1700000000.5)
    vm = m.VM("3f1c", "web-1", "cmp-1", "proj", m.Flavor("m1.large", 4, 8192, 40,
                                                         {"hw:mem_page_size": "large"}),
              server_group_id="sg1", metadata={"evacuate_order": "2"}, volume_backed=True,
              evacuate_order=2, metrics=m.VMMetrics(1.5, 4096.0, None))
    return m.RegionSnapshot(
        region="RegionOne", taken_at=1700000001.0,
        availability_zones=(m.AvailabilityZone("az1"),),
        aggregates=(m.Aggregate("agg1", 7, "uuid-7", "az1", {"ssd": "true"}, ("cmp-1",)),),
        hypervisors=(host,), vms=(vm,),
        server_groups=(m.ServerGroup("sg1", "web", m.ANTI_AFFINITY, ("3f1c",),
                                     {"max_server_per_host": 1}),),
        images=(m.Image("img", {"hw_architecture": "x86_64"}),),
        migrations=(m.Migration(1, "3f1c", "evacuation", "running", "cmp-1", "cmp-2"),),
        sources={m.SOURCE_NOVA: m.SourceStatus(m.SOURCE_NOVA, True, requests=7),
                 m.SOURCE_METRICS: m.SourceStatus(m.SOURCE_METRICS, False, "HTTP 500")})


def test_snapshot_round_trips_exactly_through_json():
    original = _snapshot()
    assert codec.loads(codec.dumps(original)) == original


def test_snapshot_round_trips_through_zlib():
    original = _snapshot()
    assert codec.decompress(codec.compress(original)) == original


def test_a_snapshot_an_earlier_release_stored_as_json_still_loads():
    original = _snapshot()
    assert codec.decompress(zlib.compress(codec.dumps(original).encode("utf-8"))) == original


def test_a_stored_document_in_another_field_order_is_read_field_by_field():
    original = _snapshot()
    document = codec.to_dict(original)
    fields = document["schema"]["Flavor"]
    document["schema"]["Flavor"] = list(reversed(fields))
    for vm in document["snapshot"][5]:
        vm[4] = list(reversed(vm[4]))
    assert codec.unpack(zlib.compress(msgspec.msgpack.encode(document))) == original


def test_a_stored_document_with_an_unknown_field_is_refused_clearly():
    document = codec.to_dict(_snapshot())
    document["schema"]["VM"].append("from_the_future")
    with pytest.raises(exception.SnapshotFormatError, match="from_the_future"):
        codec.unpack(zlib.compress(msgspec.msgpack.encode(document)))


def test_missing_metric_stays_missing_not_zero():
    loaded = codec.loads(codec.dumps(_snapshot()))
    assert loaded.hypervisors[0].metrics.ram_pct is None
    assert loaded.vms[0].metrics.net_mbps is None


def test_document_is_versioned_and_positional():
    document = json.loads(codec.dumps(_snapshot()))
    assert document["format"] == "keyvrm.snapshot" and document["version"] == codec.VERSION
    assert document["schema"]["VM"][:3] == ["id", "name", "host"]
    assert "id" not in json.dumps(document["snapshot"][4])  # rows carry no keys


def test_older_document_without_a_defaulted_field_still_loads():
    document = json.loads(codec.dumps(_snapshot()))
    position = document["schema"]["Hypervisor"].index("heartbeat_at")
    document["schema"]["Hypervisor"].pop(position)
    for row in document["snapshot"][4]:
        row.pop(position)
    assert codec.from_dict(document).hypervisors[0].heartbeat_at is None


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(version=99),
    lambda d: d.update(format="other"),
    lambda d: d["schema"]["VM"].append("from_the_future"),
    lambda d: d["schema"].update(Unknown=["x"]),
])
def test_unreadable_documents_are_refused_clearly(mutate):
    document = json.loads(codec.dumps(_snapshot()))
    mutate(document)
    with pytest.raises(exception.SnapshotFormatError):
        codec.from_dict(document)


def test_garbage_blob_is_refused_clearly():
    with pytest.raises(exception.SnapshotFormatError):
        codec.decompress(b"not zlib")
