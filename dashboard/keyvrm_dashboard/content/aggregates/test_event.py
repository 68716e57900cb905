"""View tests of the event page: its tabs, the API calls it makes at scale, Run and Cancel, the live refresh."""

import html
import re

from django.test.utils import override_settings
from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

EVENT_URL = reverse('horizon:admin:keyvrm_aggregates:event', args=['ev-1'])
SUMMARY_URL = reverse('horizon:admin:keyvrm_aggregates:event_summary', args=['ev-1']) + '?known=2'
ROWS_URL = reverse('horizon:admin:keyvrm_aggregates:event_recommendations', args=['ev-1'])
JOURNAL_URL = reverse('horizon:admin:keyvrm_aggregates:event_journal', args=['ev-1', 'rec-manual'])
RECOMMENDATION_URL = reverse('horizon:admin:keyvrm_aggregates:recommendation', args=['ev-1', 'rec-manual'])
# Every call of the panels' API module the event page and its parts could make.
EVENT_CALLS = ['event_get', 'recommendation_page', 'recommendation_get', 'operation_list', 'recommendation_run',
               'recommendation_cancel']


def live_part(res, part_id):
    """The opening tag of the live part ``part_id`` in a page or fragment (its URL and whether it is final)."""
    text = res.content.decode()
    start = text.index('id="%s"' % part_id)
    return text[text.rindex('<', 0, start):text.index('>', start) + 1]


def row_of(res, recommendation_id):
    """The ``<tr ...>`` opening tag of a recommendation's row."""
    return live_part(res, 'recommendations__row__%s' % recommendation_id)


def confirmation_name(res, recommendation_id):
    """The name Horizon's confirmation dialog shows for a row: its ``data-display`` as the browser reads it.

    Horizon escapes the display name before the attribute is escaped, and its dialog puts
    the text it reads from the attribute into the modal as HTML: so it is unescaped twice.
    """
    value = re.search(r'data-display="([^"]*)"', row_of(res, recommendation_id)).group(1)
    return html.unescape(html.unescape(value))


def api_page(recommendations):
    """Stands in for ``keyvrm.recommendation_page`` over ``recommendations``: a page after the marker, and more."""
    def page(request, event_id, limit, marker=None):
        ids = [r['id'] for r in recommendations]
        start = ids.index(marker) + 1 if marker else 0
        return data.copied(recommendations[start:start + limit]), start + limit < len(recommendations)
    return page


