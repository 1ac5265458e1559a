"""Figures of the results notebooks: forest plots of scores with intervals, one panel per data set.

Each function takes tables of ``ace_lab.eval.reporting.tables`` (one :class:`Panel` per data set)
and returns a matplotlib figure; notebooks save it with ``viz.save_figure``. A figure without data
gets a placeholder panel naming the command that makes the data, so a notebook always renders.
:func:`forest_axes` and :func:`finish_panel` are the building blocks of a method's own forest
figures (ACE's ablation figure is in ``ace_lab.ace.report``). Figures are two columns wide, rows
and titles show display names (``ace_lab.viz.names``), and a row a data set has no score for
says "n/a" there instead of leaving a gap that reads as a zero.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.eval.reporting.report import placeholder
from ace_lab.viz.names import dataset_name, display_name
from ace_lab.viz.sizes import MIN_FONT_PT, paper_figure, paper_style

#: Marker colours of the metrics in :func:`forest_plot`, in metric order.
METRIC_COLOURS = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b")
#: What a row without a score says in its panel.
MISSING = "n/a (no run)"


class Panel(NamedTuple):
    """One data set's panel: its label, answering model and table (a ``method`` and ``n``
    column, and the scores the plot draws)."""

    label: str
    model: str
    table: pd.DataFrame

    @property
    def title(self) -> str:
        """The data set's display name, then its size and model on a second line (panels
        sit side by side in two columns: one line would run into the next panel's)."""
        n = int(self.table["n"].max())
        return f"{dataset_name(self.label)}\n(n = {n}, {self.model})"


def forest_axes(panels: Sequence[Panel], n_rows: int) -> tuple[plt.Figure, list[plt.Axes]]:
    """A two-column figure with one row of panels sharing the y-axis, tall enough for
    ``n_rows`` rows (one panel, for a placeholder, when there is no data)."""
    count = max(len(panels), 1)
    height = 0.19 * n_rows + 1.1 if panels else 2.0
    fig, axes = paper_figure(
        2, height, ncols=count, squeeze=False, sharey=True, layout="constrained"
    )
    return fig, list(axes[0])


def finish_panel(
    ax: plt.Axes,
    rows: Sequence[str],
    xlabel: str,
    title: str,
    name: Callable[[str], str] = display_name,
) -> None:
    """Label a forest panel: ``rows`` (ids, shown by ``name``: their display names) down the
    y-axis, scores 0–1 on the x-axis, a grid; ``xlabel`` under the first panel only (they share
    it)."""
    ax.set_yticks(np.arange(len(rows)), [name(r) for r in rows])
    ax.set_xlim(0, 1)
    ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax.set_xticks([0.25, 0.75], minor=True)
    if ax.get_subplotspec().is_first_col():
        ax.set_xlabel(xlabel, loc="left")
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)


def mark_missing(ax: plt.Axes, rows: Sequence[int]) -> None:
    """Say :data:`MISSING` on each row index in ``rows`` of a forest panel."""
    for i in rows:
        ax.text(0.03, i, MISSING, va="center", fontsize=MIN_FONT_PT, color="#757575")


@paper_style()
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
    fig, axes = forest_axes(panels, len(methods))
    if not panels:
        placeholder(axes[0], f"no results yet; make them with\n{command}")
        return fig
    y = np.arange(len(methods))
    step = 0.3  # the metrics of one method sit side by side around its row
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
                ms=3,
                capsize=1.5,
                elinewidth=0.8,
                color=colour,
                label=metric if ax is axes[0] else None,
                clip_on=False,  # a score of exactly 0 sits on the axis, still visible
            )
        mark_missing(ax, np.flatnonzero(table[metrics[0]].isna().to_numpy()))
        finish_panel(ax, methods, xlabel, panel.title)
    axes[0].invert_yaxis()
    fig.legend(loc="outside lower right", ncols=len(metrics), frameon=False)
    return fig
