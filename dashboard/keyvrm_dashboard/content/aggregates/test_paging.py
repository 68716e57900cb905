"""The aggregates index and aggregate page at region scale: one API page per table, filters, live parts, the chart."""

import re

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_aggregates:index')
DETAIL_URL = reverse('horizon:admin:keyvrm_aggregates:detail', args=['agg-a'])
LIVE_URL = reverse('horizon:admin:keyvrm_aggregates:live', args=['agg-a'])
EDIT_URL = reverse('horizon:admin:keyvrm_aggregates:edit', args=['agg-a'])
INDEX_CALLS = ['aggregate_list', 'hypervisor_list', 'cycle_list', 'cycle_get', 'availability_zone_list']
DETAIL_CALLS = ['aggregate_get', 'aggregate_load', 'event_list', 'hypervisor_list']
EVENTS_FILTER = 'events__filter_keyvrm_events__q'


def aggregates(count):
    return [dict(data.copied(data.AGGREGATE), name='agg-%02d' % i) for i in range(count)]


def events(count, first=0):
    return [dict(data.copied(data.EVENT), id='ev-%03d' % i) for i in range(first, first + count)]


def hosts(count):
    return [dict(data.copied(data.HYPERVISORS[0]), host='cmp-%03d' % i) for i in range(count)]


class PagedIndexTests(kv_helpers.AdminTestCase):

    def answer(self, found):
        self.mock_aggregate_list.return_value = found
        self.mock_cycle_list.return_value = [{'id': 7, 'status': 'completed'}]
        self.mock_cycle_get.return_value = data.copied(data.CYCLE)
        self.mock_availability_zone_list.return_value = [{'name': 'az1', 'aggregate_count': 40}]

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_the_index_reads_one_page_of_the_users_page_size_and_links_the_next_keeping_the_zone(self):
        self.answer(aggregates(21))  # the API found more than a page: 20 + 1
        res = self.client.get(INDEX_URL + '?availability_zone=az1')
        self.mock_aggregate_list.assert_called_once_with(helpers.IsHttpRequest(), availability_zone='az1', limit=21,
                                                         marker=None, sort_dir=None)
        self.assertEqual(20, len(res.context['table'].data))
        self.assertContains(res, 'href="?availability_zone=az1&amp;marker=agg-19"', html=False)
        self.assertNotContains(res, 'prev_marker=')
        self.mock_hypervisor_list.assert_not_called()
        self.assertEqual([1, 1, 1, 1], [self.mock_aggregate_list.call_count, self.mock_cycle_list.call_count,
                                        self.mock_cycle_get.call_count, self.mock_availability_zone_list.call_count])

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_items_per_page_of_the_users_settings_is_the_page_size(self):
        self.set_session(API_RESULT_PAGE_SIZE=2)
        self.answer(aggregates(3))
        res = self.client.get(INDEX_URL + '?marker=agg-07')
        self.mock_aggregate_list.assert_called_once_with(helpers.IsHttpRequest(), availability_zone=None, limit=3,
                                                         marker='agg-07', sort_dir=None)
        self.assertEqual(['agg-00', 'agg-01'], [a['name'] for a in res.context['table'].data])
        self.assertContains(res, 'href="?marker=agg-01"', html=False)
        self.assertContains(res, 'href="?prev_marker=agg-00"', html=False)

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_prev_asks_for_the_page_before_from_the_nearest_and_shows_it_in_order(self):
        self.answer(list(reversed(aggregates(5))))  # sort_dir=desc: agg-04 (nearest the marker) first
        res = self.client.get(INDEX_URL + '?prev_marker=agg-05')
        self.mock_aggregate_list.assert_called_once_with(helpers.IsHttpRequest(), availability_zone=None, limit=21,
                                                         marker='agg-05', sort_dir='desc')
        self.assertEqual(['agg-%02d' % i for i in range(5)], [a['name'] for a in res.context['table'].data])
        self.assertContains(res, 'href="?marker=agg-04"', html=False)  # back towards the marker's page
        self.assertNotContains(res, 'prev_marker=agg-00')  # the first page: nothing before it

    @helpers.create_mocks({keyvrm: INDEX_CALLS})
    def test_edit_keeps_the_chosen_zone_through_save(self):
        self.answer(aggregates(1))
        res = self.client.get(INDEX_URL + '?availability_zone=az1')
        self.assertContains(res, reverse('horizon:admin:keyvrm_aggregates:edit', args=['agg-00'])
                            + '?availability_zone=az1')

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'aggregate_update']})
    def test_save_goes_back_to_the_zone_the_form_was_opened_from(self):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_update.return_value = data.copied(data.AGGREGATE)
        form = self.client.get(EDIT_URL + '?availability_zone=az1&marker=agg-19')
        self.assertContains(form, 'action="%s?availability_zone=az1&amp;marker=agg-19"' % EDIT_URL, html=False)
        post = {'name': 'agg-a', 'marker': 'LB', 'no_op_reason': '', 'storage_mode': 'shared',
                'ha_failover_reserve': 1, 'lb_level': 3, 'lb_period': 300, 'lb_persistence': 1, 'lb_min_gain': 2.0,
                'failback': 'recommend', 'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0,
                'lb_weight_cpu': 1.0, 'lb_weight_ram': 1.0, 'lb_weight_net': 0.5, 'lb_weight_hugepages': 0.0,
                'lb_ceiling_cpu': 85.0, 'lb_ceiling_ram': 95.0, 'lb_ceiling_net': '', 'lb_ceiling_hugepages': ''}
        res = self.client.post(EDIT_URL + '?availability_zone=az1&marker=agg-19', post)
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, INDEX_URL + '?availability_zone=az1&marker=agg-19')


