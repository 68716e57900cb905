"""python-keyvrmclient sends a microversion with every request: the one it is given, or the one it negotiates."""

import json

from keystoneauth1 import session as ks_session
import pytest

from keyvrm.api import microversion
from keyvrm.api import serve
from keyvrmclient import v1
from tests.unit.api import seed


class _Recorder:
    """A WSGI app in front of ``app`` that remembers (path, OpenStack-API-Version header) of each request."""

    def __init__(self, app):
        self.app, self.seen = app, []

    def __call__(self, environ, start_response):
        self.seen.append((environ["PATH_INFO"], environ.get("HTTP_OPENSTACK_API_VERSION")))
        return self.app(environ, start_response)


def _version_document(min_version, max_version):
    def app(environ, start_response):
        body = {"version": {"id": "v1", "status": "CURRENT", "min_version": min_version,
                            "max_version": max_version, "links": []}}
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]
    return app


@pytest.fixture
def seeded_db(sqlite_db):
    seed.seed(sqlite_db)
    return sqlite_db


@pytest.fixture
def serve_app():
    servers = []

    def start(app):
        servers.append(serve.serve_in_thread(app, "127.0.0.1", 0))
        return servers[-1].url
    yield start
    for server in servers:
        server.shutdown()


def _client(url, **kwargs):
    return v1.Client(session=ks_session.Session(), endpoint_override=url, **kwargs)


@pytest.mark.parametrize("server_min, server_max, picked", [
    ("1.0", "1.0", "1.0"),
    (None, None, "1.0"),  # a server older than microversions serves 1.0
    ("1.0", "1.99", v1.KNOWN_VERSIONS[-1]),
    ("1.98", "1.99", None),
])
def test_the_highest_known_version_the_server_serves_is_picked(server_min, server_max, picked):
    assert v1.pick_version(server_min, server_max) == picked


def test_versions_compare_as_numbers_not_text():
    assert v1.pick_version("1.0", "1.10", known=("1.2", "1.9", "1.10")) == "1.10"
    assert v1.pick_version("1.0", "1.9", known=("1.2", "1.9", "1.10")) == "1.9"


def test_a_negotiating_client_reads_the_version_document_once_then_sends_its_version(seeded_db, serve_app):
    recorder = _Recorder(seed.make_app(seeded_db))
    client = _client(serve_app(recorder))
    client.get_config()
    client.list_events(limit=1)
    assert recorder.seen == [("/v1", None),
                             ("/v1/config", "vm-resource-manager " + v1.KNOWN_VERSIONS[-1]),
                             ("/v1/events", "vm-resource-manager " + v1.KNOWN_VERSIONS[-1])]


def test_a_pinned_client_sends_its_version_without_asking(seeded_db, serve_app):
    recorder = _Recorder(seed.make_app(seeded_db))
    client = _client(serve_app(recorder), api_version="1.0")
    client.get_config()
    assert recorder.seen == [("/v1/config", "vm-resource-manager 1.0")]


def test_a_server_serving_no_version_the_client_reads_is_a_406_naming_both_ranges(serve_app):
    client = _client(serve_app(_version_document("1.98", "1.99")))
    with pytest.raises(v1.ClientError) as caught:
        client.get_config()
    assert caught.value.status == 406
    assert "1.98 to 1.99" in caught.value.detail and v1.KNOWN_VERSIONS[0] in caught.value.detail


def test_a_version_the_client_cannot_read_is_refused_naming_the_argument():
    with pytest.raises(ValueError, match="api_version: '1.99'"):
        v1.Client(session=ks_session.Session(), endpoint_override="http://x", api_version="1.99")


def test_the_client_reads_every_version_the_server_serves():
    # a new microversion ships with the client code that reads it (the CLI, the SDK's users)
    assert v1.KNOWN_VERSIONS == microversion.VERSIONS


def test_the_vm_list_needs_1_10_and_passes_its_filters(seeded_db, serve_app):
    url = serve_app(seed.make_app(seeded_db))
    with pytest.raises(v1.ClientError, match="needs microversion 1.10"):
        _client(url, api_version="1.8").list_vms(locked=True)
    client = _client(url, api_version="1.10")
    assert [vm["vm_id"] for vm in client.list_vms(locked=True)] == ["vm-locked"]
    assert [vm["vm_id"] for vm in client.list_vms(locked=False, limit=5)] == ["vm-1"]
    assert [vm["vm_id"] for vm in client.list_vms(marker="vm-locked", sort_dir="desc", limit=1)] == ["vm-1"]
