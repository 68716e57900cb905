"""A small simulated region with a KeyVRM engine dispatcher on it, driven cycle by cycle."""

import os
import tempfile

import pytest

from keyvrm.demo import embedded
from tests.unit.flows import regions


@pytest.fixture
def make_region():
    """Build an embedded region from the small scenario (``timeline`` YAML appended) and start it."""
    started = []
    # SQLite on tmpfs when there is one: the engine commits often and fsyncs cost seconds.
    workdir = tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)

    def make(timeline="", fencers=None, flow_settings=None, instance_storage="shared"):
        region = regions.small_region(timeline, instance_storage)
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