class PagedAggregatePageTests(kv_helpers.AdminTestCase):

    def answer(self, found_events, found_hosts=None, load=data.AGGREGATE_LOAD):
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_load.return_value = data.copied(load)
        self.mock_event_list.return_value = found_events
        self.mock_hypervisor_list.return_value = found_hosts if found_hosts is not None else hosts(2)

    def set_events_filter(self, field, text):
        return self.client.post(DETAIL_URL, {EVENTS_FILTER + '_field': field, EVENTS_FILTER: text})

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_each_table_reads_one_api_page_and_the_page_makes_four_calls(self):
        self.answer(events(21), hosts(21))
        res = self.client.get(DETAIL_URL)
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker=None,
                                                     sort_dir='desc')
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), aggregate='agg-a', limit=21,
                                                          marker=None, sort_dir=None)
        self.assertEqual({'aggregate_get': 1, 'aggregate_load': 1, 'event_list': 1, 'hypervisor_list': 1},
                         {name: getattr(self, 'mock_' + name).call_count for name in DETAIL_CALLS})
        self.assertEqual(20, len(res.context['events_table'].data))
        self.assertEqual(20, len(res.context['agg_hosts_table'].data))
        self.assertContains(res, 'href="?events_marker=ev-019"', html=False)
        self.assertContains(res, 'href="?hosts_marker=cmp-019"', html=False)

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_the_events_marker_pages_the_events_and_keeps_the_hosts_page(self):
        self.answer(events(21, first=40), hosts(2))
        res = self.client.get(DETAIL_URL + '?events_marker=ev-039&hosts_marker=cmp-100')
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker='ev-039',
                                                     sort_dir='desc')
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), aggregate='agg-a', limit=21,
                                                          marker='cmp-100', sort_dir=None)
        self.assertContains(res, 'href="?hosts_marker=cmp-100&amp;events_marker=ev-059"', html=False)
        self.assertContains(res, 'href="?hosts_marker=cmp-100&amp;events_prev_marker=ev-040"', html=False)

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_prev_of_the_events_reads_the_newer_ones_oldest_first_and_shows_them_newest_first(self):
        self.answer(list(reversed(events(3))))
        res = self.client.get(DETAIL_URL + '?events_prev_marker=ev-003')
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker='ev-003',
                                                     sort_dir='asc')
        self.assertEqual(['ev-000', 'ev-001', 'ev-002'], [e['id'] for e in res.context['events_table'].data])

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_the_events_filter_goes_to_the_api_and_back_to_the_first_page(self):
        res = self.set_events_filter('kind', 'ha')
        self.assertRedirectsNoFollow(res, DETAIL_URL)
        self.mock_event_list.assert_not_called()
        self.answer(events(1))
        res = self.client.get(DETAIL_URL)
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker=None,
                                                     sort_dir='desc', kind='HA')
        self.assertContains(res, 'value="ha" type="text" name="%s"' % EVENTS_FILTER, html=False)  # the box shows it
        for field, text, sent in (('status', 'Manual_Action', 'manual_action'), ('state', 'error', 'error')):
            self.set_events_filter(field, text)
            self.mock_event_list.reset_mock()
            self.client.get(DETAIL_URL)
            self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker=None,
                                                         sort_dir='desc', **{field: sent})

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_since_is_read_in_the_users_time_zone_and_sent_as_utc(self):
        self.set_session(django_timezone='Europe/Moscow')
        self.set_events_filter('since', '2026-12-04 10:00')
        self.answer(events(1))
        self.client.get(DETAIL_URL)
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker=None,
                                                     sort_dir='desc', since='2026-12-04T07:00:00Z')

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_a_filter_value_the_api_would_refuse_is_a_message_and_no_events_call(self):
        self.set_events_filter('kind', 'sideways')
        self.answer(events(1))
        res = self.client.get(DETAIL_URL)
        self.assertEqual(200, res.status_code)
        self.assertContains(res, 'Kind: expected one of HA, LB, drain, failback.')
        self.mock_event_list.assert_not_called()

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_a_pending_event_row_answers_horizons_ajax_row_update(self):
        self.mock_event_get.return_value = dict(data.copied(data.EVENT), status='completed', state='healthy')
        res = self.client.get(DETAIL_URL + '?action=row_update&table=events&obj_id=ev-1',
                              HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertContains(res, 'id="events__row__ev-1"')
        self.assertContains(res, 'completed')
        self.mock_event_get.assert_called_once_with(helpers.IsHttpRequest(), 'ev-1')

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_the_page_polls_its_live_parts_with_its_own_query(self):
        self.answer(events(2))
        res = self.client.get(DETAIL_URL + '?events_marker=ev-100')
        self.assertContains(res, 'data-keyvrm-aggregate-live-url="%s?events_marker=ev-100"' % LIVE_URL, html=False)
        self.assertContains(res, 'horizon.keyvrm_aggregate_live = {', count=1)
        for part in ('keyvrm-current-event', 'keyvrm-latest-outcome', 'keyvrm-aggregate-events'):
            self.assertContains(res, 'id="%s"' % part, count=1)


class LivePartsTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'event_list', 'aggregate_load', 'hypervisor_list']})
    def test_the_live_parts_show_a_new_event_from_two_api_calls(self):
        newer = dict(data.copied(data.EVENT), id='ev-new', kind='HA', status='executing', reason='cmp-9 is down')
        self.mock_aggregate_get.return_value = dict(data.copied(data.AGGREGATE), current_event=newer)
        self.mock_event_list.return_value = [newer] + events(2)
        res = self.client.get(LIVE_URL + '?events_marker=ev-100', HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateNotUsed(res, 'base.html')
        html = res.content.decode()
        for part in ('keyvrm-current-event', 'keyvrm-latest-outcome', 'keyvrm-aggregate-events'):
            self.assertIn('id="%s"' % part, html)
        self.assertIn('cmp-9 is down', html)
        self.assertIn('id="events__row__ev-new"', html)
        self.mock_event_list.assert_called_once_with(helpers.IsHttpRequest(), 'agg-a', limit=21, marker='ev-100',
                                                     sort_dir='desc')
        self.assertEqual(1, self.mock_aggregate_get.call_count)
        self.mock_aggregate_load.assert_not_called()
        self.mock_hypervisor_list.assert_not_called()
        # the table's filter form posts to the aggregate page, not to the fragment
        self.assertIn('<form action="%s?events_marker=ev-100" method="POST">' % DETAIL_URL, html)

    @helpers.create_mocks({keyvrm: ['aggregate_get', 'event_list']})
    def test_the_live_parts_answer_the_apis_error_status_and_leave_no_message(self):
        self.mock_aggregate_get.side_effect = keyvrm.ClientError(404, 'not_found', 'aggregate agg-a not found')
        res = self.client.get(LIVE_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertEqual(404, res.status_code)
        self.mock_event_list.assert_not_called()
        self.mock_aggregate_get.side_effect = None
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_event_list.side_effect = keyvrm.ClientError(503, 'service_unavailable', 'database unavailable')
        res = self.client.get(LIVE_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertEqual(503, res.status_code)
        self.assertEqual([], list(res.wsgi_request._messages))


class LoadAtScaleTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: DETAIL_CALLS})
    def test_a_host_above_100_is_charted_unclamped_with_its_limits_and_tabled_beside_the_chart(self):
        many = [dict(data.copied(data.AGGREGATE_LOAD['hosts'][1]), host='cmp-%03d' % i, syn_score=float(i % 50))
                for i in range(240)]
        hot = dict(data.copied(data.AGGREGATE_LOAD['hosts'][0]), host='cmp-hot', cpu=227.0, syn_score=160.0)
        self.mock_aggregate_get.return_value = data.copied(data.AGGREGATE)
        self.mock_aggregate_load.return_value = dict(data.copied(data.AGGREGATE_LOAD), hosts=many + [hot])
        self.mock_event_list.return_value = []
        self.mock_hypervisor_list.return_value = []
        res = self.client.get(DETAIL_URL)
        html = res.content.decode()
        self.assertIn('cmp-hot: CPU 227 %', html)
        bars = {host: float(height) for height, host in re.findall(
            r'class="keyvrm-bar keyvrm-bar-cpu" x="[^"]+" y="[^"]+" width="\d+" height="([^"]+)" fill="[^"]+">'
            r'<title>([^:]+):', html)}
        self.assertEqual(241, len(bars))  # every host, none left out
        self.assertAlmostEqual(227 / 31.0, bars['cmp-hot'] / bars['cmp-000'], places=2)
        self.assertIn('>threshold 80%</text>', html)  # the limit lines stay, with their values
        self.assertIn('>CPU ceiling 85%</text>', html)
        rows = re.findall(r'<tr id="keyvrm-load-([^"]+)">', html)
        self.assertEqual('cmp-hot', rows[0])  # the most loaded first, as in the chart
        self.assertEqual(241, len(rows))
        self.assertIn('<td class="keyvrm-load-above-100" style="font-weight: bold; color: #d62728" '
                      'title="227 %">227.0</td>', html)
        self.assertIn('class="keyvrm-load-chart-scroll" style="overflow-x: auto', html)
