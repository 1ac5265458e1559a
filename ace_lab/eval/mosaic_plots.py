"""MOSAIC's figures (notebook 05), drawn from the tables of :mod:`ace_lab.eval.mosaic_tables`.

- :func:`policy_histograms`: assigned vs reached depth, seed counts and evidence budgets over a
  slice, on each control's whole range, titled with the number of distinct combinations;
- :func:`stopping_figure`: novelty gain and evidence completeness per depth for a few queries,
  with the low-gain floor, each query's completeness threshold and where it stopped;
- :func:`effort_figure`: paths evaluated and evidence retained relative to Fixed Wide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.eval.mosaic_tables import policy_combinations, policy_frame, stopping_curve
from ace_lab.evidence import Trace
from ace_lab.mosaic.policy import GAIN_LOW, ExplorationPolicy

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


def policy_histograms(records: Any, method: str = "mosaic", title: str = "") -> plt.Figure:
    """Three histograms over the questions ``method`` answered: the depth cap it assigned next
    to the depth the exploration reached, the seed count and the evidence budget; every
    control's x axis spans its whole accepted range, so unused values show as gaps."""
    frame = policy_frame(records, method)
    combos = len(policy_combinations(records, method))
    fig, axes = plt.subplots(1, len(HISTOGRAMS), figsize=(12, 3.4))
    for ax, (name, label) in zip(axes, HISTOGRAMS, strict=True):
        lo, hi = control_range(name)
        if name == "max_depth":
            lo = 0  # the reached depth can be 0 (no path grew) or 1 (stopped early)
        xs = np.arange(lo, hi + 1)
        if frame.empty:
            ax.text(0.5, 0.5, "no policies", ha="center", va="center", transform=ax.transAxes)
        elif name == "max_depth":
            ax.bar(xs - 0.2, _counts(frame[name], lo, hi), 0.4, label="assigned D_q")
            ax.bar(xs + 0.2, _counts(frame["depth_reached"], lo, hi), 0.4, label="reached")
            ax.legend(fontsize=8, frameon=False)
        else:
            ax.bar(xs, _counts(frame[name], lo, hi), 0.7)
        ax.set_xticks(xs)
        ax.set_xlabel(label)
        ax.set_ylabel("questions")
    fig.suptitle(title or f"{method}: {len(frame)} questions, {combos} distinct policy "
                 "combinations", fontsize=11)  # fmt: skip
    fig.tight_layout()
    return fig


def stopping_figure(traces: Mapping[str, Trace], title: str = "") -> plt.Figure:
    """Gain (left) and completeness (right) per depth, one line per query (``traces``: label →
    trace). The gain panel marks the low-gain floor; the completeness panel each query's
    threshold (dashed, its colour); an ✕ marks the depth each query stopped at, its reason in
    the legend below the panels."""
    rows = max(len(traces), 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8 + 0.22 * rows), sharex=True)
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
            ax.plot(curve["depth"], curve[column], "o-", color=colour,
                    label=f"{label} (stop: {reason})" if ax is right else None)  # fmt: skip
            ax.plot(curve["depth"].iloc[-1], curve[column].iloc[-1], "X", color=colour, ms=11)
        right.axhline(curve["threshold"].iloc[0], color=colour, ls="--", lw=0.9)
    left.axhline(GAIN_LOW, color="#777777", ls=":", lw=1, label=f"low gain < {GAIN_LOW}")
    left.set_ylabel("novelty gain")
    right.set_ylabel("evidence completeness")
    for ax in (left, right):
        ax.set_xlabel("depth")
        ax.set_ylim(-0.02, 1.05)
        if depths:
            ax.set_xticks(sorted(depths))
    left.legend(fontsize=8, frameon=False)
    handles, labels = right.get_legend_handles_labels()
    if handles:  # the questions under both panels, where they hide no curve
        fig.legend(handles, labels, loc="lower center", fontsize=8, frameon=False)
    fig.suptitle(title or "Cumulative-gain stopping: stop after the minimum depth when gain is "
                 "low and completeness ≥ threshold (dashed)", fontsize=10)  # fmt: skip
    fig.tight_layout(rect=(0, min(0.06 * rows, 0.4) if handles else 0, 1, 1))
    return fig


def effort_figure(table: pd.DataFrame, title: str = "") -> plt.Figure:
    """Horizontal bars per method: paths evaluated and evidence retained, % vs the reference
    of :func:`~ace_lab.eval.mosaic_tables.effort_table` (its attrs name it)."""
    reference = table.attrs.get("reference", "reference")
    fig, ax = plt.subplots(figsize=(8, 0.55 * max(len(table), 1) + 1.6))
    if table.empty or "paths_vs_ref" not in table:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
        return fig
    ys = np.arange(len(table))
    for offset, column, label in ((-0.2, "paths_vs_ref", "paths evaluated"),
                                  (0.2, "evidence_vs_ref", "evidence retained")):  # fmt: skip
        values = pd.to_numeric(table[column], errors="coerce").fillna(0.0).to_numpy()
        bars = ax.barh(ys + offset, values, 0.4, label=label)
        ax.bar_label(bars, fmt="%+.1f %%", fontsize=7, padding=2)
    ax.set_yticks(ys, list(table.index))
    ax.axvline(0, color="#444444", lw=0.8)
    ax.invert_yaxis()
    ax.set_xlabel(f"change of the per-query mean vs {reference} (%)")
    ax.margins(x=0.15)  # room for the bar labels
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title(title or f"Graph-search effort relative to {reference} "
                 f"({table.attrs.get('questions', '?')} questions)", fontsize=10)  # fmt: skip
    fig.tight_layout()
    return fig
