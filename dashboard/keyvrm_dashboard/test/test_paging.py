"""One page of an API list both ways (keyvrm_dashboard.paging): what is fetched, shown and linked."""

from django import test
from django.utils import timezone

from keyvrm_dashboard import paging


def reader(items):
    """A ``fetch`` over ``items`` sorted ascending, as the API reads them (after a marker, or backwards before it)."""
    calls = []

    def fetch(limit, marker, backwards):
        calls.append((limit, marker, backwards))
        if backwards:
            found = [i for i in reversed(items) if marker is None or i < marker]
        else:
            found = [i for i in items if marker is None or i > marker]
        return found[:limit]
    return fetch, calls


class PageTests(test.SimpleTestCase):

    def test_the_first_page_asks_one_more_than_it_shows_to_know_of_a_next(self):
        fetch, calls = reader(list(range(10)))
        page = paging.page_of(fetch, 4)
        self.assertEqual([(5, None, False)], calls)
        self.assertEqual(paging.Page([0, 1, 2, 3], has_more=True, has_prev=False), page)

    def test_the_last_page_has_a_prev_and_no_next(self):
        fetch, _ = reader(list(range(10)))
        self.assertEqual(paging.Page([8, 9], has_more=False, has_prev=True), paging.page_of(fetch, 4, marker=7))

    def test_prev_shows_the_items_before_the_marker_in_order(self):
        fetch, calls = reader(list(range(10)))
        self.assertEqual(paging.Page([4, 5, 6, 7], has_more=True, has_prev=True),
                         paging.page_of(fetch, 4, marker=8, backwards=True))
        self.assertEqual((5, 8, True), calls[-1])
        self.assertEqual(paging.Page([0, 1, 2, 3], has_more=True, has_prev=False),
                         paging.page_of(fetch, 4, marker=4, backwards=True))

    def test_walking_next_then_prev_comes_back_to_the_same_pages(self):
        fetch, _ = reader(list(range(11)))
        pages, marker = [], None
        while True:
            page = paging.page_of(fetch, 3, marker)
            pages.append(page.items)
            if not page.has_more:
                break
            marker = page.items[-1]
        self.assertEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10]], pages)
        back = paging.page_of(fetch, 3, marker=pages[-1][0], backwards=True)
        self.assertEqual(pages[-2], back.items)


class FilterValueTests(test.SimpleTestCase):

    def test_since_is_read_in_the_active_zone(self):
        with timezone.override('Europe/Moscow'):
            self.assertEqual('2026-12-04T07:00:00Z', paging.since_value('2026-12-04 10:00'))
            self.assertEqual('2026-12-03T21:00:00Z', paging.since_value('2026-12-04'))
            self.assertEqual('2026-12-04T10:00:00Z', paging.since_value('2026-12-04T10:00:00Z'))
        with self.assertRaises(paging.FilterValueError):
            paging.since_value('yesterday')

    def test_a_choice_is_matched_whatever_its_case(self):
        kind = paging.one_of('Kind', ('HA', 'LB', 'drain'))
        self.assertEqual(('HA', 'drain'), (kind('ha'), kind(' DRAIN ')))
        with self.assertRaisesRegex(paging.FilterValueError, 'Kind: expected one of HA, LB, drain'):
            kind('sideways')

    def test_yes_and_no(self):
        self.assertEqual((True, False, True), (paging.yes_no_value('Yes'), paging.yes_no_value('false'),
                                               paging.yes_no_value('1')))
        with self.assertRaises(paging.FilterValueError):
            paging.yes_no_value('maybe')
