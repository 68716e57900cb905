"""KeyVRM's deployment configuration (oslo.config): one module per option group."""

from oslo_config import cfg

from keyvrm.conf import api
from keyvrm.conf import cloud
from keyvrm.conf import database
from keyvrm.conf import engine
from keyvrm.conf import executor
from keyvrm.conf import fencing
from keyvrm.conf import ha
from keyvrm.conf import harvest
from keyvrm.conf import heartbeat
from keyvrm.conf import lifecycle
from keyvrm.conf import metrics
from keyvrm.conf import paths

CONF = cfg.CONF

GROUP_MODULES = (paths, database, api, engine, harvest, cloud, metrics, heartbeat, fencing,
                 ha, executor, lifecycle)


def register_all(conf):
    """Register every KeyVRM option group on ``conf``."""
    for module in GROUP_MODULES:
        module.register_opts(conf)


register_all(CONF)
