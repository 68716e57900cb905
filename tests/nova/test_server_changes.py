"""The kept server list against real Nova: after changes, one changes-since read lists what Nova lists.

Boots, a metadata change and a delete on the session's fake cloud (~5 s).
"""

from keyvrm.drivers.cloud import openstack
from tests.nova import conftest as c


def _server_reads(driver):
    """The ``/servers/detail`` URLs the driver's session sends from now on."""
    urls = []
    driver.conn.session.session.hooks["response"].append(
        lambda response, *args, **kwargs: urls.append(response.request.url)
        if "/servers/detail" in response.request.url else None)
    return urls


def _nova_lists(fake_cloud):
    """Every server as Nova lists it, read through a session of its own."""
    other = openstack.from_endpoints(fake_cloud.service_endpoints)
    body = c.nova(other, "GET", "/servers/detail", params={"all_tenants": "True", "limit": 1000})
    return {s["id"]: s for s in body["servers"]}


def test_after_boot_metadata_change_and_delete_the_kept_list_is_nova_s_own(fake_cloud, driver):
    kept = c.boot(driver, "changes-kept", "compute001")
    gone = c.boot(driver, "changes-gone", "compute002")
    urls = _server_reads(driver)
    assert {kept, gone} <= {vm.id for vm in driver.list_servers()}  # the full read

    c.nova(driver, "PUT", "/servers/%s/metadata/keyvrm_no_evac" % kept,
           json={"meta": {"keyvrm_no_evac": "true"}})
    c.nova(driver, "DELETE", "/servers/%s" % gone)
    c.wait_for(lambda: gone not in _nova_lists(fake_cloud))
    new = c.boot(driver, "changes-new", "compute003")
    listed = {vm.id: vm for vm in driver.list_servers()}

    assert len(urls) == 2 and "changes-since" not in urls[0] and "changes-since" in urls[1]
    nova = _nova_lists(fake_cloud)
    assert set(listed) == set(nova) and new in listed and gone not in listed
    assert listed[kept].metadata == {"keyvrm_no_evac": "true"}
    assert {(vm.id, vm.host, vm.status) for vm in listed.values()} == {
        (s["id"], s["OS-EXT-SRV-ATTR:host"], s["status"]) for s in nova.values()}
