"""Differential tests: our filter emulations answer as Nova's own filter classes do.

Skipped unless nova is importable (it is heavy; it is not a KeyVRM dependency). Each
test draws random hosts and requests, asks both implementations and compares.
"""

import pytest

nova = pytest.importorskip("nova")

from hypothesis import given  # noqa: E402
from hypothesis import settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from nova import conf as nova_conf  # noqa: E402
from nova import objects  # noqa: E402
from nova.scheduler.filters import affinity_filter  # noqa: E402
from nova.scheduler.filters import aggregate_image_properties_isolation as n_aipi  # noqa: E402
from nova.scheduler.filters import aggregate_instance_extra_specs as n_aies  # noqa: E402
from nova.scheduler.filters import aggregate_multitenancy_isolation as n_amti  # noqa: E402
from nova.scheduler.filters import compute_capabilities_filter as n_ccf  # noqa: E402
from nova.scheduler.filters import extra_specs_ops as n_ops  # noqa: E402
from nova.scheduler.filters import image_props_filter as n_ipf  # noqa: E402
from nova.scheduler.filters import isolated_hosts_filter as n_ihf  # noqa: E402
from nova.scheduler.filters import num_instances_filter as n_nif  # noqa: E402
from nova.scheduler.filters import type_filter as n_tf  # noqa: E402
from nova.tests.unit.scheduler import fakes  # noqa: E402

from keyvrm.model import snapshot as m  # noqa: E402
from keyvrm.scheduling import extra_specs_ops  # noqa: E402
from keyvrm.scheduling import filters  # noqa: E402
from tests.unit.planning import builders as b  # noqa: E402

objects.register_all()
CONF = nova_conf.CONF

words = st.sampled_from(["a", "b", "c", "1", "2", "10", "x86_64", "true"])
numbers = st.sampled_from(["1", "2", "10", "2.5"])
string_ops = st.sampled_from(["", "s== ", "s!= ", "s< ", "s>= ", "<in> ", "<all-in> "])
numeric_ops = st.sampled_from(["= ", "== ", "!= ", ">= ", "<= "])
requirements = st.one_of(
    st.builds(lambda op, w: op + w, string_ops, words),
    st.builds(lambda a, c: "<or> %s <or> %s" % (a, c), words, words))
numeric_requirements = st.builds(lambda op, w: op + w, numeric_ops, numbers)
keys = st.sampled_from(["k1", "k2", "k3"])
metadata = st.dictionaries(keys, st.lists(words, min_size=1, max_size=2).map(",".join),
                           max_size=3)
projects = st.sampled_from(["p1", "p2", "p3"])


def _ours(name, host_state, request, **options):
    f = filters.build_filters([name], {name: options} if options else None)[0]
    return f.host_passes(host_state, request)


def _nova_host(name="h", aggregates=(), instances=(), **attrs):
    aggs = [objects.Aggregate(id=i, name="a%d" % i, metadata=dict(md))
            for i, md in enumerate(aggregates)]
    insts = [objects.Instance(uuid=u) for u in instances]
    return fakes.FakeHostState(name, "node", dict(aggregates=aggs, **attrs), instances=insts)


def _our_host(name="h", aggregates=(), instances=(), **kwargs):
    aggs = [m.Aggregate("a%d" % i, i, metadata=dict(md)) for i, md in enumerate(aggregates)]
    return b.host_state(b.host(name, **kwargs), [b.vm(u, name) for u in instances], aggs)


@settings(max_examples=300, deadline=None)
@given(words, requirements)
def test_extra_specs_match_agrees_with_nova(value, requirement):
    assert extra_specs_ops.match(value, requirement) == n_ops.match(value, requirement)


@settings(max_examples=200, deadline=None)
@given(numbers, numeric_requirements)
def test_extra_specs_numeric_match_agrees_with_nova(value, requirement):
    assert extra_specs_ops.match(value, requirement) == n_ops.match(value, requirement)


@settings(max_examples=200, deadline=None)
@given(st.lists(metadata, max_size=2),
       st.dictionaries(st.sampled_from(["k1", "k2", "aggregate_instance_extra_specs:k3",
                                        "hw:k1"]), requirements, max_size=3))
def test_aggregate_instance_extra_specs_agrees_with_nova(aggs, specs):
    flavor = objects.Flavor(name="f", extra_specs=dict(specs))
    nova_says = n_aies.AggregateInstanceExtraSpecsFilter().host_passes(
        _nova_host(aggregates=aggs), objects.RequestSpec(flavor=flavor))
    ours = _ours("AggregateInstanceExtraSpecsFilter", _our_host(aggregates=aggs),
                 b.request(b.vm("v", "x", fl=b.flavor(**specs))))
    assert ours == nova_says


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, words, max_size=3),
       st.dictionaries(st.sampled_from(["k1", "capabilities:k2", "capabilities:k3",
                                        "hw:k1", "k9"]), requirements, max_size=3))
