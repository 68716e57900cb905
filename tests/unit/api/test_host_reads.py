"""The host list, one host, its return to service and an aggregate's load answer from rows, never a snapshot."""

import sqlalchemy as sa
import webob

from keyvrm.db import models
from tests.unit.api import seed


def _call(app, path, method="GET"):
    request = webob.Request.blank(path, method=method, content_type="application/json")
    if method == "POST":
        request.body = b"{}"
    return request.get_response(app)


def test_host_reads_work_while_every_stored_snapshot_is_unreadable(noauth_app, seeded_db):
    snapshot_id = seed.store(seeded_db, seed.loaded_snapshot())
    with seeded_db.writer() as session:  # whatever would decode a snapshot on these requests fails
        session.execute(sa.update(models.RegionData).values(data=b"not a snapshot"))
    assert _call(noauth_app, "/v1/snapshots/%d/data" % snapshot_id).status_int == 500

    listed = _call(noauth_app, "/v1/hypervisors?limit=1&aggregate=agg-a")
    assert listed.status_int == 200, listed.text
    assert [(h["host"], h["snapshot_id"]) for h in listed.json["hypervisors"]] == [("cmp-1", snapshot_id)]
    shown = _call(noauth_app, "/v1/hypervisors/cmp-2")
    assert shown.status_int == 200 and shown.json["hypervisor"]["service"] is None
    load = _call(noauth_app, "/v1/aggregates/agg-a/load")
    assert load.status_int == 200 and [h["vm_count"] for h in load.json["aggregate_load"]["hosts"]] == [2, 1]
    restored = _call(noauth_app, "/v1/hypervisors/cmp-1/restore", "POST")
    assert restored.status_int == 202 and restored.json["hypervisor"]["state"] == "restoring"
    assert _call(noauth_app, "/v1/hypervisors/cmp-9/restore", "POST").status_int == 404


def test_the_next_link_keeps_the_filters_and_names_the_last_host(noauth_app):
    first = _call(noauth_app, "/v1/hypervisors?limit=1&state=fenced").json
    assert [h["host"] for h in first["hypervisors"]] == ["cmp-1"]
    [link] = first["links"]
    assert link["rel"] == "next" and "marker=cmp-1" in link["href"] and "state=fenced" in link["href"]
    after = _call(noauth_app, link["href"].split("localhost", 1)[1]).json
    assert (after["hypervisors"], after["links"]) == ([], [])
    assert _call(noauth_app, "/v1/hypervisors?aggregate=agg-b").json["hypervisors"] == []