class EventPageTests(kv_helpers.AdminTestCase):

    def answer(self, event=data.EVENT, recommendations=data.RECOMMENDATIONS):
        self.mock_event_get.return_value = data.copied(event)
        self.mock_recommendation_page.side_effect = api_page(recommendations)

    def api_calls(self):
        """{function: number of calls} of the panels' API module, the ones not called left out."""
        counts = {name: getattr(self, 'mock_%s' % name).call_count for name in EVENT_CALLS}
        return {name: count for name, count in counts.items() if count}

    @override_settings(API_RESULT_PAGE_SIZE=100)
    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_the_event_page_calls_the_api_as_often_for_58_recommendations_as_for_2(self):
        calls = {}
        for count in (2, 58):
            self.answer(dict(data.EVENT, recommendations={'manual_action': count}), data.many_recommendations(count))
            for name in EVENT_CALLS:
                getattr(self, 'mock_%s' % name).reset_mock()
            res = self.client.get(EVENT_URL)
            self.assertEqual(count, len(re.findall(r'<tr [^>]*id="recommendations__row__', res.content.decode())))
            calls[count] = self.api_calls()
        self.assertEqual({'event_get': 1, 'recommendation_page': 1}, calls[2])
        self.assertEqual(calls[2], calls[58])
        self.mock_recommendation_page.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1', 100, marker=None)

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_recommendations_come_a_page_at_a_time_of_horizons_page_size(self):
        recommendations = data.many_recommendations(58)
        self.answer(dict(data.EVENT, recommendations={'manual_action': 58}), recommendations)
        res = self.client.get(EVENT_URL)
        rows = re.findall(r'<tr [^>]*id="recommendations__row__(rec-\d+)"', res.content.decode())
        self.assertEqual(['rec-%02d' % i for i in range(20)], rows)
        self.assertContains(res, '?marker=rec-19')
        self.mock_recommendation_page.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1', 20, marker=None)
        res = self.client.get(EVENT_URL + '?marker=rec-39')
        rows = re.findall(r'<tr [^>]*id="recommendations__row__(rec-\d+)"', res.content.decode())
        self.assertEqual(['rec-%02d' % i for i in range(40, 58)], rows)
        self.assertNotContains(res, '?marker=rec-57')
        self.assertEqual('recommendations', res.context['tab_group'].active.slug)  # a later page opens its tab
        self.assertIn('data-keyvrm-live-url="%s?marker=rec-39"' % ROWS_URL, live_part(res, 'keyvrm-recommendations'))

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_tabs_are_overview_recommendations_and_no_target_when_there_is_one(self):
        self.answer(data.HA_EVENT)
        res = self.client.get(reverse('horizon:admin:keyvrm_aggregates:event', args=['ev-2']))
        self.assertEqual(['overview', 'recommendations', 'no_target'],
                         [tab.slug for tab in res.context['tab_group'].get_tabs()])
        self.answer()
        res = self.client.get(EVENT_URL)
        self.assertEqual(['overview', 'recommendations'], [tab.slug for tab in res.context['tab_group'].get_tabs()])
        self.assertNotContains(res, 'id="keyvrm-no-target"')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_each_row_shows_its_latest_step_linking_to_its_journal_which_opens_on_demand(self):
        self.answer(recommendations=data.many_recommendations(3))
        res = self.client.get(EVENT_URL)
        journal = reverse('horizon:admin:keyvrm_aggregates:recommendation', args=['ev-1', 'rec-01'])
        self.assertContains(res, '<a href="%s" >execution #2: live_migrate accepted as migration 9</a>' % journal,
                            html=False)
        self.assertContains(res, 'not started')
        self.assertContains(res, 'syn_score 81.5% -&gt; 66.0%, cpu 91.2% -&gt; 70.0%')
        self.assertNotContains(res, 'id="operations-')  # no journal is read nor drawn on the event page
        self.mock_operation_list.assert_not_called()

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_a_recommendations_journal_page_shows_its_whole_journal_and_polls_it_until_it_ends(self):
        self.mock_recommendation_get.return_value = dict(data.copied(data.RECOMMENDATIONS[0]), status='running')
        self.mock_operation_list.return_value = [dict(data.copied(data.OPERATIONS[0]), recommendation_id='rec-manual',
                                                      message='live migration to cmp-3 started')]
        res = self.client.get(RECOMMENDATION_URL)
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/recommendation.html')
        self.assertContains(res, 'Journal of VM vm-1: cmp-1 -&gt; cmp-3')
        self.assertContains(res, 'live migration to cmp-3 started')
        self.assertContains(res, 'href="%s"' % EVENT_URL)
        self.assertIn('data-keyvrm-live-url="%s"' % JOURNAL_URL, live_part(res, 'journal-rec-manual'))
        self.assertIn('data-keyvrm-final="false"', live_part(res, 'journal-rec-manual'))
        self.assertEqual({'recommendation_get': 1, 'operation_list': 1}, self.api_calls())

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_run_and_cancel_are_offered_on_the_table_and_only_on_manual_rows(self):
        self.answer()
        res = self.client.get(EVENT_URL)
        self.assertContains(res, 'recommendations__row_rec-manual__action_run')
        self.assertContains(res, 'recommendations__row_rec-manual__action_cancel')
        self.assertNotContains(res, 'recommendations__row_rec-done__action_run')
        self.assertNotContains(res, 'recommendations__row_rec-done__action_cancel')
        self.assertContains(res, 'id="recommendations__action_run"')
        self.assertContains(res, 'id="recommendations__action_cancel"')
        # only a manual recommendation can be selected for them
        self.assertIn('value="rec-manual" class="table-row-multi-select"', res.content.decode())
        self.assertNotIn('value="rec-done" class="table-row-multi-select"', res.content.decode())

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_the_confirmation_names_each_vm_with_its_source_and_target_and_says_what_happens(self):
        self.answer()
        res = self.client.get(EVENT_URL)
        self.assertEqual('VM vm-1: cmp-1 -> cmp-3', confirmation_name(res, 'rec-manual'))
        self.assertEqual('VM vm-2: cmp-1 -> cmp-4', confirmation_name(res, 'rec-done'))
        text = res.content.decode()
        run = live_part(res, 'recommendations__action_run')
        cancel = live_part(res, 'recommendations__action_cancel')
        for button in (run, cancel, live_part(res, 'recommendations__row_rec-manual__action_run'),
                       live_part(res, 'recommendations__row_rec-manual__action_cancel')):
            self.assertIn('keyvrm-confirm', button)
        self.assertIn('moves its VM from the source host to the target host', html.unescape(run))
        self.assertIn('Each VM stays where it is', html.unescape(cancel))
        self.assertIn('btn-danger', cancel)
        self.assertIn('data-keyvrm-count-text="Recommendations selected: %(count)s."',
                      live_part(res, 'keyvrm-recommendations'))
        self.assertIn("horizon.datatables.confirm(this);", text)  # Horizon's own dialog, also for Run

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_bulk_run_runs_each_selected_manual_recommendation_and_skips_the_others(self):
        recommendations = data.many_recommendations(7)  # rec-00, 03, 06 wait for the operator
        self.answer(recommendations=recommendations)
        res = self.client.post(EVENT_URL, {'action': 'recommendations__run',
                                           'object_ids': ['rec-00', 'rec-02', 'rec-03', 'rec-06']})
        self.assertRedirectsNoFollow(res, EVENT_URL)
        self.assertEqual([('rec-00',), ('rec-03',), ('rec-06',)],
                         [call.args[1:] for call in self.mock_recommendation_run.call_args_list])
        self.mock_recommendation_cancel.assert_not_called()
        self.assertEqual(1, self.mock_recommendation_page.call_count)

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_bulk_cancel_cancels_each_selected_manual_recommendation(self):
        self.answer(recommendations=data.many_recommendations(4))
        res = self.client.post(EVENT_URL, {'action': 'recommendations__cancel', 'object_ids': ['rec-00', 'rec-03']})
        self.assertRedirectsNoFollow(res, EVENT_URL)
        self.assertEqual([('rec-00',), ('rec-03',)],
                         [call.args[1:] for call in self.mock_recommendation_cancel.call_args_list])
        self.mock_recommendation_run.assert_not_called()

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_run_of_one_row_calls_the_api_for_it_on_the_page_it_is_on(self):
        recommendations = data.many_recommendations(30)
        self.answer(recommendations=recommendations)
        url = EVENT_URL + '?marker=rec-19'
        res = self.client.post(url, {'action': 'recommendations__run__rec-21'})
        self.assertRedirectsNoFollow(res, url)
        self.mock_recommendation_run.assert_called_once_with(helpers.IsHttpRequest(), 'rec-21')
        self.mock_recommendation_page.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1', 20, marker='rec-19')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_an_api_refusal_of_a_run_shows_its_detail(self):
        self.answer()
        self.mock_recommendation_run.side_effect = keyvrm.ClientError(
            409, 'not_manual', 'recommendation rec-manual is created; only a manual_action recommendation can be run')
        res = self.client.post(EVENT_URL, {'action': 'recommendations__run__rec-manual'}, follow=True)
        self.assertContains(res, 'only a manual_action recommendation can be run')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_manual_action_is_a_waiting_for_operator_badge_not_progress(self):
        self.answer(recommendations=data.many_recommendations(2))
        res = self.client.get(EVENT_URL)
        waiting = row_of(res, 'rec-00')
        self.assertIn('keyvrm-waiting-operator', waiting)
        self.assertNotIn('warning', waiting)
        self.assertNotIn('ajax-update', waiting)  # Horizon would draw a progress bar on a polled "warning" row
        self.assertContains(res, '<span class="label label-info keyvrm-waiting-operator">waiting for operator</span>',
                            count=1, html=False)
        self.assertContains(res, '<span class="fa fa-spinner fa-spin" aria-hidden="true"></span> running',
                            count=1, html=False)
        self.assertNotIn('ajax-update', row_of(res, 'rec-01'))
        self.assertContains(res, '<dd id="keyvrm-event-recommendations">2 waiting for operator</dd>', html=False)


