"""The OpenStack driver built from [cloud] (keystoneauth options) and [harvest] options."""

from oslo_config import cfg

from keyvrm import conf as keyvrm_conf
from keyvrm.conf import cloud
from keyvrm.drivers.cloud import openstack


def _conf(**cloud):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    for name, value in cloud.items():
        conf.set_override(name, value, group="cloud")
    conf.set_override("page_size", 50, group="harvest")
    conf.set_override("servers_full_read_interval", 900, group="harvest")
    return conf


def test_from_conf_uses_the_keystoneauth_plugin_endpoint_overrides_and_harvest_options():
    conf = _conf(auth_type="none", compute_endpoint_override="http://nova.test:8774/v2.1",
                 placement_endpoint_override="http://placement.test:8778", timeout=7)
    driver = openstack.from_conf(conf)
    assert driver.page_size == 50
    assert driver.server_list.full_read_interval_s == 900
    assert driver.conn.config.get_endpoint("compute") == "http://nova.test:8774/v2.1"
    assert driver.conn.config.get_endpoint("placement") == "http://placement.test:8778"
    assert driver.conn.session.timeout == 7


def test_keystoneauth_password_options_are_listed_for_the_sample():
    names = {opt.dest for opt in cloud.opts}
    assert {"auth_type", "auth_url", "username", "password", "cafile", "timeout",
            "compute_endpoint_override"} <= names
