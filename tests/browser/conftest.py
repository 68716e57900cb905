"""Fixtures of the browser tests: the demo cloud (tests.browser.cloud) and Debian's Chromium under Playwright."""

import os

from playwright import sync_api
import pytest

from tests.browser import cloud as demo_cloud

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = os.environ.get("KEYVRM_BROWSER_ARTIFACTS",
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "artifacts"))


@pytest.fixture(scope="session")
def cloud(tmp_path_factory):
    """Keystone, keyvrm-api for RegionOne and RegionTwo, and Horizon with the plugin, for the session."""
    with demo_cloud.running(str(tmp_path_factory.mktemp("cloud"))) as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless; Playwright gives it a fresh --user-data-dir of its own."""
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A new page in its own browser context (own cookies)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


@pytest.fixture
def screenshot(request):
    """``screenshot(page, name)`` saves the page as ARTIFACTS/<test>-<name>.png."""
    os.makedirs(ARTIFACTS, exist_ok=True)

    def save(page, name):
        page.screenshot(path=os.path.join(ARTIFACTS, "%s-%s.png" % (request.node.name, name)), full_page=True)
    return save
