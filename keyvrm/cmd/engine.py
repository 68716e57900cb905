"""keyvrm-engine: the periodic cycle and every flow it starts, until SIGTERM/SIGINT.

  keyvrm-engine [--config-file F]

Resumes unfinished flows on start; with ``[engine] coordination_url`` and
``jobboard_url`` (Redis) it joins the other engines (see keyvrm.engine.service).
SIGTERM or SIGINT stops it gracefully: running tasks finish, their flows stay resumable.
"""

import sys
import threading

from oslo_config import cfg

from keyvrm.cmd import stopping
from keyvrm import conf as keyvrm_conf
from keyvrm.engine import manager
from keyvrm.engine import service as engine_service
from keyvrm.engine import wiring
from keyvrm import exception
from keyvrm import service


def main(argv=None):
    """Run the engine until a stop signal; non-zero exit with a message on bad config."""
    conf = keyvrm_conf.CONF
    with stopping.stop_on_signals(threading.Event()) as stop:
        try:
            service.prepare(sys.argv[1:] if argv is None else argv, conf)
            manager.register_global_only_opts(conf)
            engine = engine_service.Engine(conf, wiring.resources_factory_from_conf(conf))
            engine.start()
        except cfg.Error as exc:
            print("keyvrm-engine: %s" % exc, file=sys.stderr)
            return 2
        except exception.InvalidField as exc:
            print("keyvrm-engine: invalid %s" % exc, file=sys.stderr)
            return 2
        while not stop.wait(1.0):
            pass
        engine.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
