"""Placement capacity semantics and the planning ledger's accounting."""

from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity
from tests.unit.planning import builders as b


def _ledger(*hosts_and_vms, headroom=None):
    states = {}
    vms = []
    for hyper, host_vms in hosts_and_vms:
        states[hyper.name] = b.host_state(hyper, host_vms)
        vms.extend(host_vms)
    return capacity.Ledger(states, {v.id: v for v in vms}, project_headroom=headroom)


def test_capacity_uses_reserved_and_allocation_ratio():
    hyper = b.host("h", vcpus=10, ram_mb=10000, reserved_ram_mb=2000, ram_ratio=1.5,
                   cpu_ratio=4.0, used_vcpus=38, used_ram_mb=11000)
    hs = b.host_state(hyper)
    assert hs.free(m.MEMORY_MB) == 1000
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(2, 1000)) is None
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(2, 1001)) == \
        capacity.RAM_DEPLETED
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(3, 10)) == \
        capacity.CPU_DEPLETED


def test_max_unit_caps_a_single_allocation():
    hyper = m.Hypervisor(name="h", inventories={
        m.VCPU: m.Inventory(total=64, allocation_ratio=4.0, max_unit=16),
        m.MEMORY_MB: m.Inventory(total=100000)})
    hs = b.host_state(hyper)
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(17, 10)) == \
        capacity.CPU_DEPLETED
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(16, 10)) is None


def test_host_without_inventory_cannot_take_a_vm():
    hs = b.host_state(m.Hypervisor(name="h"))
    assert capacity.capacity_rejection(hs, capacity.ResourceRequest(1, 1)) == \
        capacity.NO_INVENTORY


def test_hugepages_are_counted_in_pages_of_the_serving_size():
    hyper = b.host("h", hugepages=[m.HugePages(2048, 3000, 3000)])
    ledger = _ledger((hyper, []))
    big = b.vm("v1", None, fl=b.flavor(2, 4096, **{"hw:mem_page_size": "2MB"}))
    req = capacity.resource_request_of(big)
    assert ledger.rejection(big, req, "h") is None
    ledger.move(big, req, "h")
    assert ledger.hosts["h"].hugepages_free[2048] == 3000 - 2048
    second = b.vm("v2", None, fl=big.flavor)
    assert ledger.rejection(second, req, "h") == capacity.HUGEPAGES_DEPLETED


def test_each_placement_is_counted_before_the_next():
    ledger = _ledger((b.host("src", used_vcpus=4, used_ram_mb=8192),
                      [b.vm("a", "src"), b.vm("b", "src")]),
                     (b.host("dst", ram_mb=6000), []))
    assert ledger.hosts["src"].instance_ids == {"a", "b"}
    vm_a, vm_b = b.vm("a", "src"), b.vm("b", "src")
    req = capacity.resource_request_of(vm_a)
    assert ledger.rejection(vm_a, req, "dst") is None
    ledger.move(vm_a, req, "dst")
    assert ledger.rejection(vm_b, req, "dst") == capacity.RAM_DEPLETED
    assert ledger.hosts["src"].used[m.MEMORY_MB] == 4096
    assert ledger.location("a") == "dst"


def test_replanning_a_vm_already_counted_on_target_does_not_count_twice():
    ledger = _ledger((b.host("src"), [b.vm("a", "src")]), (b.host("dst"), []))
    vm_a = b.vm("a", "src")
    req = capacity.resource_request_of(vm_a)
    ledger.move(vm_a, req, "dst")
    used = dict(ledger.hosts["dst"].used)
    assert ledger.rejection(vm_a, req, "dst") is None
    ledger.move(vm_a, req, "dst")
    assert ledger.hosts["dst"].used == used
    assert ledger.hosts["dst"].num_instances == 1


def test_replanning_to_another_target_releases_the_first():
    ledger = _ledger((b.host("src"), [b.vm("a", "src")]), (b.host("t1"), []),
                     (b.host("t2"), []))
    vm_a = b.vm("a", "src")
    req = capacity.resource_request_of(vm_a)
    ledger.move(vm_a, req, "t1")
    ledger.move(vm_a, req, "t2")
    assert ledger.hosts["t1"].used[m.MEMORY_MB] == 0
    assert ledger.hosts["t2"].used[m.MEMORY_MB] == 4096


def test_quota_is_charged_only_for_vms_counted_nowhere():
    ledger = _ledger((b.host("src"), [b.vm("a", "src")]), (b.host("dst"), []),
                     headroom={"p1": {m.VCPU: 1, m.MEMORY_MB: 100000}})
    counted = b.vm("a", "src")
    req = capacity.resource_request_of(counted)
    assert ledger.rejection(counted, req, "dst") is None
    new = b.vm("new", None)
    assert ledger.rejection(new, req, "dst") == capacity.QUOTA_EXCEEDED


def test_a_trial_undoes_its_moves_unless_kept_and_an_outer_trial_undoes_the_kept_ones():
    ledger = _ledger((b.host("src", used_ram_mb=8192), [b.vm("a", "src"), b.vm("b", "src")]),
                     (b.host("t1"), []), (b.host("t2"), []))
    vm_a, vm_b = b.vm("a", "src"), b.vm("b", "src")
    req = capacity.resource_request_of(vm_a)
    with ledger.trial():
        with ledger.trial():
            ledger.move(vm_a, req, "t1")
        assert ledger.location("a") == "src" and ledger.hosts["t1"].used[m.MEMORY_MB] == 0
        with ledger.trial() as trial:
            ledger.move(vm_a, req, "t1")
            ledger.move(vm_b, req, "t2")
            trial.keep()
        assert (ledger.location("a"), ledger.location("b")) == ("t1", "t2")
        assert ledger.hosts["t1"].instance_ids == {"a"} and ledger.hosts["src"].used[m.MEMORY_MB] == 0
    assert (ledger.location("a"), ledger.location("b")) == ("src", "src")
    assert ledger.hosts["t1"].instance_ids == set() and ledger.hosts["t2"].used[m.MEMORY_MB] == 0
    assert ledger.hosts["src"].used[m.MEMORY_MB] == 8192
