"""The oslo.middleware pieces of the pipeline do their job: CORS, proxy headers, request ids; the WSGI entry loads."""

import os
import subprocess
import sys

import webob

from tests.unit.api import seed


def test_cors_answers_an_allowed_origin_only(seeded_db):
    app = seed.make_app(seeded_db, overrides={("cors", "allowed_origin"): ["https://horizon.example"]})
    allowed = webob.Request.blank("/v1/config", headers={"Origin": "https://horizon.example"}).get_response(app)
    other = webob.Request.blank("/v1/config", headers={"Origin": "https://evil.example"}).get_response(app)
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://horizon.example"
    assert "Access-Control-Allow-Origin" not in other.headers


def test_links_follow_the_proxy_scheme_and_host(seeded_db):
    app = seed.make_app(seeded_db, overrides={("oslo_middleware", "enable_proxy_headers_parsing"): True})
    response = webob.Request.blank("/v1/aggregates?limit=1", headers={
        "X-Forwarded-Proto": "https", "X-Forwarded-Host": "keyvrm.example"}).get_response(app)
    assert response.json["links"][0]["href"].startswith("https://keyvrm.example/v1/aggregates?")


def test_a_given_request_id_is_not_trusted_and_a_new_one_is_returned(noauth_app):
    response = webob.Request.blank("/v1/config", headers={"X-Openstack-Request-Id": "req-forged"}).get_response(
        noauth_app)
    assert response.headers["X-Openstack-Request-Id"].startswith("req-")
    assert response.headers["X-Openstack-Request-Id"] != "req-forged"


def test_wsgi_module_builds_the_application_from_keyvrm_config_file(tmp_path):
    config = tmp_path / "keyvrm.conf"
    config.write_text("[api]\nauth_strategy = noauth\n[database]\nconnection = sqlite:///%s/k.sqlite\n" % tmp_path)
    code = "from keyvrm.api import wsgi; print(callable(wsgi.application))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, KEYVRM_CONFIG_FILE=str(config), PYTHONWARNINGS="ignore"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"
