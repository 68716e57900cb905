"""A reader (role reader on the admin project, one of Horizon's admin roles) reaches every KeyVRM page
through the navigation and sees no change button; forced POSTs change nothing."""

from tests.browser import identity
from tests.browser import portal

CHANGE_BUTTONS = ("[id$='__action_edit'], [id$='__action_run'], [id$='__action_cancel'], "
                  "[id$='__action_restore'], [id$='__action_drain'], #keyvrm-config-edit, #keyvrm-vm-unlock")


def _api(cloud, path):
    return portal.api_get(cloud, "RegionOne", path)


def _a_locked_or_evacuated_vm(cloud):
    """A VM an admin could unlock (a hung evacuation's, while it lasts), else an evacuated one."""
    hung = portal.recommendations(cloud, source_host="cmp-00013", action="evacuate", status="running")
    locked = [r["vm_id"] for r in hung if _api(cloud, "/vms/%s" % r["vm_id"])["vm"]["locked"]]
    return (locked or [r["vm_id"] for r in portal.recommendations(cloud, source_host="cmp-00002",
                                                                  action="evacuate", status="succeeded")])[0]


def _log_in_and_open(page, cloud, panel):
    """The reader logged in, RegionOne chosen in the region menu, ``panel`` opened from the navigation."""
    portal.log_in(page, cloud, "reader", identity.READER_PASSWORD)
    portal.open_page(page, cloud, "/")  # Horizon's home for the user
    portal.choose_region(page, "RegionOne")
    portal.open_from_menu(page, panel)
    assert "RegionOne" in page.locator(".navbar").inner_text()


def test_reader_reaches_every_keyvrm_page_through_the_menu_without_change_buttons(cloud, page, screenshot):
    _log_in_and_open(page, cloud, "Aggregates")
    screenshot(page, "aggregates")
    assert page.locator("#aggregates__row__agg-001").count() == 1
    assert page.locator(CHANGE_BUTTONS).count() == 0
    page.click("#aggregates__row__agg-002 a[href$='/agg-002/']")
    page.wait_for_load_state("networkidle")
    screenshot(page, "aggregate")
    assert page.locator("#keyvrm-aggregate").count() == 1 and page.locator(CHANGE_BUTTONS).count() == 0
    manual = portal.recommendations(cloud, wait_s=60, status="manual_action")
    assert manual  # an event with recommendations an admin could run or cancel
    portal.open_page(page, cloud, portal.EVENT % manual[0]["event_id"] + "?tab=event_details__recommendations")
    screenshot(page, "lb-event")
    assert page.locator("#recommendations__row__%s" % manual[0]["id"]).count() == 1
    assert page.locator(CHANGE_BUTTONS).count() == 0
    portal.open_from_menu(page, "Hypervisors")
    screenshot(page, "hypervisors")
    assert _api(cloud, "/hypervisors/cmp-00002")["hypervisor"]["restorable"]  # an admin sees Return to service
    assert "maintenance" in page.locator("#hypervisors__row__cmp-00002").inner_text()
    assert page.locator(CHANGE_BUTTONS).count() == 0
    portal.open_from_menu(page, "Global configuration")
    screenshot(page, "config")
    assert page.locator("#keyvrm-config-period").count() == 1 and page.locator(CHANGE_BUTTONS).count() == 0
    portal.open_from_menu(page, "VMs")
    page.fill("#find_vm_form #id_vm_id", _a_locked_or_evacuated_vm(cloud))
    portal.confirm(page)
    screenshot(page, "vm")
    assert page.locator("#keyvrm-vm").count() == 1 and page.locator(CHANGE_BUTTONS).count() == 0


def test_reader_forced_posts_change_nothing(cloud, page, screenshot):
    _log_in_and_open(page, cloud, "Aggregates")
    config = _api(cloud, "/config")["config"]
    manual = portal.recommendations(cloud, wait_s=60, status="manual_action")[0]
    vm_id = _a_locked_or_evacuated_vm(cloud)
    vm, history = _api(cloud, "/vms/%s" % vm_id)["vm"], _api(cloud, "/vms/%s/history" % vm_id)["history"]
    form = {name: ("on" if value else "") if isinstance(value, bool) else
            ", ".join(value) if isinstance(value, list) else value for name, value in config.items()}
    posts = [
        (portal.AGGREGATES + "agg-001/edit/", {"marker": "HA", "no_op_mode": "on", "no_op_reason": "forced"}),
        (portal.CONFIG + "edit/", dict(form, ha_vm_reset_state_timeout=config["ha_vm_reset_state_timeout"] + 1)),
        (portal.HYPERVISORS, {"action": "hypervisors__restore__cmp-00002"}),
        (portal.EVENT % manual["event_id"], {"action": "recommendations__cancel__%s" % manual["id"]}),
        (portal.VMS + "%s/unlock/" % vm_id, {"vm_id": vm_id}),
    ]
    for path, fields in posts:
        portal.forced_post(page, cloud, path, fields)
    portal.open_page(page, cloud, portal.AGGREGATES)
    screenshot(page, "after-forced-posts")
    assert _api(cloud, "/aggregates/agg-001")["aggregate"]["no_op_mode"] is False
    assert _api(cloud, "/config")["config"] == config
    assert _api(cloud, "/hypervisors/cmp-00002")["hypervisor"]["state"] == "maintenance"
    assert _api(cloud, "/recommendations/%s" % manual["id"])["recommendation"]["status"] == "manual_action"
    assert _api(cloud, "/vms/%s" % vm_id)["vm"]["locked"] == vm["locked"]
    assert _api(cloud, "/vms/%s/history" % vm_id)["history"] == history  # no manual_unlock entry
