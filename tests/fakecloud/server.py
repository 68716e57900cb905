"""The fake cloud process: Nova API, conductor, scheduler, fake computes and Placement.

Built from Nova's own functional test base (``ProviderUsageBaseTestCase``): every piece
is real Nova/Placement code, in one process, on in-memory SQLite; Neutron, Cinder and
Glance are Nova's in-process fixtures. The API and Placement apps that the fixtures hand
to wsgi-intercept are captured and served on loopback TCP ports with eventlet's WSGI
server, wrapped to inject the admin identity Keystone would have set (no Keystone here).
The process is tuned (``tuning``) so that hundreds of computes start and idle cheaply.

Published in ``--endpoints-file`` (JSON): ``compute_url``, ``placement_url``, ``image_url``
(Glance v2 ``/v2/images`` over the Glance fixture's images, paginated), ``control_url``, ``hosts``,
``flavors``, ``images``, ``project_id``. The control endpoint (JSON over HTTP):

- ``POST /computes/<host>/stop`` / ``start``: the compute service stops (a hypervisor
  crash: Nova sees it down after ``service_down_time``) and comes back with its servers;
- ``POST /computes`` ``{"count": N}``: start N more computes;
- ``POST /computes/<host>/stall-live-migrations`` ``{"stall": true}``: that source
  host's live migrations never finish (the driver swallows them);
- ``POST /computes/<host>/hold-rebuilds`` ``{"hold": true}``: a rebuild (an evacuation's)
  that reaches that compute waits, its migration ``accepted``, until ``{"hold": false}``
  lets it run; if the compute stops meanwhile it never runs, as when nova-compute dies
  with the conductor's cast unread;
- ``POST /fault`` ``{"status": 503}`` (``null`` clears): the compute API answers it;
- ``GET /compute-rpc``: every RPC message the Nova API has sent to a compute service while
  serving a request (``method``, ``host``, ``call``, ``request``), oldest first;
- ``GET /health``.
"""

# Nova's functional package patches eventlet on import: keep it first.
import nova.tests.functional  # noqa: F401  isort:skip

import argparse
import json
import os
import sys
import threading
import urllib.parse

import eventlet
import eventlet.corolocal
import eventlet.wsgi
from nova.tests.functional import integrated_helpers
import oslo_messaging.transport
from wsgi_intercept import interceptor

from tests.fakecloud import tuning

SERVICE_DOWN_TIME_S = 6
REPORT_INTERVAL_S = 2

_intercepted = []
_original_interceptor_init = interceptor.RequestsInterceptor.__init__


def _recording_init(self, app, *args, **kwargs):
    _intercepted.append((kwargs.get("url") or (args[0] if args else None), app))
    _original_interceptor_init(self, app, *args, **kwargs)


interceptor.RequestsInterceptor.__init__ = _recording_init


class _Cloud(integrated_helpers.ProviderUsageBaseTestCase):
    """Nova's functional base as a long-lived region rather than a test."""

    compute_driver = "fake.MediumFakeDriver"
    service_down_time_s = SERVICE_DOWN_TIME_S
    report_interval_s = REPORT_INTERVAL_S

    def setUp(self):
        paste = os.path.join(sys.prefix, "etc", "nova", "api-paste.ini")
        self.flags(api_paste_config=paste, group="wsgi")
        self.flags(driver="nova.quota.NoopQuotaDriver", group="quota")
        self.flags(service_down_time=self.service_down_time_s, report_interval=self.report_interval_s)
        super().setUp()

    def runTest(self):
        """Unused: the object is set up and kept, never run as a test."""


def _with_identity(app, environ_extra):
    def wrapped(environ, start_response):
        environ.update(environ_extra)
        return app(environ, start_response)
    return wrapped


class _Fault:
    status = None


def _with_fault(app, fault):
    def wrapped(environ, start_response):
        if fault.status is not None:
            body = json.dumps({"computeFault": {"code": fault.status,
                                                "message": "fake cloud fault injected"}})
            start_response("%d Injected" % fault.status, [("Content-Type", "application/json")])
            return [body.encode()]
        return app(environ, start_response)
    return wrapped


