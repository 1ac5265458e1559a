"""Paper figure sizes: single column (3.3 in) and double column (6.9 in), text >= 7 pt.

Every figure writer makes its figure with :func:`paper_figure` and draws inside
:func:`paper_style` (a decorator or ``with`` block), so a committed figure drops into a
two-column paper at 100 % and its smallest text still reads at 7 pt. The text sizes are rc
settings applied while the figure is built; tick labels are set on each axes, since matplotlib
creates ticks lazily at save time, outside any ``rc_context``.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

#: Column widths of a two-column paper (inches).
SINGLE_COLUMN = 3.3
DOUBLE_COLUMN = 6.9
#: Body text of a figure and the smallest text any figure may have (points).
FONT_PT = 8.0
MIN_FONT_PT = 7.0
#: The rc settings of a paper figure (sizes only; colours and styles stay the writers').
PAPER_RC: dict[str, Any] = {
    "font.size": FONT_PT,
    "axes.titlesize": FONT_PT,
    "axes.labelsize": FONT_PT,
    "xtick.labelsize": MIN_FONT_PT,
    "ytick.labelsize": MIN_FONT_PT,
    "legend.fontsize": MIN_FONT_PT,
    "legend.title_fontsize": MIN_FONT_PT,
    "figure.titlesize": FONT_PT + 1,
    "figure.labelsize": FONT_PT,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.0,
    "lines.markersize": 4.0,
}


def paper_style() -> Any:
    """The paper's text sizes while a figure is built: ``with paper_style():`` or, on a figure
    writer, ``@paper_style()``."""
    return plt.rc_context(PAPER_RC)


def paper_figure(
    columns: int = 1, height: float | None = None, *, nrows: int = 1, ncols: int = 1, **kwargs: Any
) -> tuple[plt.Figure, Any]:
    """``plt.subplots`` at ``columns`` (1 or 2) column width and ``height`` inches (default:
    3:4 for one column, 2:5 for two), tick labels at :data:`MIN_FONT_PT`; ``kwargs`` go to
    ``plt.subplots`` (``sharey``, ``squeeze``, ``gridspec_kw`` …)."""
    if columns not in (1, 2):
        raise ValueError(f"a paper figure spans 1 or 2 columns, not {columns}")
    width = SINGLE_COLUMN if columns == 1 else DOUBLE_COLUMN
    height = height if height is not None else width * (0.75 if columns == 1 else 0.4)
    with paper_style():
        fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), **kwargs)
    for ax in np.ravel(axes):
        ax.tick_params(labelsize=MIN_FONT_PT)
    return fig, axes
