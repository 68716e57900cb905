"""A tiny local HTTP server that plays a Prometheus query API: canned answers, errors, silence."""

import http.server
import json
import threading
import time
import urllib.parse


class StubTSDB:
    """Answers ``/api/v1/query`` from ``answers`` (query text -> result list), or fails as told.

    ``status``: HTTP status to send (500 for a broken TSDB); ``delay_s``: seconds to wait
    before answering (a hung TSDB). Queries received are kept in ``queries``.
    """

    def __init__(self, answers=None, status=200, delay_s=0.0):
        self.answers = answers or {}
        self.status = status
        self.delay_s = delay_s
        self.queries = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                params = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                query = params.get("query", [""])[0]
                stub.queries.append((query, params.get("time", [None])[0]))
                if stub.delay_s:
                    time.sleep(stub.delay_s)
                if stub.status != 200:
                    body = b"internal error: storage is broken"
                else:
                    result = stub.answers.get(query, [])
                    body = json.dumps({"status": "success", "data": {
                        "resultType": "vector", "result": result}}).encode()
                try:
                    self.send_response(stub.status)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def series(value, **labels):
    """One instant-vector element as the query API returns it."""
    return {"metric": labels, "value": [0, str(value)]}