class _ComputeRpcLog:
    """RPC messages to compute services sent by the Nova API while it serves a request.

    Recorded in the transport before the message leaves (so a call that then blocks is
    already listed). A message counts when the API request's own greenthread sends it:
    conductor and scheduler traffic runs in other greenthreads and is not listed.
    """

    def __init__(self):
        self.calls = []
        self.serving = eventlet.corolocal.local()

    def install(self):
        original_send = oslo_messaging.transport.Transport._send
        log = self

        def send(transport, target, ctxt, message, wait_for_reply=None, *args, **kwargs):
            request = getattr(log.serving, "request", None)
            if request is not None and target.topic == "compute":
                log.calls.append({"method": message.get("method"), "host": target.server,
                                  "call": bool(wait_for_reply), "request": request})
            return original_send(transport, target, ctxt, message, wait_for_reply, *args, **kwargs)

        oslo_messaging.transport.Transport._send = send


def _with_rpc_log(app, log):
    def wrapped(environ, start_response):
        log.serving.request = "%s %s" % (environ["REQUEST_METHOD"], environ["PATH_INFO"])
        try:
            return app(environ, start_response)
        finally:
            log.serving.request = None
    return wrapped


GLANCE_DEFAULT_LIMIT = 25  # Glance's limit_param_default


def _images_app(glance):
    """Glance v2 image list over the Glance fixture's images, and its version document.

    Paginated as Glance does: ``limit`` (default 25) and ``marker`` (an image id; here in
    id order), and a ``next`` link whenever a page is full.
    """
    def app(environ, start_response):
        if environ["PATH_INFO"].rstrip("/") in ("", "/v2"):
            href = "http://%s/v2/" % environ["HTTP_HOST"]
            body = {"versions": [{"id": "v2.16", "status": "CURRENT",
                                  "links": [{"rel": "self", "href": href}]}]}
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps(body).encode()]
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        limit = int(query.get("limit", [GLANCE_DEFAULT_LIMIT])[0])
        marker = query.get("marker", [""])[0]
        images = []
        for image_id in sorted(i for i in glance.images if i > marker)[:limit]:
            image = glance.images[image_id]
            item = {k: v for k, v in image.items()
                    if k not in ("properties", "deleted", "deleted_at", "is_public")}
            item.update(image.get("properties") or {})
            images.append(item)
        page = {"images": images, "first": "/v2/images"}
        if len(images) == limit:
            page["next"] = "/v2/images?" + urllib.parse.urlencode({"marker": images[-1]["id"],
                                                                   "limit": limit})
        body = json.dumps(page, default=str).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]
    return app


class Control:
    """The control endpoint's actions on the running cloud."""

    def __init__(self, cloud, fault, rpc_log):
        self.cloud = cloud
        self.fault = fault
        self.rpc_log = rpc_log
        self.stopped = {}
        self.stalled = set()
        self.held = set()  # computes whose rebuilds wait (hold-rebuilds)
        self.dying = set()  # computes being stopped: their held rebuilds never run

    def start_computes(self, count):
        start = len(self.cloud.computes)
        hosts = ["compute%03d" % i for i in range(start, start + count)]
        for host in hosts:
            self.cloud._start_compute(host)
        return hosts

    def stop(self, host):
        compute = self.cloud.computes[host]
        if host not in self.stopped:
            self.dying.add(host)
            compute.stop()  # waits for the RPC handlers in flight: a held rebuild returns at once
            self.stopped[host] = compute

    def start(self, host):
        compute = self.stopped.pop(host, None)
        if compute is not None:
            self.dying.discard(host)
            self.held.discard(host)
            self.cloud.computes[host] = self.cloud.restart_compute_service(compute)
            self._apply_stall(host)

    def hold(self, host, hold):
        """Make ``host``'s rebuilds wait (or let them and the next ones run); see the module docstring."""
        manager = self.cloud.computes[host].manager
        if not hold:
            self.held.discard(host)
            manager.__dict__.pop("rebuild_instance", None)
            return
        self.held.add(host)
        rebuild = type(manager).rebuild_instance.__get__(manager)

        def held_rebuild(*args, **kwargs):
            while host in self.held and host not in self.dying:
                eventlet.sleep(0.05)
            if host in self.dying:
                return None  # the compute died with the cast unread: Nova's record stays accepted
            return rebuild(*args, **kwargs)
        manager.rebuild_instance = held_rebuild

    def stall(self, host, stall):
        (self.stalled.add if stall else self.stalled.discard)(host)
        self._apply_stall(host)

    def _apply_stall(self, host):
        driver = self.cloud.computes[host].manager.driver
        if host in self.stalled:
            driver.live_migration = lambda *args, **kwargs: None
        else:
            driver.__dict__.pop("live_migration", None)

    def handle(self, method, path, body):
        parts = [p for p in path.split("/") if p]
        if method == "GET" and parts == ["health"]:
            return 200, {"hosts": sorted(self.cloud.computes), "stopped": sorted(self.stopped)}
        if method == "GET" and parts == ["compute-rpc"]:
            return 200, {"calls": list(self.rpc_log.calls)}
        if method == "POST" and parts == ["fault"]:
            self.fault.status = body.get("status")
            return 200, {"status": self.fault.status}
        if method == "POST" and parts == ["computes"]:
            return 200, {"hosts": self.start_computes(int(body["count"]))}
        if method == "POST" and len(parts) == 3 and parts[0] == "computes":
            host, action = parts[1], parts[2]
            if host not in self.cloud.computes:
                return 404, {"error": "no compute %s" % host}
            if action == "stop":
                self.stop(host)
            elif action == "start":
                self.start(host)
            elif action == "stall-live-migrations":
                self.stall(host, bool(body.get("stall", True)))
            elif action == "hold-rebuilds":
                self.hold(host, bool(body.get("hold", True)))
            else:
                return 404, {"error": "no action %s" % action}
            return 200, {"host": host, "action": action}
        return 404, {"error": "no route %s %s" % (method, path)}


