"""The OpenStack driver's request counter: requests and decoded body bytes, per service."""

import json

from keyvrm.drivers.cloud import openstack_http


class _Response:
    def __init__(self, status, body):
        self.status_code = status
        self.content = json.dumps(body).encode() if body is not None else b""

    def json(self):
        return json.loads(self.content)


class _Proxy:
    def __init__(self, service_type, body, status=200):
        self.service_type = service_type
        self.response = _Response(status, body)

    def request(self, path, method, **kwargs):
        return self.response


def test_the_counter_adds_each_answered_body_to_its_service():
    counter = openstack_http.RequestCounter()
    nova, placement = _Proxy("compute", {"servers": [1, 2]}), _Proxy("placement", {"usages": {}})
    openstack_http.call(nova, "GET", "/servers", counter=counter)
    openstack_http.call(nova, "GET", "/servers", counter=counter)
    openstack_http.call(placement, "GET", "/usages", counter=counter)
    assert counter.by_service() == {"compute": 2, "placement": 1}
    assert counter.bytes_by_service() == {"compute": 2 * len(nova.response.content),
                                          "placement": len(placement.response.content)}


def test_an_empty_answer_counts_a_request_and_no_bytes():
    counter = openstack_http.RequestCounter()
    assert openstack_http.call(_Proxy("compute", None, status=204), "DELETE", "/x", counter=counter) is None
    assert counter.by_service() == {"compute": 1}
    assert counter.bytes_by_service() == {"compute": 0}
