"""Serve the API with cheroot (a production-grade threaded WSGI server) in the foreground or a thread."""

import threading

from cheroot import wsgi


class ServedAPI:
    """A running server: ``host``, ``port`` (the bound one), ``url``; ``shutdown()`` stops it."""

    def __init__(self, server, thread):
        self._server, self._thread = server, thread
        self.host, self.port = server.bind_addr[:2]

    @property
    def url(self):
        return "http://%s:%d" % (self.host, self.port)

    def shutdown(self):
        """Stop accepting, finish in-flight requests, join the thread."""
        self._server.stop()
        self._thread.join(timeout=10)


def make_server(app, host, port, threads=8):
    """A bound (not yet serving) cheroot server; ``port`` 0 picks a free one."""
    server = wsgi.Server((host, port), app, numthreads=threads, server_name="keyvrm-api")
    server.prepare()
    return server


def serve_in_thread(app, host, port, threads=8):
    """Serve ``app`` on ``host:port`` from a daemon thread; returns a ``ServedAPI`` at once."""
    server = make_server(app, host, port, threads)
    thread = threading.Thread(target=server.serve, name="keyvrm-api", daemon=True)
    thread.start()
    return ServedAPI(server, thread)
