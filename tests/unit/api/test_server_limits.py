"""keyvrm-api's server as shipped: oversized headers and bodies are refused before the router."""

import jsonschema
import requests

from keyvrm.api import openapi
from keyvrm.api import serve
from tests.unit.api import seed


def test_oversized_headers_and_bodies_are_refused_before_the_router(seeded_db):
    server = serve.serve_in_thread(seed.make_app(seeded_db), "127.0.0.1", 0)
    try:
        big_header = requests.get(server.url + "/v1", headers={"X-Pad": "a" * 70000}, timeout=10)
        big_body = requests.patch(server.url + "/v1/config", data=b'{"period": 60' + b" " * 200000 + b"}",
                                  headers={"Content-Type": "application/json"}, timeout=10)
        chunked_body = requests.patch(server.url + "/v1/config", data=iter([b'{"period": 60', b" " * 200000, b"}"]),
                                      headers={"Content-Type": "application/json"}, timeout=10)
        normal = requests.get(server.url + "/v1", timeout=10)
    finally:
        server.shutdown()
    assert big_header.status_code == 413  # cheroot answers 413 for a header block over the limit
    assert normal.status_code == 200
    document = openapi.document()
    assert "413" in document["paths"]["/v1/config"]["patch"]["responses"]
    for refused in (big_body, chunked_body):
        assert refused.status_code == 413, refused.text
        jsonschema.validate(refused.json(), document["components"]["schemas"]["Error"])
    assert big_body.json()["errors"][0]["code"] == "keyvrm.request_too_large"
    assert big_body.json()["errors"][0]["field"] == "body"
