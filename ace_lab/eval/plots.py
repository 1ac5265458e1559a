"""Figures of the results notebooks: forest plots of scores with intervals, and the router.

Each function takes the tables of ``ace_lab.eval.tables`` / ``ace_lab.eval.ace_tables`` (one
:class:`Panel` per data set) and returns a matplotlib figure; notebooks save it with
``viz.save_figure``. A figure without data gets a placeholder panel naming the command that
makes the data, so a notebook always renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.ace.policy import TOPOLOGIES, TOPOLOGY_NAMES
from ace_lab.eval.ace_tables import adaptive_runs
from ace_lab.eval.report import placeholder

#: Marker colours of the metrics in :func:`forest_plot`, in metric order.
METRIC_COLOURS = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b")
#: Bar colours of the router topologies (Figure 2a).
TOPOLOGY_COLOURS = dict(zip(TOPOLOGIES, ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"], strict=True))


class Panel(NamedTuple):
    """One data set's panel: its label, answering model and table (a ``method`` and ``n``
    column, and the scores the plot draws)."""

    label: str
    model: str
    table: pd.DataFrame

    @property
    def title(self) -> str:
        return f"{self.label} (n = {int(self.table['n'].max())}, {self.model})"


def _forest_axes(
    panels: Sequence[Panel], n_rows: int, panel_width: float
) -> tuple[plt.Figure, list[plt.Axes]]:
    """One row of panels sharing the y-axis (one placeholder panel when there is no data)."""
    count = max(len(panels), 1)
    size = (max(6.5, panel_width * count), 0.42 * n_rows + 1.6 if panels else 2.5)
    fig, axes = plt.subplots(1, count, figsize=size, squeeze=False, sharey=True)
    return fig, list(axes[0])


def _finish_panel(ax: plt.Axes, rows: Sequence[str], xlabel: str, title: str) -> None:
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
    xlabel: str = "score (95% bootstrap CI)",
) -> plt.Figure:
    """Means with their 95% intervals (``<metric>``, ``<metric>_low``, ``<metric>_high``
    columns, as :func:`~ace_lab.eval.tables.main_table` has) per method, one panel per data
    set; methods run down the y-axis in the order given, one without results is left blank.
    ``command`` is what the empty figure says makes the results."""
    fig, axes = _forest_axes(panels, len(methods), 4.6)
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
        _finish_panel(ax, methods, xlabel, panel.title)
    axes[0].invert_yaxis()
    axes[-1].legend(loc="lower right", frameon=False)
    fig.tight_layout()
    return fig


def ablation_plot(
    panels: Sequence[Panel],
    *,
    full: str = "ace-full",
    adaptive: str | Sequence[str] = "ace-adaptive",
    command: str = "ace-lab run ...",
) -> plt.Figure:
    """F1 per configuration of :func:`~ace_lab.eval.ace_tables.ablation_report` tables.

    Circles: mean F1 with its 95% interval; diamonds: no interval (the oracle, a hindsight
    choice); the shuffled router's bar is ± one sd over permutations; a dashed line marks
    ``full``'s F1, and a row without a score says ``missing``. Rows follow the first table.
    """
    rows = list(panels[0].table["method"]) if panels else []
    fig, axes = _forest_axes(panels, len(rows), 4.8)
    if not panels:
        placeholder(axes[0], f"no results yet; make them with\n{command}")
        fig.tight_layout()
        return fig
    colour = {full: "#333333", "oracle best fixed": "#9c755f"}
    colour |= dict.fromkeys(adaptive_runs(adaptive), "#e15759")
    for ax, panel in zip(axes, panels, strict=True):
        for i, row in enumerate(panel.table.to_dict("records")):
            shuffled = row["method"].startswith("shuffled router")
            c = "#9c755f" if shuffled else colour.get(row["method"], "#4e79a7")
            if pd.isna(row["F1"]):
                ax.text(0.01, i, "missing", va="center", fontsize=8, color="#999999")
            elif shuffled:
                ax.errorbar(row["F1"], i, xerr=row["F1_sd"], fmt="s", ms=5, capsize=3, color=c)
            elif row["method"] == "oracle best fixed" or pd.isna(row["F1_low"]):
                ax.plot(row["F1"], i, "D", ms=6, color=c)
            else:
                err = [[row["F1"] - row["F1_low"]], [row["F1_high"] - row["F1"]]]
                ax.errorbar(row["F1"], i, xerr=err, fmt="o", ms=5, capsize=3, color=c)
        full_row = panel.table.set_index("method").loc[full]
        if not pd.isna(full_row["F1"]):
            ax.axvline(full_row["F1"], color="#333333", lw=0.8, ls="--", alpha=0.6)
        _finish_panel(ax, rows, "F1 (95% bootstrap CI)", panel.title)
    axes[0].invert_yaxis()
    fig.tight_layout()
    return fig


def _router_shares(ax: plt.Axes, distributions: Mapping[str, pd.DataFrame]) -> None:
    """Figure 2a: one stacked bar of topology shares per data set, counts on the bars."""
    labels = list(distributions)
    for i, label in enumerate(labels):
        left = 0.0
        dist = distributions[label].set_index("topology")
        for topology in TOPOLOGIES:
            share = float(dist.loc[topology, "share"]) if topology in dist.index else 0.0
            name = f"{topology} ({TOPOLOGY_NAMES[topology]})"
            ax.barh(
                i,
                share,
                left=left,
                color=TOPOLOGY_COLOURS[topology],
                label=name if i == 0 else None,
            )
            if share >= 0.08:
                ax.text(
                    left + share / 2,
                    i,
                    str(int(dist.loc[topology, "count"])),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white",
                )
            left += share
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of questions")
    ax.legend(fontsize=7, ncols=2, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)


def _router_changes(
    ax: plt.Axes, changes: Mapping[str, pd.DataFrame], adaptive: str, full: str
) -> None:
    """Figure 2b: Adaptive minus Full F1 per topology, one bar per data set, n above each."""
    groups = [*TOPOLOGIES, "all"]
    width = 0.8 / len(changes)
    for j, (label, change) in enumerate(changes.items()):
        table = change.set_index("topology").reindex(groups)
        diff = table["diff"].to_numpy(dtype=float)
        n = table["n"].fillna(0).astype(int).to_numpy()
        x = np.arange(len(groups)) + (j - (len(changes) - 1) / 2) * width
        ax.bar(x, np.nan_to_num(diff), width=width, label=label)
        for xi, d, k in zip(x, diff, n, strict=True):
            y = 0.0 if np.isnan(d) else d
            ax.annotate(
                f"n={k}",
                (xi, y),
                xytext=(0, 3 if y >= 0 else -10),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
    ax.axhline(0, color="#333333", lw=0.8)
    ax.margins(y=0.2)  # room for the n labels
    ax.set_xticks(
        range(len(groups)),
        [f"{g}\n({TOPOLOGY_NAMES[g]})" if g in TOPOLOGY_NAMES else g for g in groups],
        fontsize=8,
    )
    ax.set_ylabel(f"F1 {adaptive} − {full}")
    ax.legend(fontsize=7, frameon=False)


def router_figure(
    distributions: Mapping[str, pd.DataFrame],
    changes: Mapping[str, pd.DataFrame],
    *,
    adaptive: str = "ace-adaptive",
    full: str = "ace-full",
    commands: tuple[str, str] = ("ace-lab run ...", "ace-lab run ..."),
) -> plt.Figure:
    """ACE Figure 2: (a) the router's topology shares per data set
    (:func:`~ace_lab.eval.ace_tables.router_distribution` tables by data set label); (b)
    Adaptive minus Full F1 per topology (:func:`~ace_lab.eval.ace_tables.f1_change_by_topology`
    tables). ``commands`` make the missing runs of an empty (a) and (b)."""
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(12, max(4.0, 0.5 * len(distributions) + 3)))
    if distributions:
        _router_shares(ax_a, distributions)
    else:
        placeholder(ax_a, f"no Adaptive-ACE results; make them with\n{commands[0]}")
    ax_a.set_title("(a) router label distribution", fontsize=10)
    if changes:
        _router_changes(ax_b, changes, adaptive, full)
    else:
        placeholder(
            ax_b,
            f"no questions answered by both {adaptive} and {full}; make them with\n{commands[1]}",
        )
    ax_b.set_title("(b) F1 change of Adaptive vs Full per router label", fontsize=10)
    fig.tight_layout()
    return fig
