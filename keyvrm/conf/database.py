"""[database] options: oslo.db's own, with KeyVRM's embedded SQLite default and retention."""

import copy

from oslo_config import cfg
from oslo_db import options as db_options

GROUP = "database"

keyvrm_db_opts = [
    cfg.IntOpt("snapshot_keep_count", default=100, min=1,
               help="Region snapshots kept in region_data; older ones are deleted."),
    cfg.IntOpt("snapshot_keep_days", default=7, min=0,
               help="Region snapshots older than this many days are deleted "
                    "(0 = keep by count only)."),
    cfg.IntOpt("history_keep_days", default=90, min=0,
               help="Finished events (with their recommendations and operations), cycles "
                    "and VM history older than this many days are deleted by the leading "
                    "engine, hourly, on a thread of its own; rows an unfinished "
                    "recommendation or a host out of service needs are kept (0 = keep "
                    "forever). By hand: keyvrm-manage db purge --before DATE."),
    cfg.IntOpt("purge_max_rows", default=1000, min=1, max=100000,
               help="Rows of one table the history purge deletes per transaction; it commits "
                    "each batch and carries on until nothing older than the cut-off is left "
                    "(the engine's hourly purge and keyvrm-manage db purge alike). Smaller "
                    "batches hold locks (on SQLite, the database) for less time."),
]


# The embedded default: SQLite under [DEFAULT] state_path (interpolated by oslo.config).
DEFAULT_CONNECTION = "sqlite:///$state_path/keyvrm.sqlite"


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)
    conf.register_opts(keyvrm_db_opts, group=GROUP)


def list_opts():
    """oslo.db's [database] options with KeyVRM's default connection, plus KeyVRM's own."""
    library_opts = copy.deepcopy(db_options.list_opts()[0][1])
    for opt in library_opts:
        if opt.name == "connection":
            opt.default = DEFAULT_CONNECTION
    return library_opts + keyvrm_db_opts
