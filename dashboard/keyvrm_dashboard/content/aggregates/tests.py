"""View, form and table tests of the Aggregates panel (index, edit form, aggregate and event pages)."""

import re

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_aggregates:index')
EDIT_URL = reverse('horizon:admin:keyvrm_aggregates:edit', args=['agg-a'])
DETAIL_URL = reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-a'])
EVENT_URL = reverse('horizon:admin:keyvrm_aggregates:event', args=['ev-1'])
INDEX_CALLS = ['aggregate_list', 'hypervisor_list', 'cycle_list', 'cycle_get', 'availability_zone_list']
DETAIL_CALLS = ['aggregate_get', 'aggregate_load', 'event_list', 'hypervisor_list']
SUMMARY_URL = reverse('horizon:admin:keyvrm_aggregates:event_summary', args=['ev-1']) + '?shown=2'
JOURNAL_URL = reverse('horizon:admin:keyvrm_aggregates:event_journal', args=['ev-1', 'rec-manual'])
EVENT_CALLS = ['event_get', 'recommendation_list', 'operation_list', 'recommendation_run',
               'recommendation_cancel', 'recommendation_get']


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
        self.assertEqual(['must be below lb_overload_threshold (80)'],
                         res.context['form'].errors['lb_target_max_load'])

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_edit_puts_api_error_on_weight_field_by_path(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field', 'weights must not all be 0', field='lb_weights.cpu')
        res = self.client.post(EDIT_URL, edit_post(lb_weight_cpu=0))
        self.assertEqual(['weights must not all be 0'], res.context['form'].errors['lb_weight_cpu'])

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
                  'outcomes': [dict(data.copied(data.CYCLE['outcomes'][0]), aggregate_name='agg-b', kind='NOOP')],
                  'events': []}
        self.mock_aggregate_get.return_value = dict(data.copied(data.NOOP_AGGREGATE), latest_outcome=latest)
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-b']))
        self.assertContains(res, 'Cycle 9 (completed, finished <span class="keyvrm-time"'
                                 ' title="2026-12-04 00:20:02 UTC"', html=False)
        self.assertContains(res, '<strong>NOOP</strong> noop: aggregate in NOOP: maintenance CHG-42', html=False)

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

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_event_offers_run_and_cancel_only_on_the_manual_recommendation(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_list.return_value = data.copied(data.RECOMMENDATIONS)
        self.mock_operation_list.side_effect = lambda request, rid: data.copied(
            [op for op in data.OPERATIONS if op['recommendation_id'] == rid])
        res = self.client.get(EVENT_URL)
        self.assertContains(res, 'recommendations__row_rec-manual__action_run')
        self.assertContains(res, 'recommendations__row_rec-manual__action_cancel')
        self.assertNotContains(res, 'recommendations__row_rec-done__action_run')
        self.assertNotContains(res, 'recommendations__row_rec-done__action_cancel')
        self.assertContains(res, 'syn_score 81.5% -&gt; 66.0%, cpu 91.2% -&gt; 70.0%')
        self.assertContains(res, 'id="operations-rec-done"')
        self.assertContains(res, 'VM on cmp-4')
        self.assertContains(res, 'cmp-1 syn_score 91.2% &gt; 80%')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_run_calls_the_api_for_the_recommendation(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_list.return_value = data.copied(data.RECOMMENDATIONS)
        self.mock_recommendation_get.return_value = data.copied(data.RECOMMENDATIONS[0])
        self.mock_operation_list.return_value = []
        res = self.client.post(EVENT_URL, {'action': 'recommendations__run__rec-manual'})
        self.assertRedirectsNoFollow(res, EVENT_URL)
        self.mock_recommendation_run.assert_called_once_with(helpers.IsHttpRequest(), 'rec-manual')
        self.mock_recommendation_cancel.assert_not_called()

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_cancel_calls_the_api_for_the_recommendation(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_list.return_value = data.copied(data.RECOMMENDATIONS)
        self.mock_recommendation_get.return_value = data.copied(data.RECOMMENDATIONS[0])
        self.mock_operation_list.return_value = []
        res = self.client.post(EVENT_URL, {'action': 'recommendations__cancel__rec-manual'})
        self.assertRedirectsNoFollow(res, EVENT_URL)
        self.mock_recommendation_cancel.assert_called_once_with(helpers.IsHttpRequest(), 'rec-manual')


def live_part(res, part_id):
    """The opening tag of the live part ``part_id`` in a page or fragment (its URL and whether it is final)."""
    html = res.content.decode()
    start = html.index('id="%s"' % part_id)
    return html[html.rindex('<', 0, start):html.index('>', start) + 1]


class EventLiveRefreshTests(kv_helpers.AdminTestCase):
    """The event page's summary and journals are fragments its script fetches again until they are final."""

    def answer_event(self, event=data.EVENT):
        self.mock_event_get.return_value = data.copied(event)
        self.mock_recommendation_list.return_value = data.copied(data.RECOMMENDATIONS)
        self.mock_operation_list.side_effect = lambda request, rid: data.copied(
            [op for op in data.OPERATIONS if op['recommendation_id'] == rid])
        return self.client.get(reverse('horizon:admin:keyvrm_aggregates:event', args=[event['id']]))

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_event_page_polls_the_running_summary_and_journals_only(self):
        res = self.answer_event()
        summary = live_part(res, 'keyvrm-event')
        self.assertIn('data-keyvrm-live-url="%s"' % SUMMARY_URL, summary)
        self.assertIn('data-keyvrm-final="false"', summary)
        self.assertIn('data-keyvrm-live-url="%s"' % JOURNAL_URL, live_part(res, 'journal-rec-manual'))
        self.assertIn('data-keyvrm-final="false"', live_part(res, 'journal-rec-manual'))
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'journal-rec-done'))
        self.assertContains(res, 'horizon.keyvrm_live = {', count=1)
        self.assertContains(res, 'interval_ms: 2500,')
        self.assertContains(res, 'id="recommendations__row__rec-manual"')
        self.assertContains(res, '<dd id="keyvrm-event-recommendations">2 manual_action</dd>', html=False)
        self.assertNotContains(res, 'id="keyvrm-event-new-recommendations"')

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_summary_fragment_shows_the_new_status_and_is_final_when_everything_ended(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='completed', state='healthy',
                                                reason='done', recommendations={'succeeded': 1, 'cancelled': 1})
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/_event_summary.html')
        self.assertTemplateNotUsed(res, 'base.html')
        self.assertContains(res, '<dd id="keyvrm-event-status">completed</dd>', html=False)
        self.assertContains(res, '<dd id="keyvrm-event-state">healthy</dd>', html=False)
        self.assertIn('>done</pre>', res.content.decode())
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'keyvrm-event'))
        self.mock_event_get.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1')

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_summary_fragment_offers_a_reload_when_a_later_round_added_recommendations(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='executing',
                                                recommendations={'failed': 1, 'succeeded': 1, 'created': 1})
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertContains(res, '1 new recommendation since this page was loaded: <a href="%s">reload</a>'
                            % EVENT_URL, html=False)
        self.assertIn('data-keyvrm-live-url="%s"' % SUMMARY_URL, live_part(res, 'keyvrm-event'))

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_a_completed_event_with_a_running_recommendation_is_still_polled(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='completed',
                                                recommendations={'succeeded': 1, 'running': 1})
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertIn('data-keyvrm-final="false"', live_part(res, 'keyvrm-event'))

    @helpers.create_mocks({keyvrm: ['recommendation_get', 'operation_list']})
    def test_journal_fragment_adds_new_operations_until_the_recommendation_ends(self):
        running = dict(data.copied(data.RECOMMENDATIONS[0]), status='running', attempts=1)
        self.mock_recommendation_get.return_value = running
        self.mock_operation_list.return_value = [dict(data.copied(data.OPERATIONS[0]), recommendation_id='rec-manual',
                                                      message='live migration to cmp-3 started')]
        res = self.client.get(JOURNAL_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/_event_journal.html')
        self.assertContains(res, 'id="operations-rec-manual"')
        self.assertContains(res, 'live migration to cmp-3 started')
        self.assertIn('data-keyvrm-final="false"', live_part(res, 'journal-rec-manual'))
        self.mock_recommendation_get.return_value = dict(running, status='failed')
        res = self.client.get(JOURNAL_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'journal-rec-manual'))
        self.mock_operation_list.assert_called_with(helpers.IsHttpRequest(), 'rec-manual')

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_a_fragment_answers_the_apis_error_status_so_the_script_stops_polling_it(self):
        self.mock_event_get.side_effect = keyvrm.ClientError(404, 'not_found', 'event ev-1 not found')
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertEqual(404, res.status_code)

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_ha_no_target_entry_names_the_vm_and_the_filter_that_rejected_each_host(self):
        res = self.answer_event(data.HA_EVENT)
        self.assertContains(res, 'No target found', count=1)
        self.assertContains(res, '<a href="%s">vm-9</a> on cmp-2'
                            % reverse('horizon:admin:keyvrm_vms:detail', args=['vm-9']), html=False)
        self.assertContains(res, '<code>no_target</code> no host passes the filters for vm-9', html=False)
        self.assertContains(res, '<tr><td>cmp-3</td><td>ServerGroupAntiAffinityFilter</td></tr>', html=False)
        self.assertContains(res, '<tr><td>cmp-4</td><td>RamFilter</td></tr>', html=False)
        self.assertNotContains(res, '<th>VMs</th>', html=False)
        self.assertNotContains(res, 'keyvrm-more-hosts')
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'keyvrm-event'))

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_lb_no_target_entry_names_the_source_host_vms_per_rejected_host_and_the_rest(self):
        res = self.answer_event(data.LB_EVENT)
        self.assertContains(res, 'Overloaded host cmp-1:')
        self.assertContains(res, '<code>ram_depleted</code>', html=False)
        self.assertContains(res, '<th>Host</th><th>Rejected by</th><th>VMs</th>', html=False)
        self.assertContains(res, '<tr><td>cmp-5</td><td>lb_target_max_load</td><td>4</td></tr>', html=False)
        self.assertContains(res, '>and 3 more</p>', html=False)

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_no_target_section_is_absent_when_empty_or_from_an_older_api(self):
        for event in (dict(data.HA_EVENT, no_target=[]), data.EVENT):  # data.EVENT has no no_target field
            res = self.answer_event(event)
            self.assertNotContains(res, 'No target found')
            self.assertNotContains(res, 'id="keyvrm-no-target"')


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
        res = self.client.post(EDIT_URL, edit_post(no_op_mode='on', no_op_reason='x'))
        self.assertNotEqual(200, res.status_code)
        self.mock_aggregate_update.assert_not_called()

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_reader_gets_no_run_or_cancel(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_list.return_value = data.copied(data.RECOMMENDATIONS)
        self.mock_operation_list.return_value = []
        res = self.client.get(EVENT_URL)
        self.assertContains(res, 'rec-manual')
        self.assertNotContains(res, '__action_run')
        self.assertNotContains(res, '__action_cancel')


class RegionTests(kv_helpers.ReaderTestCase):

    def test_client_uses_the_selected_regions_endpoint(self):
        for region, url in kv_helpers.REGIONS.items():
            self.request.user.services_region = region
            client = keyvrm.keyvrmclient(self.request)
            self.assertEqual(region, client.adapter.region_name)
            self.assertEqual(url, client.adapter.endpoint_override)

    def test_client_asks_for_the_microversion_the_panels_are_written_for(self):
        client = keyvrm.keyvrmclient(self.request)
        self.assertEqual('1.10', client.api_version)  # pinned: no negotiation request