def _control_app(control):
    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        try:
            status, payload = control.handle(environ["REQUEST_METHOD"], environ["PATH_INFO"],
                                             json.loads(raw) if raw else {})
        except Exception as exc:  # reported to the test, which fails on it
            status, payload = 500, {"error": "%s: %s" % (type(exc).__name__, exc)}
        start_response("%d X" % status, [("Content-Type", "application/json")])
        return [json.dumps(payload).encode()]
    return app


def _serve(app):
    sock = eventlet.listen(("127.0.0.1", 0))
    eventlet.spawn(eventlet.wsgi.server, sock, app, log_output=False)
    return "http://127.0.0.1:%d" % sock.getsockname()[1]


def _app_for(marker):
    for url, factory in _intercepted:
        if url and marker in url:
            return factory()
    raise RuntimeError("no intercepted app for %s" % marker)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--computes", type=int, default=5)
    parser.add_argument("--endpoints-file", required=True)
    parser.add_argument("--service-down-time", type=int, default=SERVICE_DOWN_TIME_S,
                        help="Nova's service_down_time, s (Nova's default: 60).")
    parser.add_argument("--report-interval", type=int, default=REPORT_INTERVAL_S,
                        help="Nova's report_interval, s (Nova's default: 10).")
    args = parser.parse_args(argv)

    _Cloud.service_down_time_s, _Cloud.report_interval_s = args.service_down_time, args.report_interval
    tuning.install()
    cloud = _Cloud()
    cloud.setUp()
    tuning.quiet_logging()
    fault = _Fault()
    rpc_log = _ComputeRpcLog()
    rpc_log.install()
    control = Control(cloud, fault, rpc_log)
    hosts = control.start_computes(args.computes)

    project = cloud.api_fixture.project_id
    nova_app = _with_fault(_with_identity(_app_for(cloud.api_fixture.base_url.split("/")[2]), {
        "HTTP_X_AUTH_USER": "admin", "HTTP_X_AUTH_PROJECT_ID": project,
        "HTTP_X_ROLES": "reader,member,admin"}), fault)
    nova_app = _with_rpc_log(nova_app, rpc_log)
    placement_app = _with_identity(_app_for("/placement"), {"HTTP_X_AUTH_TOKEN": "admin"})
    endpoints = {
        "compute_url": _serve(nova_app) + "/v2.1",
        "placement_url": _serve(placement_app),
        "image_url": _serve(_images_app(cloud.glance)),
        "control_url": _serve(_control_app(control)),
        "hosts": hosts,
        "project_id": project,
        "flavors": {f["name"]: f["id"] for f in cloud.admin_api.get_flavors()},
        "images": sorted(cloud.glance.images),
        "pid": os.getpid(),
    }
    tmp = args.endpoints_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump(endpoints, f)
    os.replace(tmp, args.endpoints_file)
    stop = threading.Event()
    while not stop.is_set():
        eventlet.sleep(3600)


if __name__ == "__main__":
    main()
