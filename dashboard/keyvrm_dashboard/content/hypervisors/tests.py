"""View and table tests of the Hypervisors panel: states with since/why, Return to service for admins."""

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_hypervisors:index')


class AdminHypervisorsTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_index_shows_state_since_why_and_restore_only_where_restorable(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'evacuated after fencing by BMC')
        self.assertContains(res, 'down/disabled forced down (keyvrm: fenced)')
        self.assertContains(res, 'hypervisors__row_cmp-2__action_restore')
        self.assertNotContains(res, 'hypervisors__row_cmp-1__action_restore')

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_restore_calls_the_api(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-2'})
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_hypervisor_restore.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-2')

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_api_error_is_a_message_not_a_500(self):
        self.mock_hypervisor_list.side_effect = keyvrm.ClientError(403, 'forbidden', 'policy refuses')
        res = self.client.get(INDEX_URL)
        self.assertEqual(200, res.status_code)
        self.assertContains(res, 'policy refuses')

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_restore_refused_by_the_api_shows_its_reason(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        self.mock_hypervisor_restore.side_effect = keyvrm.ClientError(
            409, 'conflict', 'cmp-2 is still fenced: power it on first')
        res = self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-2'}, follow=True)
        self.assertContains(res, 'cmp-2 is still fenced: power it on first')


class ReaderHypervisorsTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_reader_sees_states_but_no_restore(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'cmp-2')
        self.assertNotContains(res, '__action_restore')
        self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-2'})
        self.mock_hypervisor_restore.assert_not_called()
