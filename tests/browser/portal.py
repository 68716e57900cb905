"""Steps through Horizon the browser tests share: log in, menus, KeyVRM pages, confirmations; the API beside them."""

import json
import time
import urllib.request

from tests.browser import identity

AGGREGATES = "/admin/keyvrm_aggregates/"
EVENT = AGGREGATES + "events/%s/"
HYPERVISORS = "/admin/keyvrm_hypervisors/"
CONFIG = "/admin/keyvrm_config/"
VMS = "/admin/keyvrm_vms/"
# The Save/Submit/confirm button of Horizon's modal (a form's or a table action's confirmation).
MODAL_SUBMIT = ".modal-footer .btn-danger, .modal-footer .btn-primary, .modal-footer input[type=submit]"


# Horizon session cookies of each (Horizon, user, password) once logged in through the form:
# a later test's new browser context takes them instead of filling the form again (each
# login costs Horizon seconds of page rendering), and switches region itself.
_SESSIONS = {}


def log_in(page, cloud, user, password, fresh=False):
    """``user`` logged in: by Horizon's login form the first time (or when ``fresh``), else by its cookies.

    Returns the page (after the form's redirect, if the form was used).
    """
    key = (cloud.horizon_url, user, password)
    if key in _SESSIONS and not fresh:
        page.context.add_cookies(_SESSIONS[key])
        return page
    page.goto(cloud.horizon_url + "/auth/login/")
    page.fill("#id_username", user)
    page.fill("#id_password", password)
    page.click("#loginBtn")
    page.wait_for_load_state("networkidle")
    if "/auth/login" not in page.url:
        _SESSIONS[key] = page.context.cookies()
    return page


def open_page(page, cloud, path):
    """``path`` of Horizon opened in ``page``, once its requests have settled."""
    page.goto(cloud.horizon_url + path)
    page.wait_for_load_state("networkidle")
    return page


def switch_region(page, cloud, region, then=AGGREGATES):
    """Horizon's region selector set to ``region`` (its own switch URL), then ``then`` opened."""
    return open_page(page, cloud, "/auth/switch_services_region/%s/?next=%s" % (region, then))


def choose_region(page, region):
    """``region`` picked in Horizon's region menu of the top bar (the menu opened by clicking it)."""
    choice = page.locator("li.dropdown .context-selection a[href*='switch_services_region/%s/']" % region).first
    if not choice.is_visible():
        page.locator("li.dropdown:has(.context-selection) > a.dropdown-toggle").click()
    with page.expect_navigation():
        choice.click()
    page.wait_for_load_state("networkidle")


def open_from_menu(page, panel):
    """Admin -> KeyVRM -> ``panel`` clicked in Horizon's side navigation, each level opened if closed."""
    for level in ("#sidebar-accordion-admin", "#sidebar-accordion-admin-keyvrm"):
        if not page.locator(level).is_visible():
            page.click("#sidebar-accordion a[data-target='%s']" % level)
            page.locator(level).wait_for(state="visible")
    with page.expect_navigation():
        page.locator("#sidebar-accordion-admin-keyvrm a.openstack-panel", has_text=panel).click()
    page.wait_for_load_state("networkidle")


def confirm(page, screenshot=None, name=None, navigates=True):
    """Click the open modal's submit or confirm button (saving a screenshot first if given).

    Returns once the page it leads to has loaded (``navigates``), else once requests settle
    (a modal form refused by the server is shown again in place).
    """
    button = page.locator(MODAL_SUBMIT).first
    button.wait_for(state="visible", timeout=30000)
    if screenshot is not None:
        screenshot(page, name)
    if navigates:
        with page.expect_navigation(timeout=60000):
            button.click()
    else:
        button.click()
    page.wait_for_load_state("networkidle")


def set_checkbox(page, field_id, on):
    """Horizon's themed checkbox ``field_id`` (its input is hidden behind the label) set to ``on``."""
    if page.is_checked("#" + field_id) != on:
        page.click("label[for='%s']" % field_id)
    assert page.is_checked("#" + field_id) == on


def click_action(page, selector, screenshot=None, name=None):
    """Click a table action; confirm it if Horizon asks (its danger actions do), saving the question as ``name``.

    A row's second action sits in the row's drop-down menu: it is opened first.
    """
    action = page.locator(selector)
    if not action.is_visible():
        action.locator("xpath=ancestor::*[contains(@class, 'btn-group')][1]").locator(".dropdown-toggle").click()
    action.click()
    page.wait_for_load_state("networkidle")
    if page.locator(MODAL_SUBMIT).count() and page.locator(MODAL_SUBMIT).first.is_visible():
        confirm(page, screenshot, name)


def wait_for_text(locator, text, timeout_s=60.0):
    """Whether ``text`` appears in ``locator`` within ``timeout_s`` (Horizon's ajax rows update in place)."""
    deadline = time.monotonic() + timeout_s
    while text not in locator.inner_text():
        if time.monotonic() >= deadline:
            return False
        locator.page.wait_for_timeout(1000)
    return True


def message_texts(page):
    """The texts of Horizon's message alerts now shown (success, info, error)."""
    return " ".join(page.locator(".messages .alert, .alert").all_inner_texts())


def forced_post(page, cloud, path, form):
    """POST ``form`` to Horizon's ``path`` with the page's CSRF token, as a browser that skipped the UI would."""
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(cloud.horizon_url + path, form=dict(form, csrfmiddlewaretoken=csrf),
                             headers={"Referer": cloud.horizon_url + path})


def api_get(cloud, region, path):
    """The JSON answer of ``GET path`` from ``region``'s keyvrm-api, as the admin."""
    token = identity.password_token(cloud.keystone_url, "admin", identity.ADMIN_PASSWORD)
    request = urllib.request.Request(cloud.apis[region].url + "/v1" + path, headers={"X-Auth-Token": token})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def overloaded_hosts(cloud, aggregate, host, region="RegionOne", wait_s=120.0):
    """The hosts ``aggregate``'s load marks overloaded, once ``host`` is among them (or ``wait_s`` passed).

    The demo region's clock waits while its engine works, so how much simulated time has
    passed at a given wall time depends on the machine's load: a fault "at 4 min" is
    waited for, not assumed.
    """
    deadline = time.monotonic() + wait_s
    while True:
        load = api_get(cloud, region, "/aggregates/%s/load" % aggregate)["aggregate_load"]
        overloaded = {entry["host"] for entry in load["hosts"] if entry["overloaded"]}
        if host in overloaded or time.monotonic() >= deadline:
            return overloaded
        time.sleep(2)


def recommendations(cloud, region="RegionOne", source_host=None, wait_s=0.0, **filters):
    """``region``'s recommendations matching ``filters`` (query parameters of the API) and ``source_host``.

    With ``wait_s``, waits that long for at least one (the engine may not have planned it yet).
    """
    query = "&".join("%s=%s" % item for item in filters.items())
    deadline = time.monotonic() + wait_s
    while True:
        found = [r for r in api_get(cloud, region, "/recommendations?" + query)["recommendations"]
                 if source_host in (None, r["source_host"])]
        if found or time.monotonic() >= deadline:
            return found
        time.sleep(2)
