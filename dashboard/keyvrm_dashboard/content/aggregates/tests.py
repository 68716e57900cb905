"""View, form and table tests of the Aggregates panel (index, edit form, aggregate page; the event page's are in
test_event.py)."""

import re

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_aggregates:index')
EDIT_URL = reverse('horizon:admin:keyvrm_aggregates:edit', args=['agg-a'])
DETAIL_URL = reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-a'])
INDEX_CALLS = ['aggregate_list', 'hypervisor_list', 'cycle_list', 'cycle_get', 'availability_zone_list']
DETAIL_CALLS = ['aggregate_get', 'aggregate_load', 'event_list', 'hypervisor_list']


def edit_post(**changes):
    """The POST of the edit form: agg-a's current values with ``changes``."""
    form = {'name': 'agg-a', 'marker': 'LB', 'no_op_reason': '', 'storage_mode': 'shared', 'ha_failover_reserve': 1,
            'lb_level': 3, 'lb_period': 600, 'lb_persistence': 1, 'lb_min_gain': 2.0, 'failback': 'recommend',
            'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0, 'lb_weight_cpu': 1.0, 'lb_weight_ram': 1.0,
            'lb_weight_net': 0.5, 'lb_weight_hugepages': 0.0, 'lb_ceiling_cpu': 85.0, 'lb_ceiling_ram': 95.0,
            'lb_ceiling_net': '', 'lb_ceiling_hugepages': ''}
    form.update(changes)
    return {k: v for k, v in form.items() if v is not False}


class IndexAnswers(object):
    def answer_index(self):
        self.mock_aggregate_list.return_value = [data.copied(data.AGGREGATE), data.copied(data.NOOP_AGGREGATE)]
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        self.mock_cycle_list.return_value = [{'id': 7, 'status': 'completed'}]
        self.mock_cycle_get.return_value = data.copied(data.CYCLE)
        self.mock_availability_zone_list.return_value = [{'name': 'az1', 'aggregate_count': 2}]


