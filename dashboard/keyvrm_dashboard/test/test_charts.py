"""The load chart's geometry: bar heights, limit lines, overloaded marks, truncation."""

from django import test

from keyvrm_dashboard import charts


def _load(hosts, **settings):
    values = {'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0,
              'lb_ceilings': {'cpu': 85.0, 'ram': None}, 'hosts': hosts}
    values.update(settings)
    return values


def _host(name, cpu=None, ram=None, net=None, score=None, causes=()):
    return {'host': name, 'cpu': cpu, 'ram': ram, 'net': net, 'syn_score': score,
            'overloaded': bool(causes), 'causes': list(causes)}


class LoadChartTests(test.SimpleTestCase):

    def test_bar_heights_are_proportional_to_the_percentages(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=100.0, ram=50.0, net=25.0, score=60.0)]))
        heights = {b.metric: b.height for b in chart.bars}
        self.assertEqual(charts.PLOT_H, heights['cpu'])
        self.assertEqual((charts.PLOT_H / 2, charts.PLOT_H / 4), (heights['ram'], heights['net']))
        self.assertAlmostEqual(charts.PLOT_H * 0.6, heights['syn_score'])
        self.assertTrue(all(b.y + b.height == charts.y_of(0) for b in chart.bars))

    def test_a_missing_metric_has_no_bar_and_says_missing(self):
        chart = charts.layout(_load([_host('cmp-2', cpu=30.0)]))
        net = next(b for b in chart.bars if b.metric == 'net')
        self.assertEqual(0, net.height)
        self.assertIn('cmp-2: net missing', charts.render(chart, 'agg-a'))

    def test_threshold_target_and_set_ceilings_are_lines_at_their_percentage(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=10.0)]))
        lines = {ln.label: ln.y for ln in chart.lines}
        self.assertEqual({'threshold': charts.y_of(80), 'target max': charts.y_of(70),
                          'CPU ceiling': charts.y_of(85)}, lines)
        self.assertEqual(charts.TOP + charts.PLOT_H * 0.2, lines['threshold'])

    def test_overloaded_hosts_are_marked_with_their_causes(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=100.0, causes=['cpu 100% >= ceiling 85%']),
                                     _host('cmp-2', cpu=10.0)]))
        svg = charts.render(chart, 'agg-a')
        self.assertEqual(1, svg.count('class="keyvrm-overload-mark"'))
        self.assertIn('cmp-1: cpu 100% &gt;= ceiling 85%', svg)
        self.assertIn('cmp-1: overloaded<', svg)
        self.assertIn('cmp-2: not overloaded<', svg)

    def test_beyond_the_limit_the_most_loaded_are_drawn_and_the_rest_counted(self):
        hosts = [_host('cmp-%02d' % i, score=float(i)) for i in range(60)]
        chart = charts.layout(_load(hosts))
        drawn = [h['host'] for h, _, _ in chart.hosts]
        self.assertEqual(['cmp-%02d' % i for i in range(10, 60)], drawn)
        self.assertEqual(10, chart.not_shown)
        self.assertIn('10 more hosts not shown', charts.render(chart, 'agg-a'))

    def test_host_names_are_escaped(self):
        svg = charts.render(charts.layout(_load([_host('<b>x', cpu=1.0)])), 'agg-a')
        self.assertNotIn('<b>x', svg)
        self.assertIn('&lt;b&gt;x', svg)
