"""Steps through Horizon the browser tests share: log in, open a KeyVRM page, switch region; the API beside it."""

import json
import urllib.request

from tests.browser import identity

AGGREGATES = "/admin/keyvrm_aggregates/"


def log_in(page, cloud, user, password):
    """Log ``user`` in through Horizon's login form; returns the page after the redirect."""
    page.goto(cloud.horizon_url + "/auth/login/")
    page.fill("#id_username", user)
    page.fill("#id_password", password)
    page.click("#loginBtn")
    page.wait_for_load_state("networkidle")
    return page


def open_page(page, cloud, path):
    """``path`` of Horizon opened in ``page``, once its requests have settled."""
    page.goto(cloud.horizon_url + path)
    page.wait_for_load_state("networkidle")
    return page


def switch_region(page, cloud, region, then=AGGREGATES):
    """Horizon's region selector set to ``region`` (its own switch URL), then ``then`` opened."""
    return open_page(page, cloud, "/auth/switch_services_region/%s/?next=%s" % (region, then))


def api_get(cloud, region, path):
    """The JSON answer of ``GET path`` from ``region``'s keyvrm-api, as the admin."""
    token = identity.password_token(cloud.keystone_url, "admin", identity.ADMIN_PASSWORD)
    request = urllib.request.Request(cloud.apis[region].url + "/v1" + path, headers={"X-Auth-Token": token})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)
