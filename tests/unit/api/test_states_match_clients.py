"""The client's and the dashboard's own status constants are the ``enum`` lists of the served OpenAPI document.

The client and the dashboard must not import KeyVRM, so each keeps its own copy; this
test (in the unit environment, where KeyVRM and python-keyvrmclient are installed) reads
the document the API serves at the newest microversion, the client's ``keyvrmclient.states``
and the dashboard's ``keyvrm_dashboard/states.py`` (read from its file: it imports nothing,
and Django is not installed here).
"""

import json

import pytest
import webob

from keyvrm.api import microversion
from keyvrm.model import settings
from keyvrmclient import states as client_states
from tests.unit import dashboard_files


def _dashboard_states():
    return dashboard_files.dashboard_module("states")


@pytest.fixture
def served(noauth_app):
    request = webob.Request.blank("/v1/openapi.json")
    request.headers[microversion.HEADER] = "%s latest" % microversion.SERVICE_TYPE
    response = request.get_response(noauth_app)
    assert response.status_int == 200
    return json.loads(response.body)


def _param_enum(document, path, name):
    params = document["paths"][path]["get"]["parameters"]
    return [p["schema"]["enum"] for p in params if p["name"] == name][0]


def _served_enums(document):
    """{what: the enum list the served document gives for it}."""
    event = document["paths"]["/v1/events/{event_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    event_state = event["schema"]["properties"]["event"]["properties"]["state"]["enum"]
    return {
        "event kinds": _param_enum(document, "/v1/events", "kind"),
        "event statuses": _param_enum(document, "/v1/events", "status"),
        "event states": [s for s in event_state if s is not None],
        "recommendation statuses": _param_enum(document, "/v1/recommendations", "status"),
        "hypervisor states": _param_enum(document, "/v1/hypervisors", "state"),
        "cycle statuses": _param_enum(document, "/v1/cycles", "status"),
    }


def test_the_clients_constants_are_the_served_enums(served):
    enums = _served_enums(served)
    assert enums == {
        "event kinds": list(client_states.EVENT_KINDS),
        "event statuses": list(client_states.EVENT_STATUSES),
        "event states": list(client_states.EVENT_STATES),
        "recommendation statuses": list(client_states.RECOMMENDATION_STATUSES),
        "hypervisor states": list(client_states.HYPERVISOR_STATES),
        "cycle statuses": list(client_states.CYCLE_STATUSES),
    }


def test_the_dashboards_constants_colour_every_served_value_and_name_only_served_ones(served):
    enums, dashboard = _served_enums(served), _dashboard_states()
    assert {s for s, _ in dashboard.EVENT_STATE_COLOURS} == set(enums["event states"])
    assert {s for s, _ in dashboard.EVENT_STATUS_DONE} == set(enums["event statuses"])
    assert {s for s, _ in dashboard.RECOMMENDATION_STATUS_COLOURS} == set(enums["recommendation statuses"])
    assert {s for s, _ in dashboard.HOST_STATE_COLOURS} == set(enums["hypervisor states"])
    assert set(dashboard.EVENT_FINAL) <= set(enums["event statuses"])
    assert set(dashboard.RECOMMENDATION_FINAL) <= set(enums["recommendation statuses"])
    assert dashboard.MANUAL_ACTION in enums["recommendation statuses"]
    assert set(dashboard.CYCLE_FINISHED) <= set(enums["cycle statuses"])
    assert set(dashboard.VM_STATES) == set(_param_enum(served, "/v1/vms", "state"))
    assert dashboard.NOVA_FILTERS == settings.KNOWN_NOVA_FILTERS  # the config form's choices
