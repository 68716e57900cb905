"""A reader (role reader on the admin project) sees KeyVRM's aggregates but cannot change them."""

from tests.browser import identity
from tests.browser import portal


def test_reader_sees_the_aggregates_without_edit_actions_and_a_forced_post_is_refused(cloud, page, screenshot):
    portal.log_in(page, cloud, "reader", identity.READER_PASSWORD)
    portal.switch_region(page, cloud, "RegionOne")
    screenshot(page, "aggregates")
    assert page.locator("#aggregates__row__agg-001").count() == 1
    assert page.locator("[id$='__action_edit']").count() == 0
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    page.request.post(cloud.horizon_url + portal.AGGREGATES + "agg-001/edit/",
                      form={"csrfmiddlewaretoken": csrf, "marker": "HA", "no_op_mode": "on",
                            "no_op_reason": "forced by a reader"},
                      headers={"Referer": cloud.horizon_url + portal.AGGREGATES})
    screenshot(page, "after-forced-post")
    assert portal.api_get(cloud, "RegionOne", "/aggregates/agg-001")["aggregate"]["no_op_mode"] is False
