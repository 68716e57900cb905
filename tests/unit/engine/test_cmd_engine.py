"""keyvrm-engine refuses to start on the simulated drivers, naming the option (they belong to the demo)."""

from keyvrm.cmd import engine as engine_cmd
from keyvrm import conf as keyvrm_conf


def test_engine_command_refuses_sim_drivers_naming_the_option(tmp_path, capsys):
    config = tmp_path / "keyvrm.conf"
    config.write_text("[DEFAULT]\nstate_path = %s\n[engine]\nrpc_enabled = false\n" % tmp_path)
    try:
        assert engine_cmd.main(["--config-file", str(config)]) == 2
    finally:
        keyvrm_conf.CONF.reset()
    assert "harvest.cloud_driver" in capsys.readouterr().err