class AdminAggregatesTests(IndexAnswers, kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_an_aggregate_without_an_outcome_never_shows_another_aggregates_why_or_a_running_cycle(self):
        self.answer_index()
        unmarked = dict(data.copied(data.NOOP_AGGREGATE), name='agg-c', marker='', no_op_mode=False)
        self.mock_aggregate_list.return_value = [data.copied(data.AGGREGATE), unmarked]
        running = dict(data.copied(data.CYCLE), id=8, status='running', outcomes=[])
        self.mock_cycle_list.return_value = [{'id': 8, 'status': 'running'},
                                             {'id': 7, 'status': 'completed', 'reason_code': 'aggregates_not_processed',
                                              'reason': 'agg-b: [noop] aggregate agg-b is in NOOP mode'}]
        self.mock_cycle_get.side_effect = lambda request, cycle_id: {8: running, 7: data.copied(data.CYCLE)}[cycle_id]
        res = self.client.get(INDEX_URL)
        rows = {row['name']: row for row in res.context['table'].data}
        self.assertEqual('aggregate agg-c has no HA/LB marker: KeyVRM only watches it', rows['agg-c']['last_outcome'])
        self.assertNotIn('agg-b', rows['agg-c']['last_outcome'])
        self.mock_cycle_get.assert_called_once_with(helpers.IsHttpRequest(), 7)

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_index_lists_aggregates_with_hosts_noop_and_outcome(self):
        self.answer_index()
        res = self.client.get(INDEX_URL)
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/index.html')
        rows = {row['name']: row for row in res.context['table'].data}
        self.assertContains(res, '<a href="/admin/keyvrm_hypervisors/?aggregate=agg-a" >2 hosts</a>', html=False)
        self.mock_hypervisor_list.assert_not_called()  # a count and a link, not every host of the region
        self.assertEqual('HA: aggregate in NOOP: maintenance CHG-42', rows['agg-b']['last_outcome'])
        self.assertEqual('cmp-1 syn_score 91.2% > 80%', rows['agg-a']['last_outcome'])
        self.assertContains(res, 'maintenance CHG-42')
        table = res.context['table']
        self.assertEqual('0/1 (below reserve)', str(table.columns['failover'].get_data(rows['agg-b'])))
        self.assertEqual('', table.columns['failover'].get_data(rows['agg-a']))  # LB only: not analysed
        self.assertEqual('3', table.columns['lb_level'].get_data(rows['agg-a']))
        self.assertEqual('4*', table.columns['lb_level'].get_data(rows['agg-b']))  # a threshold overridden
        self.assertContains(res, 'id="keyvrm-az-az1"')
        self.assertContains(res, EDIT_URL)
        self.mock_aggregate_list.assert_called_once_with(helpers.IsHttpRequest(), availability_zone=None,
                                                         limit=21, marker=None, sort_dir=None)

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_index_shows_the_chosen_zone_only(self):
        self.answer_index()
        self.client.get(INDEX_URL + '?availability_zone=az1')
        self.mock_aggregate_list.assert_called_once_with(helpers.IsHttpRequest(), availability_zone='az1',
                                                         limit=21, marker=None, sort_dir=None)

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_api_error_is_a_message_not_a_500(self):
        self.answer_index()
        self.mock_aggregate_list.side_effect = keyvrm.ClientError(503, 'service_unavailable',
                                                                  'database unavailable')
        res = self.client.get(INDEX_URL)
        self.assertEqual(200, res.status_code)
        self.assertEqual([], res.context['table'].data)
        self.assertMessageCount(res, error=1)
        self.assertContains(res, 'database unavailable')

    @helpers.create_mocks({keyvrm: ['aggregate_get']})
    def test_edit_opens_as_horizons_ajax_modal_and_as_a_full_page(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.assertModalAndPage(EDIT_URL, 'admin/keyvrm_aggregates/_edit.html', 'modal-header')

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_sends_only_changed_fields_and_noop_reason(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(no_op_mode='on', no_op_reason='maintenance CHG-43',
                                                   lb_weight_net=0.25))
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_aggregate_update.assert_called_once_with(
            helpers.IsHttpRequest(), 'agg-a', no_op_mode=True, no_op_reason='maintenance CHG-43',
            lb_weights={'cpu': 1.0, 'ram': 1.0, 'net': 0.25, 'hugepages': 0.0})

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_changes_the_failover_reserve_alone(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(ha_failover_reserve=2))
        self.assertNoFormErrors(res)
        self.mock_aggregate_update.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', ha_failover_reserve=2)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_choosing_a_level_sends_the_level_alone_so_the_api_writes_its_thresholds(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(lb_level=5))
        self.assertNoFormErrors(res)
        self.mock_aggregate_update.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', lb_level=5)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_a_level_with_a_threshold_changed_in_the_same_form_sends_both(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(lb_level=4, lb_target_max_load=65))
        self.assertNoFormErrors(res)
        self.mock_aggregate_update.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', lb_level=4,
                                                           lb_target_max_load=65.0)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_sends_the_overload_persistence_and_least_gain_changed(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(lb_persistence=3, lb_min_gain=5))
        self.assertNoFormErrors(res)
        self.mock_aggregate_update.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', lb_persistence=3,
                                                           lb_min_gain=5.0)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_sends_the_failback_mode_changed(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(failback='auto'))
        self.assertNoFormErrors(res)
        self.mock_aggregate_update.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', failback='auto')

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_refuses_a_persistence_below_one_run_without_calling_the_api(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(lb_persistence=0))
        self.assertIn('lb_persistence', res.context['form'].errors)
        self.mock_aggregate_update.assert_not_called()

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_refuses_a_level_outside_1_to_5_without_calling_the_api(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(lb_level=6))
        self.assertIn('lb_level', res.context['form'].errors)
        self.mock_aggregate_update.assert_not_called()

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_shows_api_400_on_the_field_it_names(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field', 'must be below lb_overload_threshold (80)', field='lb_target_max_load')
        res = self.client.post(EDIT_URL, edit_post(lb_target_max_load=90))
        self.assertEqual(200, res.status_code)
        self.assertEqual(['Target max load (syn_score %): must be below lb_overload_threshold (80)'],
                         res.context['form'].errors['lb_target_max_load'])

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_puts_api_error_on_weight_field_by_path(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field', 'weights must not all be 0', field='lb_weights.cpu')
        res = self.client.post(EDIT_URL, edit_post(lb_weight_cpu=0))
        self.assertEqual(['Weight of cpu: weights must not all be 0'], res.context['form'].errors['lb_weight_cpu'])

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_refuses_noop_on_without_reason(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        res = self.client.post(EDIT_URL, edit_post(no_op_mode='on', no_op_reason='  '))
        self.assertIn('no_op_reason', res.context['form'].errors)
        self.mock_aggregate_update.assert_not_called()

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_detail_shows_current_event_hosts_and_why_nothing_happened(self):
        self.mock_aggregate_get.return_value = data.copied(data.NOOP_AGGREGATE)
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = [data.copied(data.EVENT)]
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-b']))
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/detail.html')
        self.assertContains(res, 'aggregate in NOOP: maintenance CHG-42')
        self.assertContains(res, 'No event running.')
        self.assertContains(res, 'evacuated after fencing by BMC')
        self.assertEqual(['ev-1'], [e['id'] for e in res.context['events_table'].data])
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), aggregate='agg-b', limit=21,
                                                          marker=None, sort_dir=None)
        self.assertContains(res, 'No snapshot yet')
        self.assertNotContains(res, 'id="keyvrm-load-chart"')
        self.assertContains(res, '4 — overridden since: lb_overload_threshold')

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_detail_shows_the_aggregates_own_latest_outcome_from_the_api_and_reads_no_cycle(self):
        latest = {'cycle_id': 9, 'cycle_status': 'completed', 'finished_at': '2026-12-04T00:20:02Z',
                  'outcomes': [{'aggregate_name': 'agg-b', 'kind': 'NOOP', 'reason_code': 'noop',
                                'reasons': [data.reason('noop', 'aggregate agg-b is in NOOP mode: maintenance CHG-42')],
                                'more_reasons': {}, 'ran_at': '2026-12-04T00:20:01Z', 'next_run_at': None}],
                  'events': []}
        self.mock_aggregate_get.return_value = dict(data.copied(data.NOOP_AGGREGATE), latest_outcome=latest)
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-b']))
        self.assertContains(res, 'Cycle 9 (completed, finished <span class="keyvrm-time"'
                                 ' title="2026-12-04 00:20:02 UTC"', html=False)
        self.assertContains(res, '<strong class="keyvrm-reason-heading">Aggregate in NOOP</strong> <code>noop</code>:'
                                 ' aggregate agg-b is in NOOP mode: maintenance CHG-42', html=False)
        # the guide's fix (aggregate set --no-noop) is the aggregate's Edit configuration, next to the line
        self.assertContains(res, 'href="%s"' % reverse('horizon:admin:keyvrm_aggregates:edit', args=['agg-b']))

    def detail_with_load(self, load):
        """agg-b's page (no events, no cycle) with ``load`` as the API's per-host load."""
        self.mock_aggregate_get.return_value = data.copied(data.NOOP_AGGREGATE)
        self.mock_aggregate_load.return_value = data.copied(load)
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        return self.client.get(reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-b']))

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_detail_draws_the_load_chart_and_table_from_the_api_answer(self):
        res = self.detail_with_load(data.AGGREGATE_LOAD)
        self.assertContains(res, '<svg id="keyvrm-load-chart"', count=1)
        self.assertContains(res, 'class="keyvrm-overload-mark"', count=1)
        self.assertContains(res, 'threshold 80%')
        self.assertContains(res, '<td>cpu 100% &gt;= ceiling 85%</td>', html=False)
        self.assertNotContains(res, 'No snapshot yet')
        self.mock_aggregate_load.assert_called_once_with(helpers.IsHttpRequest(), 'agg-b')
        self.assertContains(res, '<text class="keyvrm-legend-label" ', count=9)
        for legend in ('CPU', 'RAM', 'net', 'syn_score', 'threshold 80%', 'target max 70%', 'CPU ceiling 85%',
                       'RAM ceiling 95%', 'overloaded host'):
            self.assertContains(res, '>%s</text></g>' % legend, html=False)
        self.assertNotContains(res, 'keyvrm-bar-hugepages')
        self.assertNotContains(res, 'hugepages ceiling')
        self.assertNotContains(res, 'hugepages %')

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_detail_draws_hugepages_when_the_api_reports_them_and_keeps_close_labels_apart(self):
        res = self.detail_with_load(data.HUGEPAGES_LOAD)
        self.assertContains(res, 'class="keyvrm-bar keyvrm-bar-hugepages"', count=1)
        self.assertContains(res, 'cmp-1: hugepages 88.5 %')
        self.assertContains(res, '>hugepages ceiling 79%</text></g>', html=False)
        self.assertContains(res, '<th>hugepages %</th>', html=False)
        self.assertContains(res, '<td title="88.5 %">88.5</td>', html=False)
        self.assertContains(res, '<td>no pools</td>', html=False)  # cmp-2 reports no hugepages
        ys = sorted(float(y) for y in re.findall(r'class="keyvrm-limit-label" x="[^"]+" y="([^"]+)"',
                                                 res.content.decode()))
        self.assertEqual(5, len(ys))  # threshold, target max and the cpu, ram and hugepages ceilings
        self.assertTrue(all(b - a >= 10 for a, b in zip(ys, ys[1:])), ys)

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_event_row_refreshes_through_ajax_row_update(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='completed', state='healthy')
        res = self.client.get(DETAIL_URL + '?action=row_update&table=events&obj_id=ev-1',
                              HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertContains(res, 'healthy')
        self.mock_event_get.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1')


class ReaderAggregatesTests(IndexAnswers, kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_reader_sees_aggregates_without_edit_button(self):
        self.answer_index()
        res = self.client.get(INDEX_URL)
        self.assertEqual(2, len(res.context['table'].data))
        self.assertNotContains(res, EDIT_URL)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_reader_cannot_post_the_edit_form(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.assertNotAuthorized(self.client.get(EDIT_URL))
        self.assertNotAuthorized(self.client.post(EDIT_URL, edit_post(no_op_mode='on', no_op_reason='x')))
        self.mock_aggregate_update.assert_not_called()


class RegionTests(kv_helpers.ReaderTestCase):

    def test_client_uses_the_selected_regions_endpoint(self):
        for region, url in kv_helpers.REGIONS.items():
            self.request.user.services_region = region
            client = keyvrm.keyvrmclient(self.request)
            self.assertEqual(region, client.adapter.region_name)
            self.assertEqual(url, client.adapter.endpoint_override)

    def test_client_asks_for_the_microversion_the_panels_are_written_for(self):
        client = keyvrm.keyvrmclient(self.request)
        self.assertEqual('1.12', client.api_version)  # pinned: no negotiation request
