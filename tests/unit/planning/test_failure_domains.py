"""Failure domains of an HA aggregate's hosts: rack aggregates' metadata, else the aggregate's host-name pattern."""

from keyvrm.model import snapshot as m
from keyvrm.planning import failure_domains as fd
from tests.unit.planning import builders as b

HOSTS = ("rack1-cmp1", "rack1-cmp2", "rack2-cmp1", "edge")


def _labels(pattern=None, racks=(), hosts=HOSTS):
    """``racks``: (aggregate, domain, hosts) each a Nova aggregate carrying ``ha_failure_domain``."""
    extra = tuple(m.Aggregate(name, 10 + i, metadata={fd.DOMAIN_KEY: domain}, hosts=tuple(members))
                  for i, (name, domain, members) in enumerate(racks))
    placed = [b.host(h, aggregates=(b.AGG,) + tuple(a.name for a in extra if h in a.hosts)) for h in hosts]
    metadata = {} if pattern is None else {fd.PATTERN_KEY: pattern}
    index = b.snapshot(placed, agg_metadata=metadata, extra_aggregates=extra).index()
    return fd.domains_of(index, b.AGG, list(hosts))


def test_hosts_without_any_label_are_in_no_domain():
    assert _labels() == fd.DomainLabels((), None)


def test_a_rack_aggregate_names_the_domain_of_its_hosts():
    found = _labels(racks=[("rack-a", "A", ["rack1-cmp1", "rack1-cmp2"]), ("rack-b", "B", ["rack2-cmp1"])])
    assert found.domains == (("A", ("rack1-cmp1", "rack1-cmp2")), ("B", ("rack2-cmp1",)))


def test_the_pattern_names_a_domain_by_its_first_group_or_whole_match_and_skips_other_hosts():
    assert _labels(r"^(rack\d+)-").domains == (("rack1", ("rack1-cmp1", "rack1-cmp2")), ("rack2", ("rack2-cmp1",)))
    assert _labels(r"^rack\d+").domains == (("rack1", ("rack1-cmp1", "rack1-cmp2")), ("rack2", ("rack2-cmp1",)))


def test_metadata_comes_before_the_pattern_and_the_first_aggregate_by_name_wins():
    found = _labels(r"^(rack\d+)-", racks=[("z-row", "row9", ["rack1-cmp1"]), ("a-rack", "R7", ["rack1-cmp1"]),
                                           ("b-rack", "", ["edge"])])
    assert found.domains == (("R7", ("rack1-cmp1",)), ("rack1", ("rack1-cmp2",)), ("rack2", ("rack2-cmp1",)))


def test_a_pattern_that_does_not_compile_labels_nothing_and_says_which_key_and_why():
    found = _labels(r"^(rack\d+-", racks=[("rack-a", "A", ["rack1-cmp1"])])
    assert found.domains == ()
    assert found.error.startswith("ha_failure_domain_pattern '^(rack\\\\d+-' on aggregate %s is not a regular"
                                  " expression: missing )" % b.AGG)
