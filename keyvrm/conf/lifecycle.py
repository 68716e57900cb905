"""[lifecycle] options: per-transitional-state timeouts of the VM lifecycle (seconds).

Defaults come from the VM lifecycle rules: starting 15 min; stopping, suspending,
resuming 30 min; creating, deleting 1 h; migrating (evacuate, live-migrate), restoring
6 h. On expiry the VM moves to the matching failure state and is unlocked.
"""

from oslo_config import cfg

GROUP = "lifecycle"

MINUTE = 60
HOUR = 60 * MINUTE

TIMEOUT_DEFAULTS_S = {
    "starting": 15 * MINUTE,
    "stopping": 30 * MINUTE,
    "suspending": 30 * MINUTE,
    "resuming": 30 * MINUTE,
    "creating": HOUR,
    "deleting": HOUR,
    "migrating": 6 * HOUR,
    "restoring": 6 * HOUR,
}

opts = [
    cfg.IntOpt("%s_timeout" % state, default=seconds, min=1,
               help="Seconds a VM may stay '%s' before it moves to the matching failure "
                    "state and is unlocked." % state)
    for state, seconds in TIMEOUT_DEFAULTS_S.items()
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)
