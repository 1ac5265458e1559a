"""Figures of the results notebooks: forest plots of scores with intervals, one panel per data set.

Each function takes tables of ``ace_lab.eval.reporting.tables`` (one :class:`Panel` per data set)
and returns a matplotlib figure; notebooks save it with ``viz.save_figure``. A figure without data
gets a placeholder panel naming the command that makes the data, so a notebook always renders.
:func:`forest_axes` and :func:`finish_panel` are the building blocks of a method's own forest
figures (ACE's ablation figure is in ``ace_lab.ace.report``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.eval.reporting.report import placeholder

#: Marker colours of the metrics in :func:`forest_plot`, in metric order.
METRIC_COLOURS = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b")


class Panel(NamedTuple):
    """One data set's panel: its label, answering model and table (a ``method`` and ``n``
    column, and the scores the plot draws)."""

    label: str
    model: str
    table: pd.DataFrame

    @property
    def title(self) -> str:
        return f"{self.label} (n = {int(self.table['n'].max())}, {self.model})"


def forest_axes(
    panels: Sequence[Panel], n_rows: int, panel_width: float
) -> tuple[plt.Figure, list[plt.Axes]]:
    """A figure with one row of panels sharing the y-axis, sized for ``n_rows`` rows of
    ``panel_width`` inches each (one panel, for a placeholder, when there is no data)."""
    count = max(len(panels), 1)
    size = (max(6.5, panel_width * count), 0.42 * n_rows + 1.6 if panels else 2.5)
    fig, axes = plt.subplots(1, count, figsize=size, squeeze=False, sharey=True)
    return fig, list(axes[0])


def finish_panel(ax: plt.Axes, rows: Sequence[str], xlabel: str, title: str) -> None:
    """Label a forest panel: ``rows`` down the y-axis, scores 0–1 on the x-axis, a grid."""
    ax.set_yticks(np.arange(len(rows)), rows)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)


def forest_plot(
    panels: Sequence[Panel],
    methods: Sequence[str],
    *,
    metrics: Sequence[str] = ("EM", "F1"),
    command: str = "ace-lab run ...",
    xlabel: str = "score (95% CI)",
) -> plt.Figure:
    """Means with their 95% intervals (``<metric>``, ``<metric>_low``, ``<metric>_high``
    columns, as :func:`~ace_lab.eval.reporting.tables.main_table` has) per method, one panel per
    data set; methods run down the y-axis in the order given, one without results is left blank.
    ``command`` is what the empty figure says makes the results."""
    fig, axes = forest_axes(panels, len(methods), 4.6)
    if not panels:
        placeholder(axes[0], f"no results yet; make them with\n{command}")
        fig.tight_layout()
        return fig
    y = np.arange(len(methods))
    step = 0.32  # the metrics of one method sit side by side around its row
    offsets = [(i - (len(metrics) - 1) / 2) * step for i in range(len(metrics))]
    for ax, panel in zip(axes, panels, strict=True):
        table = panel.table.set_index("method").reindex(methods)
        for offset, metric, colour in zip(offsets, metrics, METRIC_COLOURS, strict=False):
            mean = table[metric].to_numpy(dtype=float)
            low = mean - table[f"{metric}_low"].to_numpy(dtype=float)
            high = table[f"{metric}_high"].to_numpy(dtype=float) - mean
            ax.errorbar(
                mean,
                y + offset,
                xerr=[low, high],
                fmt="o",
                ms=5,
                capsize=3,
                color=colour,
                label=metric,
            )
        finish_panel(ax, methods, xlabel, panel.title)
    axes[0].invert_yaxis()
    axes[-1].legend(loc="lower right", frameon=False)
    fig.tight_layout()
    return fig
