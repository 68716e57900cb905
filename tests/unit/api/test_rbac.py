"""RBAC matrix: every endpoint x {anonymous, reader, project member, admin}, keystonemiddleware in the path.

keystonemiddleware's own ``AuthTokenFixture`` stands in for Keystone's token validation
(it patches only ``fetch_token``), so tokens go through the real ``auth_token``
middleware, which sets the identity headers the policy rules read. A real Keystone
would resolve against constraints.txt (checked with pip's resolver: keystone 30 fits),
but it adds ~30 packages (Flask, pysaml2, ...) and ~12 s of bootstrap per run, and
tests nothing on KeyVRM's side that the real middleware with fixture tokens does not.
"""

import json
import re

from keystoneauth1 import fixture as ks_fixture
from keystonemiddleware import fixture as ksm_fixture
import pytest
import webob

from keyvrm.api import router
from tests.unit.api import seed

# Who may call what: "public" (anyone), "reader" (reader and admin), "admin" (admin only).
MATRIX = {
    ("GET", "/"): "public",
    ("GET", "/v1"): "public",
    ("GET", "/v1/openapi.json"): "public",
    ("GET", "/v1/config"): "reader",
    ("PATCH", "/v1/config"): "admin",
    ("GET", "/v1/config/audit"): "reader",
    ("GET", "/v1/availability-zones"): "reader",
    ("GET", "/v1/aggregates"): "reader",
    ("GET", "/v1/aggregates/{name}"): "reader",
    ("GET", "/v1/aggregates/{name}/load"): "reader",
    ("PATCH", "/v1/aggregates/{name}"): "admin",
    ("POST", "/v1/aggregates/{name}/what-if"): "reader",
    ("GET", "/v1/aggregates/{name}/failover"): "reader",
    ("GET", "/v1/events"): "reader",
    ("GET", "/v1/events/{event_id}"): "reader",
    ("GET", "/v1/recommendations"): "reader",
    ("GET", "/v1/recommendations/{recommendation_id}"): "reader",
    ("POST", "/v1/recommendations/{recommendation_id}/run"): "admin",
    ("POST", "/v1/recommendations/{recommendation_id}/cancel"): "admin",
    ("GET", "/v1/recommendations/{recommendation_id}/operations"): "reader",
    ("GET", "/v1/vms"): "reader",
    ("GET", "/v1/vms/{vm_id}"): "reader",
    ("GET", "/v1/vms/{vm_id}/history"): "reader",
    ("POST", "/v1/vms/{vm_id}/unlock"): "admin",
    ("GET", "/v1/hypervisors"): "reader",
    ("GET", "/v1/hypervisors/{host}"): "reader",
    ("POST", "/v1/hypervisors/{host}/restore"): "admin",
    ("POST", "/v1/hypervisors/{host}/drain"): "admin",
    ("GET", "/v1/snapshots"): "reader",
    ("GET", "/v1/snapshots/{snapshot_id}"): "reader",
    ("GET", "/v1/snapshots/{snapshot_id}/data"): "admin",
    ("GET", "/v1/cycles"): "reader",
    ("GET", "/v1/cycles/{cycle_id}"): "reader",
    ("POST", "/v1/cycles"): "admin",
}
PATH_VALUES = {"name": "agg-a", "event_id": "ev-1", "recommendation_id": "rec-manual", "vm_id": "vm-locked",
               "snapshot_id": "1", "cycle_id": "1", "host": "cmp-1"}
# a drain needs an ok host (cmp-1 is held by KeyVRM in the seed)
PATH_VALUES_OF = {("POST", "/v1/hypervisors/{host}/drain"): {"host": "cmp-2"}}
BODIES = {("PATCH", "/v1/config"): {"period": 90},
          ("PATCH", "/v1/aggregates/{name}"): {"lb_period": 300},
          ("POST", "/v1/aggregates/{name}/what-if"): {"fail": ["cmp-1"]},
          ("POST", "/v1/hypervisors/{host}/drain"): {"reason": "CHG-1"}}
ALLOWED = {"anonymous": {"public"}, "member": {"public"}, "reader": {"public", "reader"},
           "admin": {"public", "reader", "admin"}}


def _tokens(auth):
    reader = ks_fixture.V3Token(user_name="rita")
    reader.set_system_scope()
    reader.add_role(name="reader")
    admin = ks_fixture.V3Token(user_name="ada")
    admin.set_system_scope()
    for role in ("admin", "member", "reader"):
        admin.add_role(name=role)
    member = ks_fixture.V3Token(user_name="max", project_id="p1", project_name="tenant", is_admin_project=False)
    for role in ("member", "reader"):
        member.add_role(name=role)
    return {"reader": auth.add_token(reader), "admin": auth.add_token(admin), "member": auth.add_token(member),
            "anonymous": None}


@pytest.fixture
def keystone_app(seeded_db):
    auth = ksm_fixture.AuthTokenFixture()
    auth.setUp()
    app = seed.make_app(seeded_db, auth_strategy="keystone")
    yield app, _tokens(auth)
    auth.cleanUp()


def _call(app, token, method, path):
    values = dict(PATH_VALUES, **PATH_VALUES_OF.get((method, path), {}))
    request = webob.Request.blank(re.sub(r"{(\w+)}", lambda mo: values[mo.group(1)], path), method=method)
    request.headers["OpenStack-API-Version"] = "vm-resource-manager latest"  # endpoints of every version
    if token:
        request.headers["X-Auth-Token"] = token
    body = BODIES.get((method, path))
    if body is not None:
        request.body, request.content_type = json.dumps(body).encode(), "application/json"
    return request.get_response(app)


def test_matrix_covers_every_endpoint():
    assert set(MATRIX) == {(r.method, r.path) for r in router.all_routes()}


@pytest.mark.parametrize("persona", ["anonymous", "member", "reader", "admin"])
def test_each_persona_reaches_exactly_the_endpoints_its_role_allows(keystone_app, persona):
    app, tokens = keystone_app
    routes = {(r.method, r.path): r for r in router.all_routes()}
    seen, expected = {}, {}
    for (method, path), level in MATRIX.items():
        response = _call(app, tokens[persona], method, path)
        seen[method, path] = response.status_int
        if level in ALLOWED[persona]:
            expected[method, path] = routes[method, path].status
        else:
            expected[method, path] = 401 if persona == "anonymous" else 403
    assert seen == expected


def test_refused_write_changes_nothing(keystone_app, seeded_db):
    app, tokens = keystone_app
    assert _call(app, tokens["reader"], "PATCH", "/v1/config").status_int == 403
    assert _call(app, tokens["reader"], "POST", "/v1/vms/{vm_id}/unlock").status_int == 403
    response = _call(app, tokens["admin"], "GET", "/v1/vms/{vm_id}")
    assert response.json["vm"]["locked"] is True
    assert _call(app, tokens["admin"], "GET", "/v1/config").json["config"]["period"] == 60


def test_admin_change_is_audited_with_the_keystone_user(keystone_app):
    app, tokens = keystone_app
    assert _call(app, tokens["admin"], "PATCH", "/v1/config").status_int == 200
    audit = _call(app, tokens["reader"], "GET", "/v1/config/audit").json["audit"]
    assert audit[0]["field"] == "period" and audit[0]["changed_by"] == "ada@system"
