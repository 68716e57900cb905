"""The Hypervisors panel at region scale: one API page of hosts, server-side filters, links that filter."""

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_hypervisors:index')
FILTER = 'hypervisors__filter_keyvrm_hypervisors__q'


def hosts(count, first=0):
    return [dict(data.copied(data.HYPERVISORS[0]), host='cmp-%03d' % i) for i in range(first, first + count)]


class PagedHypervisorsTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_one_page_of_hosts_with_the_next_and_prev_links(self):
        self.mock_hypervisor_list.return_value = hosts(21, first=20)
        res = self.client.get(INDEX_URL + '?marker=cmp-019')
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker='cmp-019',
                                                          sort_dir=None)
        self.assertEqual(20, len(res.context['table'].data))
        self.assertContains(res, 'href="?marker=cmp-039"', html=False)
        self.assertContains(res, 'href="?prev_marker=cmp-020"', html=False)

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_prev_reads_the_hosts_before_the_marker_from_the_last_name_down(self):
        self.mock_hypervisor_list.return_value = list(reversed(hosts(21)))
        res = self.client.get(INDEX_URL + '?prev_marker=cmp-021')
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker='cmp-021',
                                                          sort_dir='desc')
        self.assertEqual(['cmp-%03d' % i for i in range(1, 21)], [h['host'] for h in res.context['table'].data])
        self.assertContains(res, 'href="?prev_marker=cmp-001"', html=False)  # cmp-000 is before it
        self.assertContains(res, 'href="?marker=cmp-020"', html=False)

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_the_filter_box_passes_state_aggregate_and_zone_to_the_api(self):
        self.mock_hypervisor_list.return_value = hosts(1)
        for field, text, sent in (('state', 'Maintenance', 'maintenance'), ('aggregate', 'agg-a', 'agg-a'),
                                  ('availability_zone', 'az1', 'az1')):
            res = self.client.post(INDEX_URL, {FILTER + '_field': field, FILTER: text})
            self.assertRedirectsNoFollow(res, INDEX_URL)
            self.mock_hypervisor_list.reset_mock()
            self.client.get(INDEX_URL)
            self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker=None,
                                                              sort_dir=None, **{field: sent})

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_an_unknown_state_is_a_message_without_an_api_call(self):
        self.client.post(INDEX_URL, {FILTER + '_field': 'state', FILTER: 'dead'})
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'KeyVRM state: expected one of ok, fencing')
        self.mock_hypervisor_list.assert_not_called()

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_a_link_with_an_aggregate_becomes_the_filter_of_the_box(self):
        res = self.client.get(INDEX_URL + '?aggregate=agg-a&marker=cmp-100')
        self.assertRedirectsNoFollow(res, INDEX_URL)  # the first page, filtered
        self.mock_hypervisor_list.assert_not_called()
        self.mock_hypervisor_list.return_value = hosts(2)
        res = self.client.get(INDEX_URL)
        self.mock_hypervisor_list.assert_called_once_with(helpers.IsHttpRequest(), limit=21, marker=None,
                                                          sort_dir=None, aggregate='agg-a')
        self.assertContains(res, 'value="agg-a" type="text" name="%s"' % FILTER, html=False)

    @helpers.create_mocks({keyvrm: ['hypervisor_list']})
    def test_since_is_relative_with_the_exact_time_in_the_users_zone_on_hover(self):
        self.set_session(django_timezone='Europe/Moscow')
        self.mock_hypervisor_list.return_value = data.copied(data.HYPERVISORS)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'title="2026-12-04 01:00:00 MSK"')  # cmp-2 maintenance since 22:00 UTC
        self.assertContains(res, ' ago</span>')
