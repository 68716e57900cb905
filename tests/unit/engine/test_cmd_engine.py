"""keyvrm-engine starts on the real drivers by default and refuses the simulated ones, naming the option."""

from oslo_config import cfg

from keyvrm.cmd import engine as engine_cmd
from keyvrm import conf as keyvrm_conf


def test_engine_command_refuses_sim_drivers_naming_the_option(tmp_path, capsys):
    config = tmp_path / "keyvrm.conf"
    config.write_text("[DEFAULT]\nstate_path = %s\n[engine]\nrpc_enabled = false\n"
                      "[harvest]\ncloud_driver = sim\n" % tmp_path)
    try:
        assert engine_cmd.main(["--config-file", str(config)]) == 2
    finally:
        keyvrm_conf.CONF.reset()
    assert "harvest.cloud_driver" in capsys.readouterr().err


def test_the_shipped_defaults_are_the_real_drivers():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm", default_config_files=[])
    assert (conf.harvest.cloud_driver, conf.metrics.driver, conf.heartbeat.driver) == (
        "openstack", "prometheus", "sentinel")
