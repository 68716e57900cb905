"""[DEFAULT] options: where KeyVRM keeps its local state (the embedded SQLite database)."""

import os

from oslo_config import cfg

GROUP = "DEFAULT"

opts = [
    cfg.StrOpt("state_path",
               default=os.environ.get("KEYVRM_STATE_PATH", os.path.expanduser("~/.local/state/keyvrm")),
               sample_default="~/.local/state/keyvrm",
               help="Directory for KeyVRM's local state: the embedded SQLite database, "
                    "demo output. Overridden by the KEYVRM_STATE_PATH environment variable."),
]


def register_opts(conf):
    conf.register_opts(opts)
