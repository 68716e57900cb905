"""The aggregate page's load chart: SVG geometry of per-host bars and limit lines, server-rendered.

A host is a group of bars (cpu, ram, net, syn_score, and hugepages when the API reports it)
on a scale from 0 to 100 %, or higher when a value is (a host at 227 % is drawn at 227 %,
never cut at 100); the overload threshold, target max and the set ceilings are horizontal
lines whose labels are staggered so that they never overlap. A legend above the plot shows
every bar colour, each line's style and value, and the overloaded-host mark. Every host is
drawn, the most loaded first by syn_score (the page scrolls the chart sideways), and
``table_rows`` gives the same numbers in the same order for the table beside it.
"""

import dataclasses
import math

from django.utils.html import format_html
from django.utils.html import format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

SERIES = (('cpu', 'CPU', '#1f77b4'), ('ram', 'RAM', '#2ca02c'), ('net', _("net"), '#9467bd'),
          ('syn_score', 'syn_score', '#ff7f0e'))
HUGEPAGES = ('hugepages', _("hugepages"), '#e377c2')  # drawn only when the API reports it (hosts with pools)
BAR_W = 7
LEFT, TOP, PLOT_H, BOTTOM = 44, 22, 200, 70  # plot coordinates; the legend sits above, the plot shifted below it
LIMITS = (('lb_overload_threshold', _("threshold"), '#d62728', '6 3'),
          ('lb_target_max_load', _("target max"), '#8c564b', '2 2'))
CEILINGS = (('cpu', _("CPU ceiling"), '#1f77b4'), ('ram', _("RAM ceiling"), '#2ca02c'),
            ('net', _("net ceiling"), '#9467bd'), ('hugepages', _("hugepages ceiling"), '#e377c2'))
CEILING_DASH = '1 3'
OVERLOADED = (_("overloaded host"), '#d62728')
LABEL_GAP = 11  # px between the baselines of two limit labels (font-size 10)
RIGHT = 120  # px right of the plot for the limit labels
LEGEND_ROW_H, LEGEND_CHAR_W, LEGEND_GAP = 16, 6.5, 14


@dataclasses.dataclass(frozen=True)
class Bar:
    host: str
    metric: str
    label: str
    value: object  # % or None (missing: no bar)
    x: float
    y: float
    height: float
    color: str


@dataclasses.dataclass(frozen=True)
class Line:
    label: str
    value: float
    y: float
    color: str
    dash: str
    label_y: float  # baseline of its label right of the plot, staggered so that no two labels overlap


@dataclasses.dataclass(frozen=True)
class LegendItem:
    kind: str  # 'bar', 'line' or 'mark': what its swatch is
    label: str
    color: str
    dash: str
    x: float
    y: float  # top of the swatch


@dataclasses.dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_y: int  # the plot's offset below the legend
    series: tuple  # (metric, label, colour) drawn per host
    hosts: tuple  # (host item, x of its group, overloaded)
    bars: tuple
    lines: tuple
    legend: tuple
    top_pct: float = 100.0  # the scale's top: 100, or above the highest value drawn
    grid_step_pct: float = 25.0


def y_of(pct, top_pct=100.0):
    """The y of ``pct`` % on a plot whose top is ``top_pct`` % (below 0 is drawn at 0)."""
    return TOP + PLOT_H * (1 - max(pct, 0.0) / top_pct)


def scale_of(values):
    """(top %, grid step %) of a scale that shows every one of ``values``: 100 and 25, or more when one is higher."""
    highest = max([v for v in values if v is not None] + [100.0])
    step = 25.0 * math.ceil(highest / 200.0)  # at most 8 grid lines
    return step * math.ceil(highest / step), step


def has_hugepages(hosts):
    """Whether any host reports hugepages (the API leaves the field out for hosts without HugePages pools)."""
    return any('hugepages' in host for host in hosts)


def staggered(ys, gap=LABEL_GAP, lowest=None):
    """Label baselines as near ``ys`` (ascending) as they can be with ``gap`` between two and none below ``lowest``."""
    out = []
    for y in ys:
        out.append(max(y, out[-1] + gap) if out else y)
    if lowest is not None:
        for i in reversed(range(len(out))):
            out[i] = min(out[i], lowest if i == len(out) - 1 else out[i + 1] - gap)
    return out


def ranked(hosts):
    """The hosts the most loaded first (by syn_score, then name): the order of the chart and of its table."""
    return sorted(hosts, key=lambda h: (-(h.get('syn_score') or 0.0), h['host']))


