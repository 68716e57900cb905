"""The panels show an API 1.2 record's reasons as one text grouped by code, and a 1.0 record's text as it comes."""

from django import test

from keyvrm_dashboard import reasons

OVERLOADED = [{'code': 'overloaded', 'message': 'cmp-%d syn_score 91%% > 80%%' % n, 'host': 'cmp-%d' % n,
               'vm_id': None, 'details': {}} for n in (1, 2)]


class ReasonTextTests(test.SimpleTestCase):

    def test_a_list_of_reasons_is_grouped_by_code_with_what_the_api_left_out(self):
        event = {'reason_code': 'overloaded', 'more_reasons': {'overloaded': 298},
                 'reasons': OVERLOADED + [{'code': 'no_target', 'message': 'no host can take cmp-1 load',
                                           'host': 'cmp-1', 'vm_id': None, 'details': {}}]}
        self.assertEqual('overloaded (300):\n  cmp-1 syn_score 91% > 80%\n  cmp-2 syn_score 91% > 80%\n'
                         '  (+298 more)\nno_target: no host can take cmp-1 load', reasons.reason_text(event))

    def test_a_10_record_keeps_its_text_and_a_missing_event_stays_missing(self):
        self.assertEqual('[noop] in NOOP', reasons.reason_text({'reason': '[noop] in NOOP'}))
        self.assertIsNone(reasons.with_reason(None))

    def test_an_aggregates_events_and_own_outcome_carry_their_reasons_as_text(self):
        event = {'id': 'ev-1', 'reasons': OVERLOADED[:1], 'more_reasons': {}}
        aggregate = reasons.aggregate_with_reasons({
            'name': 'agg-a', 'last_event': event, 'current_event': None,
            'latest_outcome': {'cycle_id': 9, 'outcomes': [], 'events': [event]}})
        self.assertEqual('overloaded: cmp-1 syn_score 91% > 80%', aggregate['last_event']['reason'])
        self.assertEqual(aggregate['last_event'], aggregate['latest_outcome']['events'][0])
        self.assertIsNone(aggregate['current_event'])
