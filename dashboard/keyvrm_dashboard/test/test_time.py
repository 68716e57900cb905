"""Times and durations as the panels show them (templatetags/keyvrm_time.py): the user's zone, relative, rounded."""

import datetime

from django import template
from django import test
from django.utils import timezone
from django.utils import translation

from keyvrm_dashboard.templatetags import keyvrm_time

NOW = datetime.datetime(2026, 12, 4, 0, 13, 0, tzinfo=datetime.timezone.utc)


class ParseTests(test.SimpleTestCase):

    def test_the_apis_forms_of_a_time_are_one_moment(self):
        expected = datetime.datetime(2026, 12, 4, 0, 10, 0, tzinfo=datetime.timezone.utc)
        for value in ('2026-12-04T00:10:00Z', '2026-12-04T00:10:00', '2026-12-04T03:10:00+03:00',
                      expected.timestamp(), int(expected.timestamp()), expected.replace(tzinfo=None)):
            self.assertEqual(expected, keyvrm_time.parse_time(value), value)

    def test_what_is_no_time_is_none(self):
        for value in (None, '', 'soon', True):
            self.assertIsNone(keyvrm_time.parse_time(value))


class ShownTests(test.SimpleTestCase):

    def test_the_exact_time_is_in_the_active_zone_to_the_second_with_its_name(self):
        with timezone.override('Europe/Moscow'):
            self.assertEqual('2026-12-04 03:10:00 MSK', keyvrm_time.exact_time('2026-12-04T00:10:00.123456Z'))
        with timezone.override('UTC'):
            self.assertEqual('2026-12-04 00:10:00 UTC', keyvrm_time.exact_time('2026-12-04T00:10:00.123456Z'))

    def test_relative_times_in_words(self):
        self.assertEqual('3\xa0minutes ago', keyvrm_time.relative_time('2026-12-04T00:10:00Z', now=NOW))
        self.assertEqual('just now', keyvrm_time.relative_time('2026-12-04T00:12:30Z', now=NOW))
        self.assertEqual('in 2\xa0hours', keyvrm_time.relative_time('2026-12-04T02:13:00Z', now=NOW))
        self.assertEqual('1\xa0day ago', keyvrm_time.relative_time('2026-12-02T23:00:00Z', now=NOW))

    def test_the_filter_renders_relative_with_the_exact_time_on_hover_in_the_users_zone(self):
        rendered = template.Template('{% load keyvrm_time %}{{ at|keyvrm_time }}|{{ none|keyvrm_time }}').render(
            template.Context({'at': '2026-12-04T00:10:00Z', 'none': None}))
        with timezone.override('Europe/Moscow'):
            moscow = template.Template('{% load keyvrm_time %}{{ at|keyvrm_time }}').render(
                template.Context({'at': '2026-12-04T00:10:00Z'}))
        self.assertIn('title="2026-12-04 00:10:00 UTC"', rendered)
        self.assertTrue(rendered.endswith(' ago</span>|-'), rendered)
        self.assertIn('<span class="keyvrm-time" title="2026-12-04 03:10:00 MSK"', moscow)

    def test_text_that_is_no_time_is_shown_as_given_and_escaped(self):
        rendered = template.Template('{% load keyvrm_time %}{{ at|keyvrm_time }}').render(
            template.Context({'at': '<b>later</b>'}))
        self.assertEqual('&lt;b&gt;later&lt;/b&gt;', rendered)

    def test_durations_are_rounded_as_an_operator_reads_them(self):
        for seconds, shown in ((None, '-'), (0, '0 s'), (4.2, '4.2 s'), (4.96, '5 s'), (42.4, '42 s'),
                               (65.12345678901234, '1 min 5 s'), (120.2, '2 min'), (3725, '1 h 2 min'),
                               (7200, '2 h'), (90000, '1 d 1 h'), ('30.0', '30 s')):
            self.assertEqual(shown, keyvrm_time.duration_text(seconds), seconds)

    def test_durations_read_in_the_users_language(self):
        with translation.override('ru'):
            self.assertEqual('1 мин 5 с', keyvrm_time.duration_text(65))
            self.assertEqual('1 д 1 ч', keyvrm_time.duration_text(90000))
