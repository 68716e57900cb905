"""The OpenStack driver's Neutron port-binding and Cinder attachment calls, over real HTTP,
against a recorded-response test double (Neutron and Cinder are not in the fake cloud).

The double is a loopback HTTP server answering with responses shaped as recorded from
the Neutron extended port bindings API and Cinder's attachments API (3.27); it also
records the requests, so the test sees which methods, paths and microversions went out.
"""

import http.server
import json
import threading

import pytest

from keyvrm.drivers.cloud import openstack
from keyvrm.drivers import errors

SERVER = "9d2a7e62-0f61-4bd3-8e4c-1a9d1f5d3a11"
PORT = "5b1f3c7e-1111-4a2b-9c3d-aaaaaaaaaaaa"
ATTACHMENT = "0c7a6f1e-2222-4d5e-8f90-bbbbbbbbbbbb"

VERSIONS = {  # Neutron's root document, and Cinder's at its v3 endpoint
    "/": {"versions": [{"id": "v2.0", "status": "CURRENT", "links": [{"rel": "self", "href": "{base}/v2.0/"}]}]},
    "/v3": {"versions": [{"id": "v3.0", "status": "CURRENT", "min_version": "3.0", "max_version": "3.70",
                          "links": [{"rel": "self", "href": "{base}/v3/"}]}]},
}
RECORDED = {
    ("GET", "/v2.0/ports"): (200, {"ports": [{"id": PORT}]}),
    ("GET", f"/v2.0/ports/{PORT}/bindings"): (200, {"bindings": [
        {"host": "cmp-1", "vif_type": "ovs", "vnic_type": "normal", "status": "ACTIVE"},
        {"host": "cmp-2", "vif_type": "ovs", "vnic_type": "normal", "status": "INACTIVE"}]}),
    ("DELETE", f"/v2.0/ports/{PORT}/bindings/cmp-2"): (204, None),
    ("DELETE", f"/v2.0/ports/{PORT}/bindings/cmp-9"): (404, {"NeutronError": {
        "type": "PortBindingNotFound", "message": f"Binding for port {PORT} on host cmp-9 could not be found."}}),
    ("GET", "/v3/attachments/detail"): (200, {"attachments": [
        {"id": ATTACHMENT, "status": "reserved", "instance": SERVER, "volume_id": "vol-1",
         "attach_mode": "rw", "connection_info": {}, "attached_at": None}]}),
    ("DELETE", f"/v3/attachments/{ATTACHMENT}"): (200, {"attachments": []}),
}


class _Double(http.server.BaseHTTPRequestHandler):
    requests = []

    def _answer(self):
        path = self.path.split("?")[0]
        self.requests.append((self.command, self.path, self.headers.get("OpenStack-API-Version")))
        if path in ("/", "/v2.0", "/v2.0/", "/v3", "/v3/"):
            doc = VERSIONS["/v3" if path.startswith("/v3") else "/"]
            status, body = 200, json.loads(json.dumps(doc).replace(
                "{base}", "http://%s:%d" % self.server.server_address))
        else:
            status, body = RECORDED.get((self.command, path), (404, {"error": "unrecorded"}))
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_DELETE = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def driver():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Double)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = "http://127.0.0.1:%d" % server.server_address[1]
    _Double.requests = []
    yield openstack.from_endpoints({"network": base, "block_storage": base + "/v3"})
    server.shutdown()
    server.server_close()


def test_port_bindings_of_a_server_are_read_per_port_with_their_status(driver):
    bindings = driver.list_port_bindings(SERVER)
    assert [(b.port_id, b.host, b.status) for b in bindings] == [
        (PORT, "cmp-1", "ACTIVE"), (PORT, "cmp-2", "INACTIVE")]
    assert ("GET", f"/v2.0/ports?device_id={SERVER}&fields=id", None) in _Double.requests


def test_inactive_port_binding_is_deleted_and_an_unknown_one_is_not_found(driver):
    driver.delete_port_binding(PORT, "cmp-2")
    with pytest.raises(errors.NotFoundInCloud) as caught:
        driver.delete_port_binding(PORT, "cmp-9")
    assert "could not be found" in str(caught.value)


def test_volume_attachments_are_read_and_deleted_with_the_attachments_microversion(driver):
    [attachment] = driver.list_volume_attachments(SERVER)
    assert (attachment.id, attachment.server_id, attachment.status) == (ATTACHMENT, SERVER, "reserved")
    driver.delete_volume_attachment(ATTACHMENT)
    sent = [(method, path.split("?")[0], version) for method, path, version in _Double.requests
            if path.startswith("/v3/attachments")]
    assert sent == [("GET", "/v3/attachments/detail", "volume 3.27"),
                    ("DELETE", f"/v3/attachments/{ATTACHMENT}", "volume 3.27")]
