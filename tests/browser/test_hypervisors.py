"""Admin -> KeyVRM -> Hypervisors in Chromium: KeyVRM's host states with since and why; Return to service."""

import time

from tests.browser import identity
from tests.browser import portal

DEAD = "cmp-00002"  # dies at 3 min and stays dead: maintenance, left so for the other tests
RECOVERED = "cmp-00004"  # dies with it and gets its power back (tests/browser/browser-region.yaml)


def _row(page, host):
    return page.locator("#hypervisors__row__%s" % host)


def _hypervisor(cloud, host):
    return portal.api_get(cloud, "RegionOne", "/hypervisors/%s" % host)["hypervisor"]


def test_the_dead_host_shows_maintenance_since_when_and_why(cloud, page, screenshot):
    dead = _hypervisor(cloud, DEAD)
    assert dead["state"] == "maintenance" and dead["restorable"]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=portal.HYPERVISORS)
    screenshot(page, "hypervisors")
    row = _row(page, DEAD).inner_text()
    assert "maintenance" in row.lower()
    assert "evacuated by event %s" % dead["event_id"] in row  # why
    since = _row(page, DEAD).locator(".keyvrm-time").first  # since: relative, the exact time on hover
    assert " ago" in since.inner_text() or "just now" in since.inner_text()
    assert dead["state_since"][:16].replace("T", " ") in since.get_attribute("title")  # the user's zone: UTC
    assert "ok" in _row(page, "cmp-00001").inner_text().lower()


def test_admin_returns_a_recovered_host_to_service_and_the_api_has_it_ok(cloud, page, screenshot):
    assert _hypervisor(cloud, RECOVERED)["restorable"]  # evacuated, in maintenance, power back
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=portal.HYPERVISORS)
    assert page.locator("#hypervisors__row_%s__action_restore" % "cmp-00001").count() == 0  # ok: nothing to do
    portal.click_action(page, "#hypervisors__row_%s__action_restore" % RECOVERED, screenshot, "restore-confirm")
    screenshot(page, "after-restore")
    assert "Returned to Service" in portal.message_texts(page)
    deadline = time.monotonic() + 60
    while _hypervisor(cloud, RECOVERED)["state"] != "ok" and time.monotonic() < deadline:
        time.sleep(1)  # the engine returns it at its next pass: restoring, then ok once its service is up
    restored = _hypervisor(cloud, RECOVERED)
    assert restored["state"] == "ok" and not restored["restorable"]
    portal.open_page(page, cloud, portal.HYPERVISORS)
    screenshot(page, "restored")
    assert "returned to service" in _row(page, RECOVERED).inner_text()
    assert page.locator("#hypervisors__row_%s__action_restore" % RECOVERED).count() == 0
    assert _hypervisor(cloud, DEAD)["state"] == "maintenance"  # the other host is left as it was
