"""The fast path's watch: hosts whose signal turned bad, and one log line per source outage, not one per look."""

import logging

from keyvrm.drivers import errors
from keyvrm.engine import fastpath
from keyvrm.model import snapshot as m
from tests.unit.executor import helpers as h


class _Nova:
    def __init__(self):
        self.down, self.failing = set(), False

    def list_compute_services(self):
        if self.failing:
            raise errors.DriverUnavailable("Nova API: connection refused")
        return [m.ComputeService(host=name, state=m.SERVICE_DOWN if name in self.down else m.SERVICE_UP,
                                 status=m.SERVICE_ENABLED) for name in ("cmp-1", "cmp-2")]


def test_a_nova_outage_is_logged_when_it_begins_and_when_it_ends_and_hosts_turning_bad_are_reported(caplog):
    nova, clock = _Nova(), h.StepClock()
    watch = fastpath.FailureWatch(nova, None, clock, stale_after_s=10)
    assert watch.look() == {}  # the first look learns the states
    nova.failing = True
    with caplog.at_level(logging.WARNING, logger=fastpath.__name__):
        for _ in range(135):  # 4.5 minutes of looks every 2 s
            assert watch.look() == {}
            clock.sleep(2)
        nova.failing, nova.down = False, {"cmp-2"}
        assert watch.look() == {"cmp-2": "compute service down"}
        assert watch.look() == {}  # still down: not reported again
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert "compute services not read (Nova API: connection refused)" in lines[0] and "once per outage" in lines[0]
    assert lines[1] == "fast path: compute services read again after 270 s"
