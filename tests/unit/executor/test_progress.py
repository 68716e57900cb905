"""A run's question "can my migration still end?": KeyVRM's fencing at every poll, Nova's services every 10 s."""

from keyvrm.db import api as db_api
from keyvrm.executor import progress
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from tests.unit.executor import helpers as h


class _CountingCloud(SimCloudDriver):
    """The sim cloud, counting the compute-service reads a run makes."""

    def __init__(self, region):
        super().__init__(region)
        self.service_reads = 0

    def get_service(self, host):
        self.service_reads += 1
        return super().get_service(host)


def _watch(db, region):
    clock = h.StepClock()
    cloud = _CountingCloud(region)
    return progress.EndWatch(cloud, db, clock), cloud, clock


def test_nova_is_asked_for_both_ends_of_a_live_migration_at_the_first_poll_then_every_ten_seconds(sqlite_db):
    watch, cloud, clock = _watch(sqlite_db, h.small_region())
    answers = []
    for _ in range(6):  # polls 2 s apart over 10 s
        answers.append(watch.dead_end("live_migrate", h.SOURCE, h.TARGET))
        clock.sleep(2)
    assert answers == [None] * 6
    assert cloud.service_reads == 4  # at 0 s and at 10 s, two ends each


def test_a_target_nova_shows_down_ends_the_wait_within_ten_seconds(sqlite_db):
    region = h.small_region()
    watch, cloud, clock = _watch(sqlite_db, region)
    assert watch.dead_end("evacuate", h.SOURCE, h.TARGET) is None
    h.source_down(region, h.TARGET)
    waited, why = 0, None
    while why is None:
        clock.sleep(2)
        waited += 2
        why = watch.dead_end("evacuate", h.SOURCE, h.TARGET)
    assert waited == 10
    assert why == "the target %s is down: its compute service is forced down" % h.TARGET


def test_a_target_keyvrm_condemned_ends_the_wait_at_the_next_poll_without_asking_nova(sqlite_db):
    watch, cloud, clock = _watch(sqlite_db, h.small_region())
    assert watch.host_down(h.TARGET) is None
    reads = cloud.service_reads
    db_api.set_hypervisor_state(sqlite_db, h.TARGET, "fencing")
    clock.sleep(2)
    assert watch.host_down(h.TARGET) == "KeyVRM condemned it (state fencing)"
    assert watch.dead_end("live_migrate", h.SOURCE, h.TARGET) == \
        "the target %s is down: KeyVRM condemned it (state fencing)" % h.TARGET
    assert cloud.service_reads == reads


def test_an_evacuation_needs_only_its_target_alive(sqlite_db):
    region = h.small_region()
    watch, cloud, _ = _watch(sqlite_db, region)
    h.source_down(region)
    assert watch.dead_end("evacuate", h.SOURCE, h.TARGET) is None
    assert cloud.service_reads == 1


def test_live_work_asks_nova_about_every_migration_at_once(sqlite_db):
    region = h.small_region()
    cloud, clock = _CountingCloud(region), h.StepClock()
    h.source_down(region, h.OTHER)
    to_target = m.Migration(id=1, server_id="vm-1", migration_type="evacuation", status="accepted",
                            source_host=h.SOURCE, dest_host=h.TARGET)
    to_other = m.Migration(id=2, server_id="vm-2", migration_type="evacuation", status="accepted",
                           source_host=h.SOURCE, dest_host=h.OTHER)
    assert progress.live_work(cloud, sqlite_db, clock, [to_target, to_other]) == [to_target]
    assert cloud.service_reads == 2
