"""View tests of the reasons component on the event and aggregate pages: one line per code with its count, the worst
hosts first and the rest behind "show all", at region scale; Return to service next to a host for admins only."""

import re

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.aggregates import test_event
from keyvrm_dashboard.content.aggregates import tests as aggregate_tests
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

DETAIL_URL = reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-a'])
RESTORE_URL = reverse('horizon:admin:keyvrm_hypervisors:restore', args=['cmp-7'])
# The reasons of an HA run that left a host in error and met a host an earlier run handled: both say to restore.
HA_REASONS = [data.reason('vms_remain', '2 VM(s) remain on fenced host cmp-7: host in error, no maintenance;'
                          ' remaining VMs down with the host (nothing sent to Nova)', host='cmp-7', remaining=2),
              data.reason('already_handled', 'host cmp-8 is already in KeyVRM state maintenance (an earlier HA run);'
                          ' an admin returns it to service with `openstack keyvrm hypervisor restore cmp-8`',
                          host='cmp-8', state='maintenance')]
# Bytes the event summary may take with 59 hosts in one reason (it held the whole text before: 59 lines, cut mid-word).
SUMMARY_BYTES_AT_59_HOSTS = 16000


def hot_event(hosts, listed=None):
    """The LB event of ``hosts`` overloaded hosts, ``listed`` of them in its reasons (all by default)."""
    reasons, more = data.overloaded_reasons(hosts, listed)
    event = dict(data.copied(data.EVENT), reasons=reasons, more_reasons=more)
    del event['reason']
    return event


def ha_event():
    event = dict(data.copied(data.HA_EVENT), reason_code='vms_remain', reasons=data.copied(HA_REASONS),
                 more_reasons={})
    del event['reason']
    return event


def items_of(html, code):
    """The messages of ``code``'s items: (shown on its line, folded behind "show all")."""
    line = r'<li class="keyvrm-reason-group" data-keyvrm-code="%s">(.*?)\n  </li>' % code
    group = re.search(line, html, re.S).group(1)
    shown, _, folded = group.partition('<details')
    item = re.compile(r'<li class="keyvrm-reason-item">([^<]*)')
    return item.findall(shown), item.findall(folded)


class ReasonGroupsTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_59_hot_hosts_are_one_line_with_their_count_the_5_worst_shown_and_the_rest_behind_show_all(self):
        self.mock_event_get.return_value = hot_event(59)
        res = self.client.get(test_event.SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        html = res.content.decode()
        self.assertEqual(1, html.count('data-keyvrm-code="overloaded"'))
        self.assertContains(res, '<strong class="keyvrm-reason-heading">Overloaded hosts</strong>'
                                 ' <code>overloaded</code>'
                                 ' <span class="badge keyvrm-reason-count" title="hosts or VMs">59</span>:'
                                 ' 59 hypervisors of agg-a overloaded', html=False)
        shown, folded = items_of(html, 'overloaded')
        self.assertEqual(['cmp-%03d syn_score %d%% &gt; threshold 80%%' % (n, 180 - n) for n in range(1, 6)], shown)
        self.assertEqual(54, len(folded))
        self.assertTrue(folded[0].startswith('cmp-006 '))
        self.assertContains(res, '<summary>Show all: 54 more</summary>', html=False)
        self.assertNotIn('word-break', html)
        self.assertLess(len(res.content), SUMMARY_BYTES_AT_59_HOSTS)

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_hosts_the_api_left_out_are_counted_in_the_line_and_said_below_it(self):
        self.mock_event_get.return_value = hot_event(59, listed=9)
        res = self.client.get(test_event.SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        shown, folded = items_of(res.content.decode(), 'overloaded')
        self.assertEqual((5, 4), (len(shown), len(folded)))
        self.assertContains(res, 'title="hosts or VMs">59</span>', html=False)
        self.assertContains(res, 'and 50 more the API does not list')

    @helpers.create_mocks({keyvrm: test_event.EVENT_CALLS})
    def test_the_event_page_shows_the_same_lines_in_its_overview(self):
        self.mock_event_get.return_value = hot_event(12)
        self.mock_recommendation_page.side_effect = test_event.api_page(data.RECOMMENDATIONS)
        res = self.client.get(test_event.EVENT_URL)
        self.assertEqual((5, 7), tuple(map(len, items_of(res.content.decode(), 'overloaded'))))
        self.assertContains(res, '<summary>Show all: 7 more</summary>', html=False)

    @helpers.create_mocks({keyvrm: aggregate_tests.DETAIL_CALLS})
    def test_the_aggregate_page_groups_its_current_event_and_its_events_table_says_each_reason_in_one_line(self):
        event = hot_event(59, listed=9)
        self.mock_aggregate_get.return_value = dict(data.copied(data.AGGREGATE), current_event=event)
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = [data.copied(event)]
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(DETAIL_URL)
        current = res.content.decode().split('id="keyvrm-current-event"')[1].split('id="keyvrm-latest-outcome"')[0]
        self.assertEqual((5, 4), tuple(map(len, items_of(current, 'overloaded'))))
        # a cell of its own words, never cut mid-word (no Horizon word-break class)
        self.assertContains(res, '<td class="normal_column sortable">Overloaded hosts (59)</td>', html=True)

    @helpers.create_mocks({keyvrm: aggregate_tests.DETAIL_CALLS})
    def test_an_admin_gets_return_to_service_next_to_each_host_the_reason_says_to_restore(self):
        self.mock_aggregate_get.return_value = dict(data.copied(data.AGGREGATE), current_event=ha_event())
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(DETAIL_URL)
        for host in ('cmp-7', 'cmp-8'):
            self.assertContains(res, 'remain on fenced host cmp-7' if host == 'cmp-7' else 'host cmp-8 is already')
            self.assertContains(res, '<a class="btn btn-default btn-xs ajax-modal keyvrm-reason-restore" href="%s">'
                                     'Return to service</a>' % reverse('horizon:admin:keyvrm_hypervisors:restore',
                                                                       args=[host]), html=False)

    @helpers.create_mocks({keyvrm: ['hypervisor_restore']})
    def test_return_to_service_asks_first_naming_the_host_then_calls_the_api(self):
        self.assertModalAndPage(RESTORE_URL, 'admin/keyvrm_hypervisors/_restore.html', 'Return cmp-7 to service')
        res = self.client.post(RESTORE_URL, {'host': 'cmp-7', 'failback': 'on'})
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, reverse('horizon:admin:keyvrm_hypervisors:index'))
        self.mock_hypervisor_restore.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-7', True)

    @helpers.create_mocks({keyvrm: ['hypervisor_restore']})
    def test_return_to_service_refused_by_the_api_shows_its_detail_on_the_form(self):
        self.mock_hypervisor_restore.side_effect = keyvrm.ClientError(
            409, 'hypervisor_not_restorable', 'hypervisor cmp-7 is ok: nothing to restore')
        res = self.client.post(RESTORE_URL, {'host': 'cmp-7'})
        self.assertEqual(['hypervisor cmp-7 is ok: nothing to restore'], res.context['form'].non_field_errors())
        self.mock_hypervisor_restore.assert_called_once_with(helpers.IsHttpRequest(), 'cmp-7', False)


class ReaderReasonGroupsTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: aggregate_tests.DETAIL_CALLS + ['hypervisor_restore']})
    def test_a_reader_reads_the_same_reasons_without_a_button_and_cannot_restore(self):
        latest = {'cycle_id': 9, 'cycle_status': 'completed', 'finished_at': '2026-12-04T00:20:02Z', 'events': [],
                  'outcomes': [{'aggregate_name': 'agg-a', 'kind': 'NOOP', 'reason_code': 'noop', 'more_reasons': {},
                                'reasons': [data.reason('noop', 'aggregate agg-a is in NOOP mode: CHG-42')],
                                'ran_at': '2026-12-04T00:20:01Z', 'next_run_at': None}]}
        self.mock_aggregate_get.return_value = dict(data.copied(data.AGGREGATE), current_event=ha_event(),
                                                    latest_outcome=latest)
        self.mock_aggregate_load.return_value = data.copied(data.NO_SNAPSHOT_LOAD)
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(DETAIL_URL)
        self.assertContains(res, 'remain on fenced host cmp-7')
        self.assertContains(res, 'aggregate agg-a is in NOOP mode: CHG-42')
        self.assertNotContains(res, 'keyvrm-reason-restore')
        self.assertNotContains(res, 'keyvrm-reason-edit')
        res = self.client.post(RESTORE_URL, {'host': 'cmp-7'})
        self.assertNotEqual(200, res.status_code)
        self.mock_hypervisor_restore.assert_not_called()
