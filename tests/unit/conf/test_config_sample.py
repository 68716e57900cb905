"""The generated config sample is current, and every option group is registered."""

import pathlib
import subprocess
import sys

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from keyvrm import conf as keyvrm_conf
from keyvrm.conf import cloud
from keyvrm.conf import lifecycle
from keyvrm.conf import opts

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_committed_sample_matches_the_generator(tmp_path):
    output = tmp_path / "keyvrm.conf.sample"
    subprocess.run([sys.executable, "-W", "ignore", "-m", "oslo_config.generator",
                    "--config-file", str(ROOT / "etc/keyvrm/keyvrm-config-generator.conf"),
                    "--output-file", str(output)], check=True, cwd=ROOT)
    committed = (ROOT / "etc/keyvrm/keyvrm.conf.sample").read_text()
    assert output.read_text() == committed, "run `tox -e genconfig` and commit the sample"


def test_every_group_of_list_opts_is_registered(tmp_path):
    """Ours at registration; the [cloud] auth plugin's own options once keystoneauth loads it."""
    config_file = tmp_path / "keyvrm.conf"
    config_file.write_text("[cloud]\nauth_type = password\nauth_url = http://keystone:5000/v3\n")
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf(["--config-file", str(config_file)], default_config_files=[])
    ks_loading.load_auth_from_conf_options(conf, cloud.GROUP)
    for group, group_opts in opts.list_opts():
        for opt in group_opts:
            section = conf if group == "DEFAULT" else conf[group]
            assert opt.dest in section, (group, opt.dest)


def test_lifecycle_timeouts_default_to_the_seed():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    assert conf.lifecycle.starting_timeout == 15 * 60
    assert conf.lifecycle.stopping_timeout == conf.lifecycle.resuming_timeout == 30 * 60
    assert conf.lifecycle.deleting_timeout == 3600
    assert conf.lifecycle.migrating_timeout == conf.lifecycle.restoring_timeout == 6 * 3600
    assert set(lifecycle.TIMEOUT_DEFAULTS_S) == {
        "starting", "stopping", "suspending", "resuming", "creating", "deleting",
        "migrating", "restoring"}


def test_embedded_default_database_is_sqlite_under_the_state_path(tmp_path):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    conf.set_override("state_path", str(tmp_path))
    assert conf.database.connection == "sqlite:///%s/keyvrm.sqlite" % tmp_path
