"""A small simulated region with a KeyVRM engine dispatcher on it, driven cycle by cycle."""

import os
import tempfile

import pytest

from keyvrm.demo import embedded
from keyvrm.simulator import scenario

SMALL = """
name: flows-small
seed: 7
duration: 1h
region:
  service_down_time_s: 60
  evacuate_to_shutoff: true
topology:
  hosts: 8
  hosts_per_aggregate: 4
  hosts_per_rack: 4
  availability_zones: 1
  host: {vcpus: 32, ram_mb: 131072, reserved_ram_mb: 4096}
workload:
  vms_per_host: 3
  server_group_fraction: 0
timeline: []
"""


@pytest.fixture
def make_region():
    """Build an embedded region from the small scenario (``timeline`` YAML appended) and start it."""
    started = []
    # SQLite on tmpfs when there is one: the engine commits often and fsyncs cost seconds.
    workdir = tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)

    def make(timeline="", fencers=None, flow_settings=None, instance_storage="shared"):
        text = SMALL.replace("timeline: []", "timeline:\n" + timeline if timeline else "timeline: []")
        text = text.replace("evacuate_to_shutoff: true", "evacuate_to_shutoff: true\n  instance_storage: %s"
                            % instance_storage)
        region = scenario.loads(text).start()
        emb = embedded.EmbeddedRegion(region, "sqlite:///%s/keyvrm-%d.sqlite" % (workdir.name, len(started)),
                                      fencers=fencers, flow_settings=flow_settings)
        emb.sync_aggregates()
        emb.start_dispatcher()
        started.append(emb)
        return emb

    yield make
    for emb in started:
        emb.stop()
    workdir.cleanup()