def test_compute_capabilities_agrees_with_nova(stats, specs):
    flavor = objects.Flavor(name="f", extra_specs=dict(specs))
    nova_says = n_ccf.ComputeCapabilitiesFilter().host_passes(
        _nova_host(stats=dict(stats)), objects.RequestSpec(flavor=flavor))
    ours = _ours("ComputeCapabilitiesFilter", _our_host(capabilities=dict(stats)),
                 b.request(b.vm("v", "x", fl=b.flavor(**specs))))
    assert ours == nova_says


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["instance_type", "other"]),
                                st.sampled_from(["small", "small,large", " large , x"]),
                                max_size=2), max_size=2),
       st.sampled_from(["small", "large", "x", "tiny"]))
def test_aggregate_type_affinity_agrees_with_nova(aggs, flavor_name):
    nova_says = n_tf.AggregateTypeAffinityFilter().host_passes(
        _nova_host(aggregates=aggs),
        objects.RequestSpec(flavor=objects.Flavor(name=flavor_name)))
    ours = _ours("AggregateTypeAffinityFilter", _our_host(aggregates=aggs),
                 b.request(b.vm("v", "x", fl=b.flavor(name=flavor_name))))
    assert ours == nova_says


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["filter_tenant_id", "filter_tenant_id_2",
                                                 "other"]),
                                st.lists(projects, min_size=1, max_size=2).map(",".join),
                                max_size=2), max_size=2), projects)
def test_aggregate_multitenancy_isolation_agrees_with_nova(aggs, project):
    nova_says = n_amti.AggregateMultiTenancyIsolation().host_passes(
        _nova_host(aggregates=aggs), objects.RequestSpec(project_id=project))
    ours = _ours("AggregateMultiTenancyIsolation", _our_host(aggregates=aggs),
                 b.request(b.vm("v", "x", project=project)))
    assert ours == nova_says


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["os_distro", "os_type", "unrelated"]),
                                st.sampled_from(["ubuntu", "linux", "ubuntu,linux",
                                                 "windows"]),
                                max_size=2), max_size=2),
       st.fixed_dictionaries({}, optional={"os_distro": st.sampled_from(["ubuntu", "debian"]),
                                           "os_type": st.sampled_from(["linux", "windows"])}))
def test_aggregate_image_properties_isolation_agrees_with_nova(aggs, props):
    image = objects.ImageMeta.from_dict({"properties": dict(props)})
    nova_says = n_aipi.AggregateImagePropertiesIsolation().host_passes(
        _nova_host(aggregates=aggs), objects.RequestSpec(image=image))
    ours = _ours("AggregateImagePropertiesIsolation", _our_host(aggregates=aggs),
                 b.request(b.vm("v", "x"), m.Image("i", dict(props))))
    assert ours == nova_says


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 6), st.integers(1, 6),
       st.lists(st.dictionaries(st.just("max_instances_per_host"),
                                st.sampled_from(["2", "4", "bad"]), max_size=1), max_size=2))
def test_num_instances_filters_agree_with_nova(count, limit, aggs):
    CONF.set_override("max_instances_per_host", limit, group="filter_scheduler")
    try:
        uuids = ["u%d" % i for i in range(count)]
        nova_host = _nova_host(aggregates=aggs, num_instances=count)
        ours_host = _our_host(aggregates=aggs, instances=uuids)
        spec = objects.RequestSpec()
        req = b.request(b.vm("v", "x"))
        assert _ours("NumInstancesFilter", ours_host, req, max_instances_per_host=limit) == \
            n_nif.NumInstancesFilter().host_passes(nova_host, spec)
        assert _ours("AggregateNumInstancesFilter", ours_host, req,
                     max_instances_per_host=limit) == \
            n_nif.AggregateNumInstancesFilter().host_passes(nova_host, spec)
    finally:
        CONF.clear_override("max_instances_per_host", group="filter_scheduler")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["i1", "i2"]), max_size=2, unique=True),
       st.lists(st.sampled_from(["h", "h2"]), max_size=2, unique=True),
       st.booleans(), st.sampled_from(["i1", "i2", "i3"]), st.sampled_from(["h", "h2"]))
