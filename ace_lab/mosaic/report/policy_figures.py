"""The policies MOSAIC assigned over a slice, as histograms (notebook 05).

:func:`policy_histograms`: assigned vs reached depth, seed counts and evidence budgets over a
slice, on each control's whole range, titled with the number of distinct combinations.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.report.policies import policy_combinations, policy_frame
from ace_lab.viz.names import display_name
from ace_lab.viz.sizes import paper_figure, paper_style

#: The controls :func:`policy_histograms` draws, with their axis labels.
HISTOGRAMS = (
    ("max_depth", "depth (hops)"),
    ("seed_count", "seed count"),
    ("evidence_budget", "evidence budget (items)"),
)


def control_range(name: str) -> tuple[int, int]:
    """The ``(lo, hi)`` an ``ExplorationPolicy`` control accepts (from its bounded field)."""
    field = next(f for f in dataclasses.fields(ExplorationPolicy) if f.name == name)
    bounds = next(v for v in field.metadata.values() if hasattr(v, "lo") and hasattr(v, "hi"))
    return int(bounds.lo), int(bounds.hi)


def _counts(values: pd.Series, lo: int, hi: int) -> np.ndarray:
    counts = values.dropna().astype(int).value_counts()
    return np.array([int(counts.get(v, 0)) for v in range(lo, hi + 1)])


@paper_style()
def policy_histograms(records: Any, method: str = "mosaic", title: str = "") -> plt.Figure:
    """Three histograms over the questions ``method`` answered, two columns wide: the depth cap
    it assigned next to the depth the exploration reached, the seed count and the evidence
    budget; every control's x axis spans its whole accepted range, so unused values show as
    gaps."""
    frame = policy_frame(records, method)
    combos = len(policy_combinations(records, method))
    fig, axes = paper_figure(2, 2.3, ncols=len(HISTOGRAMS), layout="constrained")
    for ax, (name, label) in zip(axes, HISTOGRAMS, strict=True):
        lo, hi = control_range(name)
        if name == "max_depth":
            lo = 0  # the reached depth can be 0 (no path grew) or 1 (stopped early)
        xs = np.arange(lo, hi + 1)
        if frame.empty:
            ax.text(0.5, 0.5, "no policies", ha="center", va="center", transform=ax.transAxes)
        elif name == "max_depth":
            ax.bar(xs - 0.2, _counts(frame[name], lo, hi), 0.4, label="assigned $D_q$")
            ax.bar(xs + 0.2, _counts(frame["depth_reached"], lo, hi), 0.4, label="reached")
            ax.legend(frameon=False, loc="upper left")
        else:
            ax.bar(xs, _counts(frame[name], lo, hi), 0.7)
        ax.set_xticks(xs)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of questions
        ax.set_xlabel(label)
        ax.margins(y=0.25)  # room for the legend above the bars
    axes[0].set_ylabel("questions")
    fig.suptitle(
        title
        or f"{display_name(method)}: {len(frame)} questions, {combos} distinct policy combinations"
    )
    return fig
