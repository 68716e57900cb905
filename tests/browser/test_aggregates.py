"""Admin -> KeyVRM -> aggregates in Chromium: the AZ's aggregates, a load chart, NOOP on and off, the other region's."""

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


def test_the_aggregate_page_charts_the_load_and_marks_the_overloaded_host(cloud, page, screenshot):
    overloaded = portal.overloaded_hosts(cloud, "agg-002", "cmp-00009")
    assert "cmp-00009" in overloaded  # its VMs' CPU demand ramps up 4x at 4 min of the region's clock
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    page.click("#aggregates__row__agg-002 a[href$='/agg-002/']")  # the name links to the aggregate's page
    page.wait_for_load_state("networkidle")
    screenshot(page, "agg-002")
    chart = page.locator("#keyvrm-load svg#keyvrm-load-chart")
    assert chart.count() == 1
    assert "agg-002" in chart.locator("title#keyvrm-load-chart-title").text_content()
    marked = {text.strip() for text in chart.locator("text.keyvrm-host-overloaded").all_text_contents()}
    assert any(text.startswith("cmp-00009") for text in marked)
    # The region moves on (a cycle a wall second): the chart is checked against the table the
    # page drew from the same load, not against the load read before the page.
    rows = [row.split("\t") for row in page.locator("#keyvrm-load-table tbody tr").all_inner_texts()]
    on_page = {cells[0].strip() for cells in rows if cells[-1].strip() != "No"}
    assert all(any(text.startswith(host) for host in on_page) for text in marked), (marked, rows)
    assert page.locator("#keyvrm-load-cmp-00009").count() == 1  # the load table beside the chart
    hosts = page.locator("#agg_hosts tbody tr").all_inner_texts()
    assert len(hosts) == 6 and any("cmp-00009" in row for row in hosts)


def _edit_noop(page, on, reason="", screenshot=None, name=None):
    """agg-002's Edit configuration row action: its modal's NOOP set to ``on`` (with ``reason``), saved."""
    page.click("#aggregates__row_agg-002__action_edit")
    page.wait_for_selector("#id_no_op_mode", state="attached")
    portal.set_checkbox(page, "id_no_op_mode", on)
    if reason:
        page.fill("#id_no_op_reason", reason)
    portal.confirm(page, screenshot, name)


def test_admin_puts_an_aggregate_in_noop_with_a_reason_and_back(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    _edit_noop(page, True, "maintenance of rack 2", screenshot, "edit-noop-on")
    screenshot(page, "after-noop-on")
    assert portal.api_get(cloud, "RegionOne", "/aggregates/agg-002")["aggregate"]["no_op_mode"] is True
    assert "maintenance of rack 2" in _hosts_cell(page, "agg-002")
    _edit_noop(page, False)
    screenshot(page, "after-noop-off")
    assert portal.api_get(cloud, "RegionOne", "/aggregates/agg-002")["aggregate"]["no_op_mode"] is False


def _host_count(cloud, region, aggregate):
    return len(portal.api_get(cloud, region, "/hypervisors?aggregate=%s" % aggregate)["hypervisors"])


def test_switching_region_shows_the_other_regions_aggregates(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    screenshot(page, "region-one")
    # the index counts an aggregate's hosts and links to them (it no longer lists every host of the region)
    assert "6 hosts" in _hosts_cell(page, "agg-002")  # 6 hosts per aggregate: agg-002 is cmp-00007..12
    assert _host_count(cloud, "RegionOne", "agg-002") == 6
    portal.switch_region(page, cloud, "RegionTwo")
    screenshot(page, "region-two")
    assert "RegionTwo" in page.locator(".navbar").inner_text()
    two = _host_count(cloud, "RegionTwo", "agg-002")  # 10 hosts: agg-002 is cmp-00006..10
    assert two != 6 and "%d hosts" % two in _hosts_cell(page, "agg-002")
    page.click("#aggregates__row__agg-002 a[href$='?aggregate=agg-002']")  # the count links to the hosts
    page.wait_for_load_state("networkidle")
    screenshot(page, "region-two-agg-002-hosts")
    listed = page.locator("#hypervisors tbody tr").all_inner_texts()
    assert len(listed) == two and all("agg-002" in row for row in listed)
    # the link's filter is the table's, kept in the session as Horizon keeps a typed one: clearing it lists all
    box = page.locator("input[name='hypervisors__filter_keyvrm_hypervisors__q']")
    assert box.input_value() == "agg-002"
    box.fill("")
    box.press("Enter")
    page.wait_for_load_state("networkidle")
    assert page.locator("#hypervisors tbody tr").count() > two
