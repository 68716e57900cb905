"""keyvrm-status: whether this deployment is ready to run (``keyvrm-status upgrade check``).

  keyvrm-status [--config-file F] upgrade check [--json]

The checks are ``keyvrm.upgradecheck``'s; exit status 0 success, 1 a warning, 2 a failure
(oslo.upgradecheck's codes), 255 when the checks themselves could not run.
"""

import sys

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck as oslo_upgradecheck

from keyvrm import conf as keyvrm_conf
from keyvrm import upgradecheck


def main(argv=None):
    """Run the upgrade checks and print their table."""
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    policy_opts.set_defaults(conf)
    return oslo_upgradecheck.main(conf, project="keyvrm", upgrade_command=upgradecheck.Checks(conf),
                                  argv=sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
