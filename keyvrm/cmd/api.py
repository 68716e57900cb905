"""keyvrm-api: serve the REST API with cheroot on ``[api] host``:``[api] port``.

For Apache mod_wsgi or uWSGI use ``keyvrm.api.wsgi:application`` instead.
"""

import signal
import sys

from oslo_log import log as logging

from keyvrm.api import app as api_app
from keyvrm.api import serve
from keyvrm import service

LOG = logging.getLogger(__name__)


def main(argv=None):
    conf = service.prepare(sys.argv[1:] if argv is None else argv)
    server = serve.make_server(api_app.build_app(conf), conf.api.host, conf.api.port)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    LOG.info("keyvrm-api listening on %s:%d (auth: %s)", conf.api.host, server.bind_addr[1],
             conf.api.auth_strategy)
    try:
        server.serve()
    except KeyboardInterrupt:
        server.stop()
    return 0
