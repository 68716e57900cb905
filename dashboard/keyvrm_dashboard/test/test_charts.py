"""The load chart's geometry: bar heights, limit lines and their labels, legend, hugepages, marks, scale, order."""

import re

from django import test

from keyvrm_dashboard import charts


def _load(hosts, **settings):
    values = {'lb_overload_threshold': 80.0, 'lb_target_max_load': 70.0,
              'lb_ceilings': {'cpu': 85.0, 'ram': None}, 'hosts': hosts}
    values.update(settings)
    return values


def _host(name, cpu=None, ram=None, net=None, score=None, causes=(), **more):
    return dict({'host': name, 'cpu': cpu, 'ram': ram, 'net': net, 'syn_score': score,
                 'overloaded': bool(causes), 'causes': list(causes)}, **more)


def limit_label_ys(svg):
    """The baselines of the limit labels right of the plot, in the SVG's order."""
    return [float(y) for y in re.findall(r'<text class="keyvrm-limit-label" x="[^"]+" y="([^"]+)"', svg)]


def legend_labels(svg, kind):
    """The labels of the legend entries whose swatch is ``kind`` (bar, line, mark)."""
    return re.findall(r'<g class="keyvrm-legend-item"><[a-z]+ class="keyvrm-legend-%s"[^>]*>(?:&#9650;</text>)?'
                      r'<text class="keyvrm-legend-label"[^>]*>([^<]+)</text></g>' % kind, svg)


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
        self.assertAlmostEqual(charts.TOP + charts.PLOT_H * 0.2, lines['threshold'])

    def test_overloaded_hosts_are_marked_with_their_causes(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=100.0, causes=['cpu 100% >= ceiling 85%']),
                                     _host('cmp-2', cpu=10.0)]))
        svg = charts.render(chart, 'agg-a')
        self.assertEqual(1, svg.count('class="keyvrm-overload-mark"'))
        self.assertIn('cmp-1: cpu 100% &gt;= ceiling 85%', svg)
        self.assertIn('cmp-1: overloaded<', svg)
        self.assertIn('cmp-2: not overloaded<', svg)

    def test_every_host_is_drawn_the_most_loaded_first(self):
        hosts = [_host('cmp-%03d' % i, score=float(i % 90)) for i in range(240)]
        chart = charts.layout(_load(hosts))
        drawn = [h['host'] for h, _, _ in chart.hosts]
        self.assertEqual(240, len(drawn))
        self.assertEqual(['cmp-089', 'cmp-179', 'cmp-088', 'cmp-178'], drawn[:4])  # 89 first, ties by name
        self.assertEqual(drawn, [row['host'] for row in charts.table_rows(_load(hosts))])
        self.assertNotIn('not shown', charts.render(chart, 'agg-a'))

    def test_a_value_above_100_is_drawn_at_its_height_on_a_taller_scale_not_clamped(self):
        load = _load([_host('cmp-hot', cpu=227.0, ram=50.0, score=150.0), _host('cmp-1', cpu=100.0, score=60.0)])
        chart = charts.layout(load)
        self.assertEqual((250.0, 50.0), (chart.top_pct, chart.grid_step_pct))
        bars = {(b.host, b.metric): b for b in chart.bars}
        self.assertAlmostEqual(charts.PLOT_H * 227 / 250, bars['cmp-hot', 'cpu'].height)
        self.assertAlmostEqual(2.27 * bars['cmp-1', 'cpu'].height, bars['cmp-hot', 'cpu'].height)
        self.assertGreater(bars['cmp-hot', 'cpu'].height, bars['cmp-hot', 'syn_score'].height)
        svg = charts.render(chart, 'agg-a')
        self.assertIn('cmp-hot: CPU 227 %', svg)
        self.assertIn('>250%</text>', svg)  # the top of the scale's axis
        lines = {ln.label: ln.y for ln in chart.lines}  # the limits are kept, on the same scale
        self.assertAlmostEqual(charts.y_of(80, 250.0), lines['threshold'])
        self.assertAlmostEqual(charts.y_of(85, 250.0), lines['CPU ceiling'])
        hot = charts.table_rows(load)[0]
        cpu = hot['cells'][0]
        self.assertEqual(('cmp-hot', '227.0', True), (hot['host'], cpu['text'], cpu['above_100']))

    def test_up_to_100_the_scale_is_0_to_100(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=100.0, score=99.9)]))
        self.assertEqual((100.0, 25.0), (chart.top_pct, chart.grid_step_pct))

    def test_host_names_are_escaped(self):
        svg = charts.render(charts.layout(_load([_host('<b>x', cpu=1.0)])), 'agg-a')
        self.assertNotIn('<b>x', svg)
        self.assertIn('&lt;b&gt;x', svg)

    def test_the_legend_shows_each_bar_colour_line_style_and_the_overloaded_mark(self):
        svg = charts.render(charts.layout(_load([_host('cmp-1', cpu=10.0)])), 'agg-a')
        self.assertEqual(['CPU', 'RAM', 'net', 'syn_score'], legend_labels(svg, 'bar'))
        self.assertEqual(['CPU ceiling 85%', 'threshold 80%', 'target max 70%'], legend_labels(svg, 'line'))
        self.assertEqual(['overloaded host'], legend_labels(svg, 'mark'))
        self.assertIn('stroke="#d62728" stroke-dasharray="6 3"', svg.split('keyvrm-legend-line')[2])

    def test_legend_entries_never_overlap_and_stay_inside_the_chart(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=10.0, hugepages=5.0)],
                                    lb_ceilings={'cpu': 85.0, 'ram': 90.0, 'net': 60.0, 'hugepages': 50.0}))
        rows = {}
        for item in chart.legend:
            rows.setdefault(item.y, []).append(item)
        self.assertGreater(len(rows), 1)
        for items in rows.values():
            ends = [i.x + (22 if i.kind == 'line' else 14) + len(i.label) * charts.LEGEND_CHAR_W for i in items]
            self.assertTrue(all(end <= nxt.x for end, nxt in zip(ends, items[1:])))
            self.assertLessEqual(ends[-1], chart.width)
        self.assertGreaterEqual(chart.plot_y, max(rows) + 10)

    def test_labels_of_close_limits_are_staggered_not_overlapping(self):
        load = _load([_host('cmp-1', cpu=10.0)], lb_overload_threshold=80.0, lb_target_max_load=79.0,
                     lb_ceilings={'cpu': 80.5, 'ram': 81.0, 'net': None})
        svg = charts.render(charts.layout(load), 'agg-a')
        ys = sorted(limit_label_ys(svg))
        self.assertEqual(4, len(ys))
        self.assertTrue(all(b - a >= charts.LABEL_GAP - 0.01 for a, b in zip(ys, ys[1:])), ys)
        self.assertLess(abs(ys[0] - (charts.y_of(81.0) + 3)), charts.LABEL_GAP)

    def test_labels_near_zero_are_pushed_up_not_below_the_plot(self):
        load = _load([_host('cmp-1', cpu=10.0)], lb_overload_threshold=1.0, lb_target_max_load=0.0,
                     lb_ceilings={'cpu': 0.5, 'ram': None})
        ys = sorted(ln.label_y for ln in charts.layout(load).lines)
        self.assertLessEqual(ys[-1], charts.y_of(0) + 3)
        self.assertTrue(all(b - a >= charts.LABEL_GAP for a, b in zip(ys, ys[1:])), ys)

    def test_distant_limit_labels_stay_beside_their_lines(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=10.0)], lb_target_max_load=60.0,
                                    lb_ceilings={'cpu': 95.0, 'ram': 30.0}))
        self.assertEqual(4, len(chart.lines))
        self.assertTrue(all(ln.label_y == ln.y + 3 for ln in chart.lines))

    def test_hugepages_are_not_drawn_when_no_host_reports_them(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=10.0)], lb_ceilings={'cpu': None, 'hugepages': 50.0}))
        svg = charts.render(chart, 'agg-a')
        self.assertNotIn('keyvrm-bar-hugepages', svg)
        self.assertNotIn('hugepages', ''.join(legend_labels(svg, 'bar') + legend_labels(svg, 'line')))
        self.assertEqual(4, len(chart.bars))

    def test_hugepages_bars_and_ceiling_are_drawn_for_hosts_that_report_them(self):
        chart = charts.layout(_load([_host('cmp-1', cpu=10.0, hugepages=75.0), _host('cmp-2', cpu=20.0),
                                     _host('cmp-3', cpu=5.0, hugepages=None)],
                                    lb_ceilings={'cpu': None, 'hugepages': 90.0}))
        hugepages = {b.host: b for b in chart.bars if b.metric == 'hugepages'}
        self.assertEqual({'cmp-1', 'cmp-3'}, set(hugepages))  # cmp-2 has no HugePages pools
        self.assertAlmostEqual(charts.PLOT_H * 0.75, hugepages['cmp-1'].height)
        svg = charts.render(chart, 'agg-a')
        self.assertEqual(2, svg.count('class="keyvrm-bar keyvrm-bar-hugepages"'))
        self.assertIn('cmp-3: hugepages missing', svg)
        self.assertIn('hugepages', legend_labels(svg, 'bar'))
        self.assertIn('hugepages ceiling 90%', legend_labels(svg, 'line'))
        self.assertIn('hugepages ceiling 90%', svg)
