"""Admin -> KeyVRM -> VMs in Chromium: an evacuated VM's lifecycle state and history; Unlock of a locked VM."""

from tests.browser import identity
from tests.browser import portal

STUCK_HOST = "cmp-00013"  # one of its VMs' evacuation hangs in Nova (tests/browser/browser-region.yaml)


def _vm(cloud, vm_id):
    return portal.api_get(cloud, "RegionOne", "/vms/%s" % vm_id)["vm"]


def _find(page, cloud, vm_id, screenshot=None, name=None):
    """The VM's page reached through the panel's lookup form."""
    portal.switch_region(page, cloud, "RegionOne", then=portal.VMS)
    page.fill("#find_vm_form #id_vm_id", vm_id)
    portal.confirm(page, screenshot, name)


def test_an_evacuated_vm_shows_its_state_and_history(cloud, page, screenshot):
    evacuated = portal.recommendations(cloud, source_host="cmp-00002", action="evacuate", status="succeeded")
    assert evacuated  # the demo's cmp-00002 dies at 3 min; its VMs are evacuated
    vm_id = evacuated[0]["vm_id"]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    _find(page, cloud, vm_id, screenshot, "find")
    screenshot(page, "evacuated-vm")
    assert vm_id in page.url
    assert page.locator("#keyvrm-vm-locked").inner_text().startswith("No")
    assert page.locator("#keyvrm-vm-unlock").count() == 0  # nothing to unlock
    history = page.locator("#vm_history tbody tr").all_inner_texts()
    assert any("evacuate" in row and "succeeded" in row for row in history)
    assert len(history) == len(portal.api_get(cloud, "RegionOne", "/vms/%s/history" % vm_id)["history"])


def test_admin_unlocks_the_vm_a_hung_evacuation_holds(cloud, page, screenshot):
    hung = portal.recommendations(cloud, source_host=STUCK_HOST, wait_s=60, action="evacuate", status="running")
    assert hung and _vm(cloud, hung[0]["vm_id"])["locked"]  # migrating, locked for 6 h of simulated time
    vm_id = hung[0]["vm_id"]
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD)
    _find(page, cloud, vm_id)
    screenshot(page, "locked-vm")
    assert page.locator("#keyvrm-vm-locked").inner_text().startswith("Yes")
    assert "executor:%s" % hung[0]["id"] in page.locator("#keyvrm-vm-locked").inner_text()
    page.click("#keyvrm-vm-unlock")
    portal.confirm(page, screenshot, "unlock-confirm")
    assert "VM %s unlocked." % vm_id in portal.message_texts(page)
    screenshot(page, "unlocked-vm")
    assert page.locator("#keyvrm-vm-locked").inner_text().startswith("No")
    assert page.locator("#keyvrm-vm-unlock").count() == 0
    assert _vm(cloud, vm_id)["locked"] is False
