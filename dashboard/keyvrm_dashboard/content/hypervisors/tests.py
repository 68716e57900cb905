"""View, form and table tests of the Hypervisors panel: states with since/why, Drain and Return to service."""

from unittest import mock

from django.urls import reverse
from keyvrmclient import v1
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_hypervisors:index')
DETAIL_URL = reverse('horizon:admin:keyvrm_hypervisors:detail', args=['cmp-6'])
DRAIN_URL = reverse('horizon:admin:keyvrm_hypervisors:drain', args=['cmp-1'])


class AdminHypervisorsTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_index_shows_state_since_why_and_restore_only_where_restorable(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'evacuated after fencing by BMC')
        self.assertContains(res, 'down/disabled forced down (keyvrm: fenced)')
        self.assertContains(res, 'hypervisors__row_cmp-2__action_restore')
        self.assertNotContains(res, 'hypervisors__row_cmp-1__action_restore')

    @helpers.create_mocks({keyvrm: ['hypervisor_get']})
    def test_a_just_fenced_host_shows_keyvrms_fencing_record_beside_novas_older_view(self):
        self.mock_hypervisor_get.return_value = data.copied(data.JUST_FENCED_HYPERVISOR)
        res = self.client.get(DETAIL_URL)
        self.mock_hypervisor_get.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-6')
        self.assertContains(res, 'Fencing record (KeyVRM)')
        for method in ('bmc_power_off', 'nova_force_down'):
            self.assertContains(res, 'id="fencing__row__%s"' % method)
        self.assertContains(res, 'forced down and disabled')
        self.assertContains(res, 'data-keyvrm-time="2026-12-04T00:11:03+00:00"')  # every time one format
        self.assertContains(res, 'up/enabled')
        self.assertContains(res, 'id="keyvrm-hypervisor-service-lag"')  # Nova's view predates the fence
        self.assertContains(res, 'az1')

    @helpers.create_mocks({keyvrm: ['hypervisor_get']})
    def test_nova_seen_after_the_fence_needs_no_warning(self):
        seen_after = dict(data.copied(data.JUST_FENCED_HYPERVISOR), seen_at='2026-12-04T00:12:00Z')
        self.mock_hypervisor_get.return_value = seen_after
        res = self.client.get(DETAIL_URL)
        self.assertNotContains(res, 'id="keyvrm-hypervisor-service-lag"')

    @helpers.create_mocks({keyvrm: ['hypervisor_get']})
    def test_a_host_the_api_does_not_know_is_a_message_not_a_500(self):
        self.mock_hypervisor_get.side_effect = keyvrm.ClientError(404, 'not_found', 'hypervisor cmp-6 not found')
        res = self.client.get(DETAIL_URL)
        self.assertEqual(200, res.status_code)
        self.assertContains(res, 'hypervisor cmp-6 not found')

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_each_host_links_to_its_detail(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'href="%s"' % reverse('horizon:admin:keyvrm_hypervisors:detail', args=['cmp-2']))

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
    def test_restore_with_failback_asks_the_api_for_it(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.post(INDEX_URL, {'action': 'hypervisors__restore_failback__cmp-2'})
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_hypervisor_restore.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-2', True)

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_restore_refused_by_the_api_shows_its_reason(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        self.mock_hypervisor_restore.side_effect = keyvrm.ClientError(
            409, 'conflict', 'cmp-2 is still fenced: power it on first')
        res = self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-2'}, follow=True)
        self.assertContains(res, 'cmp-2 is still fenced: power it on first')

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_drain_offered_on_an_ok_host_only(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS + data.HELD_HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'hypervisors__row_cmp-1__action_drain')
        self.assertContains(res, DRAIN_URL)
        for host in ('cmp-2', 'cmp-3', 'cmp-4', 'cmp-5'):  # maintenance, fenced, draining, drain_incomplete
            self.assertNotContains(res, 'hypervisors__row_%s__action_drain' % host)

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_restore_offered_on_draining_and_drain_incomplete_hosts(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HELD_HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, '1 VM(s) remain on cmp-5 after its drain: vm-7')
        self.assertContains(res, 'up/disabled (KeyVRM drain: CHG-1042 new DIMMs)')
        for host in ('cmp-3', 'cmp-4', 'cmp-5'):
            self.assertContains(res, 'hypervisors__row_%s__action_restore' % host)
        self.assertContains(res, 'cancels the drain&#x27;s moves that have not started')

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_restore_of_a_drain_incomplete_host_calls_the_api(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HELD_HYPERVISORS)
        res = self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-5'})
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_hypervisor_restore.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-5')

    def test_drain_opens_as_horizons_ajax_modal_and_as_a_full_page(self):
        self.assertModalAndPage(DRAIN_URL, 'admin/keyvrm_hypervisors/_drain.html', 'id="drain_hypervisor_form"')
        res = self.client.get(DRAIN_URL)
        self.assertContains(res, 'live-migrated to the host LB would choose')
        self.assertContains(res, 'e.g. the maintenance ticket')
        self.assertContains(res, 'Allow cold migration')
        self.assertContains(res, 'name="allow_cold"')
        self.assertFalse(res.context['form']['allow_cold'].value())  # off by default
        self.assertContains(res, 'powered off for their move')

    @helpers.create_mocks({keyvrm: ['hypervisor_drain']})
    def test_drain_calls_the_api_with_host_and_reason(self):
        self.mock_hypervisor_drain.return_value = dict(data.copied(data.DRAINING_HYPERVISOR), host='cmp-1')
        res = self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': 'CHG-1042 new DIMMs'})
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.assertMessageCount(success=1)
        self.mock_hypervisor_drain.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-1', 'CHG-1042 new DIMMs',
                                                           allow_cold=False)

    @helpers.create_mocks({keyvrm: ['hypervisor_drain']})
    def test_drain_with_allow_cold_checked_asks_the_api_to_allow_cold_migration(self):
        self.mock_hypervisor_drain.return_value = dict(data.copied(data.DRAINING_HYPERVISOR), host='cmp-1')
        res = self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': 'CHG-30', 'allow_cold': 'on'})
        self.assertNoFormErrors(res)
        self.mock_hypervisor_drain.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-1', 'CHG-30',
                                                           allow_cold=True)

    @helpers.create_mocks({keyvrm: ['hypervisor_drain']})
    def test_drain_refuses_an_empty_reason_without_calling_the_api(self):
        for reason in ('', '   '):
            res = self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': reason})
            self.assertEqual(200, res.status_code)
            self.assertIn('reason', res.context['form'].errors)
        self.mock_hypervisor_drain.assert_not_called()

    @helpers.create_mocks({keyvrm: ['hypervisor_drain']})
    def test_drain_refused_by_the_api_shows_its_detail_on_the_form(self):
        self.mock_hypervisor_drain.side_effect = keyvrm.ClientError(
            409, 'hypervisor_not_drainable', 'hypervisor cmp-1 is fenced: only an ok host can be drained')
        res = self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': 'CHG-1042'})
        self.assertEqual(200, res.status_code)
        self.assertEqual(['hypervisor cmp-1 is fenced: only an ok host can be drained'],
                         res.context['form'].non_field_errors())
        self.assertContains(res, 'only an ok host can be drained')

    @helpers.create_mocks({keyvrm: ['hypervisor_drain']})
    def test_drain_puts_an_api_400_on_the_reason_field_it_names(self):
        self.mock_hypervisor_drain.side_effect = keyvrm.ClientError(
            400, 'invalid_field', 'a drain needs a reason (e.g. the maintenance ticket)', field='reason')
        res = self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': 'x'})
        self.assertEqual(['Reason: a drain needs a reason (e.g. the maintenance ticket)'],
                         res.context['form'].errors['reason'])


class ReaderHypervisorsTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_restore']})
    def test_reader_sees_states_but_no_restore(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'cmp-2')
        self.assertNotContains(res, '__action_restore')
        self.client.post(INDEX_URL, {'action': 'hypervisors__restore__cmp-2'})
        self.mock_hypervisor_restore.assert_not_called()

    @helpers.create_mocks({keyvrm: ['hypervisor_list', 'hypervisor_drain']})
    def test_reader_gets_no_drain(self):
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'cmp-1')
        self.assertNotContains(res, '__action_drain')
        self.assertNotAuthorized(self.client.get(DRAIN_URL))
        self.assertNotAuthorized(self.client.post(DRAIN_URL, {'host': 'cmp-1', 'reason': 'CHG-1042'}))
        self.mock_hypervisor_drain.assert_not_called()


class DrainWrapperTests(kv_helpers.AdminTestCase):

    @mock.patch.object(v1.Client, '_request', return_value={'hypervisor': data.DRAINING_HYPERVISOR})
    def test_hypervisor_drain_posts_the_reason_at_the_pinned_microversion(self, request):
        # the client refuses a drain below 1.8 by itself: the panels' pinned version must allow it
        self.assertEqual(data.DRAINING_HYPERVISOR, keyvrm.hypervisor_drain(self.request, 'cmp-4', 'CHG-1042'))
        request.assert_called_once_with('POST', '/hypervisors/cmp-4/drain', json={'reason': 'CHG-1042'})
