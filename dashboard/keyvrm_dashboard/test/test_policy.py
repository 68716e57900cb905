"""KeyVRM's policy in Horizon: the shipped defaults are registered and name every rule the panels check,
and an operator's override in keyvrm_policy.yaml changes what the panels offer."""

import os
import tempfile
import types

from django.conf import settings
from django.test.utils import override_settings
from django.urls import reverse
from openstack_auth import policy
from openstack_dashboard.test import helpers
import yaml

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import apps
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

HYPERVISORS_URL = reverse('horizon:admin:keyvrm_hypervisors:index')
DRAIN_URL = reverse('horizon:admin:keyvrm_hypervisors:drain', args=['cmp-1'])


def shipped_rule_names():
    with open(apps.DEFAULT_POLICY_FILE, encoding='utf-8') as shipped:
        return {entry['name'] for entry in yaml.safe_load(shipped)}


class PolicyFilesTests(helpers.TestCase):

    def test_the_app_registers_the_shipped_defaults_and_the_operators_file(self):
        self.assertEqual(apps.DEFAULT_POLICY_FILE, settings.DEFAULT_POLICY_FILES[access.SERVICE])
        self.assertTrue(os.path.isfile(apps.DEFAULT_POLICY_FILE))
        self.assertEqual('keyvrm_policy.yaml', settings.POLICY_FILES[access.SERVICE])

    def test_a_deployments_own_policy_files_are_kept(self):
        config = types.SimpleNamespace(DEFAULT_POLICY_FILES={access.SERVICE: '/etc/horizon/keyvrm-defaults.yaml'},
                                       POLICY_FILES={access.SERVICE: '/etc/horizon/keyvrm.yaml'})
        apps.register_policy_files(config)
        self.assertEqual({access.SERVICE: '/etc/horizon/keyvrm-defaults.yaml'}, config.DEFAULT_POLICY_FILES)
        self.assertEqual({access.SERVICE: '/etc/horizon/keyvrm.yaml'}, config.POLICY_FILES)

    def test_every_rule_the_panels_check_is_a_shipped_default(self):
        checked = {value for name, value in vars(access).items()
                   if name.isupper() and isinstance(value, str) and value.startswith('keyvrm:')}
        self.assertEqual(7, len(checked))
        self.assertEqual(set(), checked - shipped_rule_names())


class OperatorOverrideTests(kv_helpers.ReaderTestCase):
    """An operator lets readers drain hosts in keyvrm_policy.yaml: the reader gets Drain, nothing else."""

    def setUp(self):
        super().setUp()
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        path = os.path.join(directory.name, 'keyvrm_policy.yaml')
        with open(path, 'w', encoding='utf-8') as overrides:
            overrides.write('"keyvrm:hypervisor:drain": "rule:reader"\n')
        files = override_settings(POLICY_FILES={access.SERVICE: path})
        files.enable()
        self.addCleanup(files.disable)
        policy.reset()
        self.addCleanup(policy.reset)

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_an_override_offers_drain_to_a_reader_and_keeps_return_to_service_for_admins(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(HYPERVISORS_URL)
        self.assertContains(res, 'hypervisors__row_cmp-1__action_drain')
        self.assertNotContains(res, '__action_restore')
        self.assertEqual(200, self.client.get(DRAIN_URL).status_code)
