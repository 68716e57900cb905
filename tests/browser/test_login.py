"""Logging in to Horizon against the real Keystone: the catalog's two regions, the KeyVRM panel group."""

from tests.browser import identity
from tests.browser import portal


def test_admin_logs_in_and_the_region_selector_offers_both_regions(cloud, page, screenshot):
    page.goto(cloud.horizon_url + "/auth/login/")
    screenshot(page, "login-form")
    portal.log_in(page, cloud, "admin", identity.ADMIN_PASSWORD, fresh=True)
    screenshot(page, "after-login")
    assert "/auth/login" not in page.url
    regions = page.locator(".dropdown-menu a[href*='services_region']").all_inner_texts()
    assert {"RegionOne", "RegionTwo"} <= {text.strip() for text in regions}


def test_wrong_password_is_refused_by_keystone(cloud, page, screenshot):
    portal.log_in(page, cloud, "admin", "not-the-password")
    screenshot(page, "refused")
    assert "/auth/login" in page.url
    assert page.locator(".alert-danger, .help-block, .error").count() > 0
