"""The aggregate page's load chart: SVG geometry of per-host bars and limit lines, server-rendered.

A host is a group of four bars (cpu, ram, net, syn_score) on a 0-100 % scale; the
overload threshold, target max and the cpu/ram ceilings are horizontal lines. At most
``MAX_HOSTS`` hosts are drawn, the most loaded first by syn_score; the rest are counted.
"""

import dataclasses

from django.utils.html import format_html
from django.utils.html import format_html_join

MAX_HOSTS = 50
SERIES = (('cpu', 'CPU', '#1f77b4'), ('ram', 'RAM', '#2ca02c'), ('net', 'net', '#9467bd'),
          ('syn_score', 'syn_score', '#ff7f0e'))
BAR_W = 7
GROUP_W = BAR_W * len(SERIES) + 8
LEFT, TOP, PLOT_H, BOTTOM = 44, 34, 200, 70
LIMITS = (('lb_overload_threshold', 'threshold', '#d62728', '6 3'),
          ('lb_target_max_load', 'target max', '#8c564b', '2 2'))
CEILINGS = (('cpu', 'CPU ceiling', '#1f77b4'), ('ram', 'RAM ceiling', '#2ca02c'))


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


@dataclasses.dataclass(frozen=True)
class Chart:
    width: int
    height: int
    hosts: tuple  # (host item, x of its group, overloaded)
    bars: tuple
    lines: tuple
    not_shown: int


def y_of(pct):
    """The y of ``pct`` % on the plot (100 % at the top; values outside 0-100 are clamped)."""
    return TOP + PLOT_H * (1 - min(max(pct, 0.0), 100.0) / 100.0)


def _shown(hosts, max_hosts):
    ranked = sorted(hosts, key=lambda h: (-(h.get('syn_score') or 0.0), h['host']))
    return sorted(ranked[:max_hosts], key=lambda h: h['host']), max(0, len(hosts) - max_hosts)


def layout(load, max_hosts=MAX_HOSTS):
    """Where every bar and limit line of ``load`` (the API's aggregate_load) goes."""
    hosts, not_shown = _shown(load['hosts'], max_hosts)
    groups, bars = [], []
    for i, host in enumerate(hosts):
        x0 = LEFT + 6 + i * GROUP_W
        groups.append((host, x0, bool(host.get('overloaded'))))
        for j, (metric, label, color) in enumerate(SERIES):
            value = host.get(metric)
            top = y_of(value) if value is not None else y_of(0)
            bars.append(Bar(host['host'], metric, label, value, x0 + j * BAR_W, top, y_of(0) - top, color))
    lines = [Line(label, load[key], y_of(load[key]), color, dash) for key, label, color, dash in LIMITS]
    ceilings = load.get('lb_ceilings') or {}
    lines += [Line(label, ceilings[key], y_of(ceilings[key]), color, '1 3')
              for key, label, color in CEILINGS if ceilings.get(key) is not None]
    width = max(420, LEFT + 12 + len(hosts) * GROUP_W + 110)
    return Chart(width, TOP + PLOT_H + BOTTOM, tuple(groups), tuple(bars), tuple(lines), not_shown)


def _num(value):
    return '%.2f' % value


def _pct_text(value):
    return 'missing' if value is None else '%g %%' % value


def render(chart, aggregate):
    """The chart as inline SVG markup (escaped), with title, desc and a tooltip on every bar."""
    plot_right = chart.width - 110
    grid = format_html_join('', '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#ddd"/>'
                            '<text x="{}" y="{}" font-size="10" text-anchor="end">{}%</text>',
                            ((LEFT, plot_right, y_of(p), y_of(p), LEFT - 4, y_of(p) + 3, p)
                             for p in (0, 25, 50, 75, 100)))
    bars = format_html_join('', '<rect class="keyvrm-bar keyvrm-bar-{}" x="{}" y="{}" width="{}" '
                            'height="{}" fill="{}"><title>{}: {} {}</title></rect>',
                            ((b.metric, b.x, _num(b.y), BAR_W - 1, _num(b.height), b.color, b.host, b.label,
                              _pct_text(b.value)) for b in chart.bars))
    labels = format_html_join('', '<text class="{}" x="{}" y="{}" font-size="10" '
                              'transform="rotate(45 {} {})" fill="{}">{}<title>{}: {}</title></text>',
                              (('keyvrm-host-overloaded' if hot else 'keyvrm-host', x, TOP + PLOT_H + 12, x,
                                TOP + PLOT_H + 12, '#d62728' if hot else '#333', host['host'], host['host'],
                                'overloaded' if hot else 'not overloaded') for host, x, hot in chart.hosts))
    marks = format_html_join('', '<text class="keyvrm-overload-mark" x="{}" y="{}" font-size="12" '
                             'fill="#d62728" text-anchor="middle">&#9650;<title>{}: {}</title></text>',
                             ((x + GROUP_W / 2 - 4, TOP - 4, host['host'], '; '.join(host.get('causes', ())))
                              for host, x, hot in chart.hosts if hot))
    lines = format_html_join('', '<line class="keyvrm-limit" x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" '
                             'stroke-dasharray="{}" stroke-width="1.5"/><text x="{}" y="{}" font-size="10" '
                             'fill="{}">{} {}%</text>',
                             ((LEFT, plot_right, _num(ln.y), _num(ln.y), ln.color, ln.dash, plot_right + 4,
                               _num(ln.y + 3), ln.color, ln.label, '%g' % ln.value) for ln in chart.lines))
    legend = format_html_join('', '<rect x="{}" y="6" width="10" height="10" fill="{}"/>'
                              '<text x="{}" y="15" font-size="11">{}</text>',
                              ((LEFT + i * 80, color, LEFT + i * 80 + 14, label)
                               for i, (_, label, color) in enumerate(SERIES)))
    note = ''
    if chart.not_shown:
        note = format_html('<text class="keyvrm-not-shown" x="{}" y="{}" font-size="11">{} more hosts not '
                           'shown (the {} most loaded by syn_score are)</text>', LEFT, chart.height - 4,
                           chart.not_shown, len(chart.hosts))
    return format_html(
        '<svg id="keyvrm-load-chart" xmlns="http://www.w3.org/2000/svg" role="img" width="{}" height="{}" '
        'viewBox="0 0 {} {}" aria-labelledby="keyvrm-load-chart-title keyvrm-load-chart-desc">'
        '<title id="keyvrm-load-chart-title">Load of {} per host</title>'
        '<desc id="keyvrm-load-chart-desc">CPU, RAM, net and syn_score of each host in %, with the overload '
        'threshold, the target max and the resource ceilings as lines; overloaded hosts marked.</desc>'
        '{}{}{}{}{}{}{}</svg>', chart.width, chart.height, chart.width, chart.height, aggregate,
        grid, legend, lines, bars, labels, marks, note)
