"""The whole demo cloud of the browser tests: Keystone, one keyvrm-api per region, Horizon with the plugin.

Used by tests/browser/conftest.py and by tools/horizon-demo.sh (``python -m tests.browser.cloud``).
"""

import contextlib
import dataclasses
import os
import sys
import tempfile

from tests.browser import horizon
from tests.browser import identity
from tests.browser import keyvrm_api
from tests.browser import processes

HERE = os.path.dirname(os.path.abspath(__file__))
# keyvrm_api.start's arguments per region. RegionOne runs browser-region.yaml (18 hosts: the
# demo's two aggregates, and agg-003 where an evacuation hangs), at 30x so that the VM the hung
# evacuation locks (6 h of simulated time) stays locked for 12 minutes of the run. RegionTwo
# runs keyvrm-demo's own scenario over 10 hosts, so switching region changes the aggregates' hosts.
REGIONS = {
    "RegionOne": dict(scenario=os.path.join(HERE, "browser-region.yaml"), speed=30.0,
                      aggregates={"agg-003": {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}}),
    "RegionTwo": dict(hosts=10),
}


@dataclasses.dataclass(frozen=True)
class Cloud:
    """The running demo cloud."""

    keystone_url: str
    apis: dict
    horizon_url: str
    workdir: str


@contextlib.contextmanager
def running(workdir):
    """Start Keystone, the regions' keyvrm-api and Horizon in ``workdir``; stop them all on exit."""
    started = []
    try:
        keystone = identity.start(workdir, os.path.join(workdir, "keystone.log"))
        started.append(keystone.process)
        apis = {}
        for region, demo in REGIONS.items():
            api = keyvrm_api.start(os.path.join(workdir, region), region, keystone.url,
                                   os.path.join(workdir, "keyvrm-api-%s.log" % region), **demo)
            started.append(api.process)
            apis[region] = api
        identity.populate(keystone.url, {region: api.url for region, api in apis.items()})
        dashboard = horizon.start(os.path.join(workdir, "horizon"), keystone.url,
                                  os.path.join(workdir, "horizon.log"))
        started.append(dashboard.process)
        yield Cloud(keystone_url=keystone.url, apis=apis, horizon_url=dashboard.url, workdir=workdir)
    finally:
        for process in reversed(started):
            processes.stop(process)


def main() -> int:
    """Run the demo cloud until Ctrl-C, printing Horizon's URL and the credentials."""
    workdir = tempfile.mkdtemp(prefix="keyvrm-horizon-demo-")
    with running(workdir) as cloud:
        sys.stdout.write("Horizon:  %s/  (admin / %s, reader / %s)\n" % (
            cloud.horizon_url, identity.ADMIN_PASSWORD, identity.READER_PASSWORD))
        sys.stdout.write("Keystone: %s\n" % cloud.keystone_url)
        for region, api in cloud.apis.items():
            sys.stdout.write("keyvrm-api %s: %s\n" % (region, api.url))
        sys.stdout.write("logs in %s; Ctrl-C stops\n" % workdir)
        sys.stdout.flush()
        try:
            cloud.apis["RegionOne"].process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
