"""ExecutorSettings: retries from the business config, waits and timeouts from oslo.config."""

import dataclasses

from oslo_config import cfg

from keyvrm import conf as keyvrm_conf
from keyvrm.executor.runner import ExecutorSettings
from keyvrm.model import settings


def test_settings_take_business_values_from_app_config_and_waits_from_conf():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    conf.set_override("poll_interval", 2.5, group="executor")
    conf.set_override("migrating_timeout", 900, group="lifecycle")
    app = dataclasses.replace(settings.AppConfig(), executor_max_attempts=5,
                              executor_max_repeated_errors=3, executor_manual_action_timeout=10)
    built = ExecutorSettings.from_conf(conf, app)
    assert (built.max_attempts, built.max_repeated_errors, built.manual_action_timeout_s) == (5, 3, 600)
    assert built.poll_interval_s == 2.5 and built.retry_delay_s == 10.0
    assert built.lifecycle_timeouts_s["migrating"] == 900
    assert built.lifecycle_timeouts_s["starting"] == 15 * 60


def test_without_app_config_the_spec_defaults_apply():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    built = ExecutorSettings.from_conf(conf)
    assert (built.max_attempts, built.max_repeated_errors, built.manual_action_timeout_s) == (3, 2, 1800)
    assert built.lifecycle_timeouts_s["migrating"] == 6 * 3600
