"""HA's alerts in the engine's log with the settings the README lists (issue 32 item 7): once, not every run."""

import logging

from oslo_config import cfg
import oslo_messaging

from keyvrm import conf as keyvrm_conf
from keyvrm import notifications
from keyvrm.planning import reasons
from keyvrm.scenarios import expect
from tests.unit.flows import regions

HA_ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
COMPUTE_STOPS = "  - at: 1m\n    fault: compute_stops\n    hosts: [cmp-00003]\n"  # the host lives on


def _readme_notifier():
    """The engine's notifier as the README's deployment builds it: no notification driver, no Alertmanager."""
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    return notifications.Notifier(conf, oslo_messaging.get_notification_transport(conf, url="fake://"))


def test_a_live_host_whose_nova_compute_stopped_is_logged_once_at_warning_while_every_run_finds_it(
        make_region, caplog):
    emb = make_region(COMPUTE_STOPS)
    emb.dispatcher.resources.notifier = _readme_notifier()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    with caplog.at_level(logging.WARNING, logger=notifications.__name__):
        for _ in range(5):
            assert emb.run_cycle(120)
            emb.advance(60.0)
    assert expect.run_codes(emb.db, regions.HA_AGG, "HA")[-3:] == [reasons.HOST_ALIVE_SERVICE_DOWN] * 3
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.getMessage().startswith("alert ")]
    assert len(lines) == 1 and lines[0][0] == logging.WARNING, lines
    assert lines[0][1].startswith("alert keyvrm.ha.warning: ")
    assert lines[0][1].endswith("(aggregate %s, host cmp-00003, reason_code host_alive_service_down)" % regions.HA_AGG)