def test_isolated_hosts_agrees_with_nova(images, hosts, restrict, image_id, host):
    overrides = dict(isolated_images=images, isolated_hosts=hosts,
                     restrict_isolated_hosts_to_isolated_images=restrict)
    for key, value in overrides.items():
        CONF.set_override(key, value, group="filter_scheduler")
    try:
        image = objects.ImageMeta.from_dict({"id": image_id, "properties": {}})
        nova_says = n_ihf.IsolatedHostsFilter().host_passes(
            _nova_host(host), objects.RequestSpec(image=image))
    finally:
        for key in overrides:
            CONF.clear_override(key, group="filter_scheduler")
    ours = _ours("IsolatedHostsFilter", _our_host(host), b.request(b.vm(
        "v", "x", image_id=image_id)), isolated_images=images, isolated_hosts=hosts,
        restrict_isolated_hosts_to_isolated_images=restrict)
    assert ours == nova_says


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["m1", "m2", "m3", "o1"]), max_size=4, unique=True),
       st.sampled_from([m.ANTI_AFFINITY, m.AFFINITY, m.SOFT_ANTI_AFFINITY]),
       st.integers(1, 3), st.lists(st.sampled_from(["h", "h2"]), max_size=2, unique=True))
def test_server_group_filters_agree_with_nova(on_host, policy, max_per_host, group_hosts):
    members = ["m1", "m2", "m3", "new"]
    rules = {"max_server_per_host": max_per_host} if policy == m.ANTI_AFFINITY else {}
    n_group = objects.InstanceGroup(uuid="g", policy=policy, policies=[policy],
                                    members=members, hosts=list(group_hosts), rules=rules)
    spec = objects.RequestSpec(instance_group=n_group, instance_uuid="new")
    group = m.ServerGroup("g", "g", policy, members=tuple(members), rules=rules)
    our_vms = [b.vm(u, "h", server_group_id="g" if u in members else None) for u in on_host]
    ours_host = b.host_state(b.host("h"), our_vms)
    req = b.request(b.vm("new", "src", server_group_id="g"), group=group,
                    group_hosts=group_hosts)
    nova_host = _nova_host("h", instances=on_host)
    for name, cls in (("ServerGroupAntiAffinityFilter",
                       affinity_filter.ServerGroupAntiAffinityFilter),
                      ("ServerGroupAffinityFilter", affinity_filter.ServerGroupAffinityFilter)):
        assert _ours(name, ours_host, req) == cls().host_passes(nova_host, spec), name


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True),
       st.lists(st.sampled_from(["a", "b", "d"]), max_size=2, unique=True))
def test_same_and_different_host_agree_with_nova(on_host, hinted):
    spec = objects.RequestSpec(scheduler_hints={"same_host": hinted, "different_host": hinted})
    nova_host = _nova_host("h", instances=on_host)
    ours_host = _our_host("h", instances=on_host)
    req = b.request(b.vm("v", "x", scheduler_hints={"same_host": hinted,
                                                    "different_host": hinted}))
    assert _ours("SameHostFilter", ours_host, req) == \
        affinity_filter.SameHostFilter().host_passes(nova_host, spec)
    assert _ours("DifferentHostFilter", ours_host, req) == \
        affinity_filter.DifferentHostFilter().host_passes(nova_host, spec)


supported = st.lists(st.tuples(st.sampled_from(["x86_64", "aarch64"]),
                               st.sampled_from(["qemu", "kvm"]),
                               st.sampled_from(["hvm", "xen"])), max_size=2)


@settings(max_examples=200, deadline=None)
@given(supported, st.sampled_from([0, 6002000, 8000000]),
       st.fixed_dictionaries({}, optional={
           "hw_architecture": st.sampled_from(["x86_64", "aarch64"]),
           "img_hv_type": st.sampled_from(["qemu", "kvm"]),
           "hw_vm_mode": st.sampled_from(["hvm", "xen"]),
           "img_hv_requested_version": st.sampled_from([">=6.0", ">= 7.0, <9", "<6.2"])}))
def test_image_properties_agrees_with_nova(instances, hv_version, props):
    image = objects.ImageMeta.from_dict({"properties": dict(props)})
    nova_host = _nova_host(supported_instances=[tuple(i) for i in instances],
                           hypervisor_version=hv_version, cpu_info={})
    nova_says = n_ipf.ImagePropertiesFilter().host_passes(
        nova_host, objects.RequestSpec(image=image))
    ours = _ours("ImagePropertiesFilter", _our_host(
        capabilities={"supported_instances": [list(i) for i in instances]},
        hypervisor_version=hv_version), b.request(b.vm("v", "x"), m.Image("i", dict(props))))
    assert ours == nova_says
