"""keyvrm-api: serve the REST API with cheroot on ``[api] host``:``[api] port`` until SIGTERM/SIGINT.

For Apache mod_wsgi or uWSGI use ``keyvrm.api.wsgi:application`` instead.
"""

import sys
import threading

from oslo_log import log as logging

from keyvrm.api import app as api_app
from keyvrm.api import serve
from keyvrm.cmd import stopping
from keyvrm import exception
from keyvrm import service

LOG = logging.getLogger(__name__)


def main(argv=None):
    """Serve the API until a stop signal; exit 2 with one line naming the option on bad config."""
    conf = service.prepare(sys.argv[1:] if argv is None else argv)
    with stopping.stop_on_signals(threading.Event()) as stop:
        try:
            app = api_app.build_app(conf)
        except exception.InvalidField as exc:  # e.g. [database] connection without its driver
            print("keyvrm-api: invalid %s" % exc, file=sys.stderr)
            return 2
        server = serve.serve_in_thread(app, conf.api.host, conf.api.port, serve.ServerLimits.from_conf(conf))
        LOG.info("keyvrm-api listening on %s (auth: %s)", server.url, conf.api.auth_strategy)
        if conf.api.auth_strategy == "noauth":
            LOG.warning("[api] auth_strategy = noauth: every caller is trusted as a system admin; "
                        "use it only for the embedded single-user default, never on a network")
        stop.wait()
        LOG.info("keyvrm-api stopping")
        server.shutdown()
    return 0
