"""Process start-up shared by every KeyVRM command: parse config, set up oslo.log (the one place)."""

import os

from oslo_log import log

from keyvrm import conf as keyvrm_conf

PROJECT = "keyvrm"
EXTRA_LOG_LEVELS = ["taskflow=WARN", "stevedore=WARN", "tooz=WARN", "alembic=WARN"]

_log_opts_registered = set()


def prepare(argv, conf=None, default_config_files=None):
    """Parse ``argv`` into ``conf`` (global CONF by default) and configure logging.

    Config files: ``--config-file`` / ``--config-dir`` as every OpenStack service, or
    the ``KEYVRM_CONFIG_FILE`` environment variable when none is given.
    """
    conf = conf or keyvrm_conf.CONF
    if id(conf) not in _log_opts_registered:
        log.register_options(conf)
        log.set_defaults(default_log_levels=log.get_default_log_levels() + EXTRA_LOG_LEVELS)
        _log_opts_registered.add(id(conf))
    if default_config_files is None and os.environ.get("KEYVRM_CONFIG_FILE"):
        default_config_files = [os.environ["KEYVRM_CONFIG_FILE"]]
    conf(argv, project=PROJECT, default_config_files=default_config_files)
    log.setup(conf, PROJECT)
    return conf