def _limits(load, metrics):
    """(value, label, colour, dash) of the threshold, target max and the set ceilings of drawn metrics."""
    found = [(load[key], str(label), color, dash) for key, label, color, dash in LIMITS]
    ceilings = load.get('lb_ceilings') or {}
    found += [(ceilings[key], str(label), color, CEILING_DASH) for key, label, color in CEILINGS
              if key in metrics and ceilings.get(key) is not None]
    return found


def _lines(found, top_pct):
    """The limit lines, top to bottom, labels staggered."""
    found = sorted(found, key=lambda item: (y_of(item[0], top_pct), item[1]))
    label_ys = staggered([y_of(item[0], top_pct) + 3 for item in found], lowest=y_of(0, top_pct) + 3)
    return tuple(Line(label, value, y_of(value, top_pct), color, dash, label_y)
                 for (value, label, color, dash), label_y in zip(found, label_ys))


def _legend(series, lines, width):
    """Swatches of the bars (first row), then of the lines and the overloaded mark, wrapped to ``width``."""
    items, x, y = [], LEFT, 4
    entries = [('bar', str(label), color, '') for _metric, label, color in series]
    entries += [('line', '%s %g%%' % (ln.label, ln.value), ln.color, ln.dash) for ln in lines]
    entries += [('mark', str(OVERLOADED[0]), OVERLOADED[1], '')]
    for i, (kind, label, color, dash) in enumerate(entries):
        swatch = 22 if kind == 'line' else 14
        item_w = swatch + len(label) * LEGEND_CHAR_W + LEGEND_GAP
        first_line = kind != 'bar' and entries[i - 1][0] == 'bar'
        if x > LEFT and (first_line or x + item_w > width - 4):
            x, y = LEFT, y + LEGEND_ROW_H
        items.append(LegendItem(kind, label, color, dash, x, y))
        x += item_w
    return tuple(items), y + LEGEND_ROW_H


def layout(load):
    """Where every bar, limit line and legend entry of ``load`` (the API's aggregate_load) goes."""
    hosts = ranked(load['hosts'])
    series = SERIES + ((HUGEPAGES,) if has_hugepages(hosts) else ())
    limits = _limits(load, {item[0] for item in series})
    top_pct, step = scale_of([host.get(item[0]) for host in hosts for item in series]
                             + [item[0] for item in limits])
    group_w = BAR_W * len(series) + 8
    groups, bars = [], []
    for i, host in enumerate(hosts):
        x0 = LEFT + 6 + i * group_w
        groups.append((host, x0, bool(host.get('overloaded'))))
        for j, (metric, label, color) in enumerate(series):
            if metric not in host:
                continue  # hugepages of a host without pools: nothing to draw
            value = host[metric]
            top = y_of(value, top_pct) if value is not None else y_of(0, top_pct)
            bars.append(Bar(host['host'], metric, label, value, x0 + j * BAR_W, top, y_of(0, top_pct) - top, color))
    lines = _lines(limits, top_pct)
    width = max(420, LEFT + 12 + len(hosts) * group_w + RIGHT)
    legend, plot_y = _legend(series, lines, width)
    return Chart(width, plot_y + TOP + PLOT_H + BOTTOM, plot_y, series, tuple(groups), tuple(bars), lines, legend,
                 top_pct, step)


def _cell(host, metric):
    """One number of the table: rounded to 0.1 %, flagged above 100 %, 'no pools' for hugepages without pools."""
    if metric not in host:
        return {'metric': metric, 'text': gettext("no pools"), 'above_100': False, 'title': ''}
    value = host[metric]
    if value is None:
        return {'metric': metric, 'text': '-', 'above_100': False, 'title': gettext("missing")}
    return {'metric': metric, 'text': '%.1f' % value, 'above_100': value > 100.0, 'title': '%g %%' % value}


def table_rows(load):
    """The chart's numbers as table rows, in the chart's order: host, cells (cpu, ram, net, [hugepages], syn_score)."""
    metrics = ('cpu', 'ram', 'net') + (('hugepages',) if has_hugepages(load['hosts']) else ()) + ('syn_score',)
    return [{'host': host['host'], 'cells': [_cell(host, metric) for metric in metrics],
             'vm_count': host.get('vm_count'), 'overloaded': bool(host.get('overloaded')),
             'causes': list(host.get('causes') or ())} for host in ranked(load['hosts'])]


def _num(value):
    return '%.2f' % value


def _pct_text(value):
    return gettext("missing") if value is None else '%g %%' % value


