"""Admin -> KeyVRM -> aggregates in Chromium: the AZ's aggregates, NOOP on and off, the other region's aggregates."""

from tests.browser import identity
from tests.browser import portal


def _hosts_cell(page, aggregate):
    return page.locator("#aggregates__row__%s" % aggregate).inner_text()


def test_admin_opens_keyvrm_and_picks_the_az_to_see_its_aggregates(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    assert page.locator("text=KeyVRM").count() > 0  # the panel group in Admin's navigation
    screenshot(page, "aggregates")
    portal.open_page(page, cloud, portal.AGGREGATES + "?availability_zone=az-1")
    screenshot(page, "az-1")
    for aggregate in ("agg-001", "agg-002"):
        assert "az-1" in _hosts_cell(page, aggregate)


def test_admin_puts_an_aggregate_in_noop_with_a_reason_and_back(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne", then=portal.AGGREGATES + "agg-002/edit/")
    page.check("#id_no_op_mode")
    page.fill("#id_no_op_reason", "maintenance of rack 2")
    screenshot(page, "edit-noop-on")
    page.click("form input[type=submit], form button[type=submit]")
    page.wait_for_load_state("networkidle")
    screenshot(page, "after-noop-on")
    assert portal.api_get(cloud, "RegionOne", "/aggregates/agg-002")["aggregate"]["no_op_mode"] is True
    assert "maintenance of rack 2" in _hosts_cell(page, "agg-002")
    portal.open_page(page, cloud, portal.AGGREGATES + "agg-002/edit/")
    page.uncheck("#id_no_op_mode")
    page.click("form input[type=submit], form button[type=submit]")
    page.wait_for_load_state("networkidle")
    screenshot(page, "after-noop-off")
    assert portal.api_get(cloud, "RegionOne", "/aggregates/agg-002")["aggregate"]["no_op_mode"] is False


def test_switching_region_shows_the_other_regions_aggregates(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    screenshot(page, "region-one")
    assert "cmp-00012" in _hosts_cell(page, "agg-002")  # 12 hosts: agg-002 is cmp-00007..12
    portal.switch_region(page, cloud, "RegionTwo")
    screenshot(page, "region-two")
    assert "RegionTwo" in page.locator(".navbar").inner_text()
    assert "cmp-00006" in _hosts_cell(page, "agg-002")  # 10 hosts: agg-002 is cmp-00006..10
    assert "cmp-00012" not in _hosts_cell(page, "agg-002")
