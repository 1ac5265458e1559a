"""ACE's figures: the ablations with the router controls (Table 3) and the router (Figure 2).

Each function takes tables of :mod:`ace_lab.ace.report.tables` (one
:class:`~ace_lab.eval.reporting.plots.Panel` per data set) and returns a matplotlib figure; a figure
without data gets a placeholder panel naming the command that makes the data. Both are two
columns wide (``ace_lab.viz.sizes``) and show display names (``ace_lab.viz.names``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.ace.policy import TOPOLOGIES, TOPOLOGY_NAMES
from ace_lab.ace.report.tables import adaptive_runs, shuffled_run
from ace_lab.eval.reporting.plots import Panel, finish_panel, forest_axes, mark_missing
from ace_lab.eval.reporting.report import placeholder
from ace_lab.viz.names import dataset_name, display_name
from ace_lab.viz.sizes import MIN_FONT_PT, paper_figure, paper_style

#: Bar colours of the router topologies (Figure 2a).
TOPOLOGY_COLOURS = dict(zip(TOPOLOGIES, ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"], strict=True))


def row_name(row: str) -> str:
    """An ablation table's row as the figure names it: a run by its display name, a shuffled
    router after the run whose labels it permutes ("shuffled router of Adaptive-ACE
    (few-shot)"), a control as it is ("oracle best fixed")."""
    run = shuffled_run(row)
    if run is None:
        return display_name(row)
    return f"shuffled router of {display_name(run)}" if run else "shuffled router"


@paper_style()
def ablation_plot(
    panels: Sequence[Panel],
    *,
    full: str = "ace-full",
    adaptive: str | Sequence[str] = "ace-adaptive",
    command: str = "ace-lab run ...",
) -> plt.Figure:
    """F1 per configuration of :func:`~ace_lab.ace.report.tables.ablation_report` tables.

    Circles: mean F1 with its 95% interval; diamonds: no interval (the oracle, a hindsight
    choice); the shuffled router's bar is ± one sd over permutations; a dashed line marks
    ``full``'s F1, and a row without a score says so (``plots.MISSING``). Rows follow the first
    table, then any row only a later table has (a study with runs the others lack).
    """
    rows = list(dict.fromkeys(m for panel in panels for m in panel.table["method"]))
    fig, axes = forest_axes(panels, len(rows))
    if not panels:
        placeholder(axes[0], f"no results yet; make them with\n{command}")
        return fig
    colour = {full: "#333333", "oracle best fixed": "#9c755f"}
    colour |= dict.fromkeys(adaptive_runs(adaptive), "#e15759")
    for ax, panel in zip(axes, panels, strict=True):
        for row in panel.table.to_dict("records"):
            i = rows.index(row["method"])
            shuffled = row["method"].startswith("shuffled router")
            c = "#9c755f" if shuffled else colour.get(row["method"], "#4e79a7")
            if pd.isna(row["F1"]):
                mark_missing(ax, [i])
            elif shuffled:
                ax.errorbar(row["F1"], i, xerr=row["F1_sd"], fmt="s", ms=3, capsize=2, color=c)
            elif row["method"] == "oracle best fixed" or pd.isna(row["F1_low"]):
                ax.plot(row["F1"], i, "D", ms=4, color=c, clip_on=False)
            else:
                err = [[row["F1"] - row["F1_low"]], [row["F1_high"] - row["F1"]]]
                ax.errorbar(row["F1"], i, xerr=err, fmt="o", ms=3, capsize=2, color=c)
        full_row = panel.table.set_index("method").loc[full]
        if not pd.isna(full_row["F1"]):
            ax.axvline(full_row["F1"], color="#333333", lw=0.8, ls="--", alpha=0.6)
        finish_panel(ax, rows, "F1 (95% bootstrap CI)", panel.title, row_name)
    axes[0].invert_yaxis()
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
                    fontsize=MIN_FONT_PT,
                    color="white",
                )
            left += share
    ax.set_yticks(range(len(labels)), [dataset_name(label) for label in labels])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of questions")
    ax.legend(ncols=2, loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)


def _router_changes(
    ax: plt.Axes, changes: Mapping[str, pd.DataFrame], adaptive: str, full: str
) -> None:
    """Figure 2b: Adaptive minus Full F1 per topology, one bar per data set, its n written
    upright beyond the bar's end (side by side, horizontal labels would run together); a
    topology no data set has a question of says ``n=0`` once."""
    groups = [*TOPOLOGIES, "all"]
    width = 0.8 / len(changes)
    counts = np.zeros(len(groups), dtype=int)
    for j, (label, change) in enumerate(changes.items()):
        table = change.set_index("topology").reindex(groups)
        diff = table["diff"].to_numpy(dtype=float)
        n = table["n"].fillna(0).astype(int).to_numpy()
        counts += n
        x = np.arange(len(groups)) + (j - (len(changes) - 1) / 2) * width
        ax.bar(x, np.nan_to_num(diff), width=width, label=dataset_name(label))
        for xi, d, k in zip(x, diff, n, strict=True):
            if k == 0:
                continue
            y = 0.0 if np.isnan(d) else d
            ax.annotate(
                f"n={k}",
                (xi, y),
                xytext=(0, 2 if y >= 0 else -2),
                textcoords="offset points",
                ha="center",
                va="bottom" if y >= 0 else "top",
                rotation=90,
                fontsize=MIN_FONT_PT,
            )
    for g in np.flatnonzero(counts == 0):
        ax.annotate("n=0", (g, 0), xytext=(0, 2), textcoords="offset points", ha="center")
    ax.axhline(0, color="#333333", lw=0.8)
    ax.margins(y=0.35)  # room for the upright n labels
    ax.set_xticks(
        range(len(groups)),
        [f"{g}\n({TOPOLOGY_NAMES[g]})" if g in TOPOLOGY_NAMES else g for g in groups],
    )
    ax.set_ylabel(f"F1 {display_name(adaptive)} − {display_name(full)}")
    ax.legend(ncols=len(changes), loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)


@paper_style()
def router_figure(
    distributions: Mapping[str, pd.DataFrame],
    changes: Mapping[str, pd.DataFrame],
    *,
    adaptive: str = "ace-adaptive",
    full: str = "ace-full",
    commands: tuple[str, str] = ("ace-lab run ...", "ace-lab run ..."),
) -> plt.Figure:
    """ACE Figure 2: (a) the router's topology shares per data set
    (:func:`~ace_lab.ace.report.tables.router_distribution` tables by data set label); (b)
    Adaptive minus Full F1 per topology (:func:`~ace_lab.ace.report.tables.f1_change_by_topology`
    tables). ``commands`` make the missing runs of an empty (a) and (b)."""
    height = max(2.6, 0.3 * len(distributions) + 1.8)
    fig, (ax_a, ax_b) = paper_figure(2, height, ncols=2, layout="constrained")
    if distributions:
        _router_shares(ax_a, distributions)
    else:
        placeholder(ax_a, f"no Adaptive-ACE results; make them with\n{commands[0]}")
    ax_a.set_title("(a) router label distribution")
    if changes:
        _router_changes(ax_b, changes, adaptive, full)
    else:
        placeholder(
            ax_b,
            f"no questions answered by both {adaptive} and {full}; make them with\n{commands[1]}",
        )
    ax_b.set_title("(b) F1 change, Adaptive vs Full, per router label")
    return fig
