"""keyvrm-status upgrade check against a real VictoriaMetrics and a real Sentinel set."""

import time

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck as oslo_upgradecheck
import redis

from keyvrm import conf as keyvrm_conf
from keyvrm.drivers.heartbeat import sentinel
from keyvrm import upgradecheck
from tests.functional.harvest.conftest import SERVICE

Code = oslo_upgradecheck.Code


def _checks(tmp_path, tsdb_url, sentinels):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    policy_opts.set_defaults(conf)
    conf([], project="keyvrm", default_config_files=[])
    conf.set_override("connection", "sqlite:///%s/keyvrm.sqlite" % tmp_path, group="database")
    conf.set_override("url", tsdb_url, group="metrics")
    conf.set_override("sentinels", sentinels, group="heartbeat")
    conf.set_override("service_name", SERVICE, group="heartbeat")
    return upgradecheck.Checks(conf)


def test_real_sources_answer_and_a_closed_port_fails(tmp_path, tsdb, shared_sentinel_set):
    master_host, master_port = shared_sentinel_set.master_address()
    sentinel.write_heartbeat(redis.Redis(host=master_host, port=master_port), "keyvrm:heartbeat:", "cmp-1",
                             time.time(), 600)
    tsdb.import_lines(['node_cpu_seconds_total{instance="cmp-1:9100",cpu="0",mode="idle"} 100'])
    checks = _checks(tmp_path, tsdb.url, shared_sentinel_set.sentinels)
    metrics, heartbeat = checks._metrics_source(), checks._heartbeat_source()
    assert metrics.code in (Code.SUCCESS, Code.WARNING)  # one sample gives no rate yet: answered, maybe empty
    assert "did not answer" not in (metrics.details or "")
    assert heartbeat.code == Code.SUCCESS and heartbeat.details.startswith("heartbeat for ")
    closed = _checks(tmp_path, "http://127.0.0.1:1", ["127.0.0.1:1"])
    assert closed._metrics_source().code == Code.FAILURE
    silent = closed._heartbeat_source()
    assert silent.code == Code.FAILURE and "heartbeat store unavailable" in silent.details
    assert "<redis" not in silent.details  # the sentence, not redis-py's repr of every connection
