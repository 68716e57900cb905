"""Serve Keystone's WSGI application on loopback: ``python keystone_wsgi.py HOST PORT``.

Keystone's configuration files come from ``$OS_KEYSTONE_CONFIG_FILES``.
Run by the Python of the environment Keystone is installed in. Keystone parses
``sys.argv`` with oslo.config when its application loads, so the argv is reset first.
"""

import socketserver
import sys
from wsgiref import simple_server


class ThreadingWSGIServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    """wsgiref's server, one thread per request (Horizon and keystonemiddleware call concurrently)."""

    daemon_threads = True


class QuietHandler(simple_server.WSGIRequestHandler):
    """No access log line per request on stderr."""

    def log_message(self, format, *args):
        pass


def main():
    """Load Keystone's application with a clean argv and serve it until killed."""
    host, port = sys.argv[1], int(sys.argv[2])
    sys.argv = sys.argv[:1]
    from keystone.wsgi import api
    server = simple_server.make_server(host, port, api.application, server_class=ThreadingWSGIServer,
                                       handler_class=QuietHandler)
    server.serve_forever()


if __name__ == "__main__":
    main()
