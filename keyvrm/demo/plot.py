"""The demo's PNG: per-host syn_score before and after LB, and the evacuation timeline.

matplotlib is the ``keyvrm[demo]`` extra; without it the demo runs and writes no picture.
"""

from __future__ import annotations

from typing import Optional


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")  # before pyplot: no display
    from matplotlib import pyplot
    return pyplot


def write_plot(path: str, summary: dict) -> Optional[str]:
    """Draw the two panels from a demo summary into ``path``; the path, or None without matplotlib."""
    try:
        pyplot = _pyplot()
    except ImportError:
        return None
    figure, (bars, timeline) = pyplot.subplots(1, 2, figsize=(13, 5))
    lb = summary.get("lb")
    if lb:
        hosts = sorted(lb["before"])
        xs = range(len(hosts))
        bars.bar([x - 0.2 for x in xs], [lb["before"][h] or 0 for h in hosts], 0.4, label="at the LB run")
        bars.bar([x + 0.2 for x in xs], [lb["after"].get(h) or 0 for h in hosts], 0.4, label="at the end")
        bars.axhline(lb["threshold_pct"], color="red", linestyle="--", label="overload threshold")
        bars.set_xticks(list(xs), hosts, rotation=60, fontsize=7)
        bars.set_ylabel("syn_score %")
        bars.set_title("LB on %s" % lb["aggregate"])
        bars.legend(fontsize=8)
    else:
        bars.set_title("LB did not act")
    row = 0
    for host, evac in sorted(summary.get("evacuations", {}).items()):
        timeline.axvline(evac["died_at_s"] / 60.0, color="black", linestyle=":")
        for move in evac["evacuations"]:
            color = "tab:green" if move["status"] in ("done", "completed") else "tab:red"
            timeline.barh(row, (move["end_s"] - move["start_s"]) / 60.0, left=move["start_s"] / 60.0, color=color)
            timeline.text(move["end_s"] / 60.0, row, " %s -> %s" % (move["vm"][-4:], move["target"]),
                          va="center", fontsize=7)
            row += 1
        timeline.set_title("evacuation of %s (died at the dotted line)" % host)
    timeline.set_xlabel("simulated minutes")
    timeline.set_yticks([])
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path
