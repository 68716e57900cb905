"""An event's page in Chromium: the HA event's evacuations, and a manual LB recommendation run until it succeeds."""

import time

from tests.browser import identity
from tests.browser import portal

EVENT = portal.AGGREGATES + "events/%s/"


def _recommendations(cloud, **filters):
    query = "&".join("%s=%s" % item for item in filters.items())
    return portal.api_get(cloud, "RegionOne", "/recommendations?" + query)["recommendations"]


def test_the_ha_event_shows_the_dead_hosts_evacuations(cloud, page, screenshot):
    evacuations = [r for r in _recommendations(cloud, status="succeeded") if r["source_host"] == "cmp-00002"]
    assert evacuations  # the demo's cmp-00002 dies at 3 min; its VMs are evacuated
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=EVENT % evacuations[0]["event_id"])
    screenshot(page, "ha-event")
    for recommendation in evacuations:
        if recommendation["event_id"] == evacuations[0]["event_id"]:
            row = page.locator("#recommendations__row__%s" % recommendation["id"]).inner_text()
            assert "cmp-00002 ->" in row and "succeeded" in row


def test_admin_runs_a_manual_recommendation_and_the_row_turns_succeeded(cloud, page, screenshot):
    manual = _recommendations(cloud, status="manual_action")
    assert manual  # LB recommendations wait for an operator in the browser tests' config
    chosen = manual[0]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=EVENT % chosen["event_id"])
    screenshot(page, "lb-event-before-run")
    page.click("#recommendations__row_%s__action_run" % chosen["id"])
    confirm = page.locator(".modal-footer .btn-danger, .modal-footer .btn-primary")
    if confirm.count():
        screenshot(page, "run-confirm")
        confirm.first.click()
    page.wait_for_load_state("networkidle")
    row = page.locator("#recommendations__row__%s" % chosen["id"])
    deadline = time.monotonic() + 120
    while "succeeded" not in row.inner_text() and time.monotonic() < deadline:
        page.wait_for_timeout(1000)  # Horizon's ajax row update refreshes the running row
    screenshot(page, "lb-event-after-run")
    assert "succeeded" in row.inner_text()
    assert portal.api_get(cloud, "RegionOne", "/recommendations/%s" % chosen["id"])[
        "recommendation"]["status"] == "succeeded"