def _legend_svg(item):
    text = format_html('<text class="keyvrm-legend-label" x="{}" y="{}" font-size="11">{}</text>',
                       item.x + (22 if item.kind == 'line' else 14), item.y + 9, item.label)
    if item.kind == 'bar':
        swatch = format_html('<rect class="keyvrm-legend-bar" x="{}" y="{}" width="10" height="10" fill="{}"/>',
                             item.x, item.y, item.color)
    elif item.kind == 'line':
        swatch = format_html('<line class="keyvrm-legend-line" x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" '
                             'stroke-dasharray="{}" stroke-width="1.5"/>', item.x, item.x + 18, item.y + 5,
                             item.y + 5, item.color, item.dash)
    else:
        swatch = format_html('<text class="keyvrm-legend-mark" x="{}" y="{}" font-size="12" fill="{}">&#9650;'
                             '</text>', item.x, item.y + 10, item.color)
    return format_html('<g class="keyvrm-legend-item">{}{}</g>', swatch, text)


def render(chart, aggregate):
    """The chart as inline SVG markup (escaped), with title, desc, a legend and a tooltip on every bar."""
    plot_right = chart.width - RIGHT
    ticks = [chart.grid_step_pct * i for i in range(int(round(chart.top_pct / chart.grid_step_pct)) + 1)]
    grid = format_html_join('', '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}"/>'
                            '<text x="{}" y="{}" font-size="10" text-anchor="end">{}%</text>',
                            ((LEFT, plot_right, _num(y_of(p, chart.top_pct)), _num(y_of(p, chart.top_pct)),
                              '#999' if p == 100 else '#ddd', LEFT - 4, _num(y_of(p, chart.top_pct) + 3), '%g' % p)
                             for p in ticks))
    bars = format_html_join('', '<rect class="keyvrm-bar keyvrm-bar-{}" x="{}" y="{}" width="{}" '
                            'height="{}" fill="{}"><title>{}: {} {}</title></rect>',
                            ((b.metric, b.x, _num(b.y), BAR_W - 1, _num(b.height), b.color, b.host, b.label,
                              _pct_text(b.value)) for b in chart.bars))
    labels = format_html_join('', '<text class="{}" x="{}" y="{}" font-size="10" '
                              'transform="rotate(45 {} {})" fill="{}">{}<title>{}: {}</title></text>',
                              (('keyvrm-host-overloaded' if hot else 'keyvrm-host', x, TOP + PLOT_H + 12, x,
                                TOP + PLOT_H + 12, '#d62728' if hot else '#333', host['host'], host['host'],
                                gettext("overloaded") if hot else gettext("not overloaded"))
                               for host, x, hot in chart.hosts))
    group_mid = BAR_W * len(chart.series) / 2
    marks = format_html_join('', '<text class="keyvrm-overload-mark" x="{}" y="{}" font-size="12" '
                             'fill="#d62728" text-anchor="middle">&#9650;<title>{}: {}</title></text>',
                             ((x + group_mid, TOP - 4, host['host'], '; '.join(host.get('causes', ())))
                              for host, x, hot in chart.hosts if hot))
    lines = format_html_join('', '<line class="keyvrm-limit" x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" '
                             'stroke-dasharray="{}" stroke-width="1.5"/><text class="keyvrm-limit-label" x="{}" '
                             'y="{}" font-size="10" fill="{}">{} {}%</text>',
                             ((LEFT, plot_right, _num(ln.y), _num(ln.y), ln.color, ln.dash, plot_right + 4,
                               _num(ln.label_y), ln.color, ln.label, '%g' % ln.value) for ln in chart.lines))
    legend = format_html_join('', '{}', ((_legend_svg(item),) for item in chart.legend))
    measures = ', '.join(str(item[1]) for item in chart.series)
    title = gettext("Load of %(aggregate)s per host") % {'aggregate': aggregate}
    desc = gettext("%(measures)s of each host in %%, the most loaded first, on a scale to %(top)s %%, with the overload"
                   " threshold, the target max and the resource ceilings as lines; overloaded hosts marked.") % {
        'measures': measures, 'top': '%g' % chart.top_pct}
    return format_html(
        '<svg id="keyvrm-load-chart" xmlns="http://www.w3.org/2000/svg" role="img" width="{}" height="{}" '
        'viewBox="0 0 {} {}" aria-labelledby="keyvrm-load-chart-title keyvrm-load-chart-desc">'
        '<title id="keyvrm-load-chart-title">{}</title><desc id="keyvrm-load-chart-desc">{}</desc>'
        '<g class="keyvrm-legend">{}</g><g class="keyvrm-plot" transform="translate(0 {})">{}{}{}{}{}</g></svg>',
        chart.width, chart.height, chart.width, chart.height, title, desc, legend,
        chart.plot_y, grid, lines, bars, labels, marks)
