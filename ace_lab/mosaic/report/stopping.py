"""MOSAIC's cumulative-gain stopping (notebook 05), read from a trace's typed steps.

- :func:`stopping_curve`: one query's novelty gain and evidence completeness per depth (its
  :class:`~ace_lab.mosaic.steps.TraversalDepth` steps), with its completeness threshold, the
  low-gain floor and the depth it stopped at (:class:`~ace_lab.mosaic.steps.ExplorationStop`);
- :func:`stopping_figure`: those curves for a few queries, side by side.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd

from ace_lab.evidence import Trace
from ace_lab.mosaic.policy import GAIN_LOW, STOP_THRESHOLDS
from ace_lab.mosaic.report.steps import payload, payloads
from ace_lab.mosaic.steps import ExplorationChoice, ExplorationStop, TraversalDepth
from ace_lab.viz.sizes import paper_figure, paper_style

CURVE_COLUMNS = [
    "depth",
    "scored",
    "kept",
    "pruned",
    "connectors",
    "gain",
    "completeness",
    "threshold",
    "gain_low",
    "stop",
]
#: Characters of a title line (9 pt) two columns wide.
TITLE_CHARS = 100


def stopping_curve(trace: Trace) -> pd.DataFrame:
    """Per depth of one MOSAIC answer: paths scored, kept, pruned and kept connectors, novelty
    gain and evidence completeness, the completeness threshold and the low-gain floor the stop
    rule compared them with, and ``stop`` (the stop reason on the last depth, else empty).
    Empty for a trace recorded before steps carried typed payloads."""
    choice = payload(trace, ExplorationChoice)
    setting = (choice.policy if choice else {}).get("stop_threshold", "medium")
    threshold = STOP_THRESHOLDS.get(setting, STOP_THRESHOLDS["medium"])
    rows = [
        {
            "depth": d.depth,
            "scored": d.candidates,
            "kept": len(d.kept),
            "pruned": d.pruned_count,
            "connectors": d.connectors,
            "gain": d.gain,
            "completeness": d.completeness,
            "threshold": threshold,
            "gain_low": GAIN_LOW,
            "stop": "",
        }
        for d in payloads(trace, TraversalDepth)
    ]
    stop = payload(trace, ExplorationStop)
    if rows and stop is not None:
        rows[-1]["stop"] = stop.reason
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


@paper_style()
def stopping_figure(traces: Mapping[str, Trace], title: str = "") -> plt.Figure:
    """Gain (left) and completeness (right) per depth, one line per query (``traces``: label →
    trace), two columns wide. The gain panel marks the low-gain floor; the completeness panel
    each query's threshold (dashed, its colour); an ✕ marks the depth each query stopped at,
    its reason in the legend below the panels."""
    rows = max(len(traces), 1)
    height = 2.4 + 0.14 * rows  # the legend below grows a line per query
    fig, (left, right) = paper_figure(2, height, ncols=2, sharex=True, layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    depths: set[int] = set()
    for i, (label, trace) in enumerate(traces.items()):
        curve = stopping_curve(trace)
        if curve.empty:
            continue
        colour = colours[i % len(colours)]
        reason = curve["stop"].iloc[-1] or "?"
        depths.update(int(d) for d in curve["depth"])
        for ax, column in ((left, "gain"), (right, "completeness")):
            legend = f"{label} (stop: {reason})" if ax is right else None
            ax.plot(curve["depth"], curve[column], "o-", color=colour, label=legend)
            ax.plot(curve["depth"].iloc[-1], curve[column].iloc[-1], "X", color=colour, ms=7)
        right.axhline(curve["threshold"].iloc[0], color=colour, ls="--", lw=0.8)
    left.axhline(GAIN_LOW, color="#777777", ls=":", lw=1, label=f"low gain < {GAIN_LOW}")
    left.set_ylabel("novelty gain")
    right.set_ylabel("evidence completeness")
    for ax in (left, right):
        ax.set_xlabel("depth")
        ax.set_ylim(-0.02, 1.05)
        if depths:
            ax.set_xticks(sorted(depths))
    left.legend(frameon=False, loc="upper right")
    handles, labels = right.get_legend_handles_labels()
    if handles:  # the questions under both panels, where they hide no curve
        fig.legend(handles, labels, loc="outside lower center", frameon=False)
    heading = title or (
        "Cumulative-gain stopping:\nstop after the minimum depth when gain is low and "
        "completeness ≥ threshold (dashed)"
    )
    lines = (textwrap.wrap(line, TITLE_CHARS) for line in heading.splitlines())
    fig.suptitle("\n".join(part for line in lines for part in line))
    return fig
