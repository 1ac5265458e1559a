"""Accuracy against input tokens: the Pareto front of a set of methods, one slice a figure.

:func:`pareto_front` finds the methods no other method beats on both axes (at least as
accurate for at most as many input tokens, better on one); :func:`plot_pareto` draws every
method as a point (tokens on a log axis), joins the front with a step line and names its
points, marks and names every composed method (``source>ace-…``, a diamond) so it can be read
against its parts, and adds a chooser's curve over ``λ`` and the per-question oracle when given.
The figure is single-column width (3.3 in) for a paper.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ace_lab.viz.palette import label_colour

#: Single-column figure size (inches).
COLUMN_SIZE = (3.3, 2.6)
#: The colour of a composed method's point and name.
COMPOSED = "#6a1b9a"


def token_axis(ax: plt.Axes) -> None:
    """A log x axis of input tokens labelled 0.5k, 1k, 2k, 5k, … (no minor labels)."""
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def pareto_front(accuracy: Sequence[float], tokens: Sequence[float]) -> list[int]:
    """Indices of the non-dominated points, cheapest first (an exact tie keeps the first)."""
    points = list(zip(accuracy, tokens, strict=True))
    front = []
    for i, (acc, tok) in enumerate(points):
        dominated = any(
            (a >= acc and t <= tok and (a > acc or t < tok)) or ((a, t) == (acc, tok) and j < i)
            for j, (a, t) in enumerate(points)
            if j != i
        )
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: (points[i][1], -points[i][0]))


def plot_pareto(
    points: pd.DataFrame,
    *,
    title: str,
    metric: str,
    chooser: pd.DataFrame | None = None,
    oracle: tuple[float, float] | None = None,
    size: tuple[float, float] = COLUMN_SIZE,
) -> plt.Figure:
    """``points`` (``method``, ``accuracy``, ``tokens``) as a scatter with its Pareto front;
    ``chooser`` (``accuracy``, ``tokens`` per ``λ``, in ``λ`` order) as a dashed curve;
    ``oracle`` as a star."""
    fig, ax = plt.subplots(figsize=size)
    front = pareto_front(list(points["accuracy"]), list(points["tokens"]))
    on_front = set(front)
    composed = [">" in str(m) for m in points["method"]]
    for i, row in enumerate(points.itertuples(index=False)):
        colour = label_colour(str(row.method)) if i in on_front else "#9e9e9e"
        if composed[i]:
            ax.scatter(row.tokens, row.accuracy, s=18, marker="D", color=COMPOSED, zorder=4)
            if i not in on_front:
                ax.annotate(
                    str(row.method),
                    (row.tokens, row.accuracy),
                    xytext=(3, -7),
                    textcoords="offset points",
                    fontsize=5.5,
                    color=COMPOSED,
                )
        else:
            ax.scatter(row.tokens, row.accuracy, s=14, color=colour, zorder=3, linewidths=0)
    if any(composed):
        ax.scatter([], [], s=18, marker="D", color=COMPOSED, label="composed (source>ACE)")
    if front:
        xs = [points["tokens"].iloc[i] for i in front]
        ys = [points["accuracy"].iloc[i] for i in front]
        ax.step(xs, ys, where="post", color="#424242", linewidth=0.8, zorder=2)
        for k, i in enumerate(front):
            row = points.iloc[i]
            ax.annotate(
                str(row["method"]),
                (row["tokens"], row["accuracy"]),
                xytext=(3, 2 if k % 2 == 0 else -7),  # alternate sides: neighbours overlap
                textcoords="offset points",
                fontsize=5.5,
            )
    if chooser is not None and len(chooser):
        ax.plot(
            chooser["tokens"],
            chooser["accuracy"],
            linestyle="--",
            marker="x",
            markersize=3,
            linewidth=0.8,
            color="#d62728",
            label="auto (CV, over λ)",
            zorder=4,
        )
    if oracle is not None:
        acc, tok = oracle
        ax.scatter(tok, acc, marker="*", s=40, color="#ff9800", label="oracle", zorder=5)
    token_axis(ax)
    ax.set_xlabel("mean input tokens per question", fontsize=7)
    ax.set_ylabel(metric, fontsize=7)
    ax.set_title(title, fontsize=8)
    ax.tick_params(labelsize=6)
    ax.grid(True, linewidth=0.3, alpha=0.5)
    if chooser is not None or oracle is not None or any(composed):
        ax.legend(fontsize=5.5, loc="best", frameon=False)  # away from the points
    fig.tight_layout()
    return fig
