"""Accuracy against input tokens: the Pareto front of a set of methods, one slice a figure.

:func:`pareto_front` finds the methods no other method beats on both axes (at least as
accurate for at most as many input tokens, better on one); :func:`plot_pareto` draws every
method as a point (tokens on a log axis), joins the front with a step line and names its
points, marks and names every composed method (``source>ace-…``, a diamond) so it can be read
against its parts, and adds a chooser's curve over ``λ`` and the per-question oracle when given.
The figure is single-column width (3.3 in) with 7 pt text; names are display names, placed
where they overprint nothing (``label_placement``; a name no place fits is numbered, with a key
under the axes).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ace_lab.viz.label_placement import place_labels
from ace_lab.viz.names import display_name
from ace_lab.viz.palette import label_colour
from ace_lab.viz.sizes import SINGLE_COLUMN, paper_figure, paper_style

#: Single-column figure size (inches).
COLUMN_SIZE = (SINGLE_COLUMN, 2.8)
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


@paper_style()
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
    ``oracle`` as a star. The front's points and the composed methods are named."""
    fig, ax = paper_figure(1 if size[0] <= SINGLE_COLUMN else 2, size[1])
    front = pareto_front(list(points["accuracy"]), list(points["tokens"]))
    on_front = set(front)
    composed = [">" in str(m) for m in points["method"]]
    for i, row in enumerate(points.itertuples(index=False)):
        colour = label_colour(str(row.method)) if i in on_front else "#9e9e9e"
        if composed[i]:
            ax.scatter(row.tokens, row.accuracy, s=18, marker="D", color=COMPOSED, zorder=4)
        else:
            ax.scatter(row.tokens, row.accuracy, s=14, color=colour, zorder=3, linewidths=0)
    if any(composed):
        ax.scatter([], [], s=18, marker="D", color=COMPOSED, label="composed")
    if front:
        xs = [points["tokens"].iloc[i] for i in front]
        ys = [points["accuracy"].iloc[i] for i in front]
        ax.step(xs, ys, where="post", color="#424242", linewidth=0.8, zorder=2)
    if chooser is not None and len(chooser):
        ax.plot(
            chooser["tokens"],
            chooser["accuracy"],
            linestyle="--",
            marker="x",
            markersize=3,
            linewidth=0.8,
            color="#d62728",
            label="auto (CV over λ)",
            zorder=4,
        )
    if oracle is not None:
        acc, tok = oracle
        ax.scatter(tok, acc, marker="*", s=40, color="#ff9800", label="oracle", zorder=5)
    token_axis(ax)
    ax.set_xlabel("mean input tokens per question")
    ax.set_ylabel(metric)
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.margins(x=0.08, y=0.12)  # room for names at the edges
    legend = chooser is not None or oracle is not None or any(composed)
    if legend:  # above the axes, in one row: inside, it would hide points
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncols=3,
            frameon=False,
            handletextpad=0.3,
            columnspacing=1.0,
        )
    ax.set_title(title, pad=16 if legend else 6)
    fig.tight_layout()  # final: names are placed in canvas pixels
    named = [*front, *(i for i, c in enumerate(composed) if c and i not in on_front)]
    key = place_labels(
        ax,
        [(points["tokens"].iloc[i], points["accuracy"].iloc[i]) for i in named],
        [display_name(str(points["method"].iloc[i])) for i in named],
        [COMPOSED if composed[i] else "black" for i in named],
        # the curve's markers and the oracle; unnamed grey points may sit under a name
        avoid=[
            *(
                zip(chooser["tokens"], chooser["accuracy"], strict=True)
                if chooser is not None
                else []
            ),
            *([oracle[::-1]] if oracle is not None else []),
        ],
    )
    if key:
        ax.annotate(
            "\n".join(key),
            (0, 0),
            xycoords=ax.xaxis.label,
            xytext=(0, -4),
            textcoords="offset points",
            va="top",
        )
    return fig
