"""A record's reasons grouped by code: the count of hosts, the aggregate-wide sentence, the one-line cell text."""

from django import test

from keyvrm_dashboard import reason_groups
from keyvrm_dashboard.test import data


class ReasonGroupsTests(test.SimpleTestCase):

    def test_a_code_counts_its_hosts_listed_and_left_out_and_keeps_the_engines_order(self):
        reasons, more = data.overloaded_reasons(300, listed=9)
        no_target = data.reason('no_target', 'no target for cmp-001: 3 hosts rejected by RamFilter', host='cmp-001')
        [overloaded, other] = reason_groups.groups_of({'reasons': reasons + [no_target], 'more_reasons': more})
        self.assertEqual(('overloaded', 'Overloaded hosts', 300, '300 hypervisors of agg-a overloaded'),
                         (overloaded.code, overloaded.heading, overloaded.count, overloaded.summary))
        self.assertEqual(['cmp-%03d' % n for n in range(1, 6)], [e['host'] for e in overloaded.shown])
        self.assertEqual(['cmp-%03d' % n for n in range(6, 10)], [e['host'] for e in overloaded.hidden])
        self.assertEqual((291, 1, None), (overloaded.left_out, other.count, other.summary))

    def test_only_the_codes_the_guide_fixes_so_get_their_buttons(self):
        [restore, edit, neither] = reason_groups.groups_of({'reasons': [
            data.reason('drain_incomplete', '1 VM(s) remain on cmp-5 after its drain', host='cmp-5'),
            data.reason('storage_undeclared', 'aggregate agg-a has HA in its marker but no storage_mode'),
            data.reason('fencing_impossible', 'host cmp-6 cannot be fenced', host='cmp-6')]})
        self.assertEqual([(True, False), (False, True), (False, False)],
                         [(g.restores_hosts, g.edits_aggregate) for g in (restore, edit, neither)])

    def test_a_cell_says_a_single_reason_with_its_sentence_and_several_by_heading_and_count(self):
        reasons, more = data.overloaded_reasons(59, listed=9)
        self.assertEqual('Overloaded hosts (59); LB started too early', reason_groups.summary_line(
            {'reasons': reasons + [data.reason('lb_too_early', 'LB on agg-a too early')], 'more_reasons': more}))
        reasons, _ = data.overloaded_reasons(1)
        self.assertEqual('Overloaded hosts: cmp-001 syn_score 179% > threshold 80%',
                         reason_groups.summary_line({'reasons': reasons, 'more_reasons': {}}))
        self.assertEqual('No overload: no hypervisor of agg-a above 80% syn_score', reason_groups.summary_line(
            {'reasons': [data.reason('no_overload', 'no hypervisor of agg-a above 80% syn_score')]}))

    def test_a_10_record_keeps_its_text(self):
        self.assertIsNone(reason_groups.groups_of({'reason': '[noop] in NOOP'}))
        self.assertEqual('[noop] in NOOP', reason_groups.summary_line({'reason': '[noop] in NOOP'}))
        self.assertEqual('', reason_groups.summary_line({'reason': None}))
