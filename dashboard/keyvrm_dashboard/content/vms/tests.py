"""View tests of the VMs panel: lookup, lifecycle state and history, Unlock for admins only."""

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_vms:index')
DETAIL_URL = reverse('horizon:admin:keyvrm_vms:detail', args=['vm-1'])
UNLOCK_URL = reverse('horizon:admin:keyvrm_vms:unlock', args=['vm-1'])


class AdminVMTests(kv_helpers.AdminTestCase):

    def test_lookup_goes_to_the_vm_page(self):
        res = self.client.post(INDEX_URL, {'vm_id': ' vm-1 '})
        self.assertRedirectsNoFollow(res, DETAIL_URL)

    @helpers.create_mocks({keyvrm: ['vm_get', 'vm_history']})
    def test_detail_shows_state_history_and_unlock(self):
        self.mock_vm_get.return_value = data.copied(data.VM)
        self.mock_vm_history.return_value = data.copied(data.VM_HISTORY)
        res = self.client.get(DETAIL_URL)
        self.assertContains(res, 'migrating')
        self.assertContains(res, 'rec-manual')
        self.assertContains(res, 'id="keyvrm-vm-unlock"')
        self.assertEqual(data.VM_HISTORY, res.context['table'].data)

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_lookup_and_unlock_open_as_pages_of_horizon_and_unlock_as_a_modal_by_ajax(self):
        self.mock_vm_list.return_value = [data.copied(data.VM)]
        self.assertTemplateUsed(self.client.get(INDEX_URL), 'base.html')  # the panel's own page
        self.assertModalAndPage(UNLOCK_URL, 'admin/keyvrm_vms/_unlock.html', 'id="unlock_vm_form"')

    @helpers.create_mocks({keyvrm: ['vm_unlock']})
    def test_unlock_calls_the_api(self):
        self.mock_vm_unlock.return_value = {'vm_id': 'vm-1', 'was_locked': True}
        res = self.client.post(UNLOCK_URL, {'vm_id': 'vm-1'})
        self.assertRedirectsNoFollow(res, DETAIL_URL)
        self.mock_vm_unlock.assert_called_once_with(helpers.IsHttpRequest(), 'vm-1')

    @helpers.create_mocks({keyvrm: ['vm_get', 'vm_history']})
    def test_unknown_vm_is_a_message_not_a_500(self):
        self.mock_vm_get.side_effect = keyvrm.ClientError(404, 'not_found', 'VM vm-9 is not known to KeyVRM')
        self.mock_vm_history.return_value = []
        res = self.client.get(reverse('horizon:admin:keyvrm_vms:detail', args=['vm-9']))
        self.assertEqual(200, res.status_code)
        self.assertContains(res, 'VM vm-9 is not known to KeyVRM')


class ReaderVMTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: ['vm_get', 'vm_history', 'vm_unlock']})
    def test_reader_sees_the_vm_but_cannot_unlock(self):
        self.mock_vm_get.return_value = data.copied(data.VM)
        self.mock_vm_history.return_value = []
        res = self.client.get(DETAIL_URL)
        self.assertContains(res, 'migrating')
        self.assertNotContains(res, 'keyvrm-vm-unlock')
        self.assertNotAuthorized(self.client.get(UNLOCK_URL))
        self.assertNotAuthorized(self.client.post(UNLOCK_URL, {'vm_id': 'vm-1'}))
        self.mock_vm_unlock.assert_not_called()
