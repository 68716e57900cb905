"""The Nova fencer against real Nova: forced down and disabled with a reason, as os-services shows."""

from keyvrm.fencing import nova as nova_fencer
from tests.nova import conftest as c


def test_nova_fencer_forces_down_and_disables_with_reason_confirmed_by_the_services_api(driver):
    host = "compute001"
    try:
        result = nova_fencer.NovaFencer(driver, reason="KeyVRM test fence").fence(host)
        [raw] = c.nova(driver, "GET", "/os-services", "2.53",
                       params={"binary": "nova-compute", "host": host})["services"]
        assert result.confirmed, result.message
        assert raw["forced_down"] is True and raw["state"] == "down"
        assert raw["status"] == "disabled" and raw["disabled_reason"] == "KeyVRM test fence"
    finally:
        driver.force_down_service(host, False)
        driver.enable_service(host)
    assert driver.get_service(host).is_up and driver.get_service(host).is_enabled
