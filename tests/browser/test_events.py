"""An event's page in Chromium: the HA event's evacuations; manual LB recommendations run to success, or cancelled."""

import time

from tests.browser import identity
from tests.browser import portal


def _status(cloud, recommendation):
    return portal.api_get(cloud, "RegionOne", "/recommendations/%s" % recommendation["id"])["recommendation"]["status"]


def _page_of(cloud, recommendation):
    """The event page's URL showing ``recommendation``'s row: its Recommendations tab from that row on.

    The tab lists a page at a time (Horizon's Items Per Page), oldest first as the API does;
    a ``?marker=`` (the row before it) opens that tab on the page that starts with it.
    """
    url = portal.EVENT % recommendation["event_id"]
    ids = [r["id"] for r in portal.recommendations(cloud, event_id=recommendation["event_id"])]
    index = ids.index(recommendation["id"])
    return url + ("?marker=%s" % ids[index - 1] if index else "?tab=event_details__recommendations")


# Both overload (tests/browser/browser-region.yaml). A recommendation is run off cmp-00010 only, so
# cmp-00009 stays overloaded for the aggregate page's chart; cancelling one off cmp-00009 moves nothing.
RUN_OFF = "cmp-00010"
CANCEL_OFF = "cmp-00009"


def test_the_ha_event_shows_the_dead_hosts_evacuations(cloud, page, screenshot):
    evacuations = portal.recommendations(cloud, source_host="cmp-00002", wait_s=120, status="succeeded")
    assert evacuations  # the demo's cmp-00002 dies at 3 min of the region's clock; its VMs are evacuated
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=_page_of(cloud, evacuations[0]))
    screenshot(page, "ha-event")
    for recommendation in evacuations:
        if recommendation["event_id"] == evacuations[0]["event_id"] and \
                page.locator("#recommendations__row__%s" % recommendation["id"]).count():
            row = page.locator("#recommendations__row__%s" % recommendation["id"]).inner_text()
            assert "cmp-00002 ->" in row and "succeeded" in row


def test_admin_runs_a_manual_recommendation_and_the_row_turns_succeeded(cloud, page, screenshot):
    manual = portal.recommendations(cloud, source_host=RUN_OFF, wait_s=120, status="manual_action")
    assert manual  # LB recommendations wait for an operator in the browser tests' config
    chosen = manual[0]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=_page_of(cloud, chosen))
    screenshot(page, "lb-event-before-run")
    # Run asks first too (its confirmation names the VM with its source and target)
    portal.click_action(page, "#recommendations__row_%s__action_run" % chosen["id"], screenshot, "run-confirm")
    page.evaluate("window.keyvrmNotReloaded = true")  # gone if the page were loaded again
    row = page.locator("#recommendations__row__%s" % chosen["id"])
    portal.wait_for_text(row, "succeeded", timeout_s=120)  # the page's rows are fetched again until final
    portal.wait_for_text(row, "success #", timeout_s=30)  # with the newest line of the journal
    screenshot(page, "lb-event-after-run")
    assert "succeeded" in row.inner_text()
    assert page.evaluate("window.keyvrmNotReloaded === true")
    assert _status(cloud, chosen) == "succeeded"
    row.locator("a[href*='/recommendations/%s/']" % chosen["id"]).click()  # the whole journal, on demand
    page.wait_for_load_state("networkidle")
    journal = page.locator("#operations-%s" % chosen["id"])
    screenshot(page, "lb-recommendation-journal")
    assert "execution" in journal.inner_text()  # the operation kind execute, labelled (labels.OPERATION_KINDS)
    assert "success" in journal.inner_text()


def test_admin_cancels_a_manual_recommendation_and_the_row_turns_cancelled(cloud, page, screenshot):
    manual = portal.recommendations(cloud, source_host=CANCEL_OFF, wait_s=120, status="manual_action")
    assert manual
    chosen = manual[-1]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=_page_of(cloud, chosen))
    screenshot(page, "lb-event-before-cancel")
    portal.click_action(page, "#recommendations__row_%s__action_cancel" % chosen["id"], screenshot, "cancel-confirm")
    screenshot(page, "lb-event-after-cancel")
    row = page.locator("#recommendations__row__%s" % chosen["id"])
    assert "cancelled" in row.inner_text()
    assert page.locator("#recommendations__row_%s__action_cancel" % chosen["id"]).count() == 0
    assert page.locator("#recommendations__row_%s__action_run" % chosen["id"]).count() == 0
    deadline = time.monotonic() + 30
    while _status(cloud, chosen) != "cancelled" and time.monotonic() < deadline:
        time.sleep(1)
    assert _status(cloud, chosen) == "cancelled"
