"""Serve the API with cheroot (a production-grade threaded WSGI server) in the foreground or a thread."""

import dataclasses
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


@dataclasses.dataclass(frozen=True)
class ServerLimits:
    """Threads, listen backlog and header size limit of the server (the ``[api]`` options)."""

    threads: int = 16
    max_threads: int = 64
    backlog: int = 256
    max_request_header_size: int = 65536

    @classmethod
    def from_conf(cls, conf) -> "ServerLimits":
        group = conf.api
        return cls(group.threads, max(group.threads, group.max_threads), group.backlog,
                   group.max_request_header_size)


def make_server(app, host, port, limits=ServerLimits()):
    """A bound (not yet serving) cheroot server; ``port`` 0 picks a free one."""
    server = wsgi.Server((host, port), app, numthreads=limits.threads, max=limits.max_threads,
                         request_queue_size=limits.backlog, server_name="keyvrm-api")
    server.max_request_header_size = limits.max_request_header_size
    server.prepare()
    return server


def serve_in_thread(app, host, port, limits=ServerLimits()):
    """Serve ``app`` on ``host:port`` from a daemon thread; returns a ``ServedAPI`` at once."""
    server = make_server(app, host, port, limits)
    thread = threading.Thread(target=server.serve, name="keyvrm-api", daemon=True)
    thread.start()
    return ServedAPI(server, thread)