class EventLiveRefreshTests(kv_helpers.AdminTestCase):
    """The summary, no-target entries and recommendation rows are fragments the page fetches until they are final."""

    def answer_event(self, event=data.EVENT, recommendations=data.RECOMMENDATIONS):
        self.mock_event_get.return_value = data.copied(event)
        self.mock_recommendation_page.side_effect = api_page(recommendations)
        return self.client.get(reverse('horizon:admin:keyvrm_aggregates:event', args=[event['id']]))

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_event_page_polls_the_running_summary_and_the_rows_of_its_page(self):
        res = self.answer_event()
        summary = live_part(res, 'keyvrm-event')
        self.assertIn('data-keyvrm-live-url="%s"' % SUMMARY_URL, summary)
        self.assertIn('data-keyvrm-final="false"', summary)
        rows = live_part(res, 'keyvrm-recommendations')
        self.assertIn('data-keyvrm-live-url="%s"' % ROWS_URL, rows)
        self.assertIn('data-keyvrm-live-merge="rows"', rows)
        self.assertIn('data-keyvrm-final="false"', rows)
        self.assertContains(res, 'horizon.keyvrm_live = {', count=1)
        self.assertContains(res, 'interval_ms: 2500,')
        self.assertContains(res, 'id="recommendations__row__rec-manual"')
        self.assertNotContains(res, 'id="keyvrm-event-new-recommendations"')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_the_rows_fragment_is_one_api_call_and_final_once_every_row_ended(self):
        self.mock_recommendation_page.side_effect = api_page(data.many_recommendations(25))
        res = self.client.get(ROWS_URL + '?marker=rec-19', HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateNotUsed(res, 'base.html')
        text = res.content.decode()
        self.assertEqual(['rec-%02d' % i for i in range(20, 25)],
                         re.findall(r'<tr [^>]*id="recommendations__row__(rec-\d+)"', text))
        self.assertEqual('VM vm-21: cmp-a-21 -> cmp-b-21', confirmation_name(res, 'rec-21'))
        self.assertIn('recommendations__row_rec-21__action_run', text)
        self.assertIn('data-keyvrm-live-url="%s?marker=rec-19"' % ROWS_URL, live_part(res, 'keyvrm-recommendations'))
        self.assertIn('data-keyvrm-final="false"', live_part(res, 'keyvrm-recommendations'))
        self.mock_recommendation_page.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1', 20, marker='rec-19')
        self.mock_recommendation_page.side_effect = api_page(
            [dict(r, status='succeeded') for r in data.many_recommendations(3)])
        res = self.client.get(ROWS_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'keyvrm-recommendations'))
        self.assertNotContains(res, '__action_run')

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_summary_fragment_shows_the_new_status_and_is_final_when_everything_ended(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='completed', state='healthy',
                                                reason='done', recommendations={'succeeded': 1, 'cancelled': 1})
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateUsed(res, 'admin/keyvrm_aggregates/_event_summary.html')
        self.assertTemplateNotUsed(res, 'base.html')
        self.assertContains(res, '<dd id="keyvrm-event-status">completed</dd>', html=False)
        self.assertContains(res, '<dd id="keyvrm-event-state">healthy</dd>', html=False)
        self.assertContains(res, '<dd id="keyvrm-event-recommendations">1 succeeded, 1 cancelled</dd>', html=False)
        self.assertContains(res, '<p class="keyvrm-reason-text">done</p>', html=False)
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
        self.assertContains(res, '<dd id="keyvrm-event-no-target-count">1 entry: see the No target tab</dd>',
                            html=False)
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'keyvrm-event'))
        self.assertIn('data-keyvrm-final="true"', live_part(res, 'keyvrm-no-target'))

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_the_summary_fragment_also_brings_the_no_target_entries_from_the_same_call(self):
        self.mock_event_get.return_value = dict(data.copied(data.HA_EVENT), id='ev-1', status='executing')
        res = self.client.get(SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertIn('data-keyvrm-live-url="%s"' % SUMMARY_URL, live_part(res, 'keyvrm-event'))
        self.assertIn('data-keyvrm-live-url="%s"' % SUMMARY_URL, live_part(res, 'keyvrm-no-target'))
        self.assertContains(res, 'no host passes the filters for vm-9')
        self.mock_event_get.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1')

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
            self.assertNotContains(res, 'keyvrm-event-no-target-count')


class ReaderEventPageTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_reader_sees_the_recommendations_without_run_cancel_or_selection(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_page.side_effect = api_page(data.RECOMMENDATIONS)
        res = self.client.get(EVENT_URL)
        self.assertContains(res, 'rec-manual')
        self.assertNotContains(res, '__action_run')
        self.assertNotContains(res, '__action_cancel')
        self.assertNotContains(res, 'class="table-row-multi-select"')

    @helpers.create_mocks({keyvrm: EVENT_CALLS})
    def test_reader_cannot_post_a_run(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_page.side_effect = api_page(data.RECOMMENDATIONS)
        self.client.post(EVENT_URL, {'action': 'recommendations__run', 'object_ids': ['rec-manual']})
        self.mock_recommendation_run.assert_not_called()
