"""The VMs panel's list of the VMs KeyVRM holds: one API page, filtered by lock or state, Unlock on locked ones."""

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_vms:index')
FILTER = 'vms__filter_keyvrm_vms__q'
UNLOCKED = dict(data.VM, vm_id='vm-2', locked=False, lock_owner=None, locked_at=None, transitional_state=None,
                deadline_at=None, failure_state='migration_failed')


def vms(count):
    return [dict(data.copied(UNLOCKED), vm_id='vm-%03d' % i) for i in range(count)]


class VMListTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_the_panel_lists_one_page_of_the_vms_keyvrm_holds_beside_the_lookup(self):
        self.mock_vm_list.return_value = vms(21)
        res = self.client.get(INDEX_URL)
        self.mock_vm_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker=None, sort_dir=None)
        self.assertEqual(20, len(res.context['table'].data))
        self.assertContains(res, 'href="?marker=vm-019"', html=False)
        self.assertContains(res, 'id="find_vm_form"')  # the lookup by UUID stays on the page
        self.assertContains(res, 'href="%s"' % reverse('horizon:admin:keyvrm_vms:detail', args=['vm-000']))
        self.assertContains(res, 'migration failed')

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_the_locked_filter_sends_a_boolean_and_the_state_filter_a_known_state(self):
        self.mock_vm_list.return_value = [data.copied(data.VM)]
        for field, text, sent in (('locked', 'yes', True), ('locked', 'No', False),
                                  ('state', 'Migrating', 'migrating')):
            self.client.post(INDEX_URL, {FILTER + '_field': field, FILTER: text})
            self.mock_vm_list.reset_mock()
            self.client.get(INDEX_URL)
            self.mock_vm_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker=None, sort_dir=None,
                                                      **{field: sent})

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_a_link_to_the_locked_vms_filters_them(self):
        res = self.client.get(INDEX_URL + '?locked=yes')
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_vm_list.return_value = [data.copied(data.VM)]
        self.client.get(INDEX_URL)
        self.mock_vm_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker=None, sort_dir=None,
                                                  locked=True)

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_unlock_is_offered_on_a_locked_vm_only(self):
        self.mock_vm_list.return_value = [data.copied(data.VM), data.copied(UNLOCKED)]
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'id="vms__row_vm-1__action_unlock"')
        self.assertContains(res, reverse('horizon:admin:keyvrm_vms:unlock', args=['vm-1']))
        self.assertNotContains(res, 'vms__row_vm-2__action_unlock')
        self.assertContains(res, 'Yes (rec-manual)')

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_an_empty_lookup_shows_the_forms_error_and_the_list(self):
        self.mock_vm_list.return_value = vms(1)
        res = self.client.post(INDEX_URL, {'vm_id': ''})
        self.assertEqual(200, res.status_code)
        self.assertContains(res, 'This field is required.')
        self.assertContains(res, 'id="vms__row__vm-000"')

    @helpers.create_mocks({keyvrm: ['vm_get', 'vm_history']})
    def test_the_vm_page_shows_times_in_the_users_zone_and_durations_rounded(self):
        self.set_session(django_timezone='Europe/Moscow')
        self.mock_vm_get.return_value = data.copied(data.VM)
        self.mock_vm_history.return_value = [dict(data.VM_HISTORY[0], status='succeeded',
                                                  finished_at='2026-12-04T00:11:35.123456Z',
                                                  duration_s=65.12345678901234)]
        res = self.client.get(reverse('horizon:admin:keyvrm_vms:detail', args=['vm-1']))
        self.assertContains(res, 'title="2026-12-04 03:10:30 MSK"')  # locked since, in Moscow
        self.assertContains(res, 'title="2026-12-04 03:11:35 MSK"')  # finished, microseconds dropped
        self.assertContains(res, '1 min 5 s')
        self.assertNotContains(res, '65.1234')


class ReaderVMListTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: ['vm_list']})
    def test_a_reader_sees_the_locked_vms_without_unlock(self):
        self.mock_vm_list.return_value = [data.copied(data.VM)]
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'id="vms__row__vm-1"')
        self.assertNotContains(res, '__action_unlock')
